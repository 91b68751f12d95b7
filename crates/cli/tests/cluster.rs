//! Several server processes share one PostgreSQL database and one NATS
//! server as a cluster: a game spread over three nodes, and the owner of
//! many tables killed in the middle of play. Each test has its own
//! database and its own cluster name. Run when `BAGHCHAL_TEST_POSTGRES`
//! and `BAGHCHAL_TEST_NATS` are set (`.ci/run` sets both).

use std::collections::{BTreeMap, HashMap};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use baghchal_protocol::{ClientMessage, ErrorCode, GameState, ServerMessage, Side, TableCreated};
use futures_util::{SinkExt, StreamExt};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::process::{Child, Command};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// A guard against hanging, not a timing assertion.
const PATIENCE: Duration = Duration::from_secs(90);
/// The lease of the test clusters.
const LEASE: &str = "2s";

/// What a cluster test needs: a fresh database and a cluster name of its
/// own, or `None` (with a note) when the services are not configured.
struct Setup {
    database_url: String,
    admin_url: String,
    database: String,
    nats_url: String,
    cluster: String,
}

impl Setup {
    async fn new() -> Option<Setup> {
        let (Ok(admin_url), Ok(nats_url)) = (
            std::env::var("BAGHCHAL_TEST_POSTGRES"),
            std::env::var("BAGHCHAL_TEST_NATS"),
        ) else {
            eprintln!("note: BAGHCHAL_TEST_POSTGRES or BAGHCHAL_TEST_NATS is not set; skipping");
            return None;
        };
        let mut bytes = [0u8; 8];
        getrandom::fill(&mut bytes).unwrap();
        let suffix = format!("{:016x}", u64::from_le_bytes(bytes));
        let database = format!("baghchal_cluster_{suffix}");
        let mut conn = <sqlx::PgConnection as sqlx::Connection>::connect(&admin_url)
            .await
            .expect("PostgreSQL answers");
        sqlx::query(&format!("CREATE DATABASE {database}"))
            .execute(&mut conn)
            .await
            .unwrap();
        let base = admin_url.rsplit_once('/').unwrap().0.to_owned();
        Some(Setup {
            database_url: format!("{base}/{database}"),
            admin_url,
            database,
            nats_url,
            cluster: format!("test{suffix}"),
        })
    }

    async fn start(&self, node: &str) -> Node {
        Node::start(self, node).await
    }

    async fn cleanup(self) {
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

/// One node: the server binary in cluster mode.
struct Node {
    child: Child,
    addr: String,
}

impl Node {
    async fn start(setup: &Setup, node: &str) -> Node {
        let mut child = Command::new(env!("CARGO_BIN_EXE_baghchal"))
            .args(["--addr", "127.0.0.1:0"])
            .args([
                "--log",
                &std::env::var("BAGHCHAL_TEST_LOG").unwrap_or_else(|_| "warn".into()),
            ])
            .args(["--database-url", &setup.database_url])
            .args(["--nats-url", &setup.nats_url])
            .args([
                "--cluster",
                &setup.cluster,
                "--node-id",
                node,
                "--lease",
                LEASE,
            ])
            .env("BAGHCHAL_WS_RATE", "100000")
            .env("BAGHCHAL_WS_BURST", "100000")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .expect("the baghchal binary starts");
        let stdout = child.stdout.take().unwrap();
        let mut lines = BufReader::new(stdout).lines();
        let line = tokio::time::timeout(PATIENCE, lines.next_line())
            .await
            .expect("the node prints its address")
            .unwrap()
            .expect("a line on stdout");
        let addr = line
            .strip_prefix("listening on http://")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .to_owned();
        Node { child, addr }
    }

    async fn create(&self, body: serde_json::Value) -> TableCreated {
        let body = body.to_string();
        let mut stream = TcpStream::connect(&self.addr).await.unwrap();
        let request = format!(
            "POST /api/tables HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.addr,
            body.len()
        );
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).await.unwrap();
        let (head, body) = response.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 201"), "{response}");
        serde_json::from_str(body).unwrap()
    }
}

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

async fn connect(addr: &str) -> Option<Ws> {
    let connecting = tokio_tungstenite::connect_async(format!("ws://{addr}/ws"));
    let (ws, _) = tokio::time::timeout(Duration::from_secs(10), connecting)
        .await
        .ok()?
        .ok()?;
    Some(ws)
}

async fn send(ws: &mut Ws, message: &ClientMessage) -> bool {
    ws.send(Message::text(serde_json::to_string(message).unwrap()))
        .await
        .is_ok()
}

/// The next message, or `None` once the connection is gone.
async fn recv(ws: &mut Ws) -> Option<ServerMessage> {
    loop {
        match ws.next().await? {
            Ok(Message::Text(text)) => return Some(serde_json::from_str(&text).unwrap()),
            Ok(Message::Close(_)) | Err(_) => return None,
            Ok(_) => {}
        }
    }
}

/// The token in a link's fragment.
fn token_of(link: &str) -> String {
    link.rsplit_once('=').unwrap().1.to_owned()
}

/// Claims the opponent seat through `addr` and returns the guest's secret.
async fn claim(addr: &str, created: &TableCreated) -> String {
    let mut ws = connect(addr).await.expect("a socket");
    let hello = ClientMessage::Hello {
        table: created.table.clone(),
        token: token_of(created.opponent_link.as_deref().unwrap()),
        since: None,
    };
    assert!(send(&mut ws, &hello).await);
    match recv(&mut ws).await {
        Some(ServerMessage::Welcome {
            secret: Some(secret),
            ..
        }) => secret,
        other => panic!("the claim gives a secret, not {other:?}"),
    }
}

/// What one client saw and had acknowledged.
#[derive(Default, Debug)]
struct Seen {
    table: String,
    /// `host` or `guest` (or empty for a spectator), as stored.
    player: &'static str,
    /// Every event received, by version; a version received twice counts.
    versions: Vec<u64>,
    duplicates: usize,
    gaps: usize,
    /// Acknowledged actions: client id, and the ply it was played at.
    acked: Vec<(String, u16, String)>,
    reconnects: usize,
}

/// A client at a table: plays `side` (the first legal action) when
/// `side` is set, else watches; reconnects through the next address of
/// `addrs` with `since` whenever its socket closes, and stops once the
/// game reaches `plies` or ends.
async fn client(
    addrs: Arc<Mutex<Vec<String>>>,
    mut at: usize,
    table: String,
    token: String,
    side: Option<Side>,
    plies: u16,
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
            token: token.clone(),
            since: (version > 0).then_some(version),
        };
        if !send(&mut ws, &hello).await {
            continue;
        }
        let mut sent_pending = false;
        loop {
            let Ok(message) = tokio::time::timeout(PATIENCE, recv(&mut ws)).await else {
                panic!(
                    "{} {:?} at {addr} heard nothing: version {version}, pending {pending:?}, \
                     sent {sent_pending}, last {last:?}",
                    table, side
                );
            };
            let Some(message) = message else { break };
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
                    // The server could not take it now (a table moving):
                    // reconnect and send it again.
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
            let action = match &pending {
                Some(p) if !sent_pending => p.clone(),
                Some(_) => continue,
                None => {
                    next_id += 1;
                    let p = (next_id.to_string(), state.ply, state.legal[0].clone());
                    pending = Some(p.clone());
                    p
                }
            };
            sent_pending = true;
            let message = ClientMessage::Action {
                id: action.0,
                action: action.2,
            };
            if !send(&mut ws, &message).await {
                continue 'connection;
            }
        }
        seen.reconnects += 1;
        at += 1;
    }
}

/// A stored event: version, action, player, client id, epoch.
type StoredEvent = (i64, Option<String>, Option<String>, Option<String>, i64);
/// The same, with its table first.
type EventRow = (
    String,
    i64,
    Option<String>,
    Option<String>,
    Option<String>,
    i64,
);

/// Every event of every table, read straight from the database: by table,
/// (version, action, player, client id, epoch).
async fn stored(database_url: &str) -> HashMap<String, Vec<StoredEvent>> {
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
    let mut tables: HashMap<_, Vec<_>> = HashMap::new();
    for (table, version, action, player, client_id, epoch) in rows {
        tables
            .entry(table)
            .or_default()
            .push((version, action, player, client_id, epoch));
    }
    tables
}

fn friend(plies: u16) -> serde_json::Value {
    serde_json::json!({
        "opponent": "friend", "side": "goats", "spectators": 1,
        "variant": { "ply_limit": plies }
    })
}

#[tokio::test]
async fn a_game_spread_over_three_nodes_reaches_every_client_once_and_in_order() {
    let Some(setup) = Setup::new().await else {
        return;
    };
    let nodes = [
        setup.start("a").await,
        setup.start("b").await,
        setup.start("c").await,
    ];
    let addrs: Vec<String> = nodes.iter().map(|n| n.addr.clone()).collect();
    let created = nodes[0].create(friend(40)).await;
    let guest_secret = claim(&addrs[1], &created).await;
    let shared = Arc::new(Mutex::new(addrs));
    let table = created.table.clone();
    let host = tokio::spawn(client(
        shared.clone(),
        0,
        table.clone(),
        created.secret.clone().unwrap(),
        Some(Side::Goats),
        40,
    ));
    let guest = tokio::spawn(client(
        shared.clone(),
        1,
        table.clone(),
        guest_secret,
        Some(Side::Tigers),
        40,
    ));
    let watcher = tokio::spawn(client(
        shared.clone(),
        2,
        table.clone(),
        token_of(created.spectator_link.as_deref().unwrap()),
        None,
        40,
    ));
    let seen = [
        host.await.unwrap(),
        guest.await.unwrap(),
        watcher.await.unwrap(),
    ];
    let log = stored(&setup.database_url).await.remove(&table).unwrap();
    let last = log.last().unwrap().0 as u64;
    for s in &seen {
        assert_eq!((s.duplicates, s.gaps, s.reconnects), (0, 0, 0), "{s:?}");
    }
    // The spectator saw every version exactly once, in order, up to the end.
    let watched = &seen[2].versions;
    assert!(watched.len() >= 2, "too little was played: {watched:?}");
    assert!(watched.windows(2).all(|w| w[1] == w[0] + 1), "{watched:?}");
    assert!(*watched.last().unwrap() <= last);
    let versions: Vec<i64> = log.iter().map(|e| e.0).collect();
    assert_eq!(versions, (1..=last as i64).collect::<Vec<_>>());
    drop(nodes);
    setup.cleanup().await;
}

#[tokio::test]
async fn killing_the_owner_of_many_tables_loses_no_acknowledged_action() {
    let Some(setup) = Setup::new().await else {
        return;
    };
    let mut nodes = vec![
        setup.start("a").await,
        setup.start("b").await,
        setup.start("c").await,
    ];
    let addrs: Vec<String> = nodes.iter().map(|n| n.addr.clone()).collect();
    let shared = Arc::new(Mutex::new(addrs.clone()));
    const TABLES: usize = 30;
    const PLIES: u16 = 40;
    let mut players = Vec::new();
    let mut owned_by_a = Vec::new();
    for i in 0..TABLES {
        let owner = i % 3;
        let created = nodes[owner].create(friend(200)).await;
        if owner == 0 {
            owned_by_a.push(created.table.clone());
        }
        let guest_secret = claim(&addrs[(i + 1) % 3], &created).await;
        players.push(tokio::spawn(client(
            shared.clone(),
            i,
            created.table.clone(),
            created.secret.clone().unwrap(),
            Some(Side::Goats),
            PLIES,
        )));
        players.push(tokio::spawn(client(
            shared.clone(),
            i + 1,
            created.table.clone(),
            guest_secret,
            Some(Side::Tigers),
            PLIES,
        )));
    }
    // Kill node a once play is under way everywhere: every table has a
    // few stored events.
    let started = Instant::now();
    loop {
        let log = stored(&setup.database_url).await;
        if log.len() == TABLES && log.values().all(|events| events.len() >= 4) {
            break;
        }
        assert!(started.elapsed() < PATIENCE, "play did not get going");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Clients that reconnect go to the survivors from here on.
    shared.lock().unwrap().remove(0);
    let mut killed = nodes.remove(0);
    let kill_at = Instant::now();
    let before = stored(&setup.database_url).await;
    killed.child.kill().await.unwrap();
    // Takeover: every table of node a still in play has a new event.
    let moving: Vec<&String> = owned_by_a
        .iter()
        .filter(|t| before[*t].len() < usize::from(PLIES))
        .collect();
    assert!(moving.len() >= 3, "play ran ahead of the kill");
    loop {
        let log = stored(&setup.database_url).await;
        if moving.iter().all(|t| log[*t].len() > before[*t].len()) {
            break;
        }
        assert!(
            kill_at.elapsed() < PATIENCE,
            "the tables of the killed node did not move"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let takeover = kill_at.elapsed();
    let mut seen = Vec::new();
    for player in players {
        seen.push(player.await.expect("a player task"));
    }
    let log = stored(&setup.database_url).await;
    let (mut acknowledged, mut found, mut lost) = (0, 0, 0);
    let mut duplicated = 0;
    for s in &seen {
        assert_eq!((s.duplicates, s.gaps), (0, 0), "{s:?}");
    }
    for events in log.values() {
        let versions: Vec<i64> = events.iter().map(|e| e.0).collect();
        assert_eq!(versions, (1..=versions.len() as i64).collect::<Vec<_>>());
        let epochs: Vec<i64> = events.iter().map(|e| e.4).collect();
        assert!(epochs.windows(2).all(|w| w[0] <= w[1]), "{epochs:?}");
        let mut ids = BTreeMap::new();
        for (_, _, player, id, _) in events {
            if let (Some(player), Some(id)) = (player, id) {
                *ids.entry((player.clone(), id.clone())).or_insert(0) += 1;
            }
        }
        duplicated += ids.values().filter(|n| **n > 1).count();
    }
    for s in &seen {
        let events = &log[&s.table];
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
            if present {
                found += 1;
            } else {
                lost += 1;
            }
        }
    }
    let reconnects: usize = seen.iter().map(|s| s.reconnects).sum();
    println!(
        "cluster kill: {TABLES} tables, acknowledged {acknowledged}, found {found}, lost {lost}, \
         duplicated {duplicated}, reconnects {reconnects}, takeover of {} tables {takeover:?} \
         (lease {LEASE})",
        moving.len()
    );
    assert_eq!((lost, duplicated), (0, 0));
    assert!(acknowledged > TABLES * 4);
    drop(nodes);
    setup.cleanup().await;
}

/// Sends `signal` (STOP or CONT) to a node.
async fn signal(node: &Node, signal: &str) {
    let pid = node.child.id().expect("a running node").to_string();
    let status = Command::new("kill")
        .args([&format!("-{signal}"), &pid])
        .status()
        .await
        .unwrap();
    assert!(status.success());
}

/// Waits until `table` has at least `events` stored events.
async fn until_stored(database_url: &str, table: &str, events: usize) {
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

#[tokio::test]
async fn an_owner_paused_past_its_lease_loses_its_table_and_never_writes_again() {
    let Some(setup) = Setup::new().await else {
        return;
    };
    let nodes = [
        setup.start("a").await,
        setup.start("b").await,
        setup.start("c").await,
    ];
    let created = nodes[0].create(friend(200)).await;
    let guest_secret = claim(&nodes[2].addr, &created).await;
    // The players sit on b and c; node a owns the table.
    let shared = Arc::new(Mutex::new(vec![
        nodes[1].addr.clone(),
        nodes[2].addr.clone(),
    ]));
    let table = created.table.clone();
    const PLIES: u16 = 30;
    let host = tokio::spawn(client(
        shared.clone(),
        0,
        table.clone(),
        created.secret.clone().unwrap(),
        Some(Side::Goats),
        PLIES,
    ));
    let guest = tokio::spawn(client(
        shared.clone(),
        1,
        table.clone(),
        guest_secret,
        Some(Side::Tigers),
        PLIES,
    ));
    until_stored(&setup.database_url, &table, 6).await;
    signal(&nodes[0], "STOP").await;
    let paused = stored(&setup.database_url).await[&table].len();
    // Another node takes the table over and play goes on.
    until_stored(&setup.database_url, &table, paused + 4).await;
    signal(&nodes[0], "CONT").await;
    let seen = [host.await.unwrap(), guest.await.unwrap()];
    for s in &seen {
        assert_eq!((s.duplicates, s.gaps), (0, 0), "{s:?}");
    }
    let log = stored(&setup.database_url).await.remove(&table).unwrap();
    let versions: Vec<i64> = log.iter().map(|e| e.0).collect();
    assert_eq!(versions, (1..=versions.len() as i64).collect::<Vec<_>>());
    let epochs: Vec<i64> = log.iter().map(|e| e.4).collect();
    assert!(epochs.windows(2).all(|w| w[0] <= w[1]), "{epochs:?}");
    assert!(
        epochs.last() > epochs.first(),
        "the table changed owner: {epochs:?}"
    );
    assert!(log.len() >= usize::from(PLIES));
    drop(nodes);
    setup.cleanup().await;
}
