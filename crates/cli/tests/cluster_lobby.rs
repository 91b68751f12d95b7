//! The lobby across a cluster: players on three nodes share one lobby,
//! and under races — many players joining one pool at once through
//! different nodes, one challenge accepted through every node at once, a
//! node killed while the waves run — no player is seated twice and a
//! challenge is taken once. Run when
//! `BAGHCHAL_TEST_POSTGRES` and `BAGHCHAL_TEST_NATS` are set (`.ci/run`
//! sets both).

mod support;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use baghchal_protocol::{Challenge, Me};
use support::cluster::{exchange, Setup};
use support::PATIENCE;

/// A player: the node they use and their session cookie.
#[derive(Clone)]
struct Player {
    addr: String,
    cookie: String,
    id: String,
}

/// A new player on `addr`, with an account named `name`.
async fn account(addr: &str, name: &str) -> Player {
    let (status, cookie, body) = exchange(addr, "GET", "/api/me", None, "").await;
    assert_eq!(status, 200, "{body}");
    let cookie = cookie.expect("a session cookie");
    let me: Me = serde_json::from_str(&body).unwrap();
    let sign_up = serde_json::json!({"name": name, "password": "a long password"}).to_string();
    let (status, _, body) = exchange(addr, "POST", "/api/account", Some(&cookie), &sign_up).await;
    assert_eq!(status, 200, "{body}");
    Player {
        addr: addr.to_owned(),
        cookie,
        id: me.id,
    }
}

/// Each lobby table's two players, from the database.
async fn lobby_tables(database_url: &str) -> Vec<(String, String)> {
    let mut conn = <sqlx::PgConnection as sqlx::Connection>::connect(database_url)
        .await
        .unwrap();
    sqlx::query_as("SELECT host_player, guest_player FROM tables WHERE lobby = 1")
        .fetch_all(&mut conn)
        .await
        .unwrap()
}

#[cfg_attr(
    not(test_cluster),
    ignore = "BAGHCHAL_TEST_POSTGRES and BAGHCHAL_TEST_NATS were not set when the tests were built"
)]
#[tokio::test]
async fn twenty_players_joining_a_pool_through_three_nodes_are_each_seated_once() {
    let setup = Setup::new().await;
    let nodes = setup.three().await;
    let mut players = Vec::new();
    for i in 0..20 {
        players.push(account(&nodes[i % 3].addr, &format!("pool{i}")).await);
    }
    // All at once, each through their own node.
    let joins = players.iter().map(|p| {
        let p = p.clone();
        tokio::spawn(async move {
            exchange(&p.addr, "POST", "/api/pools/5+3", Some(&p.cookie), "").await
        })
    });
    for join in joins {
        let (status, _, body) = join.await.unwrap();
        assert_eq!(status, 200, "{body}");
    }
    // Every node runs waves; the database lets each player be seated once.
    let started = Instant::now();
    let tables = loop {
        let tables = lobby_tables(&setup.database_url).await;
        if tables.len() >= 10 {
            break tables;
        }
        assert!(started.elapsed() < PATIENCE, "{} tables", tables.len());
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let mut seated: HashMap<String, usize> = HashMap::new();
    for (host, guest) in &tables {
        assert_ne!(host, guest);
        *seated.entry(host.clone()).or_default() += 1;
        *seated.entry(guest.clone()).or_default() += 1;
    }
    assert_eq!(tables.len(), 10, "{tables:?}");
    for p in &players {
        assert_eq!(
            seated.get(&p.id),
            Some(&1),
            "player {} seated {:?}",
            p.id,
            seated.get(&p.id)
        );
    }
    // Each player's node, whichever it is, lists their one game.
    for p in &players {
        let (_, _, body) = exchange(&p.addr, "GET", "/api/me", Some(&p.cookie), "").await;
        let me: Me = serde_json::from_str(&body).unwrap();
        assert_eq!(me.playing.len(), 1, "{me:?}");
    }
    drop(nodes);
    setup.cleanup().await;
}

#[cfg_attr(
    not(test_cluster),
    ignore = "BAGHCHAL_TEST_POSTGRES and BAGHCHAL_TEST_NATS were not set when the tests were built"
)]
#[tokio::test]
async fn a_challenge_accepted_through_every_node_at_once_is_taken_once() {
    let setup = Setup::new().await;
    let nodes = setup.three().await;
    let maker = account(&nodes[0].addr, "maker").await;
    let (status, _, body) = exchange(
        &maker.addr,
        "POST",
        "/api/challenges",
        Some(&maker.cookie),
        r#"{"rated": true, "clock": {"initial": 300, "increment": 3}}"#,
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let challenge: Challenge = serde_json::from_str(&body).unwrap();
    let mut takers = Vec::new();
    for i in 0..9 {
        takers.push(account(&nodes[i % 3].addr, &format!("taker{i}")).await);
    }
    let path = format!("/api/challenges/{}/accept", challenge.id);
    let answers: Vec<u16> = futures_util::future::join_all(takers.iter().map(|t| {
        let (addr, cookie, path) = (t.addr.clone(), t.cookie.clone(), path.clone());
        async move { exchange(&addr, "POST", &path, Some(&cookie), "").await.0 }
    }))
    .await;
    assert_eq!(
        answers.iter().filter(|&&s| s == 201).count(),
        1,
        "{answers:?}"
    );
    assert_eq!(
        answers.iter().filter(|&&s| s == 409).count(),
        8,
        "{answers:?}"
    );
    assert_eq!(lobby_tables(&setup.database_url).await.len(), 1);
    drop(nodes);
    setup.cleanup().await;
}

/// A new anonymous player on `addr`.
async fn anonymous(addr: &str) -> Player {
    let (status, cookie, body) = exchange(addr, "GET", "/api/me", None, "").await;
    assert_eq!(status, 200, "{body}");
    let me: Me = serde_json::from_str(&body).unwrap();
    Player {
        addr: addr.to_owned(),
        cookie: cookie.expect("a session cookie"),
        id: me.id,
    }
}

#[cfg_attr(
    not(test_cluster),
    ignore = "BAGHCHAL_TEST_POSTGRES and BAGHCHAL_TEST_NATS were not set when the tests were built"
)]
#[tokio::test]
async fn a_node_killed_mid_wave_pairs_nobody_twice_and_the_others_pair_everyone() {
    let setup = Setup::new().await;
    let mut nodes = setup.three().await;
    let mut players = Vec::new();
    // Enough players that a wave takes a while: the kill lands while one
    // is pairing them.
    for i in 0..150 {
        players.push(anonymous(&nodes[i % 3].addr).await);
    }
    // All at once, each through their own node.
    let joins = players.iter().map(|p| {
        let p = p.clone();
        tokio::spawn(async move {
            exchange(&p.addr, "POST", "/api/pools/1+1", Some(&p.cookie), "").await
        })
    });
    for join in joins {
        let (status, _, body) = join.await.unwrap();
        assert_eq!(status, 200, "{body}");
    }
    // The first table shows that a wave runs: node c dies at once, while
    // the waves go on pairing the rest (maybe between the statements of
    // a pairing of its own).
    let started = Instant::now();
    while lobby_tables(&setup.database_url).await.is_empty() {
        assert!(started.elapsed() < PATIENCE, "no pairing");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    nodes[2].kill().await;
    let killed = nodes[2].addr.clone();

    // The surviving nodes' waves pair every player of theirs, once; a
    // pairing the dead node began and did not commit left nothing behind.
    let survivors: Vec<&Player> = players.iter().filter(|p| p.addr != killed).collect();
    let seated = |tables: &[(String, String)]| {
        let mut seated: HashMap<String, usize> = HashMap::new();
        for (host, guest) in tables {
            assert_ne!(host, guest);
            *seated.entry(host.clone()).or_default() += 1;
            *seated.entry(guest.clone()).or_default() += 1;
        }
        seated
    };
    let started = Instant::now();
    let tables = loop {
        let tables = lobby_tables(&setup.database_url).await;
        let seated = seated(&tables);
        if survivors.iter().all(|p| seated.contains_key(&p.id)) {
            break tables;
        }
        assert!(
            started.elapsed() < PATIENCE,
            "{} of {} survivors seated",
            survivors
                .iter()
                .filter(|p| seated.contains_key(&p.id))
                .count(),
            survivors.len()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    for (player, count) in seated(&tables) {
        assert_eq!(count, 1, "player {player} seated {count} times: {tables:?}");
    }
    // Each survivor's node lists their one game.
    for p in &survivors {
        let (_, _, body) = exchange(&p.addr, "GET", "/api/me", Some(&p.cookie), "").await;
        let me: Me = serde_json::from_str(&body).unwrap();
        assert_eq!(me.playing.len(), 1, "{me:?}");
    }
    // Nor did any wave since seat anyone a second time.
    let tables = lobby_tables(&setup.database_url).await;
    for (player, count) in seated(&tables) {
        assert_eq!(count, 1, "player {player} seated {count} times: {tables:?}");
    }
    drop(nodes);
    setup.cleanup().await;
}
