//! One table under load: its creation over HTTP, its sockets (two players
//! and the spectators, spread over the nodes of a cluster when there are
//! several) and the loop that plays random legal games on it.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context};
use baghchal_protocol::{
    ClientMessage, CreateTable, GameState, Opponent, ServerMessage, Side, TableCreated, Variant,
};
use futures_util::stream::{SelectAll, SplitSink, SplitStream};
use futures_util::{SinkExt, StreamExt};
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};
use tokio::net::TcpStream;
use tokio::sync::watch;
use tokio::time::{sleep_until, Instant};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

use crate::stats::Stats;

type Socket = WebSocketStream<TcpStream>;

/// How long one step of joining a table (a request, a handshake, an
/// answer) may take.
const JOIN_TIMEOUT: Duration = Duration::from_secs(30);

/// What every table of a run shares.
pub struct Run {
    /// The servers: one, or the nodes of one cluster.
    pub nodes: Vec<Node>,
    /// Spectators at each table (and seats reserved for them).
    pub spectators: u8,
    /// Time between two actions at one table, when paced.
    pub interval: Option<Duration>,
    /// How long an action may take to reach every subscriber.
    pub timeout: Duration,
    /// The seed of the run; each table derives its own.
    pub seed: u64,
    /// Actions the run may still send, when bounded by a count.
    pub budget: Option<AtomicU64>,
    /// The HTTP client that creates tables.
    pub http: reqwest::Client,
    /// The measurements.
    pub stats: Stats,
}

/// One server of a run: where tables are created and sockets connect.
pub struct Node {
    /// The server's base URL, e.g. `http://127.0.0.1:8080`.
    pub url: String,
    /// Where the websockets connect.
    pub endpoint: Endpoint,
}

impl Run {
    /// The node that table `index` is created through, and whose socket
    /// `seat` (0 the host, 1 the guest, then the spectators) connects to:
    /// round-robin, so that a table's sockets sit on different nodes where
    /// there are several, and every node creates (hence owns) some tables
    /// and relays for others.
    pub fn node(&self, index: u64, seat: usize) -> &Node {
        &self.nodes[node_of(self.nodes.len(), index, seat)]
    }

    /// Takes one action from the budget; false once it is spent.
    fn take_action(&self) -> bool {
        match &self.budget {
            None => true,
            Some(budget) => budget
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
                .is_ok(),
        }
    }
}

/// A connected table, ready to play.
pub struct Table {
    /// The table's position in the run, from 0.
    index: u64,
    /// The creator's socket, to send on.
    host: SplitSink<Socket, Message>,
    /// The opponent's socket, to send on.
    guest: SplitSink<Socket, Message>,
    /// The spectators' sockets: never written to, kept open.
    _spectators: Vec<SplitSink<Socket, Message>>,
    /// Every subscriber's incoming frames, tagged with its index (0 host,
    /// 1 guest, then the spectators).
    incoming: SelectAll<Tagged>,
    /// The table version each subscriber has seen.
    seen: Vec<u64>,
    /// The latest game state and its version.
    state: GameState,
    version: u64,
}

type Tagged = futures_util::stream::Map<
    SplitStream<Socket>,
    Box<dyn FnMut(Result<Message, tokio_tungstenite::tungstenite::Error>) -> Frame + Send>,
>;

/// One incoming frame and which subscriber it came to.
struct Frame {
    from: usize,
    message: Result<Message, tokio_tungstenite::tungstenite::Error>,
}

impl Table {
    /// Creates a friend table with the run's spectator seats and connects
    /// its two players and its spectators.
    pub async fn open(run: &Run, index: u64) -> anyhow::Result<Table> {
        let created = create(run, run.node(index, 0)).await?;
        let secret = created.secret.context("no seat secret in the answer")?;
        let invite = token(created.opponent_link.as_deref(), "invite")?;
        let mut joined = vec![
            join(run.node(index, 0), &created.table, &secret).await?,
            join(run.node(index, 1), &created.table, &invite).await?,
        ];
        if run.spectators > 0 {
            let watch = token(created.spectator_link.as_deref(), "watch")?;
            for seat in 2..2 + usize::from(run.spectators) {
                joined.push(join(run.node(index, seat), &created.table, &watch).await?);
            }
        }
        // Later joiners may have seen a later version: start from the
        // latest state, and from what each subscriber has seen.
        let seen: Vec<u64> = joined.iter().map(|(_, version, _)| *version).collect();
        let mut sockets = Vec::with_capacity(joined.len());
        let mut latest: Option<(u64, GameState)> = None;
        for (socket, version, state) in joined {
            sockets.push(socket);
            if latest.as_ref().is_none_or(|(v, _)| version > *v) {
                latest = Some((version, state));
            }
        }
        let (version, state) = latest.context("no subscriber")?;

        let mut sinks = Vec::with_capacity(sockets.len());
        let mut incoming = SelectAll::new();
        for (from, socket) in sockets.into_iter().enumerate() {
            let (sink, stream) = socket.split();
            sinks.push(sink);
            let tag: Box<dyn FnMut(_) -> Frame + Send> =
                Box::new(move |message| Frame { from, message });
            incoming.push(stream.map(tag));
        }
        let mut sinks = sinks.into_iter();
        let host = sinks.next().context("no host socket")?;
        let guest = sinks.next().context("no guest socket")?;
        Ok(Table {
            index,
            host,
            guest,
            _spectators: sinks.collect(),
            incoming,
            seen,
            state,
            version,
        })
    }

    /// Plays random legal games, one action at a time, until `stop` turns
    /// true or the action budget is spent, and returns the table with its
    /// sockets still open, for [`Table::close`] once every table is done:
    /// a table that closed its sockets as soon as its own last action came
    /// back would load the server with closes while the others' last
    /// actions are still on their way, and their figures would be the
    /// closes' and not the play's. Failures are counted in the run's
    /// statistics, and the table is dropped.
    pub async fn play(
        mut self,
        run: Arc<Run>,
        start: Instant,
        mut stop: watch::Receiver<bool>,
    ) -> Option<Self> {
        let mut rng = StdRng::seed_from_u64(table_seed(run.seed, self.index));
        let mut next_at = match run.interval {
            // Spread the tables' first actions over one interval.
            Some(interval) => start + interval.mul_f64(rng.random::<f64>()),
            None => start,
        };
        let mut pending: Option<Pending> = None;
        let mut sent = 0u64;
        let mut stopping = *stop.borrow();
        loop {
            if stopping && pending.is_none() {
                break;
            }
            let deadline = pending.as_ref().map(|p| p.sent_at + run.timeout);
            tokio::select! {
                biased;
                frame = self.incoming.next() => {
                    let Some(frame) = frame else {
                        run.stats.record_error("connection closed");
                        return None;
                    };
                    match self.receive(frame, &run, &mut pending) {
                        Ok(()) => {}
                        Err(e) => {
                            run.stats.record_error(format!("{e:#}"));
                            return None;
                        }
                    }
                }
                _ = sleep_until(deadline.unwrap_or(next_at)), if deadline.is_some() => {
                    run.stats.record_error("timeout");
                    return None;
                }
                _ = sleep_until(next_at), if pending.is_none() && !stopping => {
                    let result = if self.state.result.is_some() {
                        self.rematch().await
                    } else if run.take_action() {
                        self.act(&mut rng, &mut sent).await
                    } else {
                        stopping = true;
                        continue;
                    };
                    match result {
                        Ok(p) => pending = Some(p),
                        Err(e) => {
                            run.stats.record_error(format!("{e:#}"));
                            return None;
                        }
                    }
                    next_at = match run.interval {
                        Some(interval) => (next_at + interval).max(Instant::now()),
                        None => Instant::now(),
                    };
                }
                changed = stop.changed(), if !stopping => {
                    stopping = changed.is_err() || *stop.borrow();
                }
            }
        }
        Some(self)
    }

    /// Sends a random legal action for the side to move.
    async fn act(&mut self, rng: &mut StdRng, sent: &mut u64) -> anyhow::Result<Pending> {
        let Some(action) = self.state.legal.choose(rng).map(|a| a.to_string()) else {
            bail!("no legal action in an unfinished game");
        };
        *sent += 1;
        let id = sent.to_string();
        let message = ClientMessage::Action {
            id: id.clone(),
            action,
            board: None,
        };
        let sink = if self.state.side_to_move == self.state.host_side {
            &mut self.host
        } else {
            &mut self.guest
        };
        let sent_at = Instant::now();
        send(sink, &message).await?;
        Ok(Pending {
            sent_at,
            kind: PendingKind::Action {
                id,
                version: self.version + 1,
                acked: false,
                delivered: false,
            },
        })
    }

    /// Asks both players for a rematch after a finished game.
    async fn rematch(&mut self) -> anyhow::Result<Pending> {
        let sent_at = Instant::now();
        send(&mut self.host, &ClientMessage::Rematch { id: None }).await?;
        send(&mut self.guest, &ClientMessage::Rematch { id: None }).await?;
        Ok(Pending {
            sent_at,
            kind: PendingKind::Rematch {
                game: self.state.game + 1,
                version: None,
            },
        })
    }

    /// Handles one incoming frame, completing the pending step when it can.
    fn receive(
        &mut self,
        frame: Frame,
        run: &Run,
        pending: &mut Option<Pending>,
    ) -> anyhow::Result<()> {
        let now = Instant::now();
        let text = match frame.message.context("websocket")? {
            Message::Text(text) => text,
            Message::Close(close) => bail!(
                "closed by the server{}",
                close.map(|c| format!(": {}", c.reason)).unwrap_or_default()
            ),
            Message::Binary(_) => bail!("unexpected binary frame"),
            _ => return Ok(()),
        };
        let message: ServerMessage =
            serde_json::from_str(&text).context("unreadable server message")?;
        if let ServerMessage::Event { version, .. } = &message {
            // Each subscriber gets every event after its snapshot once and
            // in order, whichever node it is connected to.
            let expected = self.seen[frame.from] + 1;
            if *version < expected {
                run.stats
                    .record_error("an event delivered twice or out of order");
            } else if *version > expected {
                run.stats.record_error("an event missed");
            }
        }
        match message {
            ServerMessage::Event { version, state, .. }
            | ServerMessage::Snapshot { version, state, .. } => {
                self.seen[frame.from] = self.seen[frame.from].max(version);
                if version > self.version {
                    if let Some(Pending {
                        kind: PendingKind::Rematch { game, version: v },
                        ..
                    }) = pending
                    {
                        if state.game >= *game && v.is_none() {
                            *v = Some(version);
                        }
                    }
                    self.version = version;
                    self.state = state;
                }
            }
            ServerMessage::Ack { id } => {
                if let Some(Pending {
                    sent_at,
                    kind:
                        PendingKind::Action {
                            id: ours, acked, ..
                        },
                }) = pending
                {
                    if *ours == id && !*acked {
                        *acked = true;
                        run.stats.record_acked(now - *sent_at);
                    }
                }
            }
            ServerMessage::Error { code, .. } => {
                run.stats.record_error(format!("server error {code:?}"));
                // The refused action changed nothing: play on.
                if matches!(
                    pending,
                    Some(Pending {
                        kind: PendingKind::Action { .. },
                        ..
                    })
                ) {
                    *pending = None;
                }
            }
            ServerMessage::Welcome { .. } | ServerMessage::Presence(_) | ServerMessage::Pong => {}
        }

        let everyone_has = |version: u64| self.seen.iter().all(|&seen| seen >= version);
        let done = match pending {
            None => false,
            Some(Pending {
                sent_at,
                kind:
                    PendingKind::Action {
                        version,
                        acked,
                        delivered,
                        ..
                    },
            }) => {
                if !*delivered && everyone_has(*version) {
                    *delivered = true;
                    run.stats.record_delivered(now - *sent_at);
                }
                let done = *acked && *delivered;
                if done {
                    run.stats.record_settled();
                }
                done
            }
            Some(Pending {
                kind: PendingKind::Rematch { version, .. },
                ..
            }) => version.is_some_and(everyone_has),
        };
        if done {
            if matches!(
                pending,
                Some(Pending {
                    kind: PendingKind::Rematch { .. },
                    ..
                })
            ) {
                run.stats.record_game();
            }
            *pending = None;
        }
        Ok(())
    }

    /// Closes every socket politely.
    pub async fn close(self) {
        let mut sinks = self._spectators;
        sinks.push(self.host);
        sinks.push(self.guest);
        for mut sink in sinks {
            let _ = sink.close().await;
        }
    }
}

/// The step a table waits for.
struct Pending {
    /// When it was sent.
    sent_at: Instant,
    /// What it waits for.
    kind: PendingKind,
}

enum PendingKind {
    /// An action: its ack, and its event at every subscriber.
    Action {
        /// The client id it was sent with.
        id: String,
        /// The table version its event will carry.
        version: u64,
        /// Whether the ack came.
        acked: bool,
        /// Whether every subscriber has the event.
        delivered: bool,
    },
    /// A rematch: the event that starts the next game, at every subscriber.
    Rematch {
        /// The number of the next game.
        game: u32,
        /// The version of the event that started it, once seen.
        version: Option<u64>,
    },
}

/// Which of `nodes` nodes seat `seat` of table `index` connects to: the
/// host to node `index mod nodes`, the next seats to the next nodes.
fn node_of(nodes: usize, index: u64, seat: usize) -> usize {
    let n = nodes as u64;
    ((index % n + seat as u64 % n) % n) as usize
}

/// A table's own seed: the run's seed and the table's index, mixed.
fn table_seed(seed: u64, index: u64) -> u64 {
    // SplitMix64's finaliser.
    let mut z = seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// `POST /api/tables` at `node` for a friend table with the run's
/// spectator seats.
async fn create(run: &Run, node: &Node) -> anyhow::Result<TableCreated> {
    let options = CreateTable {
        opponent: Opponent::Friend,
        side: Side::Goats,
        level: None,
        spectators: run.spectators,
        variant: Variant::default(),
        clock: None,
        format: baghchal_protocol::Format::Single,
        series_games: None,
    };
    let response = run
        .http
        .post(format!("{}/api/tables", node.url))
        .json(&options)
        .timeout(JOIN_TIMEOUT)
        .send()
        .await
        .context("creating a table")?;
    let status = response.status();
    if !status.is_success() {
        let body = response.text().await.unwrap_or_default();
        bail!("creating a table: {status}: {body}");
    }
    response
        .json::<TableCreated>()
        .await
        .context("reading the created table")
}

/// The token in a link's fragment, e.g. `watch` in `.../t/ID#watch=TOKEN`.
fn token(link: Option<&str>, name: &str) -> anyhow::Result<String> {
    let link = link.with_context(|| format!("no {name} link in the answer"))?;
    let (_, fragment) = link
        .split_once('#')
        .with_context(|| format!("no fragment in the {name} link {link:?}"))?;
    fragment
        .split('&')
        .find_map(|pair| pair.strip_prefix(name)?.strip_prefix('='))
        .map(str::to_owned)
        .with_context(|| format!("no {name} token in the link {link:?}"))
}

/// Where the websockets connect, and the loopback addresses they connect
/// from: one source address has room for some 28,000 connections to one
/// server port, so larger runs spread over several.
pub struct Endpoint {
    /// The websocket URL, e.g. `ws://127.0.0.1:8080/ws`.
    url: String,
    /// The server's socket address.
    server: SocketAddr,
    /// Local addresses to bind, in turn; empty lets the system choose.
    sources: Vec<IpAddr>,
    /// The next source to use.
    next: AtomicUsize,
}

/// Connections per loopback source address, well under the ephemeral
/// port range.
const SOCKETS_PER_SOURCE: u64 = 20_000;

impl Endpoint {
    /// The `/ws` endpoint of the server at `base` (an `http://` URL), for
    /// `sockets` connections in all.
    pub fn new(base: &str, sockets: u64) -> anyhow::Result<Endpoint> {
        let mut url = reqwest::Url::parse(base).with_context(|| format!("{base:?} is no URL"))?;
        if url.scheme() != "http" {
            bail!("only http:// servers can be loaded, not {base:?}");
        }
        let server = *url
            .socket_addrs(|| None)
            .with_context(|| format!("resolving {base:?}"))?
            .first()
            .with_context(|| format!("{base:?} resolves to no address"))?;
        url.set_scheme("ws")
            .expect("ws is a valid scheme for an http URL");
        url.set_path("/ws");
        let wanted = sockets.div_ceil(SOCKETS_PER_SOURCE);
        let sources = match server.ip() {
            IpAddr::V4(ip) if ip.is_loopback() && wanted > 1 => (1..=wanted.min(250))
                .map(|i| IpAddr::V4(Ipv4Addr::new(127, 0, 0, i as u8)))
                .collect(),
            _ => Vec::new(),
        };
        Ok(Endpoint {
            url: url.into(),
            server,
            sources,
            next: AtomicUsize::new(0),
        })
    }

    /// The loopback addresses connections come from (none: the system's
    /// choice).
    pub fn sources(&self) -> &[IpAddr] {
        &self.sources
    }

    /// Opens a TCP connection to the server, without Nagle's delay, and
    /// makes it a websocket.
    async fn connect(&self) -> anyhow::Result<Socket> {
        let socket = match self.server {
            SocketAddr::V4(_) => tokio::net::TcpSocket::new_v4(),
            SocketAddr::V6(_) => tokio::net::TcpSocket::new_v6(),
        }?;
        if !self.sources.is_empty() {
            let i = self.next.fetch_add(1, Ordering::Relaxed) % self.sources.len();
            socket
                .bind(SocketAddr::new(self.sources[i], 0))
                .with_context(|| format!("binding {}", self.sources[i]))?;
        }
        let stream = socket.connect(self.server).await.context("connecting")?;
        stream.set_nodelay(true)?;
        let (socket, _) =
            tokio_tungstenite::client_async_with_config(self.url.as_str(), stream, Some(config()))
                .await
                .context("websocket handshake")?;
        Ok(socket)
    }
}

/// The clients' websocket settings: the server's messages are small (a
/// few KiB), so small buffers keep thousands of sockets cheap (the default
/// is 128 KiB each way).
fn config() -> WebSocketConfig {
    WebSocketConfig::default()
        .read_buffer_size(SOCKET_BUFFER_BYTES)
        .write_buffer_size(0)
}

/// The read buffer of each client socket.
const SOCKET_BUFFER_BYTES: usize = 8 * 1024;

/// Opens a socket to `node`, says hello with `token` and reads up to the
/// snapshot.
async fn join(node: &Node, table: &str, token: &str) -> anyhow::Result<(Socket, u64, GameState)> {
    let mut socket = tokio::time::timeout(JOIN_TIMEOUT, node.endpoint.connect())
        .await
        .context("connecting timed out")??;
    let hello = ClientMessage::Hello {
        table: table.to_owned(),
        token: Some(token.to_owned()),
        since: None,
    };
    send(&mut socket, &hello).await?;
    loop {
        let frame = tokio::time::timeout(JOIN_TIMEOUT, socket.next())
            .await
            .context("no snapshot after hello")?
            .context("closed before the snapshot")?
            .context("websocket")?;
        let Message::Text(text) = frame else {
            if let Message::Close(close) = frame {
                bail!("closed after hello: {close:?}");
            }
            continue;
        };
        match serde_json::from_str(&text).context("unreadable server message")? {
            ServerMessage::Snapshot { version, state, .. } => return Ok((socket, version, state)),
            ServerMessage::Error { code, message, .. } => {
                bail!("hello refused: {code:?}: {message}")
            }
            _ => {}
        }
    }
}

/// Sends one client message as a text frame.
async fn send<S>(sink: &mut S, message: &ClientMessage) -> anyhow::Result<()>
where
    S: futures_util::Sink<Message, Error = tokio_tungstenite::tungstenite::Error> + Unpin,
{
    let text = serde_json::to_string(message).context("encoding a message")?;
    sink.send(Message::text(text)).await.context("sending")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_read_from_the_link_fragment() {
        let link = "http://127.0.0.1:8080/t/abc#invite=XYZ";
        assert_eq!(token(Some(link), "invite").unwrap(), "XYZ");
        assert!(token(Some(link), "watch").is_err());
        assert!(token(None, "invite").is_err());
        assert!(token(Some("http://127.0.0.1/t/abc"), "invite").is_err());
    }

    #[test]
    fn large_runs_spread_over_loopback_sources() {
        let small = Endpoint::new("http://127.0.0.1:8080", 4_000).unwrap();
        assert_eq!(small.url, "ws://127.0.0.1:8080/ws");
        assert!(small.sources().is_empty());
        let large = Endpoint::new("http://127.0.0.1:8080/", 50_000).unwrap();
        assert_eq!(large.sources().len(), 3);
        assert_eq!(large.sources()[2], IpAddr::V4(Ipv4Addr::new(127, 0, 0, 3)));
        assert!(Endpoint::new("https://127.0.0.1:8080", 1).is_err());
    }

    #[test]
    fn a_table_spreads_its_seats_over_the_nodes_and_the_tables_rotate() {
        let seats = |index| {
            (0..4)
                .map(|seat| node_of(3, index, seat))
                .collect::<Vec<_>>()
        };
        assert_eq!(seats(0), [0, 1, 2, 0]);
        assert_eq!(seats(1), [1, 2, 0, 1]);
        assert_eq!(seats(5), [2, 0, 1, 2]);
        assert_eq!(node_of(1, 7, 3), 0);
        assert_eq!(node_of(2, u64::MAX, 1), 0);
    }

    #[test]
    fn tables_get_distinct_reproducible_seeds() {
        assert_eq!(table_seed(7, 3), table_seed(7, 3));
        assert_ne!(table_seed(7, 3), table_seed(7, 4));
        assert_ne!(table_seed(7, 3), table_seed(8, 3));
    }
}
