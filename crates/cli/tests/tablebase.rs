//! `baghchal tablebase` on a small tablebase file.

use std::process::Command;

use baghchal_tablebase::{Shape, Silent, Tablebase};

fn baghchal(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_baghchal"))
        .args(args)
        .env_remove("BAGHCHAL_TABLEBASE")
        .output()
        .expect("the binary runs")
}

#[test]
fn info_checks_a_file_and_counts_its_results() {
    let shape = Shape {
        goats: 20,
        target: 1,
    };
    let tb = Tablebase::build_shape(shape, &Silent).unwrap();
    let stats = tb.stats();
    let dir = std::env::temp_dir().join(format!("baghchal-cli-tb-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("small.tb");
    tb.save(&path).unwrap();

    let out = baghchal(&["tablebase", "info", "--file", path.to_str().unwrap()]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}");
    assert!(text.contains(&format!("positions up to symmetry: {}", stats.positions)));
    assert!(text.contains(&format!("draws: {}", stats.draws)));

    // A truncated file is refused with a clear error.
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    let out = baghchal(&["tablebase", "info", "--file", path.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(String::from_utf8(out.stderr).unwrap().contains("expected"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn probing_without_a_tablebase_file_fails_clearly() {
    let out = baghchal(&[
        "tablebase",
        "probe",
        "--file",
        "no-such-file.tb",
        "TGGGT/GGGGG/GGGGG/GG.GG/TGGGT t 0 0 100",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("loading the tablebase no-such-file.tb"),
        "{err}"
    );
}
