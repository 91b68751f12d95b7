//! The binary carries its page: started in a directory that holds no
//! `static/`, it still serves the page and its files.

mod support;

use support::Server;

#[tokio::test]
async fn the_binary_serves_its_page_from_any_working_directory() {
    let dir = std::env::temp_dir().join(support::unique("baghchal-page-"));
    std::fs::create_dir_all(&dir).unwrap();
    let mut command = Server::command(&["--database-url", "sqlite://tables.db?mode=rwc"]);
    command.env_remove("BAGHCHAL_STATIC_DIR").current_dir(&dir);
    let mut server = Server::spawn(command).await;

    let (head, body) = server.get("/").await;
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: text/html"),
        "{head}"
    );
    assert!(body.contains("<title>Bagh-Chal</title>"), "{body}");
    let (head, body) = server.get("/app.js").await;
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: text/javascript"),
        "{head}"
    );
    assert!(body.contains("import"), "{body}");
    let (head, _) = server.get("/t/AAAAAAAAAAAAAAAAAAAAAA").await;
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");

    server.kill().await;
    let _ = std::fs::remove_dir_all(&dir);
}
