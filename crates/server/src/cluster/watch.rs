//! The watch between a node holding sockets and the owners of their
//! tables: every half lease the holder asks after each remote connection,
//! and learns whether its owner still has it and how many frames it sent.
//!
//! An owner that says at the join which node it is gets one question for
//! all the connections a node holds of its tables, on
//! `CLUSTER.node.OWNER.conn.watch` (a subject every node may already
//! publish to and the owner already reads), in chunks of
//! [`WATCH_KEYS`]. An owner of an earlier version, which does not say, is
//! asked after each connection on its table's subject, as before.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

use futures_util::stream::{self, StreamExt};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::messages::{Holder, Reply, Request};
use super::{wire_close, Node};
use crate::table::conn::Outgoing;

/// The most connections one question to an owner names.
pub(super) const WATCH_KEYS: usize = 1024;

/// What the watch reads and writes of a remote connection at its owner:
/// shared by its table's task, its relay and the node's answer to the
/// watch.
pub(super) struct Watched {
    /// A weak end of its outbox: dead once the table drops it.
    outbox: mpsc::WeakSender<Outgoing>,
    /// How many frames its relay has sent.
    sent: AtomicU64,
    /// When its holder last asked after it.
    seen: Mutex<Instant>,
}

impl Watched {
    pub(super) fn new(outbox: mpsc::WeakSender<Outgoing>, now: Instant) -> Watched {
        Watched {
            outbox,
            sent: AtomicU64::new(0),
            seen: Mutex::new(now),
        }
    }

    /// The number of the next frame its relay sends (from 1).
    pub(super) fn next_frame(&self) -> u64 {
        self.sent.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// Whether the table still has the connection.
    pub(super) fn is_open(&self) -> bool {
        self.outbox.upgrade().is_some()
    }

    /// When its holder last asked after it.
    pub(super) fn seen(&self) -> Instant {
        *self
            .seen
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Its holder asks after it: how many frames were sent it, `None` once
    /// the table dropped it.
    pub(super) fn ask(&self, now: Instant) -> Option<u64> {
        if !self.is_open() {
            return None;
        }
        *self
            .seen
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = now;
        Some(self.sent.load(Ordering::Relaxed))
    }
}

/// The remote connections of this node's tables, by the node holding each
/// socket and its key there. The table's task and the connection's relay
/// hold each entry; once the table dropped the connection, the answer is
/// `None`, and its place is cleared at the next watch after both let go.
#[derive(Default)]
pub(super) struct Watchlist {
    by_node: Mutex<HashMap<String, HashMap<u64, Weak<Watched>>>>,
}

impl Watchlist {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, HashMap<u64, Weak<Watched>>>> {
        self.by_node
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(super) fn insert(&self, holder: &Holder, watched: &Arc<Watched>) {
        self.lock()
            .entry(holder.node.clone())
            .or_default()
            .insert(holder.key, Arc::downgrade(watched));
    }

    /// Node `node` asks after its connections `keys`: for each, how many
    /// frames were sent it, or `None` when it is not here (any more).
    pub(super) fn ask(&self, node: &str, keys: &[u64], now: Instant) -> Vec<Option<u64>> {
        let by_node = self.lock();
        let Some(conns) = by_node.get(node) else {
            return vec![None; keys.len()];
        };
        keys.iter()
            .map(|key| conns.get(key)?.upgrade()?.ask(now))
            .collect()
    }

    /// Clears the places of the connections the tables dropped.
    pub(super) fn forget_dropped(&self) {
        self.lock().retain(|_, conns| {
            conns.retain(|_, watched| watched.strong_count() > 0);
            !conns.is_empty()
        });
    }
}

/// The questions of a holder's watch.
#[derive(Debug, Default)]
struct Questions {
    /// To an owner that said who it is: its node and up to [`WATCH_KEYS`]
    /// of the connections held here of its tables.
    to_owners: Vec<(String, Vec<u64>)>,
    /// One by one, for the other owners: a connection and its table.
    alone: Vec<(u64, String)>,
}

/// The questions for the joined connections `conns` (key, table, owner).
fn questions<'a>(conns: impl Iterator<Item = (u64, &'a str, Option<&'a str>)>) -> Questions {
    let mut by_owner: HashMap<&str, Vec<u64>> = HashMap::new();
    let mut alone = Vec::new();
    for (key, table, owner) in conns {
        match owner {
            Some(owner) => by_owner.entry(owner).or_default().push(key),
            None => alone.push((key, table.to_owned())),
        }
    }
    let mut to_owners = Vec::new();
    for (owner, keys) in by_owner {
        for chunk in keys.chunks(WATCH_KEYS) {
            to_owners.push((owner.to_owned(), chunk.to_vec()));
        }
    }
    Questions { to_owners, alone }
}

impl Node {
    /// Answers another node's watch of its connections to tables here.
    pub(super) async fn answer_watch(&self, message: &async_nats::Message) {
        let Some(reply_to) = message.reply.clone() else {
            return;
        };
        let reply = match serde_json::from_slice::<Request>(&message.payload) {
            Ok(Request::Watch { node, keys }) => Reply::Watched {
                sent: self.inner.watchlist.ask(&node, &keys, Instant::now()),
            },
            Ok(_) => Reply::Closed,
            Err(e) => {
                tracing::error!(error = %e, "an unreadable watch from another node");
                Reply::Closed
            }
        };
        let payload = serde_json::to_vec(&reply).unwrap_or_default();
        let _ = self.inner.nats.publish(reply_to, payload.into()).await;
    }

    /// Owner `owner`'s answer for this node's connections `keys`: for
    /// each, how many frames the owner sent it, or `None` when the owner
    /// does not have it or does not answer.
    async fn ask_owner(&self, owner: String, keys: Vec<u64>) -> Vec<(u64, Option<u64>)> {
        let request = Request::Watch {
            node: self.inner.id.clone(),
            keys: keys.clone(),
        };
        match self.request_on(self.watch_subject(&owner), &request).await {
            Ok(Reply::Watched { sent }) if sent.len() == keys.len() => {
                keys.into_iter().zip(sent).collect()
            }
            _ => keys.into_iter().map(|key| (key, None)).collect(),
        }
    }

    /// Asks after every remote connection; closes those whose owner is
    /// gone, so that their clients reconnect and find the table's new
    /// owner, and those that missed a frame the owner sent before the
    /// previous watch, so that their clients reconnect with `since`.
    pub(super) async fn watch_owners(&self) {
        // As an owner, at the same pace: the places of the connections
        // this node's tables dropped.
        self.inner.watchlist.forget_dropped();
        let Questions { to_owners, alone } = {
            let remote = self.remote();
            questions(
                remote
                    .iter()
                    .filter(|(_, c)| c.joined)
                    .map(|(key, c)| (*key, c.table.as_str(), c.owner.as_deref())),
            )
        };
        // Each connection and, while its owner has it, how many frames the
        // owner has sent it.
        let mut answers: Vec<(u64, Option<u64>)> = stream::iter(alone)
            .map(|(key, table)| async move {
                let holder = Holder {
                    node: self.inner.id.clone(),
                    key,
                };
                match self.request(&table, &Request::Alive { holder }).await {
                    Ok(Reply::Alive { alive: true, sent }) => (key, Some(sent)),
                    _ => (key, None),
                }
            })
            .buffer_unordered(32)
            .collect()
            .await;
        let batched: Vec<Vec<(u64, Option<u64>)>> = stream::iter(to_owners)
            .map(|(owner, keys)| self.ask_owner(owner, keys))
            .buffer_unordered(8)
            .collect()
            .await;
        answers.extend(batched.into_iter().flatten());
        let mut remote = self.remote();
        for (key, sent) in answers {
            let Some(conn) = remote.get_mut(&key) else {
                continue;
            };
            match sent {
                Some(sent) if conn.owner_sent <= conn.received => {
                    conn.owner_sent = sent;
                    continue;
                }
                Some(_) => {
                    tracing::warn!(
                        table_id = %conn.table,
                        received = conn.received,
                        sent = conn.owner_sent,
                        "frames from the table's owner went missing; closing the socket"
                    );
                    crate::stats::relay_frame_lost();
                }
                None => {
                    tracing::info!(table_id = %conn.table, "the table's owner is gone; closing its socket");
                }
            }
            let _ = conn.outbox.try_send(Outgoing::Close(wire_close::Moved));
            remote.remove(&key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn holder(node: &str, key: u64) -> Holder {
        Holder {
            node: node.to_owned(),
            key,
        }
    }

    #[tokio::test]
    async fn an_owner_answers_for_the_connections_it_has_and_no_others() {
        let list = Watchlist::default();
        // The table holds each connection's outbox; key 2's it dropped.
        let (open, _inbox) = mpsc::channel::<Outgoing>(1);
        let (dropped, _dropped_inbox) = mpsc::channel::<Outgoing>(1);
        let start = Instant::now();
        let a = Arc::new(Watched::new(open.downgrade(), start));
        for _ in 0..5 {
            a.next_frame();
        }
        let b = Arc::new(Watched::new(dropped.downgrade(), start));
        drop(dropped);
        list.insert(&holder("n2", 1), &a);
        list.insert(&holder("n2", 2), &b);
        let later = start + std::time::Duration::from_secs(3);
        // Key 2's table dropped it; key 3 was never here; another node's
        // question names none of n2's connections.
        assert_eq!(list.ask("n2", &[1, 2, 3], later), [Some(5), None, None]);
        assert_eq!(list.ask("n3", &[1], later), [None]);
        assert_eq!(a.seen(), later);
        assert_eq!(b.seen(), start);
        // The table drops key 1: gone from the answer, and its place
        // cleared.
        drop(a);
        assert_eq!(list.ask("n2", &[1], later), [None]);
        drop(b);
        list.forget_dropped();
        assert!(list.lock().is_empty());
    }

    #[test]
    fn a_holder_asks_each_owner_once_a_chunk_and_the_others_one_by_one() {
        let conns: Vec<(u64, String, Option<String>)> = (0..WATCH_KEYS as u64 + 3)
            .map(|key| (key, format!("t{key}"), Some("n1".to_owned())))
            .chain([(9_000, "old".to_owned(), None)])
            .chain([(9_001, "t9001".to_owned(), Some("n3".to_owned()))])
            .collect();
        let Questions {
            to_owners: mut batches,
            alone,
        } = questions(
            conns
                .iter()
                .map(|(key, table, owner)| (*key, table.as_str(), owner.as_deref())),
        );
        batches.sort_by_key(|(owner, keys)| (owner.clone(), keys.len()));
        let shape: Vec<(&str, usize)> = batches
            .iter()
            .map(|(owner, keys)| (owner.as_str(), keys.len()))
            .collect();
        assert_eq!(shape, [("n1", 3), ("n1", WATCH_KEYS), ("n3", 1)]);
        assert_eq!(alone, [(9_000, "old".to_owned())]);
        let mut asked: Vec<u64> = batches.into_iter().flat_map(|(_, keys)| keys).collect();
        asked.sort_unstable();
        assert_eq!(asked.len(), WATCH_KEYS + 4);
        assert!(asked.windows(2).all(|w| w[0] < w[1]));
    }
}
