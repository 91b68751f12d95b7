//! The PyPI `baghchal` package replays the games this crate writes in its
//! notation: `tests/pypi/replay.py` (which installs the package with pip
//! when it is missing) reads each move list with the package, and the
//! package's own move list, position and result must be the ones written
//! here. The test is skipped, with a note, only when pip cannot reach the
//! package registry.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Mutex;

use baghchal_rules::notation::{pypi, Format};
use baghchal_rules::{notation, Game, Rules, Side};
use serde_json::Value;

/// One package install at a time: the tests of this file share its folder.
static PACKAGE: Mutex<()> = Mutex::new(());

/// What the package makes of each move list, one JSON object each; `None`
/// (with a note) when pip cannot reach the registry to install it.
fn package_replay(lists: &[&str]) -> Option<Vec<Value>> {
    let _one = PACKAGE.lock().unwrap_or_else(|e| e.into_inner());
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut child = Command::new("python3")
        .arg(root.join("tests/pypi/replay.py"))
        .arg(PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("pypi-baghchal"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("python3 runs tests/pypi/replay.py");
    let input: String = lists.iter().map(|t| format!("{t}\n")).collect();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    if output.status.code() == Some(3) {
        eprintln!("note: {}", stdout.trim());
        return None;
    }
    assert!(output.status.success(), "replay.py failed: {stdout}");
    let answers: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), lists.len());
    Some(answers)
}

/// A game of seeded random legal actions, to its end.
fn random_game(seed: u64) -> Game {
    let mut game = Game::new(Rules::default());
    let mut state = seed;
    while !game.is_finished() {
        let legal = game.position().legal_actions();
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        game.play(legal[(state >> 33) as usize % legal.len()])
            .unwrap();
    }
    game
}

#[test]
fn the_pypi_package_replays_the_games_written_here() {
    // Seed 2263 of the package's rules ends at ply 49 in the package's
    // own draw, a board seen for the third time (see tests/notation.rs).
    let drawn = {
        let mut game = Game::new(pypi::rules());
        let mut state = 2263u64;
        while game.actions().len() < 49 {
            let legal = game.position().legal_actions();
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            game.play(legal[(state >> 33) as usize % legal.len()])
                .unwrap();
        }
        game
    };
    let games: Vec<(Game, String)> = (0..40)
        .map(random_game)
        .chain([drawn])
        .filter_map(|g| {
            let text = notation::write(Format::Pypi, &g).ok()?;
            Some((g, text))
        })
        .collect();
    assert!(
        games.len() >= 30,
        "only {} games can be written",
        games.len()
    );
    let lists: Vec<&str> = games.iter().map(|(_, t)| t.as_str()).collect();
    let Some(answers) = package_replay(&lists) else {
        return;
    };
    let mut finished = 0;
    for ((game, text), answer) in games.iter().zip(&answers) {
        assert_eq!(answer["error"], Value::Null, "{text}");
        assert_eq!(answer["pgn"], text.as_str());
        assert_eq!(answer["moves"], game.actions().len());
        let fen = pypi::write_fen(game.position()).unwrap();
        assert_eq!(answer["fen"], fen.as_str(), "{text}");
        // The package ends a game exactly where its result mark says.
        let marked = text.contains('#');
        assert_eq!(answer["over"], marked, "{text}");
        if marked {
            finished += 1;
            let winner = match game.outcome().and_then(|o| o.winner()) {
                Some(Side::Goat) => "goats",
                Some(Side::Tiger) => "tigers",
                None => "draw",
            };
            assert_eq!(answer["winner"], winner, "{text}");
        }
    }
    assert!(finished > 0, "no game reached the package's ending");
}

#[test]
fn the_package_refuses_what_the_rules_refuse() {
    // An illegal move list is refused by both, at the same move.
    let text = "1. G33 B5142 2. G42";
    let ours = notation::read(Format::Pypi, text, Rules::default()).unwrap_err();
    assert_eq!(
        ours.to_string(),
        "line 1, ply 3: G42: that point is occupied"
    );
    let Some(answers) = package_replay(&[text]) else {
        return;
    };
    let error = answers[0]["error"]
        .as_str()
        .expect("the package refuses it");
    assert!(error.starts_with("2.G42"), "{error}");
}
