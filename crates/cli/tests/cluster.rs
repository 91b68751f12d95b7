//! Several server processes share one PostgreSQL database and one NATS
//! server as a cluster: a game spread over three nodes, the owner of many
//! tables killed in the middle of play, every node restarted in turn
//! (SIGTERM) during play, an owner paused past its lease, and a reconnect
//! through a node that relays the owner's frames.
//! Each test has its own database and its own cluster name. Run
//! when `BAGHCHAL_TEST_POSTGRES` and `BAGHCHAL_TEST_NATS` are set (`.ci/run`
//! sets both). The faults of NATS and PostgreSQL themselves are in
//! `cluster_faults.rs`.

mod support;

use baghchal_protocol::{ClientMessage, ServerMessage, Side};
use std::time::{Duration, Instant};

use support::cluster::{
    addrs_of, assert_in_order, assert_one_line, client, counter, finish, friend, in_play,
    longest_waits, median_and_max, owners, settle, spread, spread_paced, stored, until_all_stored,
    until_each_moves_on, until_stored, Setup, Tally, LEASE,
};
use support::{claim, connect, recv, send, token_of, PATIENCE};

#[cfg_attr(
    not(test_cluster),
    ignore = "BAGHCHAL_TEST_POSTGRES and BAGHCHAL_TEST_NATS were not set when the tests were built"
)]
#[tokio::test]
async fn a_game_spread_over_three_nodes_reaches_every_client_once_and_in_order() {
    let setup = Setup::new().await;
    let nodes = setup.three().await;
    let created = nodes[0].create(&friend(40)).await;
    let guest_secret = claim(&nodes[1].addr, &created).await;
    let shared = addrs_of(&nodes);
    let table = created.table.clone();
    let host = tokio::spawn(client(
        shared.clone(),
        0,
        table.clone(),
        created.secret.clone().unwrap(),
        Some(Side::Goats),
        40,
    ));
    let guest = tokio::spawn(client(
        shared.clone(),
        1,
        table.clone(),
        guest_secret,
        Some(Side::Tigers),
        40,
    ));
    let watcher = tokio::spawn(client(
        shared.clone(),
        2,
        table.clone(),
        token_of(created.spectator_link.as_deref().unwrap()),
        None,
        40,
    ));
    let seen = finish(vec![host, guest, watcher]).await;
    let log = stored(&setup.database_url).await.remove(&table).unwrap();
    let last = log.last().unwrap().0 as u64;
    for s in &seen {
        assert_eq!((s.duplicates, s.gaps, s.reconnects), (0, 0, 0), "{s:?}");
    }
    // The spectator saw every version exactly once, in order, up to the end.
    let watched = &seen[2].versions;
    assert!(watched.len() >= 2, "too little was played: {watched:?}");
    assert!(watched.windows(2).all(|w| w[1] == w[0] + 1), "{watched:?}");
    assert!(*watched.last().unwrap() <= last);
    let versions: Vec<i64> = log.iter().map(|e| e.0).collect();
    assert_eq!(versions, (1..=last as i64).collect::<Vec<_>>());
    // The owner relayed the guest's and the spectator's frames, and
    // counted them: a message holds one frame, or a batch of several
    // (whether any were batched depends on timing, so this asks none).
    let messages = counter(&nodes, "baghchal_relay_messages_total").await;
    let frames = counter(&nodes, "baghchal_relay_frames_total").await;
    assert!(
        messages > 0.0 && frames >= messages,
        "{frames} frames in {messages} messages"
    );
    drop(nodes);
    setup.cleanup().await;
}

#[cfg_attr(
    not(test_cluster),
    ignore = "BAGHCHAL_TEST_POSTGRES and BAGHCHAL_TEST_NATS were not set when the tests were built"
)]
#[tokio::test]
async fn killing_the_owner_of_many_tables_loses_no_acknowledged_action() {
    let setup = Setup::new().await;
    let mut nodes = setup.three().await;
    let shared = addrs_of(&nodes);
    const TABLES: usize = 30;
    const PLIES: u16 = 40;
    let (players, played) = spread(&nodes, &shared, TABLES, PLIES).await;
    // Kill node a once play is under way everywhere: every table has a
    // few stored events.
    until_all_stored(&setup.database_url, &played, 4).await;
    // Clients that reconnect go to the survivors from here on.
    shared.lock().unwrap().remove(0);
    let mut killed = nodes.remove(0);
    let before = stored(&setup.database_url).await;
    killed.kill().await;
    // Takeover: every table of node a still in play has a new event.
    let moving = in_play(&played, &before, PLIES, Some(0));
    assert!(moving.len() >= 3, "play ran ahead of the kill");
    let takeover = until_each_moves_on(&setup.database_url, &before, &moving).await;
    let (_, tally) = settle(players, &setup.database_url).await;
    println!(
        "cluster kill: {TABLES} tables, {tally:?}, takeover of {} tables {takeover:?} \
         (lease {LEASE})",
        moving.len()
    );
    assert_eq!((tally.lost, tally.duplicated), (0, 0));
    assert!(tally.acknowledged > TABLES * 4);
    drop(nodes);
    setup.cleanup().await;
}

#[cfg_attr(
    not(test_cluster),
    ignore = "BAGHCHAL_TEST_POSTGRES and BAGHCHAL_TEST_NATS were not set when the tests were built"
)]
#[tokio::test]
async fn a_rolling_restart_of_every_node_during_play_loses_and_repeats_no_action() {
    let setup = Setup::new().await;
    let mut nodes = setup.three().await;
    let shared = addrs_of(&nodes);
    const TABLES: usize = 9;
    // The games the clients play end near ply 50: at a person's pace
    // (100 ms an action) they outlast the three restarts.
    const PLIES: u16 = 45;
    let think = Duration::from_millis(100);
    let (players, played) = spread_paced(&nodes, &shared, TABLES, PLIES, think).await;
    until_all_stored(&setup.database_url, &played, 4).await;
    let mut steps = Vec::new();
    for (i, id) in ["a", "b", "c"].into_iter().enumerate() {
        let before = stored(&setup.database_url).await;
        let moving = in_play(&played, &before, PLIES, None);
        let asked = Instant::now();
        nodes[i].signal("TERM").await;
        let status = tokio::time::timeout(PATIENCE, nodes[i].child.wait())
            .await
            .expect("a node asked to stop stops")
            .unwrap();
        assert!(status.success(), "node {id} stopped with {status}");
        let stopped = asked.elapsed();
        // Every table still in play goes on at once, on the other nodes.
        let moved_on = until_each_moves_on(&setup.database_url, &before, &moving).await;
        // The node comes back under its id (at a new address) and takes
        // its share of the reconnects.
        nodes[i] = setup.start(id).await;
        shared.lock().unwrap()[i] = nodes[i].addr.clone();
        steps.push((id, moving.len(), stopped, moved_on));
    }
    let seen = finish(players).await;
    let log = stored(&setup.database_url).await;
    assert_in_order(&seen);
    assert_one_line(&log);
    let tally = Tally::of(&seen, &log);
    let back_in: Vec<_> = seen.iter().flat_map(|s| s.back_in.clone()).collect();
    let reconnected = back_in.len();
    let (back_median, back_max) = median_and_max(back_in);
    let (wait_median, wait_max) = median_and_max(longest_waits(&setup.database_url).await);
    println!(
        "rolling restart: {TABLES} tables, {tally:?}; per node (id, tables in play, \
         SIGTERM to exit, exit to every table moving on): {steps:?}; \
         {reconnected} sockets back in: median {back_median:?}, max {back_max:?}; \
         longest wait of a player on move per table: median {wait_median:?}, \
         max {wait_max:?} (lease {LEASE})"
    );
    assert_eq!((tally.lost, tally.duplicated), (0, 0));
    assert!(tally.acknowledged > TABLES * 4);
    assert!(
        reconnected >= TABLES,
        "the restarts moved the tables' sockets"
    );
    // Every socket a stopping node closed was told to reconnect (1012),
    // with its table already free for another node.
    let closes: Vec<_> = seen.iter().flat_map(|s| s.closes.clone()).collect();
    assert!(
        closes.iter().all(|code| *code == Some(1012)),
        "closes: {closes:?}"
    );
    drop(nodes);
    setup.cleanup().await;
}

#[cfg_attr(
    not(test_cluster),
    ignore = "BAGHCHAL_TEST_POSTGRES and BAGHCHAL_TEST_NATS were not set when the tests were built"
)]
#[tokio::test]
async fn an_owner_paused_past_its_lease_loses_its_table_and_never_writes_again() {
    let setup = Setup::new().await;
    let nodes = setup.three().await;
    let created = nodes[0].create(&friend(200)).await;
    let guest_secret = claim(&nodes[2].addr, &created).await;
    // The players sit on b and c; node a owns the table.
    let shared = addrs_of(&nodes[1..]);
    let table = created.table.clone();
    const PLIES: u16 = 30;
    let host = tokio::spawn(client(
        shared.clone(),
        0,
        table.clone(),
        created.secret.clone().unwrap(),
        Some(Side::Goats),
        PLIES,
    ));
    let guest = tokio::spawn(client(
        shared.clone(),
        1,
        table.clone(),
        guest_secret,
        Some(Side::Tigers),
        PLIES,
    ));
    until_stored(&setup.database_url, &table, 6).await;
    nodes[0].signal("STOP").await;
    let paused = stored(&setup.database_url).await[&table].len();
    // Another node takes the table over and play goes on.
    until_stored(&setup.database_url, &table, paused + 4).await;
    nodes[0].signal("CONT").await;
    let (log, _) = settle(vec![host, guest], &setup.database_url).await;
    let epochs: Vec<i64> = log[&table].iter().map(|e| e.4).collect();
    assert!(
        epochs.last() > epochs.first(),
        "the table changed owner: {epochs:?}"
    );
    assert!(log[&table].len() >= usize::from(PLIES));
    drop(nodes);
    setup.cleanup().await;
}

/// Reads a reply to the end: every message up to the answer to a ping
/// sent after it.
async fn whole_reply(ws: &mut support::Ws) -> Vec<ServerMessage> {
    assert!(send(ws, &ClientMessage::Ping).await);
    let mut reply = Vec::new();
    loop {
        match tokio::time::timeout(PATIENCE, recv(ws)).await {
            Ok(Some(ServerMessage::Pong)) => return reply,
            Ok(Some(message)) => reply.push(message),
            Ok(None) => panic!("the socket closed after {reply:?}"),
            Err(_) => panic!("no pong after {reply:?}"),
        }
    }
}

#[cfg_attr(
    not(test_cluster),
    ignore = "BAGHCHAL_TEST_POSTGRES and BAGHCHAL_TEST_NATS were not set when the tests were built"
)]
#[tokio::test]
async fn a_relayed_reconnect_gets_exactly_the_events_it_missed() {
    let setup = Setup::new().await;
    let owner = setup.start("a").await;
    let relay = setup.start("b").await;
    let created = owner.create(&friend(60)).await;
    let guest_secret = claim(&owner.addr, &created).await;
    let table = created.table.clone();
    let host_secret = created.secret.clone().unwrap();
    let at_owner = addrs_of(std::slice::from_ref(&owner));
    let players = vec![
        tokio::spawn(client(
            at_owner.clone(),
            0,
            table.clone(),
            host_secret.clone(),
            Some(Side::Goats),
            60,
        )),
        tokio::spawn(client(
            at_owner,
            0,
            table.clone(),
            guest_secret,
            Some(Side::Tigers),
            60,
        )),
    ];
    finish(players).await;
    let version = stored(&setup.database_url).await[&table].len() as u64;

    // Through node b, which relays the owner's frames: every depth gets
    // exactly the missed events and then the presence, until the log's
    // bound, and a snapshot beyond it.
    let mut bound = None;
    for k in 1..version {
        let mut ws = connect(&relay.addr).await.expect("a socket");
        let hello = ClientMessage::Hello {
            table: table.clone(),
            token: Some(host_secret.clone()),
            since: Some(version - k),
        };
        assert!(send(&mut ws, &hello).await);
        let reply = whole_reply(&mut ws).await;
        let [ServerMessage::Welcome { .. }, middle @ .., ServerMessage::Presence(_)] =
            reply.as_slice()
        else {
            panic!("since v-{k}: {reply:?}");
        };
        if let [ServerMessage::Snapshot { version: v, .. }] = middle {
            assert_eq!(*v, version);
            bound = Some(k - 1);
            break;
        }
        let versions: Vec<u64> = middle
            .iter()
            .map(|m| match m {
                ServerMessage::Event { version, .. } => *version,
                other => panic!("since v-{k}: expected events, got {other:?}"),
            })
            .collect();
        assert_eq!(versions, (version - k + 1..=version).collect::<Vec<_>>());
    }
    let bound = bound.expect("a reconnect beyond the log's bound gets a snapshot");
    assert!(bound >= 8, "a replay takes more than one write ({bound})");

    // With its owner gone, the finished game is read on node b from its
    // row: b neither loads the table nor takes it over.
    let mut owner = owner;
    owner.kill().await;
    let before = owners(&setup.database_url).await[&table].clone();
    assert_eq!(before.as_deref(), Some("a"));
    for path in ["", "/notation/record"] {
        let (head, body) = relay
            .get(&format!("/api/tables/{table}/games/1{path}"))
            .await;
        assert!(head.starts_with("HTTP/1.1 200"), "{head}\n{body}");
        assert!(body.contains("result"), "{body}");
    }
    assert_eq!(owners(&setup.database_url).await[&table], before);
    drop(relay);
    setup.cleanup().await;
}
