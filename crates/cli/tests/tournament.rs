//! `baghchal tournament` end to end: a small tournament writes its report
//! and a record for every game, and each record replays to its result.

use std::ffi::OsStr;
use std::process::Command;

use baghchal_rules::Record;

/// Runs `baghchal` with `args` and no tablebase, and returns what it
/// printed once it has succeeded.
fn succeeds<I: IntoIterator<Item = S>, S: AsRef<OsStr>>(args: I) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_baghchal"))
        .args(args)
        .env_remove("BAGHCHAL_TABLEBASE")
        .output()
        .expect("the binary runs");
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

#[test]
fn a_small_tournament_reports_and_records_every_game() {
    let dir = std::env::temp_dir().join(format!("baghchal-cli-tournament-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let records = dir.join("games");
    let report = dir.join("strength.md");
    let stdout = succeeds(
        [
            "tournament",
            "--levels",
            "400,500,600",
            "--games",
            "2",
            "--span",
            "0",
            "--quiet",
            "--seed",
            "4",
            "--opening-nodes",
            "50000",
            "--records",
        ]
        .map(OsStr::new)
        .into_iter()
        .chain([
            records.as_os_str(),
            OsStr::new("--output"),
            report.as_os_str(),
        ]),
    );

    let text = std::fs::read_to_string(&report).unwrap();
    assert_eq!(text, stdout, "the report file is what was printed");
    assert!(text.contains("4 games"), "{text}");
    for level in [
        "| 400 |",
        "| 500 |",
        "| 600 |",
        "| 400–500 |",
        "| 500–600 |",
    ] {
        assert!(text.contains(level), "{level} missing from\n{text}");
    }

    let mut names: Vec<String> = std::fs::read_dir(&records)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    // Two pairs, one opening each, played twice with the sides swapped.
    assert_eq!(names.len(), 4, "{names:?}");
    for pair in ["400-500", "500-400", "500-600", "600-500"] {
        assert!(
            names.iter().any(|n| n.ends_with(&format!("-{pair}.txt"))),
            "{pair}: {names:?}"
        );
    }
    for name in &names {
        let record: Record = std::fs::read_to_string(records.join(name))
            .unwrap()
            .parse()
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(record.result.is_some(), "{name} is a finished game");
        let game = record.replay().unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(game.outcome(), record.result, "{name}");
    }

    // The records feed the evaluation's tuning.
    let tuned = succeeds([OsStr::new("tune"), records.as_os_str()]);
    assert!(tuned.starts_with("// 4 games\n"), "{tuned}");
    assert!(
        tuned.contains("pub(crate) const PLACEMENT: Weights = Weights {"),
        "{tuned}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_tournament_of_points_of_the_path_reports_the_placing_of_the_labels() {
    let stdout = succeeds([
        "tournament",
        "--strengths",
        "0,1,2,3",
        "--games",
        "2",
        "--span",
        "0",
        "--place",
        "--quiet",
        "--opening-nodes",
        "20000",
    ]);
    assert!(stdout.contains("| s = 3.00 |"), "{stdout}");
    // Four weak points, two games a pair: far from the ladder's 2,000 Elo.
    assert!(
        stdout.contains("## Placing the labels\n\nThe labels could not be placed: "),
        "{stdout}"
    );
}

#[test]
fn placing_the_labels_needs_points_of_the_path() {
    let out = Command::new(env!("CARGO_BIN_EXE_baghchal"))
        .args(["tournament", "--levels", "400,500", "--place"])
        .output()
        .expect("the binary runs");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--strengths"));
}

#[test]
fn a_level_plays_the_pool_on_both_sides_and_is_rated_per_side() {
    let dir = std::env::temp_dir().join(format!("baghchal-cli-pool-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let args = [
        "tournament",
        "--levels",
        "400",
        "--pool",
        "--bots",
        "random,ab2",
        "--games",
        "2",
        "--quiet",
        "--opening-nodes",
        "20000",
    ];
    let stdout = succeeds(
        args.map(OsStr::new)
            .into_iter()
            .chain([OsStr::new("--records"), dir.as_os_str()]),
    );
    // The same report again from the records, without playing.
    let again = succeeds(
        args.map(OsStr::new)
            .into_iter()
            .chain([OsStr::new("--from-records"), dir.as_os_str()]),
    );
    let table = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.starts_with('|'))
            .map(String::from)
            .collect()
    };
    assert_eq!(table(&again), table(&stdout), "{again}");
    assert!(again.contains("read from the records"), "{again}");
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(
        stdout.starts_with("# Strength against the reference pool"),
        "{stdout}"
    );
    assert!(stdout.contains("4 games"), "{stdout}");
    for row in ["| 400 |", "| pool random |", "| pool ab2 |"] {
        assert!(stdout.contains(row), "{row} missing from\n{stdout}");
    }
    // The anchor: the pool's one searcher sits at 1000 on the mean.
    let ab2 = stdout
        .lines()
        .find(|l| l.starts_with("| pool ab2 |"))
        .unwrap();
    let cells: Vec<&str> = ab2.split('|').map(str::trim).collect();
    assert_eq!(cells[6], "1000", "{ab2}");
}

#[test]
fn a_bot_outside_the_pool_is_refused() {
    let out = Command::new(env!("CARGO_BIN_EXE_baghchal"))
        .args(["tournament", "--levels", "400", "--pool", "--bots", "ab99"])
        .output()
        .expect("the binary runs");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a pool bot"));
}
