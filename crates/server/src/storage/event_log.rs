//! The SQLite writer's event log: a file beside the database to which a
//! batch of events is appended and synced in one write, before it is
//! acknowledged. The writer folds the log into the database in large
//! transactions (`sqlite_writer`), so a commit's fixed cost (its WAL
//! frames and their checksums, a page for each table) is paid once for
//! thousands of events, not once for every one or two.
//!
//! The file starts with a header: [`MAGIC`] and the log's generation
//! (eight bytes, little-endian), which each start-over raises. A record
//! is its payload's length and CRC-32 (four bytes each, little-endian),
//! then the event's row: its table, version, kind, side, action, player,
//! client id, time and board. The checksum covers the generation and the
//! payload. A start reads the records up to the first that is cut short
//! or does not match its checksum (the tail of a batch whose sync never
//! finished, which nobody was told of, or a record of an earlier
//! generation), stores them in the database and starts the log over.
//!
//! The file is written full of zeros ahead of its records
//! ([`ALLOCATE`] bytes at a time) and a start-over writes only the
//! header, so that an append writes over bytes the file already holds:
//! its sync then has only the data to flush, not the file's size or its
//! blocks, which would cost a commit of the file system's journal at
//! every append. (A log written before the header existed has none: it
//! is read with checksums of the payload alone, and gets its header when
//! it starts over.)

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{self, Read};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use super::events::StoredEvent;
use super::StorageError;

/// A record's header: its payload's length and checksum.
const HEADER: usize = 8;

/// What the file's header starts with.
const MAGIC: &[u8; 8] = b"BCEVLOG1";

/// The file's header: [`MAGIC`] and the generation.
const FILE_HEADER: u64 = 16;

/// The bytes of zeros written ahead of the records at a time.
pub(super) const ALLOCATE: u64 = 4 << 20;

/// The log file of the database at `database`: its name with `-events`
/// after it, as SQLite puts `-wal` after it for its own.
pub(super) fn path_of(database: &Path) -> PathBuf {
    let mut name = database.as_os_str().to_owned();
    name.push("-events");
    PathBuf::from(name)
}

/// The open log, locked for this process: two writers appending to one
/// file would interleave their records, and one starting would store and
/// wipe what the other acknowledged.
pub(super) struct EventLog {
    file: File,
    /// Where the next record goes: the end of what was synced.
    len: u64,
    /// The file's size: zeros from `len` to there.
    allocated: u64,
    /// The generation the records' checksums cover; `None` in a log
    /// without a header, until it starts over.
    generation: Option<u64>,
    /// The records of the batch being appended.
    buf: Vec<u8>,
    /// A failed append could not be cut off, or a start-over failed half
    /// way: nothing is appended until the log starts over.
    broken: bool,
}

/// An event read back from the log, with its table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct LoggedRow {
    pub(super) table: String,
    pub(super) version: i64,
    pub(super) kind: String,
    pub(super) side: Option<String>,
    pub(super) action: Option<String>,
    pub(super) player: Option<String>,
    pub(super) client_id: Option<String>,
    pub(super) at: i64,
    pub(super) board: i64,
}

impl EventLog {
    /// Opens (or creates) the log at `path` and locks it; returns it with
    /// the events it holds, oldest first, or `None` when another writer
    /// holds it (a server running on the same database). The log is not
    /// started over here: that waits until its events are in the
    /// database.
    pub(super) fn open(path: &Path) -> Result<Option<(EventLog, Vec<LoggedRow>)>, StorageError> {
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => return Ok(None),
            Err(TryLockError::Error(e)) => return Err(e.into()),
        }
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        let allocated = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
        let (generation, rows, whole) = read_log(&bytes);
        // The next records go after the last whole one, over a torn tail.
        let len = u64::try_from(whole).unwrap_or(u64::MAX);
        let mut log = EventLog {
            file,
            len,
            allocated,
            generation,
            buf: Vec::new(),
            broken: false,
        };
        if allocated == 0 {
            // A new log: its header, and zeros ahead.
            log.restart()?;
        }
        Ok(Some((log, rows)))
    }

    /// Appends the events of `appends` (each a table and its events) in
    /// one write, and syncs it: once this returns `Ok`, they survive a
    /// crash. On an error nothing counts as written: the log is cut back
    /// to where this append started, so that no part of it can be read at
    /// a start, and the next append goes there. If even that fails, the
    /// log takes no more appends until it starts over.
    pub(super) fn append<'a>(
        &mut self,
        appends: impl IntoIterator<Item = (&'a str, &'a [StoredEvent])>,
    ) -> io::Result<()> {
        if self.broken {
            return Err(io::Error::other(
                "the event log takes no append until it starts over",
            ));
        }
        self.buf.clear();
        for (table, events) in appends {
            for event in events {
                encode(&mut self.buf, table, event, self.generation);
            }
        }
        let end = self.len + self.buf.len() as u64;
        let written = self
            .allocate(end)
            .and_then(|()| self.file.write_all_at(&self.buf, self.len))
            .and_then(|()| self.file.sync_data());
        if let Err(e) = written {
            self.broken = self
                .file
                .set_len(self.len)
                .and_then(|()| self.file.sync_data())
                .is_err();
            self.allocated = self.len;
            return Err(e);
        }
        self.len += u64::try_from(self.buf.len()).unwrap_or(u64::MAX);
        Ok(())
    }

    /// Writes zeros from the file's end up to `end` rounded up to
    /// [`ALLOCATE`] bytes, if it ends before `end`. They are synced with
    /// the records written next.
    fn allocate(&mut self, end: u64) -> io::Result<()> {
        if end <= self.allocated || self.generation.is_none() {
            return Ok(());
        }
        let target = end.div_ceil(ALLOCATE).saturating_mul(ALLOCATE);
        let zeros = vec![0; 64 * 1024];
        let mut at = self.allocated;
        while at < target {
            let n = (target - at).min(zeros.len() as u64);
            self.file.write_all_at(&zeros[..n as usize], at)?;
            at += n;
        }
        self.allocated = target;
        Ok(())
    }

    /// Starts the log over, once everything in it is in the database:
    /// a header of the next generation, so that the records already in
    /// the file no longer match their checksums. The header is synced
    /// before any new record is written, so that a crash can never leave
    /// new records in front of old ones. If it fails, the log takes no
    /// appends until a start-over succeeds: which generation the file
    /// holds is not known.
    pub(super) fn restart(&mut self) -> io::Result<()> {
        let next = self.generation.map_or(1, |g| g.wrapping_add(1));
        if self.generation.is_none() {
            // A log without a header (or a new one): emptied, then
            // written full of zeros ahead.
            self.file.set_len(0)?;
            self.allocated = 0;
            self.len = 0;
        }
        self.broken = true;
        let mut header = [0; FILE_HEADER as usize];
        header[..8].copy_from_slice(MAGIC);
        header[8..].copy_from_slice(&next.to_le_bytes());
        self.file.write_all_at(&header, 0)?;
        self.allocated = self.allocated.max(FILE_HEADER);
        self.generation = Some(next);
        self.allocate(FILE_HEADER + 1)?;
        self.file.sync_data()?;
        self.len = FILE_HEADER;
        self.broken = false;
        Ok(())
    }

    /// Whether the log takes no appends until it starts over.
    pub(super) fn is_broken(&self) -> bool {
        self.broken
    }

    /// Where the next record goes.
    #[cfg(test)]
    pub(super) fn len(&self) -> u64 {
        self.len
    }

    /// Fails a start-over, as a full or failing disk would: the header is
    /// written through a handle that cannot write. The log is then broken,
    /// and its file writable again.
    #[cfg(test)]
    pub(super) fn fail_a_start_over(&mut self, path: &Path) {
        let writable = std::mem::replace(&mut self.file, File::open(path).unwrap());
        assert!(self.restart().is_err());
        self.file = writable;
        assert!(self.broken);
    }
}

/// The records the log at `path` holds, read without taking it.
#[cfg(test)]
pub(super) fn records_in(path: &Path) -> Vec<LoggedRow> {
    read_log(&std::fs::read(path).unwrap_or_default()).1
}

/// The generation in the header `bytes` start with, if they have one.
fn generation_of(bytes: &[u8]) -> Option<u64> {
    let header = bytes.get(..FILE_HEADER as usize)?;
    let (magic, generation) = header.split_at(MAGIC.len());
    (magic == MAGIC).then(|| u64::from_le_bytes(generation.try_into().unwrap_or_default()))
}

/// The checksum of a record's `payload` in a log of `generation`.
fn checksum(generation: Option<u64>, payload: &[u8]) -> u32 {
    let mut hasher = crc32fast::Hasher::new();
    if let Some(generation) = generation {
        hasher.update(&generation.to_le_bytes());
    }
    hasher.update(payload);
    hasher.finalize()
}

/// Writes one event's record to `buf`, for a log of `generation`.
fn encode(buf: &mut Vec<u8>, table: &str, event: &StoredEvent, generation: Option<u64>) {
    let start = buf.len();
    buf.extend_from_slice(&[0; HEADER]);
    put_str(buf, table);
    buf.extend_from_slice(
        &i64::try_from(event.version)
            .unwrap_or(i64::MAX)
            .to_le_bytes(),
    );
    put_str(buf, event.kind);
    put_opt(buf, event.side);
    put_opt(buf, event.action.as_deref());
    put_opt(buf, event.player);
    put_opt(buf, event.client_id.as_deref());
    buf.extend_from_slice(&event.at.to_le_bytes());
    buf.extend_from_slice(&event.board.to_le_bytes());
    let payload = &buf[start + HEADER..];
    let len = u32::try_from(payload.len()).unwrap_or(u32::MAX);
    let crc = checksum(generation, payload);
    buf[start..start + 4].copy_from_slice(&len.to_le_bytes());
    buf[start + 4..start + HEADER].copy_from_slice(&crc.to_le_bytes());
}

fn put_str(buf: &mut Vec<u8>, text: &str) {
    // Every text of an event is far shorter than 4 GiB: the protocol
    // bounds a frame at 16 KiB.
    buf.extend_from_slice(&u32::try_from(text.len()).unwrap_or(u32::MAX).to_le_bytes());
    buf.extend_from_slice(text.as_bytes());
}

fn put_opt(buf: &mut Vec<u8>, text: Option<&str>) {
    match text {
        None => buf.push(0),
        Some(text) => {
            buf.push(1);
            put_str(buf, text);
        }
    }
}

/// What a log's `bytes` hold: its generation (none in a log written
/// before the header), its whole records after the header, and where
/// they end. Reading stops at the first record cut short, or whose
/// checksum or fields are wrong.
fn read_log(bytes: &[u8]) -> (Option<u64>, Vec<LoggedRow>, usize) {
    let generation = generation_of(bytes);
    let mut at = if generation.is_some() {
        FILE_HEADER as usize
    } else {
        0
    };
    let mut rows = Vec::new();
    while let Some((row, next)) = read_record(bytes, at, generation) {
        rows.push(row);
        at = next;
    }
    (generation, rows, at)
}

/// The record of `generation` at `at`, and where the next one starts.
fn read_record(bytes: &[u8], at: usize, generation: Option<u64>) -> Option<(LoggedRow, usize)> {
    let header = bytes.get(at..at.checked_add(HEADER)?)?;
    let len = u32::from_le_bytes(header[..4].try_into().ok()?);
    let crc = u32::from_le_bytes(header[4..].try_into().ok()?);
    let start = at + HEADER;
    let end = start.checked_add(usize::try_from(len).ok()?)?;
    let payload = bytes.get(start..end)?;
    if checksum(generation, payload) != crc {
        return None;
    }
    let mut fields = Fields(payload);
    let row = LoggedRow {
        table: fields.text()?,
        version: fields.number()?,
        kind: fields.text()?,
        side: fields.optional()?,
        action: fields.optional()?,
        player: fields.optional()?,
        client_id: fields.optional()?,
        at: fields.number()?,
        board: fields.number()?,
    };
    fields.0.is_empty().then_some((row, end))
}

/// The fields of a record's payload, read front to back.
struct Fields<'a>(&'a [u8]);

impl Fields<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        if self.0.len() < n {
            return None;
        }
        let (taken, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(taken)
    }

    fn number(&mut self) -> Option<i64> {
        Some(i64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    fn text(&mut self) -> Option<String> {
        let len = u32::from_le_bytes(self.take(4)?.try_into().ok()?);
        let bytes = self.take(usize::try_from(len).ok()?)?;
        String::from_utf8(bytes.to_vec()).ok()
    }

    fn optional(&mut self) -> Option<Option<String>> {
        match self.take(1)?[0] {
            0 => Some(None),
            1 => self.text().map(Some),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(version: u64, action: Option<&str>) -> StoredEvent {
        StoredEvent {
            version,
            kind: "action",
            side: Some("goats"),
            action: action.map(|a| a.to_owned().into()),
            player: Some("host"),
            client_id: Some(format!("id-{version}")),
            at: 1_700_000_000_000 + i64::try_from(version).unwrap(),
            board: 1,
        }
    }

    fn row(table: &str, event: &StoredEvent) -> LoggedRow {
        LoggedRow {
            table: table.to_owned(),
            version: i64::try_from(event.version).unwrap(),
            kind: event.kind.to_owned(),
            side: event.side.map(str::to_owned),
            action: event.action.as_deref().map(str::to_owned),
            player: event.player.map(str::to_owned),
            client_id: event.client_id.clone(),
            at: event.at,
            board: event.board,
        }
    }

    fn reopen(path: &Path) -> (EventLog, Vec<LoggedRow>) {
        EventLog::open(path)
            .unwrap()
            .expect("nobody else holds the log")
    }

    #[test]
    fn appended_events_read_back_in_order_after_a_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let path = path_of(&dir.path().join("db.sqlite"));
        let a = [event(1, Some("c3")), event(2, None)];
        let b = [event(7, Some("a1-a2"))];
        {
            let (mut log, rows) = reopen(&path);
            assert!(rows.is_empty());
            log.append([("t1", &a[..]), ("t2", &b[..])]).unwrap();
            log.append([("t1", &a[1..])]).unwrap();
        }
        let (_, rows) = reopen(&path);
        let expected = vec![
            row("t1", &a[0]),
            row("t1", &a[1]),
            row("t2", &b[0]),
            row("t1", &a[1]),
        ];
        assert_eq!(rows, expected);
    }

    #[test]
    fn a_torn_or_damaged_tail_is_left_out_and_written_over() {
        let dir = tempfile::tempdir().unwrap();
        let path = path_of(&dir.path().join("db.sqlite"));
        let kept = [event(1, Some("c3"))];
        let lost = [event(2, Some("b2"))];
        let (whole, end);
        {
            let (mut log, _) = reopen(&path);
            log.append([("t", &kept[..])]).unwrap();
            whole = log.len();
            log.append([("t", &lost[..])]).unwrap();
            end = log.len();
        }
        let full = std::fs::read(&path).unwrap();
        let whole = usize::try_from(whole).unwrap();
        // Every cut inside the second record, and a flipped byte in it.
        for cut in whole..usize::try_from(end).unwrap() {
            std::fs::write(&path, &full[..cut]).unwrap();
            assert_eq!(reopen(&path).1, vec![row("t", &kept[0])], "cut at {cut}");
        }
        let mut damaged = full.clone();
        damaged[whole + HEADER + 3] ^= 0x40;
        std::fs::write(&path, &damaged).unwrap();
        assert_eq!(reopen(&path).1, vec![row("t", &kept[0])]);
        // The next append goes where the whole records end.
        std::fs::write(&path, &full[..whole + 5]).unwrap();
        {
            let (mut log, _) = reopen(&path);
            assert_eq!(log.len(), u64::try_from(whole).unwrap());
            log.append([("t", &lost[..])]).unwrap();
        }
        let expected = vec![row("t", &kept[0]), row("t", &lost[0])];
        assert_eq!(reopen(&path).1, expected);
    }

    #[test]
    fn a_restarted_log_is_empty_and_takes_new_records() {
        let dir = tempfile::tempdir().unwrap();
        let path = path_of(&dir.path().join("db.sqlite"));
        let first = [event(1, Some("c3")), event(2, Some("a1"))];
        let next = [event(3, Some("b1"))];
        {
            let (mut log, _) = reopen(&path);
            log.append([("t", &first[..])]).unwrap();
            log.restart().unwrap();
            assert_eq!(log.len(), FILE_HEADER);
            log.append([("t", &next[..])]).unwrap();
        }
        // The first records are still in the file after the new one, but
        // of the generation before.
        assert_eq!(reopen(&path).1, vec![row("t", &next[0])]);
    }

    #[test]
    fn records_of_an_earlier_generation_are_never_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = path_of(&dir.path().join("db.sqlite"));
        // The new record is as long as each old one, so that it ends
        // where the second old one starts.
        let old: Vec<_> = (10..=49).map(|v| event(v, Some("c3"))).collect();
        let new = [event(50, Some("b1"))];
        for round in 0..3 {
            {
                let (mut log, found) = reopen(&path);
                let expected = if round == 0 {
                    vec![]
                } else {
                    vec![row("t", &new[0])]
                };
                assert_eq!(found, expected, "round {round}");
                log.restart().unwrap();
                // Many records, then a start-over and one record: the
                // old ones after it are not read, whole as they are.
                log.append([("t", &old[..])]).unwrap();
                log.restart().unwrap();
                log.append([("t", &new[..])]).unwrap();
            }
            assert_eq!(reopen(&path).1, vec![row("t", &new[0])], "round {round}");
        }
    }

    #[test]
    fn appends_write_over_zeros_the_file_already_holds() {
        let dir = tempfile::tempdir().unwrap();
        let path = path_of(&dir.path().join("db.sqlite"));
        let size = || std::fs::metadata(&path).unwrap().len();
        let (mut log, _) = reopen(&path);
        assert_eq!(size(), ALLOCATE, "a new log is written ahead");
        let events: Vec<_> = (1..=200).map(|v| event(v, Some("a1-a2"))).collect();
        log.append([("t", &events[..])]).unwrap();
        assert!(log.len() < ALLOCATE / 4);
        assert_eq!(size(), ALLOCATE, "an append within it does not grow it");
        // Past its end, the file grows by whole allocations.
        let mut appended = 200;
        while log.len() <= ALLOCATE {
            log.append([("t", &events[..])]).unwrap();
            appended += 200;
        }
        assert_eq!(size(), 2 * ALLOCATE);
        drop(log);
        assert_eq!(reopen(&path).1.len(), appended);
    }

    #[test]
    fn a_log_without_a_header_is_read_and_gets_one_when_it_starts_over() {
        let dir = tempfile::tempdir().unwrap();
        let path = path_of(&dir.path().join("db.sqlite"));
        // A log as written before the header existed: records with the
        // payload's checksum alone, from the file's first byte.
        let earlier = [event(1, Some("c3")), event(2, Some("a1"))];
        let mut bytes = Vec::new();
        for event in &earlier {
            encode(&mut bytes, "t", event, None);
        }
        std::fs::write(&path, &bytes).unwrap();
        let later = [event(3, Some("b1"))];
        {
            let (mut log, found) = reopen(&path);
            assert_eq!(found, vec![row("t", &earlier[0]), row("t", &earlier[1])]);
            // Appended as it is written, until it starts over.
            log.append([("t", &later[..])]).unwrap();
        }
        {
            let (mut log, found) = reopen(&path);
            assert_eq!(found.len(), 3);
            log.restart().unwrap();
            log.append([("t", &later[..])]).unwrap();
        }
        assert_eq!(generation_of(&std::fs::read(&path).unwrap()), Some(1));
        assert_eq!(reopen(&path).1, vec![row("t", &later[0])]);
    }

    #[test]
    fn a_failed_start_over_takes_no_append_until_one_succeeds() {
        let dir = tempfile::tempdir().unwrap();
        let path = path_of(&dir.path().join("db.sqlite"));
        let before = [event(1, Some("c3")), event(2, Some("a1"))];
        let after = [event(3, Some("b1"))];
        {
            let (mut log, _) = reopen(&path);
            log.append([("t", &before[..])]).unwrap();
            let generation = log.generation;
            log.fail_a_start_over(&path);
            assert_eq!(log.generation, generation);
            // Writable again, it still takes no append: which generation
            // the file holds is not known until a start-over succeeds.
            assert!(log.append([("t", &after[..])]).is_err());
            log.restart().unwrap();
            assert!(!log.is_broken());
            assert_eq!(log.generation, generation.map(|g| g + 1));
            log.append([("t", &after[..])]).unwrap();
        }
        assert_eq!(reopen(&path).1, vec![row("t", &after[0])]);
    }

    #[test]
    fn a_held_log_is_not_opened_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = path_of(&dir.path().join("db.sqlite"));
        let (mut held, _) = reopen(&path);
        held.append([("t", &[event(1, Some("c3"))][..])]).unwrap();
        // Another open file description, as another process has.
        assert!(EventLog::open(&path).unwrap().is_none());
        drop(held);
        assert_eq!(reopen(&path).1.len(), 1);
    }
}
