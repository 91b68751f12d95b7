//! The storage's own guarantees, through its typed API: a failed group
//! commit is retried event by event, and the guest seat is claimed once
//! however many claim it at the same moment.

use baghchal_protocol::{CreateTable, Opponent, Side, Variant};
use baghchal_server::storage::{Storage, TableRow};
use baghchal_server::token::{self, Token};
use baghchal_table::options::TableOptions;
use baghchal_table::play::{Event, Logged};
use baghchal_table::seat::Player;
use baghchal_table::time::Timestamp;

use crate::common::TestDb;
use crate::on_both;

async fn table(storage: &Storage) -> String {
    let options = TableOptions::parse(&CreateTable {
        opponent: Opponent::Friend,
        side: Side::Goats,
        level: None,
        spectators: 0,
        variant: Variant::default(),
        clock: None,
        format: baghchal_protocol::Format::Single,
        series_games: None,
    })
    .unwrap();
    let id = token::table_id().unwrap();
    storage
        .create_table(
            &TableRow {
                id: id.clone(),
                options,
                host_secret: Some(Token::generate().unwrap().hash()),
                guest_secret: None,
                invite_token: Some(Token::generate().unwrap().hash()),
                watch_token: None,
                players: [None, None],
                lobby: false,
                rated: false,
            },
            None,
        )
        .await
        .unwrap();
    id
}

fn resigned(version: u64) -> Logged {
    Logged {
        version,
        event: Event::Resigned {
            side: baghchal_rules::Side::Goat,
        },
        player: None,
        client_id: None,
        at: Timestamp::from_millis(1_764_547_200_000 + i64::try_from(version).unwrap()),
        board: 1,
    }
}

/// The versions of `table`'s stored events, in order.
async fn stored_versions(storage: &Storage, table: &str) -> Vec<u64> {
    storage
        .events(table)
        .await
        .unwrap()
        .iter()
        .map(|e| e.version)
        .collect()
}

async fn a_failed_batch_is_retried_event_by_event(db: &TestDb) {
    let storage = Storage::connect(&db.url).await.unwrap();
    // With each event's `active` flag, and on PostgreSQL without: there a
    // batch of events alone is one statement, and one with flags a
    // transaction. (SQLite appends events alone to its log, whose versions
    // come from the table's one task, and checks them when it stores them.)
    let flags: &[Option<bool>] = if db.url.starts_with("postgres") {
        &[Some(true), None]
    } else {
        &[Some(true)]
    };
    for &flag in flags {
        let id = table(&storage).await;
        // Forty events and, among them, a second event at version 20:
        // queued together (all are sent before the writer runs), they make
        // one batch, which the duplicate fails.
        let mut versions: Vec<u64> = (1..=40).collect();
        versions.insert(25, 20);
        let appends = versions.iter().map(|&v| {
            let storage = storage.clone();
            let id = id.clone();
            async move { storage.append_event(&id, &resigned(v), flag, None).await }
        });
        let results = futures_util::future::join_all(appends).await;
        let failed: Vec<u64> = versions
            .iter()
            .zip(&results)
            .filter(|(_, r)| r.is_err())
            .map(|(v, _)| *v)
            .collect();
        assert_eq!(failed, vec![20], "only the duplicate fails ({flag:?})");
        assert_eq!(
            stored_versions(&storage, &id).await,
            (1..=40).collect::<Vec<_>>()
        );
    }
    storage.close().await;
}
on_both!(a_failed_batch_is_retried_event_by_event);

/// The PostgreSQL writer keeps its connection from one batch to the next.
/// When the database closes it (a restart, an administrator), the next
/// append, alone in its batch, is stored on a new one, not refused.
#[tokio::test]
#[cfg_attr(
    not(test_postgres),
    ignore = "BAGHCHAL_TEST_POSTGRES was not set when the tests were built"
)]
async fn an_append_after_the_database_closed_the_writers_connection_is_stored() {
    let db = TestDb::postgres()
        .await
        .expect("BAGHCHAL_TEST_POSTGRES names the PostgreSQL server");
    let storage = Storage::connect(&db.url).await.unwrap();
    let id = table(&storage).await;
    storage
        .append_event(&id, &resigned(1), None, None)
        .await
        .unwrap();
    let mut admin = <sqlx::PgConnection as sqlx::Connection>::connect(&db.url)
        .await
        .unwrap();
    // Every other connection to the test's database: the storage's.
    const OTHERS: &str = "FROM pg_stat_activity \
                          WHERE datname = current_database() AND pid <> pg_backend_pid()";
    let closed: Vec<bool> =
        sqlx::query_scalar(&format!("SELECT pg_terminate_backend(pid) {OTHERS}"))
            .fetch_all(&mut admin)
            .await
            .unwrap();
    assert!(
        !closed.is_empty() && closed.iter().all(|&c| c),
        "{closed:?}"
    );
    // The backends end as they read their signal: wait until they have.
    for _ in 0..500 {
        let left: i64 = sqlx::query_scalar(&format!("SELECT count(*) {OTHERS}"))
            .fetch_one(&mut admin)
            .await
            .unwrap();
        if left == 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    for version in 2..=3 {
        storage
            .append_event(&id, &resigned(version), None, None)
            .await
            .unwrap();
    }
    assert_eq!(stored_versions(&storage, &id).await, [1, 2, 3]);
    storage.close().await;
    drop(admin);
    db.cleanup().await;
}

async fn the_guest_seat_is_claimed_once_by_racing_claimers(db: &TestDb) {
    let storage = Storage::connect(&db.url).await.unwrap();
    let id = table(&storage).await;
    let secrets: Vec<Token> = (0..16).map(|_| Token::generate().unwrap()).collect();
    let claims = secrets.iter().map(|secret| {
        let storage = storage.clone();
        let id = id.clone();
        let hash = secret.hash();
        tokio::spawn(async move { storage.claim_guest_seat(&id, &hash, None, None).await })
    });
    let won: Vec<usize> = futures_util::future::join_all(claims)
        .await
        .into_iter()
        .enumerate()
        .filter(|(_, r)| matches!(r, Ok(Ok(true))))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(won.len(), 1, "exactly one claim wins: {won:?}");
    let row = storage.table(&id).await.unwrap().unwrap();
    assert_eq!(row.guest_secret, Some(secrets[won[0]].hash()));
    storage.close().await;
}
on_both!(the_guest_seat_is_claimed_once_by_racing_claimers);

async fn a_series_table_reads_back_its_format_as_another_node_would_load_it(db: &TestDb) {
    let storage = Storage::connect(&db.url).await.unwrap();
    for (format, games) in [
        (baghchal_protocol::Format::Single, None),
        (baghchal_protocol::Format::Series, Some(2)),
        (baghchal_protocol::Format::Series, Some(6)),
    ] {
        let options = TableOptions::parse(&CreateTable {
            format,
            series_games: games,
            ..crate::common::request(Opponent::Computer, 0)
        })
        .unwrap();
        let id = token::table_id().unwrap();
        let row = TableRow {
            id: id.clone(),
            options,
            host_secret: Some(Token::generate().unwrap().hash()),
            guest_secret: None,
            invite_token: None,
            watch_token: None,
            players: [None, None],
            lobby: false,
            rated: false,
        };
        storage.create_table(&row, None).await.unwrap();
        let loaded = storage.table(&id).await.unwrap().unwrap();
        assert_eq!(loaded.options, options);
        assert_eq!(loaded.options.format.series_games(), games);
    }
    storage.close().await;
}
on_both!(a_series_table_reads_back_its_format_as_another_node_would_load_it);

/// A database written before each table's events were clustered in one
/// B-tree keeps them through that migration: they read back as written,
/// and the table takes new ones after them.
#[tokio::test]
async fn events_stored_before_the_clustered_layout_survive_its_migration() {
    let db = TestDb::sqlite();
    // The database as the migrations before that one left it.
    let earlier = std::env::temp_dir().join(format!(
        "baghchal-migrations-{}",
        token::table_id().unwrap()
    ));
    std::fs::create_dir(&earlier).unwrap();
    let all = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../migrations/sqlite");
    for file in std::fs::read_dir(&all).unwrap() {
        let file = file.unwrap();
        if file.file_name().to_string_lossy().as_ref() < "20261203180000" {
            std::fs::copy(file.path(), earlier.join(file.file_name())).unwrap();
        }
    }
    let pool = sqlx::SqlitePool::connect(&db.url).await.unwrap();
    sqlx::migrate::Migrator::new(earlier.as_path())
        .await
        .unwrap()
        .run(&pool)
        .await
        .unwrap();
    sqlx::query(
        "INSERT INTO tables (id, created_at, opponent, host_side, spectator_seats, goats_to_win, \
         first_side, multi_jump, three_tigers, repetition, ply_limit, active) \
         VALUES ('old', 0, 'friend', 'goats', 0, 5, 'goats', 0, 0, 'forbid', 400, 1)",
    )
    .execute(&pool)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO events (table_id, version, kind, side, action, player, client_id, created_at) \
         VALUES ('old', 1, 'played', 'goats', 'c3', 'host', 'a', 10), \
                ('old', 2, 'played', 'tigers', 'a1-b2', 'guest', NULL, 20)",
    )
    .execute(&pool)
    .await
    .unwrap();
    pool.close().await;
    std::fs::remove_dir_all(&earlier).unwrap();

    let storage = Storage::connect(&db.url).await.unwrap();
    storage
        .append_event("old", &resigned(3), Some(false), None)
        .await
        .unwrap();
    let played = |version: u64, side, action: &str, player, client_id: Option<&str>, at| Logged {
        version,
        event: Event::Played {
            side,
            action: action.parse().unwrap(),
        },
        player: Some(player),
        client_id: client_id.map(str::to_owned),
        at: Timestamp::from_millis(at),
        board: 1,
    };
    assert_eq!(
        storage.events("old").await.unwrap(),
        vec![
            played(
                1,
                baghchal_rules::Side::Goat,
                "c3",
                Player::Host,
                Some("a"),
                10
            ),
            played(
                2,
                baghchal_rules::Side::Tiger,
                "a1-b2",
                Player::Guest,
                None,
                20
            ),
            resigned(3),
        ]
    );
    storage.close().await;
    let pool = sqlx::SqlitePool::connect(&db.url).await.unwrap();
    let (sql,): (String,) =
        sqlx::query_as("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'events'")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert!(sql.contains("WITHOUT ROWID"), "{sql}");
}
