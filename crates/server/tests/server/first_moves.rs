//! The first moves: aborting a game before each side has played, and a
//! host cancelling a table whose guest never came.

use baghchal_protocol::{ClientMessage, EndReason, ErrorCode, Opponent, ServerMessage, TableEvent};

use crate::common::{opponent_token, request, Seated, TestDb, TestServer};
use crate::on_both;

fn code(message: Option<ServerMessage>) -> Option<ErrorCode> {
    match message {
        Some(ServerMessage::Error { code, .. }) => Some(code),
        _ => None,
    }
}

async fn either_player_may_abort_until_each_side_has_played_and_nobody_scores(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut seated = Seated::new(&server, &request(Opponent::Friend, 0)).await;
    let state = seated.play_out(&["c3"]).await;
    assert!(state.abortable);
    seated
        .guest
        .send(&ClientMessage::Abort {
            id: Some("a".into()),
            board: None,
        })
        .await;
    let (event, state) = seated
        .host
        .until(|m| match m {
            ServerMessage::Event { event, state, .. } => Some((event.clone(), state.clone())),
            _ => None,
        })
        .await;
    assert_eq!(
        event,
        TableEvent::Aborted {
            side: baghchal_protocol::Side::Tigers
        }
    );
    let result = state.result.unwrap();
    assert_eq!((result.winner, result.reason), (None, EndReason::Aborted));
    assert_eq!(state.tally, Default::default());
    assert!(!state.abortable && state.legal.is_empty());

    // A new game: once each side has played, no abort.
    seated.host.send(&ClientMessage::Rematch { id: None }).await;
    seated
        .guest
        .send(&ClientMessage::Rematch { id: None })
        .await;
    let state = seated.host.event_at(4).await;
    assert!(state.abortable);
    // The guest holds the goats now.
    seated.guest.play_acked("c3").await;
    seated.host.play_acked("a1-b2").await;
    let state = seated.guest.event_at(6).await;
    assert!(!state.abortable);
    let refused = seated
        .guest
        .refused(&ClientMessage::Abort {
            id: None,
            board: None,
        })
        .await;
    assert_eq!(code(refused), Some(ErrorCode::NotAbortable));
    server.stop().await;
}
on_both!(either_player_may_abort_until_each_side_has_played_and_nobody_scores);

async fn a_host_cancels_a_table_whose_guest_never_came(db: &TestDb) {
    let server = TestServer::start(db).await;
    let created = server.create(&request(Opponent::Friend, 0)).await;
    let secret = created.secret.clone().unwrap();
    let mut host = server.connect().await;
    host.hello(&created.table, &secret, None).await;
    host.send(&ClientMessage::Abort {
        id: None,
        board: None,
    })
    .await;
    let state = host.event_at(1).await;
    assert_eq!(state.result.unwrap().reason, EndReason::Aborted);
    let refused = host.refused(&ClientMessage::Rematch { id: None }).await;
    assert_eq!(code(refused), Some(ErrorCode::GameOver));

    // The opponent link grants nothing any more, also after a restart.
    let invite = ClientMessage::Hello {
        table: created.table.clone(),
        token: Some(opponent_token(&created)),
        since: None,
    };
    let mut guest = server.connect().await;
    guest.send(&invite).await;
    assert_eq!(
        code(Some(guest.recv().await)),
        Some(ErrorCode::InvalidToken)
    );
    server.stop().await;
    let server = TestServer::start(db).await;
    let mut guest = server.connect().await;
    guest.send(&invite).await;
    assert_eq!(
        code(Some(guest.recv().await)),
        Some(ErrorCode::InvalidToken)
    );
    server.stop().await;
}
on_both!(a_host_cancels_a_table_whose_guest_never_came);

async fn a_computer_game_may_be_aborted_by_its_player_before_both_have_played(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut req = request(Opponent::Computer, 0);
    req.level = Some(400);
    req.side = baghchal_protocol::Side::Tigers;
    let created = server.create(&req).await;
    let mut host = server.connect().await;
    let joined = host
        .hello(&created.table, created.secret.as_deref().unwrap(), None)
        .await;
    // The computer places first (before the hello, and then the snapshot
    // holds its placement, or after it); the host aborts before answering.
    let state = match joined.snapshot() {
        Some((1, _, state)) => state,
        _ => host.event_at(1).await,
    };
    assert!(state.abortable);
    host.send(&ClientMessage::Abort {
        id: None,
        board: None,
    })
    .await;
    let state = host.event_at(2).await;
    assert_eq!(state.result.unwrap().reason, EndReason::Aborted);
    assert_eq!(state.tally, Default::default());
    server.stop().await;
}
on_both!(a_computer_game_may_be_aborted_by_its_player_before_both_have_played);
