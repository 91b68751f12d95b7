//! The binary carries its page: started in a directory that holds no
//! `static/`, it still serves the page and its files.

use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::process::Command;

/// A guard against hanging, not a timing assertion.
const PATIENCE: Duration = Duration::from_secs(60);

async fn get(addr: &str, path: &str) -> (String, String) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    tokio::time::timeout(PATIENCE, stream.read_to_end(&mut response))
        .await
        .expect("an answer")
        .unwrap();
    let response = String::from_utf8_lossy(&response).into_owned();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    (head.to_owned(), body.to_owned())
}

#[tokio::test]
async fn the_binary_serves_its_page_from_any_working_directory() {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).unwrap();
    let dir = std::env::temp_dir().join(format!("baghchal-page-{}", u64::from_le_bytes(bytes)));
    std::fs::create_dir_all(&dir).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_baghchal"))
        .args(["--addr", "127.0.0.1:0", "--log", "warn"])
        .args(["--database-url", "sqlite://tables.db?mode=rwc"])
        .env_remove("BAGHCHAL_STATIC_DIR")
        .current_dir(&dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("the baghchal binary starts");
    let stdout = child.stdout.take().unwrap();
    let line = tokio::time::timeout(PATIENCE, BufReader::new(stdout).lines().next_line())
        .await
        .expect("the server prints its address")
        .unwrap()
        .expect("a line on stdout");
    let addr = line
        .strip_prefix("listening on http://")
        .unwrap()
        .to_owned();

    let (head, body) = get(&addr, "/").await;
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: text/html"),
        "{head}"
    );
    assert!(body.contains("<title>Bagh-Chal</title>"), "{body}");
    let (head, body) = get(&addr, "/app.js").await;
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: text/javascript"),
        "{head}"
    );
    assert!(body.contains("import"), "{body}");
    let (head, _) = get(&addr, "/t/AAAAAAAAAAAAAAAAAAAAAA").await;
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");

    child.kill().await.unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}
