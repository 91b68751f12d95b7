//! Draw offers and rematch requests: declining, lapsing, limits.

use std::time::Duration;

use baghchal_protocol::{ClientMessage, ErrorCode, Opponent, ServerMessage, Side, TableEvent};

use crate::common::{manual_clock, request, Seated, TestDb, TestServer};
use crate::on_both;

/// The next event, with its state.
async fn next_event(
    client: &mut crate::common::Client,
) -> (TableEvent, baghchal_protocol::GameState) {
    client
        .until(|m| match m {
            ServerMessage::Event { event, state, .. } => Some((event.clone(), state.clone())),
            _ => None,
        })
        .await
}

async fn a_rematch_request_can_be_declined_by_the_other_player(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut seated = Seated::new(&server, &request(Opponent::Friend, 0)).await;
    seated.play_out(&["c3"]).await;
    seated
        .host
        .send(&ClientMessage::Resign {
            id: None,
            board: None,
        })
        .await;
    seated.guest.event_at(2).await;
    seated.host.send(&ClientMessage::Rematch { id: None }).await;
    let state = seated.guest.event_at(3).await;
    assert_eq!(state.rematch_offer, Some(Side::Goats));
    // The maker cannot decline its own request.
    assert_eq!(
        seated
            .host
            .refusal(&ClientMessage::DeclineRematch { id: None })
            .await,
        Some(ErrorCode::NoOffer)
    );
    seated
        .guest
        .send(&ClientMessage::DeclineRematch {
            id: Some("no".into()),
        })
        .await;
    let (event, state) = next_event(&mut seated.host).await;
    assert_eq!(event, TableEvent::RematchDeclined { side: Side::Tigers });
    assert_eq!(state.rematch_offer, None);
    assert_eq!(state.game, 1);
    server.stop().await;

    // Durable: after a restart the request is still declined.
    let server = TestServer::start(db).await;
    let mut host = server.connect().await;
    let joined = host
        .hello(
            seated.table(),
            seated.created.secret.as_deref().unwrap(),
            None,
        )
        .await;
    let (_, _, state) = joined.snapshot().unwrap();
    assert_eq!((state.rematch_offer, state.game), (None, 1));
    server.stop().await;
}
on_both!(a_rematch_request_can_be_declined_by_the_other_player);

async fn a_rematch_request_lapses_when_its_maker_leaves(db: &TestDb) {
    let server = TestServer::start(db).await;
    let Seated {
        mut host,
        mut guest,
        ..
    } = Seated::new(&server, &request(Opponent::Friend, 0)).await;
    guest
        .send(&ClientMessage::Resign {
            id: None,
            board: None,
        })
        .await;
    next_event(&mut host).await;
    guest.send(&ClientMessage::Rematch { id: None }).await;
    let (_, state) = next_event(&mut host).await;
    assert_eq!(state.rematch_offer, Some(Side::Tigers));
    guest.close().await;
    let (event, state) = next_event(&mut host).await;
    assert_eq!(event, TableEvent::RematchWithdrawn { side: Side::Tigers });
    assert_eq!(state.rematch_offer, None);
    // Nothing left to accept: asking makes a new request.
    host.send(&ClientMessage::Rematch { id: None }).await;
    let (event, _) = next_event(&mut host).await;
    assert_eq!(event, TableEvent::RematchOffered { side: Side::Goats });
    server.stop().await;
}
on_both!(a_rematch_request_lapses_when_its_maker_leaves);

async fn a_draw_offer_lapses_when_its_maker_leaves(db: &TestDb) {
    let server = TestServer::start(db).await;
    let Seated {
        mut host,
        mut guest,
        ..
    } = Seated::new(&server, &request(Opponent::Friend, 0)).await;
    guest
        .send(&ClientMessage::OfferDraw {
            id: None,
            board: None,
        })
        .await;
    let (_, state) = next_event(&mut host).await;
    assert_eq!(state.draw_offer, Some(Side::Tigers));
    guest.close().await;
    let (event, state) = next_event(&mut host).await;
    assert_eq!(event, TableEvent::DrawWithdrawn { side: Side::Tigers });
    assert_eq!(state.draw_offer, None);
    assert_eq!(state.result, None);
    // Nothing left to accept: the game goes on.
    assert_eq!(
        host.refusal(&ClientMessage::AcceptDraw {
            id: None,
            board: None
        })
        .await,
        Some(ErrorCode::NoOffer)
    );
    server.stop().await;
}
on_both!(a_draw_offer_lapses_when_its_maker_leaves);

#[tokio::test]
async fn draw_offers_are_limited_per_player_in_number_and_in_pace() {
    let db = TestDb::sqlite();
    let clock = manual_clock();
    let server = TestServer::start_with(TestServer::config_with_clock(&db, &clock)).await;
    let mut seated = Seated::new(&server, &request(Opponent::Friend, 0)).await;
    for n in 0..3 {
        seated
            .host
            .send(&ClientMessage::OfferDraw {
                id: None,
                board: None,
            })
            .await;
        let state = seated.guest.event_at(2 * n + 1).await;
        assert_eq!(state.draw_offer, Some(Side::Goats));
        seated
            .guest
            .send(&ClientMessage::DeclineDraw {
                id: None,
                board: None,
            })
            .await;
        seated.host.event_at(2 * n + 2).await;
        clock.advance(Duration::from_secs(9));
        let again = seated
            .host
            .refusal(&ClientMessage::OfferDraw {
                id: None,
                board: None,
            })
            .await;
        assert_eq!(
            again,
            Some(ErrorCode::TooManyOffers),
            "offer {n} repeated too soon"
        );
        clock.advance(Duration::from_secs(1));
    }
    let fourth = seated
        .host
        .refusal(&ClientMessage::OfferDraw {
            id: None,
            board: None,
        })
        .await;
    assert_eq!(fourth, Some(ErrorCode::TooManyOffers));
    // The other player has offers of its own.
    seated
        .guest
        .send(&ClientMessage::OfferDraw {
            id: None,
            board: None,
        })
        .await;
    let state = seated.host.event_at(7).await;
    assert_eq!(state.draw_offer, Some(Side::Tigers));
    server.stop().await;
}
