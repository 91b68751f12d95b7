//! An absent opponent: announced in presence at once, claimable after the
//! grace, cancelled by a return.

use std::time::Duration;

use baghchal_protocol::{
    ClaimResult, ClientMessage, EndReason, ErrorCode, GameResult, Opponent, ServerMessage, Side,
    TableEvent,
};
use baghchal_table::seats::ABSENCE_GRACE;

use crate::common::{manual_clock, request, spectator_token, Seated, TestDb, TestServer};
use crate::on_both;

fn not_claimable(message: Option<ServerMessage>) -> bool {
    matches!(
        message,
        Some(ServerMessage::Error {
            code: ErrorCode::NotClaimable,
            ..
        })
    )
}

async fn an_absent_opponent_is_announced_and_claimed_after_the_grace(db: &TestDb) {
    let clock = manual_clock();
    let server = TestServer::start_with(TestServer::config_with_clock(db, &clock)).await;
    let mut seated = Seated::new(&server, &request(Opponent::Friend, 1)).await;
    let table = seated.table().to_owned();
    let mut spectator = server.connect().await;
    spectator
        .hello(&table, &spectator_token(&seated.created), None)
        .await;
    // While the game may be aborted, nobody is absent: abort instead.
    seated.play_out(&["c3"]).await;
    seated.guest.close().await;
    let presence = seated.host.presence().await;
    assert!(!presence.tigers.connected && presence.absent.is_none());
    let mut guest = server.connect().await;
    guest.hello(&table, &seated.guest_secret, None).await;
    guest.play_acked("a1-a2").await;
    guest.close().await;

    let presence = spectator
        .until(|m| match m {
            ServerMessage::Presence(p) if p.absent.is_some() => Some(p.clone()),
            _ => None,
        })
        .await;
    let absent = presence.absent.unwrap();
    assert_eq!(absent.side, Side::Tigers);
    assert_eq!(absent.since, absent.now);
    let since = absent.since.clone();
    let presence = seated
        .host
        .until(|m| match m {
            ServerMessage::Presence(p) if p.absent.is_some() => Some(p.clone()),
            _ => None,
        })
        .await;
    let absent = presence.absent.unwrap();
    assert_eq!(absent.since, since);

    let claim = ClientMessage::ClaimVictory {
        id: Some("claim".into()),
        board: None,
    };
    assert!(not_claimable(seated.host.refused(&claim).await));
    clock.advance(ABSENCE_GRACE - Duration::from_millis(1));
    assert!(not_claimable(seated.host.refused(&claim).await));
    clock.advance(Duration::from_millis(1));
    seated.host.send(&claim).await;
    let (event, state) = seated
        .host
        .until(|m| match m {
            ServerMessage::Event { event, state, .. } => Some((event.clone(), state.clone())),
            _ => None,
        })
        .await;
    assert_eq!(
        event,
        TableEvent::Claimed {
            side: Side::Goats,
            result: ClaimResult::Win
        }
    );
    assert_eq!(
        state.result,
        Some(GameResult {
            winner: Some(Side::Goats),
            reason: EndReason::Abandoned
        })
    );
    assert_eq!(state.tally.host, 1);
    // The game is over: the banner goes.
    let presence = seated.host.presence().await;
    assert!(presence.absent.is_none());
    server.stop().await;
}
on_both!(an_absent_opponent_is_announced_and_claimed_after_the_grace);

async fn a_return_cancels_the_countdown_and_a_later_absence_may_be_called_a_draw(db: &TestDb) {
    let clock = manual_clock();
    let server = TestServer::start_with(TestServer::config_with_clock(db, &clock)).await;
    let Seated {
        mut host,
        mut guest,
        created,
        ..
    } = Seated::new(&server, &request(Opponent::Friend, 0)).await;
    host.play_acked("c3").await;
    guest.play_acked("a1-a2").await;
    host.close().await;
    let absent = guest
        .until(|m| match m {
            ServerMessage::Presence(p) => p.absent.clone(),
            _ => None,
        })
        .await;
    assert_eq!(absent.side, Side::Goats);
    clock.advance(Duration::from_secs(5));
    let mut host = server.connect().await;
    host.hello(&created.table, created.secret.as_deref().unwrap(), None)
        .await;
    let presence = guest.presence().await;
    assert!(presence.goats.connected && presence.absent.is_none());
    clock.advance(ABSENCE_GRACE);
    assert!(not_claimable(
        guest
            .refused(&ClientMessage::ClaimDraw {
                id: None,
                board: None
            })
            .await
    ));

    host.close().await;
    guest.presence().await;
    clock.advance(ABSENCE_GRACE);
    guest
        .send(&ClientMessage::ClaimDraw {
            id: None,
            board: None,
        })
        .await;
    let state = guest.event_at(3).await;
    assert_eq!(
        state.result,
        Some(GameResult {
            winner: None,
            reason: EndReason::Abandoned
        })
    );
    assert_eq!(state.tally.draws, 1);
    server.stop().await;
}
on_both!(a_return_cancels_the_countdown_and_a_later_absence_may_be_called_a_draw);
