//! The page from the binary: content types, revalidation by `ETag`,
//! compression, and 404 for what is not a file of the page.

use crate::common::{http_with, TestDb, TestServer};

fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().find_map(|line| {
        let (n, v) = line.split_once(':')?;
        n.trim().eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

#[tokio::test]
async fn the_embedded_page_is_served_with_types_etags_and_compression() {
    let db = TestDb::sqlite();
    let server = TestServer::start(&db).await;
    let get = |path: &'static str, headers: &'static [(&'static str, &'static str)]| {
        http_with(server.addr, "GET", path, headers, "")
    };
    for (path, kind) in [
        ("/", "text/html; charset=utf-8"),
        ("/t/AAAAAAAAAAAAAAAAAAAAAA", "text/html; charset=utf-8"),
        ("/app.js", "text/javascript; charset=utf-8"),
        ("/style.css", "text/css; charset=utf-8"),
        ("/favicon.svg", "image/svg+xml"),
    ] {
        let (status, head, _) = get(path, &[]).await;
        assert_eq!(status, 200, "{path}");
        assert_eq!(header(&head, "content-type"), Some(kind), "{path}");
        assert_eq!(header(&head, "cache-control"), Some("no-cache"), "{path}");
        assert!(
            header(&head, "etag").is_some_and(|t| t.starts_with("W/\"")),
            "{path}"
        );
    }
    // Revalidation: the same ETag is answered with 304 and no body.
    let (_, head, _) = get("/app.js", &[]).await;
    let tag = header(&head, "etag").unwrap().to_owned();
    let (status, _, body) = http_with(
        server.addr,
        "GET",
        "/app.js",
        &[("If-None-Match", tag.as_str())],
        "",
    )
    .await;
    assert_eq!((status, body.as_str()), (304, ""));
    // Compression when the browser takes it.
    let (status, head, _) = get("/app.js", &[("Accept-Encoding", "gzip")]).await;
    assert_eq!(status, 200);
    assert_eq!(header(&head, "content-encoding"), Some("gzip"), "{head}");
    // The HTML names its script under this build's version, kept for a year.
    let (_, _, body) = get("/", &[]).await;
    let script = body
        .split("src=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap()
        .to_owned();
    assert!(
        script.starts_with("/v/") && script.ends_with("/app.js"),
        "{body}"
    );
    let (status, head, _) = http_with(server.addr, "GET", &script, &[], "").await;
    assert_eq!(status, 200, "{script}");
    assert_eq!(
        header(&head, "cache-control"),
        Some("public, max-age=31536000, immutable")
    );
    for path in [
        "/no-such-file.js",
        "/t/not-a-table",
        "/../Cargo.toml",
        "/t/..%2f..%2fCargo.toml",
        "/v/0123456789abcdef/../Cargo.toml",
        "/v/0123456789abcdef/..%2fCargo.toml",
    ] {
        let (status, _, _) = get(path, &[]).await;
        assert_eq!(status, 404, "{path}");
    }
    server.stop().await;
}
