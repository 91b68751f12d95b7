//! A short run of the benchmark against an in-process table server and the
//! ceiling, so that the benchmark keeps working. No timing is asserted:
//! the figures belong to benchmark runs, not to tests.

use std::process::Stdio;

use tokio::net::TcpListener;
use tokio::sync::oneshot;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_short_comparison_with_the_ceiling_completes_with_no_errors() {
    let dir = tempfile::tempdir().unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let database = format!(
        "sqlite://{}?mode=rwc",
        dir.path().join("smoke.db").display()
    );
    let config = baghchal_server::Config::new(database, url.clone());
    let (stop, stopped) = oneshot::channel::<()>();
    let server = tokio::spawn(baghchal_server::run(listener, config, async move {
        let _ = stopped.await;
    }));

    let csv = dir.path().join("figures.csv");
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_baghchal-load"))
        .args(["--url", &url, "--compare-ceiling", "--ceiling-bin"])
        .arg(env!("CARGO_BIN_EXE_baghchal-ceiling"))
        .args(["--tables", "3", "--spectators", "1", "--rate", "30"])
        .args(["--actions", "60", "--duration", "60s", "--timeout", "60s"])
        .args(["--quiet", "--csv"])
        .arg(&csv)
        .stdin(Stdio::null())
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    for label in ["server", "ceiling"] {
        assert!(
            stdout.contains(&format!("{label}: played ")),
            "no {label} run in:\n{stdout}"
        );
    }
    assert_eq!(
        stdout
            .matches("errors: 0 while connecting, 0 while playing")
            .count(),
        2,
        "{stdout}"
    );
    assert!(stdout.contains("ratio"), "no comparison in:\n{stdout}");

    let figures = std::fs::read_to_string(&csv).unwrap();
    let rows: Vec<Vec<&str>> = figures.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 3, "a header and two rows:\n{figures}");
    let errors = rows[0].iter().position(|&c| c == "errors").unwrap();
    let actions = rows[0].iter().position(|&c| c == "actions_per_s").unwrap();
    assert_eq!(rows[1][0], "server");
    assert_eq!(rows[2][0], "ceiling");
    for row in &rows[1..] {
        assert_eq!(row[errors], "0.000", "{figures}");
        assert!(row[actions].parse::<f64>().unwrap() > 0.0, "{figures}");
    }

    stop.send(()).unwrap();
    server.await.unwrap().unwrap();
}
