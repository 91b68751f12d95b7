//! All the SQL: tables and their event logs, in SQLite or PostgreSQL.
//!
//! A table is one row of options and token hashes plus an append-only log
//! of events; its state is the replay of that log through the rules. The
//! rest of the server sees only the typed API of [`Storage`].

use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
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
use baghchal_table::clock::TimeControl;
use baghchal_table::finished::FinishedGame;
use baghchal_table::names::{repetition_from_name, repetition_name, side_from_name, side_name};
use baghchal_table::options::{Format, Opponent, TableOptions};
use baghchal_table::play::{Claim, Event, Logged};
use baghchal_table::seat::Player;
use baghchal_table::time::Timestamp;

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
}

#[derive(Clone, Debug)]
enum Pool {
    Sqlite(SqlitePool),
    Postgres(PgPool),
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

mod games;

pub use games::StoredGame;
use games::{bind_game, GameColumns, INSERT_GAME};

/// Events the writer commits in one transaction at most.
const MAX_BATCH: usize = 512;

/// Events of one table waiting for the writer, committed together.
struct Append {
    table: String,
    /// In version order; never empty.
    events: Vec<StoredEvent>,
    /// The games these events ended, stored with them.
    games: Vec<GameColumns>,
    active: bool,
    /// The owner's epoch, when the table is owned under a lease: the
    /// append is refused unless it is still the table's epoch.
    epoch: Option<u64>,
    /// When it was queued, for the writer's queue time.
    queued: std::time::Instant,
    done: Done,
}

/// Where an append's answer goes: when its commit ended, or why it
/// failed.
type Done = oneshot::Sender<Result<std::time::Instant, StorageError>>;

/// Records the commit of `batch`, which took from `started` to `ended`,
/// in each of its actions' stages.
fn committed(batch: &[Append], started: std::time::Instant, ended: std::time::Instant) {
    let took = ended - started;
    crate::stats::committed(batch.len(), took);
    for _ in batch {
        crate::stats::stage(ActionStage::Commit, took);
    }
}

/// What the writer's queue carries.
enum Job {
    Append(Append),
    /// Take no more appends; commit those queued, then end.
    Stop,
}

/// Makes a batch of `job` and the appends queued behind it (up to
/// [`MAX_BATCH`]), and records their time in the queue; a stop closes the
/// queue. Returns when the batch starts, or `None` when it is empty.
fn gather(
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
async fn write_batches(pool: PgPool, mut queue: mpsc::Receiver<Job>) {
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
const CHECKPOINT_EVERY: Duration = Duration::from_secs(1);

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
async fn checkpoint_wal(pool: SqlitePool, copied: Arc<AtomicBool>, stop: CancellationToken) {
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
const WAL_LEFT_FOR_WRITER: i64 = 256;

/// Copies the WAL into the database file in PASSIVE passes: the first
/// copies the bulk, and each further one what was committed during the
/// one before, until a pass leaves so few frames that the writer's own
/// pass, inside its commit path, is short.
async fn copy_wal(pool: &SqlitePool) -> Result<(), StorageError> {
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
async fn append(pool: &PgPool, batch: &[Append]) -> Result<(), StorageError> {
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
                let owned =
                    sqlx::query("UPDATE tables SET active = $1 WHERE id = $2 AND epoch = $3")
                        .bind(i64::from(append.active))
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
                sqlx::query("UPDATE tables SET active = $1 WHERE id = $2 AND active <> $1")
                    .bind(i64::from(append.active))
                    .bind(&append.table)
                    .execute(&mut *tx)
                    .await?;
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
            .bind(event.kind.as_str())
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
            bind_game(sqlx::query(INSERT_GAME), game)
                .execute(&mut *tx)
                .await?;
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
async fn append_unowned(pool: &PgPool, ordered: &[&Append]) -> Result<(), StorageError> {
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
    // Sorted by table, so a table's last append is the last of its run.
    let mut active = Vec::new();
    let mut inactive = Vec::new();
    for (i, append) in ordered.iter().enumerate() {
        let last_of_table = ordered
            .get(i + 1)
            .is_none_or(|next| next.table != append.table);
        if last_of_table {
            if append.active {
                active.push(append.table.as_str());
            } else {
                inactive.push(append.table.as_str());
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
                .push_bind(event.kind.as_str())
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
        bind_game(sqlx::query(INSERT_GAME), game)
            .execute(&mut *tx)
            .await?;
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

/// Rows in one multi-row insert (9 parameters each: far under SQLite's
/// and PostgreSQL's limits on parameters in a statement).
const ROWS_PER_INSERT: usize = 256;

/// An event's version as the `version` column holds it.
fn version_of(table: &str, event: &StoredEvent) -> Result<i64, StorageError> {
    i64::try_from(event.version).map_err(|_| StorageError::Corrupt {
        table: table.to_owned(),
        what: "version overflow".into(),
    })
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
}

/// What kind of event a stored event is: the `kind` column.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum EventKind {
    Played,
    Resigned,
    DrawOffered,
    DrawDeclined,
    DrawAgreed,
    RematchOffered,
    RematchStarted,
    Flagged,
    ClaimedVictory,
    ClaimedDraw,
    Aborted,
    RematchDeclined,
    RematchWithdrawn,
    DrawWithdrawn,
}

impl EventKind {
    fn as_str(self) -> &'static str {
        match self {
            EventKind::Played => "played",
            EventKind::Resigned => "resigned",
            EventKind::DrawOffered => "draw_offered",
            EventKind::DrawDeclined => "draw_declined",
            EventKind::DrawAgreed => "draw_agreed",
            EventKind::RematchOffered => "rematch_offered",
            EventKind::RematchStarted => "rematch_started",
            EventKind::Flagged => "flagged",
            EventKind::ClaimedVictory => "claimed_victory",
            EventKind::ClaimedDraw => "claimed_draw",
            EventKind::Aborted => "aborted",
            EventKind::RematchDeclined => "rematch_declined",
            EventKind::RematchWithdrawn => "rematch_withdrawn",
            EventKind::DrawWithdrawn => "draw_withdrawn",
        }
    }

    fn parse(text: &str) -> Option<EventKind> {
        Some(match text {
            "played" => EventKind::Played,
            "resigned" => EventKind::Resigned,
            "draw_offered" => EventKind::DrawOffered,
            "draw_declined" => EventKind::DrawDeclined,
            "draw_agreed" => EventKind::DrawAgreed,
            "rematch_offered" => EventKind::RematchOffered,
            "rematch_started" => EventKind::RematchStarted,
            "flagged" => EventKind::Flagged,
            "claimed_victory" => EventKind::ClaimedVictory,
            "claimed_draw" => EventKind::ClaimedDraw,
            "aborted" => EventKind::Aborted,
            "rematch_declined" => EventKind::RematchDeclined,
            "rematch_withdrawn" => EventKind::RematchWithdrawn,
            "draw_withdrawn" => EventKind::DrawWithdrawn,
            _ => return None,
        })
    }
}

/// An event as its row's columns hold it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct StoredEvent {
    version: u64,
    kind: EventKind,
    side: Option<&'static str>,
    action: Option<String>,
    player: Option<&'static str>,
    client_id: Option<String>,
    /// Milliseconds since the epoch: the `created_at` column.
    at: i64,
    /// The `board` column: 1, or 2 on a two-board table's second board.
    board: i64,
}

impl StoredEvent {
    fn encode(logged: &Logged) -> StoredEvent {
        let (kind, side, action) = match logged.event {
            Event::Played { side, action } => (EventKind::Played, Some(side), Some(action)),
            Event::Resigned { side } => (EventKind::Resigned, Some(side), None),
            Event::DrawOffered { side } => (EventKind::DrawOffered, Some(side), None),
            Event::DrawDeclined { side } => (EventKind::DrawDeclined, Some(side), None),
            Event::DrawAgreed => (EventKind::DrawAgreed, None, None),
            Event::RematchOffered { side } => (EventKind::RematchOffered, Some(side), None),
            Event::RematchStarted => (EventKind::RematchStarted, None, None),
            Event::Flagged { side } => (EventKind::Flagged, Some(side), None),
            Event::Claimed { side, claim } => (
                match claim {
                    Claim::Victory => EventKind::ClaimedVictory,
                    Claim::Draw => EventKind::ClaimedDraw,
                },
                Some(side),
                None,
            ),
            Event::Aborted { side } => (EventKind::Aborted, Some(side), None),
            Event::RematchDeclined { side } => (EventKind::RematchDeclined, Some(side), None),
            Event::RematchWithdrawn { side } => (EventKind::RematchWithdrawn, Some(side), None),
            Event::DrawWithdrawn { side } => (EventKind::DrawWithdrawn, Some(side), None),
        };
        StoredEvent {
            version: logged.version,
            kind,
            side: side.map(side_name),
            action: action.map(|a| a.to_string()),
            player: logged.player.map(Player::as_str),
            client_id: logged.client_id.clone(),
            at: logged.at.as_millis(),
            board: i64::from(logged.board),
        }
    }
}

/// Reads an event row back; the error names the column that is not what
/// this server writes.
fn decode_event(row: EventRow) -> Result<Logged, &'static str> {
    let (version, kind, side, action, player, client_id, at, board) = row;
    let side = || side.as_deref().and_then(side_from_name).ok_or("side");
    let kind = EventKind::parse(&kind).ok_or("kind")?;
    let event = match kind {
        EventKind::Played => Event::Played {
            side: side()?,
            action: action
                .as_deref()
                .and_then(|a| a.parse().ok())
                .ok_or("action")?,
        },
        EventKind::Resigned => Event::Resigned { side: side()? },
        EventKind::DrawOffered => Event::DrawOffered { side: side()? },
        EventKind::DrawDeclined => Event::DrawDeclined { side: side()? },
        EventKind::DrawAgreed => Event::DrawAgreed,
        EventKind::RematchOffered => Event::RematchOffered { side: side()? },
        EventKind::RematchStarted => Event::RematchStarted,
        EventKind::Flagged => Event::Flagged { side: side()? },
        EventKind::ClaimedVictory => Event::Claimed {
            side: side()?,
            claim: Claim::Victory,
        },
        EventKind::ClaimedDraw => Event::Claimed {
            side: side()?,
            claim: Claim::Draw,
        },
        EventKind::Aborted => Event::Aborted { side: side()? },
        EventKind::RematchDeclined => Event::RematchDeclined { side: side()? },
        EventKind::RematchWithdrawn => Event::RematchWithdrawn { side: side()? },
        EventKind::DrawWithdrawn => Event::DrawWithdrawn { side: side()? },
    };
    let player = match player {
        Some(name) => Some(Player::parse(&name).ok_or("player")?),
        None => None,
    };
    Ok(Logged {
        version: u64::try_from(version).map_err(|_| "version")?,
        event,
        player,
        client_id,
        at: Timestamp::from_millis(at),
        board: u8::try_from(board)
            .ok()
            .filter(|b| (1..=2).contains(b))
            .ok_or("board")?,
    })
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
                .connect_with(options.clone())
                .await?;
            sqlx::migrate!("../../migrations/sqlite").run(&pool).await?;
            let file = options.get_filename().to_owned();
            let conn = tokio::task::spawn_blocking(move || sqlite_writer::open(&file))
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
            tasks.spawn_blocking(move || sqlite_writer::run(conn, queue, answers, &copied));
            Pool::Sqlite(pool)
        } else if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            let options = PgConnectOptions::from_str(url)?;
            let pool = PgPoolOptions::new()
                .max_connections(16)
                .acquire_timeout(Duration::from_secs(10))
                .connect_with(options)
                .await?;
            sqlx::migrate!("../../migrations/postgres")
                .run(&pool)
                .await?;
            tasks.spawn(write_batches(pool.clone(), queue));
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
        let o = &row.options;
        let v = o.rules.options();
        let clock = ClockColumns::encode(o.clock);
        if owner.is_some() {
            self.postgres()?;
        }
        on_pool!(&self.pool, pool => {
            let mut tx = pool.begin().await?;
            sqlx::query(
                "INSERT INTO tables (id, created_at, opponent, level, host_side, spectator_seats, \
                 goats_to_win, first_side, multi_jump, three_tigers, repetition, ply_limit, \
                 host_secret, guest_secret, invite_token, watch_token, active, \
                 clock_initial_ms, clock_increment_ms, clock_days, format, series_games) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, 1, \
                 $17, $18, $19, $20, $21)",
            )
            .bind(&row.id)
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
            .execute(&mut *tx)
            .await?;
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

    /// Gives the guest seat its secret, if the seat is still free; `false`
    /// when it was already claimed.
    /// Under a lease (`epoch`), a claim from a stale owner is refused.
    pub async fn claim_guest_seat(
        &self,
        table: &str,
        secret: &TokenHash,
        epoch: Option<u64>,
    ) -> Result<bool, StorageError> {
        if let Some(epoch) = epoch {
            let Pool::Postgres(pool) = &self.pool else {
                return Err(StorageError::NeedsPostgres);
            };
            let epoch = i64::try_from(epoch).map_err(|_| StorageError::Fenced)?;
            let row: Option<(bool,)> = sqlx::query_as(
                "UPDATE tables SET guest_secret = COALESCE(guest_secret, $1) \
                 WHERE id = $2 AND epoch = $3 RETURNING guest_secret = $1",
            )
            .bind(secret.as_str())
            .bind(table)
            .bind(epoch)
            .fetch_optional(pool)
            .await?;
            return match row {
                Some((claimed,)) => Ok(claimed),
                None => Err(StorageError::Fenced),
            };
        }
        let done = on_pool!(&self.pool, pool => {
            sqlx::query(
                "UPDATE tables SET guest_secret = $1 WHERE id = $2 AND guest_secret IS NULL",
            )
            .bind(secret.as_str())
            .bind(table)
            .execute(pool)
            .await?
            .rows_affected()
        });
        Ok(done == 1)
    }

    /// Appends one event at `event.version` and sets whether the table is
    /// active. It is durable when this returns `Ok`. Appends from every
    /// table go through one writer that commits whatever has queued up in
    /// one transaction (group commit), so that a busy server pays one disk
    /// flush for many events.
    /// Under a lease (`epoch`), an append from a stale owner is refused
    /// with [`StorageError::Fenced`].
    pub async fn append_event(
        &self,
        table: &str,
        event: &Logged,
        active: bool,
        epoch: Option<u64>,
    ) -> Result<(), StorageError> {
        self.append_events(table, std::slice::from_ref(event), &[], active, epoch)
            .await
    }

    /// Appends consecutive events of one table in one transaction, with
    /// the rows of the games they ended: all of them are durable when this
    /// returns `Ok`, or none is. A two-board match's rematch is one event
    /// on each board.
    pub async fn append_events(
        &self,
        table: &str,
        events: &[Logged],
        games: &[FinishedGame],
        active: bool,
        epoch: Option<u64>,
    ) -> Result<(), StorageError> {
        if events.is_empty() {
            return Ok(());
        }
        let (done, result) = oneshot::channel();
        let append = Append {
            table: table.to_owned(),
            events: events.iter().map(StoredEvent::encode).collect(),
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
                }),
                None => None,
            }
        });
        row.map(RawTable::parse).transpose()
    }

    /// A table's events, oldest first.
    pub async fn events(&self, table: &str) -> Result<Vec<Logged>, StorageError> {
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

    /// Takes the lease of `table` for `node` if nobody else holds a live
    /// one, raising its epoch (which fences every earlier owner, this node's
    /// earlier tenure included); `None` when another node holds it (or there
    /// is no such table). The database's clock decides.
    pub async fn acquire(
        &self,
        table: &str,
        node: &str,
        lease: Duration,
    ) -> Result<Option<u64>, StorageError> {
        let epoch: Option<i64> = sqlx::query_scalar(
            "UPDATE tables SET owner = $1, epoch = epoch + 1, \
             lease_until = now() + make_interval(secs => $2) \
             WHERE id = $3 \
             AND (owner IS NULL OR owner = $1 OR lease_until IS NULL OR lease_until < now()) \
             RETURNING epoch",
        )
        .bind(node)
        .bind(lease.as_secs_f64())
        .bind(table)
        .fetch_optional(self.postgres()?)
        .await?;
        Ok(epoch.and_then(|e| u64::try_from(e).ok()))
    }

    /// Renews the leases `node` still holds of `tables` and returns those
    /// tables with their epochs; a table missing from the answer is no
    /// longer ours (its lease ran out, or another node took it).
    pub async fn renew(
        &self,
        node: &str,
        lease: Duration,
        tables: &[String],
    ) -> Result<Vec<(String, u64)>, StorageError> {
        let rows: Vec<(String, i64)> = sqlx::query_as(
            "UPDATE tables SET lease_until = now() + make_interval(secs => $2) \
             WHERE id IN (SELECT id FROM tables WHERE owner = $1 AND id = ANY($3) \
             AND lease_until >= now() ORDER BY id FOR UPDATE) RETURNING id, epoch",
        )
        .bind(node)
        .bind(lease.as_secs_f64())
        .bind(tables)
        .fetch_all(self.postgres()?)
        .await?;
        Ok(rows
            .into_iter()
            .filter_map(|(id, epoch)| Some((id, u64::try_from(epoch).ok()?)))
            .collect())
    }

    /// Gives up the lease of `table` at `epoch`, so that another node can
    /// take it at once.
    pub async fn release(&self, table: &str, epoch: u64) -> Result<(), StorageError> {
        sqlx::query(
            "UPDATE tables SET owner = NULL, lease_until = NULL WHERE id = $1 AND epoch = $2",
        )
        .bind(table)
        .bind(i64::try_from(epoch).unwrap_or(i64::MAX))
        .execute(self.postgres()?)
        .await?;
        Ok(())
    }

    /// Gives up every lease `node` holds.
    pub async fn release_all(&self, node: &str) -> Result<(), StorageError> {
        sqlx::query("UPDATE tables SET owner = NULL, lease_until = NULL WHERE owner = $1")
            .bind(node)
            .execute(self.postgres()?)
            .await?;
        Ok(())
    }

    /// Who owns `table`: `None` if there is no such table, else the owner
    /// and how long its lease still runs (zero when it has run out).
    pub async fn owner(&self, table: &str) -> Result<Option<Ownership>, StorageError> {
        let row: Option<(Option<String>, Option<f64>)> = sqlx::query_as(
            "SELECT owner, EXTRACT(EPOCH FROM (lease_until - now()))::float8 \
             FROM tables WHERE id = $1",
        )
        .bind(table)
        .fetch_optional(self.postgres()?)
        .await?;
        Ok(row.map(|(owner, remaining)| Ownership {
            owner,
            remaining: Duration::from_secs_f64(remaining.unwrap_or(0.0).clamp(0.0, 3600.0)),
        }))
    }

    /// Up to `limit` active tables whose lease has run out or that have no
    /// owner: the tables a node should take over.
    pub async fn orphans(&self, limit: usize) -> Result<Vec<String>, StorageError> {
        let ids = sqlx::query_scalar(
            "SELECT id FROM tables WHERE active = 1 \
             AND (owner IS NULL OR lease_until IS NULL OR lease_until < now()) \
             ORDER BY created_at LIMIT $1",
        )
        .bind(i64::try_from(limit).unwrap_or(i64::MAX))
        .fetch_all(self.postgres()?)
        .await?;
        Ok(ids)
    }

    /// Every event of `table` with the epoch that wrote it, oldest first:
    /// for checking that a log is one line.
    pub async fn event_epochs(&self, table: &str) -> Result<Vec<(u64, u64)>, StorageError> {
        let rows: Vec<(i64, i64)> = sqlx::query_as(
            "SELECT version, epoch FROM events WHERE table_id = $1 ORDER BY version",
        )
        .bind(table)
        .fetch_all(self.postgres()?)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(v, e)| (v.max(0) as u64, e.max(0) as u64))
            .collect())
    }

    /// The ids of the tables to resume at start-up.
    pub async fn active_tables(&self) -> Result<Vec<String>, StorageError> {
        let ids = on_pool!(&self.pool, pool => {
            sqlx::query_scalar("SELECT id FROM tables WHERE active = 1 ORDER BY created_at")
                .fetch_all(pool)
                .await?
        });
        Ok(ids)
    }
}

/// An event row: version, kind, side, action, player, client id, the
/// time it was accepted, the board.
type EventRow = (
    i64,
    String,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    i64,
    i64,
);

const TABLE_COLUMNS: &str =
    "SELECT id, opponent, level, host_side, spectator_seats, goats_to_win, \
     first_side, multi_jump, three_tigers, repetition, ply_limit, host_secret, guest_secret, \
     invite_token, watch_token, clock_initial_ms, clock_increment_ms, clock_days, format, \
     series_games FROM tables WHERE id = $1";

/// A time control as its columns hold it: the initial time and increment
/// in milliseconds, or the days per action; all null for none.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct ClockColumns {
    initial_ms: Option<i64>,
    increment_ms: Option<i64>,
    days: Option<i64>,
}

impl ClockColumns {
    fn encode(clock: Option<TimeControl>) -> ClockColumns {
        let ms = |d: Duration| i64::try_from(d.as_millis()).unwrap_or(i64::MAX);
        match clock {
            None => ClockColumns {
                initial_ms: None,
                increment_ms: None,
                days: None,
            },
            Some(TimeControl::Fischer { initial, increment }) => ClockColumns {
                initial_ms: Some(ms(initial)),
                increment_ms: Some(ms(increment)),
                days: None,
            },
            Some(TimeControl::DaysPerAction(days)) => ClockColumns {
                initial_ms: None,
                increment_ms: None,
                days: Some(i64::from(days)),
            },
        }
    }

    fn decode(self) -> Option<Option<TimeControl>> {
        let ms = |n: i64| u64::try_from(n).ok().map(Duration::from_millis);
        match (self.initial_ms, self.increment_ms, self.days) {
            (None, None, None) => Some(None),
            (Some(initial), Some(increment), None) => Some(Some(TimeControl::Fischer {
                initial: ms(initial)?,
                increment: ms(increment)?,
            })),
            (None, None, Some(days)) => {
                Some(Some(TimeControl::DaysPerAction(u8::try_from(days).ok()?)))
            }
            _ => None,
        }
    }
}

/// A table row as the database returns it.
struct RawTable {
    id: String,
    opponent: String,
    level: Option<i64>,
    host_side: String,
    spectator_seats: i64,
    goats_to_win: i64,
    first_side: String,
    multi_jump: i64,
    three_tigers: i64,
    repetition: String,
    ply_limit: i64,
    host_secret: Option<String>,
    guest_secret: Option<String>,
    invite_token: Option<String>,
    watch_token: Option<String>,
    clock: ClockColumns,
    format: String,
    series_games: Option<i64>,
}

impl RawTable {
    fn parse(self) -> Result<TableRow, StorageError> {
        use baghchal_rules::RulesOptions;
        let corrupt = |what: &str| StorageError::Corrupt {
            table: self.id.clone(),
            what: what.to_owned(),
        };
        let side = |text: &str| side_from_name(text).ok_or_else(|| corrupt("side"));
        let opponent = Opponent::parse(&self.opponent).ok_or_else(|| corrupt("opponent"))?;
        let level = match self.level {
            Some(n) => Some(
                u16::try_from(n)
                    .ok()
                    .and_then(baghchal_engine::Level::new)
                    .ok_or_else(|| corrupt("level"))?,
            ),
            None => None,
        };
        let rules = baghchal_rules::Rules::new(RulesOptions {
            goats_to_win: Some(u8::try_from(self.goats_to_win).map_err(|_| corrupt("target"))?),
            first: side(&self.first_side)?,
            multi_jump: self.multi_jump != 0,
            three_tigers: self.three_tigers != 0,
            repetition: repetition_from_name(&self.repetition)
                .ok_or_else(|| corrupt("repetition"))?,
            ply_limit: u16::try_from(self.ply_limit).map_err(|_| corrupt("ply limit"))?,
        })
        .map_err(|e| corrupt(&e.to_string()))?;
        let options = TableOptions {
            opponent,
            host_side: side(&self.host_side)?,
            level,
            spectator_seats: u8::try_from(self.spectator_seats)
                .map_err(|_| corrupt("spectator seats"))?,
            rules,
            clock: self.clock.decode().ok_or_else(|| corrupt("clock"))?,
            format: Format::from_stored(
                &self.format,
                match self.series_games {
                    Some(n) => Some(u8::try_from(n).map_err(|_| corrupt("series games"))?),
                    None => None,
                },
            )
            .ok_or_else(|| corrupt("format"))?,
        };
        Ok(TableRow {
            options,
            host_secret: self.host_secret.map(TokenHash::from_stored),
            guest_secret: self.guest_secret.map(TokenHash::from_stored),
            invite_token: self.invite_token.map(TokenHash::from_stored),
            watch_token: self.watch_token.map(TokenHash::from_stored),
            id: self.id,
        })
    }
}

fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use baghchal_rules::Side;

    fn row(stored: StoredEvent) -> EventRow {
        (
            i64::try_from(stored.version).unwrap(),
            stored.kind.as_str().to_owned(),
            stored.side.map(str::to_owned),
            stored.action,
            stored.player.map(str::to_owned),
            stored.client_id,
            stored.at,
            stored.board,
        )
    }

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

    #[tokio::test]
    async fn a_database_in_memory_is_refused_by_name() {
        let refused = Storage::connect("sqlite::memory:").await;
        assert!(matches!(refused, Err(StorageError::InMemory)));
    }

    #[test]
    fn every_event_reads_back_as_it_was_written() {
        let events = [
            Event::Played {
                side: Side::Goat,
                action: "c3".parse().unwrap(),
            },
            Event::Resigned { side: Side::Tiger },
            Event::DrawOffered { side: Side::Goat },
            Event::DrawDeclined { side: Side::Tiger },
            Event::DrawAgreed,
            Event::RematchOffered { side: Side::Goat },
            Event::RematchStarted,
            Event::Flagged { side: Side::Tiger },
            Event::Claimed {
                side: Side::Goat,
                claim: Claim::Victory,
            },
            Event::Claimed {
                side: Side::Tiger,
                claim: Claim::Draw,
            },
            Event::Aborted { side: Side::Goat },
            Event::RematchDeclined { side: Side::Tiger },
            Event::RematchWithdrawn { side: Side::Goat },
            Event::DrawWithdrawn { side: Side::Tiger },
        ];
        for (i, event) in events.into_iter().enumerate() {
            for (player, client_id) in [(Some(Player::Guest), Some("7".to_owned())), (None, None)] {
                let logged = Logged {
                    version: i as u64 + 1,
                    event,
                    player,
                    client_id,
                    at: Timestamp::from_millis(1_796_160_604_250 + i as i64),
                    board: 1 + (i % 2) as u8,
                };
                let back = decode_event(row(StoredEvent::encode(&logged)));
                assert_eq!(back, Ok(logged));
            }
        }
    }

    #[test]
    fn an_unreadable_event_row_names_its_column() {
        let good = || {
            row(StoredEvent::encode(&Logged {
                version: 1,
                event: Event::Resigned { side: Side::Goat },
                player: Some(Player::Host),
                client_id: None,
                at: Timestamp::from_millis(0),
                board: 1,
            }))
        };
        let mut bad = good();
        bad.1 = "teleported".into();
        assert_eq!(decode_event(bad), Err("kind"));
        let mut bad = good();
        bad.2 = Some("goat".into());
        assert_eq!(decode_event(bad), Err("side"));
        let mut bad = good();
        bad.4 = Some("referee".into());
        assert_eq!(decode_event(bad), Err("player"));
        let mut bad = good();
        bad.0 = -1;
        assert_eq!(decode_event(bad), Err("version"));
    }

    #[test]
    fn every_time_control_reads_back_from_its_columns() {
        for clock in [
            None,
            Some(TimeControl::Fischer {
                initial: Duration::from_secs(5),
                increment: Duration::ZERO,
            }),
            Some(TimeControl::Fischer {
                initial: Duration::from_secs(10_800),
                increment: Duration::from_secs(180),
            }),
            Some(TimeControl::DaysPerAction(3)),
        ] {
            assert_eq!(ClockColumns::encode(clock).decode(), Some(clock));
        }
        let half = ClockColumns {
            initial_ms: Some(60_000),
            increment_ms: None,
            days: None,
        };
        assert_eq!(half.decode(), None);
    }
}
