//! Bad input of every kind: each is refused with a clear error, the game
//! is unchanged, and the socket stays open unless the input was a flood or
//! an oversized frame.

use std::num::NonZeroU32;

use baghchal_protocol::{
    ApiError, ApiErrorCode, ClientMessage, ErrorCode, GameRecord, IllegalReason, Opponent,
    ServerMessage,
};
use baghchal_server::ws::RateLimit;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::Message;

use crate::common::{
    http_with, opponent_token, request, spectator_token, Client, Closed, Seated, TestDb, TestServer,
};
use crate::on_both;

/// Sends `message`, then a ping: returns the error the server answered
/// with, after checking that nothing else (no event) came before the pong.
async fn refused(client: &mut Client, message: Message) -> (ErrorCode, Option<IllegalReason>) {
    client.send_raw(message).await;
    let seen = client.sync().await;
    match seen.as_slice() {
        [ServerMessage::Error { code, reason, .. }] => (*code, *reason),
        other => panic!("expected one error, got {other:?}"),
    }
}

fn json(message: &ClientMessage) -> Message {
    Message::text(serde_json::to_string(message).unwrap())
}

fn action(id: &str, action: &str) -> Message {
    json(&ClientMessage::Action {
        id: id.into(),
        action: action.into(),
        board: None,
    })
}

async fn record(server: &TestServer, table: &str) -> GameRecord {
    let (status, body) = server.get(&format!("/api/tables/{table}/games/1")).await;
    assert_eq!(status, 200, "{body}");
    serde_json::from_str(&body).unwrap()
}

async fn every_bad_message_is_refused_and_changes_nothing(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut seated = Seated::new(&server, &request(Opponent::Friend, 1)).await;
    let table = seated.table().to_owned();
    seated.play_out(&["c3", "a1-b2"]).await;
    let before = record(&server, &table).await;
    seated.host.sync().await;
    seated.guest.sync().await;
    let host = &mut seated.host;

    let cases: Vec<(Message, ErrorCode, Option<IllegalReason>)> = vec![
        (
            Message::text("this is not JSON"),
            ErrorCode::InvalidMessage,
            None,
        ),
        (
            Message::binary(vec![1u8, 2, 3]),
            ErrorCode::InvalidMessage,
            None,
        ),
        (
            Message::text(r#"{"type":"teleport"}"#),
            ErrorCode::InvalidMessage,
            None,
        ),
        (
            Message::text(r#"{"type":"action","id":"x"}"#),
            ErrorCode::InvalidMessage,
            None,
        ),
        (
            Message::text(r#"{"type":"action","id":5,"action":"c1"}"#),
            ErrorCode::InvalidMessage,
            None,
        ),
        (Message::text(r#"[1,2,3]"#), ErrorCode::InvalidMessage, None),
        (
            action("a", "b2"),
            ErrorCode::IllegalAction,
            Some(IllegalReason::Occupied),
        ),
        (
            action("b", "z9"),
            ErrorCode::IllegalAction,
            Some(IllegalReason::Notation),
        ),
        (
            action("c", "c1-c2"),
            ErrorCode::IllegalAction,
            Some(IllegalReason::MustPlace),
        ),
        (action("", "c1"), ErrorCode::InvalidId, None),
        (action(&"x".repeat(65), "c1"), ErrorCode::InvalidId, None),
        (
            json(&ClientMessage::AcceptDraw {
                id: None,
                board: None,
            }),
            ErrorCode::NoOffer,
            None,
        ),
        (
            json(&ClientMessage::Rematch { id: None }),
            ErrorCode::GameNotOver,
            None,
        ),
        (
            json(&ClientMessage::DeclineRematch { id: None }),
            ErrorCode::GameNotOver,
            None,
        ),
        (
            json(&ClientMessage::ClaimVictory {
                id: None,
                board: None,
            }),
            ErrorCode::NotClaimable,
            None,
        ),
        (
            json(&ClientMessage::Hello {
                table: table.clone(),
                token: Some("x".into()),
                since: None,
            }),
            ErrorCode::AlreadyJoined,
            None,
        ),
    ];
    for (message, code, reason) in cases {
        let shown = format!("{message:?}");
        let (got, got_reason) = refused(host, message).await;
        assert_eq!(got, code, "{shown}");
        assert_eq!(got_reason, reason, "{shown}");
    }
    // Out of turn: the tigers play while it is the goats' move.
    let (code, _) = refused(&mut seated.guest, action("d", "b2-b3")).await;
    assert_eq!(code, ErrorCode::NotYourTurn);

    // Spectators cannot act.
    let mut spectator = server.connect().await;
    spectator
        .hello(&table, &spectator_token(&seated.created), None)
        .await;
    let (code, _) = refused(&mut spectator, action("e", "c1")).await;
    assert_eq!(code, ErrorCode::Spectator);
    // One seat only: the next spectator is turned away.
    let mut late = server.connect().await;
    let watch = spectator_token(&seated.created);
    let (code, _) = refused(
        &mut late,
        json(&ClientMessage::Hello {
            table: table.clone(),
            token: Some(watch),
            since: None,
        }),
    )
    .await;
    assert_eq!(code, ErrorCode::GalleryFull);

    // Before hello; forged and stale tokens; unknown tables; a spent link.
    let other = server.create(&request(Opponent::Friend, 0)).await;
    let mut stranger = server.connect().await;
    let (code, _) = refused(&mut stranger, action("f", "c1")).await;
    assert_eq!(code, ErrorCode::NotJoined);
    let hello = |table: &str, token: &str| {
        json(&ClientMessage::Hello {
            table: table.into(),
            token: Some(token.into()),
            since: None,
        })
    };
    let forged = "A".repeat(32);
    for (table, token, expected) in [
        (table.as_str(), forged.as_str(), ErrorCode::InvalidToken),
        (
            table.as_str(),
            other.secret.as_deref().unwrap(),
            ErrorCode::InvalidToken,
        ),
        ("no-such-table", forged.as_str(), ErrorCode::UnknownTable),
        (
            "AAAAAAAAAAAAAAAAAAAAAA",
            forged.as_str(),
            ErrorCode::UnknownTable,
        ),
        (
            table.as_str(),
            &opponent_token(&seated.created),
            ErrorCode::SeatTaken,
        ),
    ] {
        let (code, _) = refused(&mut stranger, hello(table, token)).await;
        assert_eq!(code, expected, "{table} {token}");
    }

    // After all that, the game is as it was and the sockets still work.
    assert_eq!(record(&server, &table).await, before);
    seated.host.play_acked("c1").await;
    assert_eq!(
        record(&server, &table).await.moves,
        vec!["c3", "a1-b2", "c1"]
    );

    // After the game: no more actions, resignations or offers.
    seated
        .guest
        .send(&ClientMessage::Resign {
            id: None,
            board: None,
        })
        .await;
    seated.host.event_at(4).await;
    for message in [
        action("g", "c2"),
        json(&ClientMessage::Resign {
            id: None,
            board: None,
        }),
        json(&ClientMessage::OfferDraw {
            id: None,
            board: None,
        }),
    ] {
        let (code, _) = refused(&mut seated.host, message).await;
        assert_eq!(code, ErrorCode::GameOver);
    }
    server.stop().await;
}
on_both!(every_bad_message_is_refused_and_changes_nothing);

/// Sends `count` pings back to back without reading.
async fn flood(client: &mut Client, count: usize) {
    for _ in 0..count {
        client.feed_raw(json(&ClientMessage::Ping)).await;
    }
    client.flush().await;
}

/// Reads until the close frame, allowing only `allowed` messages before
/// it; returns the close frame and whether `seen` came before it. A reset
/// instead of a close frame fails.
async fn close_after(
    client: &mut Client,
    seen: ErrorCode,
    allowed: impl Fn(&ServerMessage) -> bool,
) -> (CloseFrame, bool) {
    let mut saw = false;
    loop {
        match client.next().await {
            Ok(ServerMessage::Error { code, .. }) if code == seen => saw = true,
            Ok(other) if allowed(&other) => {}
            Ok(other) => panic!("unexpected {other:?}"),
            Err(Closed::Frame(Some(frame))) => return (frame, saw),
            Err(other) => panic!("expected a close frame, got {other:?}"),
        }
    }
}

async fn an_oversized_frame_is_refused_with_a_close_frame_not_a_reset(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut seated = Seated::new(&server, &request(Opponent::Friend, 0)).await;
    let table = seated.table().to_owned();
    // Three times, each from a fresh socket that goes on sending after
    // the oversized frame: unread bytes must not turn the close into a
    // reset.
    for _ in 0..3 {
        let mut client = server.connect().await;
        client
            .hello(&table, seated.created.secret.as_deref().unwrap(), None)
            .await;
        let huge = format!(
            r#"{{"type":"action","id":"big","action":"{}"}}"#,
            "c".repeat(60 * 1024)
        );
        client.send_raw(Message::text(huge)).await;
        flood(&mut client, 2000).await;
        let (frame, saw) = close_after(&mut client, ErrorCode::TooLarge, |m| {
            matches!(m, ServerMessage::Presence(_))
        })
        .await;
        assert!(saw, "too_large before the close");
        assert_eq!(u16::from(frame.code), 1009);
        assert_eq!(frame.reason.as_str(), "message too big");
    }
    // The first socket of the seat was replaced, and the game is untouched.
    let _ = seated.host.next().await;
    assert!(record(&server, &table).await.moves.is_empty());
    server.stop().await;
}
on_both!(an_oversized_frame_is_refused_with_a_close_frame_not_a_reset);

async fn a_burst_of_pings_past_the_budget_gets_a_close_frame_not_a_reset(db: &TestDb) {
    let mut config = TestServer::config(db);
    config.rate = RateLimit {
        burst: NonZeroU32::new(5).unwrap(),
        per_second: NonZeroU32::new(1).unwrap(),
    };
    let server = TestServer::start_with(config).await;
    let created = server.create(&request(Opponent::Friend, 0)).await;
    for _ in 0..3 {
        let mut client = server.connect().await;
        // hello is one message; then pings back to back, far more than
        // the budget and than the server reads at once.
        client
            .hello(&created.table, created.secret.as_deref().unwrap(), None)
            .await;
        flood(&mut client, 2000).await;
        let (frame, saw) = close_after(&mut client, ErrorCode::RateLimited, |m| {
            matches!(m, ServerMessage::Pong | ServerMessage::Presence(_))
        })
        .await;
        assert!(saw, "rate_limited before the close");
        assert_eq!(u16::from(frame.code), 1008);
        assert_eq!(frame.reason.as_str(), "rate limited");
    }
    server.stop().await;
}
on_both!(a_burst_of_pings_past_the_budget_gets_a_close_frame_not_a_reset);

async fn bad_table_requests_name_the_field(db: &TestDb) {
    let server = TestServer::start(db).await;
    for (body, status, field) in [
        (
            r#"{"opponent":"computer","level":2500}"#,
            422,
            Some("level"),
        ),
        (
            r#"{"opponent":"friend","spectators":13}"#,
            422,
            Some("spectators"),
        ),
        (r#"{"opponent":"robot"}"#, 422, Some("opponent")),
        (r#"{"side":"goats"}"#, 422, Some("opponent")),
        (
            r#"{"opponent":"friend","variant":{"goats_to_win":2}}"#,
            422,
            Some("variant.goats_to_win"),
        ),
        (r#"{"opponent":"friend","extra":true}"#, 422, Some("extra")),
        (
            r#"{"opponent":"friend","clock":{"initial":4,"increment":0}}"#,
            422,
            Some("clock.initial"),
        ),
        (
            r#"{"opponent":"friend","clock":{"initial":60,"increment":181}}"#,
            422,
            Some("clock.increment"),
        ),
        (
            r#"{"opponent":"friend","clock":{"days_per_action":4}}"#,
            422,
            Some("clock.days_per_action"),
        ),
        (
            r#"{"opponent":"friend","clock":{"initial":60,"days_per_action":1}}"#,
            422,
            Some("clock"),
        ),
        (
            r#"{"opponent":"friend","clock":{"moves":40}}"#,
            422,
            Some("clock.moves"),
        ),
        (r#"{"opponent":null}"#, 422, Some("opponent")),
        (r#"{"opponent":"friend","side":null}"#, 422, Some("side")),
        (
            r#"{"opponent":"friend","spectators":null}"#,
            422,
            Some("spectators"),
        ),
        ("not json", 400, None),
        (r#"{"opponent":"friend"} trailing"#, 400, None),
        ("[1,2]", 400, None),
        (r#""friend""#, 400, None),
    ] {
        let (got, answer) = server.post("/api/tables", body).await;
        assert_eq!(got, status, "{body}: {answer}");
        let error: baghchal_protocol::ApiError = serde_json::from_str(&answer).unwrap();
        assert_eq!(error.field.as_deref(), field, "{body}");
    }
    let (status, _) = server.post("/api/tables", &"x".repeat(20 * 1024)).await;
    assert_eq!(status, 413);
    for headers in [&[][..], &[("Content-Type", "text/plain")]] {
        let (status, _, body) = http_with(
            server.addr,
            "POST",
            "/api/tables",
            headers,
            r#"{"opponent":"friend"}"#,
        )
        .await;
        assert_eq!(status, 415, "{headers:?}");
        let error: baghchal_protocol::ApiError = serde_json::from_str(&body).unwrap();
        assert_eq!(
            error.error,
            baghchal_protocol::ApiErrorCode::UnsupportedMediaType
        );
    }
    for path in [
        "/t/..%2f..%2fCargo.toml",
        "/t/not-a-table",
        "/t/..%2fREADME.md",
    ] {
        let (status, _) = server.get(path).await;
        assert_eq!(status, 404, "{path}");
    }
    let (status, body) = server.get("/healthz").await;
    assert_eq!((status, body.as_str()), (200, "ok"));
    let (status, _) = server
        .get("/api/tables/AAAAAAAAAAAAAAAAAAAAAA/games/1")
        .await;
    assert_eq!(status, 404);
    server.stop().await;
}
on_both!(bad_table_requests_name_the_field);

/// `POST /api/analysis` is refused exactly as `POST /api/tables` is: the
/// same checks in the same order, the same status and the same body.
#[tokio::test]
async fn the_analysis_board_refuses_requests_as_table_creation_does() {
    let db = TestDb::sqlite();
    let mut config = TestServer::config(&db);
    config.public_url = "https://baghchal.example".into();
    let server = TestServer::start_with(config).await;
    let json = ("Content-Type", "application/json");
    let huge = format!(r#"{{"start":"{}"}}"#, "x".repeat(70 * 1024));
    /// Headers, body, and the status and code expected.
    type Case<'a> = (Vec<(&'a str, &'a str)>, &'a str, u16, ApiErrorCode);
    let cases: Vec<Case> = vec![
        (
            vec![json],
            r#"{"variant":{}} trailing"#,
            400,
            ApiErrorCode::InvalidJson,
        ),
        (
            vec![json],
            r#"{"variant":{}}{}"#,
            400,
            ApiErrorCode::InvalidJson,
        ),
        (vec![json], "[1,2]", 400, ApiErrorCode::InvalidJson),
        (vec![json], "null", 400, ApiErrorCode::InvalidJson),
        (vec![json], "{", 400, ApiErrorCode::InvalidJson),
        (vec![], "{}", 415, ApiErrorCode::UnsupportedMediaType),
        (
            vec![("Content-Type", "text/plain")],
            "{}",
            415,
            ApiErrorCode::UnsupportedMediaType,
        ),
        (
            vec![json, ("Origin", "https://evil.example")],
            "{}",
            403,
            ApiErrorCode::ForbiddenOrigin,
        ),
        (
            vec![("Origin", "https://evil.example")],
            "not json",
            403,
            ApiErrorCode::ForbiddenOrigin,
        ),
        (vec![json], &huge, 413, ApiErrorCode::TooLarge),
    ];
    for (headers, body, status, code) in &cases {
        for path in ["/api/tables", "/api/analysis"] {
            let (got, _, answer) = http_with(server.addr, "POST", path, headers, body).await;
            let shown = &body[..body.len().min(40)];
            assert_eq!(got, *status, "{path} {headers:?} {shown}: {answer}");
            let error: ApiError = serde_json::from_str(&answer)
                .unwrap_or_else(|e| panic!("{path} {shown}: {answer}: {e}"));
            assert_eq!((error.error, error.field), (*code, None), "{path} {shown}");
        }
    }
    // The page's own origin is served.
    let (status, _, answer) = http_with(
        server.addr,
        "POST",
        "/api/analysis",
        &[json, ("Origin", "https://baghchal.example")],
        r#"{"actions":["c3"]}"#,
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    server.stop().await;
}
