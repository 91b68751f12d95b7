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
//!   the holder puts it into the socket's outbox. To a holder that said at
//!   the join that it reads batches, the frames queued together (an
//!   acknowledgement and the event after it) go as one message.
//! - NATS delivers at most once: a frame can vanish (NATS restarting, a
//!   node reconnecting). Each relayed frame carries its number in the
//!   connection's sequence; the holder delivers them strictly in sequence,
//!   drops one it has delivered already, and on a missing one closes the
//!   socket with 1012, so that its client reconnects with `since` and the
//!   table sends exactly the events it missed (or a snapshot). The holder
//!   also learns, from each answer to its watch, how many frames the owner
//!   sent, which finds a lost last frame that no later frame would reveal.
//! - Both ends watch each other (`watch.rs`): the holder asks after each
//!   remote connection every half lease, in one question to each owner for
//!   all its connections there, and closes the socket with 1012
//!   (reconnect) when its owner is gone; the owner drops a remote
//!   connection nobody asked after for three leases.
//! - A node that changed the lobby says so on `CLUSTER.lobby`, and the
//!   others read the lobby's state at once (`lobby.rs`).

mod lobby;
mod messages;
mod nats_auth;
mod relay;
mod remote;
mod watch;

pub use lobby::LobbyChanges;
pub use nats_auth::{NatsAuth, NatsAuthError};
pub use remote::Remote;

use messages::{Holder, Reply, Request};
use relay::{in_sequence, read_relay_message, relay_frame, restore_secret, Batch, InSequence};
use watch::{Watched, Watchlist};

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::stream::StreamExt;
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
    /// The remote connections of the tables owned here.
    watchlist: Watchlist,
}

/// A socket held here whose table another node owns.
struct RemoteConn {
    table: String,
    /// Whether the owner took it.
    joined: bool,
    /// The owner's node id, when it said it at the join (a node of an
    /// earlier version does not): then the watch asks after this socket
    /// together with the others it holds of that node's tables.
    owner: Option<String>,
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

impl RemoteConn {
    /// Puts frame `seq` into the socket's outbox if it is the next one;
    /// false when the connection ends here: the table dropped it, the
    /// socket is too slow (its outbox closes, and the socket with it), or
    /// frames before it went missing (the socket is closed with 1012, so
    /// that its client reconnects with `since`).
    fn deliver(&mut self, seq: u64, outgoing: Option<Outgoing>) -> bool {
        match in_sequence(self.received, seq) {
            InSequence::Again => true,
            InSequence::Gap => {
                tracing::warn!(
                    table_id = %self.table,
                    expected = self.received + 1,
                    seq,
                    "frames from the table's owner went missing; closing the socket"
                );
                crate::stats::relay_frame_lost();
                let _ = self.outbox.try_send(Outgoing::Close(wire_close::Moved));
                false
            }
            InSequence::Next => {
                self.received = seq;
                // The first frame is the welcome: a claimed seat's secret
                // goes into it here, in place of its hash.
                let outgoing = match (self.claim.take(), outgoing) {
                    (Some((hash, secret)), Some(Outgoing::Text(text))) => {
                        Some(Outgoing::Text(restore_secret(text, &hash, &secret)))
                    }
                    (_, outgoing) => outgoing,
                };
                outgoing.is_some_and(|outgoing| self.outbox.try_send(outgoing).is_ok())
            }
        }
    }
}

/// A remote connection of a table, at its owner.
struct Relayed {
    /// Its id at the table.
    conn: ConnId,
    watched: Arc<Watched>,
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
                watchlist: Watchlist::default(),
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

    /// Where node `node` answers the watch of its tables' remote
    /// connections (see `watch.rs`).
    fn watch_subject(&self, node: &str) -> String {
        format!("{}.node.{node}.conn.watch", self.inner.prefix)
    }

    fn remote(&self) -> std::sync::MutexGuard<'_, HashMap<u64, RemoteConn>> {
        self.inner
            .remote
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    async fn request(&self, table: &str, request: &Request) -> Result<Reply, TableClosed> {
        self.request_on(self.table_subject(table), request).await
    }

    /// Publishes `request` to `table`'s owner, which does not answer it.
    async fn publish(&self, table: &str, request: &Request) -> Result<(), TableClosed> {
        let payload = serde_json::to_vec(request).map_err(|_| TableClosed)?;
        self.inner
            .nats
            .publish(self.table_subject(table), payload.into())
            .await
            .map_err(|e| {
                tracing::debug!(error = %e, "a command could not be published");
                TableClosed
            })
    }

    async fn request_on(&self, subject: String, request: &Request) -> Result<Reply, TableClosed> {
        let payload = serde_json::to_vec(request).map_err(|_| TableClosed)?;
        let message = self
            .inner
            .nats
            .request(subject, payload.into())
            .await
            .map_err(|e| {
                tracing::debug!(error = %e, "the owner did not answer");
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
                if message.subject.as_str().ends_with(".conn.watch") {
                    node.answer_watch(&message).await;
                } else {
                    node.deliver(&message);
                }
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

    /// Puts the frames of a message from an owner into their socket's
    /// outbox, in sequence.
    fn deliver(&self, message: &async_nats::Message) {
        let Some(key) = message
            .subject
            .rsplit('.')
            .next()
            .and_then(|k| k.parse::<u64>().ok())
        else {
            return;
        };
        let mut remote = self.remote();
        for frame in read_relay_message(&message.payload) {
            let Some((seq, outgoing)) = frame else {
                tracing::error!("an unreadable frame from another node");
                return;
            };
            let Some(conn) = remote.get_mut(&key) else {
                return;
            };
            if !conn.deliver(seq, outgoing) {
                remote.remove(&key);
                return;
            }
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
                    let request = serde_json::from_slice::<Request>(&message.payload);
                    let Some(reply_to) = message.reply.clone() else {
                        // A command its holder was told needs no answer.
                        match request {
                            Ok(request) if request.may_go_one_way() => {
                                node.answer(&handle, request, &mut conns, &relays).await;
                            }
                            _ => tracing::debug!("a request without a reply subject"),
                        }
                        continue;
                    };
                    let reply = match request {
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
            if !relayed.watched.is_open() {
                return false;
            }
            if now.duration_since(relayed.watched.seen()) > 3 * self.inner.lease {
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
                batches,
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
                let (outbox, inbox) = mpsc::channel(OUTBOX_LEN);
                let weak = outbox.downgrade();
                match handle
                    .join_hashed(conn, keys, Some(claim), since, outbox)
                    .await
                {
                    Ok(Ok(member)) => {
                        let subject = self.conn_subject(&node, key);
                        let watched = Arc::new(Watched::new(weak, Instant::now()));
                        let holder = Holder { node, key };
                        self.inner.watchlist.insert(&holder, &watched);
                        relays.spawn(relay(
                            self.inner.nats.clone(),
                            subject,
                            inbox,
                            watched.clone(),
                            batches,
                        ));
                        conns.insert(holder, Relayed { conn, watched });
                        Reply::Joined {
                            conn,
                            member: Ok(member),
                            owner: Some(self.inner.id.clone()),
                            one_way: true,
                        }
                    }
                    Ok(Err(code)) => Reply::Joined {
                        conn,
                        member: Err(code),
                        owner: Some(self.inner.id.clone()),
                        one_way: true,
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
            Request::Alive { holder } => {
                match conns
                    .get(&holder)
                    .and_then(|relayed| relayed.watched.ask(Instant::now()))
                {
                    Some(sent) => Reply::Alive { alive: true, sent },
                    None => Reply::Alive {
                        alive: false,
                        sent: 0,
                    },
                }
            }
            // Asked on a node's subject, never a table's.
            Request::Watch { .. } => Reply::Closed,
            Request::Record { game, board } => match handle.record(game, board).await {
                Ok(record) => Reply::Record { record },
                Err(TableClosed) => Reply::Closed,
            },
        }
    }
}

/// Relays what the table sends a remote connection to the node that holds
/// its socket, each frame numbered, until the table drops it; then says so
/// with a last frame. With `batches`, the frames queued together go in one
/// message.
async fn relay(
    nats: async_nats::Client,
    subject: String,
    mut inbox: mpsc::Receiver<Outgoing>,
    watched: Arc<Watched>,
    batches: bool,
) {
    let subject = async_nats::Subject::from(subject);
    let next = || watched.next_frame();
    // A frame that did not fit in the previous batch.
    let mut carried = None;
    loop {
        let first = match carried.take() {
            Some(first) => first,
            None => match inbox.recv().await {
                Some(first) => first,
                None => break,
            },
        };
        let (message, frames) = if batches {
            let mut batch = Batch::new(next(), Some(&first));
            while let Ok(more) = inbox.try_recv() {
                if !batch.fits(&more) {
                    carried = Some(more);
                    break;
                }
                batch.push(next(), Some(&more));
            }
            let frames = batch.frames();
            (batch.into_message(), frames)
        } else {
            (relay_frame(next(), Some(&first)), 1)
        };
        if nats.publish(subject.clone(), message).await.is_err() {
            break;
        }
        crate::stats::relayed(frames);
    }
    let _ = nats.publish(subject, relay_frame(next(), None)).await;
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
