//! The storage's own guarantees, through its typed API: a failed group
//! commit is retried event by event, and the guest seat is claimed once
//! however many claim it at the same moment.

use baghchal_protocol::{CreateTable, Opponent, Side, Variant};
use baghchal_server::options::TableOptions;
use baghchal_server::play::{Event, Logged};
use baghchal_server::storage::{Storage, TableRow};
use baghchal_server::time::Timestamp;
use baghchal_server::token::{self, Token};

use crate::common::TestDb;
use crate::on_both;

async fn table(storage: &Storage) -> String {
    let options = TableOptions::parse(&CreateTable {
        opponent: Opponent::Friend,
        side: Side::Goats,
        level: None,
        spectators: 0,
        variant: Variant::default(),
        clock: None,
        format: baghchal_protocol::Format::Single,
        series_games: None,
    })
    .unwrap();
    let id = token::table_id().unwrap();
    storage
        .create_table(
            &TableRow {
                id: id.clone(),
                options,
                host_secret: Some(Token::generate().unwrap().hash()),
                guest_secret: None,
                invite_token: Some(Token::generate().unwrap().hash()),
                watch_token: None,
            },
            None,
        )
        .await
        .unwrap();
    id
}

fn resigned(version: u64) -> Logged {
    Logged {
        version,
        event: Event::Resigned {
            side: baghchal_rules::Side::Goat,
        },
        player: None,
        client_id: None,
        at: Timestamp::from_millis(1_764_547_200_000 + i64::try_from(version).unwrap()),
        board: 1,
    }
}

async fn a_failed_batch_is_retried_event_by_event(db: &TestDb) {
    let storage = Storage::connect(&db.url).await.unwrap();
    let id = table(&storage).await;
    // Forty events and, among them, a second event at version 20: queued
    // together (all are sent before the writer runs), they make one batch,
    // which the duplicate fails.
    let mut versions: Vec<u64> = (1..=40).collect();
    versions.insert(25, 20);
    let appends = versions.iter().map(|&v| {
        let storage = storage.clone();
        let id = id.clone();
        async move { storage.append_event(&id, &resigned(v), true, None).await }
    });
    let results = futures_util::future::join_all(appends).await;
    let failed: Vec<u64> = versions
        .iter()
        .zip(&results)
        .filter(|(_, r)| r.is_err())
        .map(|(v, _)| *v)
        .collect();
    assert_eq!(failed, vec![20], "only the duplicate fails");
    let stored: Vec<u64> = storage
        .events(&id)
        .await
        .unwrap()
        .iter()
        .map(|e| e.version)
        .collect();
    assert_eq!(stored, (1..=40).collect::<Vec<_>>());
    storage.close().await;
}
on_both!(a_failed_batch_is_retried_event_by_event);

async fn the_guest_seat_is_claimed_once_by_racing_claimers(db: &TestDb) {
    let storage = Storage::connect(&db.url).await.unwrap();
    let id = table(&storage).await;
    let secrets: Vec<Token> = (0..16).map(|_| Token::generate().unwrap()).collect();
    let claims = secrets.iter().map(|secret| {
        let storage = storage.clone();
        let id = id.clone();
        let hash = secret.hash();
        tokio::spawn(async move { storage.claim_guest_seat(&id, &hash, None).await })
    });
    let won: Vec<usize> = futures_util::future::join_all(claims)
        .await
        .into_iter()
        .enumerate()
        .filter(|(_, r)| matches!(r, Ok(Ok(true))))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(won.len(), 1, "exactly one claim wins: {won:?}");
    let row = storage.table(&id).await.unwrap().unwrap();
    assert_eq!(row.guest_secret, Some(secrets[won[0]].hash()));
    storage.close().await;
}
on_both!(the_guest_seat_is_claimed_once_by_racing_claimers);

async fn a_series_table_reads_back_its_format_as_another_node_would_load_it(db: &TestDb) {
    let storage = Storage::connect(&db.url).await.unwrap();
    for (format, games) in [
        (baghchal_protocol::Format::Single, None),
        (baghchal_protocol::Format::Series, Some(2)),
        (baghchal_protocol::Format::Series, Some(6)),
    ] {
        let options = TableOptions::parse(&CreateTable {
            format,
            series_games: games,
            ..crate::common::request(Opponent::Computer, 0)
        })
        .unwrap();
        let id = token::table_id().unwrap();
        let row = TableRow {
            id: id.clone(),
            options,
            host_secret: Some(Token::generate().unwrap().hash()),
            guest_secret: None,
            invite_token: None,
            watch_token: None,
        };
        storage.create_table(&row, None).await.unwrap();
        let loaded = storage.table(&id).await.unwrap().unwrap();
        assert_eq!(loaded.options, options);
        assert_eq!(loaded.options.format.series_games(), games);
    }
    storage.close().await;
}
on_both!(a_series_table_reads_back_its_format_as_another_node_would_load_it);
