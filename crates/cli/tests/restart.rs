//! A single server stopped with SIGTERM in the middle of a clocked game and
//! started again on the same database: the clock of the side on move
//! stopped with the server (`clock_paused`) and runs again as the table
//! loads (`clock_resumed`), so that the time the server was down is not
//! charged (up to the documented 5 minutes). Checked against the event
//! times the server stored, not against the test's own clock.
//! On SQLite always, on PostgreSQL when `BAGHCHAL_TEST_POSTGRES` is set.

mod support;

use baghchal_protocol::{ClientMessage, GameState, ServerMessage, Side, TableCreated};
use baghchal_table::time::Timestamp;
use support::{connect, recv, send, Server, Ws, PATIENCE};

/// A socket seated with `token` at `table`.
async fn seat(server: &Server, table: &str, token: &str) -> Ws {
    let mut ws = connect(&server.addr).await.expect("a socket");
    let hello = ClientMessage::Hello {
        table: table.into(),
        token: Some(token.into()),
        since: None,
    };
    assert!(send(&mut ws, &hello).await);
    ws
}

/// Reads `ws` until the table's state at `version` or later: a snapshot
/// or an event.
async fn state_at(ws: &mut Ws, version: u64) -> GameState {
    loop {
        let message = tokio::time::timeout(PATIENCE, recv(ws))
            .await
            .expect("the server answers")
            .expect("the socket stays open");
        match message {
            ServerMessage::Snapshot {
                version: v, state, ..
            }
            | ServerMessage::Event {
                version: v, state, ..
            } if v >= version => return state,
            _ => {}
        }
    }
}

/// Plays `action` with id `id` and waits for its event, of `version`.
async fn play(ws: &mut Ws, id: &str, action: &str, version: u64) -> GameState {
    let message = ClientMessage::Action {
        id: id.into(),
        action: action.into(),
        board: None,
    };
    assert!(send(ws, &message).await);
    state_at(ws, version).await
}

/// The kind and the stored time (ms since the epoch) of each event of
/// `table`, by version.
async fn events(database_url: &str, table: &str) -> Vec<(i64, String, i64)> {
    let sql = "SELECT version, kind, created_at FROM events WHERE table_id = $1 ORDER BY version";
    support::table_rows(database_url, sql, table).await
}

/// Stops the server with SIGTERM and waits for it to exit.
async fn stop(mut server: Server) {
    server.signal("TERM").await;
    let status = tokio::time::timeout(PATIENCE, server.child.wait())
        .await
        .expect("the server exits")
        .unwrap();
    assert!(status.success(), "{status}");
}

async fn a_restart_charges_the_side_on_move_nothing_for_the_downtime(database_url: &str) {
    let args = ["--database-url", database_url];
    let server = Server::start(&args).await;
    let created: TableCreated = server
        .create(&serde_json::json!({
            "opponent": "friend", "side": "goats", "spectators": 0,
            "clock": {"initial": 60, "increment": 0}
        }))
        .await;
    let table = created.table.clone();
    let mut host = seat(&server, &table, created.secret.as_deref().unwrap()).await;
    let guest_secret = support::claim(&server.addr, &created).await;
    let mut guest = seat(&server, &table, &guest_secret).await;
    play(&mut host, "1", "c3", 1).await;
    state_at(&mut guest, 1).await;
    let state = play(&mut guest, "1", "a1-a2", 2).await;
    assert_eq!(
        state.clock.as_ref().unwrap().running,
        Some(Side::Goats),
        "the goats' clock runs"
    );
    stop(server).await;

    let server = Server::start(&args).await;
    let mut host = seat(&server, &table, created.secret.as_deref().unwrap()).await;
    // Version 3 paused the goats' clock as the server stopped, version 4
    // runs it again as the table loads.
    let state = state_at(&mut host, 4).await;
    let stored = events(database_url, &table).await;
    let kinds: Vec<&str> = stored.iter().map(|(_, kind, _)| kind.as_str()).collect();
    assert_eq!(
        kinds,
        ["played", "played", "clock_paused", "clock_resumed"],
        "{stored:?}"
    );
    let (turn_started, paused, resumed) = (stored[1].2, stored[2].2, stored[3].2);
    assert!(resumed > paused, "the server was down a while");
    let clock = state.clock.expect("a clocked state");
    assert_eq!(clock.running, Some(Side::Goats));
    // Charged the turn until the stop, and nothing of the downtime.
    let charged = u64::try_from(paused - turn_started).unwrap();
    assert_eq!(clock.goats_ms, 60_000 - charged);
    assert_eq!(clock.tigers_ms, 60_000);
    // The turn runs again from the resumption.
    let started = clock.turn_started_at.expect("a running clock");
    assert_eq!(started, Timestamp::from_millis(resumed).rfc3339());
    stop(server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restarted_server_charges_no_clock_for_its_downtime_on_sqlite() {
    let file = std::env::temp_dir().join(support::unique("baghchal-restart-") + ".db");
    a_restart_charges_the_side_on_move_nothing_for_the_downtime(&format!(
        "sqlite://{}?mode=rwc",
        file.display()
    ))
    .await;
    for suffix in ["", "-wal", "-shm", "-events"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", file.display()));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restarted_server_charges_no_clock_for_its_downtime_on_postgres() {
    use sqlx::Connection;
    let Ok(admin) = std::env::var("BAGHCHAL_TEST_POSTGRES") else {
        eprintln!("note: BAGHCHAL_TEST_POSTGRES is not set; skipping the PostgreSQL run");
        return;
    };
    let name = support::unique("baghchal_restart_");
    let mut conn = sqlx::PgConnection::connect(&admin)
        .await
        .expect("PostgreSQL answers");
    sqlx::query(&format!("CREATE DATABASE {name}"))
        .execute(&mut conn)
        .await
        .unwrap();
    let base = admin.rsplit_once('/').unwrap().0;
    a_restart_charges_the_side_on_move_nothing_for_the_downtime(&format!("{base}/{name}")).await;
    let _ = sqlx::query(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        .execute(&mut conn)
        .await;
}
