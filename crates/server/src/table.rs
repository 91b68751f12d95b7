//! A table: one task owns its games, its seats and its gallery; everyone
//! else talks to it through a [`TableHandle`].

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::Utf8Bytes;
use baghchal_protocol as wire;
use baghchal_rules::{Action, Side};
use tokio::sync::{mpsc, oneshot};
use tracing::Instrument;

use crate::bot::Computer;
use crate::options::{side_to_wire, Opponent, TableOptions};
use crate::play::{event_to_wire, result_to_wire, Event, Intent, Play, Player};
use crate::storage::{
    parse_side, side_str, EventKind, Storage, StorageError, StoredEvent, TableRow,
};
use crate::token::{Token, TokenHash};

/// Events kept in memory per table for reconnecting clients.
pub const EVENT_LOG_LEN: usize = 256;
/// Client ids remembered per player, to acknowledge a resent action.
const RECENT_IDS: usize = 1024;
/// Messages queued for one connection before it counts as too slow: room
/// for a welcome, a full replay of the event log and a presence.
pub const OUTBOX_LEN: usize = EVENT_LOG_LEN + 64;
/// Commands queued for a table.
const INBOX_LEN: usize = 1024;

/// A connection's id, for logs and for telling sockets apart.
pub type ConnId = u64;

/// What a table sends to a connection.
#[derive(Clone, Debug)]
pub enum Outgoing {
    /// A message, serialized once for every receiver.
    Text(Utf8Bytes),
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
        intent: Result<Intent, String>,
    },
    ComputerChose {
        game: u32,
        ply: u16,
        action: Option<Action>,
    },
    NextBotGame {
        game: u32,
    },
    Record {
        game: u32,
        respond_to: oneshot::Sender<Option<wire::GameRecord>>,
    },
    Ping {
        conn: ConnId,
    },
}

/// The handle of a table's task. Cheap to clone; the task ends when the
/// last handle is dropped.
#[derive(Clone)]
pub struct TableHandle {
    tx: mpsc::Sender<Command>,
}

/// The table's task has ended (the server is shutting down).
#[derive(Debug, thiserror::Error)]
#[error("the table is closed")]
pub struct TableClosed;

impl TableHandle {
    /// Loads a table from its row and stored events and starts its task.
    pub fn spawn(
        row: TableRow,
        events: &[StoredEvent],
        context: TableContext,
    ) -> Result<TableHandle, StorageError> {
        let mut play = Play::new(row.options);
        let mut recent = RecentIds::default();
        for stored in events {
            let corrupt = |what: &str| StorageError::Corrupt {
                table: row.id.clone(),
                what: format!("event {}: {what}", stored.version),
            };
            if stored.version != play.version() + 1 {
                return Err(corrupt("version out of sequence"));
            }
            let event = decode_event(stored).ok_or_else(|| corrupt("unreadable"))?;
            play.apply(event)
                .map_err(|refusal| corrupt(&refusal.message()))?;
            if let (Some(player), Some(id)) = (
                stored.player.as_deref().and_then(Player::parse),
                &stored.client_id,
            ) {
                recent.insert(player, id.clone());
            }
        }
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
            play,
            host: None,
            guest: None,
            spectators: HashMap::new(),
            log: VecDeque::new(),
            recent,
            context,
            tx: tx.downgrade(),
            thinking: None,
            next_game_pending: false,
        };
        tokio::spawn(table.run(rx).instrument(span));
        Ok(TableHandle { tx })
    }

    /// Whether the table's task has ended.
    pub fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }

    /// Whether both handles reach the same table task.
    pub fn same_table(&self, other: &TableHandle) -> bool {
        self.tx.same_channel(&other.tx)
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
        let (respond_to, rx) = oneshot::channel();
        self.tx
            .send(Command::Join {
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
        let _ = self.tx.send(Command::Leave { conn }).await;
    }

    /// A player's command; the table answers in the connection's outbox.
    /// `intent` is `Err` with the notation error for an unreadable action.
    pub async fn act(
        &self,
        conn: ConnId,
        id: Option<String>,
        intent: Result<Intent, String>,
    ) -> Result<(), TableClosed> {
        self.tx
            .send(Command::Act { conn, id, intent })
            .await
            .map_err(|_| TableClosed)
    }

    /// Answers `pong` in the connection's outbox, after everything the
    /// table sent it before.
    pub async fn ping(&self, conn: ConnId) -> Result<(), TableClosed> {
        self.tx
            .send(Command::Ping { conn })
            .await
            .map_err(|_| TableClosed)
    }

    /// Game `n`'s record, if there is such a game.
    pub async fn record(&self, game: u32) -> Result<Option<wire::GameRecord>, TableClosed> {
        let (respond_to, rx) = oneshot::channel();
        self.tx
            .send(Command::Record { game, respond_to })
            .await
            .map_err(|_| TableClosed)?;
        rx.await.map_err(|_| TableClosed)
    }
}

fn decode_event(stored: &StoredEvent) -> Option<Event> {
    let side = || stored.side.as_deref().and_then(parse_side);
    Some(match stored.kind {
        EventKind::Played => Event::Played {
            side: side()?,
            action: stored.action.as_deref()?.parse().ok()?,
        },
        EventKind::Resigned => Event::Resigned { side: side()? },
        EventKind::DrawOffered => Event::DrawOffered { side: side()? },
        EventKind::DrawDeclined => Event::DrawDeclined { side: side()? },
        EventKind::DrawAgreed => Event::DrawAgreed,
        EventKind::RematchOffered => Event::RematchOffered { side: side()? },
        EventKind::RematchStarted => Event::RematchStarted,
    })
}

fn encode_event(
    event: &Event,
    version: u64,
    player: Option<Player>,
    client_id: Option<&str>,
) -> StoredEvent {
    let (kind, side, action) = match *event {
        Event::Played { side, action } => (EventKind::Played, Some(side), Some(action)),
        Event::Resigned { side } => (EventKind::Resigned, Some(side), None),
        Event::DrawOffered { side } => (EventKind::DrawOffered, Some(side), None),
        Event::DrawDeclined { side } => (EventKind::DrawDeclined, Some(side), None),
        Event::DrawAgreed => (EventKind::DrawAgreed, None, None),
        Event::RematchOffered { side } => (EventKind::RematchOffered, Some(side), None),
        Event::RematchStarted => (EventKind::RematchStarted, None, None),
    };
    StoredEvent {
        version,
        kind,
        side: side.map(|s| side_str(s).to_owned()),
        action: action.map(|a| a.to_string()),
        player: player.map(|p| p.as_str().to_owned()),
        client_id: client_id.map(str::to_owned),
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

/// The client ids each player used lately.
#[derive(Default)]
struct RecentIds {
    ids: HashMap<Player, (HashSet<String>, VecDeque<String>)>,
}

impl RecentIds {
    fn contains(&self, player: Player, id: &str) -> bool {
        self.ids
            .get(&player)
            .is_some_and(|(set, _)| set.contains(id))
    }

    fn insert(&mut self, player: Player, id: String) {
        let (set, order) = self.ids.entry(player).or_default();
        if set.insert(id.clone()) {
            order.push_back(id);
            if order.len() > RECENT_IDS {
                if let Some(old) = order.pop_front() {
                    set.remove(&old);
                }
            }
        }
    }
}

/// The actor's state.
struct Table {
    /// The table id.
    id: String,
    /// Its options.
    options: TableOptions,
    /// The hashes of its tokens.
    secrets: Secrets,
    /// The games.
    play: Play,
    /// The host's socket.
    host: Option<Conn>,
    /// The guest's socket.
    guest: Option<Conn>,
    /// The gallery's sockets.
    spectators: HashMap<ConnId, Outbox>,
    /// The latest events as sent, with their versions.
    log: VecDeque<(u64, Utf8Bytes)>,
    /// Client ids already applied.
    recent: RecentIds,
    /// What tables share.
    context: TableContext,
    /// Our own inbox, for the computer's answers.
    tx: mpsc::WeakSender<Command>,
    /// The game and ply the computer is thinking about.
    thinking: Option<(u32, u16)>,
    /// Whether the next bots game is scheduled.
    next_game_pending: bool,
}

impl Table {
    async fn run(mut self, mut rx: mpsc::Receiver<Command>) {
        tracing::debug!(version = self.play.version(), "table open");
        self.schedule_computer();
        loop {
            let idle = self.is_idle();
            let command = tokio::select! {
                biased;
                command = rx.recv() => command,
                () = tokio::time::sleep(self.context.idle_timeout), if idle => {
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
            };
            let Some(command) = command else { break };
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
                Command::Leave { conn } => self.leave(conn),
                Command::Act { conn, id, intent } => self.act(conn, id, intent).await,
                Command::ComputerChose { game, ply, action } => {
                    self.computer_chose(game, ply, action).await
                }
                Command::NextBotGame { game } => {
                    self.next_game_pending = false;
                    if game == self.play.game_number()
                        && self.play.game().is_finished()
                        && !self.spectators.is_empty()
                    {
                        self.commit(Event::RematchStarted, None, None).await;
                    }
                    self.schedule_next_bots_game();
                }
                Command::Record { game, respond_to } => {
                    let _ = respond_to.send(self.record(game));
                }
                Command::Ping { conn } => {
                    if let Some((_, outbox)) = self.member_of(conn) {
                        let _ = outbox.try_send(Outgoing::Text(encode(&wire::ServerMessage::Pong)));
                    }
                }
            }
        }
        tracing::debug!("table closed");
    }

    /// Nobody connected and nothing for the table to do by itself.
    fn is_idle(&self) -> bool {
        self.host.is_none()
            && self.guest.is_none()
            && self.spectators.is_empty()
            && self.thinking.is_none()
            && !self.next_game_pending
    }

    fn leave_registry(&self) {
        if let Some(tx) = self.tx.upgrade() {
            (self.context.forget)(&self.id, &TableHandle { tx });
        }
    }

    fn record(&self, n: u32) -> Option<wire::GameRecord> {
        let (game, host_side) = self.play.game_at(n)?;
        Some(wire::GameRecord {
            table: self.id.clone(),
            game: n,
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
            let secret = Token::generate().map_err(|e| {
                tracing::error!(error = %e, "no random bytes");
                wire::ErrorCode::Internal
            })?;
            match self
                .context
                .storage
                .claim_guest_seat(&self.id, &secret.hash())
                .await
            {
                Ok(true) => {}
                Ok(false) => return Err(wire::ErrorCode::SeatTaken),
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
            None => frames.push(encode(&wire::ServerMessage::Snapshot {
                version: self.play.version(),
                moves: self.play.moves(),
                state: self.play.state(),
            })),
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
        tracing::info!(conn_id = conn, member = ?member, since, "joined");
        self.broadcast_presence();
        Ok(member)
    }

    /// The events after `since`, if the log still holds them all.
    fn missed_since(&self, since: u64) -> Option<Vec<Utf8Bytes>> {
        let version = self.play.version();
        if since > version {
            return None;
        }
        if since == version {
            return Some(Vec::new());
        }
        let first = self.log.front()?.0;
        if since + 1 < first {
            return None;
        }
        Some(
            self.log
                .iter()
                .filter(|(v, _)| *v > since)
                .map(|(_, frame)| frame.clone())
                .collect(),
        )
    }

    fn leave(&mut self, conn: ConnId) {
        let mut changed = false;
        for seat in [&mut self.host, &mut self.guest] {
            if seat.as_ref().is_some_and(|c| c.id == conn) {
                *seat = None;
                changed = true;
            }
        }
        changed |= self.spectators.remove(&conn).is_some();
        if changed {
            tracing::info!(conn_id = conn, "left");
            self.broadcast_presence();
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

    async fn act(&mut self, conn: ConnId, id: Option<String>, intent: Result<Intent, String>) {
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
        let side = self.play.side_of(player);
        let event = match self.play.decide(side, intent) {
            Ok(event) => event,
            Err(refusal) => {
                let (code, reason) = refusal.code();
                reply_error(code, reason, refusal.message());
                return;
            }
        };
        if self.commit(event, Some(player), id.as_deref()).await {
            crate::stats::action_accepted();
        } else {
            reply_error(
                wire::ErrorCode::Internal,
                None,
                "the server could not store that; nothing changed, try again".into(),
            );
        }
    }

    async fn computer_chose(&mut self, game: u32, ply: u16, action: Option<Action>) {
        if self.thinking == Some((game, ply)) {
            self.thinking = None;
        }
        if game != self.play.game_number()
            || ply != self.play.game().position().ply()
            || self.play.game().is_finished()
        {
            return;
        }
        let side = self.play.game().position().side_to_move();
        let Some(action) = action else {
            tracing::error!("the computer found no action in an unfinished game");
            return;
        };
        match self.play.decide(side, Intent::Play(action)) {
            Ok(event) => {
                if !self.commit(event, None, None).await {
                    // Try again after a pause rather than stall the game.
                    self.retry_computer_later();
                }
            }
            Err(refusal) => {
                tracing::error!(action = %action, refusal = ?refusal, "the computer chose an illegal action")
            }
        }
    }

    /// Stores `event`, then applies it, acknowledges it to its sender and
    /// broadcasts it. Returns `false`, with nothing changed, when storing
    /// failed.
    async fn commit(
        &mut self,
        event: Event,
        player: Option<Player>,
        client_id: Option<&str>,
    ) -> bool {
        let version = self.play.version() + 1;
        // Tables with an unfinished game resume at start-up; a finished bots
        // table starts its next game when someone comes to watch.
        let active = !self.play.ends_game(&event);
        let stored = encode_event(&event, version, player, client_id);
        if let Err(e) = self
            .context
            .storage
            .append_event(&self.id, &stored, active)
            .await
        {
            tracing::error!(error = %e, version, "storing an event failed");
            return false;
        }
        if let Err(refusal) = self.play.apply(event) {
            // `decide` approved it: this cannot happen.
            tracing::error!(refusal = ?refusal, "a decided event did not apply");
            return false;
        }
        if let (Some(player), Some(id)) = (player, client_id) {
            self.recent.insert(player, id.to_owned());
            if let Some(conn) = self.seat(player) {
                let _ = conn
                    .outbox
                    .try_send(Outgoing::Text(encode(&wire::ServerMessage::Ack {
                        id: id.to_owned(),
                    })));
            }
        }
        let frame = encode(&wire::ServerMessage::Event {
            version,
            event: event_to_wire(&event, self.play.game_number()),
            state: self.play.state(),
        });
        self.log.push_back((version, frame.clone()));
        if self.log.len() > EVENT_LOG_LEN {
            self.log.pop_front();
        }
        tracing::debug!(version, event = ?event, "committed");
        self.broadcast(frame);
        self.schedule_computer();
        self.schedule_next_bots_game();
        true
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
        let mut dropped = false;
        for seat in [&mut self.host, &mut self.guest] {
            if let Some(conn) = seat {
                if conn.outbox.try_send(Outgoing::Text(frame.clone())).is_err() {
                    tracing::info!(conn_id = conn.id, "dropping a slow or closed player socket");
                    *seat = None;
                    dropped = true;
                }
            }
        }
        let before = self.spectators.len();
        self.spectators
            .retain(|_, outbox| outbox.try_send(Outgoing::Text(frame.clone())).is_ok());
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

    fn broadcast_presence(&mut self) {
        let seat = |side: Side| {
            let player = self.play.player_of(side);
            let computer = self.play.is_computer(side);
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
        let presence = wire::Presence {
            goats: seat(Side::Goat),
            tigers: seat(Side::Tiger),
            spectators: u32::try_from(self.spectators.len()).unwrap_or(u32::MAX),
            spectator_seats: self.options.spectator_seats,
        };
        self.broadcast(encode(&wire::ServerMessage::Presence(presence)));
    }

    /// Asks the computer for an action when it is to move.
    fn schedule_computer(&mut self) {
        let game = self.play.game();
        let position = game.position();
        if game.is_finished() || !self.play.is_computer(position.side_to_move()) {
            return;
        }
        let key = (self.play.game_number(), position.ply());
        if self.thinking == Some(key) {
            return;
        }
        let (Some(level), Some(tx)) = (self.options.level, self.tx.upgrade()) else {
            return;
        };
        self.thinking = Some(key);
        let pause = if self.options.opponent == Opponent::Bots {
            self.context.pace.bots_move
        } else {
            self.context.pace.computer_move
        };
        let computer = self.context.computer.clone();
        let position = position.clone();
        let seed = seed();
        tokio::spawn(
            async move {
                tokio::time::sleep(pause).await;
                let action = computer.choose(position, level, seed).await;
                let _ = tx
                    .send(Command::ComputerChose {
                        game: key.0,
                        ply: key.1,
                        action,
                    })
                    .await;
            }
            .in_current_span(),
        );
    }

    fn retry_computer_later(&mut self) {
        self.thinking = None;
        let Some(tx) = self.tx.upgrade() else { return };
        let game = self.play.game_number();
        let ply = self.play.game().position().ply();
        let position = self.play.game().position().clone();
        let (computer, level) = (self.context.computer.clone(), self.options.level);
        self.thinking = Some((game, ply));
        tokio::spawn(
            async move {
                tokio::time::sleep(Duration::from_secs(1)).await;
                let action = match level {
                    Some(level) => computer.choose(position, level, seed()).await,
                    None => None,
                };
                let _ = tx.send(Command::ComputerChose { game, ply, action }).await;
            }
            .in_current_span(),
        );
    }

    /// At a bots table with someone watching, starts the next game after a
    /// pause once the current one is over.
    fn schedule_next_bots_game(&mut self) {
        if self.options.opponent != Opponent::Bots
            || !self.play.game().is_finished()
            || self.spectators.is_empty()
            || self.next_game_pending
        {
            return;
        }
        let Some(tx) = self.tx.upgrade() else { return };
        self.next_game_pending = true;
        let game = self.play.game_number();
        let pause = self.context.pace.bots_next_game;
        tokio::spawn(
            async move {
                tokio::time::sleep(pause).await;
                let _ = tx.send(Command::NextBotGame { game }).await;
            }
            .in_current_span(),
        );
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
