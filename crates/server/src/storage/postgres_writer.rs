//! The PostgreSQL writer: the queued appends of every table committed in
//! one transaction a batch, in a few statements whatever its size, on a
//! connection the writer keeps.

use std::collections::{HashMap, HashSet};

use sqlx::pool::PoolConnection;
use sqlx::postgres::{PgConnectOptions, PgDatabaseError, PgSeverity};
use sqlx::{Connection as _, PgConnection, PgPool, Postgres};
use tokio::sync::mpsc;

use super::games::{bind_game, INSERT_GAME};
use super::settle::settle_postgres;
use super::writer::{committed, gather, version_of, Append, Job, MAX_BATCH};
use super::StorageError;

/// The PostgreSQL writer: commits queued appends in batches, in arrival
/// order, on a connection from `pool`, its own ([`connect_options`]).
/// (SQLite has its own writer, `sqlite_writer`.)
pub(super) async fn write_batches(pool: PgPool, mut queue: mpsc::Receiver<Job>) {
    let mut batch = Vec::with_capacity(MAX_BATCH);
    let mut folds = Vec::new();
    let mut conn = Kept { pool, conn: None };
    while let Some(job) = queue.recv().await {
        if let Some(started) = gather(job, &mut queue, &mut batch, &mut folds) {
            commit(&mut conn, &mut batch, started).await;
        }
        // Every append is in the database once answered: a fold has only
        // to wait for the batch queued before it.
        for (_, folded) in folds.drain(..) {
            let _ = folded.send(Ok(()));
        }
    }
    let Kept { pool, conn } = conn;
    drop(conn);
    pool.close().await;
}

/// The settings of the writer's connections, which come from a pool of
/// their own. The writer runs a few statements thousands of times a
/// second, each reaching the rows of `tables` by key alone, from arrays
/// of a few elements; PostgreSQL would plan each run afresh (a plan kept
/// for any arrays is costed for ten elements, and loses to one made for
/// two or three), and planning costs it more than running them.
/// - `plan_cache_mode`: each statement is planned once on a connection,
///   and that plan is kept.
/// - `enable_seqscan`: the kept plan reaches the rows through the key,
///   whatever the table's statistics when it was made. (Made before a
///   young table's first `ANALYZE`, it would scan the whole table, and go
///   on doing so as the table grows.)
pub(super) fn connect_options(options: PgConnectOptions) -> PgConnectOptions {
    options.options([
        ("plan_cache_mode", "force_generic_plan"),
        ("enable_seqscan", "off"),
    ])
}

/// The writer's connection, kept from one batch to the next: the pool
/// checks a connection with a round trip of its own before it hands it
/// out, which each batch would pay besides its own. Once lost
/// ([`connection_lost`]) it goes back to the pool, which checks it before
/// it is used again, and the next try takes one afresh.
struct Kept {
    pool: PgPool,
    conn: Option<PoolConnection<Postgres>>,
}

impl Kept {
    /// Whether a connection is kept from an earlier batch: one the
    /// database may have closed since.
    fn is_kept(&self) -> bool {
        self.conn.is_some()
    }

    /// Runs `append` for `batch` on the kept connection.
    async fn append(&mut self, batch: &[Append]) -> Result<(), StorageError> {
        let conn = match &mut self.conn {
            Some(conn) => conn,
            None => self.conn.insert(self.pool.acquire().await?),
        };
        let appended = append(conn, batch).await;
        if appended.as_ref().is_err_and(connection_lost) {
            self.conn = None;
        }
        appended
    }
}

/// Whether `error` says the connection is gone (closed, broken, or ended
/// by the database: SQLSTATE classes 08 and 57, or any error the database
/// sends as fatal, such as the end of a transaction left idle too long)
/// rather than that the batch was refused.
fn connection_lost(error: &StorageError) -> bool {
    match error {
        StorageError::Database(
            sqlx::Error::Io(_) | sqlx::Error::Protocol(_) | sqlx::Error::Tls(_),
        ) => true,
        StorageError::Database(sqlx::Error::Database(e)) => {
            e.code()
                .is_some_and(|code| code.starts_with("08") || code.starts_with("57"))
                || e.try_downcast_ref::<PgDatabaseError>()
                    .is_some_and(|e| matches!(e.severity(), PgSeverity::Fatal | PgSeverity::Panic))
        }
        _ => false,
    }
}

/// Commits `batch` and answers each of its appends. If it fails, its
/// appends are retried one by one so that each gets its own answer. A
/// batch of one append is tried again too when the connection kept from
/// an earlier batch turned out lost: the next try takes one afresh.
async fn commit(conn: &mut Kept, batch: &mut Vec<Append>, started: std::time::Instant) {
    let kept = conn.is_kept();
    match conn.append(batch).await {
        Ok(()) => {
            let ended = std::time::Instant::now();
            committed(batch, started, ended);
            for append in batch.drain(..) {
                let _ = append.done.send(Ok(ended));
            }
        }
        Err(e) if batch.len() == 1 && !(kept && connection_lost(&e)) => {
            if let Some(append) = batch.pop() {
                let _ = append.done.send(Err(e));
            }
        }
        Err(e) => {
            tracing::warn!(error = %e, events = batch.len(), "a batch failed; retrying one by one");
            for one in batch.drain(..) {
                let result = conn
                    .append(std::slice::from_ref(&one))
                    .await
                    .map(|()| std::time::Instant::now());
                let _ = one.done.send(result);
            }
        }
    }
}

/// Stores `batch` in one transaction on PostgreSQL, in a few statements
/// whatever its size: the leases' check, the `active` flags, every event
/// in one insert, then the rows of the games they ended. (Statement by
/// statement, each a round trip to the database, the writer spent most
/// of its time on the trips; and under leases, with three nodes sharing
/// one database, a commit's median rose to 50 ms at 5,000 actions a
/// second.)
///
/// Most batches hold events alone: no flag, no game. Their insert is one
/// statement, which PostgreSQL runs as a transaction of its own: one
/// round trip, where `BEGIN` and `COMMIT` made three (and the leases'
/// check a fourth, which the statement takes in).
async fn append(conn: &mut PgConnection, batch: &[Append]) -> Result<(), StorageError> {
    let columns = Columns::of(batch)?;
    let games = batch.iter().any(|append| !append.games.is_empty());
    // Under leases, a batch with no event would insert nothing whatever
    // the check found: its check takes the transaction's way.
    if columns.flags.is_empty()
        && !games
        && (columns.leases.is_empty() || !columns.table.is_empty())
    {
        return insert_alone(conn, &columns).await;
    }
    let mut tx = conn.begin().await?;
    match in_transaction(&mut tx, &columns, batch).await {
        Ok(()) => tx.commit().await?,
        // Dropped, a transaction only queues its `ROLLBACK` to go with the
        // connection's next statement, and the writer keeps its connection:
        // the rows the lease check locked would stay locked until the next
        // batch, and every node's takeover and renewal of those tables
        // would wait for it meanwhile.
        Err(e) => {
            tx.rollback().await?;
            return Err(e);
        }
    }
    Ok(())
}

/// Stores a batch of events alone in one statement, which PostgreSQL
/// commits as a transaction of its own; under leases, only if every
/// lease's epoch is still its table's (else [`StorageError::Fenced`]).
async fn insert_alone(conn: &mut PgConnection, columns: &Columns<'_>) -> Result<(), StorageError> {
    if columns.leases.is_empty() {
        insert_events(INSERT_EVENTS, columns).execute(conn).await?;
        return Ok(());
    }
    let (tables, epochs): (Vec<&str>, Vec<i64>) = columns.leases.iter().copied().unzip();
    let inserted = insert_events(INSERT_EVENTS_UNDER_LEASES, columns)
        .bind(tables)
        .bind(epochs)
        .execute(conn)
        .await?;
    // All or nothing: the statement's condition is the batch's.
    if inserted.rows_affected() == columns.table.len() as u64 {
        Ok(())
    } else {
        Err(StorageError::Fenced)
    }
}

/// The statements of a batch that needs a transaction of its own: the
/// leases' check, the `active` flags, the events, the rows of the games.
async fn in_transaction(
    tx: &mut PgConnection,
    columns: &Columns<'_>,
    batch: &[Append],
) -> Result<(), StorageError> {
    if !columns.leases.is_empty() {
        check_leases(&mut *tx, &columns.leases).await?;
    }
    if !columns.flags.is_empty() {
        let (tables, flags): (Vec<&str>, Vec<i64>) = columns.flags.iter().copied().unzip();
        sqlx::query(SET_FLAGS)
            .bind(tables)
            .bind(flags)
            .execute(&mut *tx)
            .await?;
    }
    insert_events(INSERT_EVENTS, columns)
        .execute(&mut *tx)
        .await?;
    for game in batch.iter().flat_map(|append| &append.games) {
        let inserted = bind_game(sqlx::query(INSERT_GAME), game)
            .execute(&mut *tx)
            .await?;
        if inserted.rows_affected() == 1 {
            settle_postgres(&mut *tx, game).await?;
        }
    }
    Ok(())
}

/// Sets the tables' `active` flags, bound as two arrays.
const SET_FLAGS: &str = "UPDATE tables AS t SET active = v.active \
     FROM UNNEST($1::text[], $2::bigint[]) AS v (id, active) \
     WHERE t.id = v.id AND t.active <> v.active";

/// The insert of every event of a batch, its columns bound as ten arrays.
macro_rules! insert_events {
    () => {
        "INSERT INTO events (table_id, version, kind, side, action, player, client_id, \
         created_at, epoch, board) \
         SELECT * FROM UNNEST($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], \
         $6::text[], $7::text[], $8::bigint[], $9::bigint[], $10::bigint[])"
    };
}

/// The leases' check, the tables and their owner's epochs bound as the
/// two arrays `$tables` and `$epochs`: locks the rows of the tables, one
/// by one through their key, in id order (as renewals lock them: no
/// deadlock between the two), and counts the leases whose epoch is still
/// their table's as the locks leave it (a takeover that committed first
/// included). The locks order the batch against a takeover, which raises
/// the epoch under the same lock.
///
/// Each row is reached from the lease's id (`LATERAL`), so the plan is
/// the same loop of lookups by key however many leases a batch holds: the
/// plan the writer's connection keeps ([`connect_options`]).
macro_rules! current_leases {
    ($tables:literal, $epochs:literal) => {
        concat!(
            "SELECT count(*) FROM (SELECT * FROM UNNEST(",
            $tables,
            "::text[], ",
            $epochs,
            "::bigint[]) AS l (id, epoch) ORDER BY id) AS lease, \
             LATERAL (SELECT epoch FROM tables WHERE tables.id = lease.id FOR UPDATE) AS held \
             WHERE held.epoch = lease.epoch"
        )
    };
}

/// The insert of every event of a batch, in one statement.
const INSERT_EVENTS: &str = insert_events!();

/// [`INSERT_EVENTS`] under leases, the tables and their owner's epochs
/// bound as two more arrays: the check of [`CURRENT_LEASES`] in the same
/// statement, which inserts nothing unless every lease is current.
const INSERT_EVENTS_UNDER_LEASES: &str = concat!(
    insert_events!(),
    " WHERE (",
    current_leases!("$11", "$12"),
    ") = cardinality($11::text[])"
);

/// The leases' check alone, for a batch that needs a transaction: the
/// number of leases still current.
const CURRENT_LEASES: &str = current_leases!("$1", "$2");

/// `statement`, an insert of every event of a batch, with the batch's
/// columns bound.
fn insert_events<'q>(
    statement: &'static str,
    columns: &'q Columns<'_>,
) -> sqlx::query::Query<'q, Postgres, sqlx::postgres::PgArguments> {
    sqlx::query(statement)
        .bind(&columns.table)
        .bind(&columns.version)
        .bind(&columns.kind)
        .bind(&columns.side)
        .bind(&columns.action)
        .bind(&columns.player)
        .bind(&columns.client_id)
        .bind(&columns.at)
        .bind(&columns.epoch)
        .bind(&columns.board)
}

/// Locks the rows of the tables appended to under a lease and checks
/// that each lease is still current ([`CURRENT_LEASES`]): an append from
/// an owner whose epoch is over is refused ([`StorageError::Fenced`]).
async fn check_leases(
    tx: &mut sqlx::PgConnection,
    leases: &[(&str, i64)],
) -> Result<(), StorageError> {
    let (tables, epochs): (Vec<&str>, Vec<i64>) = leases.iter().copied().unzip();
    let current: i64 = sqlx::query_scalar(CURRENT_LEASES)
        .bind(tables)
        .bind(epochs)
        .fetch_one(&mut *tx)
        .await?;
    if usize::try_from(current).is_ok_and(|current| current == leases.len()) {
        Ok(())
    } else {
        Err(StorageError::Fenced)
    }
}

/// A batch as the statements of [`append`] bind it: each event column as
/// one array, and per table its lease and its flag.
struct Columns<'a> {
    table: Vec<&'a str>,
    version: Vec<i64>,
    kind: Vec<&'a str>,
    side: Vec<Option<&'a str>>,
    action: Vec<Option<&'a str>>,
    player: Vec<Option<&'a str>>,
    client_id: Vec<Option<&'a str>>,
    at: Vec<i64>,
    /// The owner's epoch, or 0 for a table held without a lease.
    epoch: Vec<i64>,
    board: Vec<i64>,
    /// Each (table, epoch) appended under a lease, once.
    leases: Vec<(&'a str, i64)>,
    /// Each table's `active` flag as its last append that sets it leaves
    /// it.
    flags: Vec<(&'a str, i64)>,
}

impl<'a> Columns<'a> {
    fn of(batch: &'a [Append]) -> Result<Self, StorageError> {
        let events = batch.iter().map(|append| append.events.len()).sum();
        let mut columns = Columns {
            table: Vec::with_capacity(events),
            version: Vec::with_capacity(events),
            kind: Vec::with_capacity(events),
            side: Vec::with_capacity(events),
            action: Vec::with_capacity(events),
            player: Vec::with_capacity(events),
            client_id: Vec::with_capacity(events),
            at: Vec::with_capacity(events),
            epoch: Vec::with_capacity(events),
            board: Vec::with_capacity(events),
            leases: Vec::new(),
            flags: Vec::new(),
        };
        let mut leased = HashSet::new();
        let mut flags: HashMap<&str, usize> = HashMap::new();
        for append in batch {
            let table = append.table.as_str();
            let epoch = match append.epoch {
                Some(epoch) => {
                    let epoch = i64::try_from(epoch).map_err(|_| StorageError::Fenced)?;
                    if leased.insert((table, epoch)) {
                        columns.leases.push((table, epoch));
                    }
                    epoch
                }
                None => 0,
            };
            if let Some(active) = append.active {
                let flag = i64::from(active);
                match flags.get(table) {
                    Some(&at) => columns.flags[at].1 = flag,
                    None => {
                        flags.insert(table, columns.flags.len());
                        columns.flags.push((table, flag));
                    }
                }
            }
            for event in &append.events {
                columns.table.push(table);
                columns.version.push(version_of(table, event)?);
                columns.kind.push(event.kind);
                columns.side.push(event.side);
                columns.action.push(event.action.as_deref());
                columns.player.push(event.player);
                columns.client_id.push(event.client_id.as_deref());
                columns.at.push(event.at);
                columns.epoch.push(epoch);
                columns.board.push(event.board);
            }
        }
        Ok(columns)
    }
}

#[cfg(test)]
#[path = "postgres_writer_tests.rs"]
mod tests;
