//! `baghchal serve`: the table server.

use std::net::SocketAddr;
use std::num::NonZeroU32;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use baghchal_server::client_limit::{
    AddressBlock, AnalysisLimit, BotsLimit, NewPlayerLimit, ReadLimit, TableLimit, TrustedProxies,
};
use baghchal_server::cluster::{ClusterConfig, NatsAuth};
use baghchal_server::connections::{self, Limits};
use baghchal_server::identity::budgets::AccountLimits;
use baghchal_server::tablebase::{HouseBuilder, LiveEngine, TablebaseSlot};
use baghchal_server::ws::RateLimit;
use baghchal_server::{Config, DEFAULT_DATABASE_URL};

/// Options of `baghchal serve`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The address to listen on (port 0 picks a free port).
    #[arg(long, env = "BAGHCHAL_ADDR", default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    /// The database: sqlite://FILE?mode=rwc or postgres://USER@HOST/DB.
    #[arg(
        long,
        env = "DATABASE_URL",
        default_value = DEFAULT_DATABASE_URL
    )]
    database_url: String,
    /// The base URL of the links handed out (default: http://ADDR).
    #[arg(long, env = "BAGHCHAL_PUBLIC_URL")]
    public_url: Option<String>,
    /// The log filter, e.g. info or baghchal_server=debug.
    #[arg(long = "log", env = "RUST_LOG", default_value = "info")]
    log: String,
    /// Serve the page's files from this directory (for development)
    /// instead of the copy built into the binary.
    #[arg(long, env = "BAGHCHAL_STATIC_DIR")]
    static_dir: Option<PathBuf>,
    /// Messages a websocket may send per second (after its burst).
    #[arg(long, env = "BAGHCHAL_WS_RATE", default_value_t = RateLimit::default().per_second)]
    ws_rate: NonZeroU32,
    /// Messages a websocket may send at once.
    #[arg(long, env = "BAGHCHAL_WS_BURST", default_value_t = RateLimit::default().burst)]
    ws_burst: NonZeroU32,
    /// Control frames (pings, pongs) a websocket may send per second
    /// (after its burst), counted apart from its messages.
    #[arg(long, env = "BAGHCHAL_WS_CONTROL_RATE", default_value_t = Limits::default().control_per_second)]
    ws_control_rate: NonZeroU32,
    /// Control frames a websocket may send at once.
    #[arg(long, env = "BAGHCHAL_WS_CONTROL_BURST", default_value_t = Limits::default().control_burst)]
    ws_control_burst: NonZeroU32,
    /// HTTP connections open at once (websockets not included).
    #[arg(long, env = "BAGHCHAL_MAX_CONNECTIONS", default_value_t = Limits::default().max_connections)]
    max_connections: usize,
    /// HTTP connections one client address (an IPv6 /64) may hold open;
    /// not applied with --trust-proxy.
    #[arg(long, env = "BAGHCHAL_CONNECTIONS_PER_ADDRESS", default_value_t = Limits::default().connections_per_address)]
    connections_per_address: usize,
    /// Websockets open at once.
    #[arg(long, env = "BAGHCHAL_MAX_WEBSOCKETS", default_value_t = Limits::default().max_websockets)]
    max_websockets: usize,
    /// Websockets one client address (an IPv6 /64) may hold open.
    #[arg(long, env = "BAGHCHAL_WEBSOCKETS_PER_ADDRESS", default_value_t = Limits::default().websockets_per_address)]
    websockets_per_address: usize,
    /// How long a connection may take over a request's headers, and stay
    /// idle between requests, e.g. 10s.
    #[arg(long, env = "BAGHCHAL_HEADER_TIMEOUT", default_value = "10s", value_parser = parse_duration)]
    header_timeout: Duration,
    /// How long a websocket may stay open without joining a table, e.g. 10s.
    #[arg(long, env = "BAGHCHAL_HELLO_TIMEOUT", default_value = "10s", value_parser = parse_duration)]
    hello_timeout: Duration,
    /// `hello`s one client address (an IPv6 /64) may send at once.
    #[arg(long, env = "BAGHCHAL_HELLO_BURST", default_value_t = Limits::default().hello_burst)]
    hello_burst: NonZeroU32,
    /// `hello`s one client address may send per minute (after its burst).
    #[arg(long, env = "BAGHCHAL_HELLOS_PER_MINUTE", default_value_t = Limits::default().hellos_per_minute)]
    hellos_per_minute: NonZeroU32,
    /// Sign-ups one client address may make at once (then one every 10
    /// minutes).
    #[arg(long, env = "BAGHCHAL_SIGNUP_BURST", default_value_t = AccountLimits::default().signup_burst)]
    signup_burst: NonZeroU32,
    /// Origins besides the public URL's whose pages may create tables and
    /// open sockets (comma-separated, e.g. https://other.example).
    #[arg(long, env = "BAGHCHAL_ALLOW_ORIGIN", value_delimiter = ',')]
    allow_origin: Vec<String>,
    /// Tables one client address may create at once.
    #[arg(long, env = "BAGHCHAL_TABLE_BURST", default_value_t = TableLimit::default().burst)]
    table_burst: NonZeroU32,
    /// Tables one client address may create per minute (after its burst).
    #[arg(long, env = "BAGHCHAL_TABLES_PER_MINUTE", default_value_t = TableLimit::default().per_minute)]
    tables_per_minute: NonZeroU32,
    /// Computer-against-computer tables one client address may create at
    /// once (they count among its tables too).
    #[arg(long, env = "BAGHCHAL_BOTS_TABLE_BURST", default_value_t = BotsLimit::default().burst)]
    bots_table_burst: NonZeroU32,
    /// Computer-against-computer tables one client address may create per
    /// hour (after its burst).
    #[arg(long, env = "BAGHCHAL_BOTS_TABLES_PER_HOUR", default_value_t = BotsLimit::default().per_hour)]
    bots_tables_per_hour: NonZeroU32,
    /// Computer-against-computer tables open at once on this server: a
    /// creation beyond it is answered 503.
    #[arg(long, env = "BAGHCHAL_MAX_BOTS_TABLES", default_value_t = BotsLimit::default().max_open)]
    max_bots_tables: usize,
    /// New anonymous players (first visits) one client address may be
    /// given at once.
    #[arg(long, env = "BAGHCHAL_NEW_PLAYER_BURST", default_value_t = NewPlayerLimit::default().burst)]
    new_player_burst: NonZeroU32,
    /// New anonymous players one client address may be given per minute
    /// (after its burst).
    #[arg(long, env = "BAGHCHAL_NEW_PLAYERS_PER_MINUTE", default_value_t = NewPlayerLimit::default().per_minute)]
    new_players_per_minute: NonZeroU32,
    /// Post-game analyses one client address may have computed at once.
    #[arg(long, env = "BAGHCHAL_ANALYSIS_BURST", default_value_t = AnalysisLimit::default().burst)]
    analysis_burst: NonZeroU32,
    /// Post-game analyses one client address may have computed per hour
    /// (after its burst).
    #[arg(long, env = "BAGHCHAL_ANALYSES_PER_HOUR", default_value_t = AnalysisLimit::default().per_hour)]
    analyses_per_hour: NonZeroU32,
    /// API reads (GET /api/...) one client address may make at once.
    #[arg(long, env = "BAGHCHAL_READ_BURST", default_value_t = ReadLimit::default().burst)]
    read_burst: NonZeroU32,
    /// API reads one client address may make per second (after its
    /// burst).
    #[arg(long, env = "BAGHCHAL_READS_PER_SECOND", default_value_t = ReadLimit::default().per_second)]
    reads_per_second: NonZeroU32,
    /// Analysis-board requests one client address may have in flight.
    #[arg(long, env = "BAGHCHAL_ANALYSIS_BOARD_PER_ADDRESS", default_value_t = AnalysisLimit::default().board_per_address)]
    analysis_board_per_address: usize,
    /// Take the client's address from the last X-Forwarded-For entry of
    /// every request: only behind a proxy that sets it and is the only
    /// way in (--trusted-proxy names the proxy instead).
    #[arg(long, env = "BAGHCHAL_TRUST_PROXY", conflicts_with = "trusted_proxy")]
    trust_proxy: bool,
    /// The proxies (address blocks, e.g. 10.0.0.5/32 or fd00::/8,
    /// comma-separated) whose X-Forwarded-For is believed: the client's
    /// address is its last entry for a request from them, and the peer's
    /// own for anyone else.
    #[arg(long, env = "BAGHCHAL_TRUSTED_PROXY", value_delimiter = ',')]
    trusted_proxy: Vec<AddressBlock>,
    /// Serve /metrics on this address instead of the main one (e.g. a
    /// private 127.0.0.1:9090).
    #[arg(long, env = "BAGHCHAL_METRICS_ADDR")]
    metrics_addr: Option<SocketAddr>,
    #[command(flatten)]
    location: crate::tablebase::Location,
    /// Neither read nor build the tablebase: the computer plays without
    /// (the variable takes 1/0, true/false, yes/no, on/off).
    #[arg(
        long,
        env = "BAGHCHAL_NO_TABLEBASE",
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    no_tablebase: bool,
    /// Threads that build a missing tablebase, at the idle priority and
    /// paused while there is play (default: one fewer than the cores, at
    /// least one).
    #[arg(long, env = "BAGHCHAL_TABLEBASE_THREADS", value_parser = clap::value_parser!(u16).range(1..=256))]
    tablebase_threads: Option<u16>,
    /// Cluster mode: the NATS server the nodes share, e.g.
    /// nats://127.0.0.1:4222 (PostgreSQL required).
    #[arg(long, env = "BAGHCHAL_NATS_URL")]
    nats_url: Option<String>,
    /// This node's id in the cluster (default: random, logged at start).
    #[arg(long, env = "BAGHCHAL_NODE_ID")]
    node_id: Option<String>,
    /// The cluster's name, the prefix of its NATS subjects: clusters that
    /// share a NATS server never see each other's messages.
    #[arg(long = "cluster", env = "BAGHCHAL_CLUSTER", default_value = "baghchal")]
    cluster_name: String,
    /// How long a node's lease on a table lasts without renewal, e.g. 5s,
    /// 1500ms or 2.5 (seconds).
    #[arg(long, env = "BAGHCHAL_LEASE", default_value = "5s", value_parser = parse_duration)]
    lease: Duration,
    #[command(flatten)]
    nats: NatsArgs,
}

/// How a node proves itself to NATS, and checks NATS (docs/scaling.md).
/// Its `Debug` shows no secret.
#[derive(clap::Args)]
struct NatsArgs {
    /// The node's NATS user (with --nats-password).
    #[arg(long, env = "BAGHCHAL_NATS_USER")]
    nats_user: Option<String>,
    /// The NATS user's password (better from the environment than on the
    /// command line).
    #[arg(long, env = "BAGHCHAL_NATS_PASSWORD", hide_env_values = true)]
    nats_password: Option<String>,
    /// A NATS token.
    #[arg(long, env = "BAGHCHAL_NATS_TOKEN", hide_env_values = true)]
    nats_token: Option<String>,
    /// A file holding the node's NATS nkey seed (SU...).
    #[arg(long, env = "BAGHCHAL_NATS_NKEY_FILE")]
    nats_nkey_file: Option<PathBuf>,
    /// A NATS creds file (a user JWT and its nkey seed).
    #[arg(long, env = "BAGHCHAL_NATS_CREDS")]
    nats_creds: Option<PathBuf>,
    /// A CA certificate (PEM) to trust for NATS's certificate instead of
    /// the system's roots; implies TLS.
    #[arg(long, env = "BAGHCHAL_NATS_TLS_CA")]
    nats_tls_ca: Option<PathBuf>,
    /// A client certificate (PEM) to present to NATS (with
    /// --nats-tls-key); implies TLS.
    #[arg(long, env = "BAGHCHAL_NATS_TLS_CERT")]
    nats_tls_cert: Option<PathBuf>,
    /// The client certificate's key (PEM).
    #[arg(long, env = "BAGHCHAL_NATS_TLS_KEY")]
    nats_tls_key: Option<PathBuf>,
    /// Refuse a NATS server that does not speak TLS.
    #[arg(
        long,
        env = "BAGHCHAL_NATS_TLS",
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    nats_tls: bool,
}

impl std::fmt::Debug for NatsArgs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NatsArgs")
            .field("nats_user", &self.nats_user)
            .field("nats_creds", &self.nats_creds)
            .field("nats_tls_ca", &self.nats_tls_ca)
            .field("nats_tls", &self.nats_tls)
            .finish_non_exhaustive()
    }
}

impl NatsArgs {
    /// The options as the server takes them; the nkey seed read from its
    /// file.
    fn auth(self) -> anyhow::Result<NatsAuth> {
        let nkey_seed = match &self.nats_nkey_file {
            Some(path) => Some(
                std::fs::read_to_string(path)
                    .with_context(|| format!("--nats-nkey-file {}", path.display()))?
                    .trim()
                    .to_owned(),
            ),
            None => None,
        };
        let auth = NatsAuth {
            user: self.nats_user,
            password: self.nats_password,
            token: self.nats_token,
            nkey_seed,
            creds_file: self.nats_creds,
            tls_ca: self.nats_tls_ca,
            tls_cert: self.nats_tls_cert,
            tls_key: self.nats_tls_key,
            tls_required: self.nats_tls,
        };
        auth.check()?;
        Ok(auth)
    }
}

/// `5s`, `1500ms` or `2.5` (seconds), between 100 ms and an hour.
fn parse_duration(text: &str) -> Result<Duration, String> {
    let (number, unit) = match text.strip_suffix("ms") {
        Some(n) => (n, 0.001),
        None => (text.strip_suffix('s').unwrap_or(text), 1.0),
    };
    let seconds = number
        .trim()
        .parse::<f64>()
        .map_err(|_| format!("{text:?} is not a duration (try 5s or 1500ms)"))?
        * unit;
    if !(0.1..=3600.0).contains(&seconds) {
        return Err(format!("{text:?} is out of range (100ms to 3600s)"));
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// A random node id: 12 hex digits.
fn random_node_id() -> anyhow::Result<String> {
    let mut bytes = [0u8; 6];
    getrandom::fill(&mut bytes).map_err(|e| anyhow::anyhow!("no random bytes: {e}"))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Runs `baghchal serve`.
pub fn run(args: Args) -> anyhow::Result<()> {
    crate::logging::init(&args.log)?;
    match connections::raise_open_files_limit() {
        Ok((before, after)) if before != after => {
            tracing::info!(
                before,
                after,
                "raised the open files limit to its hard limit"
            )
        }
        Ok((_, limit)) => tracing::info!(limit, "the open files limit is at its hard limit"),
        Err(e) => tracing::warn!(error = %e, "could not raise the open files limit"),
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the runtime")?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(args.addr)
            .await
            .with_context(|| format!("binding {}", args.addr))?;
        let addr = listener.local_addr()?;
        let mut allow_origins = args.allow_origin;
        if args.public_url.is_none() && addr.ip().is_loopback() {
            // A local server is reached by either loopback name.
            let port = addr.port();
            allow_origins.extend([
                format!("http://localhost:{port}"),
                format!("http://127.0.0.1:{port}"),
                format!("http://[::1]:{port}"),
            ]);
        }
        let public_url = args.public_url.unwrap_or_else(|| format!("http://{addr}"));
        let mut config = Config::new(args.database_url.clone(), public_url);
        config.allow_origins = allow_origins;
        config.table_limit = TableLimit {
            burst: args.table_burst,
            per_minute: args.tables_per_minute,
        };
        config.bots_limit = BotsLimit {
            burst: args.bots_table_burst,
            per_hour: args.bots_tables_per_hour,
            max_open: args.max_bots_tables,
        };
        config.new_player_limit = NewPlayerLimit {
            burst: args.new_player_burst,
            per_minute: args.new_players_per_minute,
        };
        config.analysis_limit = AnalysisLimit {
            burst: args.analysis_burst,
            per_hour: args.analyses_per_hour,
            board_per_address: args.analysis_board_per_address,
        };
        config.read_limit = ReadLimit {
            burst: args.read_burst,
            per_second: args.reads_per_second,
        };
        config.account_limits = AccountLimits {
            signup_burst: args.signup_burst,
        };
        config.trusted_proxies = if args.trust_proxy {
            TrustedProxies::any()
        } else {
            TrustedProxies::within(args.trusted_proxy)
        };
        config.static_dir = args.static_dir;
        config.tablebase = tablebase_slot(
            args.location.path_for(&args.database_url),
            args.no_tablebase,
            args.tablebase_threads,
        );
        config.bot = Arc::new(LiveEngine(config.tablebase.clone()));
        config.rate = RateLimit {
            burst: args.ws_burst,
            per_second: args.ws_rate,
        };
        config.limits = Limits {
            max_connections: args.max_connections,
            connections_per_address: args.connections_per_address,
            max_websockets: args.max_websockets,
            websockets_per_address: args.websockets_per_address,
            header_timeout: args.header_timeout,
            hello_timeout: args.hello_timeout,
            hello_burst: args.hello_burst,
            hellos_per_minute: args.hellos_per_minute,
            control_burst: args.ws_control_burst,
            control_per_second: args.ws_control_rate,
        };
        let metrics = match args.metrics_addr {
            Some(at) => Some(
                tokio::net::TcpListener::bind(at)
                    .await
                    .with_context(|| format!("binding {at} for the metrics"))?,
            ),
            None => None,
        };
        if let Some(nats_url) = args.nats_url {
            let node_id = match args.node_id {
                Some(id) => id,
                None => random_node_id()?,
            };
            if node_id.is_empty()
                || !node_id
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            {
                anyhow::bail!("--node-id: letters, digits, - and _ only");
            }
            if args.cluster_name.is_empty()
                || !args
                    .cluster_name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            {
                anyhow::bail!("--cluster: letters, digits, - and _ only");
            }
            let auth = args.nats.auth()?;
            if !auth.has_credentials() {
                tracing::warn!(
                    "NATS without credentials: anyone who reaches it can steer this cluster \
                     (docs/scaling.md)"
                );
            }
            tracing::info!(node_id = %node_id, "cluster node");
            config.cluster = Some(ClusterConfig {
                nats_url,
                node_id,
                name: args.cluster_name,
                lease: args.lease,
                auth,
            });
        }
        config.check()?;
        // Harnesses read this line to find a server started on port 0.
        println!("listening on http://{addr}");
        baghchal_server::run_with_metrics(listener, metrics, config, shutdown_signal()).await?;
        Ok(())
    })
}

/// The tablebase as the flags say: off, or the file at `path` (see
/// [`crate::tablebase::Location`]); built there when missing on `threads`
/// idle-priority threads, or by default one fewer than the cores (at
/// least one). Measured on two cores under the benchmark's standard load
/// (docs/performance.md), before the build yielded to play: with two
/// build threads the p99 of play went from 12 to 128 ms, with one to 43 ms
/// (medians); with the throttle and one thread it stays within a few ms of
/// no build.
fn tablebase_slot(path: PathBuf, off: bool, threads: Option<u16>) -> TablebaseSlot {
    if off {
        return TablebaseSlot::off();
    }
    let threads = threads.map_or_else(
        || {
            std::thread::available_parallelism()
                .map_or(1, |n| n.get())
                .saturating_sub(1)
                .max(1)
        },
        usize::from,
    );
    TablebaseSlot::new(path, Arc::new(HouseBuilder { threads }))
}

/// Completes on Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::error!(error = %e, "cannot listen for Ctrl-C");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(e) => {
                tracing::error!(error = %e, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = terminate => {}
    }
}
