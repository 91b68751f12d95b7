//! `GET /metrics`: the Prometheus text format, scraped after some play.
//! One process's servers share the metrics, so the checks are lower
//! bounds.

use std::collections::BTreeMap;

use baghchal_protocol::Opponent;
use tokio::net::TcpListener;

use crate::common::{http_with, request, Seated, TestDb, TestServer};

/// The samples of a scrape, by series (`name{labels}`), after checking
/// that every line is a comment or a sample with a number.
fn samples(text: &str) -> BTreeMap<String, f64> {
    let mut samples = BTreeMap::new();
    for line in text
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let (series, value) = line
            .rsplit_once(' ')
            .unwrap_or_else(|| panic!("not a sample: {line}"));
        let value: f64 = value
            .parse()
            .unwrap_or_else(|_| panic!("not a number: {line}"));
        samples.insert(series.to_owned(), value);
    }
    samples
}

async fn scrape(addr: std::net::SocketAddr) -> BTreeMap<String, f64> {
    let (status, head, body) = http_with(addr, "GET", "/metrics", &[], "").await;
    assert_eq!(status, 200, "{body}");
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: text/plain"),
        "{head}"
    );
    samples(&body)
}

fn at_least(samples: &BTreeMap<String, f64>, series: &str, floor: f64) {
    let value = samples
        .get(series)
        .unwrap_or_else(|| panic!("no {series} in {samples:#?}"));
    assert!(
        *value >= floor,
        "{series} = {value}, expected at least {floor}"
    );
}

#[tokio::test]
async fn metrics_count_tables_sockets_actions_and_commits() {
    let db = TestDb::sqlite();
    let server = TestServer::start(&db).await;
    let mut seated = Seated::new(&server, &request(Opponent::Friend, 0)).await;
    seated.play_out(&["c3"]).await;
    // An illegal action: the tigers cannot place.
    seated.guest.play("b3").await;
    seated.guest.error().await;
    let samples = scrape(server.addr).await;
    at_least(&samples, "baghchal_tables_open", 1.0);
    at_least(&samples, r#"baghchal_sockets{role="player"}"#, 2.0);
    at_least(
        &samples,
        r#"baghchal_actions_total{outcome="accepted"}"#,
        1.0,
    );
    at_least(
        &samples,
        r#"baghchal_actions_total{outcome="illegal_action"}"#,
        1.0,
    );
    at_least(&samples, "baghchal_commit_seconds_count", 1.0);
    at_least(
        &samples,
        r#"baghchal_commit_seconds_bucket{le="+Inf"}"#,
        1.0,
    );
    at_least(&samples, "baghchal_commit_batch_size_count", 1.0);
    assert!(samples.contains_key("baghchal_tablebase_ready"));
    assert!(samples.contains_key("baghchal_tablebase_build_progress"));
    server.stop().await;
}

#[tokio::test]
async fn metrics_can_move_to_their_own_address() {
    let db = TestDb::sqlite();
    let private = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let private_addr = private.local_addr().unwrap();
    let server = TestServer::start_serving(TestServer::config(&db), Some(private)).await;
    server.create(&request(Opponent::Friend, 0)).await;
    let (status, _, _) = http_with(server.addr, "GET", "/metrics", &[], "").await;
    assert_eq!(status, 404, "not on the main address");
    let samples = scrape(private_addr).await;
    assert!(samples.contains_key("baghchal_tables_open"));
    server.stop().await;
}
