//! The registry of tables: the one seam through which the rest of the
//! server finds a table's task, creating or loading it as needed. Moving
//! tables across nodes later means changing this module alone.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use crate::bot::Computer;
use crate::storage::Storage;
use crate::table::Pace;

use crate::options::{Opponent, TableOptions};
use crate::storage::{StorageError, TableRow};
use crate::table::{TableContext, TableHandle};
use crate::token::{self, Token};
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

/// A table's place in the registry: empty while the table is created or
/// loaded (whoever asks for it meanwhile waits for that one load), then its
/// handle.
type Slot = Arc<OnceCell<TableHandle>>;

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
}

/// Why a load gave no table.
enum LoadError {
    /// There is no such table.
    Missing,
    /// It could not be read.
    Failed(TablesError),
}

impl<E: Into<TablesError>> From<E> for LoadError {
    fn from(e: E) -> LoadError {
        LoadError::Failed(e.into())
    }
}

impl Tables {
    /// An empty registry; at most `max_open` tables in memory, each
    /// unloaded after `idle_timeout` with nobody connected and nothing to
    /// do.
    pub fn new(
        storage: Storage,
        computer: Computer,
        pace: Pace,
        idle_timeout: Duration,
        max_open: usize,
    ) -> Tables {
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
                        shutdown: CancellationToken::new(),
                    },
                    max_open,
                }
            }),
        }
    }

    /// Removes `handle`'s table from the registry, if the registry holds
    /// that very task for `id`.
    fn forget(&self, id: &str, handle: &TableHandle) {
        let mut open = self.lock();
        if open
            .get(id)
            .and_then(|slot| slot.get())
            .is_some_and(|h| h.same_table(handle))
        {
            open.remove(id);
        }
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

    /// Creates, stores and opens a table.
    pub async fn create(&self, options: TableOptions) -> Result<CreatedTable, TablesError> {
        let random = || Token::generate().map_err(TablesError::Random);
        // The check and the reservation of the new table's slot happen
        // under one guard, so that concurrent creations cannot overshoot.
        let (id, slot) = {
            let mut open = self.lock();
            if open.len() >= self.inner.max_open {
                return Err(TablesError::Full(self.inner.max_open));
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
        };
        let storage = &self.inner.context.storage;
        let created = slot
            .get_or_try_init(|| async {
                storage.create_table(&row).await?;
                TableHandle::spawn(row, &[], self.inner.context.clone())
            })
            .await;
        if let Err(e) = created {
            self.remove_slot(&id, &slot);
            return Err(e.into());
        }
        tracing::info!(table_id = %id, opponent = options.opponent.as_str(), "table created");
        Ok(CreatedTable {
            id,
            host_secret,
            invite,
            watch,
        })
    }

    /// The table with this id, loading it from the database if it is not
    /// open; `None` if there is no such table. A handle may find its table
    /// closed (unloaded while idle): get it again.
    pub async fn get(&self, id: &str) -> Result<Option<TableHandle>, TablesError> {
        if !token::is_table_id(id) {
            return Ok(None);
        }
        let slot = {
            let mut open = self.lock();
            match open.get(id) {
                Some(slot) if !slot.get().is_some_and(TableHandle::is_closed) => slot.clone(),
                // Absent, or its task ended: a fresh slot.
                _ => {
                    let slot = Slot::default();
                    open.insert(id.to_owned(), slot.clone());
                    slot
                }
            }
        };
        match slot.get_or_try_init(|| self.load(id)).await {
            Ok(handle) => Ok(Some(handle.clone())),
            Err(LoadError::Missing) => {
                self.remove_slot(id, &slot);
                Ok(None)
            }
            Err(LoadError::Failed(e)) => {
                self.remove_slot(id, &slot);
                Err(e)
            }
        }
    }

    async fn load(&self, id: &str) -> Result<TableHandle, LoadError> {
        let storage = &self.inner.context.storage;
        let Some(row) = storage.table(id).await? else {
            return Err(LoadError::Missing);
        };
        let events = storage.events(id).await?;
        let handle = TableHandle::spawn(row, &events, self.inner.context.clone())?;
        tracing::info!(table_id = %id, events = events.len(), "table loaded");
        Ok(handle)
    }

    /// Opens every table whose game was unfinished, a few at a time:
    /// computer seats to move resume at once. Returns how many.
    pub async fn resume_all(&self) -> Result<usize, TablesError> {
        let ids = self.inner.context.storage.active_tables().await?;
        let resumed = stream::iter(ids)
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
            .await;
        Ok(resumed)
    }

    /// Stops every table and waits until each has finished the command it
    /// was handling (its commit included), so that the store can close.
    pub async fn close_all(&self) {
        let context = &self.inner.context;
        context.shutdown.cancel();
        context.tasks.close();
        context.tasks.wait().await;
        self.lock().clear();
    }
}
