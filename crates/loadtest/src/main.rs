//! `baghchal-load`: a load benchmark for the Bagh-Chal table server.
//!
//! It opens many friend tables, each with two players and some spectators,
//! all real websocket clients, and plays random legal games on them at a
//! given pace. It reports the accepted (acknowledged, hence stored) actions
//! per second, the latency from sending an action until every subscriber of
//! its table has the resulting event, the errors, and the server's peak
//! memory. Unless `--url` names a running server, it starts the `baghchal`
//! binary itself on a free loopback port with a fresh SQLite database.
//! Several `--url`s name the nodes of one cluster: each table is created
//! through one of them and its sockets are spread over them.
//!
//! ```text
//! cargo build --release -p baghchal -p baghchal-loadtest
//! target/release/baghchal-load --tables 1000 --spectators 2 --rate 1000 --duration 60s
//! ```
//!
//! `--compare-ceiling` then loads `baghchal-ceiling` (the same protocol
//! with no rules, storage or actors) the same way and prints both side by
//! side with their ratio; `--ceiling` loads the ceiling alone.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context};
use clap::Parser;
use indicatif::{ProgressBar, ProgressStyle};
use tokio::sync::{watch, Semaphore};
use tokio::task::JoinSet;
use tokio::time::Instant;

mod cpu;
mod csv;
mod limits;
mod server;
mod stages;
mod stats;
mod table;

use cpu::Cpu;
use server::{Memory, ServerProcess};
use stats::{summary, Stats};
use table::{Run, Table};

/// Load-test the Bagh-Chal table server with many tables of websocket
/// clients playing random legal games.
#[derive(Parser, Debug)]
#[command(name = "baghchal-load", version, about)]
struct Args {
    /// Tables to open, each with two players.
    #[arg(long, short = 't', default_value_t = 100)]
    tables: u64,

    /// Spectators at each table (0..=12); as many seats are reserved.
    #[arg(long, short = 's', default_value_t = 2, value_parser = clap::value_parser!(u8).range(0..=12))]
    spectators: u8,

    /// Actions per second over all tables; each table acts at an even share
    /// of it. 0 plays every table as fast as its actions come back.
    #[arg(long, short = 'r', default_value_t = 1000.0)]
    rate: f64,

    /// How long to play once every table is connected (e.g. `30s`, `2m`).
    #[arg(long, short = 'd', default_value = "30s", value_parser = parse_duration)]
    duration: Duration,

    /// Stop earlier, after this many actions in all.
    #[arg(long, short = 'n')]
    actions: Option<u64>,

    /// Tables being created and joined at once while connecting.
    #[arg(long, short = 'c', default_value_t = 32)]
    concurrency: usize,

    /// The seed of the random games; the same seed plays the same games.
    #[arg(long, default_value_t = 1)]
    seed: u64,

    /// How long an action may take to reach every subscriber before its
    /// table counts a timeout and stops.
    #[arg(long, default_value = "10s", value_parser = parse_duration)]
    timeout: Duration,

    /// Worker threads of the load generator.
    #[arg(long, default_value_t = 1)]
    threads: usize,

    /// The base URL of a running server (e.g. `http://127.0.0.1:8080`);
    /// without it the benchmark starts its own. Repeat it (or separate the
    /// URLs with commas) for the nodes of one cluster: table `i` is created
    /// through node `i mod N`, and its host, guest and spectators connect
    /// to nodes `i`, `i + 1`, `i + 2`, ... `mod N`.
    #[arg(long = "url", value_delimiter = ',')]
    urls: Vec<String>,

    /// With `--url`: the server's process id, to report its memory and CPU;
    /// repeat it (or separate with commas) for several nodes, whose CPU
    /// and memory are then added up.
    #[arg(long = "server-pid", value_delimiter = ',', requires = "urls")]
    server_pids: Vec<u32>,

    /// The process id of a service the server uses (NATS, PostgreSQL's
    /// postmaster); repeat it or separate with commas. Their CPU while
    /// playing, a process's children's included (PostgreSQL's backends),
    /// is reported apart from the other processes', and per action: each
    /// one's, and together.
    #[arg(long = "service-pid", value_delimiter = ',')]
    service_pids: Vec<u32>,

    /// The `baghchal` binary to start (default: the one next to this
    /// binary).
    #[arg(long, conflicts_with = "urls")]
    server_bin: Option<PathBuf>,

    /// An extra argument for the started server; repeat for more. A
    /// `--database-url` among them (e.g. an empty PostgreSQL database)
    /// replaces the fresh SQLite file.
    #[arg(
        long = "server-arg",
        allow_hyphen_values = true,
        conflicts_with = "urls"
    )]
    server_args: Vec<String>,

    /// Let the started server build its tablebase in the background (into
    /// its temporary directory) as a new server does; without this flag it
    /// runs with `--no-tablebase`.
    #[arg(long, conflicts_with = "urls")]
    tablebase_build: bool,

    /// Write the started server's output to this file instead of
    /// discarding it.
    #[arg(long, conflicts_with = "urls")]
    server_log: Option<PathBuf>,

    /// Load the ceiling server (`baghchal-ceiling`: the same protocol with
    /// no rules, storage or actors) instead of the table server.
    #[arg(long, conflicts_with_all = ["compare_ceiling", "urls"])]
    ceiling: bool,

    /// Load the table server, then the ceiling server with the same
    /// settings, and print both side by side with their ratio.
    #[arg(long)]
    compare_ceiling: bool,

    /// The `baghchal-ceiling` binary to start (default: the one next to
    /// this binary).
    #[arg(long)]
    ceiling_bin: Option<PathBuf>,

    /// Append each run's figures to this CSV file (with a header when it
    /// is new), for `crates/loadtest/plot.py`.
    #[arg(long)]
    csv: Option<PathBuf>,

    /// Append the server's resident memory, sampled every half second
    /// from the moment every table is connected to the end of play, to
    /// this CSV file (`target,seed,seconds,rss_mib`): whether memory levels
    /// off in a long run.
    #[arg(long)]
    memory_csv: Option<PathBuf>,

    /// Draw no progress bars.
    #[arg(long, short = 'q')]
    quiet: bool,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    if !(args.rate >= 0.0 && args.rate.is_finite()) {
        bail!("--rate must be a finite number ≥ 0");
    }
    if args.tables == 0 || args.concurrency == 0 || args.threads == 0 {
        bail!("--tables, --concurrency and --threads must be at least 1");
    }
    let sockets = args.tables * (2 + u64::from(args.spectators));
    limits::raise_open_file_limit(sockets)?;
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(args.threads)
        .enable_all()
        .build()
        .context("starting the runtime")?
        .block_on(run(args, sockets))
}

/// What one run measures against one server.
struct Outcome {
    /// `server` or `ceiling`.
    label: &'static str,
    seconds: f64,
    actions: u64,
    /// Acknowledged actions whose event reached every subscriber.
    settled: u64,
    games: u64,
    delivered: hdrhistogram::Histogram<u64>,
    acked: hdrhistogram::Histogram<u64>,
    connect_errors: u64,
    play_errors: u64,
    errors: std::collections::BTreeMap<String, u64>,
    /// Memory once connected, while playing and at the end.
    memory: [Option<Memory>; 3],
    /// The resident memory while playing: seconds since play started and
    /// KiB, every half second.
    rss_trace: Vec<(f64, u64)>,
    cpu: Cpu,
    /// The server's own histograms of the stages of an action, over the
    /// play (`None` for the ceiling, which records none).
    stages: Option<stages::Stages>,
}

/// Which server a run loads.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Target {
    /// The table server: the one(s) at `--url`, or a started `baghchal`.
    Server,
    /// A started `baghchal-ceiling`.
    Ceiling,
}

async fn run(args: Args, sockets: u64) -> anyhow::Result<()> {
    let targets: &[Target] = if args.ceiling {
        &[Target::Ceiling]
    } else if args.compare_ceiling {
        &[Target::Server, Target::Ceiling]
    } else {
        &[Target::Server]
    };
    let mut outcomes = Vec::new();
    for &target in targets {
        let outcome = measure(&args, sockets, target).await?;
        report(&outcome);
        outcomes.push(outcome);
    }
    if let [server, ceiling] = outcomes.as_slice() {
        compare(server, ceiling);
    }
    if let Some(path) = &args.csv {
        csv::append(path, &args, sockets, &outcomes)?;
        println!("figures appended to {}", path.display());
    }
    if let Some(path) = &args.memory_csv {
        csv::append_memory(path, &args, &outcomes)?;
        println!("memory trace appended to {}", path.display());
    }
    if outcomes.iter().any(|o| o.actions == 0) {
        bail!("a run accepted no action");
    }
    Ok(())
}

/// Starts (or finds) the target, connects the tables, plays and measures.
async fn measure(args: &Args, sockets: u64, target: Target) -> anyhow::Result<Outcome> {
    let started = match (target, args.urls.is_empty()) {
        (Target::Server, false) => None,
        (Target::Server, true) => {
            let binary = match &args.server_bin {
                Some(path) => path.clone(),
                None => server::sibling_binary("baghchal", "baghchal", "--server-bin")?,
            };
            let mut server_args = Vec::new();
            if !args.tablebase_build {
                server_args.push("--no-tablebase".to_owned());
            }
            server_args.extend(args.server_args.iter().cloned());
            Some(ServerProcess::start(&binary, &server_args, args.server_log.as_deref()).await?)
        }
        (Target::Ceiling, _) => {
            let binary = match &args.ceiling_bin {
                Some(path) => path.clone(),
                None => server::sibling_binary(
                    "baghchal-ceiling",
                    "baghchal-loadtest",
                    "--ceiling-bin",
                )?,
            };
            Some(ServerProcess::start_ceiling(&binary, None).await?)
        }
    };
    let label = match target {
        Target::Server => "server",
        Target::Ceiling => "ceiling",
    };
    if let Some(process) = &started {
        println!("{label}: {} (pid {})", process.url(), process.pid());
    }
    let urls: Vec<String> = match &started {
        Some(process) => vec![process.url().to_owned()],
        None => args
            .urls
            .iter()
            .map(|url| url.trim_end_matches('/').to_owned())
            .collect(),
    };
    let server_pids: Vec<u32> = match (&started, target) {
        (Some(process), _) => vec![process.pid()],
        (None, Target::Server) => args.server_pids.clone(),
        (None, Target::Ceiling) => Vec::new(),
    };
    let per_node = sockets.div_ceil(urls.len() as u64);
    let nodes = urls
        .into_iter()
        .map(|url| {
            let endpoint = table::Endpoint::new(&url, per_node)?;
            Ok(table::Node { url, endpoint })
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    if let [_, _, ..] = nodes.as_slice() {
        println!(
            "{} nodes: {}",
            nodes.len(),
            nodes
                .iter()
                .map(|n| n.url.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let sources = nodes.iter().map(|n| n.endpoint.sources().len()).max();
    if let Some(sources @ 1..) = sources {
        println!("connecting from {sources} loopback addresses");
    }
    let interval =
        (args.rate > 0.0).then(|| Duration::from_secs_f64(args.tables as f64 / args.rate));
    let run = Arc::new(Run {
        nodes,
        spectators: args.spectators,
        interval,
        timeout: args.timeout,
        seed: args.seed,
        budget: args.actions.map(Into::into),
        http: reqwest::Client::builder()
            .pool_max_idle_per_host(args.concurrency)
            .build()
            .context("building the HTTP client")?,
        stats: Stats::new(),
    });
    println!(
        "load on the {label}: {} tables × (2 players + {} spectators) = {sockets} websockets, {}, seed {}",
        args.tables,
        args.spectators,
        match interval {
            Some(_) => format!("{} actions/s", args.rate),
            None => "unpaced".to_owned(),
        },
        args.seed
    );

    // Connect every table, `concurrency` at a time.
    let connecting = Instant::now();
    let bar = progress(args.quiet, args.tables, "connecting");
    let tables = connect(&run, args, &bar).await;
    bar.finish_and_clear();
    let connect_errors = run.stats.error_count();
    println!(
        "connected {} of {} tables in {:.1} s ({} failures)",
        tables.len(),
        args.tables,
        connecting.elapsed().as_secs_f64(),
        connect_errors
    );
    if tables.is_empty() {
        print_errors(&run.stats.errors());
        bail!("no table could be opened");
    }
    let memory_connected = Memory::of_all(&server_pids);

    // Play.
    let node_urls: Vec<&str> = run.nodes.iter().map(|n| n.url.as_str()).collect();
    let stages_before = stages::scrape(&run.http, &node_urls).await;
    let cpu_before = Cpu::now(&server_pids, &args.service_pids);
    let start = Instant::now();
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut playing = JoinSet::new();
    for table in tables {
        playing.spawn(table.play(Arc::clone(&run), start, stop_rx.clone()));
    }
    let bar = match args.actions {
        Some(n) => progress(args.quiet, n, "playing"),
        None => progress(args.quiet, args.duration.as_secs().max(1), "playing"),
    };
    let deadline = start + args.duration;
    let mut memory_playing = memory_connected;
    // The first tick comes at once: the trace starts as play starts.
    let mut rss_trace: Vec<(f64, u64)> = Vec::new();
    let mut tick = tokio::time::interval(Duration::from_millis(500));
    let mut done_playing = Vec::new();
    loop {
        tokio::select! {
            joined = playing.join_next() => {
                match joined {
                    None => break,
                    Some(Ok(Some(table))) => done_playing.push(table),
                    Some(_) => {}
                }
            }
            _ = tick.tick() => {
                if !*stop_tx.borrow() {
                    let now = Memory::of_all(&server_pids);
                    if let Some(now) = now {
                        rss_trace.push((start.elapsed().as_secs_f64(), now.rss_kib));
                    }
                    memory_playing = now.or(memory_playing);
                }
                let done = run.stats.actions();
                bar.set_position(match args.actions {
                    Some(_) => done,
                    None => start.elapsed().as_secs(),
                });
                bar.set_message(live(&run.stats, start.elapsed()));
            }
            _ = tokio::time::sleep_until(deadline), if !*stop_tx.borrow() => {
                let _ = stop_tx.send(true);
            }
        }
    }
    let elapsed = start.elapsed();
    bar.finish_and_clear();
    let cpu = Cpu::now(&server_pids, &args.service_pids).since(&cpu_before);
    let memory = Memory::of_all(&server_pids);
    let stages = stages::scrape(&run.http, &node_urls)
        .await
        .map(|after| match &stages_before {
            Some(before) => after.since(before),
            None => after,
        });
    // Every table's sockets close together, once play is over everywhere.
    let mut closing: JoinSet<()> = done_playing.into_iter().map(Table::close).collect();
    while closing.join_next().await.is_some() {}
    if let Some(process) = started {
        process.stop().await;
    }
    let stats = &run.stats;
    Ok(Outcome {
        label,
        seconds: elapsed.as_secs_f64(),
        actions: stats.actions(),
        settled: stats.settled(),
        games: stats.games(),
        delivered: stats.delivered(),
        acked: stats.acked(),
        connect_errors,
        play_errors: stats.error_count() - connect_errors,
        errors: stats.errors(),
        memory: [memory_connected, memory_playing, memory],
        rss_trace,
        cpu,
        stages,
    })
}

/// Opens the run's tables, at most `--concurrency` at once.
async fn connect(run: &Arc<Run>, args: &Args, bar: &ProgressBar) -> Vec<Table> {
    let permits = Arc::new(Semaphore::new(args.concurrency));
    let mut opening = JoinSet::new();
    let mut tables = Vec::new();
    for index in 0..args.tables {
        let Ok(permit) = Arc::clone(&permits).acquire_owned().await else {
            break;
        };
        let task_run = Arc::clone(run);
        opening.spawn(async move {
            let table = Table::open(&task_run, index).await;
            drop(permit);
            table
        });
        while let Some(joined) = opening.try_join_next() {
            collect(joined, &mut tables, bar, &run.stats);
        }
    }
    while let Some(joined) = opening.join_next().await {
        collect(joined, &mut tables, bar, &run.stats);
    }
    tables
}

/// Keeps an opened table, or counts why it could not be opened.
fn collect(
    joined: Result<anyhow::Result<Table>, tokio::task::JoinError>,
    tables: &mut Vec<Table>,
    bar: &ProgressBar,
    stats: &Stats,
) {
    match joined {
        Ok(Ok(table)) => tables.push(table),
        Ok(Err(e)) => stats.record_error(format!("connecting: {e:#}")),
        Err(e) => stats.record_error(format!("connecting: {e}")),
    }
    bar.inc(1);
}

/// A progress bar on stderr, or a hidden one.
fn progress(quiet: bool, length: u64, what: &'static str) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(length);
    bar.set_style(
        ProgressStyle::with_template("{prefix:>10} [{bar:30}] {pos}/{len} {msg}")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    bar.set_prefix(what);
    bar
}

/// The running figures, for the progress bar.
fn live(stats: &Stats, elapsed: Duration) -> String {
    let actions = stats.actions();
    let delivered = stats.delivered();
    format!(
        "{actions} actions, {:.0}/s, p99 {}, {} errors",
        actions as f64 / elapsed.as_secs_f64().max(1e-3),
        stats::millis(delivered.value_at_quantile(0.99)),
        stats.error_count()
    )
}

/// Prints the results of one run.
fn report(outcome: &Outcome) {
    let seconds = outcome.seconds;
    let actions = outcome.actions;
    println!(
        "{}: played {seconds:.1} s: {actions} accepted actions, {:.1} actions/s, {} games finished",
        outcome.label,
        actions as f64 / seconds,
        outcome.games
    );
    println!(
        "latency, action sent -> event at every subscriber: {}",
        summary(&outcome.delivered)
    );
    println!(
        "latency, action sent -> ack:                       {}",
        summary(&outcome.acked)
    );
    println!(
        "acknowledged actions delivered to every subscriber: {} of {actions}",
        outcome.settled
    );
    println!(
        "errors: {} while connecting, {} while playing",
        outcome.connect_errors, outcome.play_errors
    );
    print_errors(&outcome.errors);
    if let [Some(connected), Some(playing), Some(end)] = outcome.memory {
        println!(
            "{} memory: peak RSS {} (VmHWM); RSS {} once connected, {} while playing",
            outcome.label,
            mib(end.peak_rss_kib),
            mib(connected.rss_kib),
            mib(playing.rss_kib)
        );
    }
    if let Some(own) = Memory::of(std::process::id()) {
        println!("load generator memory: peak RSS {}", mib(own.peak_rss_kib));
    }
    let cpu = &outcome.cpu;
    let share = |s: f64| format!("{s:.1} s = {:.0}% of a core", 100.0 * s / seconds);
    let per_action = |s: f64| 1e6 * s / actions.max(1) as f64;
    if let Some(server) = cpu.server {
        println!("{} CPU while playing: {}", outcome.label, share(server));
    }
    if let Some(load) = cpu.load {
        println!("load generator CPU while playing: {}", share(load));
    }
    for &(pid, service) in &cpu.services {
        if let Some(service) = service {
            println!(
                "service {pid}'s CPU while playing: {}, {:.1} µs an action",
                share(service),
                per_action(service)
            );
        }
    }
    if let Some(services) = cpu.services_total() {
        println!(
            "services' CPU while playing: {}, {:.1} µs an action",
            share(services),
            per_action(services)
        );
    }
    if let (Some(busy), Some(load)) = (cpu.machine_busy, cpu.load) {
        let known = load + cpu.server.unwrap_or(0.0) + cpu.services_total().unwrap_or(0.0);
        let others = (busy - known).max(0.0);
        println!("other processes' CPU while playing: {}", share(others));
    }
    if let Some(stages) = &outcome.stages {
        println!(
            "{}'s stages of an action while playing (its /metrics):",
            outcome.label
        );
        for line in stages.lines() {
            println!("  {line}");
        }
    }
}

/// Prints the server and the ceiling side by side, and their ratio.
fn compare(server: &Outcome, ceiling: &Outcome) {
    let rows = figures(server).into_iter().zip(figures(ceiling));
    println!();
    println!(
        "{:<34} {:>12} {:>12} {:>9}",
        "", "server", "ceiling", "ratio"
    );
    for ((name, a), (_, b)) in rows {
        let show = |v: Option<f64>| v.map_or_else(|| "-".to_owned(), |v| format!("{v:.2}"));
        let ratio = match (a, b) {
            (Some(a), Some(b)) if b > 0.0 => format!("{:.2}", a / b),
            _ => "-".to_owned(),
        };
        println!("{name:<34} {:>12} {:>12} {ratio:>9}", show(a), show(b));
    }
}

/// The figures a comparison shows, by name (latencies in milliseconds).
fn figures(outcome: &Outcome) -> Vec<(&'static str, Option<f64>)> {
    let quantile = |q: f64| {
        (!outcome.delivered.is_empty())
            .then(|| outcome.delivered.value_at_quantile(q) as f64 / 1000.0)
    };
    vec![
        (
            "accepted actions/s",
            Some(outcome.actions as f64 / outcome.seconds),
        ),
        ("p50 to every subscriber (ms)", quantile(0.50)),
        ("p99 to every subscriber (ms)", quantile(0.99)),
        ("p99.9 to every subscriber (ms)", quantile(0.999)),
        (
            "max to every subscriber (ms)",
            (!outcome.delivered.is_empty()).then(|| outcome.delivered.max() as f64 / 1000.0),
        ),
        (
            "errors",
            Some((outcome.connect_errors + outcome.play_errors) as f64),
        ),
        (
            "CPU while playing (cores)",
            outcome.cpu.server.map(|s| s / outcome.seconds),
        ),
        (
            "CPU per action (µs)",
            outcome
                .cpu
                .server
                .filter(|_| outcome.actions > 0)
                .map(|s| s * 1e6 / outcome.actions as f64),
        ),
        (
            "peak RSS (MiB)",
            outcome.memory[2].map(|m| m.peak_rss_kib as f64 / 1024.0),
        ),
    ]
}

fn print_errors(errors: &std::collections::BTreeMap<String, u64>) {
    for (kind, count) in errors {
        println!("  {count} × {kind}");
    }
}

fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

/// Parses `30`, `30s`, `500ms`, `2m`.
fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let (number, unit) = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .map_or((text, "s"), |i| text.split_at(i));
    let value: f64 = number
        .parse()
        .map_err(|_| format!("{text:?} is not a duration like 30s, 500ms or 2m"))?;
    let seconds = match unit.trim() {
        "ms" => value / 1000.0,
        "s" => value,
        "m" | "min" => value * 60.0,
        _ => return Err(format!("unknown unit in {text:?}: use ms, s or m")),
    };
    Duration::try_from_secs_f64(seconds).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_take_a_unit_or_default_to_seconds() {
        assert_eq!(parse_duration("30"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert!(parse_duration("2h").is_err());
        assert!(parse_duration("soon").is_err());
    }

    #[test]
    fn the_command_line_is_consistent() {
        use clap::CommandFactory;
        Args::command().debug_assert();
    }
}
