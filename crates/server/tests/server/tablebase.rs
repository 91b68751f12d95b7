//! The tablebase in the background: built when its file is missing, read
//! when it is there, reported by `/readyz`, handed to the computer when
//! ready, cancelled at shutdown, or off. Small shapes stand in for the
//! house tablebase, which takes a minute to build.

use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use baghchal_server::tablebase::{Builder, LiveEngine, TablebaseSlot, TablebaseState};
use baghchal_tablebase::{Indexer, Progress, Shape, Tablebase};
use serde_json::{json, Value};
use tokio::sync::watch;

use crate::common::{TestDb, TestServer, PATIENCE};

/// One tier of twenty goats: solved in a moment.
const SMALL: Shape = Shape {
    goats: 20,
    target: 1,
};

/// A directory of its own for one test, removed at the end.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> TempDir {
        let mut bytes = [0u8; 8];
        getrandom::fill(&mut bytes).unwrap();
        let dir =
            std::env::temp_dir().join(format!("baghchal-tablebase-{}", u64::from_le_bytes(bytes)));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn file(&self) -> PathBuf {
        self.0.join("baghchal.tb")
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Builds the small shape once its gate opens, and counts its builds.
struct GatedBuilder {
    gate: Mutex<mpsc::Receiver<()>>,
    builds: AtomicUsize,
}

impl GatedBuilder {
    fn new() -> (Arc<GatedBuilder>, mpsc::Sender<()>) {
        let (open, gate) = mpsc::channel();
        let builder = GatedBuilder {
            gate: Mutex::new(gate),
            builds: AtomicUsize::new(0),
        };
        (Arc::new(builder), open)
    }
}

impl Builder for GatedBuilder {
    fn work(&self) -> u64 {
        baghchal_tablebase::work(SMALL, &Indexer::new())
    }

    fn build(&self, progress: &dyn Progress) -> io::Result<Tablebase> {
        self.builds.fetch_add(1, Relaxed);
        let _ = self.gate.lock().unwrap().recv();
        Tablebase::build_shape(SMALL, progress)
    }
}

/// Works until it is cancelled.
struct EndlessBuilder;

impl Builder for EndlessBuilder {
    fn work(&self) -> u64 {
        1
    }

    fn build(&self, progress: &dyn Progress) -> io::Result<Tablebase> {
        while !progress.cancelled() {
            std::thread::park_timeout(Duration::from_millis(5));
        }
        Err(io::Error::new(io::ErrorKind::Interrupted, "cancelled"))
    }
}

async fn until(states: &mut watch::Receiver<TablebaseState>, done: fn(&TablebaseState) -> bool) {
    tokio::time::timeout(PATIENCE, states.wait_for(done))
        .await
        .expect("the tablebase state changes in time")
        .expect("the slot is alive");
}

async fn readiness(server: &TestServer) -> Value {
    let (status, body) = server.get("/readyz").await;
    assert_eq!(status, 200, "{body}");
    serde_json::from_str(&body).unwrap()
}

fn server_with(db: &TestDb, slot: &TablebaseSlot) -> baghchal_server::Config {
    let mut config = TestServer::config(db);
    config.tablebase = slot.clone();
    config.bot = Arc::new(LiveEngine(slot.clone()));
    config
}

#[tokio::test]
async fn a_missing_tablebase_is_built_in_the_background_and_used_once_ready() {
    let db = TestDb::sqlite();
    let dir = TempDir::new();
    let (builder, open) = GatedBuilder::new();
    let slot = TablebaseSlot::new(dir.file(), builder.clone());
    let computer = LiveEngine(slot.clone());
    assert_eq!(slot.state(), TablebaseState::Absent);
    let mut states = slot.subscribe();
    let server = TestServer::start_with(server_with(&db, &slot)).await;

    until(&mut states, |s| {
        matches!(s, TablebaseState::Building { .. })
    })
    .await;
    let total = baghchal_tablebase::work(SMALL, &Indexer::new());
    assert_eq!(
        readiness(&server).await,
        json!({"database": "ok", "tablebase": {"state": "building", "done": 0, "total": total}})
    );
    assert!(computer.engine().tablebase().is_none());

    open.send(()).unwrap();
    until(&mut states, |s| *s == TablebaseState::Ready).await;
    assert_eq!(
        readiness(&server).await,
        json!({"database": "ok", "tablebase": {"state": "ready"}})
    );
    assert!(computer.engine().tablebase().is_some());
    assert_eq!(Tablebase::load(&dir.file()).unwrap().shape(), SMALL);
    assert_eq!(builder.builds.load(Relaxed), 1);
    server.stop().await;
}

#[tokio::test]
async fn a_tablebase_file_that_is_there_is_read_and_not_built() {
    let db = TestDb::sqlite();
    let dir = TempDir::new();
    Tablebase::build_shape(SMALL, &baghchal_tablebase::Silent)
        .unwrap()
        .save(&dir.file())
        .unwrap();
    let (builder, _open) = GatedBuilder::new();
    let slot = TablebaseSlot::new(dir.file(), builder.clone());
    let mut states = slot.subscribe();
    let server = TestServer::start_with(server_with(&db, &slot)).await;

    until(&mut states, |s| *s == TablebaseState::Ready).await;
    assert_eq!(slot.get().unwrap().shape(), SMALL);
    assert_eq!(builder.builds.load(Relaxed), 0);
    server.stop().await;
}

#[tokio::test]
async fn a_tablebase_file_that_does_not_load_is_reported_failed_and_kept() {
    let db = TestDb::sqlite();
    let dir = TempDir::new();
    std::fs::write(dir.file(), b"not a tablebase").unwrap();
    let (builder, _open) = GatedBuilder::new();
    let slot = TablebaseSlot::new(dir.file(), builder.clone());
    let mut states = slot.subscribe();
    let server = TestServer::start_with(server_with(&db, &slot)).await;

    until(&mut states, |s| *s == TablebaseState::Failed).await;
    assert_eq!(
        readiness(&server).await,
        json!({"database": "ok", "tablebase": {"state": "failed"}})
    );
    assert_eq!(std::fs::read(dir.file()).unwrap(), b"not a tablebase");
    assert_eq!(builder.builds.load(Relaxed), 0);
    server.stop().await;
}

#[tokio::test]
async fn shutting_down_cancels_a_build_and_leaves_no_file() {
    let db = TestDb::sqlite();
    let dir = TempDir::new();
    let slot = TablebaseSlot::new(dir.file(), Arc::new(EndlessBuilder));
    let mut states = slot.subscribe();
    let server = TestServer::start_with(server_with(&db, &slot)).await;

    until(&mut states, |s| {
        matches!(s, TablebaseState::Building { .. })
    })
    .await;
    tokio::time::timeout(PATIENCE, server.stop())
        .await
        .expect("the server stops while the tablebase builds");
    assert_eq!(slot.state(), TablebaseState::Absent);
    assert!(!dir.file().exists());
}

#[tokio::test]
async fn with_the_tablebase_off_readyz_says_off() {
    let db = TestDb::sqlite();
    let server = TestServer::start(&db).await;
    assert_eq!(
        readiness(&server).await,
        json!({"database": "ok", "tablebase": {"state": "off"}})
    );
    server.stop().await;
}
