//! Blocking: a player blocks another, and the lobby keeps the two apart
//! (never paired by a pool, neither may take the other's challenge,
//! neither sees the other's challenges); the list of blocks is the
//! player's own and bounded.

use baghchal_protocol::{ApiErrorCode, BlockList, LobbyState, Me};

use crate::common::{http_with, TestDb, TestServer};
use crate::lobby::{anonymous, challenge, Channel};
use crate::on_both;
use crate::players::{error_of, Browser};

async fn blocks_of(browser: &mut Browser) -> BlockList {
    let (status, _, body) = browser.send("GET", "/api/blocks", "").await;
    assert_eq!(status, 200, "{body}");
    serde_json::from_str(&body).unwrap()
}

async fn block(browser: &mut Browser, other: &Me) -> (u16, String) {
    let (status, _, body) = browser
        .send("PUT", &format!("/api/players/{}/block", other.id), "")
        .await;
    (status, body)
}

async fn lobby_of(browser: &mut Browser) -> LobbyState {
    let (status, _, body) = browser.send("GET", "/api/lobby", "").await;
    assert_eq!(status, 200, "{body}");
    serde_json::from_str(&body).unwrap()
}

async fn a_player_blocks_and_unblocks_another_and_lists_whom(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut alice = anonymous(&server).await;
    let mut bob = anonymous(&server).await;
    let (me, them) = (alice.me().await, bob.me().await);
    assert!(blocks_of(&mut alice).await.players.is_empty());
    // Twice is once.
    for _ in 0..2 {
        let (status, body) = block(&mut alice, &them).await;
        assert_eq!(status, 204, "{body}");
    }
    let list = blocks_of(&mut alice).await;
    assert_eq!(list.players.len(), 1);
    assert_eq!(list.players[0].id, them.id);
    assert_eq!(list.players[0].name, None);
    // The list is the blocker's own.
    assert!(blocks_of(&mut bob).await.players.is_empty());

    // Oneself, an unknown player, no session, another site: refused, and
    // nothing changes.
    let (status, body) = block(&mut alice, &me).await;
    assert_eq!((status, error_of(&body)), (422, ApiErrorCode::InvalidField));
    let (status, _, body) = alice
        .send("PUT", "/api/players/NoSuchPlayerAtAll00000/block", "")
        .await;
    assert_eq!((status, error_of(&body)), (404, ApiErrorCode::NotFound));
    let mut bare = Browser::new(&server);
    let (status, _, body) = bare
        .send("PUT", &format!("/api/players/{}/block", me.id), "")
        .await;
    assert_eq!((status, error_of(&body)), (401, ApiErrorCode::NotSignedIn));
    let cookie = bob.cookie.clone().unwrap();
    let (status, _, body) = http_with(
        server.addr,
        "PUT",
        &format!("/api/players/{}/block", me.id),
        &[("Cookie", &cookie), ("Origin", "https://elsewhere.example")],
        "",
    )
    .await;
    assert_eq!(
        (status, error_of(&body)),
        (403, ApiErrorCode::ForbiddenOrigin)
    );
    assert!(blocks_of(&mut bob).await.players.is_empty());
    assert_eq!(blocks_of(&mut alice).await.players.len(), 1);

    // Unblocking, twice, leaves nothing.
    for _ in 0..2 {
        let (status, _, body) = alice
            .send("DELETE", &format!("/api/players/{}/block", them.id), "")
            .await;
        assert_eq!(status, 204, "{body}");
    }
    assert!(blocks_of(&mut alice).await.players.is_empty());
    server.stop().await;
}
on_both!(a_player_blocks_and_unblocks_another_and_lists_whom);

async fn players_apart_neither_see_nor_take_each_others_challenges(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut blocker = anonymous(&server).await;
    let mut blocked = anonymous(&server).await;
    let mut other = anonymous(&server).await;
    let them = blocked.me().await;
    let (status, body) = block(&mut blocker, &them).await;
    assert_eq!(status, 204, "{body}");
    let mut channel = Channel::open(&blocker).await;

    // The blocked player's challenge: hidden from the blocker (on the
    // live channel and over HTTP), shown to others, and not theirs to take.
    let hidden = challenge(&mut blocked, serde_json::json!({})).await;
    let shown = challenge(&mut other, serde_json::json!({})).await;
    let seen = channel
        .state_where(|s| s.challenges.iter().any(|c| c.id == shown.id))
        .await;
    assert!(
        seen.challenges.iter().all(|c| c.id != hidden.id),
        "{seen:?}"
    );
    let ids = |s: &LobbyState| {
        s.challenges
            .iter()
            .map(|c| c.id.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(&lobby_of(&mut blocker).await), vec![shown.id.clone()]);
    assert_eq!(ids(&lobby_of(&mut other).await).len(), 2);
    let (status, _, body) = blocker
        .send("POST", &format!("/api/challenges/{}/accept", hidden.id), "")
        .await;
    assert_eq!((status, error_of(&body)), (403, ApiErrorCode::Blocked));

    // The other way round too: the blocked player cannot take the
    // blocker's challenge, nor see it.
    let mine = challenge(&mut blocker, serde_json::json!({})).await;
    assert!(ids(&lobby_of(&mut blocked).await)
        .iter()
        .all(|id| *id != mine.id));
    let (status, _, body) = blocked
        .send("POST", &format!("/api/challenges/{}/accept", mine.id), "")
        .await;
    assert_eq!((status, error_of(&body)), (403, ApiErrorCode::Blocked));
    // Nothing was taken or made.
    assert!(blocker.me().await.playing.is_empty());
    assert!(blocked.me().await.playing.is_empty());
    assert_eq!(lobby_of(&mut other).await.challenges.len(), 3);

    // Unblocked, the challenge shows again and may be taken.
    let (status, _, _) = blocker
        .send("DELETE", &format!("/api/players/{}/block", them.id), "")
        .await;
    assert_eq!(status, 204);
    channel
        .state_where(|s| s.challenges.iter().any(|c| c.id == hidden.id))
        .await;
    let (status, _, body) = blocker
        .send("POST", &format!("/api/challenges/{}/accept", hidden.id), "")
        .await;
    assert_eq!(status, 201, "{body}");
    server.stop().await;
}
on_both!(players_apart_neither_see_nor_take_each_others_challenges);

async fn a_pool_never_pairs_two_players_where_one_blocks_the_other(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut players = Vec::new();
    for _ in 0..4 {
        players.push(anonymous(&server).await);
    }
    let ids: Vec<String> = {
        let mut ids = Vec::new();
        for p in &mut players {
            ids.push(p.me().await.id);
        }
        ids
    };
    let second = players[1].me().await;
    let (status, body) = block(&mut players[0], &second).await;
    assert_eq!(status, 204, "{body}");
    let mut channels = Vec::new();
    for p in &players {
        channels.push(Channel::open(p).await);
    }
    // The two first join first: at equal ratings, a wave would pair them
    // first if it could.
    for p in &mut players {
        let (status, _, body) = p.send("POST", "/api/pools/3+2", "").await;
        assert_eq!(status, 200, "{body}");
    }
    let mut tables = Vec::new();
    for channel in &mut channels {
        tables.push(channel.paired().await.table);
    }
    assert_ne!(tables[0], tables[1], "{ids:?} {tables:?}");
    // Everyone is paired once: two tables of two.
    let mut sorted = tables.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), 2, "{tables:?}");
    server.stop().await;
}
on_both!(a_pool_never_pairs_two_players_where_one_blocks_the_other);

async fn a_player_blocks_at_most_five_hundred(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut blocker = anonymous(&server).await;
    let mut last = anonymous(&server).await;
    let (me, them) = (blocker.me().await, last.me().await);
    // 500 players blocked already, written straight to the database.
    let statements: Vec<String> = (0..500)
        .flat_map(|i| {
            [
                format!("INSERT INTO players (id, created_at, seen_at) VALUES ('filler{i}', 0, 0)"),
                format!(
                    "INSERT INTO blocks (blocker_id, blocked_id, created_at) \
                     VALUES ('{}', 'filler{i}', {i})",
                    me.id
                ),
            ]
        })
        .collect();
    if db.url.starts_with("sqlite") {
        let pool = sqlx::SqlitePool::connect(&db.url).await.unwrap();
        for statement in &statements {
            sqlx::query(statement).execute(&pool).await.unwrap();
        }
    } else {
        let pool = sqlx::PgPool::connect(&db.url).await.unwrap();
        for statement in &statements {
            sqlx::query(statement).execute(&pool).await.unwrap();
        }
    }
    let (status, body) = block(&mut blocker, &them).await;
    assert_eq!((status, error_of(&body)), (429, ApiErrorCode::RateLimited));
    let list = blocks_of(&mut blocker).await;
    assert_eq!(list.players.len(), 500);
    assert!(list.players.iter().all(|p| p.id != them.id));
    // The latest first.
    assert_eq!(list.players[0].id, "filler499");
    // One unblocked makes room for one more.
    let (status, _, _) = blocker
        .send("DELETE", "/api/players/filler0/block", "")
        .await;
    assert_eq!(status, 204);
    let (status, body) = block(&mut blocker, &them).await;
    assert_eq!(status, 204, "{body}");
    server.stop().await;
}
on_both!(a_player_blocks_at_most_five_hundred);

async fn the_lobby_reads_the_blocks_of_more_players_than_one_statement_binds(db: &TestDb) {
    let storage = baghchal_server::storage::Storage::connect(&db.url)
        .await
        .unwrap();
    let statements = [
        "INSERT INTO players (id, created_at, seen_at) VALUES ('maker', 0, 0)",
        "INSERT INTO players (id, created_at, seen_at) VALUES ('p10000', 0, 0)",
        "INSERT INTO players (id, created_at, seen_at) VALUES ('p19999', 0, 0)",
        "INSERT INTO blocks (blocker_id, blocked_id, created_at) VALUES ('maker', 'p19999', 1)",
        "INSERT INTO blocks (blocker_id, blocked_id, created_at) VALUES ('p10000', 'maker', 2)",
    ];
    if db.url.starts_with("sqlite") {
        let pool = sqlx::SqlitePool::connect(&db.url).await.unwrap();
        for statement in statements {
            sqlx::query(statement).execute(&pool).await.unwrap();
        }
    } else {
        let pool = sqlx::PgPool::connect(&db.url).await.unwrap();
        for statement in statements {
            sqlx::query(statement).execute(&pool).await.unwrap();
        }
    }
    // Twenty thousand players on a node: more than SQLite binds at once.
    let players: Vec<String> = (0..20_000).map(|i| format!("p{i}")).collect();
    let mut found = storage
        .blocks_among(&["maker".to_owned()], &players)
        .await
        .unwrap();
    found.sort();
    assert_eq!(
        found,
        [
            ("maker".to_owned(), "p19999".to_owned()),
            ("p10000".to_owned(), "maker".to_owned())
        ]
    );
    storage.close().await;
}
on_both!(the_lobby_reads_the_blocks_of_more_players_than_one_statement_binds);
