//! The lobby across two nodes of a cluster, in one process: a change made
//! on one node reaches the players of the other at once, not at its next
//! reading of the lobby. Run when `BAGHCHAL_TEST_POSTGRES` and
//! `BAGHCHAL_TEST_NATS` are set (`.ci/run` sets both).

use std::time::Duration;

use baghchal_protocol::Paired;
use baghchal_server::cluster::{ClusterConfig, NatsAuth};

use crate::common::{TestDb, TestServer};
use crate::lobby::{anonymous, challenge, Channel};

#[tokio::test]
async fn a_challenge_taken_on_another_node_is_told_to_its_maker_at_once() {
    let Some(db) = TestDb::postgres().await else {
        return;
    };
    let Ok(nats_url) = std::env::var("BAGHCHAL_TEST_NATS") else {
        eprintln!("note: BAGHCHAL_TEST_NATS is not set; skipping the cluster run");
        db.cleanup().await;
        return;
    };
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).unwrap();
    let name = format!("lobby{:016x}", u64::from_le_bytes(bytes));
    // Each node reads the lobby unasked once an hour: within the test,
    // only a word from the other node can wake it.
    let node = |id: &str| {
        let mut config = TestServer::config(&db);
        config.lobby_tick = Duration::from_secs(3600);
        config.cluster = Some(ClusterConfig {
            nats_url: nats_url.clone(),
            node_id: id.to_owned(),
            name: name.clone(),
            lease: Duration::from_secs(5),
            auth: NatsAuth::default(),
        });
        config
    };
    let one = TestServer::start_with(node("one")).await;
    let two = TestServer::start_with(node("two")).await;

    let mut maker = anonymous(&one).await;
    let mut channel = Channel::open(&maker).await;
    channel.next().await;
    let made = challenge(
        &mut maker,
        serde_json::json!({"clock": {"initial": 180, "increment": 2}}),
    )
    .await;
    let mut taker = anonymous(&two).await;
    let (status, _, body) = taker
        .send("POST", &format!("/api/challenges/{}/accept", made.id), "")
        .await;
    assert_eq!(status, 201, "{body}");
    let paired: Paired = serde_json::from_str(&body).unwrap();
    assert_eq!(channel.paired().await, paired);

    drop(channel);
    two.stop().await;
    one.stop().await;
    db.cleanup().await;
}
