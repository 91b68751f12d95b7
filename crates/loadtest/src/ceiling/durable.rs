//! `--durable FILE`: the ceiling's tables store each action before they
//! answer it, as the table server's do, with nothing else the server's
//! storage does. A writer thread takes every append queued by the time
//! it looks, writes them in one write after the last, syncs it
//! (`fdatasync`), and only then answers each. No database, no fold, no
//! game rows: the floor of durable play on this disk.
//!
//! The file is written full of zeros first ([`AHEAD`] bytes), as the
//! table server's event log is, so that a sync has only data to flush;
//! with `--durable-growing` it grows with each append instead, and each
//! sync commits the file system's journal for its new size.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;

use tokio::sync::{mpsc, oneshot};

/// The zeros written ahead of the records: more than a run of the load
/// benchmark appends.
const AHEAD: usize = 64 << 20;

/// A record and who waits for its sync.
type Append = (Vec<u8>, oneshot::Sender<io::Result<()>>);

/// The log's queue; cloned by every table.
#[derive(Clone)]
pub struct Log {
    queue: mpsc::UnboundedSender<Append>,
}

impl Log {
    /// Creates (or empties) the log at `path`, written full of zeros
    /// unless `growing`, and starts its writer thread, which ends once
    /// every `Log` is dropped.
    pub fn create(path: &Path, growing: bool) -> io::Result<Log> {
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)?;
        if !growing {
            file.write_all_at(&vec![0; AHEAD], 0)?;
        }
        file.sync_all()?;
        let (queue, appends) = mpsc::unbounded_channel();
        std::thread::Builder::new()
            .name("ceiling-log".into())
            .spawn(move || write(&file, appends))?;
        Ok(Log { queue })
    }

    /// Appends `record` (its length goes in front of it) and waits until
    /// it is synced.
    pub async fn append(&self, record: &[u8]) -> io::Result<()> {
        let len = u32::try_from(record.len()).map_err(io::Error::other)?;
        let mut bytes = Vec::with_capacity(4 + record.len());
        bytes.extend_from_slice(&len.to_le_bytes());
        bytes.extend_from_slice(record);
        let (done, synced) = oneshot::channel();
        self.queue
            .send((bytes, done))
            .map_err(|_| io::Error::other("the log's writer stopped"))?;
        synced
            .await
            .map_err(|_| io::Error::other("the log's writer stopped"))?
    }
}

/// The writer thread: a batch of every queued append, one write, one
/// sync, then every answer.
fn write(file: &File, mut appends: mpsc::UnboundedReceiver<Append>) {
    let mut len = 0u64;
    let mut buf = Vec::new();
    let mut waiting = Vec::new();
    while let Some(first) = appends.blocking_recv() {
        let mut next = Some(first);
        while let Some((bytes, done)) = next {
            buf.extend_from_slice(&bytes);
            waiting.push(done);
            next = appends.try_recv().ok();
        }
        let written = file.write_all_at(&buf, len).and_then(|()| file.sync_data());
        if written.is_ok() {
            len += buf.len() as u64;
        }
        for done in waiting.drain(..) {
            let _ = done.send(match &written {
                Ok(()) => Ok(()),
                Err(e) => Err(io::Error::new(e.kind(), e.to_string())),
            });
        }
        buf.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn every_append_is_in_the_file_when_it_is_answered() {
        for growing in [false, true] {
            appends_are_in_the_file_when_answered(growing).await;
        }
    }

    async fn appends_are_in_the_file_when_answered(growing: bool) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        let log = Log::create(&path, growing).unwrap();
        let tasks: Vec<_> = (0..64u32)
            .map(|i| {
                let log = log.clone();
                tokio::spawn(async move {
                    let record = format!("action {i}");
                    log.append(record.as_bytes()).await.unwrap();
                    record
                })
            })
            .collect();
        let mut expected = Vec::new();
        for task in tasks {
            let record = task.await.unwrap();
            assert!(
                records(&head(&path)).contains(&record),
                "{record} was answered before it was in the file"
            );
            expected.push(record);
        }
        let mut found = records(&head(&path));
        found.sort();
        expected.sort();
        assert_eq!(found, expected, "each append once, whole");
    }

    /// The file's first bytes: more than the test's records take.
    fn head(path: &Path) -> Vec<u8> {
        use std::io::Read;
        let mut bytes = Vec::new();
        File::open(path)
            .unwrap()
            .take(64 * 1024)
            .read_to_end(&mut bytes)
            .unwrap();
        bytes
    }

    /// The records of a log's bytes, up to the zeros after them.
    fn records(mut bytes: &[u8]) -> Vec<String> {
        let mut found = Vec::new();
        while let Some((len, rest)) = bytes.split_first_chunk::<4>() {
            let len = u32::from_le_bytes(*len) as usize;
            if len == 0 {
                break;
            }
            let (record, rest) = rest.split_at(len);
            found.push(String::from_utf8(record.to_vec()).unwrap());
            bytes = rest;
        }
        found
    }
}
