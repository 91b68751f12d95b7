//! The budget of API reads: every `GET` under `/api/` reads the database,
//! so each client address may make a burst of them and then a steady
//! rate; beyond it the answer is 429 with `Retry-After`, before any
//! handler runs. The page, the websocket's upgrade, `/healthz`, `/readyz`
//! and `/metrics` are not counted.

use std::net::SocketAddr;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::error::HttpError;
use crate::client_limit::client_address;
use crate::state::AppState;

/// Whether a request spends its address's read budget.
fn is_read(request: &Request) -> bool {
    matches!(*request.method(), Method::GET | Method::HEAD)
        && request.uri().path().starts_with("/api/")
}

/// The middleware: takes one read from the request's address, or answers
/// 429.
pub async fn budget(State(state): State<AppState>, request: Request, next: Next) -> Response {
    if is_read(&request) {
        // Requests that did not come through the listener (none do in
        // service) carry no peer address and are not counted.
        if let Some(ConnectInfo(peer)) = request.extensions().get::<ConnectInfo<SocketAddr>>() {
            let address = client_address(*peer, request.headers(), &state.trusted_proxies);
            if let Err(wait) = state.reads.check(address) {
                crate::stats::reads_rate_limited();
                return HttpError::TooManyReads(wait).into_response();
            }
        }
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;

    fn request(method: Method, path: &str) -> Request {
        Request::builder()
            .method(method)
            .uri(path)
            .body(Body::empty())
            .unwrap_or_default()
    }

    #[test]
    fn only_api_gets_are_reads() {
        assert!(is_read(&request(Method::GET, "/api/lobby")));
        assert!(is_read(&request(Method::HEAD, "/api/players/x")));
        assert!(!is_read(&request(Method::POST, "/api/tables")));
        assert!(!is_read(&request(Method::GET, "/")));
        assert!(!is_read(&request(Method::GET, "/ws")));
        assert!(!is_read(&request(Method::GET, "/healthz")));
        assert!(!is_read(&request(Method::GET, "/apiary")));
    }
}
