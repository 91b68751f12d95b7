//! `baghchal squeeze` end to end. The analysis itself needs the built
//! tablebase, so that test runs on demand:
//! `BAGHCHAL_TABLEBASE=$PWD/baghchal.tb cargo test -p baghchal --test squeeze -- --ignored`.

use std::process::Command;

/// A game stopped right after the last goat was placed.
const RECORD: &str = "rules standard
actions c1 e1-e2 a3 e5-e4 b1 e2-e1 a4 e4-d4 c5 a5-b5 d5 b5-a5 e4 d4-e3 e5 e3-d4 d1 a1-a2 b5 a2-b2 a2 b2-a1 e3 e1-d2 e2 d2-e1 c2 a1-b2 b3 b2-a1 b4 a5xc3 b2 c3-b4 d2 a1xc3 a5 b4xb2 d3
";

fn record_file(name: &str) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!(
        "baghchal-squeeze-{name}-{}.txt",
        std::process::id()
    ));
    std::fs::write(&path, RECORD).unwrap();
    path
}

#[test]
fn squeeze_without_a_tablebase_says_it_needs_one() {
    let path = record_file("none");
    let out = Command::new(env!("CARGO_BIN_EXE_baghchal"))
        .arg("squeeze")
        .arg(&path)
        .env_remove("BAGHCHAL_TABLEBASE")
        .current_dir(std::env::temp_dir())
        .output()
        .expect("the binary runs");
    std::fs::remove_file(&path).unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("needs the tablebase"));
}

#[test]
#[ignore = "needs the built tablebase in BAGHCHAL_TABLEBASE"]
fn squeeze_reports_the_position_after_placement_of_each_game() {
    let path = record_file("tb");
    let out = Command::new(env!("CARGO_BIN_EXE_baghchal"))
        .args(["squeeze", "--nodes", "20000"])
        .arg(&path)
        .output()
        .expect("the binary runs");
    std::fs::remove_file(&path).unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(
        stdout.contains("1 games reached the movement phase"),
        "{stdout}"
    );
}
