//! Tables nobody played at, and games nobody plays on, stop being kept: a
//! day after its creation a table nobody played at is not loaded at a
//! start (nor taken over), and still answers its host; a game with no
//! event for a day (30 days at a correspondence table) ends as abandoned,
//! lost by the side to move.

use std::time::Duration;

use baghchal_protocol::{
    ClientMessage, CreateTable, EndReason, GameRecord, GameResult, Opponent, ServerMessage, Side,
    TableEvent, TimeControl,
};
use baghchal_table::abandon::IDLE_LIMIT;

/// A guard against hanging, not a timing assertion.
const PATIENCE: Duration = Duration::from_secs(30);

use crate::common::{http_with, manual_clock, request, Client, Joined, Seated, TestDb, TestServer};
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

/// The result of the game a joined socket sees: in its snapshot, or,
/// when the table ends it after the join, in the event that does.
async fn result_seen(client: &mut Client, joined: &Joined) -> Option<GameResult> {
    let (_, _, state) = joined.snapshot().expect("a snapshot");
    if state.result.is_some() {
        return state.result;
    }
    client
        .until(|m| match m {
            ServerMessage::Event {
                event: TableEvent::Abandoned { .. } | TableEvent::Aborted { .. },
                state,
                ..
            } => Some(state.result),
            _ => None,
        })
        .await
}

async fn a_game_with_no_event_for_a_day_ends_as_abandoned_but_a_correspondence_one_waits(
    db: &TestDb,
) {
    let server = TestServer::start(db).await;
    let mut friendly = Seated::new(&server, &request(Opponent::Friend, 0)).await;
    // The goats (the host) to move.
    friendly.play_out(&["c3", "a1-a2"]).await;
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

    // Within the day both go on.
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
    // Both load at the start; the one whose game ends as abandoned leaves
    // memory at once, the other after the idle timeout.
    tokio::time::timeout(PATIENCE, async {
        while tables_open(&server).await != 1.0 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the ended table unloads");
    // The idle game's host comes back to a game lost.
    let mut host = server.connect().await;
    let secret = friendly.created.secret.clone().unwrap();
    let joined = host.hello(friendly.table(), &secret, None).await;
    assert_eq!(
        result_seen(&mut host, &joined).await,
        Some(GameResult {
            winner: Some(Side::Tigers),
            reason: EndReason::Abandoned,
        })
    );
    // Stored as a finished game, with the event that ended it.
    let path = format!("/api/tables/{}/games/1", friendly.table());
    let (status, body) = server.get(&path).await;
    assert_eq!(status, 200, "{body}");
    let record: GameRecord = serde_json::from_str(&body).unwrap();
    assert_eq!(
        record.result,
        Some(GameResult {
            winner: Some(Side::Tigers),
            reason: EndReason::Abandoned,
        })
    );
    // The correspondence game goes on.
    let mut slow_host = server.connect().await;
    let secret = slow.created.secret.clone().unwrap();
    let joined = slow_host.hello(slow.table(), &secret, None).await;
    let (_, _, state) = joined.snapshot().unwrap();
    assert_eq!(state.result, None);
    server.stop().await;

    // The ended game's table no longer loads at a start.
    let server = TestServer::start(db).await;
    assert_eq!(tables_open(&server).await, 1.0);
    server.stop().await;

    // Thirty days on, the correspondence game, still abortable, is
    // aborted by the side to move.
    for rows in ["tables", "events"] {
        age(db, rows, Duration::from_secs(30 * 24 * 60 * 60)).await;
    }
    let server = TestServer::start(db).await;
    let mut slow_host = server.connect().await;
    let joined = slow_host.hello(slow.table(), &secret, None).await;
    assert_eq!(
        result_seen(&mut slow_host, &joined).await,
        Some(GameResult {
            winner: None,
            reason: EndReason::Aborted,
        })
    );
    server.stop().await;
}
on_both!(a_game_with_no_event_for_a_day_ends_as_abandoned_but_a_correspondence_one_waits);

async fn a_player_who_leaves_the_game_on_their_turn_for_a_day_loses_it(db: &TestDb) {
    let clock = manual_clock();
    let server = TestServer::start_with(TestServer::config_with_clock(db, &clock)).await;
    let mut seated = Seated::new(&server, &request(Opponent::Friend, 0)).await;
    seated.play_out(&["c3", "a1-a2", "c4"]).await;
    // The tigers (the guest) to move, with both still connected.
    clock.advance(IDLE_LIMIT - Duration::from_secs(1));
    assert!(seated.host.sync().await.is_empty());
    clock.advance(Duration::from_secs(1));
    let state = seated.host.event_at(4).await;
    assert_eq!(
        state.result,
        Some(GameResult {
            winner: Some(Side::Goats),
            reason: EndReason::Abandoned,
        })
    );
    assert_eq!(state.tally.host, 1);
    let event = seated
        .guest
        .until(|m| match m {
            ServerMessage::Event {
                version: 4, event, ..
            } => Some(event.clone()),
            _ => None,
        })
        .await;
    assert_eq!(event, TableEvent::Abandoned { side: Side::Tigers });
    server.stop().await;
}
on_both!(a_player_who_leaves_the_game_on_their_turn_for_a_day_loses_it);

/// A table that expired unplayed is kept again from its first action on,
/// and its flag follows its game after that: the writer leaves the flag
/// alone only while it is unchanged.
async fn an_expired_table_is_kept_again_from_its_first_action(db: &TestDb) {
    let server = TestServer::start(db).await;
    let seated = Seated::new(&server, &request(Opponent::Friend, 0)).await;
    let table = seated.created.table.clone();
    let host_secret = seated.created.secret.clone().unwrap();
    let guest_secret = seated.guest_secret.clone();
    drop(seated);
    server.stop().await;

    age_tables(db, Duration::from_secs(25 * 60 * 60)).await;
    let server = TestServer::start(db).await;
    assert_eq!(tables_open(&server).await, 0.0, "expired at the start");
    let mut host = server.connect().await;
    host.hello(&table, &host_secret, None).await;
    let mut guest = server.connect().await;
    guest.hello(&table, &guest_secret, None).await;
    host.play_acked("c3").await;
    guest.play_acked("a1-b2").await;
    server.stop().await;

    // Kept at the next start; then its game ends, which the writer stores
    // as a change of the flag it last set.
    let server = TestServer::start(db).await;
    assert_eq!(tables_open(&server).await, 1.0, "kept again once played");
    let mut host = server.connect().await;
    host.hello(&table, &host_secret, None).await;
    host.send(&ClientMessage::Resign {
        id: None,
        board: None,
    })
    .await;
    host.event_at(3).await;
    server.stop().await;

    let server = TestServer::start(db).await;
    assert_eq!(tables_open(&server).await, 0.0, "its game is over");
    server.stop().await;
}
on_both!(an_expired_table_is_kept_again_from_its_first_action);
