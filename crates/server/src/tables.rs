//! The registry of tables: the one seam through which the rest of the
//! server finds a table's task, creating or loading it as needed.
//!
//! On a single node every table runs here. In a cluster ([`Node`]) a table
//! runs on the node that holds its lease in PostgreSQL: this registry takes
//! the lease of a table nobody holds (raising its epoch, which fences the
//! previous owner's writes), renews its leases, stops serving a table whose
//! lease it could not renew in time, and hands out a remote handle for a
//! table another node owns. The rest of the server sees the same
//! [`TableHandle`] either way.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use tokio::time::Instant;

use crate::bot::Computer;
use crate::storage::Storage;
use crate::table::Pace;
use crate::throttle::Activity;

use crate::cluster::Node;
use crate::handle::TableHandle;
use crate::storage::{StorageError, TableRow};
use crate::table::{LocalTable, TableContext, Tenure};
use crate::time::WallClock;
use crate::token::{self, Token};
use baghchal_table::abandon::{IDLE_LIMIT, IDLE_LIMIT_CORRESPONDENCE};
use baghchal_table::options::{Opponent, TableOptions};
use futures_util::stream::{self, StreamExt};
use tokio::sync::OnceCell;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// Why a table could not be created or found.
#[derive(Debug, thiserror::Error)]
pub enum TablesError {
    /// The database failed.
    #[error(transparent)]
    Storage(#[from] StorageError),
    /// The operating system's random source failed.
    #[error("no random bytes: {0}")]
    Random(getrandom::Error),
    /// As many tables are open as the server allows.
    #[error("the server holds its maximum of {0} open tables")]
    Full(usize),
    /// As many bots tables are open as the server allows.
    #[error("the server holds its maximum of {0} open bots tables")]
    BotsFull(usize),
    /// Another node took the table first.
    #[error("another node took the table first")]
    Taken,
    /// The table's owner does not answer and its lease does not run out.
    #[error("the node that owns the table does not answer")]
    Unreachable,
    /// The table was neither reached nor loaded in the time allowed: its
    /// owner, or the database, kept it waiting (a load under way goes on).
    #[error("the table could not be reached or loaded in time")]
    TimedOut,
    /// NATS failed.
    #[error("cluster transport: {0}")]
    Transport(String),
}

/// A new table's tokens: each one for the creator to hand out.
pub struct CreatedTable {
    /// The table id.
    pub id: String,
    /// The host's seat secret (not at a bots table).
    pub host_secret: Option<Token>,
    /// The opponent link's token (friend tables).
    pub invite: Option<Token>,
    /// The spectator link's token (when seats are reserved).
    pub watch: Option<Token>,
}

/// Tables loaded at once when the server resumes them at start-up.
const RESUME_AT_ONCE: usize = 8;
/// Orphaned tables a node takes over per round.
const ORPHANS_PER_ROUND: usize = 64;
/// How long a table nobody has played at stays active: after this it is
/// neither loaded at a start nor taken over (it loads again when a player
/// comes back).
pub const UNPLAYED_EXPIRY: Duration = Duration::from_secs(24 * 60 * 60);
/// How often the tables nobody played at, and the games nobody plays
/// on, are looked for.
pub const EXPIRY_EVERY: Duration = Duration::from_secs(60 * 60);
/// Tables whose game may have been abandoned loaded per look (each ends
/// its game as it loads, and unloads at once with nobody connected).
const ABANDONED_PER_LOOK: usize = 10_000;

/// A table's place in the registry: empty while the table is created or
/// loaded (whoever asks for it meanwhile waits for that one load), then the
/// open table.
type Slot = Arc<OnceCell<Opened>>;

/// A table running here.
struct Opened {
    handle: TableHandle,
    /// Whether it is a bots table (counted against the bots cap).
    bots: bool,
    tenure: Tenure,
    /// When this node must stop serving it unless its lease is renewed:
    /// the lease counted from before the statement that took or renewed it,
    /// on this node's clock (cluster only).
    deadline: Mutex<Option<Instant>>,
}

impl Opened {
    fn deadline(&self) -> Option<Instant> {
        *self
            .deadline
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn set_deadline(&self, deadline: Instant) {
        *self
            .deadline
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(deadline);
    }
}

/// Every table this server runs. Cheap to clone.
#[derive(Clone)]
pub struct Tables {
    inner: Arc<Inner>,
}

struct Inner {
    /// The tables open or being opened. Locked only for map operations,
    /// never across a database round trip.
    open: Mutex<HashMap<String, Slot>>,
    context: TableContext,
    max_open: usize,
    /// The most bots tables open at once (a creation beyond is refused).
    max_bots: usize,
    /// The cluster, if this node is one of several.
    node: Option<Node>,
    /// Leases of tables unloaded while idle, to give up.
    released: Mutex<Vec<(String, u64)>>,
}

/// Why a load gave no table.
enum LoadError {
    /// There is no such table.
    Missing,
    /// It could not be read or taken.
    Failed(TablesError),
}

impl<E: Into<TablesError>> From<E> for LoadError {
    fn from(e: E) -> LoadError {
        LoadError::Failed(e.into())
    }
}

impl Tables {
    /// An empty registry; at most `max_open` tables in memory (of which
    /// `max_bots` bots tables, checked at their creation), each
    /// unloaded after `idle_timeout` with nobody connected and nothing to
    /// do; `clock` is the tables' wall time; each action is counted in
    /// `activity`. With a `node`, tables are owned under leases and
    /// reached across the cluster.
    // Each argument is a separate part of the tables' context, given once
    // by the run; a struct for them would only repeat `TableContext`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        storage: Storage,
        computer: Computer,
        pace: Pace,
        idle_timeout: Duration,
        max_open: usize,
        max_bots: usize,
        node: Option<Node>,
        clock: Arc<dyn WallClock>,
        activity: Activity,
    ) -> Tables {
        let shutdown = CancellationToken::new();
        Tables {
            inner: Arc::new_cyclic(|weak: &Weak<Inner>| {
                let weak = weak.clone();
                Inner {
                    open: Mutex::new(HashMap::new()),
                    context: TableContext {
                        storage,
                        computer,
                        pace,
                        idle_timeout,
                        forget: Arc::new(move |id, handle| {
                            if let Some(inner) = weak.upgrade() {
                                Tables { inner }.forget(id, handle);
                            }
                        }),
                        tasks: TaskTracker::new(),
                        handover: shutdown.child_token(),
                        shutdown,
                        clock,
                        activity,
                    },
                    max_open,
                    max_bots,
                    node,
                    released: Mutex::new(Vec::new()),
                }
            }),
        }
    }

    /// Removes `handle`'s table from the registry, if the registry holds
    /// that very task for `id`.
    fn forget(&self, id: &str, table: &LocalTable) {
        let mut open = self.lock();
        let Some(opened) = open.get(id).and_then(|slot| slot.get()) else {
            return;
        };
        if !opened
            .handle
            .as_local()
            .is_some_and(|t| t.same_table(table))
        {
            return;
        }
        if let Some(epoch) = opened.tenure.epoch {
            self.inner
                .released
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .push((id.to_owned(), epoch));
        }
        open.remove(id);
    }

    /// Removes `slot` from the registry, if it is still the one for `id`.
    fn remove_slot(&self, id: &str, slot: &Slot) {
        let mut open = self.lock();
        if open.get(id).is_some_and(|s| Arc::ptr_eq(s, slot)) {
            open.remove(id);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Slot>> {
        // A panic while holding this lock leaves the map intact: insert and
        // get do not panic halfway.
        self.inner
            .open
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// How many tables are in memory now.
    pub fn open_count(&self) -> usize {
        self.lock().len()
    }

    fn tenure(&self, epoch: Option<u64>) -> Tenure {
        Tenure {
            epoch,
            stop: self.inner.context.handover.child_token(),
        }
    }

    /// Starts serving a table here: its task, and in a cluster its subject.
    async fn open_table(
        &self,
        row: TableRow,
        events: &[baghchal_table::play::Logged],
        epoch: Option<u64>,
        deadline: Option<Instant>,
    ) -> Result<Opened, TablesError> {
        let id = row.id.clone();
        let bots = row.options.opponent == Opponent::Bots;
        let tenure = self.tenure(epoch);
        let table = crate::table::spawn(row, events, self.inner.context.clone(), tenure.clone())?;
        if let Some(node) = &self.inner.node {
            let served = node
                .serve_table(
                    &id,
                    table.clone(),
                    tenure.stop.clone(),
                    &self.inner.context.tasks,
                )
                .await;
            if let Err(e) = served {
                tenure.stop.cancel();
                return Err(TablesError::Transport(e.to_string()));
            }
        }
        Ok(Opened {
            handle: TableHandle::local(table),
            bots,
            tenure,
            deadline: Mutex::new(deadline),
        })
    }

    /// Creates, stores and opens a table.
    pub async fn create(
        &self,
        options: TableOptions,
        host_player: Option<String>,
    ) -> Result<CreatedTable, TablesError> {
        let random = || Token::generate().map_err(TablesError::Random);
        // The check and the reservation of the new table's slot happen
        // under one guard, so that concurrent creations cannot overshoot.
        let (id, slot) = {
            let mut open = self.lock();
            if open.len() >= self.inner.max_open {
                return Err(TablesError::Full(self.inner.max_open));
            }
            if options.opponent == Opponent::Bots {
                let bots = open
                    .values()
                    .filter(|slot| slot.get().is_some_and(|o| o.bots))
                    .count();
                if bots >= self.inner.max_bots {
                    crate::stats::bots_tables_refused("total");
                    return Err(TablesError::BotsFull(self.inner.max_bots));
                }
            }
            let id = loop {
                let id = token::table_id().map_err(TablesError::Random)?;
                if !open.contains_key(&id) {
                    break id;
                }
            };
            let slot = Slot::default();
            open.insert(id.clone(), slot.clone());
            (id, slot)
        };
        let host_secret = match options.opponent {
            Opponent::Bots => None,
            _ => Some(random()?),
        };
        let invite = match options.opponent {
            Opponent::Friend => Some(random()?),
            _ => None,
        };
        let watch = if options.spectator_seats > 0 {
            Some(random()?)
        } else {
            None
        };
        let row = TableRow {
            id: id.clone(),
            options,
            host_secret: host_secret.as_ref().map(Token::hash),
            guest_secret: None,
            invite_token: invite.as_ref().map(Token::hash),
            watch_token: watch.as_ref().map(Token::hash),
            players: [host_player, None],
            lobby: false,
            rated: false,
        };
        // Stored and opened by a task of its own, as a load is: a request
        // whose client goes away halfway would leave the new table's slot
        // empty for ever, counted against the open tables.
        let tables = self.clone();
        let key = id.clone();
        detached(async move {
            let created = slot
                .get_or_try_init(|| async {
                    let asked = Instant::now();
                    let owner = tables.inner.node.as_ref().map(|n| (n.id(), n.lease()));
                    let storage = &tables.inner.context.storage;
                    let epoch = storage.create_table(&row, owner).await?;
                    let deadline = owner.map(|(_, lease)| asked + lease);
                    tables.open_table(row, &[], epoch, deadline).await
                })
                .await
                .map(|_| ());
            if created.is_err() {
                tables.remove_slot(&key, &slot);
            }
            created
        })
        .await?;
        tracing::info!(table_id = %id, opponent = options.opponent.as_str(), "table created");
        Ok(CreatedTable {
            id,
            host_secret,
            invite,
            watch,
        })
    }

    /// The table open here, if its task is running.
    fn open_here(&self, id: &str) -> Option<TableHandle> {
        let open = self.lock();
        let opened = open.get(id)?.get()?;
        (!opened.handle.is_closed()).then(|| opened.handle.clone())
    }

    /// The table with this id, loading it from the database if it is not
    /// open (in a cluster: taking it over if nobody holds it, or reaching
    /// its owner); `None` if there is no such table. A handle may find its
    /// table closed (unloaded while idle, or moved): get it again.
    ///
    /// In a cluster the whole call is bounded: past three leases and ten
    /// seconds it fails with [`TablesError::TimedOut`], whatever it was
    /// waiting for (an owner that does not answer, or the database: a
    /// lease's row locked by a transaction elsewhere holds the statement
    /// that takes it). A load already under way goes on without the caller.
    pub async fn get(&self, id: &str) -> Result<Option<TableHandle>, TablesError> {
        if !token::is_table_id(id) {
            return Ok(None);
        }
        let Some(node) = &self.inner.node else {
            return self.get_here(id).await;
        };
        // Long enough for a dead owner's lease to run out.
        let deadline = Instant::now() + 3 * node.lease() + Duration::from_secs(10);
        tokio::time::timeout_at(deadline, self.reach(id, node, deadline))
            .await
            .unwrap_or(Err(TablesError::TimedOut))
    }

    /// [`Tables::get`] in a cluster: the table open here, loaded here, or
    /// reached at its owner, tried again until `deadline`.
    async fn reach(
        &self,
        id: &str,
        node: &Node,
        deadline: Instant,
    ) -> Result<Option<TableHandle>, TablesError> {
        loop {
            if let Some(handle) = self.open_here(id) {
                return Ok(Some(handle));
            }
            let storage = &self.inner.context.storage;
            let Some(ownership) = storage.owner(id).await? else {
                return Ok(None);
            };
            let elsewhere = ownership.owner.as_deref().is_some_and(|o| o != node.id())
                && !ownership.remaining.is_zero();
            let pause = if elsewhere {
                if node.probe(id).await {
                    return Ok(Some(TableHandle::remote(node.remote_table(id))));
                }
                // The owner does not answer: wait for its lease to run out.
                ownership.remaining.min(Duration::from_millis(250))
            } else {
                match self.get_here(id).await {
                    Err(TablesError::Taken) => Duration::from_millis(50),
                    other => return other,
                }
            };
            if Instant::now() + pause > deadline {
                return Err(TablesError::Unreachable);
            }
            tokio::time::sleep(pause).await;
        }
    }

    /// The table open here, or loaded here (in a cluster: if its lease can
    /// be taken).
    async fn get_here(&self, id: &str) -> Result<Option<TableHandle>, TablesError> {
        let slot = {
            let mut open = self.lock();
            match open.get(id) {
                Some(slot) if !slot.get().is_some_and(|o| o.handle.is_closed()) => slot.clone(),
                // Absent, or its task ended: a fresh slot.
                _ => {
                    let slot = Slot::default();
                    open.insert(id.to_owned(), slot.clone());
                    slot
                }
            }
        };
        if let Some(opened) = slot.get() {
            return Ok(Some(opened.handle.clone()));
        }
        // The load is a task of its own, which a caller that stops waiting
        // does not cut short: dropped halfway, it would leave the lease
        // taken, or the table's task running with nobody to reach it.
        // Whoever asks next waits for the same load.
        let tables = self.clone();
        let id = id.to_owned();
        detached(async move { tables.load_into(&id, &slot).await }).await
    }

    /// Loads table `id` into `slot`, or waits for the load under way, and
    /// takes the slot out of the registry again if the load fails.
    async fn load_into(&self, id: &str, slot: &Slot) -> Result<Option<TableHandle>, TablesError> {
        match slot.get_or_try_init(|| self.load(id)).await {
            Ok(opened) => Ok(Some(opened.handle.clone())),
            Err(LoadError::Missing) => {
                self.remove_slot(id, slot);
                Ok(None)
            }
            Err(LoadError::Failed(e)) => {
                self.remove_slot(id, slot);
                Err(e)
            }
        }
    }

    async fn load(&self, id: &str) -> Result<Opened, LoadError> {
        let storage = &self.inner.context.storage;
        let (epoch, deadline) = match &self.inner.node {
            Some(node) => {
                let asked = Instant::now();
                match storage.acquire(id, node.id(), node.lease()).await? {
                    Some(epoch) => (Some(epoch), Some(asked + node.lease())),
                    None if storage.owner(id).await?.is_none() => return Err(LoadError::Missing),
                    None => return Err(LoadError::Failed(TablesError::Taken)),
                }
            }
            None => (None, None),
        };
        let Some(row) = storage.table(id).await? else {
            return Err(LoadError::Missing);
        };
        let events = storage.events(id).await?;
        let opened = self.open_table(row, &events, epoch, deadline).await?;
        tracing::info!(table_id = %id, events = events.len(), epoch, "table loaded");
        Ok(opened)
    }

    /// Opens every table whose game was unfinished, a few at a time:
    /// computer seats to move resume at once. In a cluster, only those
    /// whose lease has run out. Returns how many.
    pub async fn resume_all(&self) -> Result<usize, TablesError> {
        let storage = &self.inner.context.storage;
        // Every active table loads now: those whose game was abandoned end
        // it as they load.
        self.expire_unplayed().await;
        let ids = match &self.inner.node {
            Some(_) => storage.orphans(usize::MAX >> 1).await?,
            None => storage.active_tables().await?,
        };
        Ok(self.open_all(ids).await)
    }

    /// Stops keeping active the tables nobody played at within
    /// [`UNPLAYED_EXPIRY`] of their creation; see
    /// [`Storage::expire_unplayed`].
    async fn expire_unplayed(&self) {
        let storage = &self.inner.context.storage;
        match storage.expire_unplayed(UNPLAYED_EXPIRY).await {
            Ok(0) => {}
            Ok(expired) => tracing::info!(expired, "tables nobody played at expired"),
            Err(e) => tracing::warn!(error = %e, "expiring unplayed tables failed"),
        }
    }

    /// The hourly look: [`Tables::expire_unplayed`], then loads the tables
    /// whose game had no event for [`IDLE_LIMIT`]
    /// ([`IDLE_LIMIT_CORRESPONDENCE`] at a correspondence table), each of
    /// which ends its game as abandoned as it loads (`baghchal_table::abandon`)
    /// and unloads at once with nobody connected.
    pub async fn expire(&self) {
        self.expire_unplayed().await;
        let storage = &self.inner.context.storage;
        let now = self.inner.context.clock.now().as_millis();
        let ids = match storage
            .idle_tables(
                now,
                IDLE_LIMIT,
                IDLE_LIMIT_CORRESPONDENCE,
                ABANDONED_PER_LOOK,
            )
            .await
        {
            Ok(ids) => ids,
            Err(e) => {
                tracing::warn!(error = %e, "looking for abandoned games failed");
                return;
            }
        };
        if !ids.is_empty() {
            let loaded = self.open_all(ids).await;
            tracing::info!(
                loaded,
                "tables with no event for long loaded to end their games"
            );
        }
    }

    async fn open_all(&self, ids: Vec<String>) -> usize {
        stream::iter(ids)
            .map(|id| async move {
                match self.get(&id).await {
                    Ok(found) => found.is_some(),
                    // One unreadable table must not keep the others down.
                    Err(e) => {
                        tracing::error!(table_id = %id, error = %e, "cannot resume table");
                        false
                    }
                }
            })
            .buffer_unordered(RESUME_AT_ONCE)
            .filter(|resumed| std::future::ready(*resumed))
            .count()
            .await
    }

    /// The tables open here under a lease.
    fn held(&self) -> Vec<(String, Arc<OnceCell<Opened>>)> {
        self.lock()
            .iter()
            .filter(|(_, slot)| slot.get().is_some_and(|o| o.tenure.epoch.is_some()))
            .map(|(id, slot)| (id.clone(), slot.clone()))
            .collect()
    }

    /// Stops serving a table here.
    fn stop(&self, id: &str, slot: &Slot, why: &'static str) {
        if let Some(opened) = slot.get() {
            tracing::warn!(table_id = %id, why, "no longer serving the table here");
            opened.tenure.stop.cancel();
        }
        self.remove_slot(id, slot);
    }

    /// Keeps this node's leases until `shutdown`: renews them every third
    /// of a lease, stops serving (self-fencing) each table whose lease was
    /// not renewed before its local deadline, gives up the leases of tables
    /// unloaded while idle, and takes over active tables nobody holds.
    /// Ends at once on a single node.
    pub async fn keep_leases(&self, shutdown: CancellationToken) {
        let Some(node) = self.inner.node.clone() else {
            return;
        };
        let storage = self.inner.context.storage.clone();
        let lease = node.lease();
        let mut tick = tokio::time::interval(lease / 3);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                () = shutdown.cancelled() => break,
                () = self.inner.context.handover.cancelled() => break,
                _ = tick.tick() => {}
            }
            let held = self.held();
            // Without NATS nobody can reach the tables held here: let their
            // leases run out so that connected nodes take them.
            if node.is_connected() && !held.is_empty() {
                let ids: Vec<String> = held.iter().map(|(id, _)| id.clone()).collect();
                let asked = Instant::now();
                match tokio::time::timeout(lease / 3, storage.renew(node.id(), lease, &ids)).await {
                    Ok(Ok(kept)) => {
                        let kept: HashMap<String, u64> = kept.into_iter().collect();
                        for (id, slot) in &held {
                            let Some(opened) = slot.get() else { continue };
                            if kept.get(id) == opened.tenure.epoch.as_ref() {
                                opened.set_deadline(asked + lease);
                            } else {
                                self.stop(id, slot, "lease lost");
                            }
                        }
                    }
                    Ok(Err(e)) => tracing::warn!(error = %e, "renewing leases failed"),
                    Err(_) => tracing::warn!("renewing leases timed out"),
                }
            }
            let now = Instant::now();
            for (id, slot) in &held {
                if slot
                    .get()
                    .and_then(Opened::deadline)
                    .is_some_and(|deadline| deadline <= now)
                {
                    self.stop(id, slot, "lease not renewed in time");
                }
            }
            let released = std::mem::take(
                &mut *self
                    .inner
                    .released
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner()),
            );
            for (id, epoch) in released {
                if let Err(e) = storage.release(&id, epoch).await {
                    tracing::warn!(table_id = %id, error = %e, "giving up a lease failed");
                }
            }
            if node.is_connected() {
                match storage.orphans(ORPHANS_PER_ROUND).await {
                    Ok(ids) if !ids.is_empty() => {
                        let taken = self.open_all(ids).await;
                        tracing::info!(taken, "took over tables nobody held");
                    }
                    Ok(_) => {}
                    Err(e) => tracing::warn!(error = %e, "looking for orphaned tables failed"),
                }
            }
        }
    }

    /// Whether this node is handing its tables over (see
    /// [`Tables::hand_over`]): a socket's `hello` is sent elsewhere.
    pub fn handing_over(&self) -> bool {
        self.inner.node.is_some() && self.inner.context.handover.is_cancelled()
    }

    /// Whether this server is a node of a cluster.
    pub fn in_cluster(&self) -> bool {
        self.inner.node.is_some()
    }

    /// A cluster node's planned stop: no more takeovers here; every table
    /// ends after the command it is handling (its commit included), gives
    /// up its lease and then closes its sockets with 1012, so that their
    /// clients reconnect through another node, which takes the table at
    /// once. Returns when every table here has ended. Nothing on a single
    /// node.
    pub async fn hand_over(&self) {
        if self.inner.node.is_none() {
            return;
        }
        let context = &self.inner.context;
        let tables = self.open_count();
        context.handover.cancel();
        context.tasks.close();
        context.tasks.wait().await;
        self.lock().clear();
        tracing::info!(tables, "tables handed over");
    }

    /// Stops every table and waits until each has finished the command it
    /// was handling (its commit included), so that the store can close; in
    /// a cluster, then gives up this node's leases so that others take the
    /// tables at once.
    pub async fn close_all(&self) {
        let context = &self.inner.context;
        context.shutdown.cancel();
        context.tasks.close();
        context.tasks.wait().await;
        self.lock().clear();
        if let Some(node) = &self.inner.node {
            if let Err(e) = context.storage.release_all(node.id()).await {
                tracing::warn!(error = %e, "giving up the leases failed");
            }
        }
    }
}

/// Runs `work` as a task of its own and waits for it: a caller dropped
/// while it waits stops waiting, and the work goes on to its end.
async fn detached<T: Send + 'static>(
    work: impl std::future::Future<Output = Result<T, TablesError>> + Send + 'static,
) -> Result<T, TablesError> {
    match tokio::spawn(work).await {
        Ok(result) => result,
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        // Cancelled: the runtime is shutting down, the caller with it.
        Err(_) => Err(TablesError::TimedOut),
    }
}
