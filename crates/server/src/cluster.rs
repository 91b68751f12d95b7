//! The NATS transport between nodes: any node holds any socket, and the
//! node that owns a table (by its lease in PostgreSQL, see
//! [`crate::tables`]) runs it.
//!
//! - A node that owns a table answers requests on `CLUSTER.table.ID`
//!   (join, act, leave, ping, record, and the probes below) and hands
//!   them to the table's task, exactly as a local socket would.
//! - A node that holds a socket for a table owned elsewhere sends the
//!   socket's commands there ([`Remote`]); the owner relays what the table
//!   sends that connection, in order, to `CLUSTER.node.NODE.conn.KEY`, and
//!   the holder puts it into the socket's outbox.
//! - Both ends watch each other: the holder asks after each remote
//!   connection every half lease and closes the socket with 1012 (reconnect)
//!   when its owner is gone; the owner drops a remote connection nobody asked
//!   after for three leases.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::ws::Utf8Bytes;
use baghchal_protocol as wire;
use bytes::Bytes;
use futures_util::stream::{self, StreamExt};
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::play::{Claim, Intent, Player};
use crate::table::{ConnId, Member, Outbox, Outgoing, TableClosed, TableHandle, OUTBOX_LEN};

/// The close reason a socket gets when its table moved to another node.
pub const MOVED: &str = wire_close::Moved.reason();

use baghchal_protocol::CloseCode as wire_close;

/// Connection ids the owner gives remote connections: apart from the ids
/// of its own sockets.
const REMOTE_CONN: u64 = 1 << 63;
static NEXT_REMOTE_CONN: AtomicU64 = AtomicU64::new(1);

/// How a node joins a cluster.
#[derive(Clone, Debug)]
pub struct ClusterConfig {
    /// The NATS server, e.g. `nats://127.0.0.1:4222`.
    pub nats_url: String,
    /// This node's id, unique in the cluster.
    pub node_id: String,
    /// The cluster's name: the prefix of every subject.
    pub name: String,
    /// How long a lease on a table lasts without renewal.
    pub lease: Duration,
}

/// This node's place in the cluster. Cheap to clone.
#[derive(Clone)]
pub struct Node {
    inner: Arc<NodeInner>,
}

struct NodeInner {
    nats: async_nats::Client,
    id: String,
    prefix: String,
    lease: Duration,
    /// The sockets held here for tables owned elsewhere, by key.
    remote: Mutex<HashMap<u64, RemoteConn>>,
    next_key: AtomicU64,
}

/// A socket held here whose table another node owns.
struct RemoteConn {
    table: String,
    /// Whether the owner took it.
    joined: bool,
    outbox: Outbox,
}

/// A socket as the node that holds it names it: the node and its key
/// there. The owner answers a request only for a socket that joined
/// through it, so a socket can never act through a connection id that
/// another owner gave out.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq, Hash)]
struct Holder {
    node: String,
    key: u64,
}

/// The remote connections of a table, at its owner: their id at the
/// table, a weak end of their outbox (dead once the table drops them) and
/// when they were last asked after.
type RemoteConns = HashMap<Holder, (ConnId, mpsc::WeakSender<Outgoing>, Instant)>;

/// What a node asks a table's owner.
#[derive(Serialize, Deserialize, Debug)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Request {
    /// Whether the owner answers at all.
    Probe,
    Join {
        node: String,
        key: u64,
        token: String,
        since: Option<u64>,
    },
    Leave {
        holder: Holder,
    },
    Act {
        holder: Holder,
        id: Option<String>,
        intent: Result<RemoteIntent, String>,
    },
    Ping {
        holder: Holder,
    },
    /// Whether the connection is still at the table.
    Alive {
        holder: Holder,
    },
    Record {
        game: u32,
    },
}

#[derive(Serialize, Deserialize, Debug)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Reply {
    Done,
    Joined {
        conn: ConnId,
        member: Result<RemoteMember, wire::ErrorCode>,
    },
    Alive {
        alive: bool,
    },
    Record {
        record: Option<wire::GameRecord>,
    },
    /// The table is not (or no longer) here.
    Closed,
}

#[derive(Serialize, Deserialize, Debug, Clone, Copy)]
#[serde(rename_all = "snake_case")]
enum RemoteMember {
    Host,
    Guest,
    Spectator,
}

impl From<Member> for RemoteMember {
    fn from(member: Member) -> RemoteMember {
        match member {
            Member::Player(Player::Host) => RemoteMember::Host,
            Member::Player(Player::Guest) => RemoteMember::Guest,
            Member::Spectator => RemoteMember::Spectator,
        }
    }
}

impl From<RemoteMember> for Member {
    fn from(member: RemoteMember) -> Member {
        match member {
            RemoteMember::Host => Member::Player(Player::Host),
            RemoteMember::Guest => Member::Player(Player::Guest),
            RemoteMember::Spectator => Member::Spectator,
        }
    }
}

#[derive(Serialize, Deserialize, Debug)]
#[serde(rename_all = "snake_case")]
enum RemoteIntent {
    Play(String),
    Resign,
    OfferDraw,
    AcceptDraw,
    DeclineDraw,
    Rematch,
    DeclineRematch,
    Abort,
    ClaimVictory,
    ClaimDraw,
}

impl From<Intent> for RemoteIntent {
    fn from(intent: Intent) -> RemoteIntent {
        match intent {
            Intent::Play(action) => RemoteIntent::Play(action.to_string()),
            Intent::Resign => RemoteIntent::Resign,
            Intent::OfferDraw => RemoteIntent::OfferDraw,
            Intent::AcceptDraw => RemoteIntent::AcceptDraw,
            Intent::DeclineDraw => RemoteIntent::DeclineDraw,
            Intent::Rematch => RemoteIntent::Rematch,
            Intent::DeclineRematch => RemoteIntent::DeclineRematch,
            Intent::Abort => RemoteIntent::Abort,
            Intent::Claim(Claim::Victory) => RemoteIntent::ClaimVictory,
            Intent::Claim(Claim::Draw) => RemoteIntent::ClaimDraw,
        }
    }
}

impl RemoteIntent {
    fn parse(self) -> Result<Intent, String> {
        Ok(match self {
            RemoteIntent::Play(action) => Intent::Play(
                action
                    .parse()
                    .map_err(|e| format!("{action:?} is not an action in notation: {e}"))?,
            ),
            RemoteIntent::Resign => Intent::Resign,
            RemoteIntent::OfferDraw => Intent::OfferDraw,
            RemoteIntent::AcceptDraw => Intent::AcceptDraw,
            RemoteIntent::DeclineDraw => Intent::DeclineDraw,
            RemoteIntent::Rematch => Intent::Rematch,
            RemoteIntent::DeclineRematch => Intent::DeclineRematch,
            RemoteIntent::Abort => Intent::Abort,
            RemoteIntent::ClaimVictory => Intent::Claim(Claim::Victory),
            RemoteIntent::ClaimDraw => Intent::Claim(Claim::Draw),
        })
    }
}

/// The close reasons a table sends, as the static strings they are.
#[cfg(test)]
fn static_reason(reason: &str) -> &'static str {
    const KNOWN: [&str; 2] = ["replaced by a newer connection", MOVED];
    KNOWN
        .into_iter()
        .find(|known| *known == reason)
        .unwrap_or("closed")
}

/// A frame for a remote connection: `T` and the text, `C`, the code and
/// the reason, or `E` when the table dropped the connection.
fn relay_frame(outgoing: Option<&Outgoing>) -> Bytes {
    match outgoing {
        Some(Outgoing::Text(text)) => {
            let mut frame = Vec::with_capacity(1 + text.len());
            frame.push(b'T');
            frame.extend_from_slice(text.as_bytes());
            Bytes::from(frame)
        }
        Some(Outgoing::Close(close)) => {
            let mut frame = vec![b'C'];
            frame.extend_from_slice(&close.code().to_be_bytes());
            frame.extend_from_slice(close.reason().as_bytes());
            Bytes::from(frame)
        }
        None => Bytes::from_static(b"E"),
    }
}

impl Node {
    /// Connects to NATS. The client reconnects by itself when NATS
    /// restarts.
    pub async fn connect(config: &ClusterConfig) -> Result<Node, async_nats::ConnectError> {
        let nats = async_nats::ConnectOptions::new()
            .name(format!("baghchal {}", config.node_id))
            .request_timeout(Some(config.lease.max(Duration::from_secs(2))))
            .retry_on_initial_connect()
            .connect(config.nats_url.as_str())
            .await?;
        Ok(Node {
            inner: Arc::new(NodeInner {
                nats,
                id: config.node_id.clone(),
                prefix: config.name.clone(),
                lease: config.lease,
                remote: Mutex::new(HashMap::new()),
                next_key: AtomicU64::new(1),
            }),
        })
    }

    /// This node's id.
    pub fn id(&self) -> &str {
        &self.inner.id
    }

    /// The lease.
    pub fn lease(&self) -> Duration {
        self.inner.lease
    }

    /// Whether NATS is reachable now.
    pub fn is_connected(&self) -> bool {
        self.inner.nats.connection_state() == async_nats::connection::State::Connected
    }

    fn table_subject(&self, table: &str) -> String {
        format!("{}.table.{table}", self.inner.prefix)
    }

    fn conn_subject(&self, node: &str, key: u64) -> String {
        format!("{}.node.{node}.conn.{key}", self.inner.prefix)
    }

    fn remote(&self) -> std::sync::MutexGuard<'_, HashMap<u64, RemoteConn>> {
        self.inner
            .remote
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    async fn request(&self, table: &str, request: &Request) -> Result<Reply, TableClosed> {
        let payload = serde_json::to_vec(request).map_err(|_| TableClosed)?;
        let message = self
            .inner
            .nats
            .request(self.table_subject(table), payload.into())
            .await
            .map_err(|e| {
                tracing::debug!(table_id = table, error = %e, "the owner did not answer");
                TableClosed
            })?;
        match serde_json::from_slice(&message.payload) {
            Ok(Reply::Closed) => Err(TableClosed),
            Ok(reply) => Ok(reply),
            Err(e) => {
                tracing::error!(error = %e, "an unreadable reply from another node");
                Err(TableClosed)
            }
        }
    }

    /// Whether some node answers for `table`.
    pub async fn probe(&self, table: &str) -> bool {
        self.request(table, &Request::Probe).await.is_ok()
    }

    /// A handle for `table`, owned by another node.
    pub fn remote_table(&self, table: &str) -> Remote {
        Remote {
            node: self.clone(),
            table: table.to_owned(),
            joined: Mutex::new(None),
        }
    }

    /// Starts the tasks of this node's sockets for remote tables: delivery
    /// of what their owners send, and the watch on those owners.
    pub async fn start(
        &self,
        tasks: &TaskTracker,
        shutdown: CancellationToken,
    ) -> Result<(), async_nats::SubscribeError> {
        let subject = format!("{}.node.{}.conn.*", self.inner.prefix, self.inner.id);
        let mut frames = self.inner.nats.subscribe(subject).await?;
        let node = self.clone();
        let stop = shutdown.clone();
        tasks.spawn(async move {
            loop {
                let message = tokio::select! {
                    () = stop.cancelled() => break,
                    message = frames.next() => message,
                };
                let Some(message) = message else { break };
                node.deliver(&message);
            }
        });
        let node = self.clone();
        tasks.spawn(async move {
            let mut tick = tokio::time::interval(node.inner.lease / 2);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    () = shutdown.cancelled() => break,
                    _ = tick.tick() => node.watch_owners().await,
                }
            }
        });
        Ok(())
    }

    /// Puts a frame from an owner into its socket's outbox.
    fn deliver(&self, message: &async_nats::Message) {
        let Some(key) = message
            .subject
            .rsplit('.')
            .next()
            .and_then(|k| k.parse::<u64>().ok())
        else {
            return;
        };
        let payload = &message.payload;
        let outgoing = match payload.first() {
            Some(b'T') => match std::str::from_utf8(&payload[1..]) {
                Ok(text) => Some(Outgoing::Text(Utf8Bytes::from(text.to_owned()))),
                Err(_) => return,
            },
            Some(b'C') if payload.len() >= 3 => {
                let code = u16::from_be_bytes([payload[1], payload[2]]);
                wire_close::ALL
                    .into_iter()
                    .find(|c| c.code() == code)
                    .map(Outgoing::Close)
            }
            _ => None,
        };
        let mut remote = self.remote();
        let keep = match (remote.get(&key), outgoing) {
            (Some(conn), Some(outgoing)) => conn.outbox.try_send(outgoing).is_ok(),
            // The table dropped the connection, or the socket is too slow:
            // its outbox closes, and the socket with it.
            _ => false,
        };
        if !keep {
            remote.remove(&key);
        }
    }

    /// Asks after every remote connection; closes those whose owner is
    /// gone, so that their clients reconnect and find the table's new
    /// owner.
    async fn watch_owners(&self) {
        let conns: Vec<(u64, String)> = self
            .remote()
            .iter()
            .filter(|(_, c)| c.joined)
            .map(|(key, c)| (*key, c.table.clone()))
            .collect();
        let gone: Vec<u64> = stream::iter(conns)
            .map(|(key, table)| async move {
                let holder = Holder {
                    node: self.inner.id.clone(),
                    key,
                };
                match self.request(&table, &Request::Alive { holder }).await {
                    Ok(Reply::Alive { alive: true }) => None,
                    _ => Some(key),
                }
            })
            .buffer_unordered(32)
            .filter_map(std::future::ready)
            .collect()
            .await;
        let mut remote = self.remote();
        for key in gone {
            if let Some(conn) = remote.remove(&key) {
                tracing::info!(table_id = %conn.table, "the table's owner is gone; closing its socket");
                let _ = conn.outbox.try_send(Outgoing::Close(wire_close::Moved));
            }
        }
    }

    /// Answers requests for `table`, owned here, until `stop` or the end of
    /// the table's task.
    pub async fn serve_table(
        &self,
        table: &str,
        handle: TableHandle,
        stop: CancellationToken,
        tasks: &TaskTracker,
    ) -> Result<(), async_nats::SubscribeError> {
        let mut requests = self.inner.nats.subscribe(self.table_subject(table)).await?;
        let node = self.clone();
        let relays = tasks.clone();
        let span = tracing::info_span!("owner", table_id = %table);
        tasks.spawn(tracing::Instrument::instrument(
            async move {
                let mut conns = RemoteConns::new();
                let mut sweep = tokio::time::interval(node.inner.lease);
                loop {
                    let message = tokio::select! {
                        () = stop.cancelled() => break,
                        () = handle.closed() => break,
                        _ = sweep.tick() => {
                            node.sweep(&handle, &mut conns).await;
                            continue;
                        }
                        message = requests.next() => message,
                    };
                    let Some(message) = message else { break };
                    let Some(reply_to) = message.reply.clone() else {
                        continue;
                    };
                    let reply = match serde_json::from_slice::<Request>(&message.payload) {
                        Ok(request) => node.answer(&handle, request, &mut conns, &relays).await,
                        Err(e) => {
                            tracing::error!(error = %e, "an unreadable request from another node");
                            Reply::Closed
                        }
                    };
                    let payload = serde_json::to_vec(&reply).unwrap_or_default();
                    let _ = node.inner.nats.publish(reply_to, payload.into()).await;
                }
                let _ = requests.unsubscribe().await;
            },
            span,
        ));
        Ok(())
    }

    async fn sweep(&self, handle: &TableHandle, conns: &mut RemoteConns) {
        let now = Instant::now();
        let mut stale = Vec::new();
        conns.retain(|_, (conn, outbox, seen)| {
            if outbox.upgrade().is_none() {
                return false;
            }
            if now.duration_since(*seen) > 3 * self.inner.lease {
                stale.push(*conn);
                return false;
            }
            true
        });
        for conn in stale {
            tracing::info!(conn_id = conn, "a remote connection's node is gone");
            handle.leave(conn).await;
        }
    }

    async fn answer(
        &self,
        handle: &TableHandle,
        request: Request,
        conns: &mut RemoteConns,
        relays: &TaskTracker,
    ) -> Reply {
        // The table's id for a socket that joined through this owner.
        let conn_of = |conns: &RemoteConns, holder: &Holder| conns.get(holder).map(|c| c.0);
        let done = |result: Result<(), TableClosed>| match result {
            Ok(()) => Reply::Done,
            Err(TableClosed) => Reply::Closed,
        };
        match request {
            Request::Probe => Reply::Done,
            Request::Join {
                node,
                key,
                token,
                since,
            } => {
                let conn = REMOTE_CONN | NEXT_REMOTE_CONN.fetch_add(1, Ordering::Relaxed);
                let (outbox, mut inbox) = mpsc::channel(OUTBOX_LEN);
                let weak = outbox.downgrade();
                match handle.join(conn, token, since, outbox).await {
                    Ok(Ok(member)) => {
                        let subject = self.conn_subject(&node, key);
                        conns.insert(Holder { node, key }, (conn, weak, Instant::now()));
                        let nats = self.inner.nats.clone();
                        relays.spawn(async move {
                            while let Some(outgoing) = inbox.recv().await {
                                if nats
                                    .publish(subject.clone(), relay_frame(Some(&outgoing)))
                                    .await
                                    .is_err()
                                {
                                    break;
                                }
                            }
                            let _ = nats.publish(subject, relay_frame(None)).await;
                        });
                        Reply::Joined {
                            conn,
                            member: Ok(member.into()),
                        }
                    }
                    Ok(Err(code)) => Reply::Joined {
                        conn,
                        member: Err(code),
                    },
                    Err(TableClosed) => Reply::Closed,
                }
            }
            Request::Leave { holder } => {
                if let Some((conn, _, _)) = conns.remove(&holder) {
                    handle.leave(conn).await;
                }
                Reply::Done
            }
            Request::Act { holder, id, intent } => {
                let Some(conn) = conn_of(conns, &holder) else {
                    return Reply::Closed;
                };
                let intent = intent.and_then(RemoteIntent::parse);
                done(handle.act(conn, id, intent).await)
            }
            Request::Ping { holder } => match conn_of(conns, &holder) {
                Some(conn) => done(handle.ping(conn).await),
                None => Reply::Closed,
            },
            Request::Alive { holder } => {
                let alive = match conns.get_mut(&holder) {
                    Some((_, outbox, seen)) if outbox.upgrade().is_some() => {
                        *seen = Instant::now();
                        true
                    }
                    _ => false,
                };
                Reply::Alive { alive }
            }
            Request::Record { game } => match handle.record(game).await {
                Ok(record) => Reply::Record { record },
                Err(TableClosed) => Reply::Closed,
            },
        }
    }
}

/// A table owned by another node, as one socket here sees it.
pub struct Remote {
    node: Node,
    table: String,
    /// This socket's key here, once joined.
    joined: Mutex<Option<u64>>,
}

impl Remote {
    fn joined(&self) -> Option<Holder> {
        let key = (*self
            .joined
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()))?;
        Some(Holder {
            node: self.node.inner.id.clone(),
            key,
        })
    }

    /// Joins at the owner; what the table sends arrives in `outbox`.
    pub async fn join(
        &self,
        token: String,
        since: Option<u64>,
        outbox: Outbox,
    ) -> Result<Result<Member, wire::ErrorCode>, TableClosed> {
        let key = self.node.inner.next_key.fetch_add(1, Ordering::Relaxed);
        self.node.remote().insert(
            key,
            RemoteConn {
                table: self.table.clone(),
                joined: false,
                outbox,
            },
        );
        let request = Request::Join {
            node: self.node.inner.id.clone(),
            key,
            token,
            since,
        };
        let reply = self.node.request(&self.table, &request).await;
        match reply {
            Ok(Reply::Joined {
                member: Ok(member), ..
            }) => {
                if let Some(entry) = self.node.remote().get_mut(&key) {
                    entry.joined = true;
                }
                *self
                    .joined
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(key);
                Ok(Ok(member.into()))
            }
            Ok(Reply::Joined {
                member: Err(code), ..
            }) => {
                self.node.remote().remove(&key);
                Ok(Err(code))
            }
            _ => {
                self.node.remote().remove(&key);
                Err(TableClosed)
            }
        }
    }

    /// The socket is gone.
    pub async fn leave(&self) {
        let Some(holder) = self.joined() else {
            return;
        };
        self.node.remote().remove(&holder.key);
        let _ = self
            .node
            .request(&self.table, &Request::Leave { holder })
            .await;
    }

    /// A player's command.
    pub async fn act(
        &self,
        id: Option<String>,
        intent: Result<Intent, String>,
    ) -> Result<(), TableClosed> {
        let holder = self.joined().ok_or(TableClosed)?;
        let request = Request::Act {
            holder,
            id,
            intent: intent.map(RemoteIntent::from),
        };
        self.node.request(&self.table, &request).await.map(|_| ())
    }

    /// A ping, answered in order in the outbox.
    pub async fn ping(&self) -> Result<(), TableClosed> {
        let holder = self.joined().ok_or(TableClosed)?;
        self.node
            .request(&self.table, &Request::Ping { holder })
            .await
            .map(|_| ())
    }

    /// Game `n`'s record.
    pub async fn record(&self, game: u32) -> Result<Option<wire::GameRecord>, TableClosed> {
        match self
            .node
            .request(&self.table, &Request::Record { game })
            .await?
        {
            Reply::Record { record } => Ok(record),
            _ => Err(TableClosed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_intent_crosses_between_nodes_unchanged() {
        for intent in [
            Intent::Play("c3".parse().unwrap()),
            Intent::Play("b3-c3".parse().unwrap()),
            Intent::Resign,
            Intent::OfferDraw,
            Intent::AcceptDraw,
            Intent::DeclineDraw,
            Intent::Rematch,
        ] {
            let json = serde_json::to_string(&RemoteIntent::from(intent)).unwrap();
            let back: RemoteIntent = serde_json::from_str(&json).unwrap();
            assert_eq!(back.parse(), Ok(intent));
        }
        assert!(RemoteIntent::Play("z9".into()).parse().is_err());
    }

    #[test]
    fn a_relayed_close_keeps_its_code_and_reason() {
        let frame = relay_frame(Some(&Outgoing::Close(wire_close::Moved)));
        assert_eq!(frame[0], b'C');
        assert_eq!(u16::from_be_bytes([frame[1], frame[2]]), 1012);
        assert_eq!(
            static_reason(std::str::from_utf8(&frame[3..]).unwrap()),
            MOVED
        );
        assert_eq!(static_reason("something else"), "closed");
    }
}
