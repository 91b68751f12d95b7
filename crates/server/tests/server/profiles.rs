//! Profiles, a player's games and the leaderboard, read from the stored
//! games of real games played over websockets.

use baghchal_protocol::{
    ApiError, ApiErrorCode, ClientMessage, EndReason, GameOpponent, Leaderboard, Opponent,
    PlayerGames, PlayerResult, Profile, ServerMessage, Side, SideRecord, TableCreated, TableEvent,
    PLAYER_GAMES_PAGE,
};

use crate::common::{opponent_token, Client, TestDb, TestServer};
use crate::on_both;
use crate::players::Browser;

const PASSWORD: &str = "correct horse battery";

async fn get_json<T: serde::de::DeserializeOwned>(browser: &mut Browser, path: &str) -> T {
    let (status, _, body) = browser.send("GET", path, "").await;
    assert_eq!(status, 200, "{path}: {body}");
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("{path}: {e}: {body}"))
}

async fn refusal(browser: &mut Browser, path: &str) -> (u16, ApiErrorCode) {
    let (status, _, body) = browser.send("GET", path, "").await;
    let error: ApiError = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body}"));
    (status, error.error)
}

/// Runs one statement on the test's database, beside the server.
async fn execute(db: &TestDb, sql: &str) {
    use sqlx::Connection;
    if db.url.starts_with("sqlite:") {
        let mut conn = sqlx::SqliteConnection::connect(&db.url).await.unwrap();
        sqlx::query(sql).execute(&mut conn).await.unwrap();
    } else {
        let mut conn = sqlx::PgConnection::connect(&db.url).await.unwrap();
        sqlx::query(sql).execute(&mut conn).await.unwrap();
    }
}

/// A friend table made by `host`'s browser, whose opponent link `guest`'s
/// browser claims: both seats belong to their players.
async fn friend_table(host: &mut Browser, guest: &Browser) -> (TableCreated, Client, Client) {
    let created = host.create(Opponent::Friend).await;
    let mut host_socket = host.socket().await;
    host_socket
        .hello(&created.table, created.secret.as_deref().unwrap(), None)
        .await;
    let mut guest_socket = guest.socket().await;
    guest_socket
        .hello(&created.table, &opponent_token(&created), None)
        .await;
    (created, host_socket, guest_socket)
}

/// Waits on `socket` for the end of the game in progress.
async fn ended(socket: &mut Client) -> (Option<Side>, EndReason) {
    socket
        .until(|m| match m {
            ServerMessage::Event { state, .. } => state.result.map(|r| (r.winner, r.reason)),
            _ => None,
        })
        .await
}

const RESIGN: ClientMessage = ClientMessage::Resign {
    id: None,
    board: None,
};

const ABORT: ClientMessage = ClientMessage::Abort {
    id: None,
    board: None,
};

fn record(side: Side, won: u32, drawn: u32, lost: u32) -> SideRecord {
    SideRecord {
        side,
        won,
        drawn,
        lost,
    }
}

async fn a_profile_counts_and_lists_the_games_two_signed_in_players_played(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut herd = Browser::new(&server);
    herd.me().await;
    assert_eq!(herd.sign_up("GoatHerd", PASSWORD).await.0, 200);
    let mut tail = Browser::new(&server);
    tail.me().await;
    assert_eq!(tail.sign_up("TigerTail", PASSWORD).await.0, 200);
    let herd_id = herd.me().await.id;
    let tail_id = tail.me().await.id;

    // The host holds the goats. First table: the goats place, then
    // resign: the tigers win.
    let (first, mut host, mut guest) = friend_table(&mut herd, &tail).await;
    host.play_acked("c3").await;
    host.send(&RESIGN).await;
    assert_eq!(
        ended(&mut guest).await,
        (Some(Side::Tigers), EndReason::Resignation)
    );
    // Second table: the tigers resign after the goats' first placement.
    let (second, mut host, mut guest) = friend_table(&mut herd, &tail).await;
    host.play_acked("c3").await;
    guest.send(&RESIGN).await;
    assert_eq!(
        ended(&mut host).await,
        (Some(Side::Goats), EndReason::Resignation)
    );
    // Third table: aborted before anyone moved; listed, never counted.
    let (third, mut host, _guest) = friend_table(&mut herd, &tail).await;
    host.send(&ABORT).await;
    assert_eq!(ended(&mut host).await, (None, EndReason::Aborted));

    let profile: Profile = get_json(&mut herd, &format!("/api/players/{herd_id}")).await;
    assert_eq!(profile.name.as_deref(), Some("GoatHerd"));
    assert!(!profile.closed);
    assert_eq!(
        profile.record,
        vec![record(Side::Goats, 1, 0, 1), record(Side::Tigers, 0, 0, 0)]
    );
    assert!(profile.history.is_empty(), "casual games draw no chart");
    let theirs: Profile = get_json(&mut herd, &format!("/api/players/{tail_id}")).await;
    assert_eq!(
        theirs.record,
        vec![record(Side::Goats, 0, 0, 0), record(Side::Tigers, 1, 0, 1)]
    );
    // By name, in any case: the same profile.
    let by_name: Profile = get_json(&mut tail, "/api/players/by-name/goatherd").await;
    assert_eq!(by_name, profile);

    let list: PlayerGames = get_json(&mut tail, &format!("/api/players/{herd_id}/games")).await;
    assert_eq!(list.next, None);
    // Newest first; games that ended in the same millisecond in a fixed
    // order.
    assert!(list.games.windows(2).all(|w| w[0].ended >= w[1].ended));
    let result_at = |table: &str| {
        let game = list.games.iter().find(|g| g.table == table).unwrap();
        (game.result, game.plies)
    };
    assert_eq!(result_at(&first.table), (PlayerResult::Lost, 1));
    assert_eq!(result_at(&second.table), (PlayerResult::Won, 1));
    assert_eq!(result_at(&third.table), (PlayerResult::Aborted, 0));
    assert_eq!(list.games.len(), 3);
    for game in &list.games {
        assert_eq!(game.side, Side::Goats);
        assert_eq!(
            game.opponent,
            GameOpponent::Player {
                id: tail_id.clone(),
                name: Some("TigerTail".into())
            }
        );
        assert_eq!(game.game, 1);
        assert_eq!(game.board, None);
        assert!(!game.rated && game.rating.is_none() && game.rating_change.is_none());
        assert_eq!(game.speed, "correspondence");
        assert!(game.url.ends_with(&format!("/t/{}/games/1", game.table)));
    }

    // The guest's list names the host, from the guest's side.
    let theirs: PlayerGames = get_json(&mut herd, &format!("/api/players/{tail_id}/games")).await;
    assert_eq!(theirs.games.len(), 3);
    assert!(theirs.games.iter().all(|g| g.side == Side::Tigers));
    let lost = theirs
        .games
        .iter()
        .find(|g| g.table == second.table)
        .unwrap();
    assert_eq!(
        (lost.result, lost.reason),
        (PlayerResult::Lost, EndReason::Resignation)
    );
    server.stop().await;
}
on_both!(a_profile_counts_and_lists_the_games_two_signed_in_players_played);

async fn a_players_games_come_in_pages_that_neither_repeat_nor_skip(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut host = Browser::new(&server);
    let id = host.me().await.id;
    let mut guest = Browser::new(&server);
    guest.me().await;
    // One table, its games aborted and rematched one after another: many
    // games may end in the same millisecond.
    let games = PLAYER_GAMES_PAGE as u32 + 1;
    let (_created, mut host_socket, mut guest_socket) = friend_table(&mut host, &guest).await;
    for game in 1..=games {
        host_socket.send(&ABORT).await;
        host_socket
            .until(|m| match m {
                ServerMessage::Event {
                    event: TableEvent::Aborted { .. },
                    ..
                } => Some(()),
                _ => None,
            })
            .await;
        if game == games {
            break;
        }
        host_socket.send(&ClientMessage::Rematch { id: None }).await;
        guest_socket
            .send(&ClientMessage::Rematch { id: None })
            .await;
        let started = host_socket
            .until(|m| match m {
                ServerMessage::Event {
                    event: TableEvent::RematchStarted { game },
                    ..
                } => Some(*game),
                _ => None,
            })
            .await;
        assert_eq!(started, game + 1);
    }

    let first: PlayerGames = get_json(&mut host, &format!("/api/players/{id}/games")).await;
    assert_eq!(first.games.len(), PLAYER_GAMES_PAGE);
    let next = first.next.clone().expect("a second page");
    let path = format!("/api/players/{id}/games?before={next}");
    let second: PlayerGames = get_json(&mut host, &path).await;
    assert_eq!(second.next, None);
    let numbers: Vec<u32> = first
        .games
        .iter()
        .chain(&second.games)
        .map(|g| g.game)
        .collect();
    let expected: Vec<u32> = (1..=games).rev().collect();
    assert_eq!(numbers, expected);
    // The seats alternate sides, and the opponent sat by a session
    // without a name.
    assert_eq!(first.games[0].side, Side::Goats);
    assert_eq!(first.games[1].side, Side::Tigers);
    assert!(matches!(
        &first.games[0].opponent,
        GameOpponent::Player { name: None, .. }
    ));

    assert_eq!(
        refusal(&mut host, &format!("/api/players/{id}/games?before=junk")).await,
        (422, ApiErrorCode::InvalidField)
    );
    server.stop().await;
}
on_both!(a_players_games_come_in_pages_that_neither_repeat_nor_skip);

async fn the_leaderboard_lists_open_accounts_whose_ratings_are_settled(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut ids = Vec::new();
    for name in ["Settled", "Unsure", "Second", "Closing"] {
        let mut browser = Browser::new(&server);
        ids.push(browser.me().await.id);
        assert_eq!(browser.sign_up(name, PASSWORD).await.0, 200);
        if name == "Closing" {
            let body = serde_json::json!({ "password": PASSWORD }).to_string();
            assert_eq!(browser.send("DELETE", "/api/account", &body).await.0, 204);
        }
    }
    let mut anonymous = Browser::new(&server);
    ids.push(anonymous.me().await.id);
    // (rating, deviation) in blitz: the second is provisional, the
    // fourth closed, the fifth anonymous.
    let rows = [(1700, 80), (1900, 150), (1600, 60), (2100, 50), (2000, 50)];
    for (id, (rating, deviation)) in ids.iter().zip(rows) {
        execute(
            db,
            &format!(
                "INSERT INTO ratings (player_id, speed, rating, deviation, volatility, games, \
                 rated_at) VALUES ('{id}', 'blitz', {rating}, {deviation}, 0.09, 12, 0)"
            ),
        )
        .await;
    }
    let board: Leaderboard = get_json(&mut anonymous, "/api/leaderboard/blitz").await;
    assert_eq!(board.speed, "blitz");
    let listed: Vec<(u32, &str, u32)> = board
        .players
        .iter()
        .map(|p| (p.rank, p.name.as_str(), p.rating))
        .collect();
    assert_eq!(listed, [(1, "Settled", 1700), (2, "Second", 1600)]);
    assert_eq!(board.players[0].id, ids[0]);
    assert_eq!(board.players[0].games, 12);

    let empty: Leaderboard = get_json(&mut anonymous, "/api/leaderboard/correspondence").await;
    assert!(empty.players.is_empty());
    assert_eq!(
        refusal(&mut anonymous, "/api/leaderboard/lightning").await,
        (404, ApiErrorCode::NotFound)
    );
    // The provisional player's profile says so.
    let unsure: Profile = get_json(&mut anonymous, &format!("/api/players/{}", ids[1])).await;
    assert!(unsure.ratings[0].provisional);
    server.stop().await;
}
on_both!(the_leaderboard_lists_open_accounts_whose_ratings_are_settled);

async fn a_closed_account_shows_no_name_and_unknown_players_are_not_found(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut browser = Browser::new(&server);
    let id = browser.me().await.id;
    assert_eq!(browser.sign_up("Leaving", PASSWORD).await.0, 200);
    let named: Profile = get_json(&mut browser, "/api/players/by-name/LEAVING").await;
    assert_eq!(named.id, id);
    let body = serde_json::json!({ "password": PASSWORD }).to_string();
    assert_eq!(browser.send("DELETE", "/api/account", &body).await.0, 204);

    let closed: Profile = get_json(&mut browser, &format!("/api/players/{id}")).await;
    assert_eq!(closed.name, None);
    assert!(closed.closed);
    for path in [
        "/api/players/by-name/Leaving".to_owned(),
        "/api/players/by-name/nobody-here".to_owned(),
        "/api/players/by-name/x".to_owned(),
        "/api/players/AAAAAAAAAAAAAAAAAAAAAA".to_owned(),
        "/api/players/AAAAAAAAAAAAAAAAAAAAAA/games".to_owned(),
        format!("/api/players/{}", "A".repeat(300)),
    ] {
        assert_eq!(
            refusal(&mut browser, &path).await,
            (404, ApiErrorCode::NotFound),
            "{path}"
        );
    }
    server.stop().await;
}
on_both!(a_closed_account_shows_no_name_and_unknown_players_are_not_found);

async fn a_rated_games_ratings_make_the_chart_and_the_change_each_player_sees(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut herd = Browser::new(&server);
    let herd_id = herd.me().await.id;
    let mut tail = Browser::new(&server);
    let tail_id = tail.me().await.id;
    let (created, mut host, mut guest) = friend_table(&mut herd, &tail).await;
    host.play_acked("c3").await;
    guest.send(&RESIGN).await;
    assert_eq!(
        ended(&mut host).await,
        (Some(Side::Goats), EndReason::Resignation)
    );
    // The ratings as the rated games' settlement writes them.
    execute(
        db,
        &format!(
            "UPDATE games SET rated = 1, host_rating_before = 1500, \
             host_rating_after = 1512.4, guest_rating_before = 1500.2, \
             guest_rating_after = 1487.6 WHERE table_id = '{}'",
            created.table
        ),
    )
    .await;

    let mine: PlayerGames = get_json(&mut herd, &format!("/api/players/{herd_id}/games")).await;
    let game = &mine.games[0];
    assert!(game.rated);
    assert_eq!((game.rating, game.rating_change), (Some(1512), Some(12)));
    let theirs: PlayerGames = get_json(&mut herd, &format!("/api/players/{tail_id}/games")).await;
    let game = &theirs.games[0];
    assert_eq!((game.rating, game.rating_change), (Some(1488), Some(-12)));

    let profile: Profile = get_json(&mut herd, &format!("/api/players/{herd_id}")).await;
    assert_eq!(profile.history.len(), 1);
    assert_eq!(profile.history[0].speed, "correspondence");
    let points: Vec<u32> = profile.history[0].points.iter().map(|p| p.rating).collect();
    assert_eq!(points, [1512]);
    assert_eq!(profile.history[0].points[0].at, game.ended);
    server.stop().await;
}
on_both!(a_rated_games_ratings_make_the_chart_and_the_change_each_player_sees);
