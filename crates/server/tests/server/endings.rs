//! Every kind of ending at a friend table, decided by the server.

use baghchal_protocol::{ClientMessage, EndReason, Opponent, Repetition, Side};

use crate::common::{request, Seated, TestDb, TestServer};
use crate::on_both;

/// Goats trap all four tigers (found by a search over cooperative play).
const TIGERS_TRAPPED: &str = "d3 a1-b2 a1 a5-a4 c1 a4-b4 b3 e5-d5 a3 b2-c3 b2 e1-d1 d2 d5-c5 e1 \
     c3-c4 b1 b4-c3 c2 c4-d4 e3 d4-c4 b4 c5-d5 a5 d5-d4 c5 d4-d5 b5 d5-d4 a4 d4-e4 d4 e4-e5 e4 \
     e5-d5 e5";

/// The goats run out of actions: every step would repeat a position.
const GOATS_BLOCKED: &str = "d4 e1-d2 b4 d2-e3 b2 a5-b5 e4 e5-d5 b1 d5-c5 c4 e3-d3 c2 b5-a5 d2 \
     a1-a2 b3 d3-c3 e2 c5-b5 c1 a5-a4 e5 a4-a3 a1 b5-a5 a4 c3-d3 d1 d3-e3 d3 a5-b5 c5 b5-a5 e1 \
     a5-b5 c3 b5-a5 d5 a5-b5 b4-a5 b5-b4 a5-b5 b4-a5 a4-b4 a5-a4 b4-a5 a4-b4";

/// The tigers take five goats.
const CAPTURE_TARGET: &str = "d3 a1-b2 b5 a5xc5 d1 e1xc1 a4 b2-b3 e4 e5xe3 b2 c1xa3 b4 a3xa5";

/// A position comes a third time under the threefold variant.
const THREEFOLD: &str = "c5 a5-b5 c3 e1-e2 a4 e2-d2 a2 d2-e1 e3 b5-b4 b2 b4-a3 e2 e5-d4 c2 \
     a3-b3 d2 a1-b1 e4 d4-e5 d4 b1-a1 b5 e5-d5 c1 e1-d1 b4 d1-e1 e5 b3-a3 b3 e1-d1 d3 d1-e1 c4 \
     a1-b1 a1 e1-d1 a5 d1-e1 c1-d1 b1-c1 a1-b1 a3xa1 b2-a2 c1-b2 a2-a3 b2-c1 a3-a2 c1-b2 d2-c1 \
     b2-a3 d1-d2 a3-b2 a2-a3 b2-a2 a3-b2 a2-a3 b2-a2 e1-d1 b3-b2 a3-b3 d2-e1 d1-d2 c1-d1 d2-c1 \
     e1-d2 b3-a3 d2-e1 a3-b3 e1-d2 b3-a3 d1-e1 a3-b3 e1-d1";

async fn ends(
    db: &TestDb,
    moves: &str,
    variant: impl FnOnce(&mut baghchal_protocol::Variant),
    winner: Option<Side>,
    reason: EndReason,
) {
    let server = TestServer::start(db).await;
    let mut req = request(Opponent::Friend, 0);
    variant(&mut req.variant);
    let mut seated = Seated::new(&server, &req).await;
    let moves: Vec<&str> = moves.split_whitespace().collect();
    let state = seated.play_out(&moves).await;
    let result = state.result.expect("the game is over");
    assert_eq!((result.winner, result.reason), (winner, reason));
    assert!(state.legal.is_empty());
    let tally = state.tally;
    match winner {
        Some(Side::Goats) => assert_eq!((tally.host, tally.guest, tally.draws), (1, 0, 0)),
        Some(Side::Tigers) => assert_eq!((tally.host, tally.guest, tally.draws), (0, 1, 0)),
        None => assert_eq!((tally.host, tally.guest, tally.draws), (0, 0, 1)),
    }
    // Nothing more can be played.
    seated.host.play("a1").await;
    let error = seated.host.error().await;
    assert!(
        matches!(
            error,
            baghchal_protocol::ServerMessage::Error {
                code: baghchal_protocol::ErrorCode::GameOver,
                ..
            }
        ),
        "{error:?}"
    );
    server.stop().await;
}

async fn tigers_trapped(db: &TestDb) {
    ends(
        db,
        TIGERS_TRAPPED,
        |_| {},
        Some(Side::Goats),
        EndReason::TigersTrapped,
    )
    .await;
}
on_both!(tigers_trapped);

async fn goats_blocked(db: &TestDb) {
    ends(
        db,
        GOATS_BLOCKED,
        |_| {},
        Some(Side::Tigers),
        EndReason::GoatsBlocked,
    )
    .await;
}
on_both!(goats_blocked);

async fn capture_target(db: &TestDb) {
    ends(
        db,
        CAPTURE_TARGET,
        |_| {},
        Some(Side::Tigers),
        EndReason::CaptureTarget,
    )
    .await;
}
on_both!(capture_target);

async fn threefold(db: &TestDb) {
    ends(
        db,
        THREEFOLD,
        |v| v.repetition = Repetition::ThreefoldDraw,
        None,
        EndReason::Threefold,
    )
    .await;
}
on_both!(threefold);

async fn ply_limit(db: &TestDb) {
    ends(
        db,
        "c3 a1-b2 c1 b2-b1",
        |v| v.ply_limit = 4,
        None,
        EndReason::PlyLimit,
    )
    .await;
}
on_both!(ply_limit);

async fn agreement(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut seated = Seated::new(&server, &request(Opponent::Friend, 0)).await;
    seated.play_out(&["c3"]).await;
    seated
        .guest
        .send(&ClientMessage::OfferDraw {
            id: None,
            board: None,
        })
        .await;
    let state = seated.host.event_at(2).await;
    assert_eq!(state.draw_offer, Some(Side::Tigers));
    seated
        .host
        .send(&ClientMessage::DeclineDraw {
            id: None,
            board: None,
        })
        .await;
    let state = seated.guest.event_at(3).await;
    assert_eq!(state.draw_offer, None);
    assert_eq!(state.result, None);
    seated
        .host
        .send(&ClientMessage::OfferDraw {
            id: None,
            board: None,
        })
        .await;
    seated.guest.event_at(4).await;
    seated
        .guest
        .send(&ClientMessage::AcceptDraw {
            id: Some("yes".into()),
            board: None,
        })
        .await;
    let state = seated.host.event_at(5).await;
    let result = state.result.unwrap();
    assert_eq!((result.winner, result.reason), (None, EndReason::Agreement));
    assert_eq!(state.tally.draws, 1);
    server.stop().await;
}
on_both!(agreement);

async fn resignation_off_turn(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut seated = Seated::new(&server, &request(Opponent::Friend, 0)).await;
    // The goats resign while it is the tigers' turn.
    seated.play_out(&["c3"]).await;
    seated
        .host
        .send(&ClientMessage::Resign {
            id: None,
            board: None,
        })
        .await;
    let state = seated.guest.event_at(2).await;
    let result = state.result.unwrap();
    assert_eq!(
        (result.winner, result.reason),
        (Some(Side::Tigers), EndReason::Resignation)
    );
    assert_eq!(state.tally.guest, 1);
    server.stop().await;
}
on_both!(resignation_off_turn);
