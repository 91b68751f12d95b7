//! The gallery: seats, counts, what spectators see and never see.

use baghchal_protocol::{ClientMessage, ErrorCode, Opponent, ServerMessage, TableEvent};

use crate::common::{opponent_token, request, spectator_token, Seated, TestDb, TestServer};
use crate::on_both;

fn presence_spectators(message: &ServerMessage) -> Option<u32> {
    match message {
        ServerMessage::Presence(p) => Some(p.spectators),
        _ => None,
    }
}

async fn gallery_fills_up_and_frees_seats(db: &TestDb) {
    let server = TestServer::start(db).await;
    let created = server.create(&request(Opponent::Friend, 2)).await;
    let watch = spectator_token(&created);
    let mut host = server.connect().await;
    host.hello(&created.table, created.secret.as_deref().unwrap(), None)
        .await;

    let mut first = server.connect().await;
    first.hello(&created.table, &watch, None).await;
    let mut second = server.connect().await;
    second.hello(&created.table, &watch, None).await;
    assert_eq!(
        host.until(|m| presence_spectators(m).filter(|n| *n == 2))
            .await,
        2
    );

    let mut third = server.connect().await;
    third
        .send(&ClientMessage::Hello {
            table: created.table.clone(),
            token: Some(watch.clone()),
            since: None,
        })
        .await;
    let ServerMessage::Error { code, .. } = third.recv().await else {
        panic!("expected gallery_full")
    };
    assert_eq!(code, ErrorCode::GalleryFull);

    // A seat frees when a spectator leaves; the third may try again.
    first.close().await;
    host.until(|m| presence_spectators(m).filter(|n| *n == 1))
        .await;
    third.hello(&created.table, &watch, None).await;
    host.until(|m| presence_spectators(m).filter(|n| *n == 2))
        .await;

    // A spectator cannot act, and nothing changes.
    third.play("c3").await;
    let ServerMessage::Error { code, .. } = third.error().await else {
        unreachable!()
    };
    assert_eq!(code, ErrorCode::Spectator);
    third
        .send(&ClientMessage::Resign {
            id: None,
            board: None,
        })
        .await;
    let ServerMessage::Error { code, .. } = third.error().await else {
        unreachable!()
    };
    assert_eq!(code, ErrorCode::Spectator);
    let mut check = server.connect().await;
    let joined = check
        .hello(&created.table, created.secret.as_deref().unwrap(), None)
        .await;
    let (version, moves, _) = joined.snapshot().unwrap();
    assert_eq!((version, moves.len()), (0, 0));
    server.stop().await;
}
on_both!(gallery_fills_up_and_frees_seats);

async fn a_table_without_seats_has_no_gallery(db: &TestDb) {
    let server = TestServer::start(db).await;
    let created = server.create(&request(Opponent::Friend, 0)).await;
    assert_eq!(created.spectator_link, None);
    server.stop().await;
}
on_both!(a_table_without_seats_has_no_gallery);

async fn spectators_see_the_game_but_never_a_secret(db: &TestDb) {
    let server = TestServer::start(db).await;
    let created = server.create(&request(Opponent::Friend, 1)).await;
    let watch = spectator_token(&created);
    let mut spectator = server.connect().await;
    spectator.hello(&created.table, &watch, None).await;

    let mut host = server.connect().await;
    host.hello(&created.table, created.secret.as_deref().unwrap(), None)
        .await;
    let invite = opponent_token(&created);
    let mut guest = server.connect().await;
    let guest_secret = guest
        .hello(&created.table, &invite, None)
        .await
        .secret()
        .unwrap();

    host.play_acked("c3").await;
    let host_view = host.event_at(1).await;
    let spectator_view = spectator.event_at(1).await;
    assert_eq!(host_view, spectator_view);
    assert!(!spectator_view.legal.is_empty());
    guest.play_acked("a1-b2").await;
    guest
        .send(&ClientMessage::OfferDraw {
            id: None,
            board: None,
        })
        .await;
    host.event_at(3).await;
    host.send(&ClientMessage::AcceptDraw {
        id: None,
        board: None,
    })
    .await;
    guest.event_at(4).await;
    host.send(&ClientMessage::Rematch { id: None }).await;
    guest.event_at(5).await;
    guest.send(&ClientMessage::Rematch { id: None }).await;
    let state = spectator
        .until(|m| match m {
            ServerMessage::Event {
                event: TableEvent::RematchStarted { .. },
                state,
                ..
            } => Some(state.clone()),
            _ => None,
        })
        .await;
    assert_eq!(state.game, 2);
    // The guest reconnects, the host's socket is replaced: presence flows.
    let mut again = server.connect().await;
    again.hello(&created.table, &guest_secret, None).await;
    spectator.sync().await;

    let secrets = [created.secret.clone().unwrap(), invite, guest_secret];
    assert!(spectator.frames.len() > 8, "{:?}", spectator.frames);
    for frame in &spectator.frames {
        for secret in &secrets {
            assert!(
                !frame.contains(secret.as_str()),
                "a spectator received a secret in {frame}"
            );
        }
        assert!(!frame.contains("secret"), "{frame}");
    }
    server.stop().await;
}
on_both!(spectators_see_the_game_but_never_a_secret);

async fn bots_play_by_themselves_and_start_the_next_game(db: &TestDb) {
    // A short pause between moves, so that a spectator keeps up.
    let mut config = TestServer::config(db);
    config.pace.bots_move = std::time::Duration::from_millis(2);
    let server = TestServer::start_with(config).await;
    let mut req = request(Opponent::Bots, 0);
    req.level = Some(400);
    let created = server.create(&req).await;
    assert_eq!(created.secret, None);
    assert_eq!(created.opponent_link, None);
    let watch = spectator_token(&created);
    let mut spectator = server.connect().await;
    let joined = spectator.hello(&created.table, &watch, None).await;
    let started_finished = joined
        .snapshot()
        .map(|(_, _, state)| state.result.is_some())
        .unwrap_or(false);
    // Watch a game end, then the next one start.
    if !started_finished {
        spectator
            .until(|m| match m {
                ServerMessage::Event { state, .. } if state.result.is_some() => Some(()),
                _ => None,
            })
            .await;
    }
    let game = spectator
        .until(|m| match m {
            ServerMessage::Event {
                event: TableEvent::RematchStarted { game },
                ..
            } => Some(*game),
            _ => None,
        })
        .await;
    assert!(game >= 2);
    server.stop().await;
}
on_both!(bots_play_by_themselves_and_start_the_next_game);

async fn a_bots_table_plays_only_while_someone_watches(db: &TestDb) {
    // The bots would play a move every 2 ms if nobody had to watch.
    let mut config = TestServer::config(db);
    config.pace.bots_move = std::time::Duration::from_millis(2);
    let server = TestServer::start_with(config.clone()).await;
    let mut req = request(Opponent::Bots, 0);
    req.level = Some(400);
    let created = server.create(&req).await;
    let watch = spectator_token(&created);
    let mut spectator = server.connect().await;
    let joined = spectator.hello(&created.table, &watch, None).await;
    // Nothing was played before anyone watched; once watched, they play.
    assert_eq!(joined.snapshot().unwrap().0, 0);
    spectator
        .until(|m| match m {
            ServerMessage::Event { version, .. } if *version >= 3 => Some(()),
            _ => None,
        })
        .await;
    server.stop().await;
    let stored = stored_events(db, &created.table).await;
    // The start loads the table; with its gallery empty it waits.
    let server = TestServer::start_with(config).await;
    let mut spectator = server.connect().await;
    let joined = spectator.hello(&created.table, &watch, None).await;
    assert_eq!(joined.snapshot().unwrap().0, stored);
    server.stop().await;
}

async fn a_bots_table_pauses_when_its_last_spectator_leaves(db: &TestDb) {
    let mut config = TestServer::config(db);
    config.pace.bots_move = std::time::Duration::from_millis(2);
    let server = TestServer::start_with(config).await;
    let mut req = request(Opponent::Bots, 0);
    req.level = Some(400);
    // Two shows at the same pace, on the same threads: the one still
    // watched measures how long the other was left alone.
    let left = server.create(&req).await;
    let watched = server.create(&req).await;
    let mut leaving = server.connect().await;
    leaving
        .hello(&left.table, &spectator_token(&left), None)
        .await;
    leaving
        .until(|m| match m {
            ServerMessage::Event { version, .. } if *version >= 3 => Some(()),
            _ => None,
        })
        .await;
    leaving.close().await;
    let at_leave = stored_events(db, &left.table).await;
    let mut staying = server.connect().await;
    staying
        .hello(&watched.table, &spectator_token(&watched), None)
        .await;
    staying
        .until(|m| match m {
            ServerMessage::Event { version, .. } if *version >= 30 => Some(()),
            _ => None,
        })
        .await;
    // Meanwhile the show nobody watched finished at most the moves it was
    // thinking about when its spectator left.
    let after = stored_events(db, &left.table).await;
    assert!(after <= at_leave + 2, "{at_leave} -> {after}");
    server.stop().await;
}
on_both!(a_bots_table_pauses_when_its_last_spectator_leaves);

/// How many events `table` has stored.
async fn stored_events(db: &TestDb, table: &str) -> u64 {
    let sql = "SELECT COUNT(*) FROM events WHERE table_id = $1";
    let count: i64 = if db.url.starts_with("sqlite:") {
        let pool = sqlx::SqlitePool::connect(&db.url).await.unwrap();
        let count = sqlx::query_scalar(sql).bind(table).fetch_one(&pool).await;
        pool.close().await;
        count.unwrap()
    } else {
        let pool = sqlx::PgPool::connect(&db.url).await.unwrap();
        let count = sqlx::query_scalar(sql).bind(table).fetch_one(&pool).await;
        pool.close().await;
        count.unwrap()
    };
    u64::try_from(count).unwrap()
}
on_both!(a_bots_table_plays_only_while_someone_watches);

async fn seat_holders_see_each_others_connection(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut seated = Seated::new(&server, &request(Opponent::Friend, 0)).await;
    let guest = std::mem::replace(&mut seated.guest, server.connect().await);
    guest.close().await;
    let presence = seated
        .host
        .until(|m| match m {
            ServerMessage::Presence(p) if !p.tigers.connected => Some(p.clone()),
            _ => None,
        })
        .await;
    assert!(presence.goats.connected);
    assert_eq!(presence.tigers.player, baghchal_protocol::Player::Guest);
    seated
        .guest
        .hello(seated.created.table.as_str(), &seated.guest_secret, None)
        .await;
    seated
        .host
        .until(|m| match m {
            ServerMessage::Presence(p) if p.tigers.connected => Some(()),
            _ => None,
        })
        .await;
    server.stop().await;
}
on_both!(seat_holders_see_each_others_connection);
