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

/// Every table this server runs. Cheap to clone.
#[derive(Clone)]
pub struct Tables {
    inner: Arc<Inner>,
}

struct Inner {
    open: Mutex<HashMap<String, TableHandle>>,
    /// Serializes loading, so that a table is never loaded twice.
    loading: tokio::sync::Mutex<()>,
    context: TableContext,
    max_open: usize,
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
                    loading: tokio::sync::Mutex::new(()),
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
        if open.get(id).is_some_and(|h| h.same_table(handle)) {
            open.remove(id);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, TableHandle>> {
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
        if self.lock().len() >= self.inner.max_open {
            return Err(TablesError::Full(self.inner.max_open));
        }
        let random = || Token::generate().map_err(TablesError::Random);
        let id = token::table_id().map_err(TablesError::Random)?;
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
        self.inner.context.storage.create_table(&row).await?;
        {
            // Registered before its task can look for itself here.
            let mut open = self.lock();
            let handle = TableHandle::spawn(row, &[], self.inner.context.clone())?;
            open.insert(id.clone(), handle);
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
        if let Some(handle) = self.open(id) {
            return Ok(Some(handle));
        }
        let _loading = self.inner.loading.lock().await;
        if let Some(handle) = self.open(id) {
            return Ok(Some(handle));
        }
        self.load(id).await
    }

    /// The open table `id`, if its task is running.
    fn open(&self, id: &str) -> Option<TableHandle> {
        let mut open = self.lock();
        match open.get(id) {
            Some(handle) if handle.is_closed() => {
                open.remove(id);
                None
            }
            other => other.cloned(),
        }
    }

    async fn load(&self, id: &str) -> Result<Option<TableHandle>, TablesError> {
        let storage = &self.inner.context.storage;
        let Some(row) = storage.table(id).await? else {
            return Ok(None);
        };
        let events = storage.events(id).await?;
        let handle = {
            let mut open = self.lock();
            let handle = TableHandle::spawn(row, &events, self.inner.context.clone())?;
            open.insert(id.to_owned(), handle.clone());
            handle
        };
        tracing::info!(table_id = %id, events = events.len(), "table loaded");
        Ok(Some(handle))
    }

    /// Opens every table whose game was unfinished: computer seats to move
    /// resume at once. Returns how many.
    pub async fn resume_all(&self) -> Result<usize, TablesError> {
        let ids = self.inner.context.storage.active_tables().await?;
        let mut resumed = 0;
        for id in ids {
            match self.get(&id).await {
                Ok(Some(_)) => resumed += 1,
                Ok(None) => {}
                // One unreadable table must not keep the others down.
                Err(e) => tracing::error!(table_id = %id, error = %e, "cannot resume table"),
            }
        }
        Ok(resumed)
    }

    /// Closes every table: their tasks end once the connections drop their
    /// handles.
    pub fn close_all(&self) {
        self.lock().clear();
    }
}
