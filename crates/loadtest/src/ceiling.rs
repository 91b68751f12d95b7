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
use futures_util::SinkExt;
use tokio::sync::mpsc;

/// Serve the protocol of the Bagh-Chal table server with no rules, no
/// storage and no actors: the ceiling the load benchmark compares with.
#[derive(Parser, Debug)]
#[command(name = "baghchal-ceiling", version, about)]
struct Args {
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1:0")]
    addr: SocketAddr,
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
        let listener = tokio::net::TcpListener::bind(args.addr).await?;
        println!("listening on http://{}", listener.local_addr()?);
        axum::serve(listener, app())
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
fn app() -> Router {
    Router::new()
        .route("/api/tables", post(create))
        .route("/ws", get(websocket))
        .layer(DefaultBodyLimit::max(MAX_FRAME_BYTES))
        .with_state(Tables::default())
}

/// Every table, by id.
#[derive(Clone, Default)]
struct Tables {
    inner: Arc<Mutex<HashMap<String, Arc<Table>>>>,
    next: Arc<AtomicU64>,
}

/// One table: a version, whose turn it is and the subscribers' outboxes.
#[derive(Default)]
struct Table {
    inner: Mutex<TableState>,
}

#[derive(Default)]
struct TableState {
    version: u64,
    /// Which canned state is current: the goats' turn (even) or the
    /// tigers' (odd).
    turn: u64,
    subscribers: Vec<(u64, mpsc::Sender<Utf8Bytes>)>,
}

/// `POST /api/tables`: a friend table, whatever was asked.
async fn create(State(tables): State<Tables>) -> Json<TableCreated> {
    let id = tables.next.fetch_add(1, Ordering::Relaxed).to_string();
    tables
        .inner
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(id.clone(), Arc::default());
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
    let mut joined: Option<(Arc<Table>, mpsc::Receiver<Utf8Bytes>)> = None;
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
                let replies = match serde_json::from_str::<ClientMessage>(&text) {
                    Ok(message) => handle(message, conn, &tables, &mut joined),
                    Err(_) => vec![error(None, ErrorCode::InvalidMessage)],
                };
                for reply in replies {
                    let Ok(text) = serde_json::to_string(&reply) else { break };
                    if socket.feed(Message::Text(text.into())).await.is_err() {
                        return leave(conn, joined);
                    }
                }
                if write_queued(&mut socket, &mut joined).await.is_err() {
                    break;
                }
            }
        }
    }
    leave(conn, joined);
}

/// Feeds what the outbox holds by now (up to the table server's eight
/// frames or 4 KiB) after what was fed already, and writes it all at once, as the
/// table server does.
async fn write_queued(
    socket: &mut WebSocket,
    joined: &mut Option<(Arc<Table>, mpsc::Receiver<Utf8Bytes>)>,
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

/// What one client message asks for: the replies to this socket. Events
/// go to every subscriber's outbox directly.
fn handle(
    message: ClientMessage,
    conn: u64,
    tables: &Tables,
    joined: &mut Option<(Arc<Table>, mpsc::Receiver<Utf8Bytes>)>,
) -> Vec<ServerMessage> {
    match (message, joined.as_ref()) {
        (ClientMessage::Hello { table, token, .. }, None) => {
            let found = tables
                .inner
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .get(&table)
                .cloned();
            let Some(found) = found else {
                return vec![error(None, ErrorCode::UnknownTable)];
            };
            let (role, player) = match token.as_deref().and_then(|t| t.split_once('-')) {
                Some(("host", t)) if t == table => (Role::Player, Some(Player::Host)),
                Some(("guest", t)) if t == table => (Role::Player, Some(Player::Guest)),
                Some(("watch", t)) if t == table => (Role::Spectator, None),
                _ => return vec![error(None, ErrorCode::InvalidToken)],
            };
            let (tx, rx) = mpsc::channel(OUTBOX_LEN);
            let (version, turn, spectators) = {
                let mut state = found.inner.lock().unwrap_or_else(PoisonError::into_inner);
                state.subscribers.push((conn, tx));
                let spectators = state.subscribers.len().saturating_sub(2);
                (state.version, state.turn, spectators)
            };
            *joined = Some((found, rx));
            vec![
                ServerMessage::Welcome {
                    protocol: PROTOCOL_VERSION,
                    table: TableInfo {
                        id: table,
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
            ]
        }
        (ClientMessage::Hello { .. }, Some(_)) => vec![error(None, ErrorCode::AlreadyJoined)],
        (ClientMessage::Ping, _) => vec![ServerMessage::Pong],
        (_, None) => vec![error(None, ErrorCode::NotJoined)],
        (
            ClientMessage::Action {
                id,
                action,
                board: None,
            },
            Some((table, _)),
        ) => {
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
            // Encoded once, shared by every subscriber; a full outbox
            // drops its subscriber, as the table server does.
            if let Ok(text) = serde_json::to_string(&event) {
                let text = Utf8Bytes::from(text);
                state
                    .subscribers
                    .retain(|(_, tx)| tx.try_send(text.clone()).is_ok());
            }
            drop(state);
            vec![ServerMessage::Ack { id }]
        }
        (_, Some(_)) => vec![error(None, ErrorCode::GameNotOver)],
    }
}

/// Removes a closed socket from its table.
fn leave(conn: u64, joined: Option<(Arc<Table>, mpsc::Receiver<Utf8Bytes>)>) {
    if let Some((table, _)) = joined {
        table
            .inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .subscribers
            .retain(|(c, _)| *c != conn);
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
