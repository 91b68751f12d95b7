//! `baghchal-ceiling`: the ceiling of the stack for the load benchmark.
//!
//! A bare server on the table server's own stack (axum 0.8 websockets,
//! tokio, serde_json, the same socket settings) that speaks the same
//! protocol to the benchmark — `POST /api/tables`, `hello` → `welcome`,
//! `snapshot`, `presence`; `action` → `ack` and an `event` to every
//! subscriber of the table; `ping` → `pong` — but applies no rules, stores
//! nothing and runs no actors: a table is a version number, two canned
//! game states and its subscribers' outboxes behind a mutex. Whatever the
//! table server spends above it is the cost of the game itself.
//!
//! ```text
//! baghchal-ceiling --addr 127.0.0.1:0
//! ```
//!
//! It prints `listening on http://ADDR` once bound, like `baghchal serve`,
//! and stops on SIGINT or SIGTERM once its sockets have closed.
//!
//! With `--nats-url`, `--cluster` and `--node-id` (the table server's own
//! flags) it is one node of a cluster that relays play through NATS
//! ([`cluster`]): the floor of the table server's cluster.
//!
//! With `--actors` each table has a task of its own, and with `--durable
//! FILE` besides, that task stores each action in a log before it answers
//! ([`durable`]): the floor of durable play.

mod cluster;
mod durable;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use axum::extract::ws::{Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::{DefaultBodyLimit, State};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use baghchal_protocol::{
    ClientMessage, ErrorCode, GameState, Opponent, Phase, Player, Presence, Role, SeatView,
    ServerMessage, Side, TableCreated, TableEvent, TableInfo, Tally, Variant, MAX_FRAME_BYTES,
    PROTOCOL_VERSION,
};
use clap::Parser;
use futures_util::{SinkExt, StreamExt};
use tokio::sync::mpsc;

use cluster::{Ask, Incoming, Node, Outbound};

/// Serve the protocol of the Bagh-Chal table server with no rules, no
/// storage and no actors: the ceiling the load benchmark compares with.
#[derive(Parser, Debug)]
#[command(name = "baghchal-ceiling", version, about)]
struct Args {
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1:0")]
    addr: SocketAddr,
    /// The NATS server of a cluster of ceiling nodes; alone without it.
    #[arg(long)]
    nats_url: Option<String>,
    /// The cluster's name: the first part of its NATS subjects.
    #[arg(long, default_value = "ceiling")]
    cluster: String,
    /// This node's name in the cluster.
    #[arg(long, default_value = "n1")]
    node_id: String,
    /// Give each table a task of its own that plays the actions its
    /// sockets hand it, as the table server's tables do (an experiment:
    /// what that hand-off costs), instead of the socket's task playing
    /// them under the table's lock. Alone only: not with `--nats-url`.
    #[arg(long, conflicts_with = "nats_url")]
    actors: bool,
    /// With `--actors`: a table's task appends each action to this file
    /// and waits for its sync before it answers (an experiment: the
    /// floor of durable play). The file is emptied at the start.
    #[arg(long, requires = "actors")]
    durable: Option<std::path::PathBuf>,
    /// With `--durable`: the file grows with each append, instead of
    /// being written full of zeros first as the table server's event log
    /// is (an experiment: what a sync of a new size costs).
    #[arg(long, requires = "durable")]
    durable_growing: bool,
}

/// Messages a subscriber's outbox holds before it counts as too slow
/// (the table server's own outbox length).
const OUTBOX_LEN: usize = 256;

/// Frames a socket writes at once at most, and the bytes after which it
/// takes no more (the table server's).
const WRITE_AT_ONCE: usize = 8;
const WRITE_BYTES_AT_ONCE: usize = 4 * 1024;

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    tokio::runtime::Runtime::new()?.block_on(async {
        let mut tables = Tables {
            actors: args.actors,
            log: args
                .durable
                .as_deref()
                .map(|path| durable::Log::create(path, args.durable_growing))
                .transpose()?,
            ..Tables::default()
        };
        if let Some(url) = &args.nats_url {
            let node = Arc::new(Node::connect(url, &args.cluster, &args.node_id).await?);
            let messages = node.subscribe().await?;
            tables.node = Some(node.clone());
            tokio::spawn(serve_nodes(node, messages, tables.clone()));
        }
        let listener = tokio::net::TcpListener::bind(args.addr).await?;
        println!("listening on http://{}", listener.local_addr()?);
        axum::serve(listener, app(tables))
            .with_graceful_shutdown(stopped())
            .await?;
        Ok(())
    })
}

/// Completes on SIGINT or SIGTERM, so that a profiler running the ceiling
/// sees it exit normally.
async fn stopped() {
    use tokio::signal::unix::{signal, SignalKind};
    match signal(SignalKind::terminate()) {
        Ok(mut terminate) => {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = terminate.recv() => {}
            }
        }
        Err(_) => {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

/// The ceiling's routes.
fn app(tables: Tables) -> Router {
    Router::new()
        .route("/api/tables", post(create))
        .route("/ws", get(websocket))
        .layer(DefaultBodyLimit::max(MAX_FRAME_BYTES))
        .with_state(tables)
}

/// Every table this node owns, by id, and the cluster's node if there is
/// one.
#[derive(Clone, Default)]
struct Tables {
    inner: Arc<Mutex<HashMap<String, Arc<Table>>>>,
    next: Arc<AtomicU64>,
    node: Option<Arc<Node>>,
    /// Each table has a task of its own (`--actors`).
    actors: bool,
    /// The log a table's task stores each action in (`--durable`).
    log: Option<durable::Log>,
}

impl Tables {
    fn get(&self, id: &str) -> Option<Arc<Table>> {
        self.inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(id)
            .cloned()
    }
}

/// One table: a version, whose turn it is and the subscribers' outboxes.
#[derive(Default)]
struct Table {
    inner: Mutex<TableState>,
    /// The inbox of the table's task, with `--actors`.
    actor: Option<mpsc::Sender<Handed>>,
}

/// An action a socket hands its table's task: the action's id, the
/// action, and the socket's number.
type Handed = (String, String, u64);

/// Commands a table's task holds queued (the table server's).
const INBOX_LEN: usize = 1024;

#[derive(Default)]
struct TableState {
    version: u64,
    /// Which canned state is current: the goats' turn (even) or the
    /// tigers' (odd).
    turn: u64,
    subscribers: Vec<Subscriber>,
}

/// A table's subscriber: a socket of this node (by its number), or one
/// another node holds (that node's subject and the socket's number there).
enum Subscriber {
    Local(u64, mpsc::Sender<Utf8Bytes>),
    Remote(async_nats::Subject, u64),
}

/// Where a socket joined: a table of this node's, or another node's
/// (reached through this node).
enum Joined {
    Local(Arc<Table>),
    Remote {
        node: Arc<Node>,
        owner: String,
        table: String,
    },
}

/// A joined socket: its table, and its outbox.
type Membership = (Joined, mpsc::Receiver<Utf8Bytes>);

/// `POST /api/tables`: a friend table, whatever was asked.
async fn create(State(tables): State<Tables>) -> Json<TableCreated> {
    let number = tables.next.fetch_add(1, Ordering::Relaxed);
    let id = match &tables.node {
        Some(node) => format!("{number}@{}", node.id()),
        None => number.to_string(),
    };
    tables
        .inner
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(id.clone(), new_table(&tables, &id));
    Json(TableCreated {
        secret: Some(format!("host-{id}")),
        side: Some(Side::Goats),
        seat_link: Some(format!("/t/{id}")),
        opponent_link: Some(format!("/t/{id}#invite=guest-{id}")),
        spectator_link: Some(format!("/t/{id}#watch=watch-{id}")),
        table: id,
    })
}

/// `GET /ws`, with the table server's socket settings.
async fn websocket(State(tables): State<Tables>, upgrade: WebSocketUpgrade) -> Response {
    upgrade
        .max_message_size(MAX_FRAME_BYTES)
        .max_frame_size(MAX_FRAME_BYTES)
        .read_buffer_size(512)
        .write_buffer_size(32 * 1024)
        .on_upgrade(move |socket| serve(socket, tables))
        .into_response()
}

static NEXT_CONN: AtomicU64 = AtomicU64::new(1);

/// Serves one websocket until either side closes it.
async fn serve(mut socket: WebSocket, tables: Tables) {
    let conn = NEXT_CONN.fetch_add(1, Ordering::Relaxed);
    let mut joined: Option<Membership> = None;
    loop {
        let outgoing = async {
            match &mut joined {
                Some((_, inbox)) => inbox.recv().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            biased;
            out = outgoing => match out {
                Some(text) => {
                    if socket.feed(Message::Text(text)).await.is_err()
                        || write_queued(&mut socket, &mut joined).await.is_err()
                    {
                        break;
                    }
                }
                None => break,
            },
            incoming = socket.recv() => {
                let text = match incoming {
                    Some(Ok(Message::Text(text))) => text,
                    Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
                    _ => break,
                };
                let (replies, outbound) = match serde_json::from_str::<ClientMessage>(&text) {
                    Ok(message) => handle(message, &text, conn, &tables, &mut joined),
                    Err(_) => (vec![error(None, ErrorCode::InvalidMessage)], Vec::new()),
                };
                if let Some(node) = &tables.node {
                    node.publish(outbound).await;
                }
                for reply in replies {
                    let Ok(text) = serde_json::to_string(&reply) else { break };
                    if socket.feed(Message::Text(text.into())).await.is_err() {
                        return leave(conn, joined).await;
                    }
                }
                if write_queued(&mut socket, &mut joined).await.is_err() {
                    break;
                }
            }
        }
    }
    leave(conn, joined).await;
}

/// Feeds what the outbox holds by now (up to the table server's eight
/// frames or 4 KiB) after what was fed already, and writes it all at once, as the
/// table server does.
async fn write_queued(
    socket: &mut WebSocket,
    joined: &mut Option<Membership>,
) -> Result<(), axum::Error> {
    if let Some((_, inbox)) = joined {
        let mut bytes = 0;
        for _ in 1..WRITE_AT_ONCE {
            if bytes >= WRITE_BYTES_AT_ONCE {
                break;
            }
            let Ok(text) = inbox.try_recv() else { break };
            bytes += text.len();
            socket.feed(Message::Text(text)).await?;
        }
    }
    socket.flush().await
}

/// What one client message (`text`, read as `message`) asks for: the
/// replies to this socket, and the messages to other nodes. Events go to
/// every subscriber's outbox directly, or to the node that holds it.
fn handle(
    message: ClientMessage,
    text: &str,
    conn: u64,
    tables: &Tables,
    joined: &mut Option<Membership>,
) -> (Vec<ServerMessage>, Vec<Outbound>) {
    let owner = |table: &str| {
        let node = tables.node.as_ref()?;
        Some((node.clone(), node.owner_elsewhere(table)?.to_owned()))
    };
    match (message, joined.as_ref()) {
        (ClientMessage::Hello { table, token, .. }, None) => {
            let (tx, rx) = mpsc::channel(OUTBOX_LEN);
            if let Some((node, owner)) = owner(&table) {
                node.hold(conn, tx);
                let token = token.unwrap_or_default();
                let ask = node.ask(&owner, Ask::Join, conn, &table, token.as_bytes());
                *joined = Some((Joined::Remote { node, owner, table }, rx));
                return (Vec::new(), vec![ask]);
            }
            let Some(found) = tables.get(&table) else {
                return (vec![error(None, ErrorCode::UnknownTable)], Vec::new());
            };
            match join(&found, table, token.as_deref(), Subscriber::Local(conn, tx)) {
                Ok(replies) => {
                    *joined = Some((Joined::Local(found), rx));
                    (replies, Vec::new())
                }
                Err(code) => (vec![error(None, code)], Vec::new()),
            }
        }
        (ClientMessage::Hello { .. }, Some(_)) => {
            (vec![error(None, ErrorCode::AlreadyJoined)], Vec::new())
        }
        (ClientMessage::Ping, _) => (vec![ServerMessage::Pong], Vec::new()),
        (_, None) => (vec![error(None, ErrorCode::NotJoined)], Vec::new()),
        (
            ClientMessage::Action { board: None, .. },
            Some((Joined::Remote { node, owner, table }, _)),
        ) => {
            let ask = node.ask(owner, Ask::Act, conn, table, text.as_bytes());
            (Vec::new(), vec![ask])
        }
        (
            ClientMessage::Action {
                id,
                action,
                board: None,
            },
            Some((Joined::Local(table), _)),
        ) => {
            if let Some(actor) = &table.actor {
                return match actor.try_send((id, action, conn)) {
                    Ok(()) => (Vec::new(), Vec::new()),
                    Err(_) => (vec![error(None, ErrorCode::RateLimited)], Vec::new()),
                };
            }
            let outbound = act(table, action, None);
            (vec![ServerMessage::Ack { id }], outbound)
        }
        (_, Some(_)) => (vec![error(None, ErrorCode::GameNotOver)], Vec::new()),
    }
}

/// Table `id`, and with `actors` its task, which with a log stores each
/// action before it plays it. (The task holds its table, so neither ends
/// before the ceiling does: it never forgets a table.)
fn new_table(tables: &Tables, id: &str) -> Arc<Table> {
    if !tables.actors {
        return Arc::default();
    }
    let log = tables.log.clone();
    let mut record = id.as_bytes().to_vec();
    let prefix = record.len();
    let (actor, mut inbox) = mpsc::channel::<Handed>(INBOX_LEN);
    let table = Arc::new(Table {
        inner: Mutex::default(),
        actor: Some(actor),
    });
    let own = table.clone();
    tokio::spawn(async move {
        while let Some((id, action, conn)) = inbox.recv().await {
            if let Some(log) = &log {
                record.truncate(prefix);
                for part in [&id, &action] {
                    record.push(b' ');
                    record.extend_from_slice(part.as_bytes());
                }
                if let Err(e) = log.append(&record).await {
                    eprintln!("an action not stored, so not played: {e}");
                    continue;
                }
            }
            play_handed(&own, id, action, conn);
        }
    });
    table
}

/// What a table's task does with an action socket `conn` handed it: the
/// acknowledgement into that socket's outbox, then the event into every
/// subscriber's, as the table server's table does.
fn play_handed(table: &Table, id: String, action: String, conn: u64) {
    let ack = ack_text(id);
    {
        let state = table.inner.lock().unwrap_or_else(PoisonError::into_inner);
        for subscriber in &state.subscribers {
            if let Subscriber::Local(c, tx) = subscriber {
                if *c == conn {
                    let _ = tx.try_send(Utf8Bytes::from(ack));
                    break;
                }
            }
        }
    }
    act(table, action, None);
}

/// The acknowledgement of action `id`, as text.
fn ack_text(id: String) -> String {
    serde_json::to_string(&ServerMessage::Ack { id }).unwrap_or_default()
}

/// Joins `subscriber` to `table` (its id `id`) with `token`: the welcome,
/// the snapshot and the presence.
fn join(
    table: &Table,
    id: String,
    token: Option<&str>,
    subscriber: Subscriber,
) -> Result<Vec<ServerMessage>, ErrorCode> {
    let (role, player) = match token.and_then(|t| t.split_once('-')) {
        Some(("host", t)) if t == id => (Role::Player, Some(Player::Host)),
        Some(("guest", t)) if t == id => (Role::Player, Some(Player::Guest)),
        Some(("watch", t)) if t == id => (Role::Spectator, None),
        _ => return Err(ErrorCode::InvalidToken),
    };
    let (version, turn, spectators) = {
        let mut state = table.inner.lock().unwrap_or_else(PoisonError::into_inner);
        state.subscribers.push(subscriber);
        let spectators = state.subscribers.len().saturating_sub(2);
        (state.version, state.turn, spectators)
    };
    Ok(vec![
        ServerMessage::Welcome {
            protocol: PROTOCOL_VERSION,
            table: TableInfo {
                id,
                opponent: Opponent::Friend,
                level: None,
                variant: Variant::default(),
                clock: None,
                format: baghchal_protocol::Format::Single,
                series_games: None,
            },
            role,
            player,
            secret: None,
        },
        ServerMessage::Snapshot {
            version,
            moves: Vec::new(),
            state: canned(turn),
            boards: Vec::new(),
        },
        ServerMessage::Presence(presence(spectators)),
    ])
}

/// Plays `action` at `table`: its event goes to every subscriber, and to
/// a remote actor (`actor`: its node, socket and acknowledgement's text)
/// after its acknowledgement in one message. Returns the messages for the
/// nodes that hold subscribers.
fn act(
    table: &Table,
    action: String,
    actor: Option<(&async_nats::Subject, u64, &str)>,
) -> Vec<Outbound> {
    let mut outbound = Vec::new();
    let mut state = table.inner.lock().unwrap_or_else(PoisonError::into_inner);
    state.version += 1;
    let side = if state.turn.is_multiple_of(2) {
        Side::Goats
    } else {
        Side::Tigers
    };
    state.turn += 1;
    let event = ServerMessage::Event {
        version: state.version,
        board: None,
        event: TableEvent::Played { side, action },
        state: canned(state.turn),
    };
    // Encoded once, shared by every subscriber; a full outbox drops its
    // subscriber, as the table server does.
    if let Ok(text) = serde_json::to_string(&event) {
        let text = Utf8Bytes::from(text);
        state.subscribers.retain(|subscriber| match subscriber {
            Subscriber::Local(_, tx) => tx.try_send(text.clone()).is_ok(),
            Subscriber::Remote(holder, conn) => {
                let frames = match actor {
                    Some((at, by, ack)) if at == holder && by == *conn => {
                        cluster::frames(holder.clone(), *conn, &[ack, &text])
                    }
                    _ => cluster::frames(holder.clone(), *conn, &[&text]),
                };
                outbound.push(frames);
                true
            }
        });
    }
    drop(state);
    outbound
}

/// Removes a closed socket from its table, or tells the table's node.
async fn leave(conn: u64, joined: Option<Membership>) {
    match joined {
        Some((Joined::Local(table), _)) => table
            .inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .subscribers
            .retain(|subscriber| !matches!(subscriber, Subscriber::Local(c, _) if *c == conn)),
        Some((Joined::Remote { node, owner, table }, _)) => {
            node.release(conn);
            let ask = node.ask(&owner, Ask::Leave, conn, &table, b"");
            node.publish(vec![ask]).await;
        }
        None => {}
    }
}

/// Reads the messages for this node: asks from the nodes that hold the
/// sockets of its tables, and frames for the sockets it holds.
async fn serve_nodes(node: Arc<Node>, mut messages: async_nats::Subscriber, tables: Tables) {
    while let Some(message) = messages.next().await {
        let Some(incoming) = cluster::read(&message.payload) else {
            continue;
        };
        let outbound = match incoming {
            Incoming::Frames { conn, frames } => {
                node.deliver(conn, frames);
                continue;
            }
            Incoming::Asked {
                ask,
                holder,
                conn,
                table,
                body,
            } => asked(&node, &tables, ask, holder, conn, table, body),
        };
        node.publish(outbound).await;
    }
}

/// What the owner of `table` does for a holder's `ask` about its socket
/// `conn`.
fn asked(
    node: &Node,
    tables: &Tables,
    ask: Ask,
    holder: &str,
    conn: u64,
    table: &str,
    body: &[u8],
) -> Vec<Outbound> {
    let holder = node.subject_of(holder);
    let reply = |message: ServerMessage| {
        let text = serde_json::to_string(&message).unwrap_or_default();
        vec![cluster::frames(holder.clone(), conn, &[&text])]
    };
    let Some(found) = tables.get(table) else {
        return match ask {
            Ask::Leave => Vec::new(),
            Ask::Join | Ask::Act => reply(error(None, ErrorCode::UnknownTable)),
        };
    };
    match ask {
        Ask::Join => {
            let token = std::str::from_utf8(body).ok();
            let subscriber = Subscriber::Remote(holder.clone(), conn);
            match join(&found, table.to_owned(), token, subscriber) {
                Ok(replies) => {
                    let texts: Vec<String> = replies
                        .iter()
                        .filter_map(|reply| serde_json::to_string(reply).ok())
                        .collect();
                    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
                    vec![cluster::frames(holder.clone(), conn, &texts)]
                }
                Err(code) => reply(error(None, code)),
            }
        }
        Ask::Act => match serde_json::from_slice::<ClientMessage>(body) {
            Ok(ClientMessage::Action {
                id,
                action,
                board: None,
            }) => act(&found, action, Some((&holder, conn, &ack_text(id)))),
            Ok(ClientMessage::Ping) => reply(ServerMessage::Pong),
            Ok(_) => reply(error(None, ErrorCode::GameNotOver)),
            Err(_) => reply(error(None, ErrorCode::InvalidMessage)),
        },
        Ask::Leave => {
            found
                .inner
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .subscribers
                .retain(|subscriber| {
                    !matches!(subscriber, Subscriber::Remote(at, c) if *at == holder && *c == conn)
                });
            Vec::new()
        }
    }
}

fn error(id: Option<String>, code: ErrorCode) -> ServerMessage {
    ServerMessage::Error {
        id,
        code,
        reason: None,
        message: "refused by the ceiling server".to_owned(),
    }
}

fn presence(spectators: usize) -> Presence {
    let seat = |player| SeatView {
        player,
        computer: false,
        level: None,
        connected: true,
    };
    Presence {
        goats: seat(Player::Host),
        tigers: seat(Player::Guest),
        spectators: u32::try_from(spectators).unwrap_or(u32::MAX),
        spectator_seats: 12,
        absent: None,
    }
}

/// One of two fixed states of the same size as the table server's in the
/// placement phase: the opening (the goats place on any of 21 points) and
/// the tigers' answer to `c3` (12 moves). No rule decides them: `turn`
/// alternates between them.
fn canned(turn: u64) -> GameState {
    let goats = turn.is_multiple_of(2);
    let legal: Vec<String> = if goats {
        ('a'..='e')
            .flat_map(|file| (1..=5).map(move |rank| format!("{file}{rank}")))
            .filter(|square| !matches!(square.as_str(), "a1" | "a5" | "e1" | "e5"))
            .collect()
    } else {
        [
            "a1-a2", "a1-b1", "a1-b2", "a5-a4", "a5-b4", "a5-b5", "e1-d1", "e1-d2", "e1-e2",
            "e5-d4", "e5-d5", "e5-e4",
        ]
        .map(str::to_owned)
        .to_vec()
    };
    GameState {
        game: 1,
        position: if goats {
            "T...T/...../...../...../T...T g 20 0 0".to_owned()
        } else {
            "T...T/...../..G../...../T...T t 19 0 1".to_owned()
        },
        side_to_move: if goats { Side::Goats } else { Side::Tigers },
        phase: Phase::Placement,
        in_hand: if goats { 20 } else { 19 },
        eaten: 0,
        goats_to_win: 5,
        trapped_tigers: 0,
        tigers: 4,
        ply: u16::from(!goats),
        ply_limit: 400,
        legal: legal.into_iter().map(Into::into).collect(),
        last_action: (!goats).then(|| "c3".to_owned().into()),
        result: None,
        draw_offer: None,
        rematch_offer: None,
        host_side: Side::Goats,
        tally: Tally::default(),
        clock: None,
        abortable: goats,
        series: None,
        board: None,
        match_state: None,
    }
}
