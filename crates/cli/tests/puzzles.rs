//! `baghchal puzzles build` with the site's finished games: the `games`
//! rows of a small SQLite database.

use std::path::PathBuf;
use std::process::Command;

use baghchal_engine::puzzle::{Origin, Puzzle};
use baghchal_engine::Engine;
use baghchal_rules::{Game, Record};

/// The binary, with none of the variables that say where the tablebase
/// or the database is.
fn command(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_baghchal"));
    command
        .args(args)
        .env_remove("BAGHCHAL_TABLEBASE")
        .env_remove("BAGHCHAL_DATA_DIR")
        .env_remove("DATABASE_URL");
    command
}

/// A fresh directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("baghchal-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The record of the fixture's game (a game of `docs/strength`, as the
/// server stores a record), in which the tigers blunder at ply 150 of the
/// movement phase: after it the goats trap every tiger in three plies,
/// with only one move at each turn.
const PLAYED: &str = include_str!("data/site-game.txt");

/// A database of the server's schema whose `games` rows hold `PLAYED`
/// (finished) and an aborted game of the same record.
fn database_with_games(dir: &std::path::Path) -> String {
    let url = format!("sqlite://{}?mode=rwc", dir.join("games.db").display());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let storage = baghchal_server::storage::Storage::connect(&url)
            .await
            .unwrap();
        storage.close().await;
        use sqlx::ConnectOptions;
        use std::str::FromStr;
        // Rows of games only: their tables are not needed here.
        let mut conn = sqlx::sqlite::SqliteConnectOptions::from_str(&url)
            .unwrap()
            .foreign_keys(false)
            .connect()
            .await
            .unwrap();
        for (n, reason) in [(1, "trapped"), (2, "aborted")] {
            sqlx::query(
                "INSERT INTO games (table_id, game, board, version, host_seat, guest_seat, \
                 host_side, winner, reason, plies, started_at, ended_at, format, record) \
                 VALUES ('t1', $1, 1, 10, 'player', 'player', 'goats', NULL, $2, 0, 0, $3, \
                 'single', $4)",
            )
            .bind(n)
            .bind(reason)
            .bind(1_000 * n)
            .bind(PLAYED)
            .execute(&mut conn)
            .await
            .unwrap();
        }
    });
    url
}

#[test]
fn the_builder_needs_a_source_and_the_tablebase() {
    let out = command(&["puzzles", "build", "--out", "/dev/null"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("--database-url"), "{err}");

    let dir = scratch("puzzles-no-tb");
    let url = database_with_games(&dir);
    let tb = dir.join("none.tb");
    let out = command(&[
        "puzzles",
        "build",
        "--database-url",
        &url,
        "--tablebase",
        tb.to_str().unwrap(),
    ])
    .output()
    .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("tablebase"), "{err}");
}

#[test]
#[ignore = "needs the built tablebase: BAGHCHAL_TABLEBASE=baghchal.tb (baghchal tablebase build)"]
fn the_builder_takes_the_positions_right_after_the_blunders_of_the_sites_games() {
    let tb = std::env::var("BAGHCHAL_TABLEBASE").expect("BAGHCHAL_TABLEBASE names the tablebase");
    let dir = scratch("puzzles-db");
    let url = database_with_games(&dir);
    let out_file = dir.join("puzzles.txt");
    let out = command(&[
        "puzzles",
        "build",
        "--database-url",
        &url,
        "--tablebase",
        &tb,
        "--out",
        out_file.to_str().unwrap(),
    ])
    .output()
    .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{err}");
    // The aborted row is left out: one played game.
    assert!(err.contains("from 0 recorded and 1 played games"), "{err}");
    let text = std::fs::read_to_string(&out_file).unwrap();
    let built: Vec<Puzzle> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| Puzzle::from_line(l).unwrap())
        .collect();
    let lines: Vec<String> = built.iter().map(Puzzle::to_line).collect();
    assert_eq!(
        lines,
        [format!(
            "{}\tTTGGG/G.GG./GTGG./.TGGG/GGG.G g 0 4 150\tc4-b4 b2-a2 c1-b2\ttrap endgame\t1100\tblunder",
            built[0].id
        )],
        "the position right after the tigers' blunder, and no other"
    );

    // Each is the position right after a blunder of the game, checked
    // under the house rules from its own start, the only good answer.
    let game: Game = PLAYED.parse::<Record>().unwrap().replay().unwrap();
    let engine = Engine::with_tablebase(std::sync::Arc::new(
        baghchal_tablebase::Tablebase::load(std::path::Path::new(&tb)).unwrap(),
    ));
    assert_eq!(
        built,
        engine.find_blunder_puzzles(std::slice::from_ref(&game))
    );
    let mut position = game.start().clone();
    let mut after_each = Vec::new();
    for &action in game.actions() {
        position.play_unchecked(action);
        after_each.push(position.to_string());
    }
    for puzzle in &built {
        assert_eq!(puzzle.origin, Origin::Blunder);
        assert_eq!(puzzle.check(), Ok(()));
        assert!(
            after_each.contains(&puzzle.start.to_string()),
            "{}",
            puzzle.id
        );
    }
}
