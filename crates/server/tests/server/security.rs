//! What the server does against other sites' pages, abusive clients and
//! dead connections: origin checks, security headers, the per-address
//! table budget and the liveness sweep.

use std::num::NonZeroU32;
use std::time::Duration;

use baghchal_protocol::{ApiError, ApiErrorCode, Opponent, ServerMessage};
use baghchal_server::client_limit::{TableLimit, TrustedProxies};
use baghchal_server::ws::Liveness;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Error as WsError;

use crate::common::{http_with, request, Closed, Seated, TestDb, TestServer};

const FRIEND: &str = r#"{"opponent":"friend"}"#;

async fn create_from(server: &TestServer, headers: &[(&str, &str)]) -> (u16, String, String) {
    let mut all = vec![("Content-Type", "application/json")];
    all.extend_from_slice(headers);
    http_with(server.addr, "POST", "/api/tables", &all, FRIEND).await
}

/// Opens a websocket with this `Origin`; the HTTP status of a refusal.
async fn upgrade_from(server: &TestServer, origin: &str) -> Result<(), u16> {
    let mut request = format!("ws://{}/ws", server.addr)
        .into_client_request()
        .unwrap();
    request
        .headers_mut()
        .insert("Origin", origin.parse().unwrap());
    match tokio_tungstenite::connect_async(request).await {
        Ok(_) => Ok(()),
        Err(WsError::Http(response)) => Err(response.status().as_u16()),
        Err(e) => panic!("unexpected {e}"),
    }
}

#[tokio::test]
async fn pages_of_other_origins_can_neither_create_tables_nor_open_sockets() {
    let db = TestDb::sqlite();
    let mut config = TestServer::config(&db);
    config.public_url = "https://baghchal.example".into();
    config.allow_origins = vec!["http://localhost:8080".into()];
    let server = TestServer::start_with(config).await;
    for origin in ["https://evil.example", "null", "http://baghchal.example"] {
        let (status, _, body) = create_from(&server, &[("Origin", origin)]).await;
        assert_eq!(status, 403, "{origin}");
        let error: ApiError = serde_json::from_str(&body).unwrap();
        assert_eq!(error.error, ApiErrorCode::ForbiddenOrigin);
        assert_eq!(upgrade_from(&server, origin).await, Err(403), "{origin}");
    }
    for origin in ["https://baghchal.example", "http://localhost:8080"] {
        let (status, _, body) = create_from(&server, &[("Origin", origin)]).await;
        assert_eq!(status, 201, "{origin}: {body}");
        assert_eq!(upgrade_from(&server, origin).await, Ok(()), "{origin}");
    }
    // No Origin: not a browser page; allowed.
    let (status, _, _) = create_from(&server, &[]).await;
    assert_eq!(status, 201);
    server.stop().await;
}

fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().find_map(|line| {
        let (n, v) = line.split_once(':')?;
        n.trim().eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

#[tokio::test]
async fn every_answer_carries_the_security_headers() {
    let db = TestDb::sqlite();
    let server = TestServer::start(&db).await;
    let json = [("Content-Type", "application/json")];
    let answers = [
        http_with(server.addr, "GET", "/", &[], "").await,
        http_with(server.addr, "GET", "/healthz", &[], "").await,
        http_with(server.addr, "GET", "/t/not-a-table", &[], "").await,
        http_with(server.addr, "POST", "/api/tables", &json, FRIEND).await,
        http_with(server.addr, "POST", "/api/tables", &json, "{").await,
    ];
    for (status, head, _) in &answers {
        let csp = header(head, "content-security-policy").unwrap_or_else(|| panic!("{head}"));
        assert!(csp.contains("default-src 'none'"), "{csp}");
        assert!(csp.contains("script-src 'self';"), "{csp}");
        assert!(!csp.contains("unsafe-inline"), "{csp}");
        assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
        assert_eq!(header(head, "x-content-type-options"), Some("nosniff"));
        assert_eq!(header(head, "x-frame-options"), Some("DENY"));
        assert_eq!(header(head, "referrer-policy"), Some("no-referrer"));
        assert!(header(head, "permissions-policy").is_some());
        assert_eq!(
            header(head, "strict-transport-security"),
            None,
            "no HSTS over http ({status})"
        );
    }
    server.stop().await;

    let db = TestDb::sqlite();
    let mut config = TestServer::config(&db);
    config.public_url = "https://baghchal.example".into();
    let server = TestServer::start_with(config).await;
    let (_, head, _) = http_with(server.addr, "GET", "/healthz", &[], "").await;
    assert!(
        header(&head, "strict-transport-security").is_some(),
        "{head}"
    );
    server.stop().await;
}

#[test]
fn the_page_has_no_inline_script_or_style_for_the_policy_to_block() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../static");
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("html") {
            continue;
        }
        let html = std::fs::read_to_string(&path).unwrap().to_ascii_lowercase();
        for script in html.split("<script").skip(1) {
            let tag = script.split('>').next().unwrap_or_default();
            assert!(tag.contains("src="), "{}: an inline script", path.display());
        }
        assert!(
            !html.contains("<style"),
            "{}: an inline style",
            path.display()
        );
        assert!(
            !html.contains(" style="),
            "{}: a style attribute",
            path.display()
        );
        assert!(
            !html.contains(" onclick=") && !html.contains(" onload="),
            "{}: an inline handler",
            path.display()
        );
    }
}

#[tokio::test]
async fn one_address_gets_a_burst_of_tables_then_429_with_retry_after() {
    let db = TestDb::sqlite();
    let mut config = TestServer::config(&db);
    config.table_limit = TableLimit {
        burst: NonZeroU32::new(3).unwrap(),
        per_minute: NonZeroU32::new(1).unwrap(),
    };
    config.trusted_proxies = TrustedProxies::any();
    let server = TestServer::start_with(config).await;
    let behind = [("X-Forwarded-For", "203.0.113.9")];
    for _ in 0..3 {
        assert_eq!(create_from(&server, &behind).await.0, 201);
    }
    let (status, head, body) = create_from(&server, &behind).await;
    assert_eq!(status, 429, "{body}");
    let error: ApiError = serde_json::from_str(&body).unwrap();
    assert_eq!(error.error, ApiErrorCode::RateLimited);
    let retry: u64 = header(&head, "retry-after").unwrap().parse().unwrap();
    assert!((1..=60).contains(&retry), "{retry}");
    // Another client behind the same proxy has its own budget; the proxy's
    // word about earlier hops is not taken.
    let other = [("X-Forwarded-For", "203.0.113.9, 198.51.100.7")];
    assert_eq!(create_from(&server, &other).await.0, 201);
    server.stop().await;
}

#[tokio::test]
async fn a_forwarded_address_is_not_believed_from_a_peer_outside_the_trusted_blocks() {
    let db = TestDb::sqlite();
    let mut config = TestServer::config(&db);
    config.table_limit = TableLimit {
        burst: NonZeroU32::new(3).unwrap(),
        per_minute: NonZeroU32::new(1).unwrap(),
    };
    // The test's client is 127.0.0.1: not the proxy.
    config.trusted_proxies = TrustedProxies::within(vec!["10.0.0.0/8".parse().unwrap()]);
    let server = TestServer::start_with(config).await;
    for n in 0..3 {
        let forged = format!("203.0.113.{n}");
        let (status, _, body) = create_from(&server, &[("X-Forwarded-For", &forged)]).await;
        assert_eq!(status, 201, "{body}");
    }
    // A fresh forwarded address buys no fresh budget.
    let (status, _, body) = create_from(&server, &[("X-Forwarded-For", "198.51.100.7")]).await;
    assert_eq!(status, 429, "{body}");
    server.stop().await;
}

#[tokio::test]
async fn a_socket_that_answers_no_pings_is_closed_and_its_seat_shown_empty() {
    let db = TestDb::sqlite();
    let mut config = TestServer::config(&db);
    // Live clients answer at once; the silent one never reads.
    config.liveness = Liveness {
        ping_after: Duration::from_millis(300),
        give_up_after: Duration::from_secs(2),
    };
    let server = TestServer::start_with(config).await;
    let mut seated = Seated::new(&server, &request(Opponent::Friend, 0)).await;
    // The host stops reading (and so stops answering pings); the guest
    // reads on and learns that the host is gone.
    seated
        .guest
        .until(|m| match m {
            ServerMessage::Presence(p) if !p.goats.connected => Some(()),
            _ => None,
        })
        .await;
    // What the host finds when it reads again: pings, then the close.
    loop {
        match seated.host.next().await {
            Ok(_) => {}
            Err(Closed::Frame(Some(frame))) => {
                assert_eq!(u16::from(frame.code), 4002);
                assert_eq!(frame.reason.as_str(), "no answer to pings");
                break;
            }
            Err(other) => panic!("expected the 4002 close, got {other:?}"),
        }
    }
    server.stop().await;
}
