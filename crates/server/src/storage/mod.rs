//! All the SQL: tables and their event logs, in SQLite or PostgreSQL.
//!
//! A table is one row of options and token hashes plus an append-only log
//! of events; its state is the replay of that log through the rules. The
//! rest of the server sees only the typed API of [`Storage`].

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{PgPool, Row, SqlitePool};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::stats::ActionStage;
use crate::token::TokenHash;
use baghchal_table::finished::FinishedGame;
use baghchal_table::names::{repetition_name, side_name};
use baghchal_table::options::TableOptions;
use baghchal_table::play::Logged;

mod event_log;
mod sqlite_statements;
mod sqlite_writer;

/// The database failed, or holds something this server cannot read.
#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    /// The database driver failed.
    #[error("database: {0}")]
    Database(#[from] sqlx::Error),
    /// SQLite failed under the writer's own connection.
    #[error("database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The URL names an SQLite database in memory, which the writer's own
    /// connection cannot share and a restart would lose.
    #[error("an SQLite database in memory is not supported: name a file (sqlite://FILE?mode=rwc)")]
    InMemory,
    /// A migration failed.
    #[error("migration: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// A stored row is not what this server writes.
    #[error("corrupt row in table {table}: {what}")]
    Corrupt {
        /// The table id.
        table: String,
        /// What is wrong.
        what: String,
    },
    /// The storage is shutting down.
    #[error("the storage is closed")]
    Closed,
    /// The URL names neither SQLite nor PostgreSQL.
    #[error("unsupported database URL (use sqlite:// or postgres://)")]
    UnsupportedUrl,
    /// The append or claim came from an owner whose epoch is over: another
    /// node has taken the table.
    #[error("refused: the table has a newer owner")]
    Fenced,
    /// Ownership needs PostgreSQL.
    #[error("table ownership needs PostgreSQL")]
    NeedsPostgres,
    /// The SQLite writer's event log failed.
    #[error("event log: {0}")]
    Log(#[from] std::io::Error),
    /// Events acknowledged from the event log could not be stored in the
    /// database yet; they stay in the log.
    #[error("storing the event log in the database failed: {0}")]
    Fold(String),
}

#[derive(Clone, Debug)]
enum Pool {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

/// A transaction that will write after it reads. SQLite must take the
/// write lock at its start (`BEGIN IMMEDIATE`): a deferred transaction
/// that read first fails at once, without waiting, when another
/// connection wrote in between.
trait BeginWrite {
    type Db: sqlx::Database;
    async fn begin_write(&self) -> Result<sqlx::Transaction<'static, Self::Db>, sqlx::Error>;
}

impl BeginWrite for SqlitePool {
    type Db = sqlx::Sqlite;
    async fn begin_write(&self) -> Result<sqlx::Transaction<'static, sqlx::Sqlite>, sqlx::Error> {
        self.begin_with("BEGIN IMMEDIATE").await
    }
}

impl BeginWrite for PgPool {
    type Db = sqlx::Postgres;
    async fn begin_write(&self) -> Result<sqlx::Transaction<'static, sqlx::Postgres>, sqlx::Error> {
        self.begin().await
    }
}

/// Whether a SQLite connection handed back to the pool holds no
/// transaction, and may be used again. sqlx 0.8's `begin_with` is not
/// cancel-safe: a request dropped (its client gone) after `BEGIN IMMEDIATE`
/// ran but before its transaction was made hands the connection back
/// inside the transaction, holding the write lock, and every other write
/// would wait out the busy timeout and fail for as long as the server
/// runs. Such a connection is closed instead, which rolls it back.
fn outside_transaction(conn: &sqlx::SqliteConnection) -> bool {
    use sqlx::TransactionManager;
    sqlx::sqlite::SqliteTransactionManager::get_transaction_depth(conn) == 0
}

/// Runs the same statement on whichever pool this is: the SQL is written
/// once, in the dialect both databases share (`$1` placeholders, in order
/// of first appearance).
macro_rules! on_pool {
    ($storage:expr, $pool:ident => $body:expr) => {
        match $storage {
            Pool::Sqlite($pool) => $body,
            Pool::Postgres($pool) => $body,
        }
    };
}

mod blocks;
mod events;
mod expiry;
mod fold;
mod games;
mod lobby;
mod ownership;
mod players;
mod postgres_writer;
mod profiles;
mod puzzles;
mod ratings;
mod rows;
mod settle;
mod writer;

pub use blocks::{BlockedRow, Blocking, MAX_BLOCKS};
use events::{decode_event, EventRow, StoredEvent};
use games::GameColumns;
pub use games::StoredGame;
pub use lobby::{ChallengeRow, Consumes, LiveTable, Pairing, PoolEntry, MAX_CHALLENGES_PER_PLAYER};
pub use players::{Credentials, Naming, PlayerRow, Seat, MAX_PLAYING};
use postgres_writer::write_batches;
pub use profiles::{
    GamesCursor, LeaderRow, PlayedGame, ProfileRow, RatedPoint, RecordBySide, SideCounts,
};
pub use puzzles::{FinishedTry, PuzzleSeed, PuzzleTry, StoredPuzzle, StoredPuzzleRating};
pub use ratings::StoredRating;
pub use rows::ClockColumns;
use rows::{RawTable, TABLE_COLUMNS};
use writer::{checkpoint_wal, Append, Job, MAX_BATCH};

/// Whether an SQLite `url` names a database in memory: `sqlite::memory:`,
/// or any name with `mode=memory`.
fn is_in_memory(url: &str) -> bool {
    let (database, params) = url.split_once('?').unwrap_or((url, ""));
    let database = database
        .strip_prefix("sqlite://")
        .or_else(|| database.strip_prefix("sqlite:"))
        .unwrap_or(database);
    database == ":memory:" || params.split('&').any(|param| param == "mode=memory")
}

/// The database. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Storage {
    pool: Pool,
    /// The queue of the writer, which commits events in batches.
    writer: mpsc::Sender<Job>,
    /// The writer, and SQLite's checkpoints.
    tasks: TaskTracker,
    /// Cancelled to stop the checkpoints.
    stop: CancellationToken,
}

/// Who owns a table, as the database says.
#[derive(Clone, Debug, PartialEq)]
pub struct Ownership {
    /// The owner node, if any.
    pub owner: Option<String>,
    /// How long its lease still runs; zero once it has run out.
    pub remaining: Duration,
}

/// A table's stored row.
#[derive(Clone, Debug)]
pub struct TableRow {
    /// The table id.
    pub id: String,
    /// Its options.
    pub options: TableOptions,
    /// The host's seat secret.
    pub host_secret: Option<TokenHash>,
    /// The guest's seat secret, once the opponent link was claimed.
    pub guest_secret: Option<TokenHash>,
    /// The opponent link's token.
    pub invite_token: Option<TokenHash>,
    /// The spectator link's token.
    pub watch_token: Option<TokenHash>,
    /// The players the host's and the guest's seats belong to.
    pub players: [Option<String>; 2],
    /// Whether the lobby made it: its players are seated by identity and
    /// anyone may watch.
    pub lobby: bool,
    /// Whether its games count for the players' ratings.
    pub rated: bool,
}

impl Storage {
    /// Connects to `url` (`sqlite://...` or `postgres://...`) and runs the
    /// migrations.
    pub async fn connect(url: &str) -> Result<Storage, StorageError> {
        let (writer, queue) = mpsc::channel(4 * MAX_BATCH);
        let tasks = TaskTracker::new();
        let stop = CancellationToken::new();
        let pool = if url.starts_with("sqlite:") {
            let options = SqliteConnectOptions::from_str(url)?
                .journal_mode(SqliteJournalMode::Wal)
                // A commit is on disk before it is acknowledged.
                .synchronous(SqliteSynchronous::Full)
                .foreign_keys(true)
                .busy_timeout(Duration::from_secs(10))
                // Checkpoints run from their own task (`checkpoint_wal`),
                // not inside whichever commit crosses the WAL's size.
                .pragma("wal_autocheckpoint", "0");
            if is_in_memory(url) {
                return Err(StorageError::InMemory);
            }
            let pool = SqlitePoolOptions::new()
                .max_connections(4)
                .after_release(|conn, _| {
                    Box::pin(std::future::ready(Ok(outside_transaction(conn))))
                })
                .connect_with(options.clone())
                .await?;
            sqlx::migrate!("../../migrations/sqlite").run(&pool).await?;
            let file = options.get_filename().to_owned();
            let (conn, log) = tokio::task::spawn_blocking(move || {
                let conn = sqlite_writer::open(&file)?;
                let log = sqlite_writer::recover(&conn, &file)?;
                Ok::<_, StorageError>((conn, log))
            })
            .await
            .map_err(|_| StorageError::Closed)??;
            let (answers, to_answer) = mpsc::unbounded_channel();
            let copied = Arc::default();
            tasks.spawn(sqlite_writer::answer(to_answer));
            tasks.spawn(checkpoint_wal(
                pool.clone(),
                Arc::clone(&copied),
                stop.clone(),
            ));
            tasks.spawn_blocking(move || sqlite_writer::run(conn, queue, answers, &copied, log));
            Pool::Sqlite(pool)
        } else if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            // A node paused (or cut off) inside a transaction would hold
            // its table's row lock, and with it every other node's
            // takeover, for as long as it stays paused: the database ends
            // such a transaction after a while, and the node's late commit
            // then fails like any other fenced write.
            let options = PgConnectOptions::from_str(url)?.options([(
                "idle_in_transaction_session_timeout",
                IDLE_IN_TRANSACTION_TIMEOUT,
            )]);
            let pool = PgPoolOptions::new()
                .max_connections(16)
                .acquire_timeout(Duration::from_secs(10))
                .connect_with(options.clone())
                .await?;
            sqlx::migrate!("../../migrations/postgres")
                .run(&pool)
                .await?;
            // The writer's connections have settings of their own.
            let writes = PgPoolOptions::new()
                .max_connections(2)
                .acquire_timeout(Duration::from_secs(10))
                .connect_lazy_with(postgres_writer::connect_options(options));
            tasks.spawn(write_batches(writes, queue));
            Pool::Postgres(pool)
        } else {
            return Err(StorageError::UnsupportedUrl);
        };
        tasks.close();
        Ok(Storage {
            pool,
            writer,
            tasks,
            stop,
        })
    }

    /// Whether the database answers.
    pub async fn ping(&self) -> Result<(), StorageError> {
        on_pool!(&self.pool, pool => {
            sqlx::query("SELECT 1").execute(pool).await?;
        });
        Ok(())
    }

    /// Stops the writer once it has committed what is queued, then closes
    /// the pool, waiting for connections to finish.
    pub async fn close(&self) {
        // Appends queued before the stop are committed; later ones fail.
        let _ = self.writer.send(Job::Stop).await;
        self.stop.cancel();
        self.tasks.wait().await;
        on_pool!(&self.pool, pool => pool.close().await)
    }

    /// Stores a new table.
    ///
    /// With an `owner` (a node and its lease; PostgreSQL only) the table is
    /// that node's from the start, in the same transaction, and its epoch
    /// is returned.
    pub async fn create_table(
        &self,
        row: &TableRow,
        owner: Option<(&str, Duration)>,
    ) -> Result<Option<u64>, StorageError> {
        if owner.is_some() {
            self.postgres()?;
        }
        on_pool!(&self.pool, pool => {
            let mut tx = pool.begin().await?;
            insert_table(&mut *tx, row).await?;
            let epoch = match owner {
                Some((node, lease)) => {
                    let epoch: i64 = sqlx::query_scalar(
                        "UPDATE tables SET owner = $1, epoch = epoch + 1, \
                         lease_until = now() + make_interval(secs => $2) \
                         WHERE id = $3 RETURNING epoch",
                    )
                    .bind(node)
                    .bind(lease.as_secs_f64())
                    .bind(&row.id)
                    .fetch_one(&mut *tx)
                    .await?;
                    u64::try_from(epoch).ok()
                }
                None => None,
            };
            tx.commit().await?;
            Ok(epoch)
        })
    }

    /// Gives the guest seat its secret (and to `player`, when the claim
    /// came with an identity), if the seat is still free; `false` when it
    /// was already claimed.
    /// Under a lease (`epoch`), a claim from a stale owner is refused.
    pub async fn claim_guest_seat(
        &self,
        table: &str,
        secret: &TokenHash,
        player: Option<&str>,
        epoch: Option<u64>,
    ) -> Result<bool, StorageError> {
        if let Some(epoch) = epoch {
            let Pool::Postgres(pool) = &self.pool else {
                return Err(StorageError::NeedsPostgres);
            };
            let epoch = i64::try_from(epoch).map_err(|_| StorageError::Fenced)?;
            let row: Option<(bool,)> = sqlx::query_as(
                "UPDATE tables SET guest_secret = COALESCE(guest_secret, $1), \
                 guest_player = CASE WHEN guest_secret IS NULL THEN $4 ELSE guest_player END \
                 WHERE id = $2 AND epoch = $3 RETURNING guest_secret = $1",
            )
            .bind(secret.as_str())
            .bind(table)
            .bind(epoch)
            .bind(player)
            .fetch_optional(pool)
            .await?;
            return match row {
                Some((claimed,)) => Ok(claimed),
                None => Err(StorageError::Fenced),
            };
        }
        let done = on_pool!(&self.pool, pool => {
            sqlx::query(
                "UPDATE tables SET guest_secret = $1, guest_player = $3 \
                 WHERE id = $2 AND guest_secret IS NULL",
            )
            .bind(secret.as_str())
            .bind(table)
            .bind(player)
            .execute(pool)
            .await?
            .rows_affected()
        });
        Ok(done == 1)
    }

    /// Appends one event at `event.version` and sets whether the table is
    /// active (`None` leaves the flag as it is). It is durable when this returns `Ok`. Appends from every
    /// table go through one writer that commits whatever has queued up in
    /// one transaction (group commit), so that a busy server pays one disk
    /// flush for many events.
    /// Under a lease (`epoch`), an append from a stale owner is refused
    /// with [`StorageError::Fenced`].
    pub async fn append_event(
        &self,
        table: &str,
        event: &Logged,
        active: Option<bool>,
        epoch: Option<u64>,
    ) -> Result<(), StorageError> {
        self.append_events(table, vec![event.clone()], &[], active, epoch)
            .await
    }

    /// Appends consecutive events of one table in one transaction, with
    /// the rows of the games they ended: all of them are durable when this
    /// returns `Ok`, or none is. A two-board match's rematch is one event
    /// on each board. `active` sets the table's flag; `None` leaves it.
    pub async fn append_events(
        &self,
        table: &str,
        events: Vec<Logged>,
        games: &[FinishedGame],
        active: Option<bool>,
        epoch: Option<u64>,
    ) -> Result<(), StorageError> {
        if events.is_empty() {
            return Ok(());
        }
        let (done, result) = oneshot::channel();
        let append = Append {
            table: table.to_owned(),
            events: events.into_iter().map(StoredEvent::encode).collect(),
            games: games
                .iter()
                .map(GameColumns::encode)
                .collect::<Result<_, _>>()?,
            active,
            epoch,
            queued: std::time::Instant::now(),
            done,
        };
        self.writer
            .send(Job::Append(append))
            .await
            .map_err(|_| StorageError::Closed)?;
        let ended = result.await.map_err(|_| StorageError::Closed)??;
        crate::stats::stage(ActionStage::Wake, ended.elapsed());
        Ok(())
    }

    /// A table's row, or `None`.
    pub async fn table(&self, id: &str) -> Result<Option<TableRow>, StorageError> {
        let row = on_pool!(&self.pool, pool => {
            match sqlx::query(TABLE_COLUMNS).bind(id).fetch_optional(pool).await? {
                Some(row) => Some(RawTable {
                    id: row.try_get("id")?,
                    opponent: row.try_get("opponent")?,
                    level: row.try_get("level")?,
                    host_side: row.try_get("host_side")?,
                    spectator_seats: row.try_get("spectator_seats")?,
                    goats_to_win: row.try_get("goats_to_win")?,
                    first_side: row.try_get("first_side")?,
                    multi_jump: row.try_get("multi_jump")?,
                    three_tigers: row.try_get("three_tigers")?,
                    repetition: row.try_get("repetition")?,
                    ply_limit: row.try_get("ply_limit")?,
                    host_secret: row.try_get("host_secret")?,
                    guest_secret: row.try_get("guest_secret")?,
                    invite_token: row.try_get("invite_token")?,
                    watch_token: row.try_get("watch_token")?,
                    clock: ClockColumns {
                        initial_ms: row.try_get("clock_initial_ms")?,
                        increment_ms: row.try_get("clock_increment_ms")?,
                        days: row.try_get("clock_days")?,
                    },
                    format: row.try_get("format")?,
                    series_games: row.try_get("series_games")?,
                    host_player: row.try_get("host_player")?,
                    guest_player: row.try_get("guest_player")?,
                    lobby: row.try_get("lobby")?,
                    rated: row.try_get("rated")?,
                }),
                None => None,
            }
        });
        row.map(RawTable::parse).transpose()
    }

    /// A table's events, oldest first.
    pub async fn events(&self, table: &str) -> Result<Vec<Logged>, StorageError> {
        self.folded(Some(table)).await?;
        let raw: Vec<EventRow> = on_pool!(&self.pool, pool => {
            sqlx::query_as(
                "SELECT version, kind, side, action, player, client_id, created_at, board FROM events \
                 WHERE table_id = $1 ORDER BY version",
            )
            .bind(table)
            .fetch_all(pool)
            .await?
        });
        raw.into_iter()
            .map(|row| {
                let version = row.0;
                decode_event(row).map_err(|column| StorageError::Corrupt {
                    table: table.to_owned(),
                    what: format!("event {version}: unreadable {column}"),
                })
            })
            .collect()
    }

    /// Waits until every event acknowledged so far (of `table`, or of
    /// every table) is in the database itself, where other connections
    /// read: SQLite's writer keeps the latest in its event log for a while
    /// (`sqlite_writer`). Every query of `events` outside the writer calls
    /// it first.
    async fn folded(&self, table: Option<&str>) -> Result<(), StorageError> {
        if self.is_postgres() {
            return Ok(());
        }
        let (done, folded) = oneshot::channel();
        self.writer
            .send(Job::Fold(table.map(str::to_owned), done))
            .await
            .map_err(|_| StorageError::Closed)?;
        folded.await.map_err(|_| StorageError::Closed)?
    }

    /// The PostgreSQL pool, for ownership.
    fn postgres(&self) -> Result<&PgPool, StorageError> {
        match &self.pool {
            Pool::Postgres(pool) => Ok(pool),
            Pool::Sqlite(_) => Err(StorageError::NeedsPostgres),
        }
    }

    /// Whether this is PostgreSQL.
    pub fn is_postgres(&self) -> bool {
        matches!(self.pool, Pool::Postgres(_))
    }
}

/// How long a PostgreSQL session may sit inside a transaction doing
/// nothing before the database ends it (every transaction here is a few
/// statements sent at once).
const IDLE_IN_TRANSACTION_TIMEOUT: &str = "10s";

pub(crate) fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// Inserts a new table's row, active, on `conn` (inside the caller's
/// transaction).
async fn insert_table<'c, DB, E>(conn: E, row: &TableRow) -> Result<(), StorageError>
where
    DB: sqlx::Database,
    E: sqlx::Executor<'c, Database = DB>,
    for<'q> <DB as sqlx::Database>::Arguments<'q>: sqlx::IntoArguments<'q, DB>,
    for<'q> i64: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    for<'q> Option<i64>: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    for<'q> &'q str: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    for<'q> Option<&'q str>: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
{
    let o = &row.options;
    let v = o.rules.options();
    let clock = ClockColumns::encode(o.clock);
    sqlx::query(
        "INSERT INTO tables (id, created_at, opponent, level, host_side, spectator_seats, \
         goats_to_win, first_side, multi_jump, three_tigers, repetition, ply_limit, \
         host_secret, guest_secret, invite_token, watch_token, active, \
         clock_initial_ms, clock_increment_ms, clock_days, format, series_games, \
         host_player, guest_player, lobby, rated) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, 1, \
         $17, $18, $19, $20, $21, $22, $23, $24, $25)",
    )
    .bind(row.id.as_str())
    .bind(now_millis())
    .bind(o.opponent.as_str())
    .bind(o.level.map(|l| i64::from(l.get())))
    .bind(side_name(o.host_side))
    .bind(i64::from(o.spectator_seats))
    .bind(i64::from(o.rules.goats_to_win()))
    .bind(side_name(v.first))
    .bind(i64::from(v.multi_jump))
    .bind(i64::from(v.three_tigers))
    .bind(repetition_name(v.repetition))
    .bind(i64::from(v.ply_limit))
    .bind(row.host_secret.as_ref().map(TokenHash::as_str))
    .bind(row.guest_secret.as_ref().map(TokenHash::as_str))
    .bind(row.invite_token.as_ref().map(TokenHash::as_str))
    .bind(row.watch_token.as_ref().map(TokenHash::as_str))
    .bind(clock.initial_ms)
    .bind(clock.increment_ms)
    .bind(clock.days)
    .bind(o.format.as_str())
    .bind(o.format.series_games().map(i64::from))
    .bind(row.players[0].as_deref())
    .bind(row.players[1].as_deref())
    .bind(i64::from(row.lobby))
    .bind(i64::from(row.rated))
    .execute(conn)
    .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_database_in_memory_is_told_apart_from_a_file() {
        for url in [
            "sqlite::memory:",
            "sqlite://:memory:",
            "sqlite://games.db?mode=memory",
            "sqlite:games.db?cache=shared&mode=memory",
        ] {
            assert!(is_in_memory(url), "{url}");
        }
        for url in [
            "sqlite://baghchal.db?mode=rwc",
            "sqlite:///var/lib/baghchal/memory.db",
            "sqlite://baghchal.db",
        ] {
            assert!(!is_in_memory(url), "{url}");
        }
    }

    /// Begins 300 writes and drops each after one to six polls, some time
    /// apart (so that some are dropped after `BEGIN IMMEDIATE` ran), then
    /// writes: each abandoned begin must have let the write lock go.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_write_abandoned_at_any_point_leaves_no_lock_behind() {
        use std::future::Future;
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}?mode=rwc", dir.path().join("t.db").display());
        let storage = Storage::connect(&url).await.unwrap();
        let Pool::Sqlite(pool) = &storage.pool else {
            unreachable!("a SQLite URL")
        };
        for i in 0..300u64 {
            let mut begin = Box::pin(pool.begin_write());
            for _ in 0..1 + i % 6 {
                let ready = std::future::poll_fn(|cx| {
                    std::task::Poll::Ready(begin.as_mut().poll(cx).is_ready())
                })
                .await;
                if ready {
                    break;
                }
                // Time for the connection's thread to take the next step
                // (this thread blocks; the runtime's other one goes on).
                std::thread::sleep(Duration::from_micros(100 + 50 * (i % 13)));
            }
        }
        for n in 0..8 {
            let session = crate::token::TokenHash::of(&format!("session {n}"));
            let written = storage
                .create_player(&format!("player {n}"), &session)
                .await;
            assert!(written.is_ok(), "write {n}: {written:?}");
        }
    }

    #[tokio::test]
    async fn a_database_in_memory_is_refused_by_name() {
        let refused = Storage::connect("sqlite::memory:").await;
        assert!(matches!(refused, Err(StorageError::InMemory)));
    }
}
