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
//!
//! A slice takes whole tables: every event the log holds of each, the
//! tables whose oldest event came first going first. `events` keeps a
//! table's rows together (its key is the table and the version), so a
//! commit writes each table's last page whole, once, into the WAL, and
//! the checkpoint copies it again: a slice of one event from each of 32
//! tables would write 32 pages, one of eight events from each of four
//! tables writes four. The log holds [`FOLD_AT`] events before a fold
//! starts so that a busy table has several by then.
//!
//! A read of one table's events (its load) waits only for that table's
//! to be stored ([`Unfolded::fold_tables`]); a read across tables (the
//! hourly scans) for all of those before it, which go in slices of some
//! [`ACROSS_SLICE`] events even while appends wait
//! ([`Unfolded::fold_across`]), so that the appends wait for one slice
//! rather than for the whole log.

use std::collections::{HashMap, VecDeque};

use rusqlite::Connection;

use super::event_log::EventLog;
use super::events::StoredEvent;
use super::sqlite_statements::{in_transaction, insert_events, Held};
use super::StorageError;

/// Acknowledged events in the log beyond which the writer starts storing
/// them in the database: at 5,000 actions a second on 2,500 tables, some
/// thirteen seconds of play and 26 events a table. The more events a
/// table has in the log, the fewer pages of `events` each of them costs
/// (from 16,384, six or seven a table at that load, the disk took a
/// quarter more bytes an action).
pub(super) const FOLD_AT: usize = 64 * 1024;

/// The events a slice stores at least (more when more arrived with the
/// batch before it, so that a fold keeps up with any rate).
pub(super) const FOLD_SLICE: usize = 32;

/// Events in the log beyond which a slice is stored even while appends
/// wait.
pub(super) const PRESSING: usize = 2 * FOLD_AT;

/// The events a slice stores at least while a read across tables waits:
/// some 5 ms of the writer's time, where a log of 32,500 events over
/// 2,500 tables took 84 to 134 ms stored at once.
pub(super) const ACROSS_SLICE: usize = 1024;

/// Events the log may hold at most (some 150 bytes each in memory). If
/// storing them in the database keeps failing, appends go to the
/// database themselves (and fail) rather than pile up in the log and in
/// memory.
const MAX_UNFOLDED: usize = 4 * FOLD_AT;

/// The acknowledged events of the log not yet in the database, by table.
#[derive(Default)]
pub(super) struct Unfolded {
    /// Each table's events, in version order.
    of_table: HashMap<String, Vec<StoredEvent>>,
    /// The tables of `of_table`, in the order their oldest event came,
    /// each with its number in that order (from 1).
    tables: VecDeque<(u64, String)>,
    /// The number of the last table pushed to `tables`.
    pushed: u64,
    events: usize,
    /// A fold is under way: it goes on until none is left.
    folding: bool,
}

impl Unfolded {
    /// Whether every event the log held is in the database.
    pub(super) fn is_empty(&self) -> bool {
        self.events == 0
    }

    pub(super) fn push(&mut self, table: String, events: Vec<StoredEvent>) {
        self.events += events.len();
        if let Some(held) = self.of_table.get_mut(&table) {
            held.extend(events);
        } else {
            self.pushed += 1;
            self.tables.push_back((self.pushed, table.clone()));
            self.of_table.insert(table, events);
        }
    }

    /// A mark of the events the log holds now, for [`Unfolded::has_stored`].
    pub(super) fn mark(&self) -> u64 {
        self.pushed
    }

    /// Whether every event the log held at `mark` is stored: the tables
    /// pushed up to it have all left `tables` (a table's later events
    /// join its events there, or come back with a new number).
    pub(super) fn has_stored(&self, mark: u64) -> bool {
        self.tables.front().is_none_or(|(number, _)| *number > mark)
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

    /// Stores the events of the tables whose oldest events are the oldest
    /// in the log, whole tables up to at least [`FOLD_SLICE`] events and
    /// at least twice the `arrived` events of the last batch, in one
    /// transaction. After the fold's last slice the log starts over.
    pub(super) fn fold_slice(
        &mut self,
        folder: &mut Folder<'_, '_>,
        arrived: usize,
    ) -> Result<(), StorageError> {
        self.store_oldest(folder, FOLD_SLICE.max(arrived.saturating_mul(2)))
    }

    /// A slice as [`Unfolded::fold_slice`] stores, of at least
    /// [`ACROSS_SLICE`] events: the next step towards a read across
    /// tables, taken whether appends wait or not.
    pub(super) fn fold_across(
        &mut self,
        folder: &mut Folder<'_, '_>,
        arrived: usize,
    ) -> Result<(), StorageError> {
        self.store_oldest(folder, ACROSS_SLICE.max(arrived.saturating_mul(2)))
    }

    /// Stores the oldest tables' events, whole tables up to at least
    /// `wanted` events, in one transaction.
    fn store_oldest(
        &mut self,
        folder: &mut Folder<'_, '_>,
        wanted: usize,
    ) -> Result<(), StorageError> {
        let mut tables = 0;
        let mut events = 0;
        for (_, table) in &self.tables {
            if events >= wanted {
                break;
            }
            tables += 1;
            events += self.of_table.get(table).map_or(0, Vec::len);
        }
        store(
            folder,
            &self.of_table,
            self.tables.range(..tables).map(|(_, table)| table),
        )?;
        for (_, table) in self.tables.drain(..tables) {
            self.of_table.remove(&table);
        }
        self.folding = true;
        self.stored(folder, events);
        Ok(())
    }

    /// Stores every event the log holds of `tables`, in one transaction:
    /// what a read of their events waits for, rather than a fold of the
    /// whole log.
    pub(super) fn fold_tables(
        &mut self,
        folder: &mut Folder<'_, '_>,
        tables: &[&str],
    ) -> Result<(), StorageError> {
        let named: Vec<String> = self
            .tables
            .iter()
            .filter(|(_, table)| tables.contains(&table.as_str()))
            .map(|(_, table)| table.clone())
            .collect();
        if named.is_empty() {
            return Ok(());
        }
        store(folder, &self.of_table, named.iter())?;
        let events = named
            .iter()
            .filter_map(|table| self.of_table.remove(table))
            .map(|events| events.len())
            .sum();
        let Unfolded {
            of_table,
            tables: order,
            ..
        } = self;
        order.retain(|(_, table)| of_table.contains_key(table));
        self.stored(folder, events);
        Ok(())
    }

    /// Counts `events` as stored; once none is left the fold is over and
    /// the log starts over.
    fn stored(&mut self, folder: &mut Folder<'_, '_>, events: usize) {
        self.events -= events;
        if self.events > 0 {
            return;
        }
        self.folding = false;
        if let Some(Err(e)) = folder.log.as_deref_mut().map(EventLog::restart) {
            // What it holds is in the database: a start that finds it
            // there skips it. Batches are committed to the database
            // until a start-over succeeds (tried again at each batch).
            tracing::warn!(error = %e, "starting the event log over failed");
        }
    }
}

/// Stores the events of `tables` that `of_table` holds in one
/// transaction.
///
/// An event whose version its table holds already would fail it at every
/// try, and leave every read waiting on the fold failing with it: if the
/// transaction fails, it is tried again with such an event reported and
/// left out. (Only a fault can make one: a table's versions come from its
/// one task.)
fn store<'t>(
    folder: &mut Folder<'_, '_>,
    of_table: &HashMap<String, Vec<StoredEvent>>,
    tables: impl Iterator<Item = &'t String> + Clone,
) -> Result<(), StorageError> {
    if let Err(e) = insert(folder, of_table, tables.clone(), false) {
        tracing::warn!(error = %e, "storing a slice of the event log failed; trying event by event");
        insert(folder, of_table, tables, true)?;
    }
    Ok(())
}

/// One transaction of [`store`]'s, skipping an event whose version is
/// taken if `skip_taken`.
fn insert<'t>(
    folder: &mut Folder<'_, '_>,
    of_table: &HashMap<String, Vec<StoredEvent>>,
    tables: impl Iterator<Item = &'t String>,
    skip_taken: bool,
) -> Result<(), StorageError> {
    in_transaction(folder.conn, folder.held, |statements| {
        tables
            .filter_map(|table| Some((table, of_table.get(table)?)))
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

#[cfg(test)]
mod tests {
    use std::ops::RangeInclusive;

    use baghchal_table::play::{Event, Logged};
    use baghchal_table::time::Timestamp;

    use super::*;

    /// The columns the writer's insert fills; nothing else.
    const SCHEMA: &str = "CREATE TABLE tables (id TEXT PRIMARY KEY, active INTEGER);
         CREATE TABLE events (table_id TEXT NOT NULL, version BIGINT NOT NULL,
             kind TEXT NOT NULL, side TEXT, action TEXT, player TEXT,
             client_id TEXT, created_at BIGINT NOT NULL, board BIGINT NOT NULL,
             PRIMARY KEY (table_id, version)) WITHOUT ROWID;";

    fn events(versions: RangeInclusive<u64>) -> Vec<StoredEvent> {
        versions
            .map(|version| {
                StoredEvent::encode(Logged {
                    version,
                    event: Event::DrawOffered {
                        side: baghchal_rules::Side::Goat,
                    },
                    player: None,
                    client_id: None,
                    at: Timestamp::from_millis(0),
                    board: 1,
                })
            })
            .collect()
    }

    fn stored(conn: &Connection, table: &str) -> Vec<u64> {
        let mut select = conn
            .prepare("SELECT version FROM events WHERE table_id = ?1 ORDER BY version")
            .unwrap();
        select
            .query_map([table], |row| row.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    }

    /// Runs `test` on a database in memory, with `arrivals` (each a
    /// table's events) pushed in order.
    fn with_log(
        arrivals: &[(&str, RangeInclusive<u64>)],
        test: impl FnOnce(&Connection, &mut Folder<'_, '_>, &mut Unfolded),
    ) {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(SCHEMA).unwrap();
        let mut held = None;
        let mut folder = Folder {
            conn: &conn,
            held: &mut held,
            log: None,
        };
        let mut unfolded = Unfolded::default();
        for (table, versions) in arrivals {
            unfolded.push((*table).into(), events(versions.clone()));
        }
        test(&conn, &mut folder, &mut unfolded);
    }

    #[test]
    fn a_slice_takes_whole_tables_the_one_with_the_oldest_event_first() {
        // Three tables' events arrive interleaved, `a`'s first.
        let arrivals = [
            ("a", 1..=10),
            ("b", 1..=10),
            ("c", 1..=10),
            ("a", 11..=20),
            ("c", 11..=35),
            ("b", 11..=20),
        ];
        with_log(&arrivals, |conn, folder, unfolded| {
            // At least `FOLD_SLICE` events: `a` and `b`, each whole.
            unfolded.fold_slice(folder, 0).unwrap();
            assert_eq!(stored(conn, "a"), (1..=20).collect::<Vec<_>>());
            assert_eq!(stored(conn, "b"), (1..=20).collect::<Vec<_>>());
            assert_eq!(stored(conn, "c"), Vec::<u64>::new());
            assert_eq!(unfolded.events, 35);
            assert!(unfolded.is_due(true), "a fold goes on until none is left");
            // `a` again: its oldest unstored event is now younger than
            // `c`'s, which goes first, whole.
            unfolded.push("a".into(), events(21..=40));
            unfolded.fold_slice(folder, 0).unwrap();
            assert_eq!(stored(conn, "c"), (1..=35).collect::<Vec<_>>());
            assert_eq!(stored(conn, "a"), (1..=20).collect::<Vec<_>>());
            assert_eq!(unfolded.events, 20);
            unfolded.fold_slice(folder, 0).unwrap();
            assert_eq!(stored(conn, "a"), (1..=40).collect::<Vec<_>>());
            assert_eq!(unfolded.events, 0);
            assert!(!unfolded.is_due(true), "the fold is over");
        });
    }

    #[test]
    fn a_read_across_tables_waits_for_the_events_before_it_a_large_slice_at_a_time() {
        // 64 tables of 40 events each: 2,560, some two and a half slices.
        let names: Vec<String> = (0..64).map(|i| format!("t{i:02}")).collect();
        let arrivals: Vec<(&str, RangeInclusive<u64>)> =
            names.iter().map(|name| (name.as_str(), 1..=40)).collect();
        with_log(&arrivals, |conn, folder, unfolded| {
            let mark = unfolded.mark();
            assert!(!unfolded.has_stored(mark));
            // After the mark: a table of the log gets more, and a new one
            // comes.
            unfolded.push("t00".into(), events(41..=45));
            unfolded.push("late".into(), events(1..=10));
            unfolded.fold_across(folder, 0).unwrap();
            // Whole tables, the oldest first, up to at least a slice.
            let counts: Vec<usize> = names.iter().map(|name| stored(conn, name).len()).collect();
            let whole = counts.iter().take_while(|&&n| n > 0).count();
            assert!(counts[whole..].iter().all(|&n| n == 0), "{counts:?}");
            let slice: usize = counts.iter().sum();
            assert!(
                (ACROSS_SLICE..ACROSS_SLICE + 45).contains(&slice),
                "{slice}"
            );
            assert_eq!(counts[0], 45, "a table's later events go with it");
            assert!(!unfolded.has_stored(mark));
            let mut slices = 1;
            while !unfolded.has_stored(mark) {
                unfolded.fold_across(folder, 0).unwrap();
                slices += 1;
            }
            assert_eq!(slices, 3);
            for name in &names {
                assert_eq!(
                    stored(conn, name).len(),
                    if name == "t00" { 45 } else { 40 }
                );
            }
            // Stored with the last slice or not, the later table does not
            // hold the read back; a table stored, then written again,
            // comes back after the mark.
            unfolded.push("t01".into(), events(41..=41));
            assert!(unfolded.has_stored(mark));
            assert!(!unfolded.has_stored(unfolded.mark()));
        });
    }

    #[test]
    fn a_read_folds_its_own_tables_and_leaves_the_rest_in_order() {
        let arrivals = [("a", 1..=20), ("b", 1..=20), ("c", 1..=20), ("b", 21..=25)];
        with_log(&arrivals, |conn, folder, unfolded| {
            unfolded.fold_tables(folder, &["b", "absent"]).unwrap();
            assert_eq!(stored(conn, "b"), (1..=25).collect::<Vec<_>>());
            assert_eq!(stored(conn, "a"), Vec::<u64>::new());
            assert_eq!(stored(conn, "c"), Vec::<u64>::new());
            assert_eq!(unfolded.events, 40);
            // The next slice takes `a` and `c`, the oldest left, whole.
            unfolded.fold_slice(folder, 0).unwrap();
            assert_eq!(stored(conn, "a"), (1..=20).collect::<Vec<_>>());
            assert_eq!(stored(conn, "c"), (1..=20).collect::<Vec<_>>());
            assert_eq!(unfolded.events, 0);
            assert!(!unfolded.is_due(true), "the fold is over");
            // Nothing of theirs left: nothing to do.
            unfolded.fold_tables(folder, &["a"]).unwrap();
        });
    }
}
