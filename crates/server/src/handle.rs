//! A table as a socket or a request reaches it: its task on this node, or
//! the node that owns it in a cluster.

use std::sync::Arc;

use baghchal_protocol as wire;
use baghchal_table::play::Intent;
use baghchal_table::seats::Key;

use crate::cluster::Remote;
use crate::table::conn::{ConnId, Member, Outbox, TableClosed};
use crate::table::LocalTable;

/// The handle of a table's task, here or on the node that owns it. Cheap
/// to clone; a local task ends when the last handle is dropped.
#[derive(Clone)]
pub struct TableHandle {
    route: Route,
}

#[derive(Clone)]
enum Route {
    /// The table runs here.
    Local(LocalTable),
    /// Another node owns it.
    Remote(Arc<Remote>),
}

impl TableHandle {
    /// A table that runs here.
    pub fn local(table: LocalTable) -> TableHandle {
        TableHandle {
            route: Route::Local(table),
        }
    }

    /// A handle for a table another node owns.
    pub fn remote(remote: Remote) -> TableHandle {
        TableHandle {
            route: Route::Remote(Arc::new(remote)),
        }
    }

    /// The table's task, when it runs here.
    pub fn as_local(&self) -> Option<&LocalTable> {
        match &self.route {
            Route::Local(table) => Some(table),
            Route::Remote(_) => None,
        }
    }

    /// Whether the table's task has ended.
    pub fn is_closed(&self) -> bool {
        self.as_local().is_some_and(LocalTable::is_closed)
    }

    /// Completes when the table's task has ended.
    pub async fn closed(&self) {
        match &self.route {
            Route::Local(table) => table.closed().await,
            Route::Remote(_) => std::future::pending().await,
        }
    }

    /// Whether both handles reach the same table task.
    pub fn same_table(&self, other: &TableHandle) -> bool {
        match (&self.route, &other.route) {
            (Route::Local(a), Route::Local(b)) => a.same_table(b),
            _ => false,
        }
    }

    /// Presents `keys` (a link's hashed token, a player's identity). On success the table has sent `welcome`, the
    /// state and `presence` into `outbox`, and will keep sending there.
    pub async fn join(
        &self,
        conn: ConnId,
        keys: Vec<Key>,
        since: Option<u64>,
        outbox: Outbox,
    ) -> Result<Result<Member, wire::ErrorCode>, TableClosed> {
        match &self.route {
            Route::Local(table) => table.join(conn, keys, since, outbox).await,
            Route::Remote(remote) => remote.join(keys, since, outbox).await,
        }
    }

    /// The connection is gone.
    pub async fn leave(&self, conn: ConnId) {
        match &self.route {
            Route::Local(table) => table.leave(conn).await,
            Route::Remote(remote) => remote.leave().await,
        }
    }

    /// A player's command on `board` (as the client named it); the table
    /// answers in the connection's outbox. `intent` is `Err` with the
    /// notation error for an unreadable action.
    pub async fn act(
        &self,
        conn: ConnId,
        id: Option<String>,
        board: Option<u8>,
        intent: Result<Intent, String>,
    ) -> Result<(), TableClosed> {
        match &self.route {
            Route::Local(table) => table.act(conn, id, board, intent).await,
            Route::Remote(remote) => remote.act(id, board, intent).await,
        }
    }

    /// Answers `pong` in the connection's outbox, after everything the
    /// table sent it before.
    pub async fn ping(&self, conn: ConnId) -> Result<(), TableClosed> {
        match &self.route {
            Route::Local(table) => table.ping(conn).await,
            Route::Remote(remote) => remote.ping().await,
        }
    }

    /// Game `n`'s record on `board` (1 but at a two-board table), if
    /// there is such a game.
    pub async fn record(
        &self,
        game: u32,
        board: u8,
    ) -> Result<Option<wire::GameRecord>, TableClosed> {
        match &self.route {
            Route::Local(table) => table.record(game, board).await,
            Route::Remote(remote) => remote.record(game, board).await,
        }
    }
}
