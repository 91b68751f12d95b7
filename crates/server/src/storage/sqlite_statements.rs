//! The SQLite writer's prepared statements and its transactions, which
//! its batches (`sqlite_writer`) and its event log's folds (`fold`)
//! share.

use rusqlite::{params, Connection, Statement};

use super::event_log::LoggedRow;
use super::events::StoredEvent;
use super::writer::version_of;
use super::StorageError;

/// The insert of one event, as `INSERT` or `INSERT OR IGNORE`.
macro_rules! insert_event {
    ($insert:literal) => {
        concat!(
            $insert,
            " INTO events (table_id, version, kind, side, action, player, client_id, \
             created_at, board) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"
        )
    };
}

/// The insert of a batch's event: a version already taken is an error.
const INSERT_EVENT: &str = insert_event!("INSERT");
/// The insert of an event read back from the log at a start, which may
/// already be stored (its log's start-over was lost).
pub(super) const INSERT_EVENT_OR_IGNORE: &str = insert_event!("INSERT OR IGNORE");

/// The statements of every batch, prepared once for the writer's life.
/// (Through rusqlite's statement cache each was looked up, and put back,
/// for every batch: some 4,000 instructions an action.)
pub(super) struct Held<'c> {
    pub(super) begin: Statement<'c>,
    pub(super) commit: Statement<'c>,
    pub(super) insert: Statement<'c>,
    pub(super) activate: Statement<'c>,
}

impl<'c> Held<'c> {
    fn prepare(conn: &'c Connection) -> Result<Self, StorageError> {
        Ok(Self {
            begin: conn.prepare("BEGIN IMMEDIATE")?,
            commit: conn.prepare("COMMIT")?,
            insert: conn.prepare(INSERT_EVENT)?,
            activate: conn
                .prepare("UPDATE tables SET active = ?1 WHERE id = ?2 AND active <> ?1")?,
        })
    }
}

/// The statements of every batch, prepared at the first one (and again
/// at the next one if that failed).
fn prepared<'h, 'c>(
    conn: &'c Connection,
    held: &'h mut Option<Held<'c>>,
) -> Result<&'h mut Held<'c>, StorageError> {
    Ok(match held {
        Some(statements) => statements,
        None => held.insert(Held::prepare(conn)?),
    })
}

/// Runs `work` with the held statements in one transaction (`BEGIN
/// IMMEDIATE` … `COMMIT`). If it or the commit fails, the transaction is
/// rolled back, so that the next one starts afresh.
pub(super) fn in_transaction<'c>(
    conn: &'c Connection,
    held: &mut Option<Held<'c>>,
    work: impl FnOnce(&mut Held<'c>) -> Result<(), StorageError>,
) -> Result<(), StorageError> {
    let statements = prepared(conn, held)?;
    statements.begin.execute([])?;
    let written = work(statements).and_then(|()| {
        statements.commit.execute([])?;
        Ok(())
    });
    if written.is_err() && !conn.is_autocommit() {
        if let Err(e) = conn.execute_batch("ROLLBACK") {
            tracing::error!(error = %e, "rolling back a failed transaction failed");
        }
    }
    written
}

/// Runs the held insert for each of `table`'s `events`.
pub(super) fn insert_events(
    insert: &mut Statement<'_>,
    table: &str,
    events: &[StoredEvent],
) -> Result<(), StorageError> {
    for event in events {
        EventValues::of_event(table, event)?.insert(insert)?;
    }
    Ok(())
}

/// One row of `events`, borrowed from a batch's event or from one read
/// back from the log: both inserts bind it the same way.
pub(super) struct EventValues<'a> {
    table: &'a str,
    version: i64,
    kind: &'a str,
    side: Option<&'a str>,
    action: Option<&'a str>,
    player: Option<&'a str>,
    client_id: Option<&'a str>,
    at: i64,
    board: i64,
}

impl<'a> EventValues<'a> {
    fn of_event(table: &'a str, event: &'a StoredEvent) -> Result<Self, StorageError> {
        Ok(Self {
            table,
            version: version_of(table, event)?,
            kind: event.kind,
            side: event.side,
            action: event.action.as_deref(),
            player: event.player,
            client_id: event.client_id.as_deref(),
            at: event.at,
            board: event.board,
        })
    }

    /// Runs `insert` (either of the two above) with these values; how
    /// many rows it stored.
    pub(super) fn insert(&self, insert: &mut Statement<'_>) -> Result<usize, StorageError> {
        Ok(insert.execute(params![
            self.table,
            self.version,
            self.kind,
            self.side,
            self.action,
            self.player,
            self.client_id,
            self.at,
            self.board,
        ])?)
    }
}

impl<'a> From<&'a LoggedRow> for EventValues<'a> {
    fn from(row: &'a LoggedRow) -> Self {
        Self {
            table: &row.table,
            version: row.version,
            kind: &row.kind,
            side: row.side.as_deref(),
            action: row.action.as_deref(),
            player: row.player.as_deref(),
            client_id: row.client_id.as_deref(),
            at: row.at,
            board: row.board,
        }
    }
}
