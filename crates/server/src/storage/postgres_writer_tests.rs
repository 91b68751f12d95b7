//! The writer's connections, on a scratch database: the plans PostgreSQL
//! keeps for the writer's statements (one made once, that reaches the
//! rows of `tables` by key, in a young database as in one grown and
//! analyzed), and which errors say the connection is lost.

use sqlx::postgres::PgConnectOptions;
use sqlx::{Connection as _, PgConnection};

use super::{
    connect_options, connection_lost, CURRENT_LEASES, INSERT_EVENTS_UNDER_LEASES, SET_FLAGS,
};
use crate::storage::StorageError;

/// Each statement that reads `tables`, and arguments to explain it with.
const STATEMENTS: [(&str, &str, &str); 3] = [
    ("current_leases", CURRENT_LEASES, "('{a,b}', '{1,1}')"),
    ("set_flags", SET_FLAGS, "('{a}', '{1}')"),
    (
        "insert_under_leases",
        INSERT_EVENTS_UNDER_LEASES,
        "('{a}', '{1}', '{played}', '{goat}', '{c3}', '{host}', '{x}', '{1}', '{1}', '{1}', \
         '{a}', '{1}')",
    ),
];

/// A fresh database with the schema, dropped by [`Scratch::remove`].
struct Scratch {
    options: PgConnectOptions,
    name: String,
    admin: PgConnection,
}

impl Scratch {
    async fn new() -> Scratch {
        let admin_url = std::env::var("BAGHCHAL_TEST_POSTGRES")
            .expect("BAGHCHAL_TEST_POSTGRES names the PostgreSQL server");
        let mut admin = PgConnection::connect(&admin_url).await.unwrap();
        let mut bytes = [0u8; 8];
        getrandom::fill(&mut bytes).unwrap();
        let name = format!("baghchal_test_{:016x}", u64::from_le_bytes(bytes));
        sqlx::query(&format!("CREATE DATABASE {name}"))
            .execute(&mut admin)
            .await
            .unwrap();
        let options = admin_url
            .parse::<PgConnectOptions>()
            .unwrap()
            .database(&name);
        let mut conn = PgConnection::connect_with(&options).await.unwrap();
        sqlx::migrate!("../../migrations/postgres")
            .run(&mut conn)
            .await
            .unwrap();
        conn.close().await.unwrap();
        Scratch {
            options,
            name,
            admin,
        }
    }

    async fn remove(mut self) {
        sqlx::query(&format!("DROP DATABASE {} WITH (FORCE)", self.name))
            .execute(&mut self.admin)
            .await
            .unwrap();
    }
}

/// Each statement's plan on a connection of the writer's, as it keeps
/// it: prepared, then explained for the arguments of [`STATEMENTS`].
async fn kept_plans(options: &PgConnectOptions) -> Vec<(&'static str, String)> {
    let mut conn = PgConnection::connect_with(&connect_options(options.clone()))
        .await
        .unwrap();
    let mut plans = Vec::new();
    for (name, statement, arguments) in STATEMENTS {
        sqlx::raw_sql(&format!("PREPARE {name} AS {statement}"))
            .execute(&mut conn)
            .await
            .unwrap();
        let lines: Vec<String> = sqlx::query_scalar(&format!("EXPLAIN EXECUTE {name}{arguments}"))
            .fetch_all(&mut conn)
            .await
            .unwrap();
        plans.push((name, lines.join("\n")));
    }
    // No statement was planned for its arguments.
    let custom: Vec<(String, i64)> = sqlx::query_as(
        "SELECT name, custom_plans FROM pg_prepared_statements WHERE custom_plans > 0",
    )
    .fetch_all(&mut conn)
    .await
    .unwrap();
    assert!(custom.is_empty(), "planned for their arguments: {custom:?}");
    conn.close().await.unwrap();
    plans
}

fn assert_by_key(plans: &[(&str, String)], database: &str) {
    for (name, plan) in plans {
        assert!(
            plan.contains("Index Scan using tables_pkey on tables") && !plan.contains("Seq Scan"),
            "{name}, {database}:\n{plan}"
        );
    }
}

#[tokio::test]
#[cfg_attr(
    not(test_postgres),
    ignore = "BAGHCHAL_TEST_POSTGRES was not set when the tests were built"
)]
async fn the_writers_kept_plans_reach_tables_by_key() {
    let db = Scratch::new().await;
    // A young database: `tables` is empty and was never analyzed.
    assert_by_key(&kept_plans(&db.options).await, "empty");
    // Grown and analyzed.
    let mut conn = PgConnection::connect_with(&db.options).await.unwrap();
    sqlx::raw_sql(
        "INSERT INTO tables (id, created_at, opponent, host_side, spectator_seats, \
         goats_to_win, first_side, multi_jump, three_tigers, repetition, ply_limit, active) \
         SELECT 'table' || n, 0, 'friend', 'goats', 0, 20, 'goats', 0, 0, 'forbid', 0, n % 2 \
         FROM generate_series(1, 5000) AS n; \
         ANALYZE tables",
    )
    .execute(&mut conn)
    .await
    .unwrap();
    conn.close().await.unwrap();
    assert_by_key(&kept_plans(&db.options).await, "5,000 tables, analyzed");
    db.remove().await;
}

/// A transaction left idle past the database's limit ends its session:
/// the error the connection's next statement gets says it is lost, so
/// that the writer takes another rather than try it again.
#[tokio::test]
#[cfg_attr(
    not(test_postgres),
    ignore = "BAGHCHAL_TEST_POSTGRES was not set when the tests were built"
)]
async fn a_transaction_ended_for_idling_loses_its_connection() {
    let db = Scratch::new().await;
    let mut conn = PgConnection::connect_with(
        &connect_options(db.options.clone())
            .options([("idle_in_transaction_session_timeout", "50ms")]),
    )
    .await
    .unwrap();
    sqlx::raw_sql("BEGIN").execute(&mut conn).await.unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    let error = StorageError::from(
        sqlx::query("SELECT 1")
            .execute(&mut conn)
            .await
            .expect_err("the database ended the session"),
    );
    assert!(connection_lost(&error), "{error:?}");
    // A refused statement is not a lost connection.
    let mut conn = PgConnection::connect_with(&db.options).await.unwrap();
    let error = StorageError::from(
        sqlx::query("SELECT 1 / 0")
            .execute(&mut conn)
            .await
            .expect_err("division by zero"),
    );
    assert!(!connection_lost(&error), "{error:?}");
    conn.close().await.unwrap();
    db.remove().await;
}
