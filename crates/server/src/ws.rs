//! One task per websocket: reads the client's messages, joins a table,
//! forwards commands to it and writes what the table sends back.

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::time::Instant;

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket};
use baghchal_protocol::{
    self as wire, ClientMessage, CloseCode, ErrorCode, ServerMessage, MAX_FRAME_BYTES,
};
use futures_util::SinkExt;
use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::batch::write_batch;
use crate::connections::{AddressBudget, Pass};
use crate::gate::Gated;
use crate::handle::TableHandle;
use crate::stats::{self, SocketRole};
use crate::table::conn::{encode, ConnId, Member, Outgoing, OUTBOX_LEN};
use crate::tables::Tables;
use crate::token::TokenHash;
use baghchal_table::command::Command;
use baghchal_table::play::Intent;
use baghchal_table::seats::Key;

/// How many messages a connection may send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateLimit {
    /// Messages a connection may send at once.
    pub burst: NonZeroU32,
    /// Messages a connection may send per second, once the burst is spent.
    pub per_second: NonZeroU32,
}

impl Default for RateLimit {
    /// 20 at once, then 10 a second: far above what a person sends.
    fn default() -> RateLimit {
        RateLimit {
            burst: NonZeroU32::new(20).unwrap_or(NonZeroU32::MIN),
            per_second: NonZeroU32::new(10).unwrap_or(NonZeroU32::MIN),
        }
    }
}

/// The largest frame or message the socket reads whole, in bytes. One
/// over [`MAX_FRAME_BYTES`] but within this is read, dropped and answered
/// with `too_large` and a clean 1009 close; one past it ends the socket at
/// once (the client may then see 1006). A bound on what a client can make
/// the server read in vain.
pub const READ_LIMIT_BYTES: usize = 4 * MAX_FRAME_BYTES;

/// How long a closing socket waits for the client's answering close frame.
const CLOSE_DRAIN: Duration = Duration::from_secs(3);

/// When the server pings a silent client, and when it gives up on one.
/// Browsers and websocket libraries answer pings by themselves, so only a
/// dead connection (or a client that stopped reading) stays silent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Liveness {
    /// A socket that sent nothing for this long is pinged.
    pub ping_after: Duration,
    /// A socket that sent nothing for this long, not even a pong, is
    /// closed with 4002.
    pub give_up_after: Duration,
}

impl Default for Liveness {
    /// A ping after 20 s of silence; closed after 60 s.
    fn default() -> Liveness {
        Liveness {
            ping_after: Duration::from_secs(20),
            give_up_after: Duration::from_secs(60),
        }
    }
}

static NEXT_CONN: AtomicU64 = AtomicU64::new(1);

/// The socket's write buffer: frames fed to it wait there until the
/// socket is flushed, so that those queued together leave in one write.
/// Above [`crate::batch::WRITE_BYTES_AT_ONCE`] and a frame, so that nothing is written
/// before the flush.
pub const WRITE_BUFFER_BYTES: usize = 32 * 1024;

/// What a websocket was admitted with, besides its message budget.
pub struct Admitted {
    /// The client's address.
    pub address: IpAddr,
    /// Its place among the websockets, given back when it closes.
    pub pass: Pass,
    /// The `hello` budget of every address.
    pub hellos: AddressBudget,
    /// How long it may stay open without joining a table.
    pub hello_timeout: Duration,
    /// Its budget of control frames (ping, pong).
    pub control: RateLimit,
    /// The player of its session, if the upgrade request carried one.
    pub player: Option<String>,
}

/// Serves one websocket until either side closes it or the server stops.
pub async fn serve(
    socket: WebSocket,
    tables: Tables,
    rate: RateLimit,
    liveness: Liveness,
    admitted: Admitted,
    shutdown: CancellationToken,
) {
    let conn = NEXT_CONN.fetch_add(1, Ordering::Relaxed);
    let span = tracing::info_span!("conn", conn_id = conn, table_id = tracing::field::Empty);
    let control = admitted.control;
    Connection {
        conn,
        socket,
        tables,
        shutdown,
        limiter: RateLimiter::direct(Quota::per_second(rate.per_second).allow_burst(rate.burst)),
        control: RateLimiter::direct(
            Quota::per_second(control.per_second).allow_burst(control.burst),
        ),
        liveness,
        joined: None,
        role: Counted::new(SocketRole::Unjoined),
        admitted,
    }
    .run()
    .instrument(span)
    .await
}

/// A joined table.
struct Joined {
    /// The table's task.
    table: TableHandle,
    /// Who this connection is there.
    member: Member,
    /// What the table sends to this connection.
    inbox: mpsc::Receiver<Outgoing>,
}

/// The state of one connection.
struct Connection {
    /// This connection's id (in logs).
    conn: ConnId,
    /// The socket.
    socket: WebSocket,
    /// Where tables are found.
    tables: Tables,
    /// Cancelled when the server shuts down.
    shutdown: CancellationToken,
    /// The per-connection message budget.
    limiter: DefaultDirectRateLimiter,
    /// The per-connection budget of control frames.
    control: DefaultDirectRateLimiter,
    /// The client's address, its place and its deadline for `hello`.
    admitted: Admitted,
    /// When to ping, and when to give up.
    liveness: Liveness,
    /// The table, once `hello` succeeded.
    joined: Option<Joined>,
    /// This socket in the socket gauge.
    role: Counted,
}

/// A socket counted in the `baghchal_sockets` gauge under its role, until
/// it is dropped.
struct Counted(SocketRole);

impl Counted {
    fn new(role: SocketRole) -> Counted {
        stats::socket_moved(None, Some(role));
        Counted(role)
    }

    /// Counts the socket under `role` from now on.
    fn take(&mut self, role: SocketRole) {
        stats::socket_moved(Some(self.0), Some(role));
        self.0 = role;
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        stats::socket_moved(Some(self.0), None);
    }
}

/// How a connection ended.
enum End {
    /// Close the socket with this code.
    Close(CloseCode),
    /// The socket is gone or closed by the client.
    Gone,
}

impl Connection {
    async fn run(mut self) {
        tracing::debug!("connected");
        let end = self.serve().await;
        if let End::Close(close) = end {
            tracing::info!(code = close.code(), reason = close.reason(), "closing");
            stats::closed(close);
            let _ = self
                .socket
                .send(Message::Close(Some(CloseFrame {
                    code: close.code(),
                    reason: Utf8Bytes::from_static(close.reason()),
                })))
                .await;
            let _ = self.socket.flush().await;
            self.drain().await;
        }
        if let Some(joined) = self.joined.take() {
            joined.table.leave(self.conn).await;
        }
        tracing::debug!("disconnected");
    }

    /// After our close frame: reads and drops what the client still sends
    /// until its answering close frame (or the end of the socket), for a
    /// bounded time. Closing the socket with unread bytes in the kernel's
    /// buffer would make it answer with a reset, and the client would lose
    /// the close frame and see 1006 instead of our code.
    async fn drain(&mut self) {
        let drained = async {
            while let Some(Ok(message)) = self.socket.recv().await {
                if matches!(message, Message::Close(_)) {
                    break;
                }
            }
        };
        if tokio::time::timeout(CLOSE_DRAIN, drained).await.is_err() {
            tracing::debug!("the client did not answer the close in time");
        }
    }

    async fn serve(&mut self) -> End {
        // One liveness timer for the socket's life, looked at only when it
        // fires: a message moves `heard` on, and a timer that fires early
        // for the silence it watches is set again for the rest. Setting a
        // timer on every message costs the timer wheel's lock twice per
        // frame, for a deadline that is seconds away.
        let mut heard = Instant::now();
        let mut pinged = false;
        // Both are gated: looked at only once they have woken the task,
        // not each time a frame of play does.
        let shutdown = self.shutdown.clone();
        let shutdown = shutdown.cancelled();
        tokio::pin!(shutdown);
        let mut shutdown = Gated::new(shutdown);
        let check = tokio::time::sleep_until(heard + self.liveness.ping_after);
        tokio::pin!(check);
        let mut check = Gated::new(check);
        let no_hello = tokio::time::sleep(self.admitted.hello_timeout);
        tokio::pin!(no_hello);
        loop {
            let unjoined = self.joined.is_none();
            let outgoing = async {
                match &mut self.joined {
                    Some(joined) => joined.inbox.recv().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                // The frames of play first: the shutdown, the hello's
                // deadline and the liveness timer are looked at only when
                // neither is ready, so a busy socket does not poll them
                // (a lock each) at every turn. A shutdown that ends the
                // table ends its outbox first; `write_out` closes with the
                // shutdown's code then.
                biased;
                out = outgoing => {
                    if let Some(end) = self.write_out(out).await {
                        return end;
                    }
                }
                incoming = self.socket.recv() => {
                heard = Instant::now();
                pinged = false;
                match incoming {
                    None | Some(Ok(Message::Close(_))) => return End::Gone,
                    Some(Err(e)) => {
                        return if is_too_large(&e) {
                            let _ = self.send_error(None, ErrorCode::TooLarge, "messages are limited to 16 KiB".into()).await;
                            End::Close(CloseCode::TooLarge)
                        } else {
                            tracing::debug!(error = %e, "socket error");
                            End::Gone
                        };
                    }
                    Some(Ok(Message::Ping(_) | Message::Pong(_))) => {
                        if self.control.check().is_err() {
                            stats::control_frames_refused();
                            let _ = self.send_error(None, ErrorCode::RateLimited, "too many pings or pongs".into()).await;
                            return End::Close(CloseCode::RateLimited);
                        }
                    }
                    Some(Ok(message)) if data_len(&message) > MAX_FRAME_BYTES => {
                        let _ = self.send_error(None, ErrorCode::TooLarge, "messages are limited to 16 KiB".into()).await;
                        return End::Close(CloseCode::TooLarge);
                    }
                    Some(Ok(message)) => {
                        if self.limiter.check().is_err() {
                            let _ = self.send_error(None, ErrorCode::RateLimited, "too many messages".into()).await;
                            return End::Close(CloseCode::RateLimited);
                        }
                        if let Some(end) = self.handle(message).await {
                            return end;
                        }
                    }
                }},
                () = &mut shutdown => return self.table_gone(),
                () = &mut no_hello, if unjoined => {
                    tracing::debug!("no hello in time");
                    return End::Close(CloseCode::NoHello);
                }
                () = &mut check => {
                    // The silence allowed: until a ping, then until giving up.
                    let due = heard
                        + if pinged {
                            self.liveness.give_up_after
                        } else {
                            self.liveness.ping_after
                        };
                    if Instant::now() < due {
                        check.get_mut().as_mut().reset(due);
                        continue;
                    }
                    if pinged {
                        tracing::info!("no answer to pings");
                        return End::Close(CloseCode::Unresponsive);
                    }
                    pinged = true;
                    check
                        .get_mut()
                        .as_mut()
                        .reset(heard + self.liveness.give_up_after);
                    if self.socket.send(Message::Ping(Default::default())).await.is_err() {
                        return End::Gone;
                    }
                }
            }
        }
    }

    /// Writes `first` and whatever else the table has queued for this
    /// socket by now in one write ([`write_batch`]): an acknowledgement
    /// and the event it acknowledges leave together.
    async fn write_out(&mut self, first: Option<Outgoing>) -> Option<End> {
        let joined = self.joined.as_mut()?;
        match write_batch(&mut self.socket, first, &mut joined.inbox).await {
            Ok(written) => {
                for sent in written.events.into_iter().flatten() {
                    stats::stage(stats::ActionStage::ToSocket, sent.elapsed());
                }
                match written.close {
                    // The outbox ended: the table dropped this socket for
                    // falling behind, unless the server is stopping.
                    Some(CloseCode::TooSlow) if self.shutdown.is_cancelled() => {
                        Some(self.table_gone())
                    }
                    close => close.map(End::Close),
                }
            }
            Err(_) => Some(End::Gone),
        }
    }

    async fn handle(&mut self, message: Message) -> Option<End> {
        let text = match message {
            Message::Text(text) => text,
            _ => {
                return self
                    .send_error(
                        None,
                        ErrorCode::InvalidMessage,
                        "binary frames are not part of this protocol: send JSON text".into(),
                    )
                    .await;
            }
        };
        let message = match ClientMessage::decode(text.as_str()) {
            Ok(message) => message,
            Err(e) => {
                return self
                    .send_error(
                        None,
                        ErrorCode::InvalidMessage,
                        format!("not a message: {e}"),
                    )
                    .await;
            }
        };
        match message {
            ClientMessage::Hello {
                table,
                token,
                since,
            } => {
                let mut keys: Vec<Key> =
                    token.map(|t| TokenHash::of(&t).key()).into_iter().collect();
                keys.extend(self.admitted.player.clone().map(Key::Player));
                self.hello(table, keys, since).await
            }
            ClientMessage::Ping => match &self.joined {
                // Through the table, so that the pong comes after every
                // answer to what was sent before it.
                Some(joined) => match joined.table.ping(self.conn).await {
                    Ok(()) => None,
                    Err(_) => Some(self.table_gone()),
                },
                None => self.send(&ServerMessage::Pong).await,
            },
            other => match Command::of(other) {
                Some(command) => {
                    self.command(command.id, command.board, command.intent)
                        .await
                }
                None => None,
            },
        }
    }

    async fn hello(&mut self, table_id: String, keys: Vec<Key>, since: Option<u64>) -> Option<End> {
        if self.joined.is_some() {
            return self
                .send_error(
                    None,
                    ErrorCode::AlreadyJoined,
                    "this socket has already joined a table".into(),
                )
                .await;
        }
        if self.admitted.hellos.check(self.admitted.address).is_err() {
            stats::hello_rate_limited();
            let _ = self
                .send_error(
                    None,
                    ErrorCode::RateLimited,
                    "too many hellos from this address".into(),
                )
                .await;
            return Some(End::Close(CloseCode::RateLimited));
        }
        if self.tables.handing_over() {
            // This node is leaving the cluster: join through another.
            return Some(End::Close(CloseCode::Moved));
        }
        // A table unloaded while idle between the lookup and the join is
        // looked up again, once: the second lookup loads it afresh.
        for _ in 0..2 {
            let table = match self.tables.get(&table_id).await {
                Ok(Some(table)) => table,
                Ok(None) => {
                    return self
                        .send_error(
                            None,
                            ErrorCode::UnknownTable,
                            "there is no such table".into(),
                        )
                        .await;
                }
                Err(e) => {
                    tracing::error!(error = %e, "finding a table failed");
                    return self
                        .send_error(
                            None,
                            ErrorCode::Internal,
                            "the server failed; try again".into(),
                        )
                        .await;
                }
            };
            let (outbox, inbox) = mpsc::channel(OUTBOX_LEN);
            match table.join(self.conn, keys.clone(), since, outbox).await {
                Ok(Ok(member)) => {
                    tracing::Span::current().record("table_id", table_id.as_str());
                    self.role.take(match member {
                        Member::Player(_) => SocketRole::Player,
                        Member::Spectator => SocketRole::Spectator,
                    });
                    self.joined = Some(Joined {
                        table,
                        member,
                        inbox,
                    });
                    return None;
                }
                Ok(Err(code)) => {
                    let message = match code {
                        ErrorCode::SeatTaken => "the opponent's seat is already taken",
                        ErrorCode::GalleryFull => "every spectator seat is taken",
                        ErrorCode::InvalidToken => "this link grants nothing at this table",
                        _ => "the server failed; try again",
                    };
                    return self.send_error(None, code, message.into()).await;
                }
                Err(_) => continue,
            }
        }
        if self.shutdown.is_cancelled() {
            return Some(self.table_gone());
        }
        self.send_error(
            None,
            ErrorCode::Internal,
            "the server failed; try again".into(),
        )
        .await
    }

    async fn command(
        &mut self,
        id: Option<String>,
        board: Option<u8>,
        intent: Result<Intent, String>,
    ) -> Option<End> {
        let Some(joined) = &self.joined else {
            return self
                .send_error(id, ErrorCode::NotJoined, "say hello first".into())
                .await;
        };
        if joined.member == Member::Spectator {
            return self
                .send_error(id, ErrorCode::Spectator, "spectators cannot act".into())
                .await;
        }
        if let Some(bad) = id
            .as_ref()
            .filter(|id| id.is_empty() || id.len() > wire::MAX_ACTION_ID_BYTES)
        {
            let bad = bad.clone();
            return self
                .send_error(
                    Some(bad),
                    ErrorCode::InvalidId,
                    "an id is 1 to 64 bytes long".into(),
                )
                .await;
        }
        match joined.table.act(self.conn, id, board, intent).await {
            Ok(()) => None,
            Err(_) => Some(self.table_gone()),
        }
    }

    /// The close for a socket whose table closed under it, or whose
    /// server stops: 1001 on a single node; 1012 on a cluster node, whose
    /// clients reconnect through another node and find the table there.
    fn table_gone(&self) -> End {
        End::Close(if self.tables.in_cluster() {
            CloseCode::Moved
        } else {
            CloseCode::ShuttingDown
        })
    }

    async fn send_error(
        &mut self,
        id: Option<String>,
        code: ErrorCode,
        message: String,
    ) -> Option<End> {
        self.send(&ServerMessage::Error {
            id,
            code,
            reason: None,
            message,
        })
        .await
    }

    async fn send(&mut self, message: &ServerMessage) -> Option<End> {
        match self.socket.send(Message::Text(encode(message))).await {
            Ok(()) => None,
            Err(_) => Some(End::Gone),
        }
    }
}

/// The payload's length of a data message.
fn data_len(message: &Message) -> usize {
    match message {
        Message::Text(text) => text.len(),
        Message::Binary(data) => data.len(),
        _ => 0,
    }
}

/// Whether a socket error is a frame or message over the size limit.
fn is_too_large(error: &axum::Error) -> bool {
    use std::error::Error as _;
    let mut source = error.source();
    while let Some(e) = source {
        if let Some(e) = e.downcast_ref::<tungstenite::Error>() {
            return matches!(e, tungstenite::Error::Capacity(_));
        }
        source = e.source();
    }
    false
}
