//! The server process is killed without warning (SIGKILL) in the middle of
//! games, restarted on the same database, and every acknowledged action
//! and every broadcast event is still there, on both boards of two-board
//! matches too; unfinished tables resume.
//! On SQLite always, on PostgreSQL when `BAGHCHAL_TEST_POSTGRES` is set.

mod support;

use std::collections::BTreeMap;

use baghchal_protocol::{ClientMessage, GameState, Opponent, ServerMessage, Side, TableCreated};
use support::{send, Server, Ws, PATIENCE};

/// Starts the server on `database_url`.
async fn start(database_url: &str) -> Server {
    Server::start(&["--database-url", database_url]).await
}

/// A table of one board, or a two-board match with `two_boards`.
async fn create(server: &Server, opponent: Opponent, side: Side, two_boards: bool) -> TableCreated {
    let format = if two_boards { "two_boards" } else { "single" };
    server
        .create(&serde_json::json!({
            "opponent": opponent, "side": side, "level": 400, "spectators": 1,
            "format": format
        }))
        .await
}

fn other(side: Side) -> Side {
    match side {
        Side::Goats => Side::Tigers,
        Side::Tigers => Side::Goats,
    }
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

/// What one client saw of its table before the crash: for each board and
/// ply, the action there that the server acknowledged or broadcast.
#[derive(Default, Debug)]
struct Seen {
    committed: BTreeMap<(u8, u16), String>,
}

/// Plays `side` (on board 1; the other side on board 2 of a match) at a
/// table, the first legal action each turn, until the connection dies or
/// every board's game ends.
async fn play(mut ws: Ws, table: String, token: String, side: Side) -> Seen {
    let mut seen = Seen::default();
    if !send(
        &mut ws,
        &ClientMessage::Hello {
            table,
            token: Some(token),
            since: None,
        },
    )
    .await
    {
        return seen;
    }
    let mut pending: BTreeMap<String, (u8, u16, String)> = BTreeMap::new();
    let mut states: BTreeMap<u8, GameState> = BTreeMap::new();
    // The ply at which an action was last sent on each board: nothing more
    // is sent there until its state moves on.
    let mut sent: BTreeMap<u8, u16> = BTreeMap::new();
    let mut two_boards = false;
    let mut next_id = 0u32;
    while let Some(message) = recv(&mut ws).await {
        match message {
            ServerMessage::Snapshot { state, boards, .. } => {
                two_boards = !boards.is_empty();
                states.insert(1, state);
                for board in boards {
                    states.insert(board.state.board.unwrap_or(1), board.state);
                }
            }
            ServerMessage::Event {
                board,
                event,
                state,
                ..
            } => {
                let board = board.unwrap_or(1);
                if let baghchal_protocol::TableEvent::Played { action, .. } = event {
                    seen.committed.insert((board, state.ply - 1), action);
                }
                states.insert(board, state);
            }
            ServerMessage::Ack { id } => {
                let (board, ply, action) = pending.remove(&id).expect("an ack for a sent id");
                seen.committed.insert((board, ply), action);
                continue;
            }
            ServerMessage::Error { code, message, .. } => {
                panic!("refused: {code:?} {message}")
            }
            _ => continue,
        }
        if states.values().all(|state| state.result.is_some()) {
            break;
        }
        for (&board, state) in &states {
            let mine = if board == 1 { side } else { other(side) };
            if state.result.is_some()
                || state.side_to_move != mine
                || sent.get(&board) == Some(&state.ply)
            {
                continue;
            }
            next_id += 1;
            let id = next_id.to_string();
            let action = state.legal[0].to_string();
            pending.insert(id.clone(), (board, state.ply, action.clone()));
            sent.insert(board, state.ply);
            if !send(
                &mut ws,
                &ClientMessage::Action {
                    id,
                    action,
                    board: two_boards.then_some(board),
                },
            )
            .await
            {
                return seen;
            }
        }
    }
    seen
}

async fn crash_and_recover(database_url: &str) {
    let mut server = start(database_url).await;
    let mut tables = Vec::new();
    // Each player with the index of its table.
    let mut players = Vec::new();
    // Three friend tables, the last a two-board match.
    for i in 0..3 {
        let created = create(&server, Opponent::Friend, Side::Goats, i == 2).await;
        let invite = created.opponent_link.as_deref().unwrap();
        let invite = invite.rsplit_once('=').unwrap().1.to_owned();
        // The guest claims its seat first, so that its secret is known.
        let mut guest = connect(&server).await;
        send(
            &mut guest,
            &ClientMessage::Hello {
                table: created.table.clone(),
                token: Some(invite),
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
        let index = tables.len();
        players.push((
            index,
            tokio::spawn(play(host, table.clone(), host_secret.clone(), Side::Goats)),
        ));
        players.push((
            index,
            tokio::spawn(play(guest, table.clone(), guest_secret, Side::Tigers)),
        ));
        tables.push((table, host_secret));
    }
    // Computer tables on each side, then a two-board match against it.
    let mut watch = None;
    for (side, two_boards) in [
        (Side::Goats, false),
        (Side::Tigers, true),
        (Side::Tigers, false),
    ] {
        let created = create(&server, Opponent::Computer, side, two_boards).await;
        watch = created
            .spectator_link
            .as_deref()
            .map(|link| link.rsplit_once('=').unwrap().1.to_owned());
        let secret = created.secret.clone().unwrap();
        let ws = connect(&server).await;
        players.push((
            tables.len(),
            tokio::spawn(play(ws, created.table.clone(), secret.clone(), side)),
        ));
        tables.push((created.table, secret));
    }

    // Let the games run, then kill the server while actions are in
    // flight: a spectator of the last table waits for its 30th ply.
    let mut watcher = connect(&server).await;
    send(
        &mut watcher,
        &ClientMessage::Hello {
            table: tables.last().unwrap().0.clone(),
            token: Some(watch.expect("a spectator link")),
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
    for (table, player) in players {
        seen.push((table, player.await.expect("a player task")));
    }
    let committed: usize = seen.iter().map(|(_, s)| s.committed.len()).sum();
    let on_board_two = seen
        .iter()
        .flat_map(|(_, s)| s.committed.keys())
        .filter(|(board, _)| *board == 2)
        .count();
    assert!(on_board_two > 0, "the matches' second boards were played");
    assert!(committed > 20, "too little was played before the kill");

    // Restart on the same database: every committed action is there.
    let mut server = start(database_url).await;
    let mut moves_of = Vec::new();
    let mut finished = 0;
    for (table, secret) in &tables {
        let mut ws = connect(&server).await;
        send(
            &mut ws,
            &ClientMessage::Hello {
                table: table.clone(),
                token: Some(secret.clone()),
                since: None,
            },
        )
        .await;
        // Each board's moves: board 1 alone, or both of a match.
        let boards: Vec<(u8, Vec<String>, bool)> = loop {
            match recv(&mut ws).await {
                Some(ServerMessage::Snapshot {
                    moves,
                    boards,
                    state,
                    ..
                }) if boards.is_empty() => break vec![(1, moves, state.result.is_some())],
                Some(ServerMessage::Snapshot { boards, .. }) => {
                    break boards
                        .into_iter()
                        .map(|b| {
                            (
                                b.state.board.unwrap_or(1),
                                b.moves,
                                b.state.result.is_some(),
                            )
                        })
                        .collect()
                }
                Some(_) => {}
                None => panic!("no snapshot after the restart"),
            }
        };
        // A game that ended before the kill has its row, and one that did
        // not has none: the row is written with the ending event.
        let mut rows = game_rows(database_url, table).await;
        rows.sort_unstable();
        let ended: Vec<(i64, i64)> = boards
            .iter()
            .filter(|(_, _, over)| *over)
            .map(|(board, _, _)| (1, i64::from(*board)))
            .collect();
        assert_eq!(
            rows, ended,
            "table {table}: the games rows and the ended games differ"
        );
        finished += ended.len();
        moves_of.push(
            boards
                .into_iter()
                .map(|(board, moves, _)| (board, moves))
                .collect::<BTreeMap<u8, Vec<String>>>(),
        );
    }
    eprintln!(
        "{committed} actions acknowledged or seen before the kill ({on_board_two} on second \
         boards); after the restart the tables hold {:?} moves, {finished} games over, each \
         with its row",
        moves_of
            .iter()
            .map(|boards| boards.values().map(Vec::len).collect::<Vec<_>>())
            .collect::<Vec<_>>()
    );
    for (player, (table, seen)) in seen.iter().enumerate() {
        for ((board, ply), action) in &seen.committed {
            let moves = &moves_of[*table][board];
            assert_eq!(
                moves.get(usize::from(*ply)),
                Some(action),
                "player {player}: the action at ply {ply} of board {board} was acknowledged \
                 or broadcast, then lost; the board has {moves:?}"
            );
        }
    }
    server.kill().await;
}

/// The (game, board) of each row of `games` of `table`.
async fn game_rows(database_url: &str, table: &str) -> Vec<(i64, i64)> {
    let sql = "SELECT game, board FROM games WHERE table_id = $1";
    support::table_rows(database_url, sql, table).await
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
    for suffix in ["", "-wal", "-shm", "-events"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", file.display()));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(test_postgres),
    ignore = "BAGHCHAL_TEST_POSTGRES was not set when the tests were built"
)]
async fn a_killed_server_loses_no_acknowledged_action_on_postgres() {
    let admin = std::env::var("BAGHCHAL_TEST_POSTGRES")
        .expect("BAGHCHAL_TEST_POSTGRES was set when the tests were built");
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
