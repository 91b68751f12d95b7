//! A real server on port 0 with a fresh database, and real websocket and
//! HTTP clients for it.

use std::net::SocketAddr;
use std::num::NonZeroU32;
use std::path::PathBuf;
use std::time::Duration;

use baghchal_protocol::{ClientMessage, CreateTable, ErrorCode, ServerMessage, TableCreated};
use baghchal_server::client_limit::TableLimit;
use baghchal_server::table::Pace;
use baghchal_server::time::ManualClock;
use baghchal_server::ws::RateLimit;
use baghchal_server::Config;
use baghchal_table::time::Timestamp;
use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// How long a test waits for a message before it fails (a guard against
/// hanging, not a timing assertion).
pub const PATIENCE: Duration = Duration::from_secs(30);

/// A manual clock at an arbitrary start: 2026-12-01 21:30 UTC.
pub fn manual_clock() -> ManualClock {
    ManualClock::new(Timestamp::from_millis(1_796_160_600_000))
}

/// A database for one test: a fresh SQLite file, or a fresh PostgreSQL
/// database when `postgres` is set.
pub struct TestDb {
    pub url: String,
    file: Option<PathBuf>,
    admin: Option<(String, String)>,
}

impl TestDb {
    pub fn sqlite() -> TestDb {
        let mut bytes = [0u8; 8];
        getrandom::fill(&mut bytes).unwrap();
        let file =
            std::env::temp_dir().join(format!("baghchal-test-{}.db", u64::from_le_bytes(bytes)));
        TestDb {
            url: format!("sqlite://{}?mode=rwc", file.display()),
            file: Some(file),
            admin: None,
        }
    }

    /// A fresh PostgreSQL database, or `None` (with a note) when
    /// `BAGHCHAL_TEST_POSTGRES` is not set. When it is set, an unreachable
    /// server fails the test.
    pub async fn postgres() -> Option<TestDb> {
        let Ok(admin_url) = std::env::var("BAGHCHAL_TEST_POSTGRES") else {
            eprintln!("note: BAGHCHAL_TEST_POSTGRES is not set; skipping the PostgreSQL run");
            return None;
        };
        let mut bytes = [0u8; 8];
        getrandom::fill(&mut bytes).unwrap();
        let name = format!("baghchal_test_{:016x}", u64::from_le_bytes(bytes));
        let mut conn = <sqlx::PgConnection as sqlx::Connection>::connect(&admin_url)
            .await
            .expect("BAGHCHAL_TEST_POSTGRES is set but PostgreSQL does not answer");
        sqlx::query(&format!("CREATE DATABASE {name}"))
            .execute(&mut conn)
            .await
            .expect("creating a test database");
        let base = admin_url
            .rsplit_once('/')
            .map(|(base, _)| base.to_owned())
            .expect("a database URL with a database name");
        Some(TestDb {
            url: format!("{base}/{name}"),
            file: None,
            admin: Some((admin_url, name)),
        })
    }

    /// Drops the PostgreSQL database (the SQLite file goes on drop).
    pub async fn cleanup(&self) {
        if let Some((admin, name)) = &self.admin {
            if let Ok(mut conn) = <sqlx::PgConnection as sqlx::Connection>::connect(admin).await {
                let _ = sqlx::query(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                    .execute(&mut conn)
                    .await;
            }
        }
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        if let Some(file) = &self.file {
            for suffix in ["", "-wal", "-shm", "-events"] {
                let _ = std::fs::remove_file(format!("{}{suffix}", file.display()));
            }
        }
    }
}

/// A server running in this process.
pub struct TestServer {
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
}

/// The pace of tests: the computer answers at once.
pub fn quick_pace() -> Pace {
    Pace {
        computer_move: Duration::ZERO,
        bots_move: Duration::ZERO,
        bots_next_game: Duration::ZERO,
    }
}

impl TestServer {
    pub async fn start(db: &TestDb) -> TestServer {
        TestServer::start_with(TestServer::config(db)).await
    }

    /// The tests' configuration: the computer answers at once and the
    /// rate limit is out of the way.
    pub fn config(db: &TestDb) -> Config {
        let mut config = Config::new(db.url.clone(), "http://test.invalid");
        config.pace = quick_pace();
        config.bot_threads = 2;
        // Tests play fast; the flood test sets its own limit.
        config.rate = RateLimit {
            burst: NonZeroU32::new(100_000).unwrap(),
            per_second: NonZeroU32::new(100_000).unwrap(),
        };
        // Every test's tables come from 127.0.0.1.
        config.table_limit = TableLimit {
            burst: NonZeroU32::new(100_000).unwrap(),
            per_minute: NonZeroU32::new(100_000).unwrap(),
        };
        // And every socket; the tests of the limits set their own.
        config.limits.hello_burst = NonZeroU32::new(100_000).unwrap();
        config.limits.hellos_per_minute = NonZeroU32::new(100_000).unwrap();
        config.analysis_limit.burst = NonZeroU32::new(100_000).unwrap();
        config.read_limit.burst = NonZeroU32::new(100_000).unwrap();
        config.bots_limit.burst = NonZeroU32::new(100_000).unwrap();
        config
    }

    /// The tests' configuration with a wall clock that stands still until
    /// the test advances it.
    pub fn config_with_clock(db: &TestDb, clock: &ManualClock) -> Config {
        let mut config = TestServer::config(db);
        config.clock = std::sync::Arc::new(clock.clone());
        config
    }

    pub async fn start_with(config: Config) -> TestServer {
        TestServer::start_serving(config, None).await
    }

    /// A server with `/metrics` on `metrics` instead of its main address.
    pub async fn start_serving(config: Config, metrics: Option<TcpListener>) -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        TestServer::start_on(listener, config, metrics).await
    }

    /// A server on a listener made by the test.
    pub async fn start_on(
        listener: TcpListener,
        config: Config,
        metrics: Option<TcpListener>,
    ) -> TestServer {
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            baghchal_server::run_with_metrics(listener, metrics, config, async {
                let _ = stopped.await;
            })
            .await
            .expect("the server runs");
        });
        TestServer {
            addr,
            stop: Some(stop),
            task: Some(task),
        }
    }

    /// Stops the server gracefully and waits for it.
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            task.await.unwrap();
        }
    }

    pub async fn create(&self, request: &CreateTable) -> TableCreated {
        let (status, body) = self
            .post("/api/tables", &serde_json::to_string(request).unwrap())
            .await;
        assert_eq!(status, 201, "{body}");
        serde_json::from_str(&body).unwrap()
    }

    pub async fn post(&self, path: &str, body: &str) -> (u16, String) {
        http(self.addr, "POST", path, body).await
    }

    pub async fn get(&self, path: &str) -> (u16, String) {
        http(self.addr, "GET", path, "").await
    }

    pub async fn connect(&self) -> Client {
        Client::connect(self.addr).await
    }
}

/// A minimal HTTP/1.1 exchange with a JSON body.
pub async fn http(addr: SocketAddr, method: &str, path: &str, body: &str) -> (u16, String) {
    let (status, _, body) = http_with(
        addr,
        method,
        path,
        &[("Content-Type", "application/json")],
        body,
    )
    .await;
    (status, body)
}

/// A minimal HTTP/1.1 exchange with these request headers; returns the
/// status, the response's head (status line and headers) and its body.
pub async fn http_with(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String, String) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let headers: String = headers
        .iter()
        .map(|(name, value)| format!("{name}: {value}\r\n"))
        .collect();
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\n{headers}\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    tokio::time::timeout(PATIENCE, stream.read_to_end(&mut response))
        .await
        .expect("an HTTP answer")
        .unwrap();
    let split = response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a response head");
    let head = String::from_utf8_lossy(&response[..split]).into_owned();
    let rest = &response[split + 4..];
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let chunked = head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked");
    let body = if chunked {
        dechunk(rest)
    } else {
        rest.to_vec()
    };
    // A compressed body is not text; it is shown lossily.
    (status, head, String::from_utf8_lossy(&body).into_owned())
}

/// A minimal HTTP/1.1 exchange with a JSON body, with the answer's head
/// (lowercased).
pub async fn http_with_head(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: &str,
) -> (u16, String, String) {
    let (status, head, body) = http_with(
        addr,
        method,
        path,
        &[("Content-Type", "application/json")],
        body,
    )
    .await;
    (status, head.to_ascii_lowercase(), body)
}

fn dechunk(mut bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(line) = bytes.windows(2).position(|w| w == b"\r\n") {
        let size = std::str::from_utf8(&bytes[..line])
            .ok()
            .and_then(|s| usize::from_str_radix(s.trim(), 16).ok())
            .unwrap_or(0);
        let rest = &bytes[line + 2..];
        if size == 0 || rest.len() < size {
            break;
        }
        out.extend_from_slice(&rest[..size]);
        bytes = rest[size..].strip_prefix(b"\r\n").unwrap_or(&rest[size..]);
    }
    out
}

/// The token in a link's fragment.
pub fn token_of(link: &str) -> String {
    link.rsplit_once('=').unwrap().1.to_owned()
}

/// The token of a created table's spectator link.
pub fn spectator_token(created: &TableCreated) -> String {
    token_of(created.spectator_link.as_deref().unwrap())
}

/// The token of a created table's opponent link.
pub fn opponent_token(created: &TableCreated) -> String {
    token_of(created.opponent_link.as_deref().unwrap())
}

/// A websocket client that records every frame it receives.
pub struct Client {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    /// Every text frame received, in order.
    pub frames: Vec<String>,
    /// The last version seen.
    pub version: u64,
    next_id: u64,
}

/// What the socket did instead of sending a message.
#[derive(Debug)]
pub enum Closed {
    /// A close frame.
    Frame(Option<CloseFrame>),
    /// The connection ended without one.
    Ended,
}

impl Client {
    pub async fn connect(addr: SocketAddr) -> Client {
        let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws"))
            .await
            .unwrap();
        Client {
            ws,
            frames: Vec::new(),
            version: 0,
            next_id: 1,
        }
    }

    /// A websocket whose upgrade request carries `cookie` (a browser's
    /// session).
    pub async fn connect_with_cookie(addr: SocketAddr, cookie: &str) -> Client {
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        let mut request = format!("ws://{addr}/ws").into_client_request().unwrap();
        request
            .headers_mut()
            .insert("Cookie", cookie.parse().unwrap());
        let (ws, _) = tokio_tungstenite::connect_async(request).await.unwrap();
        Client {
            ws,
            frames: Vec::new(),
            version: 0,
            next_id: 1,
        }
    }

    /// A websocket over a TCP connection made by the test.
    pub async fn over(stream: TcpStream, addr: SocketAddr) -> Client {
        let (ws, _) = tokio_tungstenite::client_async(
            format!("ws://{addr}/ws"),
            MaybeTlsStream::Plain(stream),
        )
        .await
        .unwrap();
        Client {
            ws,
            frames: Vec::new(),
            version: 0,
            next_id: 1,
        }
    }

    pub async fn send(&mut self, message: &ClientMessage) {
        self.send_raw(Message::text(serde_json::to_string(message).unwrap()))
            .await;
    }

    pub async fn send_raw(&mut self, message: Message) {
        self.ws.send(message).await.unwrap();
    }

    /// Queues a message without flushing it (see [`Client::flush`]). A
    /// server that closed meanwhile is not an error here.
    pub async fn feed_raw(&mut self, message: Message) {
        let _ = self.ws.feed(message).await;
    }

    /// Sends what [`Client::feed_raw`] queued.
    pub async fn flush(&mut self) {
        let _ = self.ws.flush().await;
    }

    /// The next message; panics on a close.
    pub async fn recv(&mut self) -> ServerMessage {
        match self.next().await {
            Ok(message) => message,
            Err(closed) => panic!("the socket closed: {closed:?}"),
        }
    }

    /// The next message, or how the socket closed.
    pub async fn next(&mut self) -> Result<ServerMessage, Closed> {
        loop {
            let frame = tokio::time::timeout(PATIENCE, self.ws.next())
                .await
                .expect("a message from the server");
            match frame {
                Some(Ok(Message::Text(text))) => {
                    self.frames.push(text.to_string());
                    let message: ServerMessage = serde_json::from_str(&text)
                        .unwrap_or_else(|e| panic!("unreadable message {text}: {e}"));
                    if let ServerMessage::Event { version, .. }
                    | ServerMessage::Snapshot { version, .. } = &message
                    {
                        self.version = *version;
                    }
                    return Ok(message);
                }
                Some(Ok(Message::Close(frame))) => return Err(Closed::Frame(frame)),
                Some(Ok(_)) => continue,
                Some(Err(_)) | None => return Err(Closed::Ended),
            }
        }
    }

    /// Waits for the server's next websocket ping, answering it (the
    /// messages before it are kept in `frames`); panics on a close.
    pub async fn server_ping(&mut self) {
        loop {
            let frame = tokio::time::timeout(PATIENCE, self.ws.next())
                .await
                .expect("a ping from the server");
            match frame {
                Some(Ok(Message::Ping(_))) => return,
                Some(Ok(Message::Text(text))) => self.frames.push(text.to_string()),
                Some(Ok(Message::Close(frame))) => panic!("the socket closed: {frame:?}"),
                Some(Ok(_)) => {}
                other => panic!("the socket ended: {other:?}"),
            }
        }
    }

    /// Receives until `pick` returns something, skipping other messages.
    pub async fn until<T>(&mut self, mut pick: impl FnMut(&ServerMessage) -> Option<T>) -> T {
        loop {
            let message = self.recv().await;
            if let Some(found) = pick(&message) {
                return found;
            }
        }
    }

    /// Says hello and reads `welcome`, the state and `presence`.
    pub async fn hello(&mut self, table: &str, token: &str, since: Option<u64>) -> Joined {
        self.send(&ClientMessage::Hello {
            table: table.into(),
            token: Some(token.into()),
            since,
        })
        .await;
        let welcome = self.recv().await;
        assert!(
            matches!(welcome, ServerMessage::Welcome { .. }),
            "expected welcome, got {welcome:?}"
        );
        let mut replay = Vec::new();
        loop {
            match self.recv().await {
                ServerMessage::Presence(_) => break,
                other => replay.push(other),
            }
        }
        Joined { welcome, replay }
    }

    /// Goes on with the action ids of an earlier socket of the same seat,
    /// so that this one repeats none the server already accepted.
    pub fn continue_ids(&mut self, earlier: &Client) {
        self.next_id = self.next_id.max(earlier.next_id);
    }

    /// Sends an action with a fresh id and returns the id.
    pub async fn play(&mut self, action: &str) -> String {
        self.play_on(None, action).await
    }

    /// Sends an action on `board` (of a two-board table) with a fresh id
    /// and returns the id.
    pub async fn play_on(&mut self, board: Option<u8>, action: &str) -> String {
        let id = self.next_id.to_string();
        self.next_id += 1;
        self.send(&ClientMessage::Action {
            id: id.clone(),
            action: action.into(),
            board,
        })
        .await;
        id
    }

    /// Sends an action and waits for its ack.
    pub async fn play_acked(&mut self, action: &str) {
        self.play_acked_on(None, action).await;
    }

    /// Sends an action on `board` and waits for its ack.
    pub async fn play_acked_on(&mut self, board: Option<u8>, action: &str) {
        let id = self.play_on(board, action).await;
        self.until(|m| match m {
            ServerMessage::Ack { id: acked } if *acked == id => Some(()),
            ServerMessage::Error { id: Some(e), .. } if *e == id => {
                panic!("{action} refused: {m:?}")
            }
            _ => None,
        })
        .await;
    }

    /// The version the event after the last ack will carry: the ack comes
    /// before its event, so it is one more than the last version seen.
    pub fn version_after_ack(&self) -> u64 {
        self.version + 1
    }

    /// Waits for the event at `version` and returns its state.
    pub async fn event_at(&mut self, version: u64) -> baghchal_protocol::GameState {
        self.until(|m| match m {
            ServerMessage::Event {
                version: v, state, ..
            } if *v == version => Some(state.clone()),
            _ => None,
        })
        .await
    }

    /// The next error message.
    pub async fn error(&mut self) -> ServerMessage {
        self.until(|m| matches!(m, ServerMessage::Error { .. }).then(|| m.clone()))
            .await
    }

    /// Sends a ping and returns every message received before the pong:
    /// a barrier that proves the server has handled what came before.
    pub async fn sync(&mut self) -> Vec<ServerMessage> {
        self.send(&ClientMessage::Ping).await;
        let mut seen = Vec::new();
        loop {
            match self.recv().await {
                ServerMessage::Pong => return seen,
                other => seen.push(other),
            }
        }
    }

    /// The next presence message.
    pub async fn presence(&mut self) -> baghchal_protocol::Presence {
        self.until(|m| match m {
            ServerMessage::Presence(p) => Some(p.clone()),
            _ => None,
        })
        .await
    }

    /// Sends a command and returns the error it got, or `None` once the
    /// server has answered everything before a barrier without one.
    pub async fn refused(&mut self, message: &ClientMessage) -> Option<ServerMessage> {
        self.send(message).await;
        self.sync()
            .await
            .into_iter()
            .find(|m| matches!(m, ServerMessage::Error { .. }))
    }

    /// Sends a command and returns the code of the error it got, or
    /// `None` when it was not refused.
    pub async fn refusal(&mut self, message: &ClientMessage) -> Option<ErrorCode> {
        match self.refused(message).await {
            Some(ServerMessage::Error { code, .. }) => Some(code),
            _ => None,
        }
    }

    pub async fn close(mut self) {
        let _ = self.ws.close(None).await;
    }
}

/// What `hello` brought.
#[derive(Debug)]
pub struct Joined {
    pub welcome: ServerMessage,
    /// The snapshot, or the missed events.
    pub replay: Vec<ServerMessage>,
}

impl Joined {
    pub fn secret(&self) -> Option<String> {
        match &self.welcome {
            ServerMessage::Welcome { secret, .. } => secret.clone(),
            _ => None,
        }
    }

    pub fn snapshot(&self) -> Option<(u64, Vec<String>, baghchal_protocol::GameState)> {
        self.replay.iter().find_map(|m| match m {
            ServerMessage::Snapshot {
                version,
                moves,
                state,
                ..
            } => Some((*version, moves.clone(), state.clone())),
            _ => None,
        })
    }
}

/// A JSON value's field, for quick checks.
pub fn field<'a>(value: &'a Value, name: &str) -> &'a Value {
    &value[name]
}

/// Declares a scenario's tests: on SQLite always, on PostgreSQL when
/// `BAGHCHAL_TEST_POSTGRES` is set (the build script then sets the
/// `test_postgres` cfg; without it the PostgreSQL variant is ignored).
#[macro_export]
macro_rules! on_both {
    ($scenario:ident) => {
        mod $scenario {
            #[tokio::test]
            async fn on_sqlite() {
                let db = $crate::common::TestDb::sqlite();
                super::$scenario(&db).await;
            }

            #[tokio::test]
            #[cfg_attr(
                not(test_postgres),
                ignore = "BAGHCHAL_TEST_POSTGRES was not set when the tests were built"
            )]
            async fn on_postgres() {
                let db = $crate::common::TestDb::postgres()
                    .await
                    .expect("BAGHCHAL_TEST_POSTGRES names the PostgreSQL server");
                super::$scenario(&db).await;
                db.cleanup().await;
            }
        }
    };
}

/// A table request.
pub fn request(opponent: baghchal_protocol::Opponent, spectators: u8) -> CreateTable {
    CreateTable {
        opponent,
        side: baghchal_protocol::Side::Goats,
        level: None,
        spectators,
        variant: baghchal_protocol::Variant::default(),
        clock: None,
        format: baghchal_protocol::Format::Single,
        series_games: None,
    }
}

/// A friend table with both players seated.
pub struct Seated {
    pub created: TableCreated,
    pub host: Client,
    pub guest: Client,
    /// The guest's seat secret.
    pub guest_secret: String,
    /// The host's welcome.
    pub host_welcome: ServerMessage,
}

impl Seated {
    pub async fn new(server: &TestServer, request: &CreateTable) -> Seated {
        let created = server.create(request).await;
        let mut host = server.connect().await;
        let host_welcome = host
            .hello(&created.table, created.secret.as_deref().unwrap(), None)
            .await
            .welcome;
        let mut guest = server.connect().await;
        let joined = guest
            .hello(&created.table, &opponent_token(&created), None)
            .await;
        let guest_secret = joined.secret().expect("the claimer gets a secret");
        Seated {
            created,
            host,
            guest,
            guest_secret,
            host_welcome,
        }
    }

    /// The time control the host's welcome announced.
    pub fn welcome_clock(&self) -> Option<baghchal_protocol::TimeControl> {
        match &self.host_welcome {
            ServerMessage::Welcome { table, .. } => table.clock,
            _ => None,
        }
    }

    pub fn table(&self) -> &str {
        &self.created.table
    }

    /// Plays `moves` in turn from the start of a game where the host holds
    /// the side that moves first; returns the last state.
    pub async fn play_out(&mut self, moves: &[&str]) -> baghchal_protocol::GameState {
        self.play_out_from(0, moves).await
    }

    /// Plays `moves` in turn after `played` actions of a game where the
    /// host moved first; returns the last state.
    pub async fn play_out_from(
        &mut self,
        played: usize,
        moves: &[&str],
    ) -> baghchal_protocol::GameState {
        let mut state = None;
        for (i, action) in moves.iter().enumerate() {
            let mover = if (played + i).is_multiple_of(2) {
                &mut self.host
            } else {
                &mut self.guest
            };
            mover.play_acked(action).await;
            let version = mover.version_after_ack();
            state = Some(mover.event_at(version).await);
        }
        state.expect("at least one move")
    }
}
