//! A short run of the benchmark against three nodes of one cluster (in
//! this process, on PostgreSQL and NATS): each table's host, guest and
//! spectator sit on different nodes, and every acknowledged action must
//! reach every subscriber, once and in order. Run when
//! `BAGHCHAL_TEST_POSTGRES` and `BAGHCHAL_TEST_NATS` are set (`.ci/run`
//! sets both); no timing is asserted.

mod common;

use std::process::Stdio;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use baghchal_server::cluster::ClusterConfig;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_short_run_over_three_nodes_delivers_every_acknowledged_action() {
    let (Ok(admin_url), Ok(nats_url)) = (
        std::env::var("BAGHCHAL_TEST_POSTGRES"),
        std::env::var("BAGHCHAL_TEST_NATS"),
    ) else {
        eprintln!("note: BAGHCHAL_TEST_POSTGRES or BAGHCHAL_TEST_NATS is not set; skipping");
        return;
    };
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let suffix = format!("{}_{nanos}", std::process::id());
    let database = format!("baghchal_load_{suffix}");
    let mut admin = <sqlx::PgConnection as sqlx::Connection>::connect(&admin_url)
        .await
        .expect("PostgreSQL answers");
    sqlx::query(&format!("CREATE DATABASE {database}"))
        .execute(&mut admin)
        .await
        .unwrap();
    let database_url = format!("{}/{database}", admin_url.rsplit_once('/').unwrap().0);

    let mut urls = Vec::new();
    let mut nodes = Vec::new();
    for node in ["a", "b", "c"] {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let mut config = baghchal_server::Config::new(database_url.clone(), url.clone());
        config.cluster = Some(ClusterConfig {
            nats_url: nats_url.clone(),
            node_id: node.to_owned(),
            name: format!("load{suffix}"),
            lease: Duration::from_secs(2),
            auth: Default::default(),
        });
        let (stop, stopped) = oneshot::channel::<()>();
        let server = tokio::spawn(baghchal_server::run(listener, config, async move {
            let _ = stopped.await;
        }));
        urls.push(url);
        nodes.push((stop, server));
    }

    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_baghchal-load"))
        .arg("--url")
        .arg(urls.join(","))
        .args(common::SHORT_RUN)
        .stdin(Stdio::null())
        .output()
        .await
        .unwrap();
    let acknowledged = common::every_acknowledged_action_delivered(&output);

    // Every acknowledged action is stored: at least one event each.
    let mut conn = <sqlx::PgConnection as sqlx::Connection>::connect(&database_url)
        .await
        .unwrap();
    let (stored,): (i64,) = sqlx::query_as("SELECT count(*) FROM events")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert!(
        stored as u64 >= acknowledged,
        "{stored} events for {acknowledged} actions"
    );
    drop(conn);

    for (stop, server) in nodes {
        let _ = stop.send(());
        server.await.unwrap().unwrap();
    }
    let _ = sqlx::query(&format!("DROP DATABASE IF EXISTS {database} WITH (FORCE)"))
        .execute(&mut admin)
        .await;
}
