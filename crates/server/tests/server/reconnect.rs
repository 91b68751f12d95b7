//! Reconnecting: missed events, snapshots, resent actions, restarts.

use std::sync::Arc;

use baghchal_engine::Level;
use baghchal_protocol::{ClientMessage, Opponent, ServerMessage, TableEvent};
use baghchal_rules::{Action, Position};
use baghchal_server::bot::Bot;

use crate::common::{opponent_token, request, spectator_token, Seated, TestDb, TestServer};
use crate::on_both;

fn versions(replay: &[ServerMessage]) -> Vec<u64> {
    replay
        .iter()
        .map(|m| match m {
            ServerMessage::Event { version, .. } => *version,
            other => panic!("expected only events, got {other:?}"),
        })
        .collect()
}

async fn a_reconnecting_client_receives_exactly_what_it_missed(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut seated = Seated::new(&server, &request(Opponent::Friend, 1)).await;
    let watch = spectator_token(&seated.created);
    let table = seated.table().to_owned();
    let mut spectator = server.connect().await;
    spectator.hello(&table, &watch, None).await;

    seated.play_out(&["c3"]).await;
    spectator.event_at(1).await;
    spectator.close().await;
    seated.guest.play_acked("a1-b2").await;
    seated.host.play_acked("c1").await;
    seated.guest.event_at(3).await;

    let mut spectator = server.connect().await;
    let joined = spectator.hello(&table, &watch, Some(1)).await;
    assert_eq!(versions(&joined.replay), vec![2, 3]);
    let ServerMessage::Event { event, state, .. } = &joined.replay[1] else {
        unreachable!()
    };
    assert_eq!(
        *event,
        TableEvent::Played {
            side: baghchal_protocol::Side::Goats,
            action: "c1".into()
        }
    );
    assert_eq!(state.ply, 3);

    // Up to date: nothing to replay.
    let mut current = server.connect().await;
    let joined = current
        .hello(&table, seated.created.secret.as_deref().unwrap(), Some(3))
        .await;
    assert!(joined.replay.is_empty(), "{:?}", joined.replay);

    // A version from the future, or none: a snapshot.
    for since in [Some(99), None] {
        let mut fresh = server.connect().await;
        let joined = fresh.hello(&table, &seated.guest_secret, since).await;
        let (version, moves, state) = joined.snapshot().expect("a snapshot");
        assert_eq!(version, 3);
        assert_eq!(moves, vec!["c3", "a1-b2", "c1"]);
        assert_eq!(state.ply, 3);
    }
    server.stop().await;
}
on_both!(a_reconnecting_client_receives_exactly_what_it_missed);

async fn a_resent_action_is_acknowledged_once_more_and_applied_once(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut seated = Seated::new(&server, &request(Opponent::Friend, 0)).await;
    let table = seated.table().to_owned();
    let send = |id: &str, action: &str| ClientMessage::Action {
        id: id.into(),
        action: action.into(),
        board: None,
    };
    seated.host.send(&send("move-1", "c3")).await;
    seated.host.send(&send("move-1", "c3")).await;
    // Same id, another action: still the first one's ack, nothing applied.
    seated.host.send(&send("move-1", "c4")).await;
    let seen = seated.host.sync().await;
    let acks = seen
        .iter()
        .filter(|m| matches!(m, ServerMessage::Ack { id } if id == "move-1"))
        .count();
    let events = seen
        .iter()
        .filter(|m| matches!(m, ServerMessage::Event { .. }))
        .count();
    assert_eq!((acks, events), (3, 1), "{seen:?}");

    // After a reconnect, and after a restart, the id is still known.
    let mut again = server.connect().await;
    again
        .hello(&table, seated.created.secret.as_deref().unwrap(), Some(1))
        .await;
    again.send(&send("move-1", "c3")).await;
    let seen = again.sync().await;
    assert_eq!(
        seen,
        vec![ServerMessage::Ack {
            id: "move-1".into()
        }]
    );
    server.stop().await;

    let server = TestServer::start(db).await;
    let mut host = server.connect().await;
    let joined = host
        .hello(&table, seated.created.secret.as_deref().unwrap(), None)
        .await;
    assert_eq!(joined.snapshot().unwrap().1, vec!["c3"]);
    host.send(&send("move-1", "c3")).await;
    let seen = host.sync().await;
    assert_eq!(
        seen,
        vec![ServerMessage::Ack {
            id: "move-1".into()
        }]
    );
    let mut guest = server.connect().await;
    let joined = guest.hello(&table, &seated.guest_secret, None).await;
    assert_eq!(joined.snapshot().unwrap().0, 1);
    server.stop().await;
}
on_both!(a_resent_action_is_acknowledged_once_more_and_applied_once);

/// A computer that never answers, to stop a game where the computer is to
/// move.
struct Silent;

impl Bot for Silent {
    fn choose(&self, _: &Position, _: Level, _: u64) -> Option<Action> {
        None
    }
}

async fn after_a_restart_the_computer_resumes_its_turn(db: &TestDb) {
    let mut config = TestServer::config(db);
    config.bot = Arc::new(Silent);
    let server = TestServer::start_with(config).await;
    let mut req = request(Opponent::Computer, 0);
    req.level = Some(400);
    let created = server.create(&req).await;
    let secret = created.secret.clone().unwrap();
    let mut host = server.connect().await;
    host.hello(&created.table, &secret, None).await;
    host.play_acked("c3").await;
    host.event_at(1).await;
    server.stop().await;

    // The restarted server loads the table and the computer moves without
    // anyone connecting.
    let server = TestServer::start(db).await;
    let mut watcher = server.connect().await;
    let joined = watcher.hello(&created.table, &secret, Some(1)).await;
    let state = match joined.replay.last() {
        Some(ServerMessage::Event {
            version: 2, state, ..
        }) => state.clone(),
        _ => watcher.event_at(2).await,
    };
    assert_eq!(state.ply, 2);
    assert_eq!(state.side_to_move, baghchal_protocol::Side::Goats);
    server.stop().await;
}
on_both!(after_a_restart_the_computer_resumes_its_turn);

async fn a_client_too_far_behind_gets_a_snapshot(db: &TestDb) {
    let mut config = TestServer::config(db);
    config.pace.bots_move = std::time::Duration::from_millis(1);
    let server = TestServer::start_with(config).await;
    let mut req = request(Opponent::Bots, 3);
    req.level = Some(400);
    let created = server.create(&req).await;
    let watch = spectator_token(&created);
    let mut spectator = server.connect().await;
    spectator.hello(&created.table, &watch, None).await;
    // More events than the server keeps in memory.
    let limit = baghchal_server::table::conn::EVENT_LOG_LEN as u64 + 10;
    while spectator.version < limit {
        spectator.recv().await;
    }
    let now = spectator.version;

    let mut late = server.connect().await;
    let joined = late.hello(&created.table, &watch, Some(1)).await;
    let (version, _, _) = joined.snapshot().expect("a snapshot when too far behind");
    assert!(version >= now);

    let mut recent = server.connect().await;
    let joined = recent.hello(&created.table, &watch, Some(now - 3)).await;
    assert!(joined.snapshot().is_none());
    let replayed = versions(&joined.replay);
    assert!(replayed.len() >= 3);
    assert_eq!(replayed[..3], [now - 2, now - 1, now]);
    server.stop().await;
}
on_both!(a_client_too_far_behind_gets_a_snapshot);

async fn a_table_unloaded_when_idle_comes_back_whole(db: &TestDb) {
    // Every table leaves memory as soon as nobody is connected.
    let mut config = TestServer::config(db);
    config.idle_timeout = std::time::Duration::ZERO;
    let server = TestServer::start_with(config).await;
    let created = server.create(&request(Opponent::Friend, 0)).await;
    let secret = created.secret.clone().unwrap();

    let mut host = server.connect().await;
    host.hello(&created.table, &secret, None).await;
    host.send(&ClientMessage::Action {
        id: "one".into(),
        action: "c3".into(),
        board: None,
    })
    .await;
    host.sync().await;
    host.close().await;

    let mut guest = server.connect().await;
    let joined = guest
        .hello(&created.table, &opponent_token(&created), None)
        .await;
    let guest_secret = joined.secret().unwrap();
    assert_eq!(joined.snapshot().unwrap().1, vec!["c3"]);
    guest.play_acked("a1-b2").await;
    guest.close().await;

    let (status, body) = server
        .get(&format!("/api/tables/{}/games/1", created.table))
        .await;
    assert_eq!(status, 200, "{body}");

    let mut host = server.connect().await;
    let joined = host.hello(&created.table, &secret, None).await;
    assert_eq!(joined.snapshot().unwrap().1, vec!["c3", "a1-b2"]);
    host.send(&ClientMessage::Action {
        id: "one".into(),
        action: "c3".into(),
        board: None,
    })
    .await;
    assert_eq!(
        host.sync().await,
        vec![ServerMessage::Ack { id: "one".into() }]
    );
    host.play_acked("c1").await;
    let mut guest = server.connect().await;
    let joined = guest.hello(&created.table, &guest_secret, None).await;
    assert_eq!(joined.snapshot().unwrap().0, 3);
    server.stop().await;
}
on_both!(a_table_unloaded_when_idle_comes_back_whole);
