//! The event log as the writer uses it: what a start finds in it is
//! stored, a read sees what only the log holds, and a fault that left an
//! acknowledged event's version taken does not stop the rest; a batch
//! logs what it can and commits only the rest to the database; a log
//! whose start-over failed starts over when it next can.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use baghchal_protocol::{CreateTable, Opponent, Side, Variant};
use baghchal_table::options::TableOptions;
use baghchal_table::play::{Event, Logged};
use baghchal_table::time::Timestamp;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use super::super::event_log::{path_of, records_in, EventLog};
use super::super::events::StoredEvent;
use super::super::writer::{Append, Job};
use super::super::{Storage, TableRow};
use crate::token::{self, Token};

fn url(file: &Path) -> String {
    format!("sqlite://{}?mode=rwc", file.display())
}

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
    let row = TableRow {
        id: id.clone(),
        options,
        host_secret: Some(Token::generate().unwrap().hash()),
        guest_secret: None,
        invite_token: Some(Token::generate().unwrap().hash()),
        watch_token: None,
        players: [None, None],
        lobby: false,
        rated: false,
    };
    storage.create_table(&row, None).await.unwrap();
    id
}

/// An event the log path takes: no game ends, no flag changes.
fn offered(version: u64) -> Logged {
    Logged {
        version,
        event: Event::DrawOffered {
            side: baghchal_rules::Side::Goat,
        },
        player: None,
        client_id: Some(format!("c{version}")),
        at: Timestamp::from_millis(1_764_547_200_000 + i64::try_from(version).unwrap()),
        board: 1,
    }
}

fn versions(events: &[Logged]) -> Vec<u64> {
    events.iter().map(|e| e.version).collect()
}

/// The rows of `table` in the database file itself, read by a connection
/// of its own.
async fn stored_rows(file: &Path, table: &str) -> Vec<i64> {
    let pool = sqlx::SqlitePool::connect(&url(file)).await.unwrap();
    let rows =
        sqlx::query_scalar("SELECT version FROM events WHERE table_id = $1 ORDER BY version")
            .bind(table)
            .fetch_all(&pool)
            .await
            .unwrap();
    pool.close().await;
    rows
}

/// A storage on a new file with `tables` tables: the directory, the
/// file, the storage and the tables' ids.
async fn with_tables(tables: usize) -> (tempfile::TempDir, PathBuf, Storage, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("db.sqlite");
    let storage = Storage::connect(&url(&file)).await.unwrap();
    let mut ids = Vec::new();
    for _ in 0..tables {
        ids.push(table(&storage).await);
    }
    (dir, file, storage, ids)
}

/// Appends event `version` to each of `ids`, all queued at once.
async fn append_round(storage: &Storage, ids: &[String], version: u64) {
    let event = offered(version);
    futures_util::future::try_join_all(
        ids.iter()
            .map(|id| storage.append_event(id, &event, None, None)),
    )
    .await
    .unwrap();
}

/// Checks that `rows` are a table's oldest versions, none missing.
fn assert_oldest_first(rows: &[i64]) {
    assert_eq!(
        rows,
        (1..=i64::try_from(rows.len()).unwrap()).collect::<Vec<_>>()
    );
}

#[tokio::test]
async fn events_only_in_the_log_are_stored_at_the_next_start() {
    let (_dir, file, storage, mut ids) = with_tables(1).await;
    let id = ids.pop().unwrap();
    storage.close().await;

    // What a server killed after acknowledging them leaves: three events
    // in the log and none in the database; then the same three again and
    // a fourth, as a log whose start-over was lost leaves them.
    let events: Vec<StoredEvent> = (1..=4).map(|v| StoredEvent::encode(offered(v))).collect();
    {
        let (mut log, found) = EventLog::open(&path_of(&file)).unwrap().unwrap();
        assert!(found.is_empty());
        log.append([(id.as_str(), &events[..3])]).unwrap();
        log.append([(id.as_str(), &events[..])]).unwrap();
    }
    assert!(stored_rows(&file, &id).await.is_empty());

    let storage = Storage::connect(&url(&file)).await.unwrap();
    assert_eq!(stored_rows(&file, &id).await, vec![1, 2, 3, 4]);
    let read = storage.events(&id).await.unwrap();
    assert_eq!(read, (1..=4).map(offered).collect::<Vec<_>>());
    assert!(records_in(&path_of(&file)).is_empty());
    storage.close().await;
}

#[tokio::test]
async fn a_read_sees_the_events_only_the_log_holds() {
    let (_dir, file, storage, mut ids) = with_tables(1).await;
    let id = ids.pop().unwrap();
    for version in 1..=5 {
        storage
            .append_event(&id, &offered(version), None, None)
            .await
            .unwrap();
    }
    // Acknowledged from the log: the database does not hold them yet.
    assert!(stored_rows(&file, &id).await.is_empty());
    assert_eq!(records_in(&path_of(&file)).len(), 5);
    assert_eq!(
        versions(&storage.events(&id).await.unwrap()),
        vec![1, 2, 3, 4, 5]
    );
    assert_eq!(stored_rows(&file, &id).await, vec![1, 2, 3, 4, 5]);
    // A batch that sets the table's flag goes to the database itself,
    // after events still in the log.
    storage
        .append_event(&id, &offered(6), None, None)
        .await
        .unwrap();
    storage
        .append_event(&id, &offered(7), Some(true), None)
        .await
        .unwrap();
    assert_eq!(stored_rows(&file, &id).await, vec![1, 2, 3, 4, 5, 7]);
    assert_eq!(
        versions(&storage.events(&id).await.unwrap()),
        vec![1, 2, 3, 4, 5, 6, 7]
    );
    storage.close().await;
}

#[tokio::test]
async fn a_read_of_a_table_stores_its_events_and_leaves_the_others_in_the_log() {
    let (_dir, file, storage, ids) = with_tables(2).await;
    let (read, other) = (&ids[0], &ids[1]);
    for version in 1..=3 {
        for id in [read, other] {
            storage
                .append_event(id, &offered(version), None, None)
                .await
                .unwrap();
        }
    }
    assert_eq!(
        versions(&storage.events(read).await.unwrap()),
        vec![1, 2, 3]
    );
    assert_eq!(stored_rows(&file, read).await, vec![1, 2, 3]);
    assert_eq!(stored_rows(&file, other).await, Vec::<i64>::new());
    // A read across every table's events (the hourly look) stores the
    // rest.
    storage
        .expire_unplayed(std::time::Duration::from_secs(3600))
        .await
        .unwrap();
    assert_eq!(stored_rows(&file, other).await, vec![1, 2, 3]);
    storage.close().await;
}

#[tokio::test]
async fn a_read_across_tables_waits_for_every_event_before_it_while_appends_go_on() {
    use super::super::fold::ACROSS_SLICE;
    const TABLES: usize = 64;
    let (_dir, file, storage, ids) = with_tables(TABLES).await;
    // Some two and a half slices of a read across tables, below a fold's
    // start: all in the log.
    let before = u64::try_from(ACROSS_SLICE * 5 / 2 / TABLES).unwrap();
    for version in 1..=before {
        append_round(&storage, &ids, version).await;
    }
    assert!(stored_rows(&file, &ids[0]).await.is_empty());
    // The hourly look, with a round of appends queued behind it.
    let (expired, ()) = tokio::join!(
        storage.expire_unplayed(std::time::Duration::from_secs(3600)),
        append_round(&storage, &ids, before + 1),
    );
    expired.unwrap();
    // Every event before the read is stored, in every table.
    for id in &ids {
        let rows = stored_rows(&file, id).await;
        assert!(
            rows.len() >= usize::try_from(before).unwrap(),
            "{} of {before}",
            rows.len()
        );
        assert_oldest_first(&rows);
    }
    storage.close().await;
}

#[tokio::test]
async fn an_acknowledged_event_whose_version_is_taken_does_not_stop_the_rest() {
    let (_dir, file, storage, mut ids) = with_tables(1).await;
    let id = ids.pop().unwrap();
    for version in [1, 2, 2, 3] {
        storage
            .append_event(&id, &offered(version), None, None)
            .await
            .unwrap();
    }
    assert_eq!(versions(&storage.events(&id).await.unwrap()), vec![1, 2, 3]);
    storage.close().await;
    // The stop stored the log: the next start finds it empty.
    assert!(records_in(&path_of(&file)).is_empty());
}

#[tokio::test]
async fn a_long_log_is_stored_slice_by_slice_and_table_by_table_without_a_read() {
    use super::super::fold::{FOLD_SLICE, PRESSING};
    const TABLES: usize = 64;
    let (_dir, file, storage, ids) = with_tables(TABLES).await;
    // Slices are taken while no append waits, which the timing decides;
    // from `PRESSING` events in the log on, after every batch whatever
    // waits. The writer takes the next append only once that slice is
    // committed, so the last round's answers come after it.
    let rounds = u64::try_from(PRESSING / TABLES).unwrap() + 2;
    for version in 1..=rounds {
        append_round(&storage, &ids, version).await;
    }
    let mut stored = 0;
    for id in &ids {
        let rows = stored_rows(&file, id).await;
        assert_oldest_first(&rows);
        stored += rows.len();
    }
    assert!(stored >= FOLD_SLICE, "{stored} stored");
    for id in &ids {
        assert_eq!(
            versions(&storage.events(id).await.unwrap()),
            (1..=rounds).collect::<Vec<_>>()
        );
    }
    storage.close().await;
}

/// An append of one event to `table`, setting its `active` flag if given.
fn append(table: &str, active: Option<bool>) -> Job {
    let (done, _) = oneshot::channel();
    Job::Append(Append {
        table: table.to_owned(),
        events: vec![StoredEvent::encode(offered(1))],
        games: Vec::new(),
        active,
        epoch: None,
        queued: Instant::now(),
        done,
    })
}

/// The writer on the database `file` and its log (after `prepare`), with
/// `jobs` queued before it starts, so that they make one batch. Returns,
/// once every append is answered, the queue (dropped, the writer stops)
/// and the writer.
async fn run_writer(
    file: &Path,
    prepare: impl FnOnce(&mut EventLog),
    jobs: Vec<Job>,
) -> (mpsc::Sender<Job>, JoinHandle<()>) {
    let conn = super::open(file).unwrap();
    let mut log = super::recover(&conn, file)
        .unwrap()
        .expect("the log is free");
    prepare(&mut log);
    let waiting = jobs.len();
    let (queue, queued) = mpsc::channel(4);
    for job in jobs {
        assert!(queue.try_send(job).is_ok());
    }
    let (answers, mut answered) = mpsc::unbounded_channel();
    let writer = tokio::task::spawn_blocking(move || {
        super::run(conn, queued, answers, &AtomicBool::new(false), Some(log));
    });
    let mut results = 0;
    while results < waiting {
        for (_, result) in answered.recv().await.unwrap() {
            result.unwrap();
            results += 1;
        }
    }
    (queue, writer)
}

/// The tables of the records the log at `file` holds, in order.
fn logged_tables(file: &Path) -> Vec<String> {
    records_in(&path_of(file))
        .into_iter()
        .map(|row| row.table)
        .collect()
}

#[tokio::test]
async fn a_batch_logs_its_appends_of_events_alone_and_commits_the_rest() {
    let (_dir, file, storage, ids) = with_tables(2).await;
    storage.close().await;
    // One batch: the first adds events alone; the second sets its
    // table's flag.
    let jobs = vec![append(&ids[0], None), append(&ids[1], Some(true))];
    let (queue, writer) = run_writer(&file, |_| {}, jobs).await;

    // The first is in the log only, the second in the database only.
    assert_eq!(logged_tables(&file), vec![ids[0].clone()]);
    assert_eq!(stored_rows(&file, &ids[0]).await, Vec::<i64>::new());
    assert_eq!(stored_rows(&file, &ids[1]).await, vec![1]);
    // The stop stores the log.
    drop(queue);
    writer.await.unwrap();
    assert_eq!(stored_rows(&file, &ids[0]).await, vec![1]);
}

#[tokio::test]
async fn a_log_whose_start_over_failed_starts_over_at_the_next_batch() {
    let (_dir, file, storage, ids) = with_tables(1).await;
    storage.close().await;
    let log_file = path_of(&file);
    let fail = |log: &mut EventLog| log.fail_a_start_over(&log_file);
    let (queue, writer) = run_writer(&file, fail, vec![append(&ids[0], None)]).await;

    // The log holds nothing the database lacks, so the writer started it
    // over and appended to it, rather than commit to the database.
    assert_eq!(logged_tables(&file), vec![ids[0].clone()]);
    assert_eq!(stored_rows(&file, &ids[0]).await, Vec::<i64>::new());
    drop(queue);
    writer.await.unwrap();
    assert_eq!(stored_rows(&file, &ids[0]).await, vec![1]);
}
