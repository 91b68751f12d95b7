//! What the tests that run the `baghchal` binary share: a server process
//! on a free loopback port, tables created over HTTP, and websockets to
//! them. A cluster's set-up and its playing client are in [`cluster`];
//! private NATS and PostgreSQL servers and a TCP proxy that can be cut, in
//! [`services`].

// Each test binary that includes this module uses a part of it.
#![allow(dead_code)]

pub mod cluster;
pub mod services;

use std::process::Stdio;
use std::time::Duration;

use baghchal_protocol::{ClientMessage, ServerMessage, TableCreated};
use futures_util::{SinkExt, StreamExt};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::process::{Child, Command};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// A guard against hanging, not a timing assertion.
pub const PATIENCE: Duration = Duration::from_secs(90);

/// The server binary, running.
pub struct Server {
    pub child: Child,
    pub addr: String,
}

impl Server {
    /// The binary with `args`, on a free loopback port, without a
    /// tablebase and with the sockets' rate limits lifted, not yet started.
    /// `BAGHCHAL_TEST_LOG` sets its log filter (`warn` by default).
    pub fn command(args: &[&str]) -> Command {
        let log = std::env::var("BAGHCHAL_TEST_LOG").unwrap_or_else(|_| "warn".into());
        let mut command = Command::new(env!("CARGO_BIN_EXE_baghchal"));
        command
            .args(["--addr", "127.0.0.1:0", "--log", &log, "--no-tablebase"])
            .args(args)
            .env("BAGHCHAL_WS_RATE", "100000")
            .env("BAGHCHAL_WS_BURST", "100000")
            .env("BAGHCHAL_HELLO_BURST", "100000")
            .env("BAGHCHAL_HELLOS_PER_MINUTE", "100000")
            .env("BAGHCHAL_NEW_PLAYER_BURST", "100000")
            .env("BAGHCHAL_READ_BURST", "100000")
            .env("BAGHCHAL_SIGNUP_BURST", "100000");
        command
    }

    /// Starts [`Server::command`] with `args`; returns once it listens.
    pub async fn start(args: &[&str]) -> Server {
        Server::spawn(Server::command(args)).await
    }

    /// Starts `command` (the binary, set up by the caller); returns once it
    /// prints the address it listens on.
    pub async fn spawn(mut command: Command) -> Server {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .expect("the baghchal binary starts");
        let stdout = child.stdout.take().unwrap();
        let mut lines = BufReader::new(stdout).lines();
        let line = tokio::time::timeout(PATIENCE, lines.next_line())
            .await
            .expect("the server prints its address")
            .unwrap()
            .expect("a line on stdout");
        let addr = line
            .strip_prefix("listening on http://")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .to_owned();
        Server { child, addr }
    }

    /// SIGKILL: no graceful anything.
    pub async fn kill(&mut self) {
        self.child.kill().await.unwrap();
    }

    /// Sends `signal` (`STOP`, `CONT`, ...) to the process.
    pub async fn signal(&self, signal: &str) {
        let pid = self.child.id().expect("a running server").to_string();
        let status = Command::new("kill")
            .args([&format!("-{signal}"), &pid])
            .status()
            .await
            .unwrap();
        assert!(status.success());
    }

    /// Sends one raw HTTP/1.1 `request` and returns the answer's head and
    /// body.
    async fn http(&self, request: &str) -> (String, String) {
        http(&self.addr, request).await
    }

    /// `GET path`: the answer's head and body.
    pub async fn get(&self, path: &str) -> (String, String) {
        self.http(&format!(
            "GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            self.addr
        ))
        .await
    }

    /// `POST /api/tables` with `body`; the table must be created.
    pub async fn create(&self, body: &serde_json::Value) -> TableCreated {
        let body = body.to_string();
        let (head, body) = self
            .http(&format!(
                "POST /api/tables HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
                 Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                self.addr,
                body.len()
            ))
            .await;
        assert!(head.starts_with("HTTP/1.1 201"), "{head}\n{body}");
        serde_json::from_str(&body).unwrap()
    }

    /// The body of `GET /metrics`.
    pub async fn metrics(&self) -> String {
        self.get("/metrics").await.1
    }
}

pub type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// Sends one raw HTTP/1.1 `request` to `addr` and returns the answer's
/// head and body.
pub async fn http(addr: &str, request: &str) -> (String, String) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    tokio::time::timeout(PATIENCE, stream.read_to_end(&mut response))
        .await
        .expect("an answer")
        .unwrap();
    let response = String::from_utf8_lossy(&response).into_owned();
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    (head.to_owned(), body.to_owned())
}

/// A websocket to the server at `addr`, or `None` if it does not answer.
pub async fn connect(addr: &str) -> Option<Ws> {
    let connecting = tokio_tungstenite::connect_async(format!("ws://{addr}/ws"));
    let (ws, _) = tokio::time::timeout(Duration::from_secs(10), connecting)
        .await
        .ok()?
        .ok()?;
    Some(ws)
}

pub async fn send(ws: &mut Ws, message: &ClientMessage) -> bool {
    ws.send(Message::text(serde_json::to_string(message).unwrap()))
        .await
        .is_ok()
}

/// The next message, or `None` once the connection is gone.
pub async fn recv(ws: &mut Ws) -> Option<ServerMessage> {
    loop {
        match ws.next().await? {
            Ok(Message::Text(text)) => return Some(serde_json::from_str(&text).unwrap()),
            Ok(Message::Close(_)) | Err(_) => return None,
            Ok(_) => {}
        }
    }
}

/// The next message, or once the connection is gone the code of the
/// close frame the server sent (`None` without one).
pub async fn recv_or_close(ws: &mut Ws) -> Result<ServerMessage, Option<u16>> {
    loop {
        match ws.next().await {
            Some(Ok(Message::Text(text))) => return Ok(serde_json::from_str(&text).unwrap()),
            Some(Ok(Message::Close(frame))) => return Err(frame.map(|f| u16::from(f.code))),
            Some(Err(_)) | None => return Err(None),
            Some(Ok(_)) => {}
        }
    }
}

/// The token in a link's fragment.
pub fn token_of(link: &str) -> String {
    link.rsplit_once('=').unwrap().1.to_owned()
}

/// Claims the opponent seat through `addr` and returns the guest's secret.
pub async fn claim(addr: &str, created: &TableCreated) -> String {
    let mut ws = connect(addr).await.expect("a socket");
    let hello = ClientMessage::Hello {
        table: created.table.clone(),
        token: Some(token_of(created.opponent_link.as_deref().unwrap())),
        since: None,
    };
    assert!(send(&mut ws, &hello).await);
    match recv(&mut ws).await {
        Some(ServerMessage::Welcome {
            secret: Some(secret),
            ..
        }) => secret,
        other => panic!("the claim gives a secret, not {other:?}"),
    }
}

/// A fresh name for a database or a cluster: `prefix` and 16 hex digits.
pub fn unique(prefix: &str) -> String {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).unwrap();
    format!("{prefix}{:016x}", u64::from_le_bytes(bytes))
}

/// The rows `sql`, whose one parameter is a table's id, selects from the
/// database at `database_url`, SQLite or PostgreSQL.
pub async fn table_rows<T>(database_url: &str, sql: &str, table: &str) -> Vec<T>
where
    T: for<'r> sqlx::FromRow<'r, sqlx::sqlite::SqliteRow>
        + for<'r> sqlx::FromRow<'r, sqlx::postgres::PgRow>
        + Send
        + Unpin,
{
    if database_url.starts_with("sqlite:") {
        let pool = sqlx::SqlitePool::connect(database_url).await.unwrap();
        let rows = sqlx::query_as(sql)
            .bind(table)
            .fetch_all(&pool)
            .await
            .unwrap();
        pool.close().await;
        rows
    } else {
        let pool = sqlx::PgPool::connect(database_url).await.unwrap();
        let rows = sqlx::query_as(sql)
            .bind(table)
            .fetch_all(&pool)
            .await
            .unwrap();
        pool.close().await;
        rows
    }
}
