//! Tables nobody played at stop being kept: a day after its creation such
//! a table is not loaded at a start (nor taken over), while a table where
//! someone played is; the expired one still answers its host.

use std::time::Duration;

use baghchal_protocol::Opponent;

use crate::common::{http_with, request, Seated, TestDb, TestServer};
use crate::on_both;

/// Moves every table's creation `by` into the past.
async fn age_tables(db: &TestDb, by: Duration) {
    let sql = format!(
        "UPDATE tables SET created_at = created_at - {}",
        by.as_millis()
    );
    if db.url.starts_with("sqlite:") {
        let pool = sqlx::SqlitePool::connect(&db.url).await.unwrap();
        sqlx::query(&sql).execute(&pool).await.unwrap();
        pool.close().await;
    } else {
        let pool = sqlx::PgPool::connect(&db.url).await.unwrap();
        sqlx::query(&sql).execute(&pool).await.unwrap();
        pool.close().await;
    }
}

/// The server's `baghchal_tables_open`.
async fn tables_open(server: &TestServer) -> f64 {
    let (status, _, body) = http_with(server.addr, "GET", "/metrics", &[], "").await;
    assert_eq!(status, 200, "{body}");
    body.lines()
        .find_map(|line| line.strip_prefix("baghchal_tables_open "))
        .and_then(|value| value.trim().parse().ok())
        .unwrap_or_else(|| panic!("no baghchal_tables_open in {body}"))
}

async fn a_table_nobody_played_at_is_not_loaded_at_a_start_after_a_day(db: &TestDb) {
    let server = TestServer::start(db).await;
    // Created, and never joined.
    let unplayed = server.create(&request(Opponent::Friend, 0)).await;
    // Created a day ago too, but played at.
    let mut seated = Seated::new(&server, &request(Opponent::Friend, 0)).await;
    seated.play_out(&["c3"]).await;
    server.stop().await;

    // Within the day both are kept.
    age_tables(db, Duration::from_secs(23 * 60 * 60)).await;
    let server = TestServer::start(db).await;
    assert_eq!(tables_open(&server).await, 2.0);
    server.stop().await;

    age_tables(db, Duration::from_secs(2 * 60 * 60)).await;
    let server = TestServer::start(db).await;
    assert_eq!(tables_open(&server).await, 1.0);
    // Its host can still come back to it.
    let mut host = server.connect().await;
    host.hello(&unplayed.table, unplayed.secret.as_deref().unwrap(), None)
        .await;
    assert_eq!(tables_open(&server).await, 2.0);
    server.stop().await;
}
on_both!(a_table_nobody_played_at_is_not_loaded_at_a_start_after_a_day);
