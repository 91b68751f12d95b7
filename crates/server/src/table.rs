//! A table: one task owns its games, its seats and its gallery; everyone
//! else talks to it through a [`TableHandle`].

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::Utf8Bytes;
use baghchal_protocol as wire;
use baghchal_rules::{Action, Side};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::Instrument;

use crate::bot::Computer;
use crate::stats::ActionStage;
use crate::storage::{Storage, StorageError, TableRow};
use crate::throttle::Activity;
use baghchal_table::boards::{Board, Boards, Target, UnknownBoard};
use baghchal_table::finished::FinishedGame;
use baghchal_table::names::{result_to_wire, side_to_wire};
use baghchal_table::options::{Opponent, TableOptions};
use baghchal_table::play::{Event, Intent, Logged, Refusal};
use baghchal_table::recent_ids::RecentIds;
use baghchal_table::seat::Player;
use baghchal_table::time::Timestamp;
use baghchal_table::view::event_to_wire;

use crate::time::{Wait, WallClock};
use crate::token::{Token, TokenHash};

/// Events kept in memory per table for reconnecting clients, at most.
pub const EVENT_LOG_LEN: usize = 256;
/// The bytes of encoded events kept per table for reconnecting clients,
/// at most (the older ones go first; a client that missed more gets a
/// snapshot): what bounds a busy table's memory. An event's frame is
/// about 550 bytes (650 at a two-board table), so this keeps the last 30
/// or so (25), more than a refresh or a change of network misses;
/// the log is what a server's memory grows by while its tables play, up
/// to this bound for each (40 MiB for 2,500 tables).
pub const EVENT_LOG_BYTES: usize = 16 * 1024;
/// Messages queued for one connection before it counts as too slow: room
/// for a welcome, a full replay of the event log and a presence.
pub const OUTBOX_LEN: usize = EVENT_LOG_LEN + 64;
/// Commands queued for a table.
const INBOX_LEN: usize = 1024;
/// The pause before the first retry of a failed commit of the table's own
/// (the computer's action, the next bots game); it doubles each time.
const RETRY_FIRST: Duration = Duration::from_millis(500);
/// Retries of a failed commit of the table's own before it gives up (a
/// later join starts it again).
const RETRIES: u32 = 6;
/// How long a player of a game in progress between two people must be
/// away (no socket open) before the other may claim the game.
pub const ABSENCE_GRACE: Duration = Duration::from_secs(15);
/// After a table is loaded with a clock running (a restart, or another
/// server taking it over), no flag falls before this much time has
/// passed, so that the player on move can reconnect; the time is still
/// counted, and an action in it leaves no time but the increment.
pub const LOAD_GRACE: Duration = Duration::from_secs(10);

/// A connection's id, for logs and for telling sockets apart.
pub type ConnId = u64;

/// What a table sends to a connection.
#[derive(Clone, Debug)]
pub enum Outgoing {
    /// A message, serialized once for every receiver.
    Text(Utf8Bytes),
    /// A frame broadcast to every subscriber (an event, or presence),
    /// serialized once, with the moment the table sent it (for
    /// [`ActionStage::ToSocket`]).
    Event(Utf8Bytes, std::time::Instant),
    /// Close the socket with this code.
    Close(wire::CloseCode),
}

/// The sending half of a connection's queue.
pub type Outbox = mpsc::Sender<Outgoing>;

/// Who a connection is at its table.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Member {
    /// A player.
    Player(Player),
    /// A spectator.
    Spectator,
}

/// How the computer paces itself.
#[derive(Clone, Copy, Debug)]
pub struct Pace {
    /// Before each computer action at a computer table.
    pub computer_move: Duration,
    /// Before each action at a bots table, so that people can follow.
    pub bots_move: Duration,
    /// Between two games at a bots table.
    pub bots_next_game: Duration,
}

impl Default for Pace {
    fn default() -> Pace {
        Pace {
            computer_move: Duration::from_millis(300),
            bots_move: Duration::from_millis(1200),
            bots_next_game: Duration::from_secs(5),
        }
    }
}

/// How an idle table takes itself out of the registry: its id and handle.
pub type Forget = Arc<dyn Fn(&str, &TableHandle) + Send + Sync>;

/// What every table shares: the database, the computer, the pace.
#[derive(Clone)]
pub struct TableContext {
    /// The database.
    pub storage: Storage,
    /// The computer player.
    pub computer: Computer,
    /// The computer's pace.
    pub pace: Pace,
    /// How long a table with nobody connected and nothing to do stays in
    /// memory.
    pub idle_timeout: Duration,
    /// Called by an idle table to leave the registry.
    pub forget: Forget,
    /// Every table's task, awaited at shutdown.
    pub tasks: TaskTracker,
    /// Cancelled at shutdown: each table ends after the command it is
    /// handling, its commit included.
    pub shutdown: CancellationToken,
    /// Wall time: the clocks, absences and offer limits.
    pub clock: Arc<dyn WallClock>,
    /// Counts the actions, so that the tablebase build yields to play.
    pub activity: Activity,
}

enum Command {
    Join {
        conn: ConnId,
        token: String,
        since: Option<u64>,
        outbox: Outbox,
        respond_to: oneshot::Sender<Result<Member, wire::ErrorCode>>,
    },
    Leave {
        conn: ConnId,
    },
    Act {
        conn: ConnId,
        id: Option<String>,
        /// The board the client named, if any.
        board: Option<u8>,
        intent: Result<Intent, String>,
        /// When the socket's task sent it (for [`ActionStage::ToTable`]).
        sent: std::time::Instant,
    },
    Record {
        game: u32,
        board: u8,
        respond_to: oneshot::Sender<Option<wire::GameRecord>>,
    },
    Ping {
        conn: ConnId,
    },
}

/// The handle of a table's task, here or on the node that owns it. Cheap
/// to clone; a local task ends when the last handle is dropped.
#[derive(Clone)]
pub struct TableHandle {
    route: Route,
}

#[derive(Clone)]
enum Route {
    /// The table runs here.
    Local(mpsc::Sender<Command>),
    /// Another node owns it.
    Remote(Arc<crate::cluster::Remote>),
}

/// The table's task has ended (the server is shutting down), or its owner
/// does not answer.
#[derive(Debug, thiserror::Error)]
#[error("the table is closed")]
pub struct TableClosed;

/// How a table is owned: under a lease at an epoch (in a cluster), and the
/// token that stops it.
#[derive(Clone)]
pub struct Tenure {
    /// The owner's epoch; `None` on a single node.
    pub epoch: Option<u64>,
    /// Cancelled when this node must stop serving the table (its lease is
    /// lost, or the server shuts down).
    pub stop: CancellationToken,
}

impl TableHandle {
    /// Loads a table from its row and stored events and starts its task.
    pub fn spawn(
        row: TableRow,
        events: &[Logged],
        context: TableContext,
        tenure: Tenure,
    ) -> Result<TableHandle, StorageError> {
        let (boards, _) = Boards::replay(row.options, events).map_err(|(version, what)| {
            StorageError::Corrupt {
                table: row.id.clone(),
                what: format!("event {version}: {what}"),
            }
        })?;
        let mut recent = RecentIds::default();
        for logged in events {
            if let (Some(player), Some(id)) = (logged.player, &logged.client_id) {
                recent.insert(player, id);
            }
        }
        let now = context.clock.now();
        let play_clock_runs = boards
            .iter()
            .any(|(_, play)| play.clocks().and_then(|c| c.running()).is_some());
        let (tx, rx) = mpsc::channel(INBOX_LEN);
        let span = tracing::info_span!("table", table_id = %row.id);
        let table = Table {
            id: row.id,
            options: row.options,
            secrets: Secrets {
                host: row.host_secret,
                guest: row.guest_secret,
                invite: row.invite_token,
                watch: row.watch_token,
            },
            boards,
            host: None,
            guest: None,
            spectators: HashMap::new(),
            log: VecDeque::new(),
            log_bytes: 0,
            recent,
            tx: tx.downgrade(),
            computers: [None, None],
            next_game: None,
            away: [Some(now); 2],
            absent: None,
            // The grace is for a clock that ran while the table was not
            // loaded: a restart, or a takeover.
            flag_not_before: if play_clock_runs {
                now.after(LOAD_GRACE)
            } else {
                now
            },
            context,
            tenure,
            fenced: false,
        };
        let tasks = table.context.tasks.clone();
        tasks.spawn(table.run(rx).instrument(span));
        Ok(TableHandle {
            route: Route::Local(tx),
        })
    }

    /// A handle for a table another node owns.
    pub fn remote(remote: crate::cluster::Remote) -> TableHandle {
        TableHandle {
            route: Route::Remote(Arc::new(remote)),
        }
    }

    /// Whether the table's task has ended.
    pub fn is_closed(&self) -> bool {
        match &self.route {
            Route::Local(tx) => tx.is_closed(),
            Route::Remote(_) => false,
        }
    }

    /// Completes when the table's task has ended.
    pub async fn closed(&self) {
        match &self.route {
            Route::Local(tx) => tx.closed().await,
            Route::Remote(_) => std::future::pending().await,
        }
    }

    /// Whether both handles reach the same table task.
    pub fn same_table(&self, other: &TableHandle) -> bool {
        match (&self.route, &other.route) {
            (Route::Local(a), Route::Local(b)) => a.same_channel(b),
            _ => false,
        }
    }

    /// Presents `token`. On success the table has sent `welcome`, the
    /// state and `presence` into `outbox`, and will keep sending there.
    pub async fn join(
        &self,
        conn: ConnId,
        token: String,
        since: Option<u64>,
        outbox: Outbox,
    ) -> Result<Result<Member, wire::ErrorCode>, TableClosed> {
        let tx = match &self.route {
            Route::Local(tx) => tx,
            Route::Remote(remote) => return remote.join(token, since, outbox).await,
        };
        let (respond_to, rx) = oneshot::channel();
        tx.send(Command::Join {
            conn,
            token,
            since,
            outbox,
            respond_to,
        })
        .await
        .map_err(|_| TableClosed)?;
        rx.await.map_err(|_| TableClosed)
    }

    /// The connection is gone.
    pub async fn leave(&self, conn: ConnId) {
        match &self.route {
            Route::Local(tx) => {
                let _ = tx.send(Command::Leave { conn }).await;
            }
            Route::Remote(remote) => remote.leave().await,
        }
    }

    /// A player's command on `board` (as the client named it); the table
    /// answers in the connection's outbox. `intent` is `Err` with the
    /// notation error for an unreadable action.
    pub async fn act(
        &self,
        conn: ConnId,
        id: Option<String>,
        board: Option<u8>,
        intent: Result<Intent, String>,
    ) -> Result<(), TableClosed> {
        match &self.route {
            Route::Local(tx) => tx
                .send(Command::Act {
                    conn,
                    id,
                    board,
                    intent,
                    sent: std::time::Instant::now(),
                })
                .await
                .map_err(|_| TableClosed),
            Route::Remote(remote) => remote.act(id, board, intent).await,
        }
    }

    /// Answers `pong` in the connection's outbox, after everything the
    /// table sent it before.
    pub async fn ping(&self, conn: ConnId) -> Result<(), TableClosed> {
        match &self.route {
            Route::Local(tx) => tx
                .send(Command::Ping { conn })
                .await
                .map_err(|_| TableClosed),
            Route::Remote(remote) => remote.ping().await,
        }
    }

    /// Game `n`'s record on `board` (1 but at a two-board table), if
    /// there is such a game.
    pub async fn record(
        &self,
        game: u32,
        board: u8,
    ) -> Result<Option<wire::GameRecord>, TableClosed> {
        let tx = match &self.route {
            Route::Local(tx) => tx,
            Route::Remote(remote) => return remote.record(game, board).await,
        };
        let (respond_to, rx) = oneshot::channel();
        tx.send(Command::Record {
            game,
            board,
            respond_to,
        })
        .await
        .map_err(|_| TableClosed)?;
        rx.await.map_err(|_| TableClosed)
    }
}

struct Secrets {
    host: Option<TokenHash>,
    guest: Option<TokenHash>,
    invite: Option<TokenHash>,
    watch: Option<TokenHash>,
}

/// A connected socket.
struct Conn {
    id: ConnId,
    outbox: Outbox,
}

/// The actor's state.
struct Table {
    /// The table id.
    id: String,
    /// Its options.
    options: TableOptions,
    /// The hashes of its tokens.
    secrets: Secrets,
    /// The games, on one board or two.
    boards: Boards,
    /// The host's socket.
    host: Option<Conn>,
    /// The guest's socket.
    guest: Option<Conn>,
    /// The gallery's sockets.
    spectators: HashMap<ConnId, Outbox>,
    /// The latest events as they were sent, sent again to reconnecting
    /// clients (with the time of sending, at a clocked table).
    log: VecDeque<Sent>,
    /// The bytes of the frames in `log`.
    log_bytes: usize,
    /// Client ids already applied.
    recent: RecentIds,
    /// What tables share.
    context: TableContext,
    /// Our own inbox, to tell the registry which task is leaving it.
    tx: mpsc::WeakSender<Command>,
    /// The computer's turn on each board, while it is to move there.
    computers: [Option<ComputerTurn>; 2],
    /// The next bots game, while one is due.
    next_game: Option<Timer>,
    /// How this node holds the table.
    tenure: Tenure,
    /// The store refused a write: another node owns the table now.
    fenced: bool,
    /// Since when each player (host, guest) has had no socket open.
    away: [Option<Timestamp>; 2],
    /// The absence last announced in `presence`.
    absent: Option<(Board, Side, Timestamp)>,
    /// No flag falls before this (the grace after loading).
    flag_not_before: Timestamp,
}

/// An event as it was sent: its version and its frame, shared with the
/// broadcast (no copy); at a clocked table also the message itself, whose
/// clock is sent again with the time of sending.
struct Sent {
    version: u64,
    frame: Utf8Bytes,
    clocked: Option<Box<wire::ServerMessage>>,
}

/// A thought in progress: the computer's choice, computed on a thinker's
/// thread. Dropping it abandons the thought.
type Thought = Pin<Box<dyn Future<Output = Option<Action>> + Send>>;

/// The computer to move at one ply of one game.
struct ComputerTurn {
    /// The game and the ply.
    key: (u32, u16),
    /// Waiting for its pace or a retry, thinking, or its action chosen
    /// and waiting to be committed again.
    stage: Stage,
    /// When the wait ends.
    due: Instant,
    /// Failed commits so far.
    failures: u32,
}

enum Stage {
    /// Waiting until `due` to start thinking.
    Pacing,
    /// Thinking.
    Thinking(Thought),
    /// Chosen; its commit failed and is tried again at `due`.
    Chosen(Action),
}

/// Something the table does by itself at `due`.
struct Timer {
    /// Which game it was scheduled for.
    game: u32,
    /// When.
    due: Instant,
    /// Failed commits so far.
    failures: u32,
}

/// What woke the table.
enum Wake {
    /// A command, or `None` when every handle is gone.
    Command(Option<Command>),
    /// The server is shutting down.
    Shutdown,
    /// Nobody came for the idle timeout.
    Idle,
    /// The computer's wait on this board is over.
    ComputerDue(Board),
    /// The computer has chosen on this board.
    ComputerChose(Board, Option<Action>),
    /// The next bots game is due.
    NextGameDue,
    /// The running side's time is out.
    FlagDue,
}

/// The pause before retry `failures` (from 1), or `None` once the retries
/// are spent.
fn backoff(failures: u32) -> Option<Duration> {
    (failures <= RETRIES).then(|| RETRY_FIRST * 2u32.saturating_pow(failures - 1))
}

/// Completes with `thought`'s choice; never while there is none.
async fn think(stage: Option<&mut Stage>) -> Option<Action> {
    match stage {
        Some(Stage::Thinking(thought)) => thought.await,
        _ => std::future::pending().await,
    }
}

/// Completes with the first choice of the computer's thoughts on either
/// board, and the board.
async fn think_any(turns: &mut [Option<ComputerTurn>; 2]) -> (Board, Option<Action>) {
    let [first, second] = turns;
    tokio::select! {
        action = think(first.as_mut().map(|t| &mut t.stage)) => (1, action),
        action = think(second.as_mut().map(|t| &mut t.stage)) => (2, action),
    }
}

/// The board index of `board` in per-board arrays.
fn board_index(board: Board) -> usize {
    usize::from(board.clamp(1, 2)) - 1
}

/// Completes at `wait`; never when there is none.
async fn until_wall(wait: Option<Wait>) {
    match wait {
        Some(wait) => wait.await,
        None => std::future::pending().await,
    }
}

/// Completes at `due`; never when there is none.
async fn until(due: Option<Instant>) {
    match due {
        Some(due) => tokio::time::sleep_until(due).await,
        None => std::future::pending().await,
    }
}

impl Table {
    async fn run(mut self, mut rx: mpsc::Receiver<Command>) {
        tracing::debug!(version = self.boards.version(), "table open");
        self.schedule_computer();
        self.schedule_next_bots_game();
        let stop = self.tenure.stop.clone();
        loop {
            if self.fenced {
                break;
            }
            let idle = self.is_idle();
            let computer_due = (1..)
                .zip(&self.computers)
                .filter_map(|(board, turn)| match turn {
                    Some(turn) if !matches!(turn.stage, Stage::Thinking(_)) => {
                        Some((turn.due, board))
                    }
                    _ => None,
                })
                .min();
            let next_game_due = self.next_game.as_ref().map(|t| t.due);
            let flag_due = self.flag_due().map(|at| self.context.clock.wait_until(at));
            let wake = tokio::select! {
                biased;
                () = stop.cancelled() => Wake::Shutdown,
                command = rx.recv() => Wake::Command(command),
                (board, action) = think_any(&mut self.computers) => {
                    Wake::ComputerChose(board, action)
                }
                () = until(computer_due.map(|(due, _)| due)) => {
                    Wake::ComputerDue(computer_due.map_or(1, |(_, board)| board))
                }
                () = until(next_game_due) => Wake::NextGameDue,
                () = until_wall(flag_due) => Wake::FlagDue,
                () = tokio::time::sleep(self.context.idle_timeout), if idle => Wake::Idle,
            };
            match wake {
                Wake::Command(Some(command)) => self.handle(command).await,
                Wake::Command(None) | Wake::Shutdown => break,
                Wake::Idle => {
                    self.leave_registry();
                    // Nobody may join from here on: commands already queued
                    // are dropped, and their senders see the table closed
                    // and look it up again (a fresh load from the database,
                    // which holds everything).
                    rx.close();
                    while rx.recv().await.is_some() {}
                    tracing::debug!("idle table unloaded");
                    return;
                }
                Wake::ComputerDue(board) => self.computer_due(board).await,
                Wake::ComputerChose(board, action) => self.computer_chose(board, action).await,
                Wake::NextGameDue => self.next_bots_game().await,
                Wake::FlagDue => {
                    if !self.flag_if_due().await {
                        // The flag could not be stored: try again after a
                        // pause rather than spin.
                        tokio::time::sleep(RETRY_FIRST).await;
                    }
                }
            }
        }
        if !self.context.shutdown.is_cancelled() {
            // This node may no longer serve the table: its sockets reconnect
            // and find the new owner.
            tracing::info!(
                fenced = self.fenced,
                "table stopped here; it moves to another node"
            );
            self.leave_registry();
            for conn in [self.host.take(), self.guest.take()].into_iter().flatten() {
                let _ = conn
                    .outbox
                    .try_send(Outgoing::Close(wire::CloseCode::Moved));
            }
            for (_, outbox) in self.spectators.drain() {
                let _ = outbox.try_send(Outgoing::Close(wire::CloseCode::Moved));
            }
        }
        tracing::debug!("table closed");
    }

    async fn handle(&mut self, command: Command) {
        match command {
            Command::Join {
                conn,
                token,
                since,
                outbox,
                respond_to,
            } => {
                let result = self.join(conn, &token, since, outbox).await;
                let _ = respond_to.send(result);
            }
            Command::Leave { conn } => self.leave(conn).await,
            Command::Act {
                conn,
                id,
                board,
                intent,
                sent,
            } => {
                let taken = std::time::Instant::now();
                self.context.activity.record();
                crate::stats::stage(ActionStage::ToTable, taken - sent);
                self.act(conn, id, board, intent, taken).await;
            }
            Command::Record {
                game,
                board,
                respond_to,
            } => {
                let _ = respond_to.send(self.record(game, board));
            }
            Command::Ping { conn } => {
                if let Some((_, outbox)) = self.member_of(conn) {
                    let _ = outbox.try_send(Outgoing::Text(encode(&wire::ServerMessage::Pong)));
                }
            }
        }
    }

    /// Nobody connected and nothing for the table to do by itself.
    fn is_idle(&self) -> bool {
        self.host.is_none()
            && self.guest.is_none()
            && self.spectators.is_empty()
            && self.computers.iter().all(Option::is_none)
            && self.next_game.is_none()
            && self.flag_due().is_none()
    }

    /// The wall time now.
    fn now(&self) -> Timestamp {
        self.context.clock.now()
    }

    /// When the first running side's flag falls on `board`, if a clock
    /// runs there.
    fn flag_due_on(&self, board: Board) -> Option<Timestamp> {
        let (_, deadline) = self.boards.get(board)?.clocks()?.deadline()?;
        Some(deadline.max(self.flag_not_before))
    }

    /// When the first flag falls on any board.
    fn flag_due(&self) -> Option<Timestamp> {
        (1..=self.boards.count())
            .filter_map(|board| self.flag_due_on(board))
            .min()
    }

    /// Ends each board's game on time if its running side's time is out.
    /// Returns `false` only when a flag could not be stored.
    async fn flag_if_due(&mut self) -> bool {
        let mut stored = true;
        for board in 1..=self.boards.count() {
            let Some(due) = self.flag_due_on(board) else {
                continue;
            };
            if self.now() < due {
                continue;
            }
            let running = self
                .boards
                .get(board)
                .and_then(|play| play.clocks()?.running());
            let Some((side, _)) = running else {
                continue;
            };
            tracing::info!(side = ?side, board, "flag");
            stored &= self
                .commit(board, Event::Flagged { side }, None, None)
                .await;
        }
        stored
    }

    /// Whether the host cancelled this friend table before its guest
    /// arrived: a first game aborted with the guest's seat never taken.
    fn cancelled(&self) -> bool {
        self.options.opponent == Opponent::Friend
            && self.secrets.guest.is_none()
            && self.boards.iter().any(|(_, play)| {
                play.game_at(1)
                    .and_then(|(game, _)| game.outcome())
                    .is_some_and(|o| o.reason() == baghchal_rules::Reason::Aborted)
            })
    }

    /// The player away from a game in progress between two people (the
    /// one away longer if both are), and since when, with the first board
    /// where that game is and the absent player's side there. Nobody is
    /// absent while the game may still be aborted.
    fn absence(&self) -> Option<(Board, Side, Timestamp)> {
        let (board, play) = self.boards.iter().find(|(_, play)| {
            play.is_friend_table() && !play.game().is_finished() && !play.abortable()
        })?;
        [Player::Host, Player::Guest]
            .into_iter()
            .filter_map(|p| self.away[p.index()].map(|since| (board, play.side_of(p), since)))
            .min_by_key(|&(_, _, since)| since)
    }

    fn leave_registry(&self) {
        if let Some(tx) = self.tx.upgrade() {
            let handle = TableHandle {
                route: Route::Local(tx),
            };
            (self.context.forget)(&self.id, &handle);
        }
    }

    fn record(&self, n: u32, board: Board) -> Option<wire::GameRecord> {
        let (game, host_side) = self.boards.get(board)?.game_at(n)?;
        Some(wire::GameRecord {
            table: self.id.clone(),
            game: n,
            board: self.boards.is_match().then_some(board),
            variant: self.options.variant(),
            host_side: side_to_wire(host_side),
            moves: game.actions().iter().map(ToString::to_string).collect(),
            result: game.outcome().map(result_to_wire),
            record: game.record().to_string(),
        })
    }

    async fn join(
        &mut self,
        conn: ConnId,
        token: &str,
        since: Option<u64>,
        outbox: Outbox,
    ) -> Result<Member, wire::ErrorCode> {
        let hash = TokenHash::of(token);
        let mut claimed = None;
        let member = if self.secrets.host.as_ref() == Some(&hash) {
            Member::Player(Player::Host)
        } else if self.secrets.guest.as_ref() == Some(&hash) {
            Member::Player(Player::Guest)
        } else if self.secrets.invite.as_ref() == Some(&hash) {
            if self.secrets.guest.is_some() {
                return Err(wire::ErrorCode::SeatTaken);
            }
            if self.cancelled() {
                return Err(wire::ErrorCode::InvalidToken);
            }
            let secret = Token::generate().map_err(|e| {
                tracing::error!(error = %e, "no random bytes");
                wire::ErrorCode::Internal
            })?;
            match self
                .context
                .storage
                .claim_guest_seat(&self.id, &secret.hash(), self.tenure.epoch)
                .await
            {
                Ok(true) => {}
                Ok(false) => return Err(wire::ErrorCode::SeatTaken),
                Err(StorageError::Fenced) => {
                    self.fenced = true;
                    return Err(wire::ErrorCode::Internal);
                }
                Err(e) => {
                    tracing::error!(error = %e, "storing the claimed seat failed");
                    return Err(wire::ErrorCode::Internal);
                }
            }
            self.secrets.guest = Some(secret.hash());
            tracing::info!(conn_id = conn, "opponent link claimed");
            claimed = Some(secret);
            Member::Player(Player::Guest)
        } else if self.secrets.watch.as_ref() == Some(&hash) {
            if self.spectators.len() >= usize::from(self.options.spectator_seats) {
                return Err(wire::ErrorCode::GalleryFull);
            }
            Member::Spectator
        } else {
            return Err(wire::ErrorCode::InvalidToken);
        };

        let welcome = wire::ServerMessage::Welcome {
            protocol: wire::PROTOCOL_VERSION,
            table: wire::TableInfo {
                id: self.id.clone(),
                opponent: self.options.opponent.to_wire(),
                level: self.options.level.map(|l| l.get()),
                variant: self.options.variant(),
                clock: self.options.clock_to_wire(),
                format: self.options.format.to_wire(),
                series_games: self.options.format.series_games(),
            },
            role: match member {
                Member::Player(_) => wire::Role::Player,
                Member::Spectator => wire::Role::Spectator,
            },
            player: match member {
                Member::Player(p) => Some(p.to_wire()),
                Member::Spectator => None,
            },
            secret: claimed.map(|t| t.as_str().to_owned()),
        };
        let mut frames = vec![encode(&welcome)];
        match since.and_then(|since| self.missed_since(since)) {
            Some(missed) => frames.extend(missed),
            None => frames.push(encode(&self.snapshot())),
        }
        for frame in frames {
            // A fresh outbox has room for a welcome, a snapshot and the
            // missed events (OUTBOX_LEN > EVENT_LOG_LEN + 2).
            let _ = outbox.try_send(Outgoing::Text(frame));
        }
        match member {
            Member::Player(player) => {
                let seat = match player {
                    Player::Host => &mut self.host,
                    Player::Guest => &mut self.guest,
                };
                self.away[player.index()] = None;
                if let Some(old) = seat.replace(Conn { id: conn, outbox }) {
                    tracing::info!(conn_id = old.id, "seat taken over by a newer connection");
                    let _ = old
                        .outbox
                        .try_send(Outgoing::Close(wire::CloseCode::Replaced));
                }
            }
            Member::Spectator => {
                self.spectators.insert(conn, outbox);
                self.schedule_next_bots_game();
            }
        }
        // A computer that gave up on a failing database tries again.
        self.schedule_computer();
        tracing::info!(conn_id = conn, member = ?member, since, "joined");
        self.broadcast_presence();
        Ok(member)
    }

    /// The whole current state: every board's game.
    fn snapshot(&self) -> wire::ServerMessage {
        let now = self.now();
        let boards: Vec<wire::BoardSnapshot> = self
            .boards
            .iter()
            .filter_map(|(board, play)| {
                Some(wire::BoardSnapshot {
                    moves: play.moves(),
                    state: self.boards.state(board, now)?,
                })
            })
            .collect();
        let first = boards
            .first()
            .cloned()
            .unwrap_or_else(|| wire::BoardSnapshot {
                moves: self.boards.first().moves(),
                state: self.boards.first().state(now),
            });
        wire::ServerMessage::Snapshot {
            version: self.boards.version(),
            moves: first.moves,
            state: first.state,
            boards: if self.boards.is_match() {
                boards
            } else {
                Vec::new()
            },
        }
    }

    /// The events after `since`, if the log still holds them all, each
    /// with the time of sending in its clock.
    fn missed_since(&self, since: u64) -> Option<Vec<Utf8Bytes>> {
        let version = self.boards.version();
        if since > version {
            return None;
        }
        if since == version {
            return Some(Vec::new());
        }
        let first = self.log.front()?.version;
        if since + 1 < first {
            return None;
        }
        let now = self.now().rfc3339();
        Some(
            self.log
                .iter()
                .filter(|sent| sent.version > since)
                .map(|sent| match sent.clocked.as_deref() {
                    Some(message) => {
                        let mut message = message.clone();
                        if let wire::ServerMessage::Event { state, .. } = &mut message {
                            if let Some(clock) = &mut state.clock {
                                clock.now.clone_from(&now);
                            }
                        }
                        encode(&message)
                    }
                    None => sent.frame.clone(),
                })
                .collect(),
        )
    }

    async fn leave(&mut self, conn: ConnId) {
        let now = self.now();
        let mut left = None;
        for player in [Player::Host, Player::Guest] {
            let seat = match player {
                Player::Host => &mut self.host,
                Player::Guest => &mut self.guest,
            };
            if seat.as_ref().is_some_and(|c| c.id == conn) {
                *seat = None;
                self.away[player.index()] = Some(now);
                left = Some(player);
            }
        }
        let spectator = self.spectators.remove(&conn).is_some();
        if left.is_none() && !spectator {
            return;
        }
        tracing::info!(conn_id = conn, "left");
        self.broadcast_presence();
        // A draw offer or a rematch request lapses when its maker leaves:
        // on every board at once, as a match's rematch request was made.
        if let Some(player) = left {
            let lapsed: Vec<(Board, Event)> = self
                .boards
                .iter()
                .flat_map(|(board, play)| {
                    play.withdraw_offers(play.side_of(player))
                        .map(move |event| (board, event))
                })
                .collect();
            if !lapsed.is_empty() && !self.commit_events(lapsed, None, None).await {
                tracing::warn!("a lapsed offer could not be stored");
            }
        }
    }

    fn member_of(&self, conn: ConnId) -> Option<(Member, Outbox)> {
        if let Some(c) = self.host.as_ref().filter(|c| c.id == conn) {
            return Some((Member::Player(Player::Host), c.outbox.clone()));
        }
        if let Some(c) = self.guest.as_ref().filter(|c| c.id == conn) {
            return Some((Member::Player(Player::Guest), c.outbox.clone()));
        }
        self.spectators
            .get(&conn)
            .map(|outbox| (Member::Spectator, outbox.clone()))
    }

    /// A player's action on `board` (as the client named it), taken up
    /// at `taken`.
    async fn act(
        &mut self,
        conn: ConnId,
        id: Option<String>,
        board: Option<Board>,
        intent: Result<Intent, String>,
        taken: std::time::Instant,
    ) {
        // A connection replaced or dropped meanwhile has no say.
        let Some((member, outbox)) = self.member_of(conn) else {
            return;
        };
        let reply_error =
            |code: wire::ErrorCode, reason: Option<wire::IllegalReason>, message: String| {
                crate::stats::action_refused(code);
                let _ = outbox.try_send(Outgoing::Text(encode(&wire::ServerMessage::Error {
                    id: id.clone(),
                    code,
                    reason,
                    message,
                })));
            };
        let Member::Player(player) = member else {
            reply_error(
                wire::ErrorCode::Spectator,
                None,
                "spectators cannot act".into(),
            );
            return;
        };
        if let Some(id) = &id {
            if self.recent.contains(player, id) {
                let _ = outbox.try_send(Outgoing::Text(encode(&wire::ServerMessage::Ack {
                    id: id.clone(),
                })));
                return;
            }
        }
        let intent = match intent {
            Ok(intent) => intent,
            Err(message) => {
                reply_error(
                    wire::ErrorCode::IllegalAction,
                    Some(wire::IllegalReason::Notation),
                    message,
                );
                return;
            }
        };
        let target = match self.boards.target(board, &intent) {
            Ok(target) => target,
            Err(UnknownBoard) => {
                reply_error(
                    wire::ErrorCode::UnknownBoard,
                    None,
                    UnknownBoard::message(self.boards.count()),
                );
                return;
            }
        };
        // A flag due falls before anything else is decided.
        if !self.flag_if_due().await {
            reply_error(
                wire::ErrorCode::Internal,
                None,
                "the server could not store that; nothing changed, try again".into(),
            );
            return;
        }
        let now = self.now();
        let refuse = |refusal: Refusal| {
            let (code, reason) = refusal.code();
            reply_error(code, reason, refusal.message());
        };
        if intent == Intent::Rematch && self.cancelled() {
            reply_error(
                wire::ErrorCode::GameOver,
                None,
                "the host cancelled this table".into(),
            );
            return;
        }
        let events = match self.boards.decide(player, target, intent, now) {
            Ok(events) => events,
            Err(refusal) => return refuse(refusal),
        };
        if let Intent::Claim(_) = intent {
            // Only the game the absence names may be claimed.
            let claimable = self.absence().is_some_and(|(board, absent, since)| {
                target == Target::One(board)
                    && self
                        .boards
                        .get(board)
                        .is_some_and(|play| play.side_of(player) != absent)
                    && now >= since.after(ABSENCE_GRACE)
            });
            if !claimable {
                return refuse(Refusal::NotClaimable);
            }
        }
        crate::stats::stage(ActionStage::Decide, taken.elapsed());
        if self
            .commit_events(events, Some(player), id.as_deref())
            .await
        {
            crate::stats::action_accepted();
        } else {
            reply_error(
                wire::ErrorCode::Internal,
                None,
                "the server could not store that; nothing changed, try again".into(),
            );
        }
    }

    /// The computer's pace, or a retry's pause, is over on `board`.
    async fn computer_due(&mut self, board: Board) {
        let Some(play) = self.boards.get(board) else {
            return;
        };
        let position = play.game().position().clone();
        let slot = &mut self.computers[board_index(board)];
        let Some(turn) = slot.as_mut() else {
            return;
        };
        match std::mem::replace(&mut turn.stage, Stage::Pacing) {
            Stage::Pacing => {
                let Some(level) = self.options.level else {
                    *slot = None;
                    return;
                };
                let computer = self.context.computer.clone();
                turn.stage = Stage::Thinking(Box::pin(async move {
                    computer.choose(position, level, seed()).await
                }));
            }
            Stage::Chosen(action) => self.computer_chose(board, Some(action)).await,
            Stage::Thinking(thought) => turn.stage = Stage::Thinking(thought),
        }
    }

    /// The computer chose `action` for the current turn on `board`:
    /// commits it, or schedules a retry after a pause, or gives up once the
    /// retries are spent.
    async fn computer_chose(&mut self, board: Board, action: Option<Action>) {
        self.context.activity.record();
        let slot = board_index(board);
        let (Some(turn), Some(play)) = (&self.computers[slot], self.boards.get(board)) else {
            return;
        };
        let key = turn.key;
        if key != (play.game_number(), play.game().position().ply()) || play.game().is_finished() {
            self.computers[slot] = None;
            self.schedule_computer();
            return;
        }
        let side = play.game().position().side_to_move();
        let Some(action) = action else {
            tracing::error!("the computer found no action in an unfinished game");
            self.computers[slot] = None;
            return;
        };
        let event = match play.decide(side, Intent::Play(action), self.now()) {
            Ok(event) => event,
            Err(refusal) => {
                tracing::error!(action = %action, refusal = ?refusal, "the computer chose an illegal action");
                self.computers[slot] = None;
                return;
            }
        };
        if self.commit(board, event, None, None).await {
            return;
        }
        // Try again after a pause rather than stall the game; give up after
        // a few (someone joining starts it again).
        let Some(turn) = self.computers[slot].as_mut().filter(|t| t.key == key) else {
            return;
        };
        turn.failures += 1;
        match backoff(turn.failures) {
            Some(pause) => {
                turn.stage = Stage::Chosen(action);
                turn.due = Instant::now() + pause;
            }
            None => {
                tracing::error!(
                    failures = turn.failures,
                    "the computer's action could not be stored; giving up for now"
                );
                self.computers[slot] = None;
            }
        }
    }

    /// The pause between two bots games is over: starts the next one, or
    /// tries again later.
    async fn next_bots_game(&mut self) {
        let Some(timer) = self.next_game.take() else {
            return;
        };
        let play = self.boards.first();
        if timer.game != play.game_number()
            || !play.game().is_finished()
            || self.spectators.is_empty()
        {
            return;
        }
        if self.commit(1, Event::RematchStarted, None, None).await {
            return;
        }
        let failures = timer.failures + 1;
        match backoff(failures) {
            Some(pause) => {
                self.next_game = Some(Timer {
                    game: timer.game,
                    due: Instant::now() + pause,
                    failures,
                })
            }
            None => tracing::error!(
                failures,
                "the next bots game could not be stored; giving up for now"
            ),
        }
    }

    /// Stores `event` on `board`, then applies it, acknowledges it to its
    /// sender and broadcasts it. Returns `false`, with nothing changed,
    /// when storing failed.
    async fn commit(
        &mut self,
        board: Board,
        event: Event,
        player: Option<Player>,
        client_id: Option<&str>,
    ) -> bool {
        self.commit_events(vec![(board, event)], player, client_id)
            .await
    }

    /// Stores `events` (consecutive versions, each on its board) in one
    /// transaction, then applies them, acknowledges them once to their
    /// sender and broadcasts each. Returns `false`, with nothing changed,
    /// when storing failed.
    async fn commit_events(
        &mut self,
        events: Vec<(Board, Event)>,
        player: Option<Player>,
        client_id: Option<&str>,
    ) -> bool {
        let first = self.boards.version() + 1;
        // Tables with an unfinished game resume at start-up; a finished bots
        // table starts its next game when someone comes to watch.
        let active = self.boards.active_after(&events);
        let at = self.now();
        let finished = self.games_ended_by(first, &events, at);
        let logged: Vec<Logged> = (first..)
            .zip(&events)
            .map(|(version, &(board, event))| Logged {
                version,
                event,
                player,
                client_id: client_id.map(str::to_owned),
                at,
                board,
            })
            .collect();
        let handed = std::time::Instant::now();
        if let Err(e) = self
            .context
            .storage
            .append_events(&self.id, &logged, &finished, active, self.tenure.epoch)
            .await
        {
            if matches!(e, StorageError::Fenced) {
                tracing::warn!(
                    version = first,
                    "the store refused a write: another node owns this table"
                );
                self.fenced = true;
            } else {
                tracing::error!(error = %e, version = first, "storing an event failed");
            }
            return false;
        }
        let stored = std::time::Instant::now();
        crate::stats::stage(ActionStage::Store, stored - handed);
        let mut frames = Vec::with_capacity(events.len());
        for (version, (board, event)) in (first..).zip(events) {
            if let Err(refusal) = self.boards.apply(board, event, at) {
                // `decide` approved it, and the events of one commit are
                // of different boards: this cannot happen.
                tracing::error!(refusal = ?refusal, "a decided event did not apply");
                return false;
            }
            let Some(play) = self.boards.get(board) else {
                return false;
            };
            let event_on_wire = event_to_wire(&event, play.game_number());
            let Some(state) = self.boards.state(board, at) else {
                return false;
            };
            let clocked = state.clock.is_some();
            let message = wire::ServerMessage::Event {
                version,
                board: self.boards.is_match().then_some(board),
                event: event_on_wire,
                state,
            };
            let frame = encode(&message);
            self.remember(Sent {
                version,
                frame: frame.clone(),
                clocked: clocked.then(|| Box::new(message)),
            });
            frames.push(frame);
            tracing::debug!(version, board, event = ?event, "committed");
        }
        if let (Some(player), Some(id)) = (player, client_id) {
            self.recent.insert(player, id);
            if let Some(conn) = self.seat(player) {
                let _ = conn
                    .outbox
                    .try_send(Outgoing::Text(encode(&wire::ServerMessage::Ack {
                        id: id.to_owned(),
                    })));
            }
        }
        for frame in frames {
            self.broadcast(frame);
        }
        crate::stats::stage(ActionStage::Broadcast, stored.elapsed());
        if self.absence() != self.absent {
            // The game left its abortable start or ended: the banner
            // appears or goes.
            self.broadcast_presence();
        }
        self.schedule_computer();
        self.schedule_next_bots_game();
        true
    }

    /// The rows of the games that `events`, from version `first` on, end:
    /// stored in the same transaction as the events. Worked out on a copy
    /// of the board, and only for an event that ends its game.
    fn games_ended_by(
        &self,
        first: u64,
        events: &[(Board, Event)],
        at: Timestamp,
    ) -> Vec<FinishedGame> {
        let mut finished = Vec::new();
        for (i, &(board, event)) in events.iter().enumerate() {
            let Some(play) = self.boards.get(board) else {
                continue;
            };
            if !play.ends_game(&event) {
                continue;
            }
            let mut after = play.clone();
            let ended = events[..=i]
                .iter()
                .filter(|(b, _)| *b == board)
                .map(|&(_, event)| after.apply(event, at))
                .last();
            if let Some(Ok(Some(ended))) = ended {
                finished.push(FinishedGame::new(
                    &self.id,
                    &self.options,
                    board,
                    first + i as u64,
                    ended,
                ));
            }
        }
        finished
    }

    /// Keeps `sent` for reconnecting clients, within the log's bounds.
    fn remember(&mut self, sent: Sent) {
        self.log_bytes += sent.frame.len();
        self.log.push_back(sent);
        while self.log.len() > EVENT_LOG_LEN
            || (self.log_bytes > EVENT_LOG_BYTES && self.log.len() > 1)
        {
            if let Some(old) = self.log.pop_front() {
                self.log_bytes -= old.frame.len();
            }
        }
    }

    fn seat(&self, player: Player) -> Option<&Conn> {
        match player {
            Player::Host => self.host.as_ref(),
            Player::Guest => self.guest.as_ref(),
        }
    }

    /// Sends `frame` to everyone; a connection that cannot keep up is
    /// dropped (its socket closes with 4001).
    fn broadcast(&mut self, frame: Utf8Bytes) {
        let sent = std::time::Instant::now();
        let mut dropped = false;
        let now = self.now();
        let [host_away, guest_away] = &mut self.away;
        for (seat, away) in [(&mut self.host, host_away), (&mut self.guest, guest_away)] {
            if let Some(conn) = seat {
                if conn
                    .outbox
                    .try_send(Outgoing::Event(frame.clone(), sent))
                    .is_err()
                {
                    tracing::info!(conn_id = conn.id, "dropping a slow or closed player socket");
                    *seat = None;
                    *away = Some(now);
                    dropped = true;
                }
            }
        }
        let before = self.spectators.len();
        self.spectators.retain(|_, outbox| {
            outbox
                .try_send(Outgoing::Event(frame.clone(), sent))
                .is_ok()
        });
        if self.spectators.len() != before {
            tracing::info!(
                dropped = before - self.spectators.len(),
                "dropping slow spectators"
            );
            dropped = true;
        }
        if dropped {
            self.broadcast_presence();
        }
    }

    /// Sends who is connected: the seats as board 1 has them (board 2 of
    /// a match has them crossed).
    fn broadcast_presence(&mut self) {
        let play = self.boards.first();
        let seat = |side: Side| {
            let player = play.player_of(side);
            let computer = play.is_computer(side);
            wire::SeatView {
                player: player.to_wire(),
                computer,
                level: if computer {
                    self.options.level.map(|l| l.get())
                } else {
                    None
                },
                connected: computer || self.seat(player).is_some(),
            }
        };
        let now = self.now();
        let absent = self.absence();
        let presence = wire::Presence {
            goats: seat(Side::Goat),
            tigers: seat(Side::Tiger),
            spectators: u32::try_from(self.spectators.len()).unwrap_or(u32::MAX),
            spectator_seats: self.options.spectator_seats,
            absent: absent.map(|(board, side, since)| wire::Absence {
                side: side_to_wire(side),
                board: self.boards.is_match().then_some(board),
                since: since.rfc3339(),
                claimable_at: since.after(ABSENCE_GRACE).rfc3339(),
                now: now.rfc3339(),
            }),
        };
        self.absent = absent;
        self.broadcast(encode(&wire::ServerMessage::Presence(presence)));
    }

    /// Starts the computer's turn on each board where it is to move (after
    /// its pace), and forgets a turn that is over.
    fn schedule_computer(&mut self) {
        for board in 1..=self.boards.count() {
            self.schedule_computer_on(board);
        }
    }

    fn schedule_computer_on(&mut self, board: Board) {
        let slot = board_index(board);
        let Some(play) = self.boards.get(board) else {
            return;
        };
        let game = play.game();
        let position = game.position();
        if game.is_finished()
            || !play.is_computer(position.side_to_move())
            || self.options.level.is_none()
        {
            self.computers[slot] = None;
            return;
        }
        let key = (play.game_number(), position.ply());
        if self.computers[slot].as_ref().is_some_and(|t| t.key == key) {
            return;
        }
        let pace = if self.options.opponent == Opponent::Bots {
            self.context.pace.bots_move
        } else {
            self.context.pace.computer_move
        };
        let pause = match play.clocks() {
            Some(clocks) => clocks.pace_within(position.side_to_move(), pace),
            None => pace,
        };
        self.computers[slot] = Some(ComputerTurn {
            key,
            stage: Stage::Pacing,
            due: Instant::now() + pause,
            failures: 0,
        });
    }

    /// At a bots table with someone watching, starts the next game after a
    /// pause once the current one is over.
    fn schedule_next_bots_game(&mut self) {
        let play = self.boards.first();
        if self.options.opponent != Opponent::Bots
            || !play.game().is_finished()
            || self.spectators.is_empty()
        {
            self.next_game = None;
            return;
        }
        let game = play.game_number();
        if self.next_game.as_ref().is_some_and(|t| t.game == game) {
            return;
        }
        self.next_game = Some(Timer {
            game,
            due: Instant::now() + self.context.pace.bots_next_game,
            failures: 0,
        });
    }
}

/// A seed for the computer's randomness.
fn seed() -> u64 {
    let mut bytes = [0u8; 8];
    if getrandom::fill(&mut bytes).is_err() {
        return 0x5eed;
    }
    u64::from_le_bytes(bytes)
}

/// Serializes a server message once, for any number of receivers.
pub fn encode(message: &wire::ServerMessage) -> Utf8Bytes {
    // Serializing these types cannot fail: no maps with non-string keys,
    // no failing Serialize impls.
    Utf8Bytes::from(serde_json::to_string(message).unwrap_or_default())
}
