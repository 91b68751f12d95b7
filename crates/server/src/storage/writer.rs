//! The event writers' queue: appends of every table gathered into one
//! transaction a batch (committed by `sqlite_writer` or
//! `postgres_writer`), and SQLite's checkpoints.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use sqlx::SqlitePool;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use crate::stats::ActionStage;

use super::events::StoredEvent;
use super::games::GameColumns;
use super::StorageError;

/// Events the writer commits in one transaction at most.
pub(super) const MAX_BATCH: usize = 512;

/// Events of one table waiting for the writer, committed together.
pub(super) struct Append {
    pub(super) table: String,
    /// In version order; never empty.
    pub(super) events: Vec<StoredEvent>,
    /// The games these events ended, stored with them.
    pub(super) games: Vec<GameColumns>,
    /// The table's `active` flag, or `None` to leave it.
    pub(super) active: Option<bool>,
    /// The owner's epoch, when the table is owned under a lease: the
    /// append is refused unless it is still the table's epoch.
    pub(super) epoch: Option<u64>,
    /// When it was queued, for the writer's queue time.
    pub(super) queued: std::time::Instant,
    pub(super) done: Done,
}

impl Append {
    /// Whether it only adds events: no game ends, no flag changes, no
    /// lease to check.
    pub(super) fn events_only(&self) -> bool {
        self.games.is_empty() && self.active.is_none() && self.epoch.is_none()
    }
}

/// Where an append's answer goes: when its commit ended, or why it
/// failed.
pub(super) type Done = oneshot::Sender<Result<std::time::Instant, StorageError>>;

/// Records the commit of `batch`, which took from `started` to `ended`,
/// in each of its actions' stages.
pub(super) fn committed(batch: &[Append], started: std::time::Instant, ended: std::time::Instant) {
    let took = ended - started;
    crate::stats::committed(batch.len(), took);
    crate::stats::stages(ActionStage::Commit, took, batch.len());
}

/// What the writer's queue carries.
pub(super) enum Job {
    Append(Append),
    /// Answer once every append queued before, of the table named or of
    /// every table, is in the database itself, where other connections
    /// read (SQLite's writer keeps acknowledged events in its event log
    /// for a while).
    Fold(Option<String>, Folded),
    /// Take no more appends; commit those queued, then end.
    Stop,
}

/// Where the answer to a [`Job::Fold`] goes.
pub(super) type Folded = oneshot::Sender<Result<(), StorageError>>;

/// Makes a batch of `job` and the appends queued behind it (up to
/// [`MAX_BATCH`]), and records their time in the queue; a stop closes the
/// queue, and folds wait in `folds`. Returns when the batch starts, or
/// `None` when it is empty.
pub(super) fn gather(
    job: Job,
    queue: &mut mpsc::Receiver<Job>,
    batch: &mut Vec<Append>,
    folds: &mut Vec<(Option<String>, Folded)>,
) -> Option<std::time::Instant> {
    let mut next = Some(job);
    while let Some(job) = next {
        match job {
            Job::Append(append) => batch.push(append),
            Job::Fold(table, folded) => folds.push((table, folded)),
            Job::Stop => queue.close(),
        }
        if batch.len() >= MAX_BATCH {
            break;
        }
        next = queue.try_recv().ok();
    }
    let started = std::time::Instant::now();
    for append in batch.iter() {
        crate::stats::stage(ActionStage::StorageQueue, started - append.queued);
    }
    (!batch.is_empty()).then_some(started)
}

/// How often the WAL is checkpointed into the database file. At 5,000
/// actions a second over 40 s, with the event log folded into the
/// database every thirteen seconds or so, the appends' longest waits for
/// storage (p99.9 of `store`) were half as long at four times a second
/// as at once a second, in each of six seeds, for no more CPU an action
/// (docs/performance.md, the twenty-third step).
pub(super) const CHECKPOINT_EVERY: Duration = Duration::from_millis(250);

/// Copies the SQLite WAL into the database file every
/// [`CHECKPOINT_EVERY`], in PASSIVE mode: it takes no lock that a commit
/// waits for, so the writer never pays for the bulk of a checkpoint in its
/// commit (as it did with SQLite's automatic checkpoints, a p99 of tens of
/// milliseconds under load). Under steady writes the commits made while
/// it copies are always left over, and the WAL could only grow (500 MB in
/// 20 s at 5,000 actions a second, with slower lookups in its index the
/// longer it got); so after each checkpoint it raises `copied`, and the
/// writer copies the few frames left over itself, between two batches,
/// and then starts the WAL over from its beginning.
pub(super) async fn checkpoint_wal(
    pool: SqlitePool,
    copied: Arc<AtomicBool>,
    stop: CancellationToken,
) {
    let mut tick = tokio::time::interval(CHECKPOINT_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            () = stop.cancelled() => break,
            _ = tick.tick() => {}
        }
        match copy_wal(&pool).await {
            Ok(()) => copied.store(true, Ordering::Release),
            Err(e) => {
                tracing::warn!(error = %e, "checkpointing the WAL failed; the next one tries again");
            }
        }
    }
}

/// Frames a checkpoint pass may leave behind for the writer to copy.
pub(super) const WAL_LEFT_FOR_WRITER: i64 = 256;

/// Copies the WAL into the database file in PASSIVE passes: the first
/// copies the bulk, and each further one what was committed during the
/// one before, until a pass leaves so few frames that the writer's own
/// pass, inside its commit path, is short.
pub(super) async fn copy_wal(pool: &SqlitePool) -> Result<(), StorageError> {
    let mut before = None;
    for _ in 0..4 {
        // busy, frames in the WAL, frames copied.
        let (_, log, _): (i64, i64, i64) = sqlx::query_as("PRAGMA wal_checkpoint(PASSIVE)")
            .fetch_one(pool)
            .await?;
        if before.is_some_and(|before| log - before <= WAL_LEFT_FOR_WRITER) {
            break;
        }
        before = Some(log);
    }
    Ok(())
}

/// An event's version as the `version` column holds it.
pub(super) fn version_of(table: &str, event: &StoredEvent) -> Result<i64, StorageError> {
    i64::try_from(event.version).map_err(|_| StorageError::Corrupt {
        table: table.to_owned(),
        what: "version overflow".into(),
    })
}
