//! The server's own limits: the most tables open at once, the bots tables
//! an address may create and the most open at once, and a consumer too
//! slow for its table.

use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use baghchal_engine::Level;
use baghchal_protocol::{ApiError, ApiErrorCode, Opponent, ServerMessage};
use baghchal_rules::{Action, Position};
use baghchal_server::bot::Bot;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::tungstenite::Message;

use crate::common::{
    http_with_head, request, spectator_token, Client, Closed, TestDb, TestServer, PATIENCE,
};
use crate::on_both;

async fn past_the_open_table_limit_a_new_table_is_refused_with_503(db: &TestDb) {
    let mut config = TestServer::config(db);
    config.max_tables = 2;
    let server = TestServer::start_with(config).await;
    let body = serde_json::to_string(&request(Opponent::Friend, 0)).unwrap();
    for _ in 0..2 {
        assert_eq!(server.post("/api/tables", &body).await.0, 201);
    }
    let (status, answer) = server.post("/api/tables", &body).await;
    assert_eq!(status, 503, "{answer}");
    let error: ApiError = serde_json::from_str(&answer).unwrap();
    assert_eq!(error.error, ApiErrorCode::Unavailable);
    assert!(error.message.contains("full"), "{}", error.message);
    server.stop().await;
}
on_both!(past_the_open_table_limit_a_new_table_is_refused_with_503);

/// A creation whose client goes away before the answer still ends: its
/// table is stored and opened (and, nobody joining it, unloaded), rather
/// than left half made with its place among the open tables kept for
/// ever. PostgreSQL only: the test holds the creation's insert back with
/// a lock on `tables`.
#[tokio::test]
async fn a_creation_whose_client_goes_away_keeps_no_place_among_the_open_tables() {
    let Some(db) = TestDb::postgres().await else {
        return;
    };
    let mut config = TestServer::config(&db);
    config.max_tables = 1;
    config.idle_timeout = Duration::from_millis(200);
    let server = TestServer::start_with(config).await;
    // Served: the database's tables are made.
    assert_eq!(server.get("/healthz").await.0, 200);
    let mut locker = <sqlx::PgConnection as sqlx::Connection>::connect(&db.url)
        .await
        .unwrap();
    sqlx::query("BEGIN").execute(&mut locker).await.unwrap();
    sqlx::query("LOCK TABLE tables IN EXCLUSIVE MODE")
        .execute(&mut locker)
        .await
        .unwrap();
    // The request is sent, and its client goes away while the insert waits.
    let body = serde_json::to_string(&request(Opponent::Friend, 0)).unwrap();
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    let head = format!(
        "POST /api/tables HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{body}",
        server.addr,
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut watcher = <sqlx::PgConnection as sqlx::Connection>::connect(&db.url)
        .await
        .unwrap();
    tokio::time::timeout(PATIENCE, async {
        let waiting = "SELECT count(*) FROM pg_stat_activity \
                       WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO tables%'";
        while sqlx::query_scalar::<_, i64>(waiting)
            .fetch_one(&mut watcher)
            .await
            .unwrap()
            == 0
        {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the creation's insert waits for the lock");
    // The client goes away. The server closes the connection unanswered:
    // it dropped the request, with the creation inside it.
    stream.shutdown().await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(PATIENCE, stream.read_to_end(&mut answer))
        .await
        .expect("the server closes the connection")
        .unwrap();
    assert!(answer.is_empty(), "{}", String::from_utf8_lossy(&answer));
    sqlx::query("ROLLBACK").execute(&mut locker).await.unwrap();
    // Its table opens and unloads: the one place is free again.
    let created = tokio::time::timeout(PATIENCE, async {
        loop {
            if server.post("/api/tables", &body).await.0 == 201 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    assert!(created.is_ok(), "the server stayed full");
    server.stop().await;
    db.cleanup().await;
}

async fn past_its_read_budget_an_address_gets_429_for_api_reads_only(db: &TestDb) {
    let mut config = TestServer::config(db);
    config.read_limit = baghchal_server::client_limit::ReadLimit {
        burst: NonZeroU32::new(3).unwrap(),
        per_second: NonZeroU32::MIN,
    };
    let server = TestServer::start_with(config).await;
    for _ in 0..3 {
        assert_eq!(server.get("/api/lobby").await.0, 200);
    }
    let (status, head, answer) = http_with_head(server.addr, "GET", "/api/lobby", "").await;
    assert_eq!(status, 429, "{answer}");
    let error: ApiError = serde_json::from_str(&answer).unwrap();
    assert_eq!(error.error, ApiErrorCode::RateLimited);
    assert!(head.to_ascii_lowercase().contains("retry-after:"), "{head}");
    // Every API read counts; the page and writes do not.
    assert_eq!(server.get("/api/leaderboard/blitz").await.0, 429);
    assert_eq!(server.get("/").await.0, 200);
    assert_eq!(server.get("/healthz").await.0, 200);
    let body = serde_json::to_string(&request(Opponent::Friend, 0)).unwrap();
    assert_eq!(server.post("/api/tables", &body).await.0, 201);
    server.stop().await;
}
on_both!(past_its_read_budget_an_address_gets_429_for_api_reads_only);

/// The server's `baghchal_bots_tables_refused_total{reason}` (the
/// counters are the process's: other tests may add to them).
async fn bots_refused(server: &TestServer, reason: &str) -> f64 {
    let (status, body) = server.get("/metrics").await;
    assert_eq!(status, 200, "{body}");
    let name = format!("baghchal_bots_tables_refused_total{{reason=\"{reason}\"}} ");
    body.lines()
        .find_map(|line| line.strip_prefix(name.as_str()))
        .and_then(|value| value.trim().parse().ok())
        .unwrap_or(0.0)
}

async fn bots_tables_from_one_address_are_capped_and_other_tables_still_made(db: &TestDb) {
    let mut config = TestServer::config(db);
    config.bots_limit.burst = NonZeroU32::new(2).unwrap();
    config.bots_limit.per_hour = NonZeroU32::MIN;
    let server = TestServer::start_with(config).await;
    let bots = serde_json::to_string(&request(Opponent::Bots, 2)).unwrap();
    for _ in 0..2 {
        assert_eq!(server.post("/api/tables", &bots).await.0, 201);
    }
    let before = bots_refused(&server, "address").await;
    let (status, answer) = server.post("/api/tables", &bots).await;
    assert_eq!(status, 429, "{answer}");
    let error: ApiError = serde_json::from_str(&answer).unwrap();
    assert_eq!(error.error, ApiErrorCode::RateLimited);
    assert!(bots_refused(&server, "address").await > before);
    // The address's other tables are not bots tables: still made.
    let friend = serde_json::to_string(&request(Opponent::Friend, 0)).unwrap();
    assert_eq!(server.post("/api/tables", &friend).await.0, 201);
    server.stop().await;
}
on_both!(bots_tables_from_one_address_are_capped_and_other_tables_still_made);

async fn past_the_open_bots_tables_cap_a_new_one_is_refused_with_503(db: &TestDb) {
    let mut config = TestServer::config(db);
    config.bots_limit.max_open = 2;
    let server = TestServer::start_with(config).await;
    let bots = serde_json::to_string(&request(Opponent::Bots, 2)).unwrap();
    for _ in 0..2 {
        assert_eq!(server.post("/api/tables", &bots).await.0, 201);
    }
    let before = bots_refused(&server, "total").await;
    let (status, answer) = server.post("/api/tables", &bots).await;
    assert_eq!(status, 503, "{answer}");
    let error: ApiError = serde_json::from_str(&answer).unwrap();
    assert_eq!(error.error, ApiErrorCode::Unavailable);
    assert!(
        error.message.contains("computer-against-computer"),
        "{}",
        error.message
    );
    assert!(bots_refused(&server, "total").await > before);
    let friend = serde_json::to_string(&request(Opponent::Friend, 0)).unwrap();
    assert_eq!(server.post("/api/tables", &friend).await.0, 201);
    server.stop().await;
}
on_both!(past_the_open_bots_tables_cap_a_new_one_is_refused_with_503);

/// The computer at once: the first legal action.
struct Hasty;

impl Bot for Hasty {
    fn choose(&self, position: &Position, _: Level, _: u64) -> Option<Action> {
        position.legal_actions().into_iter().next()
    }
}

/// A websocket whose receive buffer is as small as the system allows, so
/// that a client that stops reading soon holds up the server's writes.
async fn cramped_client(server: &TestServer) -> Client {
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(1024).unwrap();
    let stream = socket.connect(server.addr).await.unwrap();
    Client::over(stream, server.addr).await
}

// On SQLite only: what it checks is the table's and the socket's, and
// filling the socket's buffers takes thousands of commits.
#[tokio::test]
async fn a_spectator_that_stops_reading_is_closed_with_4001_while_play_goes_on() {
    let db = TestDb::sqlite();
    let mut config = TestServer::config(&db);
    config.bot = Arc::new(Hasty);
    // The server's sockets get small send buffers too (accepted sockets
    // inherit the listener's), so that a few hundred events fill them.
    let listener = TcpSocket::new_v4().unwrap();
    listener.set_send_buffer_size(4096).unwrap();
    listener.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let server = TestServer::start_on(listener.listen(64).unwrap(), config, None).await;
    // The computer on both seats plays on, game after game.
    let created = server.create(&request(Opponent::Bots, 2)).await;
    let watch = spectator_token(&created);
    let mut reader = server.connect().await;
    reader.hello(&created.table, &watch, None).await;
    let mut idle = cramped_client(&server).await;
    idle.send_raw(Message::text(
        serde_json::json!({"type": "hello", "table": created.table, "token": watch}).to_string(),
    ))
    .await;
    // The idle spectator reads nothing; the reader sees the gallery go
    // from two to one when the table drops the idle one.
    let mut seen_two = false;
    reader
        .until(|m| match m {
            ServerMessage::Presence(p) if p.spectators == 2 => {
                seen_two = true;
                None
            }
            ServerMessage::Presence(p) if seen_two && p.spectators == 1 => Some(()),
            _ => None,
        })
        .await;
    // What the idle one finds when it reads at last: what was queued,
    // then the close.
    loop {
        match idle.next().await {
            Ok(_) => {}
            Err(Closed::Frame(Some(frame))) => {
                assert_eq!(u16::from(frame.code), 4001);
                assert_eq!(frame.reason.as_str(), "too slow");
                break;
            }
            Err(other) => panic!("expected the 4001 close, got {other:?}"),
        }
    }
    server.stop().await;
}
