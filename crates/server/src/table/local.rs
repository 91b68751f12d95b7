//! A table that runs on this node, as the rest of the server reaches it:
//! commands into its task's inbox, answers in the connection's outbox or
//! in a one-shot reply.

use baghchal_protocol as wire;
use tokio::sync::{mpsc, oneshot};

use baghchal_table::play::Intent;
use baghchal_table::seats::Key;
#[cfg(doc)]
use baghchal_table::seats::Seats;

use super::conn::{ConnId, Member, Outbox, TableClosed};
use crate::token::TokenHash;

pub(super) enum Command {
    Join {
        conn: ConnId,
        /// The keys presented: a link's token hashed, the socket's
        /// player.
        keys: Vec<Key>,
        /// The hash of the secret the guest's seat gets if this join
        /// claims it (a relayed join: the socket's node keeps the secret);
        /// `None` draws a fresh secret here.
        claim: Option<TokenHash>,
        since: Option<u64>,
        outbox: Outbox,
        respond_to: oneshot::Sender<Result<Member, wire::ErrorCode>>,
    },
    Leave {
        conn: ConnId,
    },
    Act {
        conn: ConnId,
        id: Option<String>,
        /// The board the client named, if any.
        board: Option<u8>,
        intent: Result<Intent, String>,
        /// When the socket's task sent it (for [`ActionStage::ToTable`]).
        sent: std::time::Instant,
    },
    Record {
        game: u32,
        board: u8,
        respond_to: oneshot::Sender<Option<wire::GameRecord>>,
    },
    Ping {
        conn: ConnId,
    },
}

/// The inbox of a table's task on this node. Cheap to clone; the task ends
/// when the last sender is dropped.
#[derive(Clone)]
pub struct LocalTable {
    pub(super) tx: mpsc::Sender<Command>,
}

impl LocalTable {
    /// Whether the table's task has ended.
    pub fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }

    /// Completes when the table's task has ended.
    pub async fn closed(&self) {
        self.tx.closed().await;
    }

    /// Whether both reach the same task.
    pub fn same_table(&self, other: &LocalTable) -> bool {
        self.tx.same_channel(&other.tx)
    }

    /// Presents `keys` (see [`Seats::admit`]). On success the table has sent `welcome`, the
    /// state and `presence` into `outbox`, and will keep sending there.
    pub async fn join(
        &self,
        conn: ConnId,
        keys: Vec<Key>,
        since: Option<u64>,
        outbox: Outbox,
    ) -> Result<Result<Member, wire::ErrorCode>, TableClosed> {
        self.join_hashed(conn, keys, None, since, outbox).await
    }

    /// [`LocalTable::join`] for a socket held by another node, which sends
    /// only the keys (a token's hash, never the token), and the hash of the secret
    /// the guest's seat gets if the join claims it: the welcome then
    /// carries that hash where the secret goes, and the socket's node puts
    /// the secret in its place. No token crosses between nodes.
    pub async fn join_hashed(
        &self,
        conn: ConnId,
        keys: Vec<Key>,
        claim: Option<TokenHash>,
        since: Option<u64>,
        outbox: Outbox,
    ) -> Result<Result<Member, wire::ErrorCode>, TableClosed> {
        let (respond_to, rx) = oneshot::channel();
        self.tx
            .send(Command::Join {
                conn,
                keys,
                claim,
                since,
                outbox,
                respond_to,
            })
            .await
            .map_err(|_| TableClosed)?;
        rx.await.map_err(|_| TableClosed)
    }

    /// The connection is gone.
    pub async fn leave(&self, conn: ConnId) {
        let _ = self.tx.send(Command::Leave { conn }).await;
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
        self.tx
            .send(Command::Act {
                conn,
                id,
                board,
                intent,
                sent: std::time::Instant::now(),
            })
            .await
            .map_err(|_| TableClosed)
    }

    /// Answers `pong` in the connection's outbox, after everything the
    /// table sent it before.
    pub async fn ping(&self, conn: ConnId) -> Result<(), TableClosed> {
        self.tx
            .send(Command::Ping { conn })
            .await
            .map_err(|_| TableClosed)
    }

    /// Game `n`'s record on `board` (1 but at a two-board table), if
    /// there is such a game.
    pub async fn record(
        &self,
        game: u32,
        board: u8,
    ) -> Result<Option<wire::GameRecord>, TableClosed> {
        let (respond_to, rx) = oneshot::channel();
        self.tx
            .send(Command::Record {
                game,
                board,
                respond_to,
            })
            .await
            .map_err(|_| TableClosed)?;
        rx.await.map_err(|_| TableClosed)
    }
}
