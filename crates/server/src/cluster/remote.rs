//! A socket's table owned by another node: its commands go to the owner,
//! and what the table sends comes back as relayed frames.

use std::sync::Mutex;

use baghchal_protocol as wire;

use super::messages::{Holder, Reply, Request};
use super::{Node, RemoteConn};
use crate::table::conn::{Member, Outbox, TableClosed};
use crate::token::Token;
use baghchal_table::play::Intent;
use baghchal_table::seats::Key;

/// A table owned by another node, as one socket here sees it.
pub struct Remote {
    pub(super) node: Node,
    pub(super) table: String,
    /// This socket at the owner, once joined.
    pub(super) joined: Mutex<Option<Joined>>,
}

/// A remote socket that the owner took.
#[derive(Clone, Copy)]
pub(super) struct Joined {
    /// Its key here.
    key: u64,
    /// Whether the owner takes its `act` and `ping` without answering.
    one_way: bool,
}

impl Remote {
    fn joined(&self) -> Option<(Holder, bool)> {
        let joined = (*self
            .joined
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()))?;
        let holder = Holder {
            node: self.node.inner.id.clone(),
            key: joined.key,
        };
        Some((holder, joined.one_way))
    }

    /// Sends a command whose outcome comes in the socket's frames:
    /// published without a reply to an owner that said at the join that it
    /// takes them so, sent as a request to one of an earlier version. A
    /// publish fails only when this node has lost NATS; an owner gone
    /// since is found by the watch.
    async fn command(&self, one_way: bool, request: &Request) -> Result<(), TableClosed> {
        if one_way {
            self.node.publish(&self.table, request).await
        } else {
            self.node.request(&self.table, request).await.map(|_| ())
        }
    }

    /// Joins at the owner; what the table sends arrives in `outbox`. The
    /// token stays here: the owner gets its hash, and the hash of the
    /// secret kept here for the guest's seat should this join claim it.
    pub async fn join(
        &self,
        keys: Vec<Key>,
        since: Option<u64>,
        outbox: Outbox,
    ) -> Result<Result<Member, wire::ErrorCode>, TableClosed> {
        let claim = Token::generate().map_err(|e| {
            tracing::error!(error = %e, "no random bytes");
            TableClosed
        })?;
        let claim_hash = claim.hash();
        let key = self.node.insert_remote(RemoteConn {
            table: self.table.clone(),
            joined: false,
            owner: None,
            outbox,
            received: 0,
            owner_sent: 0,
            claim: Some((claim_hash.clone(), claim)),
        })?;
        let request = Request::Join {
            node: self.node.inner.id.clone(),
            key,
            keys,
            claim_hash: claim_hash.as_str().to_owned(),
            since,
            batches: true,
        };
        let reply = self.node.request(&self.table, &request).await;
        match reply {
            Ok(Reply::Joined {
                member: Ok(member),
                owner,
                one_way,
                ..
            }) => {
                if let Some(entry) = self.node.remote().get_mut(&key) {
                    entry.joined = true;
                    entry.owner = owner;
                }
                *self
                    .joined
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner()) =
                    Some(Joined { key, one_way });
                Ok(Ok(member))
            }
            Ok(Reply::Joined {
                member: Err(code), ..
            }) => {
                self.node.remote().remove(&key);
                Ok(Err(code))
            }
            _ => {
                self.node.remote().remove(&key);
                Err(TableClosed)
            }
        }
    }

    /// The socket is gone.
    pub async fn leave(&self) {
        let Some((holder, _)) = self.joined() else {
            return;
        };
        self.node.remote().remove(&holder.key);
        let _ = self
            .node
            .request(&self.table, &Request::Leave { holder })
            .await;
    }

    /// A player's command.
    pub async fn act(
        &self,
        id: Option<String>,
        board: Option<u8>,
        intent: Result<Intent, String>,
    ) -> Result<(), TableClosed> {
        let (holder, one_way) = self.joined().ok_or(TableClosed)?;
        let request = Request::Act {
            holder,
            id,
            board,
            intent,
        };
        self.command(one_way, &request).await
    }

    /// A ping, answered in order in the outbox.
    pub async fn ping(&self) -> Result<(), TableClosed> {
        let (holder, one_way) = self.joined().ok_or(TableClosed)?;
        self.command(one_way, &Request::Ping { holder }).await
    }

    /// Game `n`'s record on `board`.
    pub async fn record(
        &self,
        game: u32,
        board: u8,
    ) -> Result<Option<wire::GameRecord>, TableClosed> {
        match self
            .node
            .request(&self.table, &Request::Record { game, board })
            .await?
        {
            Reply::Record { record } => Ok(record),
            _ => Err(TableClosed),
        }
    }
}
