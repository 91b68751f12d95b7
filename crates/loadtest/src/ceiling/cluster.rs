//! The ceiling's nodes: the least a cluster of them can do to relay play
//! through NATS, so that the table server's cluster has a floor to be
//! compared with, as its one node has the ceiling.
//!
//! A table belongs to the node it was created on (its id ends with
//! `@NODE`). A socket held by another node is joined, and its actions
//! passed on, by one message to the owner; the owner sends each frame for
//! it (an acknowledgement and the event after it in one message) to the
//! holder, which puts them in the socket's outbox. Every node reads one
//! subject of its own, `CLUSTER.ceiling.NODE`, with one subscription, and
//! publishes from the task that has the message: no task of its own for a
//! table, a connection or a relay, no sequence numbers, no leases, no
//! watch and no storage. What the table server does beyond it is the cost
//! of those.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use async_nats::Subject;
use axum::extract::ws::Utf8Bytes;
use bytes::{BufMut, Bytes, BytesMut};
use tokio::sync::mpsc;

/// A message to publish, made while a table's lock was held and sent once
/// it is let go.
pub type Outbound = (Subject, Bytes);

/// What a holder asks of a table's owner for one of its sockets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ask {
    /// Join the table with this token.
    Join,
    /// This client message (an action).
    Act,
    /// The socket closed.
    Leave,
}

/// A message one node reads.
#[derive(Debug, PartialEq, Eq)]
pub enum Incoming<'a> {
    /// From a holder, about its socket `conn` at `table`: `body` is the
    /// token of a join and the client's text of an act.
    Asked {
        ask: Ask,
        holder: &'a str,
        conn: u64,
        table: &'a str,
        body: &'a [u8],
    },
    /// From an owner: frames for the socket `conn` held here, one a line.
    Frames { conn: u64, frames: &'a [u8] },
}

/// A node: its NATS client, its name, and the outboxes of the sockets it
/// holds for tables other nodes own.
pub struct Node {
    client: async_nats::Client,
    cluster: String,
    id: String,
    own: Subject,
    held: Mutex<HashMap<u64, mpsc::Sender<Utf8Bytes>>>,
}

impl Node {
    /// Connects to NATS at `url` as node `id` of `cluster`.
    pub async fn connect(url: &str, cluster: &str, id: &str) -> anyhow::Result<Node> {
        let client = async_nats::ConnectOptions::new()
            .name(format!("baghchal-ceiling {id}"))
            .connect(url)
            .await?;
        Ok(Node {
            client,
            cluster: cluster.to_owned(),
            id: id.to_owned(),
            own: subject(cluster, id),
            held: Mutex::new(HashMap::new()),
        })
    }

    /// The node's name.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The messages for this node, one subscription for all of them.
    pub async fn subscribe(&self) -> anyhow::Result<async_nats::Subscriber> {
        Ok(self.client.subscribe(self.own.clone()).await?)
    }

    /// The node that owns `table`, when it is another one.
    pub fn owner_elsewhere<'t>(&self, table: &'t str) -> Option<&'t str> {
        table
            .rsplit_once('@')
            .map(|(_, owner)| owner)
            .filter(|owner| *owner != self.id)
    }

    /// The subject of node `id`.
    pub fn subject_of(&self, id: &str) -> Subject {
        subject(&self.cluster, id)
    }

    /// Keeps the outbox of socket `conn`, held here for another node's
    /// table.
    pub fn hold(&self, conn: u64, outbox: mpsc::Sender<Utf8Bytes>) {
        self.held().insert(conn, outbox);
    }

    /// Forgets socket `conn`.
    pub fn release(&self, conn: u64) {
        self.held().remove(&conn);
    }

    /// Puts `frames` (one a line) into the outbox of socket `conn`; a
    /// full outbox drops the socket, as a table drops a slow subscriber.
    pub fn deliver(&self, conn: u64, frames: &[u8]) {
        let mut held = self.held();
        let Some(outbox) = held.get(&conn) else {
            return;
        };
        for frame in frames.split(|&b| b == b'\n') {
            let Ok(text) = std::str::from_utf8(frame) else {
                return;
            };
            if outbox.try_send(Utf8Bytes::from(text)).is_err() {
                held.remove(&conn);
                return;
            }
        }
    }

    /// Asks `owner` for `ask` about socket `conn` at `table`.
    pub fn ask(&self, owner: &str, ask: Ask, conn: u64, table: &str, body: &[u8]) -> Outbound {
        let mut out = BytesMut::with_capacity(12 + self.id.len() + table.len() + body.len());
        out.put_u8(match ask {
            Ask::Join => b'J',
            Ask::Act => b'A',
            Ask::Leave => b'L',
        });
        out.put_u64(conn);
        put_name(&mut out, &self.id);
        put_name(&mut out, table);
        out.put_slice(body);
        (self.subject_of(owner), out.freeze())
    }

    /// Publishes `outbound`; a message NATS does not take is lost, as a
    /// closed socket's frames are.
    pub async fn publish(&self, outbound: Vec<Outbound>) {
        for (subject, payload) in outbound {
            let _ = self.client.publish(subject, payload).await;
        }
    }

    fn held(&self) -> std::sync::MutexGuard<'_, HashMap<u64, mpsc::Sender<Utf8Bytes>>> {
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// `frames` for socket `conn` at `holder`, in one message.
pub fn frames(holder: Subject, conn: u64, frames: &[&str]) -> Outbound {
    let len = frames.iter().map(|f| f.len() + 1).sum::<usize>();
    let mut out = BytesMut::with_capacity(9 + len);
    out.put_u8(b'F');
    out.put_u64(conn);
    for (i, frame) in frames.iter().enumerate() {
        if i > 0 {
            out.put_u8(b'\n');
        }
        out.put_slice(frame.as_bytes());
    }
    (holder, out.freeze())
}

/// Reads a message, or `None` when it is not one of the ceiling's.
pub fn read(payload: &[u8]) -> Option<Incoming<'_>> {
    let (&kind, rest) = payload.split_first()?;
    let conn = u64::from_be_bytes(rest.get(..8)?.try_into().ok()?);
    let rest = &rest[8..];
    if kind == b'F' {
        return Some(Incoming::Frames { conn, frames: rest });
    }
    let ask = match kind {
        b'J' => Ask::Join,
        b'A' => Ask::Act,
        b'L' => Ask::Leave,
        _ => return None,
    };
    let (holder, rest) = take_name(rest)?;
    let (table, body) = take_name(rest)?;
    Some(Incoming::Asked {
        ask,
        holder,
        conn,
        table,
        body,
    })
}

fn subject(cluster: &str, id: &str) -> Subject {
    Subject::from(format!("{cluster}.ceiling.{id}"))
}

/// A name of up to 255 bytes, after its length.
fn put_name(out: &mut BytesMut, name: &str) {
    let name = &name.as_bytes()[..name.len().min(255)];
    out.put_u8(name.len() as u8);
    out.put_slice(name);
}

fn take_name(bytes: &[u8]) -> Option<(&str, &[u8])> {
    let (&len, rest) = bytes.split_first()?;
    let name = rest.get(..usize::from(len))?;
    Some((std::str::from_utf8(name).ok()?, &rest[usize::from(len)..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ask_reads_back_as_sent() {
        let mut out = BytesMut::new();
        out.put_u8(b'A');
        out.put_u64(7);
        put_name(&mut out, "n2");
        put_name(&mut out, "12@n1");
        out.put_slice(br#"{"type":"action"}"#);
        assert_eq!(
            read(&out),
            Some(Incoming::Asked {
                ask: Ask::Act,
                holder: "n2",
                conn: 7,
                table: "12@n1",
                body: br#"{"type":"action"}"#,
            })
        );
    }

    #[test]
    fn frames_read_back_one_a_line() {
        let (subject, payload) = frames(Subject::from("c.ceiling.n2"), 9, &["{\"a\":1}", "{}"]);
        assert_eq!(subject.as_str(), "c.ceiling.n2");
        assert_eq!(
            read(&payload),
            Some(Incoming::Frames {
                conn: 9,
                frames: b"{\"a\":1}\n{}",
            })
        );
    }

    #[test]
    fn short_or_unknown_messages_are_not_read() {
        for payload in [&b""[..], b"F1234", b"X12345678", b"J12345678\x05ab"] {
            assert_eq!(read(payload), None, "{payload:?}");
        }
    }
}
