//! A cluster of server processes for a test: its own database and its own
//! cluster name, nodes started on it, clients that play (or watch) a table
//! and reconnect through the surviving nodes, and what the database holds
//! afterwards, counted against what the clients had acknowledged.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use baghchal_protocol::{ClientMessage, ErrorCode, GameState, ServerMessage, Side};
use tokio::task::JoinHandle;

use super::{claim, connect, http, recv_or_close, send, unique, Server, PATIENCE};

/// The lease of the test clusters.
pub const LEASE: &str = "2s";
/// The same, as a duration.
pub const LEASE_TIME: Duration = Duration::from_secs(2);

/// The services the cluster tests use, from `BAGHCHAL_TEST_POSTGRES` (the
/// URL of a database to create others from) and `BAGHCHAL_TEST_NATS`.
/// The tests that call it are ignored when the two were not set at build
/// time (`build.rs`), so here they are.
pub fn services() -> (String, String) {
    let (Ok(admin_url), Ok(nats_url)) = (
        std::env::var("BAGHCHAL_TEST_POSTGRES"),
        std::env::var("BAGHCHAL_TEST_NATS"),
    ) else {
        panic!("BAGHCHAL_TEST_POSTGRES and BAGHCHAL_TEST_NATS were set when the tests were built, but not now");
    };
    (admin_url, nats_url)
}

/// What a cluster test needs: a fresh database and a cluster name of its
/// own.
pub struct Setup {
    pub database_url: String,
    admin_url: String,
    database: String,
    pub nats_url: String,
    pub cluster: String,
}

impl Setup {
    /// On the services of the environment.
    pub async fn new() -> Setup {
        let (admin_url, nats_url) = services();
        Setup::on(&admin_url, &nats_url).await
    }

    /// A fresh database created through `admin_url`, and NATS at
    /// `nats_url`.
    pub async fn on(admin_url: &str, nats_url: &str) -> Setup {
        let suffix = unique("");
        let database = format!("baghchal_cluster_{suffix}");
        let mut conn = <sqlx::PgConnection as sqlx::Connection>::connect(admin_url)
            .await
            .expect("PostgreSQL answers");
        sqlx::query(&format!("CREATE DATABASE {database}"))
            .execute(&mut conn)
            .await
            .unwrap();
        let base = admin_url.rsplit_once('/').unwrap().0.to_owned();
        Setup {
            database_url: format!("{base}/{database}"),
            admin_url: admin_url.to_owned(),
            database,
            nats_url: nats_url.to_owned(),
            cluster: format!("test{suffix}"),
        }
    }

    /// Starts node `node` of the cluster.
    pub async fn start(&self, node: &str) -> Server {
        self.start_via(node, &self.nats_url).await
    }

    /// Starts node `node`, reaching NATS at `nats_url`.
    pub async fn start_via(&self, node: &str, nats_url: &str) -> Server {
        Server::spawn(self.command(node, nats_url, &[])).await
    }

    /// The command of node `node`, reaching NATS at `nats_url`, with
    /// `extra` arguments (its NATS credentials, say), not yet started.
    pub fn command(&self, node: &str, nats_url: &str, extra: &[&str]) -> tokio::process::Command {
        let mut command = Server::command(&[
            "--database-url",
            &self.database_url,
            "--nats-url",
            nats_url,
            "--cluster",
            &self.cluster,
            "--node-id",
            node,
            "--lease",
            LEASE,
        ]);
        command.args(extra);
        command
    }

    /// Three nodes: `a`, `b` and `c`.
    pub async fn three(&self) -> Vec<Server> {
        vec![
            self.start("a").await,
            self.start("b").await,
            self.start("c").await,
        ]
    }

    pub async fn cleanup(self) {
        if let Ok(mut conn) =
            <sqlx::PgConnection as sqlx::Connection>::connect(&self.admin_url).await
        {
            let _ = sqlx::query(&format!(
                "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                self.database
            ))
            .execute(&mut conn)
            .await;
        }
    }
}

/// The addresses a client reconnects through, in turn; a test removes a
/// node that is gone.
pub type Addrs = Arc<Mutex<Vec<String>>>;

pub fn addrs_of(nodes: &[Server]) -> Addrs {
    Arc::new(Mutex::new(nodes.iter().map(|n| n.addr.clone()).collect()))
}

/// What one client saw and had acknowledged.
#[derive(Default, Debug)]
pub struct Seen {
    pub table: String,
    /// `host` or `guest` (or empty for a spectator), as stored.
    pub player: &'static str,
    /// Every event received, by version; a version received twice counts.
    pub versions: Vec<u64>,
    pub duplicates: usize,
    pub gaps: usize,
    /// Acknowledged actions: client id, the ply it was played at, action.
    pub acked: Vec<(String, u16, String)>,
    pub reconnects: usize,
    /// For each socket that closed under the client: how long until it
    /// was back at the table (its next `welcome`).
    pub back_in: Vec<Duration>,
    /// The code of each close frame the server sent (`None`: the
    /// connection ended without one).
    pub closes: Vec<Option<u16>>,
}

/// A client at a table: plays `side` (the first legal action) when
/// `side` is set, else watches; reconnects through the next address of
/// `addrs` with `since` whenever its socket closes, and stops once the
/// game reaches `plies` or ends.
pub async fn client(
    addrs: Addrs,
    at: usize,
    table: String,
    token: String,
    side: Option<Side>,
    plies: u16,
) -> Seen {
    client_paced(addrs, at, table, token, side, plies, Duration::ZERO).await
}

/// [`client`], taking `think` over each of its actions (a person's pace,
/// so that a game outlasts what a test does to the nodes meanwhile).
pub async fn client_paced(
    addrs: Addrs,
    mut at: usize,
    table: String,
    token: String,
    side: Option<Side>,
    plies: u16,
    think: Duration,
) -> Seen {
    let mut seen = Seen {
        table: table.clone(),
        player: match side {
            Some(Side::Goats) => "host",
            Some(Side::Tigers) => "guest",
            None => "",
        },
        ..Seen::default()
    };
    let mut version = 0u64;
    let mut next_id = 0u32;
    // The action in flight: id, ply and action, resent after a reconnect.
    let mut pending: Option<(String, u16, String)> = None;
    let started = Instant::now();
    // The state last seen: a reconnect with `since` that missed nothing
    // brings no state, only the presence.
    let mut last: Option<GameState> = None;
    // When the socket last closed under the client, until it is back.
    let mut closed_at: Option<Instant> = None;
    'connection: loop {
        assert!(
            started.elapsed() < PATIENCE * 2,
            "the client never finished"
        );
        let addr = {
            let addrs = addrs.lock().unwrap();
            addrs[at % addrs.len()].clone()
        };
        let Some(mut ws) = connect(&addr).await else {
            at += 1;
            seen.reconnects += 1;
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        let hello = ClientMessage::Hello {
            table: table.clone(),
            token: Some(token.clone()),
            since: (version > 0).then_some(version),
        };
        if !send(&mut ws, &hello).await {
            closed_at.get_or_insert_with(Instant::now);
            continue;
        }
        let mut sent_pending = false;
        loop {
            let Ok(message) = tokio::time::timeout(PATIENCE, recv_or_close(&mut ws)).await else {
                panic!(
                    "{} {:?} at {addr} heard nothing: version {version}, pending {pending:?}, \
                     sent {sent_pending}, last {last:?}",
                    table, side
                );
            };
            let message = match message {
                Ok(message) => message,
                Err(code) => {
                    seen.closes.push(code);
                    break;
                }
            };
            let state: GameState = match message {
                ServerMessage::Snapshot {
                    version: v, state, ..
                } => {
                    version = v;
                    state
                }
                ServerMessage::Event {
                    version: v, state, ..
                } => {
                    if v <= version {
                        seen.duplicates += 1;
                    } else if v != version + 1 {
                        seen.gaps += 1;
                    }
                    version = version.max(v);
                    seen.versions.push(v);
                    state
                }
                ServerMessage::Welcome { .. } => {
                    if let Some(closed) = closed_at.take() {
                        seen.back_in.push(closed.elapsed());
                    }
                    continue;
                }
                ServerMessage::Presence(_) => match &last {
                    Some(state) => state.clone(),
                    None => continue,
                },
                ServerMessage::Ack { id } => {
                    let Some(p) = pending.take_if(|p| p.0 == id) else {
                        continue;
                    };
                    let ply = p.1;
                    seen.acked.push(p);
                    // A resent action's ack can come after the events that
                    // followed it: the turn may be ours already.
                    match &last {
                        Some(state) if state.ply > ply => state.clone(),
                        _ => continue,
                    }
                }
                ServerMessage::Error { code, message, .. } => {
                    // The server could not take it now (a table moving, the
                    // database away): reconnect and send it again.
                    assert!(
                        matches!(code, ErrorCode::Internal),
                        "refused: {code:?} {message}"
                    );
                    break;
                }
                _ => continue,
            };
            last = Some(state.clone());
            if state.result.is_some() || state.ply >= plies {
                return seen;
            }
            // An unacknowledged action whose ply is past was either stored
            // (its ack lost with a socket) or overtaken: never resend it.
            if pending.as_ref().is_some_and(|p| state.ply > p.1) {
                pending = None;
            }
            let Some(side) = side else { continue };
            if state.side_to_move != side {
                continue;
            }
            let fresh = pending.is_none();
            let action = match &pending {
                Some(p) if !sent_pending => p.clone(),
                Some(_) => continue,
                None => {
                    next_id += 1;
                    let p = (next_id.to_string(), state.ply, state.legal[0].to_string());
                    pending = Some(p.clone());
                    p
                }
            };
            if fresh && !think.is_zero() {
                tokio::time::sleep(think).await;
            }
            sent_pending = true;
            let message = ClientMessage::Action {
                id: action.0,
                action: action.2,
                board: None,
            };
            if !send(&mut ws, &message).await {
                closed_at.get_or_insert_with(Instant::now);
                continue 'connection;
            }
        }
        seen.reconnects += 1;
        closed_at.get_or_insert_with(Instant::now);
        at += 1;
        // Not a hammer on a service that is away.
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A friend table whose games end at `plies`, with one spectator seat.
pub fn friend(plies: u16) -> serde_json::Value {
    serde_json::json!({
        "opponent": "friend", "side": "goats", "spectators": 1,
        "variant": { "ply_limit": plies }
    })
}

/// A table in play: its id and the index of the node that created it
/// (its first owner).
pub struct Played {
    pub table: String,
    pub owner: usize,
}

/// Starts play at `tables` friend tables spread over `nodes`: table `i` is
/// created on node `i % n` (its first owner) and its guest claims the seat
/// through the next node; host and guest play until ply `plies` (of a game
/// of 200), starting at those nodes and reconnecting through `addrs`.
pub async fn spread(
    nodes: &[Server],
    addrs: &Addrs,
    tables: usize,
    plies: u16,
) -> (Vec<JoinHandle<Seen>>, Vec<Played>) {
    spread_paced(nodes, addrs, tables, plies, Duration::ZERO).await
}

/// [`spread`], with players that take `think` over each action.
pub async fn spread_paced(
    nodes: &[Server],
    addrs: &Addrs,
    tables: usize,
    plies: u16,
    think: Duration,
) -> (Vec<JoinHandle<Seen>>, Vec<Played>) {
    let n = nodes.len();
    let mut players = Vec::new();
    let mut played = Vec::new();
    for i in 0..tables {
        let owner = i % n;
        let created = nodes[owner].create(&friend(200)).await;
        let guest_secret = claim(&nodes[(i + 1) % n].addr, &created).await;
        players.push(tokio::spawn(client_paced(
            addrs.clone(),
            i,
            created.table.clone(),
            created.secret.clone().unwrap(),
            Some(Side::Goats),
            plies,
            think,
        )));
        players.push(tokio::spawn(client_paced(
            addrs.clone(),
            i + 1,
            created.table.clone(),
            guest_secret,
            Some(Side::Tigers),
            plies,
            think,
        )));
        played.push(Played {
            table: created.table,
            owner,
        });
    }
    (players, played)
}

/// Waits for every player.
pub async fn finish(players: Vec<JoinHandle<Seen>>) -> Vec<Seen> {
    let mut seen = Vec::new();
    for player in players {
        seen.push(player.await.expect("a player task"));
    }
    seen
}

/// The tables of `played` (those first owned by node `node`, or all)
/// still short of `plies` events in `before`: the ones whose play must go
/// on after a fault.
pub fn in_play<'a>(
    played: &'a [Played],
    before: &Log,
    plies: u16,
    node: Option<usize>,
) -> Vec<&'a str> {
    played
        .iter()
        .filter(|p| node.is_none_or(|n| p.owner == n))
        .filter(|p| before[&p.table].len() < usize::from(plies))
        .map(|p| p.table.as_str())
        .collect()
}

/// Waits for every player, then checks what they saw and what is stored:
/// no client saw an event twice or skipped one, no table's log forked.
/// Returns the stored log and the tally of acknowledged actions in it.
pub async fn settle(players: Vec<JoinHandle<Seen>>, database_url: &str) -> (Log, Tally) {
    let seen = finish(players).await;
    let log = stored(database_url).await;
    assert_in_order(&seen);
    assert_one_line(&log);
    let tally = Tally::of(&seen, &log);
    (log, tally)
}

/// A stored event: version, action, player, client id, epoch.
pub type StoredEvent = (i64, Option<String>, Option<String>, Option<String>, i64);
/// The same, with its table first.
type EventRow = (
    String,
    i64,
    Option<String>,
    Option<String>,
    Option<String>,
    i64,
);
/// Every table's events, by table.
pub type Log = HashMap<String, Vec<StoredEvent>>;

/// Every event of every table, read straight from the database, in
/// version order.
pub async fn stored(database_url: &str) -> Log {
    let mut conn = <sqlx::PgConnection as sqlx::Connection>::connect(database_url)
        .await
        .unwrap();
    let rows: Vec<EventRow> = sqlx::query_as(
        "SELECT table_id, version, action, player, client_id, epoch FROM events \
             ORDER BY table_id, version",
    )
    .fetch_all(&mut conn)
    .await
    .unwrap();
    let mut tables: Log = HashMap::new();
    for (table, version, action, player, client_id, epoch) in rows {
        tables
            .entry(table)
            .or_default()
            .push((version, action, player, client_id, epoch));
    }
    tables
}

/// The longest wait between two stored events of each table: with both
/// players moving at once, the longest time a player on move could not
/// move.
pub async fn longest_waits(database_url: &str) -> Vec<Duration> {
    let mut conn = <sqlx::PgConnection as sqlx::Connection>::connect(database_url)
        .await
        .unwrap();
    // `created_at`: milliseconds since the epoch.
    let rows: Vec<(String, i64)> =
        sqlx::query_as("SELECT table_id, created_at FROM events ORDER BY table_id, version")
            .fetch_all(&mut conn)
            .await
            .unwrap();
    let mut longest: HashMap<String, i64> = HashMap::new();
    for pair in rows.windows(2) {
        let ((a, at), (b, bt)) = (&pair[0], &pair[1]);
        if a == b {
            let wait = longest.entry(a.clone()).or_default();
            *wait = (*wait).max(bt - at);
        }
    }
    longest
        .into_values()
        .map(|ms| Duration::from_millis(u64::try_from(ms).unwrap_or(0)))
        .collect()
}

/// The median and the largest of `durations`.
pub fn median_and_max(mut durations: Vec<Duration>) -> (Duration, Duration) {
    durations.sort();
    let median = durations
        .get(durations.len() / 2)
        .copied()
        .unwrap_or_default();
    (median, durations.last().copied().unwrap_or_default())
}

/// Every table's owner now, as the database records it.
pub async fn owners(database_url: &str) -> HashMap<String, Option<String>> {
    let mut conn = <sqlx::PgConnection as sqlx::Connection>::connect(database_url)
        .await
        .unwrap();
    sqlx::query_as::<_, (String, Option<String>)>("SELECT id, owner FROM tables")
        .fetch_all(&mut conn)
        .await
        .unwrap()
        .into_iter()
        .collect()
}

/// Waits until `table` has at least `events` stored events.
pub async fn until_stored(database_url: &str, table: &str, events: usize) {
    let started = Instant::now();
    while stored(database_url)
        .await
        .get(table)
        .is_none_or(|log| log.len() < events)
    {
        assert!(
            started.elapsed() < PATIENCE,
            "play did not reach {events} events"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Waits until each of `tables` has at least `events` stored events.
pub async fn until_all_stored(database_url: &str, tables: &[Played], events: usize) {
    let started = Instant::now();
    loop {
        let log = stored(database_url).await;
        if tables
            .iter()
            .all(|p| log.get(&p.table).is_some_and(|e| e.len() >= events))
        {
            return;
        }
        assert!(started.elapsed() < PATIENCE, "play did not get going");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Waits until every table of `moving` has more events than it had in
/// `before`; returns how long that took.
pub async fn until_each_moves_on(database_url: &str, before: &Log, moving: &[&str]) -> Duration {
    let started = Instant::now();
    loop {
        let log = stored(database_url).await;
        if moving.iter().all(|t| log[*t].len() > before[*t].len()) {
            return started.elapsed();
        }
        assert!(started.elapsed() < PATIENCE, "play did not go on");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Asserts that no table's log forked: its versions are 1, 2, 3, ... and
/// the epochs that wrote them never go down.
pub fn assert_one_line(log: &Log) {
    for (table, events) in log {
        let versions: Vec<i64> = events.iter().map(|e| e.0).collect();
        assert_eq!(
            versions,
            (1..=versions.len() as i64).collect::<Vec<_>>(),
            "{table}"
        );
        let epochs: Vec<i64> = events.iter().map(|e| e.4).collect();
        assert!(
            epochs.windows(2).all(|w| w[0] <= w[1]),
            "{table}: {epochs:?}"
        );
    }
}

/// Asserts that no client received an event twice or skipped one.
pub fn assert_in_order(seen: &[Seen]) {
    for s in seen {
        assert_eq!((s.duplicates, s.gaps), (0, 0), "{s:?}");
    }
}

/// The clients' acknowledged actions counted against the stored log.
#[derive(Debug, PartialEq, Eq)]
pub struct Tally {
    pub acknowledged: usize,
    /// Stored at their ply, with their client id and player.
    pub found: usize,
    pub lost: usize,
    /// Client ids of one player stored more than once at a table.
    pub duplicated: usize,
    pub reconnects: usize,
}

impl Tally {
    pub fn of(seen: &[Seen], log: &Log) -> Tally {
        let mut duplicated = 0;
        for events in log.values() {
            let mut ids = BTreeMap::new();
            for (_, _, player, id, _) in events {
                if let (Some(player), Some(id)) = (player, id) {
                    *ids.entry((player.clone(), id.clone())).or_insert(0) += 1;
                }
            }
            duplicated += ids.values().filter(|n| **n > 1).count();
        }
        let (mut acknowledged, mut found) = (0, 0);
        for s in seen {
            let events = log.get(&s.table).map(Vec::as_slice).unwrap_or_default();
            for (id, ply, action) in &s.acked {
                acknowledged += 1;
                // The action at its ply of the game is the 1-based version
                // ply + 1 (friend tables with no offers: one event a ply).
                let present = events.iter().any(|(version, a, player, cid, _)| {
                    *version == i64::from(*ply) + 1
                        && cid.as_deref() == Some(id.as_str())
                        && player.as_deref() == Some(s.player)
                        && a.as_deref() == Some(action.as_str())
                });
                found += usize::from(present);
            }
        }
        Tally {
            acknowledged,
            found,
            lost: acknowledged - found,
            duplicated,
            reconnects: seen.iter().map(|s| s.reconnects).sum(),
        }
    }
}

/// The sum of one counter over the nodes' `/metrics`.
pub async fn counter(nodes: &[Server], name: &str) -> f64 {
    let mut total = 0.0;
    for node in nodes {
        let text = node.metrics().await;
        total += text
            .lines()
            .filter(|line| line.starts_with(name))
            .filter_map(|line| line.rsplit(' ').next()?.parse::<f64>().ok())
            .sum::<f64>();
    }
    total
}

/// One HTTP/1.1 exchange; the status, the session cookie set (if any) and
/// the body.
pub async fn exchange(
    addr: &str,
    method: &str,
    path: &str,
    cookie: Option<&str>,
    body: &str,
) -> (u16, Option<String>, String) {
    let cookie = cookie
        .map(|c| format!("Cookie: {c}\r\n"))
        .unwrap_or_default();
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         {cookie}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let (head, body) = http(addr, &request).await;
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let set = head
        .lines()
        .find_map(|l| {
            l.strip_prefix("set-cookie: ")
                .or_else(|| l.strip_prefix("Set-Cookie: "))
        })
        .map(|l| l.split(';').next().unwrap().to_owned());
    (status, set, body)
}
