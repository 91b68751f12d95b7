//! What one address may hold open, and for how long: the caps on
//! connections and websockets, the deadline of a request's headers and of
//! an idle connection, the deadline of `hello`, the `hello` budget and the
//! control frames' budget. Each refusal shows in `/metrics`.

use std::net::SocketAddr;
use std::num::NonZeroU32;
use std::time::Duration;

use baghchal_protocol::{ClientMessage, ErrorCode, ServerMessage};
use baghchal_server::Config;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_tungstenite::tungstenite::{self, Message};

use crate::common::*;

/// A server with its `/metrics` on a second address (so that reading
/// them takes no place from the address under test), and that address.
async fn start(config: Config) -> (TestServer, SocketAddr) {
    let metrics = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let metrics_addr = metrics.local_addr().unwrap();
    (
        TestServer::start_serving(config, Some(metrics)).await,
        metrics_addr,
    )
}

/// The value of the `/metrics` line that starts with `series`, if any.
async fn metric(metrics: SocketAddr, series: &str) -> Option<f64> {
    let (status, text) = http(metrics, "GET", "/metrics", "").await;
    assert_eq!(status, 200);
    text.lines()
        .find_map(|line| line.strip_prefix(series))
        .and_then(|rest| rest.trim().parse().ok())
}

/// An HTTP/1.1 connection that has sent a whole request and read its
/// answer's head: the server holds it open for the next request.
async fn held_connection(addr: SocketAddr) -> TcpStream {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(format!("GET /healthz HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes())
        .await
        .unwrap();
    let mut head = [0u8; 12];
    tokio::time::timeout(PATIENCE, stream.read_exact(&mut head))
        .await
        .expect("an answer")
        .unwrap();
    assert_eq!(&head, b"HTTP/1.1 200");
    stream
}

/// Reads until the server closes the connection; fails the test if it
/// never does.
async fn closed_by_server(stream: &mut TcpStream) -> Vec<u8> {
    let mut read = Vec::new();
    let ended = tokio::time::timeout(PATIENCE, stream.read_to_end(&mut read)).await;
    assert!(ended.is_ok(), "the server kept the connection open");
    read
}

#[tokio::test]
async fn an_address_holds_at_most_its_connections_and_the_next_is_closed_at_once() {
    let db = TestDb::sqlite();
    let mut config = TestServer::config(&db);
    config.limits.connections_per_address = 3;
    let (server, metrics) = start(config).await;
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(held_connection(server.addr).await);
    }
    let mut refused = TcpStream::connect(server.addr).await.unwrap();
    let _ = refused
        .write_all(format!("GET /healthz HTTP/1.1\r\nHost: {}\r\n\r\n", server.addr).as_bytes())
        .await;
    assert!(
        closed_by_server(&mut refused).await.is_empty(),
        "a connection over the cap gets no answer"
    );
    let counted = metric(
        metrics,
        "baghchal_connections_refused_total{reason=\"address\"}",
    )
    .await;
    assert!(counted.is_some_and(|n| n >= 1.0), "{counted:?}");
    drop(held);
    server.stop().await;
}

#[tokio::test]
async fn the_server_holds_at_most_its_connections_overall() {
    let db = TestDb::sqlite();
    let mut config = TestServer::config(&db);
    config.limits.max_connections = 2;
    let (server, metrics) = start(config).await;
    let held = [
        held_connection(server.addr).await,
        held_connection(server.addr).await,
    ];
    let mut refused = TcpStream::connect(server.addr).await.unwrap();
    assert!(closed_by_server(&mut refused).await.is_empty());
    let counted = metric(
        metrics,
        "baghchal_connections_refused_total{reason=\"total\"}",
    )
    .await;
    assert!(counted.is_some_and(|n| n >= 1.0), "{counted:?}");
    drop(held);
    server.stop().await;
}

#[tokio::test]
async fn a_request_whose_headers_never_end_is_closed_after_the_header_timeout() {
    let db = TestDb::sqlite();
    let mut config = TestServer::config(&db);
    config.limits.header_timeout = Duration::from_millis(500);
    let (server, metrics) = start(config).await;
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    stream
        .write_all(format!("GET /healthz HTTP/1.1\r\nHost: {}\r\n", server.addr).as_bytes())
        .await
        .unwrap();
    let answer = closed_by_server(&mut stream).await;
    assert!(
        !answer.starts_with(b"HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&answer)
    );
    let counted = metric(metrics, "baghchal_header_timeouts_total").await;
    assert!(counted.is_some_and(|n| n >= 1.0), "{counted:?}");
    server.stop().await;
}

#[tokio::test]
async fn an_idle_keep_alive_connection_is_closed_after_the_header_timeout() {
    let db = TestDb::sqlite();
    let mut config = TestServer::config(&db);
    config.limits.header_timeout = Duration::from_millis(500);
    let server = TestServer::start_with(config).await;
    let mut stream = held_connection(server.addr).await;
    // The rest of the answer, then the end of the connection.
    let rest = closed_by_server(&mut stream).await;
    assert!(String::from_utf8_lossy(&rest).ends_with("ok"));
    server.stop().await;
}

#[tokio::test]
async fn a_socket_that_says_no_hello_is_closed_with_4003() {
    let db = TestDb::sqlite();
    let mut config = TestServer::config(&db);
    config.limits.hello_timeout = Duration::from_millis(500);
    let server = TestServer::start_with(config).await;
    let mut client = server.connect().await;
    match client.next().await {
        Err(Closed::Frame(Some(frame))) => {
            assert_eq!(u16::from(frame.code), 4003);
            assert_eq!(frame.reason.as_str(), "no hello in time");
        }
        other => panic!("expected the 4003 close, got {other:?}"),
    }
    server.stop().await;
}

#[tokio::test]
async fn a_joined_socket_outlives_the_hello_deadline() {
    let db = TestDb::sqlite();
    let mut config = TestServer::config(&db);
    config.limits.hello_timeout = Duration::from_millis(300);
    // The server's first ping comes after the hello deadline.
    config.liveness = baghchal_server::ws::Liveness {
        ping_after: Duration::from_millis(900),
        give_up_after: Duration::from_secs(30),
    };
    let server = TestServer::start_with(config).await;
    let created = server
        .create(&request(baghchal_protocol::Opponent::Friend, 0))
        .await;
    let mut host = server.connect().await;
    host.hello(&created.table, created.secret.as_deref().unwrap(), None)
        .await;
    host.server_ping().await;
    host.send(&ClientMessage::Ping).await;
    host.until(|m| matches!(m, ServerMessage::Pong).then_some(()))
        .await;
    server.stop().await;
}

/// The status of a websocket upgrade refused by the server.
async fn refused_upgrade(addr: SocketAddr) -> u16 {
    match tokio_tungstenite::connect_async(format!("ws://{addr}/ws")).await {
        Err(tungstenite::Error::Http(response)) => response.status().as_u16(),
        Err(e) => panic!("expected an HTTP refusal, got {e}"),
        Ok(_) => panic!("the upgrade was accepted"),
    }
}

#[tokio::test]
async fn an_address_opens_at_most_its_websockets_and_then_gets_429() {
    let db = TestDb::sqlite();
    let mut config = TestServer::config(&db);
    config.limits.websockets_per_address = 2;
    let (server, metrics) = start(config).await;
    let open = [server.connect().await, server.connect().await];
    assert_eq!(refused_upgrade(server.addr).await, 429);
    let counted = metric(
        metrics,
        "baghchal_websockets_refused_total{reason=\"address\"}",
    )
    .await;
    assert!(counted.is_some_and(|n| n >= 1.0), "{counted:?}");
    drop(open);
    server.stop().await;
}

#[tokio::test]
async fn the_server_opens_at_most_its_websockets_and_then_answers_503() {
    let db = TestDb::sqlite();
    let mut config = TestServer::config(&db);
    config.limits.max_websockets = 1;
    let (server, metrics) = start(config).await;
    let open = server.connect().await;
    assert_eq!(refused_upgrade(server.addr).await, 503);
    let counted = metric(
        metrics,
        "baghchal_websockets_refused_total{reason=\"total\"}",
    )
    .await;
    assert!(counted.is_some_and(|n| n >= 1.0), "{counted:?}");
    drop(open);
    server.stop().await;
}

#[tokio::test]
async fn hellos_past_the_address_budget_are_refused_with_rate_limited() {
    let db = TestDb::sqlite();
    let mut config = TestServer::config(&db);
    config.limits.hello_burst = NonZeroU32::new(2).unwrap();
    config.limits.hellos_per_minute = NonZeroU32::new(1).unwrap();
    let (server, metrics) = start(config).await;
    let hello = ClientMessage::Hello {
        table: "nosuchtable".into(),
        token: Some("nosuchtoken".into()),
        since: None,
    };
    for _ in 0..2 {
        let mut client = server.connect().await;
        client.send(&hello).await;
        match client.recv().await {
            ServerMessage::Error { code, .. } => assert_ne!(code, ErrorCode::RateLimited),
            other => panic!("expected an error, got {other:?}"),
        }
    }
    let mut client = server.connect().await;
    client.send(&hello).await;
    match client.recv().await {
        ServerMessage::Error { code, .. } => assert_eq!(code, ErrorCode::RateLimited),
        other => panic!("expected rate_limited, got {other:?}"),
    }
    match client.next().await {
        Err(Closed::Frame(Some(frame))) => assert_eq!(u16::from(frame.code), 1008),
        other => panic!("expected the 1008 close, got {other:?}"),
    }
    let counted = metric(metrics, "baghchal_hellos_rate_limited_total").await;
    assert!(counted.is_some_and(|n| n >= 1.0), "{counted:?}");
    server.stop().await;
}

#[tokio::test]
async fn a_ping_flood_is_counted_in_its_own_bucket_and_closes_the_socket() {
    let db = TestDb::sqlite();
    let mut config = TestServer::config(&db);
    config.limits.control_burst = NonZeroU32::new(5).unwrap();
    config.limits.control_per_second = NonZeroU32::new(1).unwrap();
    let (server, metrics) = start(config).await;
    let mut client = server.connect().await;
    for _ in 0..50 {
        client.feed_raw(Message::Ping(Default::default())).await;
    }
    client.flush().await;
    match client.next().await {
        Ok(ServerMessage::Error { code, .. }) => assert_eq!(code, ErrorCode::RateLimited),
        other => panic!("expected rate_limited, got {other:?}"),
    }
    match client.next().await {
        Err(Closed::Frame(Some(frame))) => assert_eq!(u16::from(frame.code), 1008),
        other => panic!("expected the 1008 close, got {other:?}"),
    }
    let counted = metric(metrics, "baghchal_control_frames_refused_total").await;
    assert!(counted.is_some_and(|n| n >= 1.0), "{counted:?}");
    server.stop().await;
}
