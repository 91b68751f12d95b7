//! Friend tables end to end: seats, links, actions, endings, rematches.

use crate::common::{self, opponent_token, Seated, TestDb, TestServer};
use baghchal_protocol::{
    ClientMessage, CreateTable, EndReason, ErrorCode, Opponent, Player, ServerMessage, Side,
    Variant,
};

fn friend(spectators: u8) -> CreateTable {
    CreateTable {
        opponent: Opponent::Friend,
        side: Side::Goats,
        level: None,
        spectators,
        variant: Variant::default(),
        clock: None,
        format: baghchal_protocol::Format::Single,
        series_games: None,
    }
}

#[tokio::test]
async fn a_friend_game_is_played_to_a_resignation_and_a_rematch_swaps_sides() {
    let db = TestDb::sqlite();
    let server = TestServer::start(&db).await;
    let Seated {
        mut host,
        mut guest,
        ..
    } = Seated::new(&server, &friend(0)).await;

    host.play_acked("c3").await;
    let state = guest.event_at(1).await;
    assert_eq!(state.side_to_move, Side::Tigers);
    assert_eq!(state.last_action.as_deref(), Some("c3"));
    assert!(state.legal.iter().any(|action| action == "a1-b2"));
    guest.play_acked("a1-b2").await;
    host.event_at(2).await;

    guest
        .send(&ClientMessage::Resign {
            id: Some("r".into()),
            board: None,
        })
        .await;
    let state = host.event_at(3).await;
    let result = state.result.unwrap();
    assert_eq!(result.winner, Some(Side::Goats));
    assert_eq!(result.reason, EndReason::Resignation);
    assert_eq!(state.tally.host, 1);
    assert!(state.legal.is_empty());

    host.send(&ClientMessage::Rematch { id: None }).await;
    guest.event_at(4).await;
    guest.send(&ClientMessage::Rematch { id: None }).await;
    let state = host.event_at(5).await;
    assert_eq!(state.game, 2);
    assert_eq!(state.host_side, Side::Tigers);
    assert_eq!(state.ply, 0);
    assert_eq!(state.tally.host, 1);
    // The guest holds the goats now, and the goats start.
    guest.play_acked("c3").await;
    host.event_at(6).await;

    server.stop().await;
}

#[tokio::test]
async fn the_opponent_link_claims_the_seat_once() {
    let db = TestDb::sqlite();
    let server = TestServer::start(&db).await;
    let created = server.create(&friend(0)).await;
    let invite = opponent_token(&created);

    let mut guest = server.connect().await;
    let joined = guest.hello(&created.table, &invite, None).await;
    let ServerMessage::Welcome { player, .. } = &joined.welcome else {
        unreachable!()
    };
    assert_eq!(*player, Some(Player::Guest));
    let secret = joined.secret().unwrap();
    assert_ne!(secret, invite);

    let mut late = server.connect().await;
    late.send(&ClientMessage::Hello {
        table: created.table.clone(),
        token: Some(invite.clone()),
        since: None,
    })
    .await;
    let ServerMessage::Error { code, .. } = late.recv().await else {
        panic!("expected an error")
    };
    assert_eq!(code, ErrorCode::SeatTaken);
    // No rights were granted: acting is refused as not joined.
    late.play("c3").await;
    let ServerMessage::Error { code, .. } = late.recv().await else {
        panic!("expected an error")
    };
    assert_eq!(code, ErrorCode::NotJoined);

    // The claimer's own secret reconnects the seat and replaces the old
    // socket.
    let mut again = server.connect().await;
    let joined = again.hello(&created.table, &secret, None).await;
    assert_eq!(joined.secret(), None);
    match guest.next().await {
        Err(common::Closed::Frame(Some(frame))) => assert_eq!(u16::from(frame.code), 4000),
        Ok(ServerMessage::Presence(_)) => match guest.next().await {
            Err(common::Closed::Frame(Some(frame))) => assert_eq!(u16::from(frame.code), 4000),
            other => panic!("expected a close, got {other:?}"),
        },
        other => panic!("expected a close, got {other:?}"),
    }
    server.stop().await;
}

#[tokio::test]
async fn a_graceful_shutdown_closes_every_socket_with_a_reason() {
    let db = TestDb::sqlite();
    let server = TestServer::start(&db).await;
    let Seated {
        mut host,
        mut guest,
        ..
    } = Seated::new(&server, &friend(0)).await;
    host.sync().await;
    guest.sync().await;
    server.stop().await;
    for client in [&mut host, &mut guest] {
        loop {
            match client.next().await {
                Ok(ServerMessage::Presence(_)) => {}
                Ok(other) => panic!("unexpected {other:?}"),
                Err(common::Closed::Frame(Some(frame))) => {
                    assert_eq!(u16::from(frame.code), 1001);
                    assert_eq!(frame.reason.as_str(), "server shutting down");
                    break;
                }
                Err(other) => panic!("expected a close frame, got {other:?}"),
            }
        }
    }
}
