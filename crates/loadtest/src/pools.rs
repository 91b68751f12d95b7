//! `baghchal-pools`: the quick-pairing benchmark. Many players, spread
//! over the nodes of a cluster, join one pool at once; each listens on
//! its lobby channel (server-sent events) for its pairing. It reports how
//! long each player waited to be paired (median, p99, the longest) against
//! the wave period, and checks that everyone was paired exactly once:
//! every table announced to exactly its two players, and each player's
//! `GET /api/me` listing exactly one game.
//!
//! ```text
//! cargo build --release -p baghchal -p baghchal-loadtest
//! target/release/baghchal-pools --url http://127.0.0.1:8080,http://127.0.0.1:8081 --players 2000
//! ```
//!
//! Each node must let one address make that many players and hold that
//! many channels: `--new-player-burst`, `--read-burst`,
//! `--connections-per-address` and
//! `--websockets-per-address` (see `crates/loadtest/pools.sh`).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context};
use baghchal_protocol::{LobbyEvent, Me};
use clap::Parser;
use futures_util::future::join_all;
use tokio::sync::{Barrier, Semaphore};
use tokio::time::Instant;

mod limits;

/// The wave period the server runs each pool with.
const WAVE_PERIOD: Duration = Duration::from_secs(2);

/// Pair many players through a cluster's quick-pairing pools.
#[derive(Parser, Debug)]
#[command(name = "baghchal-pools", version, about)]
struct Args {
    /// The nodes' base URLs, comma-separated; player `i` uses node
    /// `i % nodes`.
    #[arg(long, value_delimiter = ',', required = true)]
    url: Vec<String>,

    /// Players joining the pool at once (an even number pairs everyone).
    #[arg(long, short = 'p', default_value_t = 2000)]
    players: usize,

    /// The pool.
    #[arg(long, default_value = "3+2")]
    pool: String,

    /// Players being made and channels being opened at once.
    #[arg(long, short = 'c', default_value_t = 64)]
    concurrency: usize,

    /// How long to wait for every pairing before giving up (seconds).
    #[arg(long, default_value_t = 120)]
    timeout: u64,

    /// Print only the summary line.
    #[arg(long, short = 'q')]
    quiet: bool,
}

/// A player: the node it uses, its cookie and its id.
#[derive(Clone, Debug)]
struct Player {
    base: String,
    cookie: String,
    id: String,
}

/// What one player saw: how long after its join the pairing came, and
/// every table it was told of.
#[derive(Debug, Default)]
struct Outcome {
    /// How long the join request took to answer.
    join: Option<Duration>,
    waited: Option<Duration>,
    tables: Vec<String>,
    error: Option<String>,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    if args.url.is_empty() || args.players < 2 {
        bail!("give at least one --url and two players");
    }
    limits::raise_open_file_limit(args.players as u64 * 2)?;
    let http = reqwest::Client::builder()
        .pool_idle_timeout(Duration::from_secs(30))
        .build()
        .context("an HTTP client")?;
    let gate = Arc::new(Semaphore::new(args.concurrency.max(1)));

    // The players, each a first visit to its node.
    let made = join_all((0..args.players).map(|i| {
        let (http, gate) = (http.clone(), gate.clone());
        let base = args.url[i % args.url.len()]
            .trim_end_matches('/')
            .to_owned();
        async move {
            let _pass = gate.acquire().await.ok();
            new_player(&http, base).await
        }
    }))
    .await;
    let players: Vec<Player> = made.into_iter().collect::<anyhow::Result<_>>()?;
    if !args.quiet {
        eprintln!("{} players made", players.len());
    }

    // Every channel open (its first state read), then every join at once.
    let ready = Arc::new(Barrier::new(players.len() + 1));
    let timeout = Duration::from_secs(args.timeout);
    let tasks: Vec<_> = players
        .iter()
        .cloned()
        .map(|player| {
            let (http, gate, ready, pool) =
                (http.clone(), gate.clone(), ready.clone(), args.pool.clone());
            tokio::spawn(
                async move { listen_and_join(http, gate, ready, player, pool, timeout).await },
            )
        })
        .collect();
    ready.wait().await;
    if !args.quiet {
        eprintln!(
            "every channel open; {} players join {}",
            players.len(),
            args.pool
        );
    }
    let mut outcomes = Vec::with_capacity(tasks.len());
    for task in tasks {
        outcomes.push(task.await.context("a player's task")?);
    }

    // Exactly once: each table told to two players, each player told of
    // one table, and each player's `playing` lists one game.
    let mut by_table: HashMap<&str, usize> = HashMap::new();
    let mut twice = 0;
    let mut unpaired = 0;
    let mut errors = 0;
    for outcome in &outcomes {
        if let Some(e) = &outcome.error {
            errors += 1;
            if !args.quiet && errors <= 5 {
                eprintln!("error: {e}");
            }
        }
        match outcome.tables.len() {
            0 => unpaired += 1,
            1 => {}
            _ => twice += 1,
        }
        for table in &outcome.tables {
            *by_table.entry(table).or_default() += 1;
        }
    }
    let odd_tables = by_table.values().filter(|&&n| n != 2).count();
    let listed = join_all(players.iter().map(|p| {
        let (http, gate) = (http.clone(), gate.clone());
        async move {
            let _pass = gate.acquire().await.ok();
            me(&http, p).await.map(|me| me.playing.len())
        }
    }))
    .await;
    let not_one_game = listed.iter().filter(|n| !matches!(n, Ok(1))).count();

    let waits = sorted(outcomes.iter().filter_map(|o| o.waited));
    let joins = sorted(outcomes.iter().filter_map(|o| o.join));
    let at = |q: f64| quantile_ms(&waits, q);
    println!(
        "players={} nodes={} pool={} paired={} tables={} median_ms={:.0} p99_ms={:.0} max_ms={:.0} \
         wave_ms={} join_median_ms={:.0} join_p99_ms={:.0} unpaired={} paired_twice={} odd_tables={} \
         not_one_game={} errors={}",
        players.len(),
        args.url.len(),
        args.pool,
        waits.len(),
        by_table.len(),
        at(0.5),
        at(0.99),
        at(1.0),
        WAVE_PERIOD.as_millis(),
        quantile_ms(&joins, 0.5),
        quantile_ms(&joins, 0.99),
        unpaired,
        twice,
        odd_tables,
        not_one_game,
        errors
    );
    if twice > 0 || odd_tables > 0 || not_one_game > 0 {
        bail!("a player was paired twice, or a table does not have two players");
    }
    Ok(())
}

fn sorted(times: impl Iterator<Item = Duration>) -> Vec<Duration> {
    let mut times: Vec<Duration> = times.collect();
    times.sort_unstable();
    times
}

/// The `q` quantile of `sorted`, in milliseconds (the nearest rank).
fn quantile_ms(sorted: &[Duration], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let k = ((sorted.len() as f64 * q).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[k].as_secs_f64() * 1000.0
}

/// A first visit to `base`: a new anonymous player and its cookie.
async fn new_player(http: &reqwest::Client, base: String) -> anyhow::Result<Player> {
    let response = http
        .get(format!("{base}/api/me"))
        .send()
        .await
        .with_context(|| format!("GET {base}/api/me"))?;
    let status = response.status();
    let cookie = response
        .headers()
        .get(reqwest::header::SET_COOKIE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(str::to_owned);
    let body = response.text().await?;
    if !status.is_success() {
        bail!("GET /api/me: {status}: {body} (lift --new-player-burst and --read-burst)");
    }
    let me: Me = serde_json::from_str(&body).context("a player")?;
    Ok(Player {
        base,
        cookie: cookie.context("a session cookie")?,
        id: me.id,
    })
}

async fn me(http: &reqwest::Client, player: &Player) -> anyhow::Result<Me> {
    let body = http
        .get(format!("{}/api/me", player.base))
        .header(reqwest::header::COOKIE, &player.cookie)
        .send()
        .await?
        .error_for_status()?
        .text()
        .await?;
    Ok(serde_json::from_str(&body)?)
}

/// Opens `player`'s lobby channel, waits for its first state, meets the
/// others at `ready`, joins `pool` and reads the channel until `paired`
/// (then a moment more, to catch a second pairing) or `timeout`.
async fn listen_and_join(
    http: reqwest::Client,
    gate: Arc<Semaphore>,
    ready: Arc<Barrier>,
    player: Player,
    pool: String,
    timeout: Duration,
) -> Outcome {
    let mut outcome = Outcome::default();
    let opened = {
        let _pass = gate.acquire().await.ok();
        open_channel(&http, &player).await
    };
    let mut channel = match opened {
        Ok(channel) => Some(channel),
        Err(e) => {
            outcome.error = Some(format!("{}: {e:#}", player.id));
            None
        }
    };
    ready.wait().await;
    let Some(channel) = channel.as_mut() else {
        return outcome;
    };
    let joined = Instant::now();
    let answer = http
        .post(format!(
            "{}/api/pools/{}",
            player.base,
            pool.replace('+', "%2B")
        ))
        .header(reqwest::header::COOKIE, &player.cookie)
        .send()
        .await;
    match answer {
        Ok(r) if r.status().is_success() => outcome.join = Some(joined.elapsed()),
        Ok(r) => {
            outcome.error = Some(format!("join: {}", r.status()));
            return outcome;
        }
        Err(e) => {
            outcome.error = Some(format!("join: {e}"));
            return outcome;
        }
    }
    let deadline = joined + timeout;
    // After the first pairing, listen a little longer: a second one would
    // show there.
    let mut until = deadline;
    loop {
        let event = match tokio::time::timeout_at(until, channel.next()).await {
            Err(_) => break,
            Ok(Ok(Some(event))) => event,
            Ok(Ok(None)) => {
                outcome.error = Some("the channel closed".into());
                break;
            }
            Ok(Err(e)) => {
                outcome.error = Some(format!("channel: {e:#}"));
                break;
            }
        };
        if let LobbyEvent::Paired(paired) = event {
            if outcome.waited.is_none() {
                outcome.waited = Some(joined.elapsed());
                until = (Instant::now() + WAVE_PERIOD * 2).min(deadline);
            }
            if !outcome.tables.contains(&paired.table) {
                outcome.tables.push(paired.table);
            }
        }
    }
    outcome
}

/// A lobby channel read as server-sent events.
struct Channel {
    response: reqwest::Response,
    buffer: Vec<u8>,
}

async fn open_channel(http: &reqwest::Client, player: &Player) -> anyhow::Result<Channel> {
    let response = http
        .get(format!("{}/api/lobby/events", player.base))
        .header(reqwest::header::COOKIE, &player.cookie)
        .send()
        .await?;
    if !response.status().is_success() {
        bail!(
            "the lobby channel: {} (lift --websockets-per-address and --connections-per-address)",
            response.status()
        );
    }
    let mut channel = Channel {
        response,
        buffer: Vec::new(),
    };
    // The first state says the node counts the channel.
    match channel.next().await? {
        Some(LobbyEvent::State(_)) => Ok(channel),
        other => bail!("the channel began with {other:?}"),
    }
}

impl Channel {
    /// The next event; `None` when the stream ended.
    async fn next(&mut self) -> anyhow::Result<Option<LobbyEvent>> {
        loop {
            if let Some(end) = self.buffer.windows(2).position(|w| w == b"\n\n") {
                let block: Vec<u8> = self.buffer.drain(..end + 2).collect();
                let text = String::from_utf8_lossy(&block);
                let data: String = text
                    .lines()
                    .filter_map(|l| l.strip_prefix("data:"))
                    .map(str::trim_start)
                    .collect();
                if data.is_empty() {
                    continue; // a comment that keeps the channel alive
                }
                return Ok(Some(serde_json::from_str(&data).context("a lobby event")?));
            }
            match self.response.chunk().await? {
                Some(bytes) => self.buffer.extend_from_slice(&bytes),
                None => return Ok(None),
            }
        }
    }
}
