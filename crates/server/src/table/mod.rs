//! A table: one task owns its games, its seats and its gallery; everyone
//! else talks to it through its inbox ([`LocalTable`] here, or the
//! server's `TableHandle`, which also reaches tables other nodes own).

mod acts;
mod commit;
mod computer;
pub mod conn;
mod flag_timer;
mod local;
mod seats;

pub use local::LocalTable;

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::Utf8Bytes;
use baghchal_protocol as wire;
use baghchal_rules::{Action, Side};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::Instrument;

use crate::bot::Computer;
use crate::gate::Gated;
use crate::stats::ActionStage;
use crate::storage::{Storage, StorageError, TableRow};
use crate::throttle::Activity;
use baghchal_table::boards::{Board, Boards};
use baghchal_table::names::{result_to_wire, side_to_wire};
use baghchal_table::options::TableOptions;
use baghchal_table::play::Logged;
use baghchal_table::recent_ids::{IdHash, RecentIds};
use baghchal_table::seats::Seats;
use baghchal_table::time::Timestamp;
use flag_timer::{until_wall, FlagTimer};

use crate::time::WallClock;
use crate::token::TokenHash;

use computer::{think_any, ComputerTurn, Stage, Timer};
use conn::{encode, ConnId, Outbox, Outgoing};
use local::Command;

/// Commands queued for a table.
const INBOX_LEN: usize = 1024;
/// The pause before the first retry of a failed commit of the table's own
/// (the computer's action, the next bots game); it doubles each time.
const RETRY_FIRST: Duration = Duration::from_millis(500);
/// Retries of a failed commit of the table's own before it gives up (a
/// later join starts it again).
const RETRIES: u32 = 6;
/// After a table is loaded with a clock running (a restart, or another
/// server taking it over), no flag falls before this much time has
/// passed, so that the player on move can reconnect; the time is still
/// counted, and an action in it leaves no time but the increment.
pub const LOAD_GRACE: Duration = Duration::from_secs(10);

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
pub type Forget = Arc<dyn Fn(&str, &LocalTable) + Send + Sync>;

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
    /// A child of `shutdown`, cancelled when a cluster node stops by plan
    /// (SIGTERM): each table ends after its command, gives up its lease,
    /// and only then tells its sockets to reconnect (1012), so that they
    /// find it free and another node takes it at once.
    pub handover: CancellationToken,
    /// Wall time: the clocks, absences and offer limits.
    pub clock: Arc<dyn WallClock>,
    /// Counts the actions, so that the tablebase build yields to play.
    pub activity: Activity,
}

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

/// Loads a table from its row and stored events and starts its task.
pub fn spawn(
    row: TableRow,
    events: &[Logged],
    context: TableContext,
    tenure: Tenure,
) -> Result<LocalTable, StorageError> {
    let (boards, _) =
        Boards::replay(row.options, events).map_err(|(version, what)| StorageError::Corrupt {
            table: row.id.clone(),
            what: format!("event {version}: {what}"),
        })?;
    let mut recent = RecentIds::default();
    for logged in events {
        if let (Some(player), Some(id)) = (logged.player, &logged.client_id) {
            recent.insert(player, IdHash::of(id));
        }
    }
    let now = context.clock.now();
    let play_clock_runs = boards.iter().any(|(_, play)| {
        play.clocks()
            .is_some_and(|c| c.running().is_some() || c.paused().is_some())
    });
    let (tx, rx) = mpsc::channel(INBOX_LEN);
    let span = tracing::info_span!("table", table_id = %row.id);
    let table = Table {
        id: row.id,
        options: row.options,
        seats: Seats::new(
            row.host_secret.map(TokenHash::key),
            row.guest_secret.map(TokenHash::key),
            row.invite_token.map(TokenHash::key),
            row.watch_token.map(TokenHash::key),
            now,
        )
        .with_players(row.players, row.lobby),
        rated: row.rated,
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
        absent: None,
        // The grace is for a clock that ran while the table was not
        // loaded: a restart, or a takeover.
        opened: now,
        flag_not_before: if play_clock_runs {
            now.after(LOAD_GRACE)
        } else {
            now
        },
        context,
        tenure,
        fenced: false,
        active_stored: None,
        left_alone: false,
    };
    let tasks = table.context.tasks.clone();
    tasks.spawn(table.run(rx).instrument(span));
    Ok(LocalTable { tx })
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
    /// Who may sit where, and who is away.
    seats: Seats,
    /// Whether its games count for the players' ratings.
    rated: bool,
    /// When this task loaded the table: the start of a game that has no
    /// event yet, for the first-move timer.
    opened: Timestamp,
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
    /// The `active` flag of the table's row, once this table has stored
    /// an event that names a player: from then on nothing else changes
    /// the flag (tables nobody played at expire, `Storage::expire_unplayed`),
    /// and an append leaves it alone while it is unchanged. `None` until
    /// then: every append sets it.
    active_stored: Option<bool>,
    /// The absence last announced in `presence`.
    absent: Option<(Board, Side, Timestamp)>,
    /// No flag falls before this (the grace after loading).
    flag_not_before: Timestamp,
    /// A game here ended as abandoned: with nobody connected the table
    /// leaves memory at once rather than after the idle timeout.
    left_alone: bool,
}

/// An event as it was sent: its version and its frame, shared with the
/// broadcast (no copy); at a clocked table also the message itself, whose
/// clock is sent again with the time of sending.
struct Sent {
    version: u64,
    frame: Utf8Bytes,
    clocked: Option<Box<wire::ServerMessage>>,
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
        // Waited on once for the table's life: a wait made afresh at each
        // turn of the loop takes the token's lock and registers with it
        // again, for every command.
        let stop = self.tenure.stop.clone().cancelled_owned();
        tokio::pin!(stop);
        // Looked at only once it has woken the task (`gate`).
        let mut stop = Gated::new(stop);
        let mut flag_timer = FlagTimer::default();
        loop {
            if self.fenced {
                break;
            }
            let idle = self.is_idle();
            let idle_wait = self.idle_wait();
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
            let flag = flag_timer.at(self.flag_due(), self.context.clock.as_ref());
            let wake = tokio::select! {
                biased;
                () = &mut stop => Wake::Shutdown,
                command = rx.recv() => Wake::Command(command),
                (board, action) = think_any(&mut self.computers) => {
                    Wake::ComputerChose(board, action)
                }
                () = until(computer_due.map(|(due, _)| due)) => {
                    Wake::ComputerDue(computer_due.map_or(1, |(_, board)| board))
                }
                () = until(next_game_due) => Wake::NextGameDue,
                () = until_wall(flag) => Wake::FlagDue,
                () = tokio::time::sleep(idle_wait), if idle => Wake::Idle,
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
                    flag_timer.fired();
                    if !self.flag_if_due(self.now()).await {
                        // The flag could not be stored: try again after a
                        // pause rather than spin.
                        tokio::time::sleep(RETRY_FIRST).await;
                    }
                }
            }
        }
        if self.context.shutdown.is_cancelled() && !self.fenced {
            self.pause_clocks().await;
        }
        if !self.context.shutdown.is_cancelled() {
            // This node may no longer serve the table: its sockets reconnect
            // and find the new owner.
            tracing::info!(
                fenced = self.fenced,
                "table stopped here; it moves to another node"
            );
            self.leave_registry();
            // Handed over: free before anyone is told to come back.
            if let (true, Some(epoch)) = (self.context.handover.is_cancelled(), self.tenure.epoch) {
                if let Err(e) = self.context.storage.release(&self.id, epoch).await {
                    tracing::warn!(error = %e, "giving up the lease failed");
                }
            }
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
                keys,
                claim,
                since,
                outbox,
                respond_to,
            } => {
                let result = self.join(conn, &keys, claim, since, outbox).await;
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
            && self.clock_due().is_none()
    }

    /// How long the table stays in memory once idle.
    fn idle_wait(&self) -> Duration {
        if self.left_alone {
            Duration::ZERO
        } else {
            self.context.idle_timeout
        }
    }

    /// The wall time now.
    fn now(&self) -> Timestamp {
        self.context.clock.now()
    }

    fn leave_registry(&self) {
        if let Some(tx) = self.tx.upgrade() {
            (self.context.forget)(&self.id, &LocalTable { tx });
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
            ratings: None,
        })
    }
}
