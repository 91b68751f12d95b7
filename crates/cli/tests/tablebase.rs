//! `baghchal tablebase` on a small tablebase file.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use baghchal_tablebase::{Shape, Silent, Stats, Tablebase};

/// The binary, with none of the variables that say where the tablebase is.
fn command(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_baghchal"));
    command
        .args(args)
        .env_remove("BAGHCHAL_TABLEBASE")
        .env_remove("BAGHCHAL_DATA_DIR")
        .env_remove("DATABASE_URL");
    command
}

fn baghchal(args: &[&str]) -> std::process::Output {
    command(args).output().expect("the binary runs")
}

/// Starts the engine protocol with `engine`, quits it at once, and returns
/// what it wrote to standard error (where it says which tablebase it read).
fn engine_log(mut engine: Command) -> String {
    let mut engine = engine
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    engine.stdin.take().unwrap().write_all(b"quit\n").unwrap();
    let out = engine.wait_with_output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{err}");
    err
}

/// A fresh directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("baghchal-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A small tablebase saved as `dir/baghchal.tb`.
fn small_tablebase_in(dir: &Path) -> Stats {
    let shape = Shape {
        goats: 20,
        target: 1,
    };
    let tb = Tablebase::build_shape(shape, &Silent).unwrap();
    tb.save(&dir.join("baghchal.tb")).unwrap();
    tb.stats()
}

#[test]
fn info_checks_a_file_and_counts_its_results() {
    let dir = scratch("tb-info");
    let stats = small_tablebase_in(&dir);
    let path = dir.join("small.tb");
    std::fs::rename(dir.join("baghchal.tb"), &path).unwrap();

    let out = baghchal(&["tablebase", "info", "--tablebase", path.to_str().unwrap()]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}");
    assert!(text.contains(&format!("positions up to symmetry: {}", stats.positions)));
    assert!(text.contains(&format!("draws: {}", stats.draws)));

    // A truncated file is refused with a clear error.
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    let out = baghchal(&["tablebase", "info", "--tablebase", path.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(String::from_utf8(out.stderr).unwrap().contains("expected"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn probing_without_a_tablebase_file_fails_clearly() {
    let out = baghchal(&[
        "tablebase",
        "probe",
        "--tablebase",
        "no-such-file.tb",
        "TGGGT/GGGGG/GGGGG/GG.GG/TGGGT t 0 0 100",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("no tablebase at no-such-file.tb (named by --tablebase"),
        "{err}"
    );
}

#[test]
fn the_tools_find_the_tablebase_where_the_server_keeps_it() {
    let dir = scratch("tb-data-dir");
    let positions = small_tablebase_in(&dir).positions;
    let dir_text = dir.to_str().unwrap();
    let expected = format!("positions up to symmetry: {positions}");
    // The data directory named, by flag or variable, as for `serve`.
    let by_flag = baghchal(&["tablebase", "info", "--data-dir", dir_text]);
    let by_variable = command(&["tablebase", "info"])
        .env("BAGHCHAL_DATA_DIR", dir_text)
        .output()
        .unwrap();
    // Or the directory of the SQLite database, as `serve` defaults to.
    let by_database = command(&["tablebase", "info"])
        .env(
            "DATABASE_URL",
            format!("sqlite://{dir_text}/games.db?mode=rwc"),
        )
        .output()
        .unwrap();
    for out in [by_flag, by_variable, by_database] {
        let text = String::from_utf8(out.stdout).unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(out.status.success(), "{text}{err}");
        assert!(text.contains(&expected), "{text}");
        assert!(text.contains(&format!("{dir_text}/baghchal.tb")), "{text}");
    }
    // The engine plays with it, and says which file it read.
    let err = engine_log(command(&["engine", "--data-dir", dir_text]));
    assert!(
        err.contains(&format!("tablebase {dir_text}/baghchal.tb")),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_missing_tablebase_is_reported_with_where_it_was_looked_for() {
    let dir = scratch("tb-missing");
    let dir_text = dir.to_str().unwrap();
    let out = baghchal(&["tablebase", "info", "--data-dir", dir_text]);
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains(&format!(
            "no tablebase at {dir_text}/baghchal.tb (in the data directory of --data-dir"
        )),
        "{err}"
    );
    let out = command(&["tablebase", "info"])
        .env(
            "DATABASE_URL",
            format!("sqlite://{dir_text}/games.db?mode=rwc"),
        )
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains(&format!(
            "no tablebase at {dir_text}/baghchal.tb (in the data directory of the database sqlite://{dir_text}/games.db"
        )),
        "{err}"
    );
    // The engine plays on without it, and says where it looked.
    let mut engine = command(&["engine"]);
    engine.env("BAGHCHAL_DATA_DIR", dir_text);
    let err = engine_log(engine);
    assert!(
        err.contains(&format!("no tablebase at {dir_text}/baghchal.tb")),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
