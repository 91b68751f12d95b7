//! A short run of the benchmark against three ceiling nodes relaying
//! through NATS (`baghchal-ceiling --nats-url`), the floor the table
//! server's cluster is compared with: each table's host, guest and
//! spectator sit on different nodes, and every acknowledged action must
//! reach every subscriber. Run when `BAGHCHAL_TEST_NATS` is set (`.ci/run`
//! sets it); no timing is asserted.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{SystemTime, UNIX_EPOCH};

/// A ceiling node, killed when dropped.
struct Node(Child);

impl Drop for Node {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts node `id` of `cluster`; returns it with its URL.
fn start(nats: &str, cluster: &str, id: &str) -> (Node, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_baghchal-ceiling"))
        .args(["--addr", "127.0.0.1:0", "--nats-url", nats])
        .args(["--cluster", cluster, "--node-id", id])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("node {id} printed {line:?}"))
        .to_owned();
    (Node(child), url)
}

#[test]
fn three_ceiling_nodes_relay_every_acknowledged_action() {
    let Ok(nats) = std::env::var("BAGHCHAL_TEST_NATS") else {
        eprintln!("note: BAGHCHAL_TEST_NATS is not set; skipping");
        return;
    };
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let cluster = format!("ceiling{}x{nanos}", std::process::id());
    let (nodes, urls): (Vec<Node>, Vec<String>) = ["n1", "n2", "n3"]
        .iter()
        .map(|id| start(&nats, &cluster, id))
        .unzip();

    let output = Command::new(env!("CARGO_BIN_EXE_baghchal-load"))
        .arg("--url")
        .arg(urls.join(","))
        .args(common::SHORT_RUN)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    drop(nodes);
    common::every_acknowledged_action_delivered(&output);
}
