//! The SQLite writer's prepared statements, which its batches
//! (`sqlite_writer`) and its event log's folds (`fold`) share.

use rusqlite::{params, Connection, Statement};

use super::events::StoredEvent;
use super::writer::version_of;
use super::StorageError;

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
            insert: conn.prepare(
                "INSERT INTO events (table_id, version, kind, side, action, player, client_id, \
                 created_at, board) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )?,
            activate: conn
                .prepare("UPDATE tables SET active = ?1 WHERE id = ?2 AND active <> ?1")?,
        })
    }
}

/// The statements of every batch, prepared at the first one (and again
/// at the next one if that failed).
pub(super) fn prepared<'h, 'c>(
    conn: &'c Connection,
    held: &'h mut Option<Held<'c>>,
) -> Result<&'h mut Held<'c>, StorageError> {
    Ok(match held {
        Some(statements) => statements,
        None => held.insert(Held::prepare(conn)?),
    })
}

/// Runs the held insert for each of `table`'s `events`.
pub(super) fn insert_events(
    insert: &mut Statement<'_>,
    table: &str,
    events: &[StoredEvent],
) -> Result<(), StorageError> {
    for event in events {
        insert.execute(params![
            table,
            version_of(table, event)?,
            event.kind,
            event.side,
            event.action,
            event.player,
            event.client_id,
            event.at,
            event.board,
        ])?;
    }
    Ok(())
}
