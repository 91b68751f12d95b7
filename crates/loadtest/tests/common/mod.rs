//! What the tests of short runs over three nodes share.

use std::process::Output;

/// The arguments of a short run: six tables with a spectator each, 90
/// actions at 30 a second.
pub const SHORT_RUN: [&str; 13] = [
    "--tables",
    "6",
    "--spectators",
    "1",
    "--rate",
    "30",
    "--actions",
    "90",
    "--duration",
    "60s",
    "--timeout",
    "60s",
    "--quiet",
];

/// Checks the report of a run of `baghchal-load` over three nodes: no
/// error, and every acknowledged action delivered to every subscriber.
/// Returns how many actions were acknowledged.
pub fn every_acknowledged_action_delivered(output: &Output) -> u64 {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("3 nodes: "), "{stdout}");
    assert!(
        stdout.contains("errors: 0 while connecting, 0 while playing"),
        "{stdout}"
    );
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix("acknowledged actions delivered to every subscriber: "))
        .unwrap_or_else(|| panic!("no delivery count in:\n{stdout}"));
    let (delivered, acknowledged) = line.split_once(" of ").unwrap();
    let acknowledged: u64 = acknowledged.parse().unwrap();
    assert!(acknowledged >= 60, "too little was played:\n{stdout}");
    assert_eq!(delivered.parse::<u64>().unwrap(), acknowledged, "{stdout}");
    acknowledged
}
