//! The authoritative Bagh-Chal table server.
//!
//! Each table is one task ([`table`]) that owns its games, seats and
//! gallery and validates every action through the rules crate; the
//! registry ([`tables`]) finds, creates and loads tables; every accepted
//! event is stored ([`storage`], SQLite or PostgreSQL) before it is
//! acknowledged or broadcast. Clients speak the websocket protocol of
//! `docs/protocol.md` ([`ws`]) and create tables over HTTP ([`http`]).
//!
//! The binary is thin: it parses its options into a [`Config`], binds a
//! listener and calls [`run`]; tests do the same on port 0.

#![warn(missing_docs)]

pub mod backfill;
pub(crate) mod batch;
pub mod bot;
pub mod client_limit;
pub mod cluster;
pub mod connections;
pub(crate) mod gate;
pub(crate) mod handle;
pub(crate) mod headers;
pub mod http;
pub mod identity;
mod listen;
pub mod lobby;
pub mod origin;
pub(crate) mod page;
pub(crate) mod single_flight;
pub(crate) mod state;
pub(crate) mod stats;
pub mod storage;
pub mod table;
pub mod tablebase;
pub(crate) mod tables;
pub(crate) mod throttle;
pub mod time;
pub mod token;
pub mod ws;

use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{ConnectInfo, DefaultBodyLimit, State, WebSocketUpgrade};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use baghchal_protocol::MAX_FRAME_BYTES;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tower_http::trace::TraceLayer;

use crate::bot::{Bot, Computer};
use crate::state::AppState;
use crate::storage::{Storage, StorageError};
use crate::table::Pace;
use crate::tablebase::TablebaseSlot;
use crate::tables::{Tables, TablesError};

/// The database of a server started without one named: an SQLite file in
/// the current directory.
pub const DEFAULT_DATABASE_URL: &str = "sqlite://baghchal.db?mode=rwc";

/// How a server runs.
#[derive(Clone)]
pub struct Config {
    /// `sqlite://...` or `postgres://...`.
    pub database_url: String,
    /// The base of the links handed out, e.g. `https://baghchal.example`.
    pub public_url: String,
    /// The page's files on disk, for development; `None` serves the copy
    /// in the binary.
    pub static_dir: Option<PathBuf>,
    /// The computer player.
    pub bot: Arc<dyn Bot>,
    /// Positions the computer may think about at once.
    pub bot_threads: usize,
    /// The computer's pace.
    pub pace: Pace,
    /// The most tables open at once.
    pub max_tables: usize,
    /// How long a table with nobody connected stays in memory.
    pub idle_timeout: Duration,
    /// The per-connection message budget.
    pub rate: ws::RateLimit,
    /// When a silent socket is pinged, and when it is given up.
    pub liveness: ws::Liveness,
    /// Origins besides the public URL's whose pages may use the API.
    pub allow_origins: Vec<String>,
    /// The table-creation budget of one client address.
    pub table_limit: client_limit::TableLimit,
    /// The bots tables one client address may create, and how many may
    /// be open at once.
    pub bots_limit: client_limit::BotsLimit,
    /// The new anonymous players one client address may be given.
    pub new_player_limit: client_limit::NewPlayerLimit,
    /// The post-game analyses one client address may have computed.
    pub analysis_limit: client_limit::AnalysisLimit,
    /// The API reads one client address may make.
    pub read_limit: client_limit::ReadLimit,
    /// Caps on connections and websockets, their deadlines, and the
    /// budgets of `hello`s and control frames.
    pub limits: connections::Limits,
    /// The burst of sign-ups per address.
    pub account_limits: identity::budgets::AccountLimits,
    /// The proxies in front whose `X-Forwarded-For` is believed (the
    /// client's address is then the last one in it).
    pub trusted_proxies: client_limit::TrustedProxies,
    /// The tablebase, read or built in the background while serving (off
    /// by default; the computer sees it through a
    /// [`tablebase::LiveEngine`] bot).
    pub tablebase: TablebaseSlot,
    /// The cluster this node is one of; `None` for a single node.
    pub cluster: Option<cluster::ClusterConfig>,
    /// Wall time (tests set a manual clock).
    pub clock: Arc<dyn time::WallClock>,
    /// How often the lobby's state is read unasked ([`lobby::TICK`]); a
    /// change made on this node, or on another of its cluster, has it read
    /// at once.
    pub lobby_tick: Duration,
}

impl Config {
    /// A configuration with the defaults for everything but the database
    /// and the public URL.
    pub fn new(database_url: impl Into<String>, public_url: impl Into<String>) -> Config {
        Config {
            database_url: database_url.into(),
            public_url: public_url.into(),
            static_dir: None,
            bot: Arc::new(baghchal_engine::Engine::new()),
            bot_threads: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
            pace: Pace::default(),
            max_tables: 100_000,
            idle_timeout: Duration::from_secs(600),
            rate: ws::RateLimit::default(),
            liveness: ws::Liveness::default(),
            allow_origins: Vec::new(),
            table_limit: client_limit::TableLimit::default(),
            new_player_limit: client_limit::NewPlayerLimit::default(),
            bots_limit: client_limit::BotsLimit::default(),
            limits: connections::Limits::default(),
            analysis_limit: client_limit::AnalysisLimit::default(),
            read_limit: client_limit::ReadLimit::default(),
            account_limits: identity::budgets::AccountLimits::default(),
            trusted_proxies: client_limit::TrustedProxies::none(),
            tablebase: TablebaseSlot::off(),
            cluster: None,
            clock: Arc::new(time::SystemClock::new()),
            lobby_tick: lobby::TICK,
        }
    }

    /// Whether this configuration can run: cluster mode needs PostgreSQL.
    pub fn check(&self) -> Result<(), StartError> {
        let postgres = ["postgres:", "postgresql:"]
            .iter()
            .any(|scheme| self.database_url.starts_with(scheme));
        if self.cluster.is_some() && !postgres {
            return Err(StartError::ClusterNeedsPostgres);
        }
        Ok(())
    }
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The database.
    #[error(transparent)]
    Storage(#[from] StorageError),
    /// Resuming tables.
    #[error(transparent)]
    Tables(#[from] TablesError),
    /// The listener.
    #[error("serving: {0}")]
    Io(#[from] std::io::Error),
    /// An allowed origin or the public URL is not an origin.
    #[error(transparent)]
    Origin(#[from] origin::BadOrigin),
    /// Several nodes cannot share a SQLite file.
    #[error("cluster mode (a NATS URL) needs PostgreSQL: a SQLite file serves one node")]
    ClusterNeedsPostgres,
    /// NATS.
    #[error("cluster transport: {0}")]
    Transport(String),
}

/// The routes. The page comes from `static_dir` when given, else from
/// the binary.
pub fn app(state: AppState, static_dir: Option<&std::path::Path>) -> Router {
    let router = Router::new()
        .route("/api/tables", post(http::create_table))
        .route("/api/tables/{table}/games/{game}", get(http::game_record))
        .route(
            "/api/tables/{table}/games/{game}/analysis",
            get(http::game_analysis),
        )
        .route(
            "/api/analysis",
            post(http::analysis::analyse)
                .layer(DefaultBodyLimit::max(http::analysis::MAX_ANALYSIS_BODY)),
        )
        .route(
            "/api/tables/{table}/games/{game}/notation/{format}",
            get(http::notation::export),
        )
        .route("/api/me", get(http::account::me))
        .route(
            "/api/account",
            post(http::account::sign_up).delete(http::account::close_account),
        )
        .route(
            "/api/account/password",
            axum::routing::put(http::account::change_password),
        )
        .route(
            "/api/session",
            post(http::account::log_in).delete(http::account::log_out),
        )
        .route("/api/lobby", get(http::lobby::lobby_state))
        .route("/api/live", get(http::lobby::live_games))
        .route("/api/lobby/events", get(http::lobby::lobby_events))
        .route("/api/challenges", post(http::lobby::create_challenge))
        .route(
            "/api/challenges/{id}",
            axum::routing::delete(http::lobby::withdraw_challenge),
        )
        .route(
            "/api/challenges/{id}/accept",
            post(http::lobby::accept_challenge),
        )
        .route(
            "/api/pools/{pool}",
            post(http::lobby::join_pool).delete(http::lobby::leave_pool),
        )
        // The puzzles (docs/protocol.md).
        .route("/api/puzzles/next", get(http::puzzles::next))
        .route(
            "/api/puzzles/{id}/moves",
            post(http::puzzles::moves).layer(DefaultBodyLimit::max(http::puzzles::MAX_PUZZLE_BODY)),
        )
        // Profiles and the leaderboard.
        .route("/api/players/{id}", get(http::profiles::by_id))
        .route("/api/players/{id}/games", get(http::profiles::games))
        .route(
            "/api/players/{id}/block",
            axum::routing::put(http::blocks::block).delete(http::blocks::unblock),
        )
        .route("/api/blocks", get(http::blocks::list))
        .route("/api/players/by-name/{name}", get(http::profiles::by_name))
        .route("/api/leaderboard/{speed}", get(http::profiles::leaderboard))
        .route("/healthz", get(http::healthz))
        .route("/readyz", get(http::readyz))
        .route("/ws", get(websocket))
        .merge(page::router(static_dir))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            http::reads::budget,
        ));
    let public_url = state.public_url.clone();
    headers::with_security_headers(router, &public_url)
        .layer(DefaultBodyLimit::max(MAX_FRAME_BYTES))
        .layer(TraceLayer::new_for_http().on_failure(http::error::log_failure))
        .with_state(state)
}

async fn websocket(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Response {
    if !state.origins.admits(&headers) {
        return http::error::HttpError::ForbiddenOrigin.into_response();
    }
    let address = client_limit::client_address(peer, &headers, &state.trusted_proxies);
    // The session is looked up before the upgrade: a socket's identity is
    // fixed for its life, like its address.
    let player = match identity::identify(&state.storage, &headers).await {
        Ok(identity) => identity.map(|identity| identity.player.id),
        Err(e) => {
            tracing::error!(error = %e, "reading a session failed");
            None
        }
    };
    let pass = match state.websockets.enter(Some(address)) {
        Ok(pass) => pass,
        Err(refusal) => {
            tracing::debug!(%address, reason = refusal.label(), "websocket refused");
            stats::websocket_refused(refusal);
            return http::error::HttpError::TooManySockets(refusal).into_response();
        }
    };
    let AppState {
        tables,
        shutdown,
        sockets,
        rate,
        liveness,
        hellos,
        limits,
        ..
    } = state;
    let admitted = ws::Admitted {
        address,
        pass,
        hellos,
        hello_timeout: limits.hello_timeout,
        control: ws::RateLimit {
            burst: limits.control_burst,
            per_second: limits.control_per_second,
        },
        player,
    };
    upgrade
        // Up to this bound an oversized message is read whole and refused
        // by the socket's task, which can then close cleanly.
        .max_message_size(ws::READ_LIMIT_BYTES)
        .max_frame_size(ws::READ_LIMIT_BYTES)
        // Small buffers: thousands of sockets, each sending small messages
        // (the read buffer grows for a larger frame, up to the limit). Each
        // look at the socket zeroes the read buffer's free part first, and a
        // socket is looked at after every frame it writes: 512 bytes hold
        // any command a person sends, where 4 KiB cost a tenth of the
        // server's instructions in zeroing.
        .read_buffer_size(512)
        .write_buffer_size(ws::WRITE_BUFFER_BYTES)
        .on_upgrade(move |socket| {
            sockets.track_future(ws::serve(
                socket, tables, rate, liveness, admitted, shutdown,
            ))
        })
}

/// Opens the database, resumes the unfinished tables and serves on
/// `listener` (`/metrics` included) until `shutdown` completes; then
/// closes every socket with a close frame and returns.
pub async fn run(
    listener: TcpListener,
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), StartError> {
    run_with_metrics(listener, None, config, shutdown).await
}

/// [`run`], with `/metrics` served on `metrics` instead of `listener` when
/// it is given (an address an operator keeps private).
pub async fn run_with_metrics(
    listener: TcpListener,
    metrics: Option<TcpListener>,
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), StartError> {
    config.check()?;
    stats::handle();
    let public_url: Arc<str> = Arc::from(config.public_url.trim_end_matches('/'));
    let origins = Arc::new(origin::Origins::new(&public_url, &config.allow_origins)?);
    let storage = Storage::connect(&config.database_url).await?;
    // The shipped puzzles, with their ratings kept (docs/puzzles.md).
    http::puzzles::seed(&storage).await?;
    let backfilled = backfill::backfill_games(&storage).await?;
    if backfilled > 0 {
        tracing::info!(
            games = backfilled,
            "finished games stored from their tables' events"
        );
    }
    let token = CancellationToken::new();
    // The node's own tasks: its leases and its sockets' relays.
    let node_tasks = TaskTracker::new();
    let node = match &config.cluster {
        Some(cluster) => {
            let node = cluster::Node::connect(cluster)
                .await
                .map_err(|e| StartError::Transport(e.to_string()))?;
            node.start(&node_tasks, token.clone())
                .await
                .map_err(|e| StartError::Transport(e.to_string()))?;
            tracing::info!(node_id = %cluster.node_id, cluster = %cluster.name, lease_ms = cluster.lease.as_millis() as u64, "joined the cluster");
            Some(node)
        }
        None => None,
    };
    let computer = Computer::new(config.bot.clone(), config.bot_threads);
    let lobby = lobby::Lobby::new(
        storage.clone(),
        public_url.clone(),
        config.lobby_tick,
        node.clone(),
    );
    let tables = Tables::new(
        storage.clone(),
        computer.clone(),
        config.pace,
        config.idle_timeout,
        config.max_tables,
        config.bots_limit.max_open,
        node,
        config.clock.clone(),
        config.tablebase.activity(),
    );
    let resumed = tables.resume_all().await?;
    tracing::info!(resumed, "tables resumed");
    {
        let tables = tables.clone();
        let token = token.clone();
        node_tasks.spawn(async move { tables.keep_leases(token).await });
    }
    node_tasks.close();
    let sockets = TaskTracker::new();
    let state = AppState {
        tables: tables.clone(),
        storage: storage.clone(),
        public_url,
        shutdown: token.clone(),
        sockets: sockets.clone(),
        rate: config.rate,
        liveness: config.liveness,
        origins,
        creation_limit: client_limit::CreationLimit::new(config.table_limit),
        bots_by_address: connections::AddressBudget::new(config.bots_limit.quota()),
        trusted_proxies: config.trusted_proxies.clone(),
        websockets: connections::Gate::new(
            config.limits.max_websockets,
            config.limits.websockets_per_address,
        ),
        hellos: connections::AddressBudget::hellos(&config.limits),
        limits: config.limits,
        analyses: connections::AddressBudget::new(config.analysis_limit.quota()),
        reads: connections::AddressBudget::new(config.read_limit.quota()),
        boards_by_address: connections::Gate::new(
            usize::MAX,
            config.analysis_limit.board_per_address,
        ),
        reviews: single_flight::SingleFlight::default(),
        computer,
        tablebase: config.tablebase.clone(),
        accounts: identity::budgets::Accounts::new(
            &config.public_url,
            config.new_player_limit,
            config.account_limits,
        ),
        lobby: lobby.clone(),
        lobby_channels: connections::Gate::new(
            config.limits.max_websockets,
            config.limits.websockets_per_address,
        ),
        lobby_actions: identity::budgets::NameBudget::new(
            governor::Quota::per_second(std::num::NonZeroU32::MIN)
                .allow_burst(std::num::NonZeroU32::new(30).unwrap_or(std::num::NonZeroU32::MIN)),
        ),
    };
    {
        let token = token.clone();
        node_tasks.spawn(lobby.run(token));
    }
    let metrics_router = Router::new()
        .route("/metrics", get(http::metrics))
        .with_state(state.clone());
    let mut router = app(state, config.static_dir.as_deref());
    let background = TaskTracker::new();
    match metrics {
        Some(listener) => {
            tracing::info!(addr = ?listener.local_addr().ok(), "metrics on their own address");
            let stop = token.clone();
            background.spawn(async move {
                let served = axum::serve(listener, metrics_router)
                    .with_graceful_shutdown(stop.cancelled_owned())
                    .await;
                if let Err(e) = served {
                    tracing::error!(error = %e, "the metrics listener failed");
                }
            });
        }
        None => router = router.merge(metrics_router),
    }
    let stop = token.clone();
    background.spawn(async move {
        loop {
            tokio::select! {
                () = stop.cancelled() => break,
                () = tokio::time::sleep(stats::UPKEEP_EVERY) => stats::upkeep(),
            }
        }
    });
    {
        let stop = token.clone();
        let tables = tables.clone();
        background.spawn(async move {
            // The first look was at the start, before the tables resumed.
            let mut every = tokio::time::interval_at(
                tokio::time::Instant::now() + tables::EXPIRY_EVERY,
                tables::EXPIRY_EVERY,
            );
            loop {
                tokio::select! {
                    () = stop.cancelled() => break,
                    _ = every.tick() => tables.expire().await,
                }
            }
        });
    }
    background.close();
    config.tablebase.start()?;
    // A single node stops everything at once: its sockets close with 1001.
    // A cluster node first stops taking connections, then hands its
    // tables over (each gives up its lease, then closes its sockets with
    // 1012), then closes its other sockets with 1012.
    let hand_over = config.cluster.is_some();
    let http = CancellationToken::new();
    let signal = token.clone();
    let stop_http = http.clone();
    let stop = async move {
        shutdown.await;
        tracing::info!("shutting down");
        stop_http.cancel();
        if !hand_over {
            signal.cancel();
        }
    };
    let admission = listen::Admission {
        gate: connections::Gate::new(
            config.limits.max_connections,
            config.limits.connections_per_address,
        ),
        proxies: config.trusted_proxies.clone(),
        header_timeout: config.limits.header_timeout,
    };
    listen::serve(listener, router, admission, stop, http).await;
    if hand_over {
        tables.hand_over().await;
        token.cancel();
    }
    config.tablebase.stop().await;
    // The sockets saw the cancellation and are sending their close frames.
    sockets.close();
    if tokio::time::timeout(Duration::from_secs(5), sockets.wait())
        .await
        .is_err()
    {
        tracing::warn!("some sockets did not close in time");
    }
    background.wait().await;
    node_tasks.wait().await;
    tables.close_all().await;
    storage.close().await;
    tracing::info!("stopped");
    Ok(())
}
