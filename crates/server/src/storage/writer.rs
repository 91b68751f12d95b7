//! The event writers' queue: appends of every table gathered into one
//! transaction a batch, PostgreSQL's writer, and SQLite's checkpoints
//! (its writer thread is `sqlite_writer`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use sqlx::{PgPool, SqlitePool};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use crate::stats::ActionStage;

use super::events::StoredEvent;
use super::games::{bind_game, GameColumns, INSERT_GAME};
use super::settle::settle_postgres;
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
    /// Take no more appends; commit those queued, then end.
    Stop,
}

/// Makes a batch of `job` and the appends queued behind it (up to
/// [`MAX_BATCH`]), and records their time in the queue; a stop closes the
/// queue. Returns when the batch starts, or `None` when it is empty.
pub(super) fn gather(
    job: Job,
    queue: &mut mpsc::Receiver<Job>,
    batch: &mut Vec<Append>,
) -> Option<std::time::Instant> {
    let mut next = Some(job);
    while let Some(job) = next {
        match job {
            Job::Append(append) => batch.push(append),
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

/// The PostgreSQL writer: commits queued appends in batches, in arrival
/// order. If a batch fails, its appends are retried one by one so that
/// each gets its own answer. (SQLite has its own, [`sqlite_writer`].)
pub(super) async fn write_batches(pool: PgPool, mut queue: mpsc::Receiver<Job>) {
    let mut batch = Vec::with_capacity(MAX_BATCH);
    while let Some(job) = queue.recv().await {
        let Some(started) = gather(job, &mut queue, &mut batch) else {
            continue;
        };
        match append(&pool, &batch).await {
            Ok(()) => {
                let ended = std::time::Instant::now();
                committed(&batch, started, ended);
                for append in batch.drain(..) {
                    let _ = append.done.send(Ok(ended));
                }
            }
            Err(e) if batch.len() == 1 => {
                if let Some(append) = batch.pop() {
                    let _ = append.done.send(Err(e));
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, events = batch.len(), "a batch failed; retrying one by one");
                for one in batch.drain(..) {
                    let result = append(&pool, std::slice::from_ref(&one))
                        .await
                        .map(|()| std::time::Instant::now());
                    let _ = one.done.send(result);
                }
            }
        }
    }
}

/// How often the WAL is checkpointed into the database file.
pub(super) const CHECKPOINT_EVERY: Duration = Duration::from_secs(1);

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

/// Stores `batch` in one transaction on PostgreSQL.
pub(super) async fn append(pool: &PgPool, batch: &[Append]) -> Result<(), StorageError> {
    // Table rows are locked in one order (by id), as renewals lock
    // them: no deadlock between the two. The sort is stable, so each
    // table's events keep their order.
    let mut ordered: Vec<&Append> = batch.iter().collect();
    ordered.sort_by(|a, b| a.table.cmp(&b.table));
    if ordered.iter().all(|append| append.epoch.is_none()) {
        return append_unowned(pool, &ordered).await;
    }
    let mut tx = pool.begin().await?;
    for append in ordered {
        // The epoch the events are stored with: the owner's, once its
        // lease is checked, or 0 for a table held without one.
        let epoch = match append.epoch {
            Some(epoch) => {
                // The row lock taken here orders this append against a
                // takeover, which raises the epoch under the same lock.
                let epoch = i64::try_from(epoch).map_err(|_| StorageError::Fenced)?;
                let owned = sqlx::query(
                    "UPDATE tables SET active = COALESCE($1, active) WHERE id = $2 AND epoch = $3",
                )
                .bind(append.active.map(i64::from))
                .bind(&append.table)
                .bind(epoch)
                .execute(&mut *tx)
                .await?
                .rows_affected();
                if owned != 1 {
                    return Err(StorageError::Fenced);
                }
                epoch
            }
            None => {
                if let Some(active) = append.active {
                    sqlx::query("UPDATE tables SET active = $1 WHERE id = $2 AND active <> $1")
                        .bind(i64::from(active))
                        .bind(&append.table)
                        .execute(&mut *tx)
                        .await?;
                }
                0
            }
        };
        for event in &append.events {
            sqlx::query(
                "INSERT INTO events (table_id, version, kind, side, action, player, \
                 client_id, created_at, epoch, board) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
            )
            .bind(&append.table)
            .bind(version_of(&append.table, event)?)
            .bind(event.kind)
            .bind(event.side)
            .bind(event.action.as_deref())
            .bind(event.player)
            .bind(event.client_id.as_deref())
            .bind(event.at)
            .bind(epoch)
            .bind(event.board)
            .execute(&mut *tx)
            .await?;
        }
        for game in &append.games {
            let inserted = bind_game(sqlx::query(INSERT_GAME), game)
                .execute(&mut *tx)
                .await?;
            if inserted.rows_affected() == 1 {
                settle_postgres(&mut tx, game).await?;
            }
        }
    }
    tx.commit().await?;
    Ok(())
}

/// Stores appends made without a lease (one node) in one transaction
/// of a few statements, whatever their number: the events in
/// multi-row inserts, then each table's `active` flag as its last
/// event left it, in one update for each value. Statement by
/// statement, each of them a round trip to the database's thread, the
/// writer spent most of its time on the trips.
pub(super) async fn append_unowned(pool: &PgPool, ordered: &[&Append]) -> Result<(), StorageError> {
    let rows = ordered
        .iter()
        .flat_map(|append| {
            append
                .events
                .iter()
                .map(move |event| (append.table.as_str(), event))
        })
        .map(|(table, event)| Ok((table, event, version_of(table, event)?)))
        .collect::<Result<Vec<(&str, &StoredEvent, i64)>, StorageError>>()?;
    // Sorted by table, so a table's last append that sets the flag is
    // the last of its run that does.
    let mut active = Vec::new();
    let mut inactive = Vec::new();
    let setting: Vec<(&str, bool)> = ordered
        .iter()
        .filter_map(|append| Some((append.table.as_str(), append.active?)))
        .collect();
    for (i, &(table, flag)) in setting.iter().enumerate() {
        let last_of_table = setting.get(i + 1).is_none_or(|next| next.0 != table);
        if last_of_table {
            if flag {
                active.push(table);
            } else {
                inactive.push(table);
            }
        }
    }
    let mut tx = pool.begin().await?;
    for rows in rows.chunks(ROWS_PER_INSERT) {
        let mut insert = sqlx::QueryBuilder::new(
            "INSERT INTO events (table_id, version, kind, side, action, player, \
                     client_id, created_at, board) ",
        );
        insert.push_values(rows, |mut row, &(table, event, version)| {
            row.push_bind(table)
                .push_bind(version)
                .push_bind(event.kind)
                .push_bind(event.side)
                .push_bind(event.action.as_deref())
                .push_bind(event.player)
                .push_bind(event.client_id.as_deref())
                .push_bind(event.at)
                .push_bind(event.board);
        });
        insert.build().execute(&mut *tx).await?;
    }
    for game in ordered.iter().flat_map(|append| &append.games) {
        let inserted = bind_game(sqlx::query(INSERT_GAME), game)
            .execute(&mut *tx)
            .await?;
        if inserted.rows_affected() == 1 {
            settle_postgres(&mut tx, game).await?;
        }
    }
    for (flag, tables) in [(1_i64, &active), (0_i64, &inactive)] {
        for tables in tables.chunks(ROWS_PER_INSERT) {
            let mut update = sqlx::QueryBuilder::new("UPDATE tables SET active = ");
            update.push_bind(flag);
            update.push(" WHERE active <> ");
            update.push_bind(flag);
            update.push(" AND id IN (");
            let mut ids = update.separated(", ");
            for table in tables {
                ids.push_bind(*table);
            }
            update.push(")");
            update.build().execute(&mut *tx).await?;
        }
    }
    tx.commit().await?;
    Ok(())
}

/// Rows in one multi-row insert (9 parameters each: far under SQLite's
/// and PostgreSQL's limits on parameters in a statement).
pub(super) const ROWS_PER_INSERT: usize = 256;

/// An event's version as the `version` column holds it.
pub(super) fn version_of(table: &str, event: &StoredEvent) -> Result<i64, StorageError> {
    i64::try_from(event.version).map_err(|_| StorageError::Corrupt {
        table: table.to_owned(),
        what: "version overflow".into(),
    })
}
