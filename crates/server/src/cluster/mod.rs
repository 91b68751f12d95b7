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
//! - NATS delivers at most once: a frame can vanish (NATS restarting, a
//!   node reconnecting). Each relayed frame carries its number in the
//!   connection's sequence; the holder delivers them strictly in sequence,
//!   drops one it has delivered already, and on a missing one closes the
//!   socket with 1012, so that its client reconnects with `since` and the
//!   table sends exactly the events it missed (or a snapshot). The holder
//!   also learns, from each answer to its watch, how many frames the owner
//!   sent, which finds a lost last frame that no later frame would reveal.
//! - Both ends watch each other: the holder asks after each remote
//!   connection every half lease and closes the socket with 1012 (reconnect)
//!   when its owner is gone; the owner drops a remote connection nobody asked
//!   after for three leases.
//! - A node that changed the lobby says so on `CLUSTER.lobby`, and the
//!   others read the lobby's state at once (`lobby.rs`).

mod lobby;
mod messages;
mod nats_auth;
mod relay;
mod remote;

pub use lobby::LobbyChanges;
pub use nats_auth::{NatsAuth, NatsAuthError};
pub use remote::Remote;

use messages::{Holder, Reply, Request};
use relay::{in_sequence, read_relay_frame, relay_frame, restore_secret, InSequence};

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::stream::{self, StreamExt};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::table::conn::{ConnId, Outbox, Outgoing, TableClosed, OUTBOX_LEN};
use crate::table::LocalTable;
use crate::token::{Token, TokenHash};

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
    /// The node's NATS credentials and TLS options.
    pub auth: NatsAuth,
}

/// Why a node could not join its cluster.
#[derive(Debug, thiserror::Error)]
pub enum NodeError {
    /// The credentials or TLS options do not fit together.
    #[error(transparent)]
    Auth(#[from] NatsAuthError),
    /// NATS refused the node (its credentials, or TLS).
    #[error("NATS refused this node: {0}")]
    Refused(async_nats::ConnectError),
    /// Subscribing failed.
    #[error("NATS: {0}")]
    Subscribe(#[from] async_nats::SubscribeError),
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
    /// The sockets held here for tables owned elsewhere, by key (random,
    /// see [`messages::Holder`]).
    remote: Mutex<HashMap<u64, RemoteConn>>,
}

/// A socket held here whose table another node owns.
struct RemoteConn {
    table: String,
    /// Whether the owner took it.
    joined: bool,
    outbox: Outbox,
    /// The number of the last frame delivered (frames count from 1).
    received: u64,
    /// How many frames the owner had sent at the previous watch: by now
    /// every one of them has had half a lease to arrive.
    owner_sent: u64,
    /// Until the welcome arrives: the secret kept here for the guest's
    /// seat, should the join claim it, and the hash the owner was sent
    /// (the welcome carries it in the secret's place).
    claim: Option<(TokenHash, Token)>,
}

/// A remote connection of a table, at its owner.
struct Relayed {
    /// Its id at the table.
    conn: ConnId,
    /// A weak end of its outbox: dead once the table drops it.
    outbox: mpsc::WeakSender<Outgoing>,
    /// When its holder last asked after it.
    seen: Instant,
    /// How many frames its relay has sent.
    sent: Arc<AtomicU64>,
}

/// The remote connections of a table, at its owner.
type RemoteConns = HashMap<Holder, Relayed>;

impl Node {
    /// Connects to NATS with the node's credentials. A NATS that refuses
    /// them (or its TLS) fails the start; one not reachable yet is
    /// retried, and the client reconnects by itself when NATS restarts.
    /// Replies come to the node's own inbox prefix,
    /// `_INBOX.CLUSTER.NODE`, so that a node's NATS user can be limited to
    /// its own.
    pub async fn connect(config: &ClusterConfig) -> Result<Node, NodeError> {
        let options = || async {
            let options = async_nats::ConnectOptions::new()
                .name(format!("baghchal {}", config.node_id))
                .custom_inbox_prefix(inbox_prefix(&config.name, &config.node_id))
                .request_timeout(Some(config.lease.max(Duration::from_secs(2))));
            config.auth.apply(options).await
        };
        let url = config.nats_url.as_str();
        let nats = match options().await?.connect(url).await {
            Ok(nats) => nats,
            Err(e) if refused(&e) => return Err(NodeError::Refused(e)),
            Err(e) => {
                tracing::warn!(error = %e, "NATS is not reachable yet; trying on");
                options()
                    .await?
                    .retry_on_initial_connect()
                    .connect(url)
                    .await
                    .map_err(NodeError::Refused)?
            }
        };
        Ok(Node {
            inner: Arc::new(NodeInner {
                nats,
                id: config.node_id.clone(),
                prefix: config.name.clone(),
                lease: config.lease,
                remote: Mutex::new(HashMap::new()),
            }),
        })
    }

    /// Keeps `conn` under a fresh random key, and returns the key.
    fn insert_remote(&self, conn: RemoteConn) -> Result<u64, TableClosed> {
        let mut remote = self.remote();
        loop {
            let mut bytes = [0u8; 8];
            getrandom::fill(&mut bytes).map_err(|e| {
                tracing::error!(error = %e, "no random bytes");
                TableClosed
            })?;
            let key = u64::from_le_bytes(bytes);
            if let std::collections::hash_map::Entry::Vacant(entry) = remote.entry(key) {
                entry.insert(conn);
                return Ok(key);
            }
        }
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

    /// Puts a frame from an owner into its socket's outbox, in sequence.
    fn deliver(&self, message: &async_nats::Message) {
        let Some(key) = message
            .subject
            .rsplit('.')
            .next()
            .and_then(|k| k.parse::<u64>().ok())
        else {
            return;
        };
        let Some((seq, outgoing)) = read_relay_frame(&message.payload) else {
            tracing::error!("an unreadable frame from another node");
            return;
        };
        let mut remote = self.remote();
        let Some(conn) = remote.get_mut(&key) else {
            return;
        };
        let keep = match in_sequence(conn.received, seq) {
            InSequence::Again => return,
            InSequence::Gap => {
                tracing::warn!(
                    table_id = %conn.table,
                    expected = conn.received + 1,
                    seq,
                    "frames from the table's owner went missing; closing the socket"
                );
                crate::stats::relay_frame_lost();
                let _ = conn.outbox.try_send(Outgoing::Close(wire_close::Moved));
                false
            }
            InSequence::Next => {
                conn.received = seq;
                // The first frame is the welcome: a claimed seat's secret
                // goes into it here, in place of its hash.
                let outgoing = match (conn.claim.take(), outgoing) {
                    (Some((hash, secret)), Some(Outgoing::Text(text))) => {
                        Some(Outgoing::Text(restore_secret(text, &hash, &secret)))
                    }
                    (_, outgoing) => outgoing,
                };
                // The table dropped the connection, or the socket is too
                // slow: its outbox closes, and the socket with it.
                outgoing.is_some_and(|outgoing| conn.outbox.try_send(outgoing).is_ok())
            }
        };
        if !keep {
            remote.remove(&key);
        }
    }

    /// Asks after every remote connection; closes those whose owner is
    /// gone, so that their clients reconnect and find the table's new
    /// owner, and those that missed a frame the owner sent before the
    /// previous watch, so that their clients reconnect with `since`.
    async fn watch_owners(&self) {
        let conns: Vec<(u64, String)> = self
            .remote()
            .iter()
            .filter(|(_, c)| c.joined)
            .map(|(key, c)| (*key, c.table.clone()))
            .collect();
        // Each connection and, while its owner has it, how many frames the
        // owner has sent it.
        let answers: Vec<(u64, Option<u64>)> = stream::iter(conns)
            .map(|(key, table)| async move {
                let holder = Holder {
                    node: self.inner.id.clone(),
                    key,
                };
                match self.request(&table, &Request::Alive { holder }).await {
                    Ok(Reply::Alive { alive: true, sent }) => (key, Some(sent)),
                    _ => (key, None),
                }
            })
            .buffer_unordered(32)
            .collect()
            .await;
        let mut remote = self.remote();
        for (key, sent) in answers {
            let Some(conn) = remote.get_mut(&key) else {
                continue;
            };
            match sent {
                Some(sent) if conn.owner_sent <= conn.received => {
                    conn.owner_sent = sent;
                    continue;
                }
                Some(_) => {
                    tracing::warn!(
                        table_id = %conn.table,
                        received = conn.received,
                        sent = conn.owner_sent,
                        "frames from the table's owner went missing; closing the socket"
                    );
                    crate::stats::relay_frame_lost();
                }
                None => {
                    tracing::info!(table_id = %conn.table, "the table's owner is gone; closing its socket");
                }
            }
            let _ = conn.outbox.try_send(Outgoing::Close(wire_close::Moved));
            remote.remove(&key);
        }
    }

    /// Answers requests for `table`, owned here, until `stop` or the end of
    /// the table's task.
    pub async fn serve_table(
        &self,
        table: &str,
        handle: LocalTable,
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

    async fn sweep(&self, handle: &LocalTable, conns: &mut RemoteConns) {
        let now = Instant::now();
        let mut stale = Vec::new();
        conns.retain(|_, relayed| {
            if relayed.outbox.upgrade().is_none() {
                return false;
            }
            if now.duration_since(relayed.seen) > 3 * self.inner.lease {
                stale.push(relayed.conn);
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
        handle: &LocalTable,
        request: Request,
        conns: &mut RemoteConns,
        relays: &TaskTracker,
    ) -> Reply {
        // The table's id for a socket that joined through this owner.
        let conn_of = |conns: &RemoteConns, holder: &Holder| conns.get(holder).map(|r| r.conn);
        let done = |result: Result<(), TableClosed>| match result {
            Ok(()) => Reply::Done,
            Err(TableClosed) => Reply::Closed,
        };
        match request {
            Request::Probe => Reply::Done,
            Request::Join {
                node,
                key,
                keys,
                claim_hash,
                since,
            } => {
                let Some(claim) = TokenHash::from_hex(claim_hash) else {
                    tracing::warn!(node_id = %node, "a join without a claim's hash");
                    return Reply::Closed;
                };
                if conns.contains_key(&Holder {
                    node: node.clone(),
                    key,
                }) {
                    tracing::warn!(node_id = %node, "a join for a connection already here");
                    return Reply::Closed;
                }
                let conn = REMOTE_CONN | NEXT_REMOTE_CONN.fetch_add(1, Ordering::Relaxed);
                let (outbox, mut inbox) = mpsc::channel(OUTBOX_LEN);
                let weak = outbox.downgrade();
                match handle
                    .join_hashed(conn, keys, Some(claim), since, outbox)
                    .await
                {
                    Ok(Ok(member)) => {
                        let subject = self.conn_subject(&node, key);
                        let sent = Arc::new(AtomicU64::new(0));
                        conns.insert(
                            Holder { node, key },
                            Relayed {
                                conn,
                                outbox: weak,
                                seen: Instant::now(),
                                sent: sent.clone(),
                            },
                        );
                        let nats = self.inner.nats.clone();
                        relays.spawn(async move {
                            let next = || sent.fetch_add(1, Ordering::Relaxed) + 1;
                            while let Some(outgoing) = inbox.recv().await {
                                let frame = relay_frame(next(), Some(&outgoing));
                                if nats.publish(subject.clone(), frame).await.is_err() {
                                    break;
                                }
                            }
                            let _ = nats.publish(subject, relay_frame(next(), None)).await;
                        });
                        Reply::Joined {
                            conn,
                            member: Ok(member),
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
                if let Some(relayed) = conns.remove(&holder) {
                    handle.leave(relayed.conn).await;
                }
                Reply::Done
            }
            Request::Act {
                holder,
                id,
                board,
                intent,
            } => {
                let Some(conn) = conn_of(conns, &holder) else {
                    return Reply::Closed;
                };
                done(handle.act(conn, id, board, intent).await)
            }
            Request::Ping { holder } => match conn_of(conns, &holder) {
                Some(conn) => done(handle.ping(conn).await),
                None => Reply::Closed,
            },
            Request::Alive { holder } => match conns.get_mut(&holder) {
                Some(relayed) if relayed.outbox.upgrade().is_some() => {
                    relayed.seen = Instant::now();
                    Reply::Alive {
                        alive: true,
                        sent: relayed.sent.load(Ordering::Relaxed),
                    }
                }
                _ => Reply::Alive {
                    alive: false,
                    sent: 0,
                },
            },
            Request::Record { game, board } => match handle.record(game, board).await {
                Ok(record) => Reply::Record { record },
                Err(TableClosed) => Reply::Closed,
            },
        }
    }
}

/// The prefix of a node's reply subjects.
fn inbox_prefix(cluster: &str, node: &str) -> String {
    format!("_INBOX.{cluster}.{node}")
}

/// Whether NATS refused the node, or the node NATS's certificate, rather
/// than not answering: trying again would not help.
fn refused(error: &async_nats::ConnectError) -> bool {
    use async_nats::ConnectErrorKind as Kind;
    // A failed TLS handshake comes as an I/O error around TLS's own.
    let tls_handshake = std::error::Error::source(error)
        .and_then(|source| source.downcast_ref::<std::io::Error>())
        .and_then(std::io::Error::get_ref)
        .is_some_and(|inner| inner.is::<async_nats::rustls::Error>());
    tls_handshake
        || matches!(
            error.kind(),
            Kind::Authentication | Kind::AuthorizationViolation | Kind::Tls | Kind::ServerParse
        )
}
