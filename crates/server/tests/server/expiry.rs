//! Tables nobody played at, and games nobody plays on, stop being kept: a
//! day after its creation a table nobody played at is not loaded at a
//! start (nor taken over), nor is one whose game had no action for a day
//! (30 days at a correspondence table); an expired table still answers
//! its host.

use std::time::Duration;

use baghchal_protocol::{CreateTable, Opponent, TimeControl};

use crate::common::{http_with, request, Seated, TestDb, TestServer};
use crate::on_both;

/// Moves every table's creation `by` into the past.
async fn age_tables(db: &TestDb, by: Duration) {
    age(db, "tables", by).await;
}

/// Moves the rows of `rows` (`tables` or `events`) `by` into the past.
async fn age(db: &TestDb, rows: &str, by: Duration) {
    let sql = format!(
        "UPDATE {rows} SET created_at = created_at - {}",
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

async fn a_game_with_no_action_for_a_day_is_not_loaded_at_a_start_but_a_correspondence_one_is(
    db: &TestDb,
) {
    let server = TestServer::start(db).await;
    let mut friendly = Seated::new(&server, &request(Opponent::Friend, 0)).await;
    friendly.play_out(&["c3"]).await;
    let correspondence = CreateTable {
        clock: Some(TimeControl {
            initial: None,
            increment: None,
            days_per_action: Some(3),
        }),
        ..request(Opponent::Friend, 0)
    };
    let mut slow = Seated::new(&server, &correspondence).await;
    slow.play_out(&["c3"]).await;
    server.stop().await;

    // Within the day both are kept.
    for rows in ["tables", "events"] {
        age(db, rows, Duration::from_secs(23 * 60 * 60)).await;
    }
    let server = TestServer::start(db).await;
    assert_eq!(tables_open(&server).await, 2.0);
    server.stop().await;

    for rows in ["tables", "events"] {
        age(db, rows, Duration::from_secs(2 * 60 * 60)).await;
    }
    let server = TestServer::start(db).await;
    assert_eq!(tables_open(&server).await, 1.0);
    // The idle game's host can still come back to it.
    let mut host = server.connect().await;
    let secret = friendly.created.secret.clone().unwrap();
    host.hello(friendly.table(), &secret, None).await;
    assert_eq!(tables_open(&server).await, 2.0);
    server.stop().await;
}
on_both!(a_game_with_no_action_for_a_day_is_not_loaded_at_a_start_but_a_correspondence_one_is);
