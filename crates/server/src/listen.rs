//! The accept loop: each connection is let in through the connection
//! [`Gate`] (overall and per address) or closed at once, then served over
//! HTTP/1.1 with a deadline for each request's headers that also bounds an
//! idle keep-alive connection (axum's own `serve` sets no such deadline).
//! A connection upgraded to a websocket leaves the gate; the websocket
//! gate counts it from then on.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;

use axum::extract::ConnectInfo;
use axum::http::Request;
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tower::ServiceExt;

use crate::connections::Gate;
use crate::stats;

/// How the listener lets connections in.
pub(crate) struct Admission {
    /// Connections overall and per address.
    pub gate: Gate,
    /// The trusted proxies: the per-address cap does not apply to their
    /// connections (each client behind one has the proxy's address).
    pub proxies: crate::client_limit::TrustedProxies,
    /// The deadline of a request's headers and of an idle connection.
    pub header_timeout: Duration,
}

/// How long the accept loop rests after an error that is not one
/// connection's (out of file descriptors, say), so as not to spin.
const ACCEPT_ERROR_REST: Duration = Duration::from_millis(100);

/// Serves `router` on `listener` until `stop` completes, then asks every
/// connection to finish its request in progress and close, and waits for
/// them (at most one header deadline and a few seconds more).
pub(crate) async fn serve(
    listener: TcpListener,
    router: Router,
    admission: Admission,
    stop: impl Future<Output = ()>,
    shutdown: CancellationToken,
) {
    let connections = TaskTracker::new();
    tokio::pin!(stop);
    loop {
        let (stream, peer) = tokio::select! {
            () = &mut stop => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    if !is_connection_error(&e) {
                        tracing::warn!(error = %e, "accepting a connection failed");
                        tokio::time::sleep(ACCEPT_ERROR_REST).await;
                    }
                    continue;
                }
            },
        };
        let address = (!admission.proxies.trusts(peer.ip())).then_some(peer.ip());
        let pass = match admission.gate.enter(address) {
            Ok(pass) => pass,
            Err(refusal) => {
                tracing::debug!(peer = %peer, reason = refusal.label(), "connection refused");
                stats::connection_refused(refusal);
                drop(stream);
                continue;
            }
        };
        let router = router.clone();
        let header_timeout = admission.header_timeout;
        let shutdown = shutdown.clone();
        connections.spawn(async move {
            let _pass = pass;
            serve_connection(stream, peer, router, header_timeout, shutdown).await;
        });
    }
    drop(listener);
    connections.close();
    let patience = admission.header_timeout + Duration::from_secs(5);
    if tokio::time::timeout(patience, connections.wait())
        .await
        .is_err()
    {
        tracing::warn!("some connections did not finish in time");
    }
}

/// One connection, until it closes, times out or the server stops.
async fn serve_connection(
    stream: tokio::net::TcpStream,
    peer: SocketAddr,
    router: Router,
    header_timeout: Duration,
    shutdown: CancellationToken,
) {
    let service = hyper::service::service_fn(move |mut request: Request<Incoming>| {
        request.extensions_mut().insert(ConnectInfo(peer));
        let router = router.clone();
        async move { Ok::<_, Infallible>(router.oneshot(request).await.unwrap_or_else(|e| match e {})) }
    });
    let connection = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(header_timeout)
        .serve_connection(TokioIo::new(stream), service)
        .with_upgrades();
    tokio::pin!(connection);
    let served = tokio::select! {
        served = connection.as_mut() => served,
        () = shutdown.cancelled() => {
            connection.as_mut().graceful_shutdown();
            connection.await
        }
    };
    if let Err(e) = served {
        if e.is_timeout() {
            stats::header_timeout();
        }
        tracing::debug!(peer = %peer, error = %e, "connection ended");
    }
}

/// Errors of one connection that was being accepted, after which the
/// listener goes on at once.
fn is_connection_error(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::ConnectionRefused
            | std::io::ErrorKind::ConnectionAborted
            | std::io::ErrorKind::ConnectionReset
    )
}
