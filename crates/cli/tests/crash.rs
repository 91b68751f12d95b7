//! The server process is killed without warning (SIGKILL) in the middle of
//! games, restarted on the same database, and every acknowledged action
//! and every broadcast event is still there; unfinished tables resume.
//! On SQLite always, on PostgreSQL when `BAGHCHAL_TEST_POSTGRES` is set.

mod support;

use std::collections::BTreeMap;

use baghchal_protocol::{ClientMessage, Opponent, ServerMessage, Side, TableCreated};
use support::{send, Server, Ws, PATIENCE};

/// Starts the server on `database_url`.
async fn start(database_url: &str) -> Server {
    Server::start(&["--database-url", database_url]).await
}

async fn create(server: &Server, opponent: Opponent, side: Side) -> TableCreated {
    server
        .create(&serde_json::json!({
            "opponent": opponent, "side": side, "level": 400, "spectators": 1
        }))
        .await
}

async fn connect(server: &Server) -> Ws {
    support::connect(&server.addr).await.expect("a socket")
}

/// The next message, or `None` once the connection is gone or silent.
async fn recv(ws: &mut Ws) -> Option<ServerMessage> {
    tokio::time::timeout(PATIENCE, support::recv(ws))
        .await
        .ok()
        .flatten()
}

/// What one client saw of its table before the crash: for each ply, the
/// action there that the server acknowledged or broadcast.
#[derive(Default, Debug)]
struct Seen {
    committed: BTreeMap<u16, String>,
}

/// Plays `side` at a table (the first legal action each turn) until the
/// connection dies or the game ends.
async fn play(mut ws: Ws, table: String, token: String, side: Side) -> Seen {
    let mut seen = Seen::default();
    if !send(
        &mut ws,
        &ClientMessage::Hello {
            table,
            token,
            since: None,
        },
    )
    .await
    {
        return seen;
    }
    let mut pending: BTreeMap<String, (u16, String)> = BTreeMap::new();
    let mut next_id = 0u32;
    while let Some(message) = recv(&mut ws).await {
        let state = match message {
            ServerMessage::Snapshot { state, .. } => state,
            ServerMessage::Event { event, state, .. } => {
                if let baghchal_protocol::TableEvent::Played { action, .. } = event {
                    seen.committed.insert(state.ply - 1, action);
                }
                state
            }
            ServerMessage::Ack { id } => {
                let (ply, action) = pending.remove(&id).expect("an ack for a sent id");
                seen.committed.insert(ply, action);
                continue;
            }
            ServerMessage::Error { code, message, .. } => {
                panic!("refused: {code:?} {message}")
            }
            _ => continue,
        };
        if state.result.is_some() {
            break;
        }
        if state.side_to_move == side {
            next_id += 1;
            let id = next_id.to_string();
            let action = state.legal[0].clone();
            pending.insert(id.clone(), (state.ply, action.clone()));
            if !send(
                &mut ws,
                &ClientMessage::Action {
                    id,
                    action,
                    board: None,
                },
            )
            .await
            {
                break;
            }
        }
    }
    seen
}

async fn crash_and_recover(database_url: &str) {
    let mut server = start(database_url).await;
    let mut tables = Vec::new();
    let mut players = Vec::new();
    for _ in 0..3 {
        let created = create(&server, Opponent::Friend, Side::Goats).await;
        let invite = created.opponent_link.as_deref().unwrap();
        let invite = invite.rsplit_once('=').unwrap().1.to_owned();
        // The guest claims its seat first, so that its secret is known.
        let mut guest = connect(&server).await;
        send(
            &mut guest,
            &ClientMessage::Hello {
                table: created.table.clone(),
                token: invite,
                since: None,
            },
        )
        .await;
        let Some(ServerMessage::Welcome {
            secret: Some(guest_secret),
            ..
        }) = recv(&mut guest).await
        else {
            panic!("the claim gives a secret")
        };
        drop(guest);
        let host = connect(&server).await;
        let guest = connect(&server).await;
        let table = created.table.clone();
        let host_secret = created.secret.clone().unwrap();
        players.push(tokio::spawn(play(
            host,
            table.clone(),
            host_secret.clone(),
            Side::Goats,
        )));
        players.push(tokio::spawn(play(
            guest,
            table.clone(),
            guest_secret,
            Side::Tigers,
        )));
        tables.push((table, host_secret));
    }
    let mut watch = None;
    for side in [Side::Goats, Side::Tigers] {
        let created = create(&server, Opponent::Computer, side).await;
        watch = created
            .spectator_link
            .as_deref()
            .map(|link| link.rsplit_once('=').unwrap().1.to_owned());
        let secret = created.secret.clone().unwrap();
        let ws = connect(&server).await;
        players.push(tokio::spawn(play(
            ws,
            created.table.clone(),
            secret.clone(),
            side,
        )));
        tables.push((created.table, secret));
    }

    // Let the games run, then kill the server while actions are in
    // flight: a spectator of the last table waits for its 30th ply.
    let mut watcher = connect(&server).await;
    send(
        &mut watcher,
        &ClientMessage::Hello {
            table: tables.last().unwrap().0.clone(),
            token: watch.expect("a spectator link"),
            since: None,
        },
    )
    .await;
    loop {
        match recv(&mut watcher).await {
            Some(ServerMessage::Snapshot { state, .. } | ServerMessage::Event { state, .. })
                if state.ply >= 30 || state.result.is_some() =>
            {
                break
            }
            Some(ServerMessage::Error { message, .. }) => panic!("{message}"),
            Some(_) => {}
            None => panic!("the spectator lost its socket"),
        }
    }
    server.kill().await;

    let mut seen = Vec::new();
    for player in players {
        seen.push(player.await.expect("a player task"));
    }
    let committed: usize = seen.iter().map(|s| s.committed.len()).sum();
    assert!(committed > 20, "too little was played before the kill");

    // Restart on the same database: every committed action is there.
    let mut server = start(database_url).await;
    let mut moves_of = Vec::new();
    for (table, secret) in &tables {
        let mut ws = connect(&server).await;
        send(
            &mut ws,
            &ClientMessage::Hello {
                table: table.clone(),
                token: secret.clone(),
                since: None,
            },
        )
        .await;
        let moves = loop {
            match recv(&mut ws).await {
                Some(ServerMessage::Snapshot { moves, .. }) => break moves,
                Some(_) => {}
                None => panic!("no snapshot after the restart"),
            }
        };
        moves_of.push(moves);
    }
    eprintln!(
        "{committed} actions acknowledged or seen before the kill; after the restart the \
         tables hold {:?} moves",
        moves_of.iter().map(Vec::len).collect::<Vec<_>>()
    );
    // Players 0..6 are the friend tables' (two per table), 6 and 7 the
    // computer tables'.
    let table_of_player = [0, 0, 1, 1, 2, 2, 3, 4];
    for (player, seen) in seen.iter().enumerate() {
        let moves = &moves_of[table_of_player[player]];
        for (ply, action) in &seen.committed {
            assert_eq!(
                moves.get(usize::from(*ply)),
                Some(action),
                "player {player}: the action at ply {ply} was acknowledged or broadcast, \
                 then lost; the table has {moves:?}"
            );
        }
    }
    server.kill().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_server_loses_no_acknowledged_action_on_sqlite() {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).unwrap();
    let file = std::env::temp_dir().join(format!(
        "baghchal-crash-{:016x}.db",
        u64::from_le_bytes(bytes)
    ));
    crash_and_recover(&format!("sqlite://{}?mode=rwc", file.display())).await;
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", file.display()));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_server_loses_no_acknowledged_action_on_postgres() {
    let Ok(admin) = std::env::var("BAGHCHAL_TEST_POSTGRES") else {
        eprintln!("note: BAGHCHAL_TEST_POSTGRES is not set; skipping the PostgreSQL run");
        return;
    };
    use sqlx::Connection;
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).unwrap();
    let name = format!("baghchal_crash_{:016x}", u64::from_le_bytes(bytes));
    let mut conn = sqlx::PgConnection::connect(&admin)
        .await
        .expect("BAGHCHAL_TEST_POSTGRES is set but PostgreSQL does not answer");
    sqlx::query(&format!("CREATE DATABASE {name}"))
        .execute(&mut conn)
        .await
        .unwrap();
    let base = admin.rsplit_once('/').unwrap().0;
    crash_and_recover(&format!("{base}/{name}")).await;
    let _ = sqlx::query(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        .execute(&mut conn)
        .await;
}
