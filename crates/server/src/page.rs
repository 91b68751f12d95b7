//! The page's files: embedded in the binary at build time, so that the
//! server serves its page from any working directory; or, for
//! development, read from a directory on each request (`--static-dir`).
//!
//! Embedded files carry their content type and a weak `ETag` from their
//! SHA-256 (a repeated request with `If-None-Match` gets `304`). The page
//! asks for its script and style under a versioned prefix,
//! `/v/{version}/`, where the version is a digest of every embedded file:
//! those answers are `Cache-Control: public, max-age=31536000, immutable`,
//! and a new build changes every such address at once (the modules import
//! each other by relative paths, so they stay under the prefix). The HTML
//! and the unversioned names stay `no-cache`, revalidated on each visit.
//! Answers are compressed (gzip or brotli) when the browser accepts it and
//! the body is worth it. From a directory (`--static-dir`) nothing is
//! versioned.

use std::path::Path;
use std::sync::LazyLock;

use axum::body::Body;
use axum::extract::{Path as UrlPath, Request};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use rust_embed::RustEmbed;
use sha2::{Digest, Sha256};
use tower::ServiceExt;
use tower_http::compression::CompressionLayer;
use tower_http::services::{ServeDir, ServeFile};

use crate::token;

/// The files of `static/`, in the binary.
#[derive(RustEmbed)]
#[folder = "../../static"]
struct Assets;

/// The files the HTML names that the versioned prefix is put in front of.
const VERSIONED: [&str; 2] = ["/app.js", "/style.css"];

/// How long a versioned answer may be kept: a year, never revalidated.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// The version of the embedded page: a digest of every file's name and
/// content, in hex.
static VERSION: LazyLock<String> = LazyLock::new(|| {
    let mut names: Vec<_> = Assets::iter().collect();
    names.sort();
    let mut digest = Sha256::new();
    for name in names {
        if let Some(file) = Assets::get(&name) {
            digest.update(name.as_bytes());
            digest.update(file.metadata.sha256_hash());
        }
    }
    digest.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
});

/// `index.html` with its script and style under the versioned prefix, and
/// its entity tag.
static INDEX: LazyLock<Option<(String, String)>> = LazyLock::new(|| {
    let file = Assets::get("index.html")?;
    let mut html = String::from_utf8(file.data.into_owned()).ok()?;
    for name in VERSIONED {
        html = html.replace(
            &format!("\"{name}\""),
            &format!("\"/v/{}{name}\"", *VERSION),
        );
    }
    let tag = etag(&Sha256::digest(html.as_bytes()).into());
    Some((html, tag))
});

/// The page's own views besides `/` and `/t/{table}`, each answered with
/// `index.html` (the page routes itself).
const VIEWS: [&str; 6] = [
    "/analysis",
    "/learn",
    "/tv",
    "/puzzles",
    "/mistakes",
    "/leaderboard",
];

/// The routes of the page: `/`, its views, `/t/{table}` and
/// `/t/{table}/games/{game}` (the page, for a table id only), a profile
/// (`/@/{name}`, `/player/{id}`), a leaderboard (`/leaderboard/{speed}`) and every
/// file of the page by its name. From `dir` when given, else from the
/// binary.
pub fn router<S: Clone + Send + Sync + 'static>(dir: Option<&Path>) -> Router<S> {
    let router = match dir {
        None => {
            let index = || get(|headers: HeaderMap| async move { html(&headers) });
            let table = || {
                get(
                    |UrlPath(params): UrlPath<Vec<(String, String)>>, headers: HeaderMap| async move {
                        if !is_table_path(&params) {
                            return StatusCode::NOT_FOUND.into_response();
                        }
                        html(&headers)
                    },
                )
            };
            VIEWS
                .iter()
                .fold(Router::new().route("/", index()), |r, view| {
                    r.route(view, index())
                })
                .route("/t/{table}", table())
                .route("/t/{table}/games/{game}", table())
                .route("/@/{name}", table())
                .route("/player/{id}", table())
                .route("/leaderboard/{speed}", table())
                .route(
                    "/v/{version}/{*name}",
                    get(
                        |UrlPath((version, name)): UrlPath<(String, String)>,
                         headers: HeaderMap| async move {
                            versioned(&version, &name, &headers)
                        },
                    ),
                )
                .fallback(get(|uri: Uri, headers: HeaderMap| async move {
                    embedded(uri.path().trim_start_matches('/'), &headers)
                }))
        }
        Some(dir) => {
            let index = ServeFile::new(dir.join("index.html"));
            let table = |index: ServeFile| {
                get(
                    move |UrlPath(params): UrlPath<Vec<(String, String)>>, request: Request| async move {
                        if !is_table_path(&params) {
                            return StatusCode::NOT_FOUND.into_response();
                        }
                        index.oneshot(request).await.into_response()
                    },
                )
            };
            VIEWS
                .iter()
                .fold(
                    Router::new().route_service("/", index.clone()),
                    |r, view| r.route_service(view, index.clone()),
                )
                .route("/t/{table}", table(index.clone()))
                .route("/t/{table}/games/{game}", table(index.clone()))
                .route("/@/{name}", table(index.clone()))
                .route("/player/{id}", table(index.clone()))
                .route("/leaderboard/{speed}", table(index))
                .fallback_service(ServeDir::new(dir))
        }
    };
    router.layer(CompressionLayer::new())
}

/// Whether a page path's parameters name a table (and a game number).
fn is_table_path(params: &[(String, String)]) -> bool {
    params.iter().all(|(name, value)| match name.as_str() {
        "table" => token::is_table_id(value),
        "game" => value.parse::<u32>().is_ok_and(|n| n >= 1),
        // A profile's and a leaderboard's addresses.
        "id" => token::is_table_id(value),
        "name" => {
            (3..=20).contains(&value.len())
                && value
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        }
        "speed" => value.parse::<baghchal_rating::Speed>().is_ok(),
        _ => false,
    })
}

/// The page's HTML, naming its versioned script and style; `no-cache`.
fn html(headers: &HeaderMap) -> Response {
    let Some((html, tag)) = INDEX.as_ref() else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let mut response = if fresh(headers, tag) {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        let mut response = Response::new(Body::from(html.clone()));
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/html; charset=utf-8"),
        );
        response
    };
    let h = response.headers_mut();
    if let Ok(tag) = HeaderValue::from_str(tag) {
        h.insert(header::ETAG, tag);
    }
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// An embedded file under the versioned prefix: kept for a year when the
/// version is this build's; an address of another build (a page loaded
/// before a deploy) gets this build's file, revalidated like any other.
fn versioned(version: &str, name: &str, headers: &HeaderMap) -> Response {
    let mut response = embedded(name, headers);
    if version == VERSION.as_str() && response.status() != StatusCode::NOT_FOUND {
        response
            .headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static(IMMUTABLE));
    }
    response
}

/// Whether `If-None-Match` names `etag`.
fn fresh(headers: &HeaderMap, etag: &str) -> bool {
    headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|tags| tags.split(',').any(|t| t.trim() == etag || t.trim() == "*"))
}

/// An embedded file, or 404.
fn embedded(name: &str, headers: &HeaderMap) -> Response {
    let Some(file) = Assets::get(name) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let etag = etag(&file.metadata.sha256_hash());
    let mut response = if fresh(headers, &etag) {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        let mut response = Response::new(Body::from(file.data.into_owned()));
        if let Ok(kind) = HeaderValue::from_str(content_type(name, file.metadata.mimetype())) {
            response.headers_mut().insert(header::CONTENT_TYPE, kind);
        }
        response
    };
    let headers = response.headers_mut();
    if let Ok(etag) = HeaderValue::from_str(&etag) {
        headers.insert(header::ETAG, etag);
    }
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// The content type of a file of the page (text in UTF-8).
fn content_type<'a>(name: &str, guessed: &'a str) -> &'a str {
    match name.rsplit_once('.').map(|(_, ext)| ext) {
        Some("html") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("json") => "application/json",
        _ => guessed,
    }
}

/// A weak entity tag (weak: the bytes sent may be compressed).
fn etag(hash: &[u8; 32]) -> String {
    let hex: String = hash[..16].iter().map(|b| format!("{b:02x}")).collect();
    format!("W/\"{hex}\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_is_in_the_binary() {
        for name in [
            "index.html",
            "app.js",
            "style.css",
            "wire.js",
            "close-codes.js",
        ] {
            assert!(Assets::get(name).is_some(), "{name}");
        }
        assert!(Assets::get("../Cargo.toml").is_none());
    }

    #[test]
    fn an_unchanged_file_is_not_sent_again() {
        let first = embedded("app.js", &HeaderMap::new());
        assert_eq!(first.status(), StatusCode::OK);
        assert_eq!(
            first.headers()[header::CONTENT_TYPE],
            "text/javascript; charset=utf-8"
        );
        let tag = first.headers()[header::ETAG].clone();
        let mut headers = HeaderMap::new();
        headers.insert(header::IF_NONE_MATCH, tag);
        assert_eq!(
            embedded("app.js", &headers).status(),
            StatusCode::NOT_MODIFIED
        );
        assert_eq!(
            embedded("no-such-file.js", &HeaderMap::new()).status(),
            StatusCode::NOT_FOUND
        );
    }

    #[test]
    fn the_html_names_its_script_and_style_under_this_builds_version() {
        let (page, _) = INDEX.as_ref().expect("index.html");
        let version = VERSION.as_str();
        assert_eq!(version.len(), 16);
        assert!(
            page.contains(&format!("src=\"/v/{version}/app.js\"")),
            "{page}"
        );
        assert!(
            page.contains(&format!("href=\"/v/{version}/style.css\"")),
            "{page}"
        );
        let response = html(&HeaderMap::new());
        assert_eq!(response.headers()[header::CACHE_CONTROL], "no-cache");
        let mut headers = HeaderMap::new();
        headers.insert(
            header::IF_NONE_MATCH,
            response.headers()[header::ETAG].clone(),
        );
        assert_eq!(html(&headers).status(), StatusCode::NOT_MODIFIED);
    }

    #[test]
    fn a_versioned_file_is_kept_for_a_year_and_another_builds_is_revalidated() {
        let version = VERSION.as_str();
        for name in [
            "app.js",
            "table.js",
            "style.css",
            "fonts/noto-sans-devanagari.woff2",
        ] {
            let response = versioned(version, name, &HeaderMap::new());
            assert_eq!(response.status(), StatusCode::OK, "{name}");
            assert_eq!(
                response.headers()[header::CACHE_CONTROL],
                IMMUTABLE,
                "{name}"
            );
        }
        let old = versioned("0123456789abcdef", "app.js", &HeaderMap::new());
        assert_eq!(old.status(), StatusCode::OK);
        assert_eq!(old.headers()[header::CACHE_CONTROL], "no-cache");
        assert_eq!(
            versioned(version, "no-such-file.js", &HeaderMap::new()).status(),
            StatusCode::NOT_FOUND
        );
    }
}
