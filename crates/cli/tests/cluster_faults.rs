//! The services under a cluster fail during play: NATS restarted,
//! PostgreSQL restarted, one node cut off from NATS while PostgreSQL stays
//! reachable. Nothing acknowledged is lost, no action is stored twice, no
//! table's log forks, and play goes on by itself. And a table's row kept
//! locked by another client of the database holds a node's start and a
//! hello for a bounded time only. The NATS and PostgreSQL
//! restarted are private servers the test starts on free loopback ports,
//! never the shared ones. Run when `BAGHCHAL_TEST_POSTGRES` and
//! `BAGHCHAL_TEST_NATS` are set.

mod support;

use std::future::Future;
use std::time::Duration;

use baghchal_protocol::{ClientMessage, ErrorCode, ServerMessage};
use support::cluster::{
    addrs_of, counter, friend, in_play, owners, services, settle, spread, stored, until_all_stored,
    until_each_moves_on, Setup, Tally, LEASE, LEASE_TIME,
};
use support::services::{Nats, Postgres, Proxy};
use support::{connect, recv, send, PATIENCE};

const TABLES: usize = 6;
const PLIES: u16 = 50;

/// What play through an outage came to.
struct Outcome {
    /// The acknowledged actions against the stored log.
    tally: Tally,
    /// How long play took to go on at every table still in play.
    recovery: Duration,
    /// How many tables were still in play.
    moving: usize,
    /// Relayed frames the nodes found missing.
    lost_frames: f64,
}

/// Plays at `TABLES` tables over three nodes of `setup`, runs `outage` (a
/// service stopped for longer than a lease and started again) once play is
/// under way everywhere, and waits for play to go on at every table still
/// in play.
async fn through(setup: &Setup, outage: impl Future<Output = ()>) -> Outcome {
    let nodes = setup.three().await;
    let shared = addrs_of(&nodes);
    let (players, played) = spread(&nodes, &shared, TABLES, PLIES).await;
    until_all_stored(&setup.database_url, &played, 4).await;
    outage.await;
    let before = stored(&setup.database_url).await;
    let moving = in_play(&played, &before, PLIES, None);
    let recovery = until_each_moves_on(&setup.database_url, &before, &moving).await;
    let (_, tally) = settle(players, &setup.database_url).await;
    let lost_frames = counter(&nodes, "baghchal_relay_frames_lost_total").await;
    Outcome {
        tally,
        recovery,
        moving: moving.len(),
        lost_frames,
    }
}

#[cfg_attr(
    not(test_cluster),
    ignore = "BAGHCHAL_TEST_POSTGRES and BAGHCHAL_TEST_NATS were not set when the tests were built"
)]
#[tokio::test]
async fn nats_restarted_during_play_loses_nothing_and_the_cluster_recovers() {
    let (admin_url, _) = services();
    let mut nats = Nats::start().await;
    let setup = Setup::on(&admin_url, &nats.url()).await;
    let Outcome {
        tally,
        recovery,
        moving,
        lost_frames,
    } = through(&setup, async {
        nats.kill().await;
        // Away for longer than a lease: the nodes stop renewing and fence
        // themselves off their tables.
        tokio::time::sleep(LEASE_TIME + LEASE_TIME / 2).await;
        nats.start_again().await;
    })
    .await;
    println!(
        "nats restart: {TABLES} tables, {tally:?}, relayed frames found missing {lost_frames}, \
         every table in play ({moving}) moved on {recovery:?} after the restart (lease {LEASE})"
    );
    assert_eq!((tally.lost, tally.duplicated), (0, 0));
    assert!(tally.acknowledged >= TABLES * 4);
    setup.cleanup().await;
}

#[cfg_attr(
    not(test_cluster),
    ignore = "BAGHCHAL_TEST_POSTGRES and BAGHCHAL_TEST_NATS were not set when the tests were built"
)]
#[tokio::test]
async fn postgres_restarted_during_play_loses_nothing_and_play_resumes() {
    let (_, nats_url) = services();
    let postgres = Postgres::start().await;
    let setup = Setup::on(&postgres.admin_url(), &nats_url).await;
    let Outcome {
        tally,
        recovery,
        moving,
        lost_frames,
    } = through(&setup, async {
        postgres.stop().await;
        // Away for longer than a lease: renewals fail, the nodes stop their
        // tables at their deadlines.
        tokio::time::sleep(LEASE_TIME + LEASE_TIME / 2).await;
        postgres.start_again().await;
    })
    .await;
    println!(
        "postgres restart: {TABLES} tables, {tally:?}, relayed frames found missing \
         {lost_frames}, every table in play ({moving}) moved on {recovery:?} after the restart \
         (lease {LEASE})"
    );
    assert_eq!((tally.lost, tally.duplicated), (0, 0));
    assert!(tally.acknowledged >= TABLES * 4);
    setup.cleanup().await;
}

#[cfg_attr(
    not(test_cluster),
    ignore = "BAGHCHAL_TEST_POSTGRES and BAGHCHAL_TEST_NATS were not set when the tests were built"
)]
#[tokio::test]
async fn a_node_cut_off_from_nats_gives_its_tables_up_and_nothing_forks() {
    let setup = Setup::new().await;
    // Node a reaches NATS through a TCP proxy inside the test, which the
    // test cuts: portable and needs no privileges, unlike network
    // namespaces, and the node sees what a partition ends in (its NATS
    // connection gone, reconnects refused) while PostgreSQL stays
    // reachable.
    let target = setup.nats_url.trim_start_matches("nats://").to_owned();
    let proxy = Proxy::start(target).await;
    let mut nodes = vec![
        setup
            .start_via("a", &format!("nats://{}", proxy.addr))
            .await,
        setup.start("b").await,
        setup.start("c").await,
    ];
    let shared = addrs_of(&nodes);
    let (players, played) = spread(&nodes, &shared, TABLES, PLIES).await;
    until_all_stored(&setup.database_url, &played, 4).await;
    // Clients that reconnect go to the nodes NATS still reaches.
    shared.lock().unwrap().remove(0);
    let before = stored(&setup.database_url).await;
    proxy.cut();
    let moving = in_play(&played, &before, PLIES, Some(0));
    let takeover = until_each_moves_on(&setup.database_url, &before, &moving).await;
    let (log, tally) = settle(players, &setup.database_url).await;
    let owned = owners(&setup.database_url).await;
    for table in &moving {
        assert_ne!(owned[*table].as_deref(), Some("a"), "{table} stayed on a");
        let epochs: Vec<i64> = log[*table].iter().map(|e| e.4).collect();
        assert!(epochs.last() > epochs.first(), "{table}: {epochs:?}");
    }
    assert!(
        nodes[0].child.try_wait().unwrap().is_none(),
        "the cut-off node is still running"
    );
    println!(
        "nats cut: {TABLES} tables, {tally:?}, the {} tables of the cut-off node in play moved \
         in {takeover:?} (lease {LEASE})",
        moving.len()
    );
    assert_eq!((tally.lost, tally.duplicated), (0, 0));
    nodes.clear();
    setup.cleanup().await;
}

#[cfg_attr(
    not(test_cluster),
    ignore = "BAGHCHAL_TEST_POSTGRES and BAGHCHAL_TEST_NATS were not set when the tests were built"
)]
#[tokio::test]
async fn a_table_whose_row_stays_locked_holds_neither_a_start_nor_a_hello_for_ever() {
    let setup = Setup::new().await;
    let mut a = setup.start("a").await;
    let created = a.create(&friend(PLIES)).await;
    let secret = created.secret.clone().unwrap();
    // Node a stops and gives its lease up: the table is any node's to take.
    a.signal("TERM").await;
    let stopped = tokio::time::timeout(PATIENCE, a.child.wait())
        .await
        .expect("a node asked to stop stops")
        .unwrap();
    assert!(stopped.success(), "node a stopped with {stopped}");
    // Another client of the database locks the table's row and keeps the
    // lock: the statement that takes the lease waits for it.
    let mut locker = <sqlx::PgConnection as sqlx::Connection>::connect(&setup.database_url)
        .await
        .unwrap();
    sqlx::query("BEGIN").execute(&mut locker).await.unwrap();
    sqlx::query("SELECT id FROM tables WHERE id = $1 FOR UPDATE")
        .bind(&created.table)
        .execute(&mut locker)
        .await
        .unwrap();
    // Node b starts: resuming the table, which nobody holds, gives up
    // after its bound. A hello for the table is answered with an error
    // once the same bound is over, not with silence.
    let b = setup.start("b").await;
    let (head, _) = b.get("/healthz").await;
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let hello = ClientMessage::Hello {
        table: created.table.clone(),
        token: Some(secret),
        since: None,
    };
    let mut ws = connect(&b.addr).await.expect("a socket");
    assert!(send(&mut ws, &hello).await);
    match tokio::time::timeout(PATIENCE, recv(&mut ws)).await {
        Ok(Some(ServerMessage::Error {
            code: ErrorCode::Internal,
            ..
        })) => {}
        other => panic!("a hello for a table that cannot be loaded: {other:?}"),
    }
    // The lock goes: the load under way takes the table, and a hello joins.
    sqlx::query("ROLLBACK").execute(&mut locker).await.unwrap();
    let mut ws = connect(&b.addr).await.expect("a socket");
    assert!(send(&mut ws, &hello).await);
    match tokio::time::timeout(PATIENCE, recv(&mut ws)).await {
        Ok(Some(ServerMessage::Welcome { .. })) => {}
        other => panic!("a hello once the lock is gone: {other:?}"),
    }
    drop(b);
    setup.cleanup().await;
}
