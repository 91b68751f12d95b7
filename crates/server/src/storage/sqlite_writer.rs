//! The SQLite writer: one connection, on a thread of its own, that takes
//! the queued appends of every table a batch at a time, appends them to
//! the event log with one sync, and commits to the database in one
//! transaction those that end a game or set a flag.
//!
//! Through sqlx every statement of a batch was a round trip between the
//! async writer and sqlx's connection thread (a wake-up each way), and a
//! multi-row insert of each batch size was a statement of its own to
//! prepare. Here a batch crosses threads once: the thread runs its
//! prepared statements on a connection nothing else uses (so its page
//! cache stays warm), syncs the commit and answers every append.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rusqlite::{params, Connection, OpenFlags};
use tokio::sync::mpsc;

use super::event_log::{self, EventLog};
use super::fold::{Folder, Unfolded};
use super::games::INSERT_GAME;
use super::settle::settle_sqlite;
use super::sqlite_statements::{
    in_transaction, insert_events, EventValues, Held, INSERT_EVENT_OR_IGNORE,
};
use super::writer::{committed, gather, Append, Done, Folded, Job, MAX_BATCH};
use super::StorageError;

/// The writer's page cache: the leaves where each active table's next
/// events go, so that an insert reads no page back from the file. 16 MiB
/// holds some 4,000 of them.
const CACHE_KIB: u32 = 16 * 1024;

/// The WAL file is cut back to this size when it starts over, so that a
/// burst of writes does not keep its size on disk.
const WAL_KEPT_BYTES: u64 = 64 * 1024 * 1024;

/// Opens the writer's connection to the database file at `path`, which
/// the migrations have set up, with the settings every commit relies on.
pub(super) fn open(path: &Path) -> Result<Connection, StorageError> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(Duration::from_secs(10))?;
    conn.execute_batch(&format!(
        // A commit is on disk before it is acknowledged (`FULL`);
        // checkpoints run from their own task, never inside a commit; the
        // statement journal of a failing insert stays in memory.
        //
        // Foreign keys are not checked on this connection: checking that
        // each event's and game's table exists was a lookup in `tables`
        // for every insert, some 4,000 instructions an action (4 % of its
        // path). The writer only stores the rows of a table loaded from
        // its row (its events and games, and its players' ratings), and no
        // table or player row is ever deleted; every other connection
        // checks them.
        "PRAGMA journal_mode = WAL;
         PRAGMA synchronous = FULL;
         PRAGMA foreign_keys = OFF;
         PRAGMA wal_autocheckpoint = 0;
         PRAGMA temp_store = MEMORY;
         PRAGMA journal_size_limit = {WAL_KEPT_BYTES};
         PRAGMA cache_size = -{CACHE_KIB};"
    ))?;
    Ok(conn)
}

/// The answers to one batch's appends.
pub(super) type Answers = Vec<(Done, Result<Instant, StorageError>)>;

/// Hands each append its answer, from a task of the runtime: woken from
/// the writer's thread once per batch, it wakes every table of the batch
/// on a worker's own queue. (A table woken from the writer's thread
/// directly waits in the runtime's shared queue, which the workers look at
/// only now and then while their own queues are full, and under load
/// that cost the tail tens of milliseconds.)
pub(super) async fn answer(mut answers: mpsc::UnboundedReceiver<Answers>) {
    while let Some(batch) = answers.recv().await {
        for (done, result) in batch {
            let _ = done.send(result);
        }
    }
}

/// Commits batches from `queue` until it is stopped and drained, and
/// sends their answers to [`answer`].
///
/// A batch of events alone is appended to the event log and synced; it is
/// acknowledged then, and stored in the database later, a slice at a time
/// while no append waits once the log holds enough
/// ([`fold`](super::fold)), or when a reader asks ([`Job::Fold`]): a
/// table's events at once, and for a read across tables every table's,
/// in larger slices with the batches that come meanwhile between them. An
/// append that ends a game or sets a table's `active` flag is committed to
/// the database itself, after the rest of its batch is in the log and
/// answered: committed whole, a batch with one such append wrote a page of
/// `events` for each of its tables, and at saturation, where most batches
/// hold one, a longer commit made a larger next batch. When the writer
/// stops, everything in the log is stored.
///
/// After each checkpoint of the background task (`copied`), it copies the
/// frames committed meanwhile itself, between two batches: with all of the
/// WAL in the database file, the next commit starts the WAL over.
pub(super) fn run(
    conn: Connection,
    mut queue: mpsc::Receiver<Job>,
    answers: mpsc::UnboundedSender<Answers>,
    copied: &AtomicBool,
    mut log: Option<EventLog>,
) {
    let mut batch: Vec<Append> = Vec::with_capacity(MAX_BATCH);
    // The appends of a batch that the database itself takes.
    let mut stored: Vec<Append> = Vec::new();
    let mut folds = Vec::new();
    // Reads across tables, each waiting for the log as it was when it
    // asked ([`Unfolded::mark`]).
    let mut across: Vec<(u64, Folded)> = Vec::new();
    let mut held = None;
    let mut writer = Writer {
        folder: Folder {
            conn: &conn,
            held: &mut held,
            log: log.as_mut(),
        },
        unfolded: Unfolded::default(),
    };
    loop {
        // While a read across tables waits, its slices go on between
        // batches even when none comes.
        let job = if across.is_empty() {
            match queue.blocking_recv() {
                Some(job) => Some(job),
                None => break,
            }
        } else {
            match queue.try_recv() {
                Ok(job) => Some(job),
                Err(mpsc::error::TryRecvError::Empty) => None,
                Err(mpsc::error::TryRecvError::Disconnected) => break,
            }
        };
        let mut appended = 0;
        if let Some(started) = job.and_then(|job| gather(job, &mut queue, &mut batch, &mut folds)) {
            if writer.folder.log.is_none() || writer.unfolded.is_full() {
                stored.append(&mut batch);
            } else {
                stored.extend(batch.extract_if(.., |append| !append.events_only()));
            }
            // The log first: its appends are answered before the
            // database's commit, which takes longer, starts.
            if !batch.is_empty() {
                appended = batch.iter().map(|append| append.events.len()).sum();
                let _ = answers.send(writer.log_batch(&mut batch, started));
            }
            if !stored.is_empty() {
                let _ = answers.send(writer.store_batch(&mut stored, started));
            }
        }
        let read = writer.answer_reads(&mut folds, &mut across, appended);
        if !read && writer.unfolded.is_due(queue.is_empty()) {
            let _ = warned(writer.unfolded.fold_slice(&mut writer.folder, appended));
        }
        if copied.swap(false, Ordering::Acquire) {
            if let Err(e) = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(())) {
                tracing::warn!(error = %e, "copying the rest of the WAL failed; the next checkpoint tries again");
            }
        }
    }
    let folded = writer.unfolded.fold_all(&mut writer.folder);
    if let Err(e) = &folded {
        tracing::error!(error = %e, "storing the event log in the database failed; the next start stores it");
    }
    answer_folds(across.drain(..).map(|(_, done)| done), &folded);
}

/// `folded`, logged if it failed.
fn warned(folded: Result<(), StorageError>) -> Result<(), StorageError> {
    if let Err(e) = &folded {
        tracing::warn!(error = %e, "storing the event log in the database failed; its events stay in the log");
    }
    folded
}

/// Answers reads waiting for events to be stored with `folded`.
fn answer_folds(waiting: impl Iterator<Item = Folded>, folded: &Result<(), StorageError>) {
    let folded = folded.as_ref().copied().map_err(ToString::to_string);
    for done in waiting {
        let _ = done.send(folded.clone().map_err(StorageError::Fold));
    }
}

/// The writer's connection, its statements and its event log.
struct Writer<'w, 'c> {
    /// `log` is `None` while another writer holds the log: every batch
    /// is committed to the database.
    folder: Folder<'w, 'c>,
    unfolded: Unfolded,
}

impl Writer<'_, '_> {
    /// Answers the reads of `folds`: a read of tables once their events
    /// are stored, at once; a read across tables once every event the log
    /// held when it asked is, which this takes a slice towards each time
    /// (`across` keeps those waiting). Returns whether a read across
    /// tables waited: the turn's slice was its.
    fn answer_reads(
        &mut self,
        folds: &mut Vec<(Option<String>, Folded)>,
        across: &mut Vec<(u64, Folded)>,
        appended: usize,
    ) -> bool {
        let tables: Vec<&str> = folds
            .iter()
            .filter_map(|(table, _)| table.as_deref())
            .collect();
        if !tables.is_empty() {
            let folded = warned(self.unfolded.fold_tables(&mut self.folder, &tables));
            answer_folds(
                folds
                    .extract_if(.., |(table, _)| table.is_some())
                    .map(|(_, done)| done),
                &folded,
            );
        }
        let mark = self.unfolded.mark();
        across.extend(folds.drain(..).map(|(_, done)| (mark, done)));
        let Some(oldest) = across.iter().map(|(mark, _)| *mark).min() else {
            return false;
        };
        if !self.unfolded.has_stored(oldest) {
            let folded = warned(self.unfolded.fold_across(&mut self.folder, appended));
            if folded.is_err() {
                answer_folds(across.drain(..).map(|(_, done)| done), &folded);
                return true;
            }
        }
        let unfolded = &self.unfolded;
        answer_folds(
            across
                .extract_if(.., |(mark, _)| unfolded.has_stored(*mark))
                .map(|(_, done)| done),
            &Ok(()),
        );
        true
    }

    /// Appends `batch` to the event log and answers it; if the log fails,
    /// commits it to the database instead.
    fn log_batch(&mut self, batch: &mut Vec<Append>, started: Instant) -> Answers {
        let Some(log) = self.folder.log.as_deref_mut() else {
            return self.store_batch(batch, started);
        };
        if log.is_broken() && self.unfolded.is_empty() {
            // Nothing is only in the log: it may start over, and take
            // appends again.
            if let Err(e) = log.restart() {
                tracing::debug!(error = %e, "starting the event log over failed again");
            }
        }
        let appended = log.append(
            batch
                .iter()
                .map(|append| (append.table.as_str(), append.events.as_slice())),
        );
        match appended {
            Ok(()) => {
                let ended = Instant::now();
                committed(batch, started, ended);
                batch
                    .drain(..)
                    .map(|append| {
                        self.unfolded.push(append.table, append.events);
                        (append.done, Ok(ended))
                    })
                    .collect()
            }
            Err(e) => {
                tracing::warn!(error = %e, "appending to the event log failed; committing to the database");
                self.store_batch(batch, started)
            }
        }
    }

    /// Commits `batch` to the database; if it fails, its appends are
    /// retried one by one so that each gets its own answer.
    ///
    /// Earlier events of its tables may still be in the log only: every
    /// reader of `events` has them folded in first ([`Job::Fold`]), and a
    /// start stores them. A game's row is committed with its ending event,
    /// never apart from it, so the log is left alone.
    fn store_batch(&mut self, batch: &mut Vec<Append>, started: Instant) -> Answers {
        match commit(self.folder.conn, self.folder.held, batch) {
            Ok(()) => {
                let ended = Instant::now();
                committed(batch, started, ended);
                batch
                    .drain(..)
                    .map(|append| (append.done, Ok(ended)))
                    .collect()
            }
            Err(e) if batch.len() == 1 => batch
                .pop()
                .map(|append| (append.done, Err(e)))
                .into_iter()
                .collect(),
            Err(e) => {
                tracing::warn!(error = %e, events = batch.len(), "a batch failed; retrying one by one");
                batch
                    .drain(..)
                    .map(|append| {
                        let result = commit(
                            self.folder.conn,
                            self.folder.held,
                            std::slice::from_ref(&append),
                        )
                        .map(|()| Instant::now());
                        (append.done, result)
                    })
                    .collect()
            }
        }
    }
}

/// Stores the events a start finds in the event log at `database`'s side
/// (acknowledged before a crash, or before a stop that could not store
/// them), skipping those already stored, and starts the log over; returns
/// the log, locked for this process.
///
/// `None` when another writer holds the log: a server running on this
/// database, opened again by a tool or a test. This one then commits
/// every batch to the database, and leaves the log to its holder.
pub(super) fn recover(
    conn: &Connection,
    database: &Path,
) -> Result<Option<EventLog>, StorageError> {
    let Some((mut log, rows)) = EventLog::open(&event_log::path_of(database))? else {
        tracing::info!("another writer holds this database's event log: committing each batch");
        return Ok(None);
    };
    if !rows.is_empty() {
        let mut stored = 0;
        let tx = conn.unchecked_transaction()?;
        {
            let mut insert = tx.prepare(INSERT_EVENT_OR_IGNORE)?;
            for row in &rows {
                stored += EventValues::from(row).insert(&mut insert)?;
            }
        }
        tx.commit()?;
        tracing::info!(
            stored,
            found = rows.len(),
            "the event log's events are in the database"
        );
    }
    log.restart()?;
    Ok(Some(log))
}

/// Stores `batch` in one transaction: every event, the rows of the games
/// they ended, then each table's `active` flag as its last append left it.
/// The statements are prepared at the first batch (`held`), and again at
/// the next one if that failed.
fn commit<'c>(
    conn: &'c Connection,
    held: &mut Option<Held<'c>>,
    batch: &[Append],
) -> Result<(), StorageError> {
    if batch.iter().any(|append| append.epoch.is_some()) {
        return Err(StorageError::NeedsPostgres);
    }
    in_transaction(conn, held, |statements| write(conn, statements, batch))
}

/// The statements of [`commit`]'s transaction.
fn write(tx: &Connection, held: &mut Held<'_>, batch: &[Append]) -> Result<(), StorageError> {
    let mut active: HashMap<&str, bool> = HashMap::with_capacity(batch.len());
    {
        for append in batch {
            insert_events(&mut held.insert, &append.table, &append.events)?;
            if let Some(flag) = append.active {
                active.insert(&append.table, flag);
            }
        }
        // Most batches end no game: the statement is looked up only for one
        // that does.
        let mut games = batch.iter().flat_map(|append| &append.games).peekable();
        if games.peek().is_some() {
            let mut insert_game = tx.prepare_cached(INSERT_GAME)?;
            for game in games {
                let inserted = insert_game.execute(params![
                    game.table_id,
                    game.game,
                    game.board,
                    game.version,
                    game.host_seat,
                    game.guest_seat,
                    game.host_side,
                    game.winner,
                    game.reason,
                    game.plies,
                    game.started_at,
                    game.ended_at,
                    game.clock.initial_ms,
                    game.clock.increment_ms,
                    game.clock.days,
                    game.format,
                    game.series_games,
                    game.record,
                    game.host_player,
                    game.guest_player,
                    game.rated,
                ])?;
                if inserted == 1 {
                    settle_sqlite(tx, game)?;
                }
            }
        }
        for (table, active) in active {
            held.activate.execute(params![i64::from(active), table])?;
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "sqlite_writer_tests.rs"]
mod tests;
