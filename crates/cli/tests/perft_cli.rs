//! `baghchal perft` as a process.

use std::process::{Command, Output};

fn perft(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_baghchal"))
        .arg("perft")
        .args(args)
        .output()
        .expect("the binary runs")
}

fn last_line(out: &Output) -> String {
    let text = String::from_utf8(out.stdout.clone()).expect("utf-8");
    text.lines().last().unwrap_or_default().to_owned()
}

/// A failure: non-zero exit, nothing on stdout, one line on stderr.
fn error_line(out: &Output) -> String {
    assert!(!out.status.success(), "expected a failure");
    assert!(out.stdout.is_empty(), "stdout: {:?}", out.stdout);
    let text = String::from_utf8(out.stderr.clone()).expect("utf-8");
    assert_eq!(text.lines().count(), 1, "stderr: {text:?}");
    text.trim_end().to_owned()
}

#[test]
fn startpos_counts_from_the_start() {
    for (depth, count) in [
        ("0", "1"),
        ("1", "21"),
        ("2", "252"),
        ("3", "5052"),
        ("4", "68204"),
    ] {
        let out = perft(&["startpos", depth]);
        assert!(out.status.success());
        assert_eq!(last_line(&out), count, "depth {depth}");
    }
}

#[test]
fn a_position_text_counts_the_same_as_startpos() {
    let out = perft(&["T...T/...../...../...../T...T g 20 0 0", "3"]);
    assert!(out.status.success());
    assert_eq!(last_line(&out), "5052");
}

#[test]
fn the_actions_are_played_first_and_build_the_repetition_record() {
    // After these actions the goats' step back d5-c5 would repeat the
    // start: 6 actions, not 7.
    let start = "TGG.T/GGGGG/GGGGG/GGGGG/T.GGT t 0 1 40";
    let out = perft(&[start, "1", "a1-b1", "c5-d5", "b1-a1"]);
    assert!(out.status.success());
    assert_eq!(last_line(&out), "6");
    let out = perft(&[start, "5", "a1-b1", "c5-d5", "b1-a1"]);
    assert_eq!(last_line(&out), "1888");
}

#[test]
fn variant_flags_change_the_rules() {
    let chains = "T...T/...../...../.GG../TG..T t 17 0 5";
    assert_eq!(last_line(&perft(&[chains, "1"])), "12");
    assert_eq!(last_line(&perft(&["--multi-jump", chains, "1"])), "17");
    assert_eq!(
        last_line(&perft(&["--tigers-first", "startpos", "2"])),
        "252"
    );
    assert_eq!(
        last_line(&perft(&["--three-tigers", "startpos", "1"])),
        "22"
    );
    assert_eq!(
        last_line(&perft(&["--ply-limit", "4", "startpos", "6"])),
        "68204"
    );
}

#[test]
fn divide_lists_each_first_action_before_the_total() {
    let out = perft(&["--divide", "startpos", "2"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 22);
    let sum: u64 = lines[..21]
        .iter()
        .map(|l| l.split_once(' ').unwrap().1.parse::<u64>().unwrap())
        .sum();
    assert_eq!(sum, 252);
    assert_eq!(lines[21], "252");
}

#[test]
fn an_invalid_position_is_a_one_line_error() {
    for bad in [
        "",
        "nonsense",
        "T...T/...../...../...../T...T x 20 0 0",
        "TT..T/...../...../...../T...T g 20 0 0",
        "T...T/...../...../...../T...T g 19 0 0",
        "T...T/...../...../..../T...T g 20 0 0",
    ] {
        let line = error_line(&perft(&[bad, "1"]));
        assert!(line.contains("invalid position"), "{bad:?}: {line}");
    }
}

#[test]
fn an_invalid_or_illegal_action_is_a_one_line_error() {
    let line = error_line(&perft(&["startpos", "1", "z9"]));
    assert!(line.contains("invalid action"), "{line}");
    let line = error_line(&perft(&["startpos", "1", "a1-a2"]));
    assert!(line.contains("illegal action"), "{line}");
    let line = error_line(&perft(&["startpos", "1", "c3", "c3"]));
    assert!(line.contains("illegal action"), "{line}");
}

#[test]
fn an_invalid_depth_is_a_one_line_error() {
    for bad in ["x", "-1", "1.5", ""] {
        let line = error_line(&perft(&["startpos", bad]));
        assert!(line.contains("depth"), "{bad:?}: {line}");
    }
}

#[test]
fn invalid_rules_are_a_one_line_error() {
    let line = error_line(&perft(&["--goats-to-win", "9", "startpos", "1"]));
    assert!(line.contains("rules"), "{line}");
    let line = error_line(&perft(&["--ply-limit", "0", "startpos", "1"]));
    assert!(line.contains("rules"), "{line}");
}
