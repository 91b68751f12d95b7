//! Folding the SQLite writer's event log into the database: the
//! acknowledged events the log holds are inserted into `events` a slice
//! at a time, between the writer's batches, and the log starts over once
//! all of them are in the database and synced.
//!
//! A slice is a short transaction of some [`FOLD_SLICE`] events, taken
//! while no append waits (or when the log is nearly full), so the appends
//! that arrive meanwhile wait for one slice at most: one fold of
//! thousands at once held them for tens of milliseconds. Each slice is
//! synced like any commit: leaving them unsynced until a fold's last one
//! made that one, or the next game's commit, flush them all at once, and
//! the appends behind it waited longer still.

use std::collections::VecDeque;

use rusqlite::Connection;

use super::event_log::EventLog;
use super::events::StoredEvent;
use super::sqlite_statements::{in_transaction, insert_events, Held};
use super::StorageError;

/// Acknowledged events in the log beyond which the writer starts storing
/// them in the database.
const FOLD_AT: usize = 1024;

/// The events a slice stores at least (more when more arrived with the
/// batch before it, so that a fold keeps up with any rate).
pub(super) const FOLD_SLICE: usize = 32;

/// Events in the log beyond which a slice is stored even while appends
/// wait.
pub(super) const PRESSING: usize = 4 * FOLD_AT;

/// Events the log may hold at most. If storing them in the database keeps
/// failing, appends go to the database themselves (and fail) rather than
/// pile up in the log and in memory.
const MAX_UNFOLDED: usize = 64 * FOLD_AT;

/// The acknowledged events of the log not yet in the database, by table,
/// oldest first.
#[derive(Default)]
pub(super) struct Unfolded {
    appends: VecDeque<(String, Vec<StoredEvent>)>,
    events: usize,
    /// A fold is under way: it goes on until none is left.
    folding: bool,
}

impl Unfolded {
    pub(super) fn push(&mut self, table: String, events: Vec<StoredEvent>) {
        self.events += events.len();
        self.appends.push_back((table, events));
    }

    /// Whether the next slice of a fold is due, `idle` telling whether
    /// no append waits.
    pub(super) fn is_due(&self, idle: bool) -> bool {
        (self.folding || self.events >= FOLD_AT) && (idle || self.events >= PRESSING)
    }

    /// Whether the log holds all it may.
    pub(super) fn is_full(&self) -> bool {
        self.events >= MAX_UNFOLDED
    }
}

/// What a fold works with: the writer's connection, its statements and
/// its log.
pub(super) struct Folder<'f, 'c> {
    pub(super) conn: &'c Connection,
    pub(super) held: &'f mut Option<Held<'c>>,
    pub(super) log: Option<&'f mut EventLog>,
}

impl Unfolded {
    /// Stores every event of the log in the database and starts the log
    /// over.
    pub(super) fn fold_all(&mut self, folder: &mut Folder<'_, '_>) -> Result<(), StorageError> {
        while self.events > 0 {
            self.fold_slice(folder, self.events)?;
        }
        Ok(())
    }

    /// Stores the oldest appends of the log, at least [`FOLD_SLICE`]
    /// events and at least twice the `arrived` events of the last batch,
    /// in one transaction. After the fold's last slice the log starts
    /// over.
    pub(super) fn fold_slice(
        &mut self,
        folder: &mut Folder<'_, '_>,
        arrived: usize,
    ) -> Result<(), StorageError> {
        let wanted = FOLD_SLICE.max(arrived.saturating_mul(2));
        let mut appends = 0;
        let mut events = 0;
        for (_, of_table) in &self.appends {
            if events >= wanted {
                break;
            }
            appends += 1;
            events += of_table.len();
        }
        let last = appends == self.appends.len();
        if let Err(e) = self.store_slice(folder, appends, false) {
            tracing::warn!(error = %e, "storing a slice of the event log failed; trying event by event");
            self.store_slice(folder, appends, true)?;
        }
        self.appends.drain(..appends);
        self.events -= events;
        self.folding = !last;
        if last {
            if let Some(Err(e)) = folder.log.as_deref_mut().map(EventLog::restart) {
                // What it holds is in the database: a start that finds it
                // there skips it.
                tracing::warn!(error = %e, "starting the event log over failed; it grows until the next fold");
            }
        }
        Ok(())
    }

    /// One transaction of the oldest `appends` of the log.
    ///
    /// An event whose version its table holds already would fail it at
    /// every try, and leave every read waiting on the fold failing with
    /// it: with `skip_taken`, such an event is reported and left out.
    /// (Only a fault can make one: a table's versions come from its one
    /// task.)
    fn store_slice(
        &self,
        folder: &mut Folder<'_, '_>,
        appends: usize,
        skip_taken: bool,
    ) -> Result<(), StorageError> {
        in_transaction(folder.conn, folder.held, |statements| {
            self.appends
                .range(..appends)
                .flat_map(|(table, events)| events.iter().map(move |event| (table, event)))
                .try_for_each(|(table, event)| {
                    match insert_events(&mut statements.insert, table, std::slice::from_ref(event)) {
                        Err(StorageError::Sqlite(rusqlite::Error::SqliteFailure(e, _)))
                            if skip_taken && e.code == rusqlite::ErrorCode::ConstraintViolation =>
                        {
                            tracing::error!(table_id = %table, version = event.version, "an acknowledged event's version was taken: the stored event is kept");
                            Ok(())
                        }
                        other => other,
                    }
                })
        })
    }
}
