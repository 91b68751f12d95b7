//! The server's tablebase: read from its file in the data directory, or,
//! when there is no file, built there in the background at the lowest CPU
//! priority, and handed to the computer as soon as it is ready, without a
//! restart.
//!
//! One thread owns the work ([`TablebaseSlot::start`]); the run stops it
//! at shutdown ([`TablebaseSlot::stop`]), which cancels a build between
//! two of its steps. Between its steps the build also yields to play
//! ([`crate::throttle`]): the tables count their actions in the slot's
//! [`Activity`]. A build writes `FILE.partial` and renames it, so a file
//! found at start is always a whole one.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::JoinHandle;
use std::time::Instant;

use baghchal_engine::{Engine, Level};
use baghchal_protocol as wire;
use baghchal_rules::{Action, Game, Position};
use baghchal_tablebase::{Indexer, Progress, Shape, Tablebase};
use serde::Serialize;
use tokio::sync::watch;

use crate::bot::Bot;
use crate::throttle::{Activity, Duty, Throttle};

/// The tablebase's file name in the data directory.
pub const FILE_NAME: &str = "baghchal.tb";

/// Where the server's tablebase stands; `GET /readyz` reports it.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum TablebaseState {
    /// Turned off: the computer plays without it.
    Off,
    /// Not looked for yet, or a build was cancelled.
    Absent,
    /// The file was found and is being read and checked.
    Loading,
    /// There was no file: it is being built, `done` of `total` units of
    /// work so far.
    Building {
        /// Units of work done.
        done: u64,
        /// Units of work in the whole build.
        total: u64,
    },
    /// The computer uses it.
    Ready,
    /// It could not be read or built (the log says why); the computer
    /// plays without it.
    Failed,
}

impl TablebaseState {
    /// The state as `GET /metrics` reports it.
    pub fn gauges(self) -> crate::stats::TablebaseGauges {
        crate::stats::TablebaseGauges {
            ready: self == TablebaseState::Ready,
            progress: match self {
                TablebaseState::Ready => 1.0,
                TablebaseState::Building { done, total } if total > 0 => done as f64 / total as f64,
                _ => 0.0,
            },
        }
    }
}

/// Builds the tablebase when its file is missing.
pub trait Builder: Send + Sync + 'static {
    /// Units of work in a build, for the progress report.
    fn work(&self) -> u64;

    /// Builds it, reporting to `progress` and giving up with
    /// [`io::ErrorKind::Interrupted`] once `progress` is cancelled.
    fn build(&self, progress: &dyn Progress) -> io::Result<Tablebase>;
}

/// The house rules' tablebase (some 45 s and 450 MB on two cores), solved
/// on its own pool of threads that run at the lowest priority, so that the
/// tables' threads always come first (and that pause while there is play,
/// see [`crate::throttle`]).
pub struct HouseBuilder {
    /// Worker threads.
    pub threads: usize,
}

impl Builder for HouseBuilder {
    fn work(&self) -> u64 {
        baghchal_tablebase::work(Shape::HOUSE, &Indexer::new())
    }

    fn build(&self, progress: &dyn Progress) -> io::Result<Tablebase> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(self.threads.max(1))
            .thread_name(|i| format!("tablebase-{i}"))
            .start_handler(|_| lower_priority())
            .build()
            .map_err(io::Error::other)?;
        pool.install(|| Tablebase::build(progress))
    }
}

/// Moves the calling thread (not the process) to the lowest priority there
/// is. On Linux that is the idle scheduling class (`SCHED_IDLE`): the
/// thread runs only on a core that no other thread wants, and any other
/// thread that wakes takes its core at once. Nice 19 alone is not enough:
/// a nice 19 thread keeps its core for the rest of its time slice when a
/// table's thread wakes, which put tens of milliseconds on the p99 of
/// play while the tablebase was built. Where the class is refused, the
/// thread falls back to nice 19; elsewhere the build runs at the normal
/// priority.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    {
        let param = libc::sched_param { sched_priority: 0 };
        // SAFETY: sched_setscheduler reads `param` and changes the calling
        // thread's (pid 0) scheduling only; gettid and setpriority only
        // read their arguments.
        let idle = unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) == 0 };
        if idle {
            return;
        }
        let refused = io::Error::last_os_error();
        let niced = unsafe {
            let tid = libc::gettid();
            libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, 19) == 0
        };
        if niced {
            tracing::debug!(error = %refused, "no idle class for the tablebase thread: nice 19");
        } else {
            tracing::warn!(
                error = %io::Error::last_os_error(),
                "cannot lower the tablebase thread's priority"
            );
        }
    }
}

/// The server's tablebase, shared by the computer, `/readyz` and the run
/// that starts and stops its thread. Cheap to clone.
#[derive(Clone)]
pub struct TablebaseSlot {
    inner: Arc<Inner>,
}

struct Inner {
    /// Where the file is and how to build it; `None` when off.
    source: Option<Source>,
    /// Set once, when the tablebase is ready.
    tablebase: OnceLock<Arc<Tablebase>>,
    /// The state; while building, its `done` is the one at the start and
    /// `done` below is the current count.
    state: watch::Sender<TablebaseState>,
    /// Units of work done by the build.
    done: AtomicU64,
    /// The last tenth of the build logged.
    logged: AtomicU64,
    /// Set at shutdown: the build stops at its next step.
    cancel: AtomicBool,
    /// Pauses the build while there is play.
    throttle: Throttle,
    /// The thread that loads or builds, until it is joined.
    worker: Mutex<Option<JoinHandle<()>>>,
}

struct Source {
    path: PathBuf,
    builder: Arc<dyn Builder>,
}

impl TablebaseSlot {
    /// No tablebase: the computer plays without one.
    pub fn off() -> TablebaseSlot {
        let throttle = Throttle::new(Activity::default(), Duty::default());
        TablebaseSlot::with(None, TablebaseState::Off, throttle)
    }

    /// The tablebase of the file at `path`, built there by `builder` when
    /// the file is missing, once [`TablebaseSlot::start`] is called; the
    /// build yields to play with the default [`Duty`].
    pub fn new(path: impl Into<PathBuf>, builder: Arc<dyn Builder>) -> TablebaseSlot {
        let throttle = Throttle::new(Activity::default(), Duty::default());
        TablebaseSlot::with_throttle(path, builder, throttle)
    }

    /// [`TablebaseSlot::new`], with the build paused by `throttle`.
    pub fn with_throttle(
        path: impl Into<PathBuf>,
        builder: Arc<dyn Builder>,
        throttle: Throttle,
    ) -> TablebaseSlot {
        let source = Source {
            path: path.into(),
            builder,
        };
        TablebaseSlot::with(Some(source), TablebaseState::Absent, throttle)
    }

    fn with(source: Option<Source>, state: TablebaseState, throttle: Throttle) -> TablebaseSlot {
        TablebaseSlot {
            inner: Arc::new(Inner {
                source,
                tablebase: OnceLock::new(),
                state: watch::Sender::new(state),
                done: AtomicU64::new(0),
                logged: AtomicU64::new(0),
                cancel: AtomicBool::new(false),
                throttle,
                worker: Mutex::new(None),
            }),
        }
    }

    /// The tablebase, once it is ready.
    pub fn get(&self) -> Option<Arc<Tablebase>> {
        self.inner.tablebase.get().cloned()
    }

    /// Where it stands now, with the build's progress.
    pub fn state(&self) -> TablebaseState {
        match *self.inner.state.borrow() {
            TablebaseState::Building { total, .. } => TablebaseState::Building {
                done: self.inner.done.load(Relaxed).min(total),
                total,
            },
            state => state,
        }
    }

    /// Where the tables count their actions, for the build's throttle.
    pub fn activity(&self) -> Activity {
        self.inner.throttle.activity().clone()
    }

    /// Follows the state's changes (without the build's progress).
    pub fn subscribe(&self) -> watch::Receiver<TablebaseState> {
        self.inner.state.subscribe()
    }

    /// Starts the thread that reads or builds the tablebase, unless it is
    /// off or already started.
    pub fn start(&self) -> io::Result<()> {
        if self.inner.source.is_none() {
            return Ok(());
        }
        let mut worker = self.inner.worker.lock().expect("the worker lock");
        if worker.is_some() || *self.inner.state.borrow() != TablebaseState::Absent {
            return Ok(());
        }
        let inner = Arc::clone(&self.inner);
        *worker = Some(
            std::thread::Builder::new()
                .name("tablebase".into())
                .spawn(move || inner.provide())?,
        );
        Ok(())
    }

    /// Cancels a build in progress and waits for the thread (a file being
    /// read is read to the end).
    pub async fn stop(&self) {
        self.inner.cancel.store(true, Relaxed);
        let worker = self.inner.worker.lock().expect("the worker lock").take();
        if let Some(worker) = worker {
            if tokio::task::spawn_blocking(move || worker.join())
                .await
                .is_err()
            {
                tracing::error!("the tablebase thread failed");
            }
        }
    }
}

impl Inner {
    /// The thread's work: read the file, or build and write it.
    fn provide(&self) {
        let source = self.source.as_ref().expect("started only with a source");
        let path = source.path.as_path();
        if path.exists() {
            self.state.send_replace(TablebaseState::Loading);
            tracing::info!(path = %path.display(), "loading the tablebase");
            match Tablebase::load(path) {
                Ok(tablebase) => self.ready(tablebase),
                Err(e) => {
                    tracing::error!(
                        path = %path.display(),
                        error = %e,
                        "the tablebase file cannot be read; the computer plays without it \
                         (delete the file to have it built again)"
                    );
                    self.state.send_replace(TablebaseState::Failed);
                }
            }
            return;
        }
        lower_priority();
        let total = source.builder.work();
        self.state
            .send_replace(TablebaseState::Building { done: 0, total });
        tracing::info!(
            path = %path.display(),
            "no tablebase file: building it in the background; the computer plays without it until then"
        );
        let started = Instant::now();
        let built = source.builder.build(&Tracker { inner: self, total });
        match built {
            Ok(tablebase) => {
                tracing::info!(seconds = started.elapsed().as_secs(), "tablebase built");
                if let Err(e) = save(&tablebase, path) {
                    tracing::error!(
                        path = %path.display(),
                        error = %e,
                        "cannot write the tablebase file; it will be built again at the next start"
                    );
                }
                self.ready(tablebase);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {
                tracing::info!("tablebase build cancelled");
                self.state.send_replace(TablebaseState::Absent);
            }
            Err(e) => {
                tracing::error!(error = %e, "the tablebase build failed; the computer plays without it");
                self.state.send_replace(TablebaseState::Failed);
            }
        }
    }

    fn ready(&self, tablebase: Tablebase) {
        let _ = self.tablebase.set(Arc::new(tablebase));
        self.state.send_replace(TablebaseState::Ready);
        tracing::info!("tablebase ready: the computer uses it from its next action");
    }
}

/// Writes `tablebase` beside `path` and renames it into place, so that a
/// file at `path` is always whole.
fn save(tablebase: &Tablebase, path: &Path) -> io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let mut partial = path.as_os_str().to_owned();
    partial.push(".partial");
    let partial = PathBuf::from(partial);
    tablebase.save(&partial)?;
    std::fs::rename(&partial, path)
}

/// The build's progress: counted for `/readyz`, logged every tenth.
struct Tracker<'a> {
    inner: &'a Inner,
    total: u64,
}

impl Progress for Tracker<'_> {
    fn tier(&self, eaten: u32) {
        tracing::debug!(eaten, "tablebase: solving a tier");
    }

    fn advance(&self, n: u64) {
        let done = self.inner.done.fetch_add(n, Relaxed) + n;
        let tenth = done.min(self.total) * 10 / self.total.max(1);
        let logged = self.inner.logged.fetch_max(tenth, Relaxed);
        if tenth > logged {
            tracing::info!(percent = tenth * 10, "building the tablebase");
        }
    }

    fn cancelled(&self) -> bool {
        self.inner.cancel.load(Relaxed)
    }

    fn pause(&self) {
        self.inner.throttle.pause(&|| self.cancelled());
    }
}

/// The directory beside an SQLite database file (`sqlite://dir/x.db?...`),
/// or the current directory for any other database.
///
/// ```
/// use std::path::PathBuf;
/// use baghchal_server::tablebase::data_dir_of;
/// assert_eq!(data_dir_of("sqlite:///var/lib/baghchal/baghchal.db?mode=rwc"),
///            PathBuf::from("/var/lib/baghchal"));
/// assert_eq!(data_dir_of("sqlite://baghchal.db?mode=rwc"), PathBuf::from("."));
/// assert_eq!(data_dir_of("postgres://user@host/db"), PathBuf::from("."));
/// ```
pub fn data_dir_of(database_url: &str) -> PathBuf {
    let file = database_url
        .strip_prefix("sqlite://")
        .or_else(|| database_url.strip_prefix("sqlite:"))
        .map(|rest| rest.split('?').next().unwrap_or(rest))
        .filter(|file| !file.is_empty() && !file.starts_with(':'));
    match file.and_then(|f| Path::new(f).parent()) {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_owned(),
        _ => PathBuf::from("."),
    }
}

/// Where the server keeps its tablebase, and where every tool that reads
/// it looks: `file` when one is named, else [`FILE_NAME`] in `data_dir`,
/// which defaults to the database's directory ([`data_dir_of`]).
///
/// ```
/// use std::path::{Path, PathBuf};
/// use baghchal_server::tablebase::tablebase_path;
/// let url = "sqlite:///var/lib/baghchal/baghchal.db?mode=rwc";
/// assert_eq!(tablebase_path(None, None, url), PathBuf::from("/var/lib/baghchal/baghchal.tb"));
/// assert_eq!(tablebase_path(None, Some(Path::new("/data")), url), PathBuf::from("/data/baghchal.tb"));
/// assert_eq!(tablebase_path(Some(Path::new("x.tb")), Some(Path::new("/data")), url), PathBuf::from("x.tb"));
/// ```
pub fn tablebase_path(file: Option<&Path>, data_dir: Option<&Path>, database_url: &str) -> PathBuf {
    match (file, data_dir) {
        (Some(file), _) => file.to_owned(),
        (None, Some(dir)) => dir.join(FILE_NAME),
        (None, None) => data_dir_of(database_url).join(FILE_NAME),
    }
}

/// The engine with the server's tablebase from the moment it is ready:
/// each choice and each analysis takes what the slot holds at its start.
pub struct LiveEngine(pub TablebaseSlot);

impl LiveEngine {
    /// The engine for one action or analysis.
    pub fn engine(&self) -> Engine {
        match self.0.get() {
            Some(tablebase) => Engine::with_tablebase(tablebase),
            None => Engine::new(),
        }
    }
}

impl Bot for LiveEngine {
    fn choose(&self, position: &Position, level: Level, seed: u64) -> Option<Action> {
        Engine::choose(&self.engine(), position, level, seed)
    }

    fn analyse(&self, game: &Game) -> Option<Vec<wire::ActionReview>> {
        Bot::analyse(&self.engine(), game)
    }

    fn value_actions(&self, game: &Game) -> Option<Vec<wire::ActionValue>> {
        Bot::value_actions(&self.engine(), game)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use baghchal_tablebase::Silent;

    use super::*;
    use crate::throttle::FakeClock;

    /// Two tiers of twenty goats: solved in a moment.
    const SMALL: Shape = Shape {
        goats: 20,
        target: 2,
    };

    struct SmallBuilder;

    impl Builder for SmallBuilder {
        fn work(&self) -> u64 {
            baghchal_tablebase::work(SMALL, &Indexer::new())
        }

        fn build(&self, progress: &dyn Progress) -> io::Result<Tablebase> {
            Tablebase::build_shape(SMALL, progress)
        }
    }

    /// A directory of its own for one test, removed at the end.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(name: &str) -> TempDir {
            let dir = std::env::temp_dir()
                .join(format!("baghchal-throttled-{name}-{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            TempDir(dir)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// Waits for a state; the timeout only keeps a broken build from
    /// hanging the suite (a small build in a debug binary on a machine
    /// busy with other work has taken over a minute).
    async fn until(slot: &TablebaseSlot, done: fn(&TablebaseState) -> bool) {
        let mut states = slot.subscribe();
        tokio::time::timeout(Duration::from_secs(600), states.wait_for(done))
            .await
            .expect("the tablebase state changes in time")
            .expect("the slot is alive");
    }

    #[tokio::test]
    async fn under_constant_play_the_build_rests_and_still_writes_the_whole_tablebase() {
        let dir = TempDir::new("busy");
        let activity = Activity::default();
        let clock = Arc::new(FakeClock::playing(activity.clone()));
        let throttle = Throttle::with_clock(activity.clone(), Duty::default(), clock.clone());
        let file = dir.0.join(FILE_NAME);
        let slot = TablebaseSlot::with_throttle(&file, Arc::new(SmallBuilder), throttle);
        slot.activity().record();
        slot.start().unwrap();

        until(&slot, |s| *s == TablebaseState::Ready).await;
        assert!(clock.slept() > Duration::ZERO, "the build rested");
        let silent = dir.0.join("silent.tb");
        Tablebase::build_shape(SMALL, &Silent)
            .unwrap()
            .save(&silent)
            .unwrap();
        assert_eq!(
            std::fs::read(&file).unwrap(),
            std::fs::read(&silent).unwrap()
        );
        slot.stop().await;
    }

    #[tokio::test]
    async fn a_build_resting_for_play_is_cancelled_at_shutdown() {
        let dir = TempDir::new("cancel");
        // Play, and rests of an hour: the build waits in its first pause.
        let duty = Duty {
            slice: Duration::ZERO,
            rest: Duration::from_secs(3600),
            quiet: Duration::from_secs(3600),
        };
        let throttle = Throttle::new(Activity::default(), duty);
        let file = dir.0.join(FILE_NAME);
        let slot = TablebaseSlot::with_throttle(&file, Arc::new(SmallBuilder), throttle);
        slot.activity().record();
        slot.start().unwrap();

        until(&slot, |s| matches!(s, TablebaseState::Building { .. })).await;
        slot.stop().await;
        assert_eq!(slot.state(), TablebaseState::Absent);
        assert!(!file.exists());
    }
}
