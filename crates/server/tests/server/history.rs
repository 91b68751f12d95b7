//! Finished games as rows: each written with the event that ended it
//! (aborted ones too), history served from them, the review stored with
//! its game once computed, and the rows of games that ended before the
//! rows existed written from their tables' events.

use baghchal_protocol::{ClientMessage, GameRecord, Opponent, Side as WireSide};
use baghchal_rules::{Reason, Side};
use baghchal_server::backfill::backfill_games;
use baghchal_server::storage::Storage;
use baghchal_table::finished::SeatKind;
use baghchal_table::play::{Event, Logged};
use baghchal_table::seat::Player;
use baghchal_table::time::Timestamp;

use crate::common::{request, Seated, TestDb, TestServer};
use crate::on_both;

async fn every_finished_game_is_a_row_written_with_its_end(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut seated = Seated::new(&server, &request(Opponent::Friend, 0)).await;
    let table = seated.table().to_owned();
    seated.play_out(&["c3", "a1-b2", "c4"]).await;
    seated
        .guest
        .send(&ClientMessage::Resign {
            id: None,
            board: None,
        })
        .await;
    seated.host.sync().await;
    let (status, body) = server.get(&format!("/api/tables/{table}/games/1")).await;
    assert_eq!(status, 200, "{body}");
    let served: GameRecord = serde_json::from_str(&body).unwrap();

    // The second game is aborted before its first action.
    for client in [&mut seated.host, &mut seated.guest] {
        client.send(&ClientMessage::Rematch { id: None }).await;
        client.sync().await;
    }
    seated
        .guest
        .send(&ClientMessage::Abort {
            id: None,
            board: None,
        })
        .await;
    seated.guest.sync().await;
    server.stop().await;

    let storage = Storage::connect(&db.url).await.unwrap();
    let games = storage.finished_games(&table).await.unwrap();
    assert_eq!(games.len(), 2, "{games:?}");
    let first = &games[0].game;
    assert_eq!(
        (first.table.as_str(), first.game, first.board),
        (table.as_str(), 1, 1)
    );
    assert_eq!(first.seats, [SeatKind::Link, SeatKind::Link]);
    assert_eq!(first.host_side, Side::Goat);
    assert_eq!(first.outcome.winner(), Some(Side::Goat));
    assert_eq!(first.outcome.reason(), Reason::Resignation);
    assert_eq!(first.plies, 3);
    assert_eq!(first.version, 4);
    assert!(first.started <= first.ended);
    assert_eq!(
        first
            .record
            .actions
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        ["c3", "a1-b2", "c4"]
    );
    // The page's history is the row, as the table served it.
    assert_eq!(first.to_wire(), served);
    assert_eq!(served.host_side, WireSide::Goats);

    let second = &games[1].game;
    assert_eq!(second.game, 2);
    assert_eq!(second.host_side, Side::Tiger);
    assert_eq!(second.outcome.reason(), Reason::Aborted);
    assert_eq!(second.outcome.winner(), None);
    assert_eq!(second.plies, 0);
    storage.close().await;
}
on_both!(every_finished_game_is_a_row_written_with_its_end);

async fn a_finished_game_is_served_from_its_row_with_its_review(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut seated = Seated::new(&server, &request(Opponent::Friend, 0)).await;
    let table = seated.table().to_owned();
    let (status, _) = server
        .get(&format!("/api/tables/{table}/games/1/analysis"))
        .await;
    assert_eq!(status, 409, "a game in progress is not analysed");
    seated.play_out(&["c3", "a1-b2"]).await;
    seated
        .host
        .send(&ClientMessage::Resign {
            id: None,
            board: None,
        })
        .await;
    seated.host.sync().await;
    let path = format!("/api/tables/{table}/games/1/analysis");
    let (status, analysis) = server.get(&path).await;
    assert_eq!(status, 200, "{analysis}");
    server.stop().await;

    // The review is kept with its game, and a new server serves both from
    // the row.
    let storage = Storage::connect(&db.url).await.unwrap();
    let stored = storage.finished_game(&table, 1, 1).await.unwrap().unwrap();
    let kept: serde_json::Value =
        serde_json::from_str(stored.analysis.as_deref().expect("the review is stored")).unwrap();
    assert_eq!(
        kept,
        serde_json::from_str::<serde_json::Value>(&analysis).unwrap()
    );
    storage.close().await;
    let server = TestServer::start(db).await;
    assert_eq!(server.get(&path).await, (200, stored.analysis.unwrap()));
    let (status, body) = server.get(&format!("/api/tables/{table}/games/1")).await;
    assert_eq!(status, 200);
    let record: GameRecord = serde_json::from_str(&body).unwrap();
    assert_eq!(record.moves, ["c3", "a1-b2"]);
    // No game 2 and no board 2 at a one-board table.
    for missing in ["games/2", "games/1?board=2", "games/x"] {
        let (status, _) = server.get(&format!("/api/tables/{table}/{missing}")).await;
        assert_eq!(status, 404, "{missing}");
    }
    server.stop().await;
}
on_both!(a_finished_game_is_served_from_its_row_with_its_review);

fn logged(version: u64, event: Event, player: Player) -> Logged {
    Logged {
        version,
        event,
        player: Some(player),
        client_id: None,
        at: Timestamp::from_millis(1_764_547_200_000 + 1000 * i64::try_from(version).unwrap()),
        board: 1,
    }
}

async fn games_that_ended_before_the_rows_existed_get_theirs(db: &TestDb) {
    let server = TestServer::start(db).await;
    let created = server.create(&request(Opponent::Friend, 0)).await;
    server.stop().await;
    let table = created.table;

    // Events stored without rows, as every game before the rows was.
    let storage = Storage::connect(&db.url).await.unwrap();
    let play = |action: &str, side| Event::Played {
        side,
        action: action.parse().unwrap(),
    };
    let events = [
        logged(1, play("c3", Side::Goat), Player::Host),
        logged(2, play("a1-b2", Side::Tiger), Player::Guest),
        logged(3, Event::Resigned { side: Side::Tiger }, Player::Guest),
        logged(
            4,
            Event::RematchOffered { side: Side::Tiger },
            Player::Guest,
        ),
    ];
    for event in &events {
        storage
            .append_event(&table, event, Some(false), None)
            .await
            .unwrap();
    }
    assert!(storage.finished_games(&table).await.unwrap().is_empty());
    mark_for_backfill(db, &table).await;

    assert_eq!(backfill_games(&storage).await.unwrap(), 1);
    let games = storage.finished_games(&table).await.unwrap();
    assert_eq!(games.len(), 1);
    let game = &games[0].game;
    assert_eq!((game.game, game.version, game.plies), (1, 3, 2));
    assert_eq!(game.outcome.winner(), Some(Side::Goat));
    assert_eq!(game.started, events[0].at);
    assert_eq!(game.ended, events[2].at);
    // Done once: the table left the list.
    assert_eq!(backfill_games(&storage).await.unwrap(), 0);
    storage.close().await;
}
on_both!(games_that_ended_before_the_rows_existed_get_theirs);

/// Lists `table` as the migration lists the tables it found.
async fn mark_for_backfill(db: &TestDb, table: &str) {
    let sql = "INSERT INTO games_backfill (table_id) VALUES ($1)";
    if db.url.starts_with("sqlite:") {
        let pool = sqlx::SqlitePool::connect(&db.url).await.unwrap();
        sqlx::query(sql).bind(table).execute(&pool).await.unwrap();
        pool.close().await;
    } else {
        let pool = sqlx::PgPool::connect(&db.url).await.unwrap();
        sqlx::query(sql).bind(table).execute(&pool).await.unwrap();
        pool.close().await;
    }
}
