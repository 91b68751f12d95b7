//! What a table and its sockets exchange: the frames a table queues for
//! a connection, who the connection is there, and how much the table keeps
//! for connections that come back.

use axum::extract::ws::Utf8Bytes;
use baghchal_protocol as wire;
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use baghchal_table::seat::Player;

/// Events kept in memory per table for reconnecting clients, at most.
pub const EVENT_LOG_LEN: usize = 256;
/// The bytes of encoded events kept per table for reconnecting clients,
/// at most (the older ones go first; a client that missed more gets a
/// snapshot): what bounds a busy table's memory. An event's frame is
/// about 550 bytes (650 at a two-board table), so this keeps the last 30
/// or so (25), more than a refresh or a change of network misses;
/// the log is what a server's memory grows by while its tables play, up
/// to this bound for each (40 MiB for 2,500 tables).
pub const EVENT_LOG_BYTES: usize = 16 * 1024;
/// Messages queued for one connection before it counts as too slow: room
/// for a welcome, a full replay of the event log and a presence.
pub const OUTBOX_LEN: usize = EVENT_LOG_LEN + 64;

/// A connection's id, for logs and for telling sockets apart.
pub type ConnId = u64;

/// What a table sends to a connection.
#[derive(Clone, Debug)]
pub enum Outgoing {
    /// A message, serialized once for every receiver.
    Text(Utf8Bytes),
    /// A frame broadcast to every subscriber (an event, or presence),
    /// serialized once, with the moment the table sent it (for
    /// [`ActionStage::ToSocket`]).
    Event(Utf8Bytes, std::time::Instant),
    /// Close the socket with this code.
    Close(wire::CloseCode),
}

/// The sending half of a connection's queue.
pub type Outbox = mpsc::Sender<Outgoing>;

/// Who a connection is at its table (between nodes: `"host"`, `"guest"`
/// or `"spectator"`).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(into = "MemberForm", from = "MemberForm")]
pub enum Member {
    /// A player.
    Player(Player),
    /// A spectator.
    Spectator,
}

/// The table's task has ended (the server is shutting down), or its owner
/// does not answer.
#[derive(Debug, thiserror::Error)]
#[error("the table is closed")]
pub struct TableClosed;

/// The capacity a thread's encoding buffer keeps between messages: more
/// than any event's frame; a larger message (a long replay) leaves its
/// buffer behind.
const ENCODE_BUFFER_BYTES: usize = 4 * 1024;

/// Serializes a server message once, for any number of receivers.
///
/// The JSON is written into a buffer the thread keeps, then copied once
/// into a frame of its exact size: `serde_json::to_string` grew its
/// string from 128 bytes, three reallocations for an event's frame of
/// some 550 bytes, and the frame kept the spare capacity.
pub fn encode(message: &wire::ServerMessage) -> Utf8Bytes {
    encode_with(|buffer| message.write_json(buffer))
}

/// The `ack` of `id`, encoded as [`encode`] encodes `ServerMessage::Ack`
/// but from the id where it is, without a copy of it.
pub fn encode_ack(id: &str) -> Utf8Bytes {
    encode_with(|buffer| wire::write_ack_json(id, buffer))
}

/// The frame `write` writes, through the thread's buffer.
fn encode_with(write: impl FnOnce(&mut Vec<u8>) -> serde_json::Result<()>) -> Utf8Bytes {
    thread_local! {
        static BUFFER: std::cell::RefCell<Vec<u8>> =
            std::cell::RefCell::new(Vec::with_capacity(ENCODE_BUFFER_BYTES));
    }
    BUFFER.with_borrow_mut(|buffer| {
        buffer.clear();
        // Serializing these types cannot fail: no maps with non-string
        // keys, no failing Serialize impls; and serde_json writes UTF-8.
        let frame = match write(buffer) {
            Ok(()) => {
                Utf8Bytes::try_from(bytes::Bytes::copy_from_slice(buffer)).unwrap_or_default()
            }
            Err(_) => Utf8Bytes::default(),
        };
        if buffer.capacity() > ENCODE_BUFFER_BYTES {
            *buffer = Vec::with_capacity(ENCODE_BUFFER_BYTES);
        }
        frame
    })
}

/// A [`Member`] as it is written between nodes.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum MemberForm {
    Host,
    Guest,
    Spectator,
}

impl From<Member> for MemberForm {
    fn from(member: Member) -> MemberForm {
        match member {
            Member::Player(Player::Host) => MemberForm::Host,
            Member::Player(Player::Guest) => MemberForm::Guest,
            Member::Spectator => MemberForm::Spectator,
        }
    }
}

impl From<MemberForm> for Member {
    fn from(form: MemberForm) -> Member {
        match form {
            MemberForm::Host => Member::Player(Player::Host),
            MemberForm::Guest => Member::Player(Player::Guest),
            MemberForm::Spectator => Member::Spectator,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_member_crosses_between_nodes_by_name() {
        for (member, json) in [
            (Member::Player(Player::Host), r#""host""#),
            (Member::Player(Player::Guest), r#""guest""#),
            (Member::Spectator, r#""spectator""#),
        ] {
            assert_eq!(serde_json::to_string(&member).unwrap(), json);
            assert_eq!(serde_json::from_str::<Member>(json).unwrap(), member);
        }
    }

    #[test]
    fn an_ack_from_its_id_is_the_ack_message_encoded() {
        for id in ["7", "a \"quoted\" id", "tab\there", "é"] {
            let message = wire::ServerMessage::Ack { id: id.into() };
            assert_eq!(encode_ack(id), encode(&message), "{id}");
        }
        assert_eq!(encode_ack("7").as_str(), r#"{"type":"ack","id":"7"}"#);
    }
}
