//! The lobby: challenges and pools seat two players at a new table, once,
//! and tell each on their live channel; rated games between accounts move
//! their ratings.

use baghchal_protocol::{
    ApiErrorCode, Challenge, ClientMessage, LiveGames, LobbyEvent, LobbyState, Paired, Player,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use std::time::Duration;

use baghchal_protocol::{ServerMessage, Side, TableEvent};

use crate::common::{manual_clock, Client, TestDb, TestServer, PATIENCE};
use crate::on_both;
use crate::players::{error_of, hello_by_session, player_of, Browser};

/// A live channel read from a raw connection: each `data:` line's event.
pub struct Channel {
    stream: TcpStream,
    buffer: Vec<u8>,
}

impl Channel {
    pub async fn open(browser: &Browser) -> Channel {
        let mut stream = TcpStream::connect(browser.addr).await.unwrap();
        let request = format!(
            "GET /api/lobby/events HTTP/1.1\r\nHost: {}\r\nCookie: {}\r\n\r\n",
            browser.addr,
            browser.cookie.as_deref().unwrap()
        );
        stream.write_all(request.as_bytes()).await.unwrap();
        Channel {
            stream,
            buffer: Vec::new(),
        }
    }

    /// The next event. The channel's keep-alive comments do not count:
    /// the patience runs from the call.
    pub async fn next(&mut self) -> LobbyEvent {
        let deadline = tokio::time::Instant::now() + PATIENCE;
        loop {
            let text = String::from_utf8_lossy(&self.buffer).into_owned();
            if let Some(start) = text.find("data: ") {
                if let Some(end) = text[start..].find('\n') {
                    let json = text[start + 6..start + end].trim().to_owned();
                    let consumed = text[..start + end].len();
                    self.buffer.drain(..consumed);
                    return serde_json::from_str(&json).unwrap();
                }
            }
            let mut chunk = [0u8; 4096];
            let n = tokio::time::timeout_at(deadline, self.stream.read(&mut chunk))
                .await
                .expect("a lobby event in time")
                .unwrap();
            assert!(n > 0, "the live channel closed");
            self.buffer.extend_from_slice(&chunk[..n]);
        }
    }

    /// The next `paired` event, skipping states.
    pub async fn paired(&mut self) -> Paired {
        loop {
            if let LobbyEvent::Paired(paired) = self.next().await {
                return paired;
            }
        }
    }

    /// The next state that satisfies `pick`.
    pub async fn state_where(&mut self, pick: impl Fn(&LobbyState) -> bool) -> LobbyState {
        loop {
            if let LobbyEvent::State(state) = self.next().await {
                if pick(&state) {
                    return state;
                }
            }
        }
    }
}

pub async fn account(server: &TestServer, name: &str) -> Browser {
    let mut browser = Browser::new(server);
    browser.me().await;
    let (status, body) = browser.sign_up(name, "a long password").await;
    assert_eq!(status, 200, "{body}");
    browser
}

pub async fn anonymous(server: &TestServer) -> Browser {
    let mut browser = Browser::new(server);
    browser.me().await;
    browser
}

pub async fn challenge(browser: &mut Browser, body: serde_json::Value) -> Challenge {
    let (status, _, answer) = browser
        .send("POST", "/api/challenges", &body.to_string())
        .await;
    assert_eq!(status, 201, "{answer}");
    serde_json::from_str(&answer).unwrap()
}

/// Seats `browser` by its session at `table`; returns its player.
async fn seat(browser: &Browser, table: &str) -> (Client, Player) {
    let mut socket = browser.socket().await;
    let welcome = hello_by_session(&mut socket, table).await.unwrap();
    let player = player_of(&welcome).expect("a seat");
    (socket, player)
}

async fn two_players_in_a_pool_are_seated_at_one_rated_table_and_told(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut alice = account(&server, "Alice").await;
    let mut bob = account(&server, "Bob").await;
    let mut alice_channel = Channel::open(&alice).await;
    let mut bob_channel = Channel::open(&bob).await;
    alice_channel.next().await;
    for browser in [&mut alice, &mut bob] {
        let (status, _, body) = browser.send("POST", "/api/pools/3+2", "").await;
        assert_eq!(status, 200, "{body}");
        assert!(body.contains(r#""rated":true"#), "{body}");
    }
    let a = alice_channel.paired().await;
    let b = bob_channel.paired().await;
    assert_eq!(a, b);
    assert_eq!(alice.me().await.playing[0].table, a.table);

    // Each player's session opens their own seat; the sides differ.
    let (_a_socket, a_seat) = seat(&alice, &a.table).await;
    let (_b_socket, b_seat) = seat(&bob, &b.table).await;
    assert_ne!(a_seat, b_seat);
    // Anyone may watch a lobby game, without a link.
    let mut watcher = Client::connect(server.addr).await;
    let welcome = hello_by_session(&mut watcher, &a.table).await.unwrap();
    assert_eq!(player_of(&welcome), None);

    // The live list has it, both players named, the goats' side first.
    let (_, _, body) = alice.send("GET", "/api/live", "").await;
    let live: LiveGames = serde_json::from_str(&body).unwrap();
    assert_eq!(live.games.len(), 1, "{body}");
    assert_eq!(live.games[0].table, a.table);
    assert!(live.games[0].rated);
    let mut names = [
        live.games[0].goats.name.clone().unwrap(),
        live.games[0].tigers.name.clone().unwrap(),
    ];
    names.sort();
    assert_eq!(names, ["Alice", "Bob"]);

    // The pool is empty again.
    let (_, _, body) = alice.send("GET", "/api/lobby", "").await;
    let lobby: LobbyState = serde_json::from_str(&body).unwrap();
    assert!(lobby.pools.iter().all(|p| p.waiting == 0), "{lobby:?}");
    server.stop().await;
}
on_both!(two_players_in_a_pool_are_seated_at_one_rated_table_and_told);

async fn a_challenge_accepted_by_two_at_once_seats_only_one(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut maker = anonymous(&server).await;
    let made = challenge(
        &mut maker,
        serde_json::json!({"clock": {"initial": 180, "increment": 2}}),
    )
    .await;
    assert_eq!(made.speed, "blitz");
    assert!(!made.rated);
    let path = format!("/api/challenges/{}/accept", made.id);
    let mut takers = Vec::new();
    for _ in 0..6 {
        takers.push(anonymous(&server).await);
    }
    let answers = futures_util::future::join_all(
        takers.iter_mut().map(|taker| taker.send("POST", &path, "")),
    )
    .await;
    let won: Vec<&(u16, String, String)> = answers.iter().filter(|a| a.0 == 201).collect();
    assert_eq!(won.len(), 1, "{answers:?}");
    for (status, _, body) in answers.iter().filter(|a| a.0 != 201) {
        assert_eq!((*status, error_of(body)), (409, ApiErrorCode::Taken));
    }
    let paired: Paired = serde_json::from_str(&won[0].2).unwrap();
    assert_eq!(maker.me().await.playing[0].table, paired.table);
    server.stop().await;
}
on_both!(a_challenge_accepted_by_two_at_once_seats_only_one);

async fn a_player_in_a_lobby_game_is_not_paired_again_until_it_ends(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut first = anonymous(&server).await;
    let mut second = anonymous(&server).await;
    let mut taker = anonymous(&server).await;
    let one = challenge(&mut first, serde_json::json!({"side": "tigers"})).await;
    let two = challenge(&mut second, serde_json::json!({})).await;
    let (status, _, body) = taker
        .send("POST", &format!("/api/challenges/{}/accept", one.id), "")
        .await;
    assert_eq!(status, 201, "{body}");
    let paired: Paired = serde_json::from_str(&body).unwrap();
    let (status, _, body) = taker
        .send("POST", &format!("/api/challenges/{}/accept", two.id), "")
        .await;
    assert_eq!((status, error_of(&body)), (409, ApiErrorCode::Busy));

    // The maker wanted the tigers: the taker has the goats, and once
    // their game is over (aborted here) both may be paired again.
    let (mut socket, player) = seat(&taker, &paired.table).await;
    let (_maker_socket, _) = seat(&first, &paired.table).await;
    assert_eq!(player, Player::Guest);
    socket
        .send(&ClientMessage::Abort {
            id: None,
            board: None,
        })
        .await;
    // The abort is stored before it is sent, and its game's end frees the
    // players in the same transaction.
    socket.sync().await;
    let (status, _, body) = taker
        .send("POST", &format!("/api/challenges/{}/accept", two.id), "")
        .await;
    assert_eq!(status, 201, "{body}");
    server.stop().await;
}
on_both!(a_player_in_a_lobby_game_is_not_paired_again_until_it_ends);

async fn rated_play_is_for_accounts_and_moves_both_ratings(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut guest = anonymous(&server).await;
    let (status, _, body) = guest
        .send("POST", "/api/challenges", r#"{"rated": true}"#)
        .await;
    assert_eq!(
        (status, error_of(&body)),
        (403, ApiErrorCode::AccountNeeded)
    );

    let mut goats = account(&server, "Goatherd").await;
    let mut tigers = account(&server, "Tigress").await;
    let made = challenge(
        &mut goats,
        serde_json::json!({"rated": true, "side": "goats", "clock": {"initial": 300, "increment": 3}}),
    )
    .await;
    let (status, _, body) = guest
        .send("POST", &format!("/api/challenges/{}/accept", made.id), "")
        .await;
    assert_eq!(
        (status, error_of(&body)),
        (403, ApiErrorCode::AccountNeeded)
    );
    let (status, _, body) = tigers
        .send("POST", &format!("/api/challenges/{}/accept", made.id), "")
        .await;
    assert_eq!(status, 201, "{body}");
    let paired: Paired = serde_json::from_str(&body).unwrap();

    let (mut g, _) = seat(&goats, &paired.table).await;
    let (mut t, _) = seat(&tigers, &paired.table).await;
    g.play_acked("c3").await;
    t.play_acked("a1-b1").await;
    t.send(&ClientMessage::Resign {
        id: None,
        board: None,
    })
    .await;
    // The ratings change in the transaction that stores the game's end,
    // which comes before the end is sent.
    t.sync().await;
    let (winner, loser) = (goats.me().await, tigers.me().await);
    assert_eq!(winner.ratings[0].speed, "blitz");
    assert!(winner.ratings[0].rating > 1500, "{winner:?}");
    assert!(loser.ratings[0].rating < 1500, "{loser:?}");
    assert!(winner.ratings[0].provisional && winner.ratings[0].games == 1);
    // The game's record shows both changes, as the players see them.
    let (_, _, body) = goats
        .send("GET", &format!("/api/tables/{}/games/1", paired.table), "")
        .await;
    let record: baghchal_protocol::GameRecord = serde_json::from_str(&body).unwrap();
    let ratings = record.ratings.expect("a rated game's changes");
    assert_eq!(ratings.goats.before, 1500);
    assert_eq!(ratings.goats.after, winner.ratings[0].rating);
    assert!(
        ratings.goats.change > 0 && ratings.tigers.change < 0,
        "{ratings:?}"
    );

    // Their next game is listed live with the ratings the first left them
    // in the game's class, read for the whole list at once.
    let again = challenge(
        &mut goats,
        serde_json::json!({"rated": true, "side": "goats", "clock": {"initial": 300, "increment": 3}}),
    )
    .await;
    let (status, _, body) = tigers
        .send("POST", &format!("/api/challenges/{}/accept", again.id), "")
        .await;
    assert_eq!(status, 201, "{body}");
    let next: Paired = serde_json::from_str(&body).unwrap();
    let (_, _, body) = guest.send("GET", "/api/live", "").await;
    let live: LiveGames = serde_json::from_str(&body).unwrap();
    let game = live
        .games
        .iter()
        .find(|g| g.table == next.table)
        .expect("the game is live");
    assert_eq!(game.speed, "blitz");
    assert_eq!(game.goats.rating, winner.ratings[0].rating, "{live:?}");
    assert_eq!(game.tigers.rating, loser.ratings[0].rating, "{live:?}");
    assert!(game.goats.provisional && game.tigers.provisional);
    server.stop().await;
}
on_both!(rated_play_is_for_accounts_and_moves_both_ratings);

async fn leaving_the_lobby_takes_a_players_challenges_and_pool_place(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut maker = anonymous(&server).await;
    let watcher = anonymous(&server).await;
    let mut watching = Channel::open(&watcher).await;
    let channel = Channel::open(&maker).await;
    let made = challenge(&mut maker, serde_json::json!({})).await;
    watching
        .state_where(|s| s.challenges.iter().any(|c| c.id == made.id))
        .await;
    drop(channel);
    watching.state_where(|s| s.challenges.is_empty()).await;
    server.stop().await;
}
on_both!(leaving_the_lobby_takes_a_players_challenges_and_pool_place);

#[tokio::test]
async fn anonymous_players_and_accounts_never_meet_in_a_pool() {
    let db = TestDb::sqlite();
    let server = TestServer::start(&db).await;
    let mut named = account(&server, "Named").await;
    let mut nameless = anonymous(&server).await;
    let mut late = anonymous(&server).await;
    let mut channel = Channel::open(&named).await;
    let _other = Channel::open(&nameless).await;
    let mut late_channel = Channel::open(&late).await;
    for browser in [&mut named, &mut nameless] {
        let (status, _, _) = browser.send("POST", "/api/pools/1+1", "").await;
        assert_eq!(status, 200);
    }
    channel
        .state_where(|s| s.pools.iter().any(|p| p.id == "1+1" && p.waiting == 2))
        .await;
    // A second anonymous player comes: the two anonymous players meet,
    // and the account keeps waiting.
    let (status, _, _) = late.send("POST", "/api/pools/1+1", "").await;
    assert_eq!(status, 200);
    let paired = late_channel.paired().await;
    assert_eq!(nameless.me().await.playing[0].table, paired.table);
    assert!(named.me().await.playing.is_empty());
    channel
        .state_where(|s| s.pools.iter().any(|p| p.id == "1+1" && p.waiting == 1))
        .await;
    let (status, _, _) = named.send("POST", "/api/pools/9+9", "").await;
    assert_eq!(status, 404);
    server.stop().await;
}

#[tokio::test]
async fn a_challenge_needs_a_session_and_valid_terms() {
    let db = TestDb::sqlite();
    let server = TestServer::start(&db).await;
    let mut bare = Browser::new(&server);
    let (status, _, body) = bare.send("POST", "/api/challenges", "{}").await;
    assert_eq!((status, error_of(&body)), (401, ApiErrorCode::NotSignedIn));
    let mut player = anonymous(&server).await;
    for bad in [
        r#"{"side": "both"}"#,
        r#"{"clock": {"initial": 1}}"#,
        r#"{"min_rating": 1800, "max_rating": 1200}"#,
        r#"{"colour": "white"}"#,
    ] {
        let (status, _, body) = player.send("POST", "/api/challenges", bad).await;
        assert_eq!(status, 422, "{bad}: {body}");
    }
    for _ in 0..3 {
        challenge(&mut player, serde_json::json!({})).await;
    }
    let (status, _, _) = player.send("POST", "/api/challenges", "{}").await;
    assert_eq!(status, 429);
    server.stop().await;
}

async fn a_lobby_game_nobody_starts_is_aborted_and_counted_against_its_idle_player(db: &TestDb) {
    let clock = manual_clock();
    let server = TestServer::start_with(TestServer::config_with_clock(db, &clock)).await;
    let mut maker = anonymous(&server).await;
    let mut taker = anonymous(&server).await;
    let made = challenge(
        &mut maker,
        serde_json::json!({"side": "goats", "clock": {"initial": 180, "increment": 2}}),
    )
    .await;
    let (status, _, body) = taker
        .send("POST", &format!("/api/challenges/{}/accept", made.id), "")
        .await;
    assert_eq!(status, 201, "{body}");
    let paired: Paired = serde_json::from_str(&body).unwrap();
    let (mut goats, _) = seat(&maker, &paired.table).await;
    let (mut tigers, _) = seat(&taker, &paired.table).await;
    goats.sync().await;
    tigers.sync().await;

    // The goats never move: 30 seconds on, the game is aborted.
    clock.advance(Duration::from_millis(29_999));
    assert!(goats.sync().await.is_empty());
    clock.advance(Duration::from_millis(1));
    let event = tigers
        .until(|m| match m {
            ServerMessage::Event { event, .. } => Some(event.clone()),
            _ => None,
        })
        .await;
    assert_eq!(event, TableEvent::Aborted { side: Side::Goats });
    tigers.sync().await;
    let me = maker.me().await;
    assert!(me.playing.is_empty(), "{me:?}");
    server.stop().await;

    // It counts against the maker alone, who is paired last from now on.
    let aborts: Vec<(String, i64)> = {
        let storage_url = &db.url;
        if storage_url.starts_with("sqlite") {
            let pool = sqlx::SqlitePool::connect(storage_url).await.unwrap();
            sqlx::query_as("SELECT id, aborts FROM players WHERE aborts > 0")
                .fetch_all(&pool)
                .await
                .unwrap()
        } else {
            let pool = sqlx::PgPool::connect(storage_url).await.unwrap();
            sqlx::query_as("SELECT id, aborts FROM players WHERE aborts > 0")
                .fetch_all(&pool)
                .await
                .unwrap()
        }
    };
    assert_eq!(aborts, [(me.id, 1)]);
}
on_both!(a_lobby_game_nobody_starts_is_aborted_and_counted_against_its_idle_player);
