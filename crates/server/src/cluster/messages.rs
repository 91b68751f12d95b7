//! What nodes ask a table's owner and what it answers, as they cross
//! NATS (JSON).

use baghchal_protocol as wire;
use serde::{Deserialize, Serialize};

use crate::table::conn::{ConnId, Member};
use baghchal_table::play::Intent;
use baghchal_table::seats::Key;

/// A socket as the node that holds it names it: the node and its key
/// there, drawn at random (64 bits) so that no one can guess another
/// socket's. The owner answers a request only for the node and key that
/// joined through it, so a socket can never act through a connection id
/// that another owner gave out, nor through another socket's seat.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct Holder {
    pub(super) node: String,
    pub(super) key: u64,
}

/// What a node asks a table's owner.
#[derive(Serialize, Deserialize, Debug)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(super) enum Request {
    /// Whether the owner answers at all.
    Probe,
    /// A socket's `hello`. No token crosses NATS: the holder sends the
    /// hash of the token presented (SHA-256, hex), and the hash of a
    /// fresh secret it keeps for the guest's seat in case this join
    /// claims it (see [`crate::table::LocalTable::join_hashed`]).
    Join {
        node: String,
        key: u64,
        /// The keys presented, a link's token hashed by the node that
        /// holds the socket: no token crosses the cluster.
        keys: Vec<Key>,
        /// The hash of the secret the guest's seat gets should this join
        /// claim it: the secret stays with the socket's node.
        claim_hash: String,
        since: Option<u64>,
        /// Whether the holder reads relayed frames in batches (a node of
        /// an earlier version says nothing, and gets each frame alone).
        #[serde(default)]
        batches: bool,
    },
    Leave {
        holder: Holder,
    },
    Act {
        holder: Holder,
        id: Option<String>,
        #[serde(default)]
        board: Option<u8>,
        intent: Result<Intent, String>,
    },
    Ping {
        holder: Holder,
    },
    /// Whether the connection is still at the table.
    Alive {
        holder: Holder,
    },
    /// Whether node `node`'s connections `keys` are still at tables of
    /// the owner asked (on its node's subject), and how many frames it
    /// sent each.
    Watch {
        node: String,
        keys: Vec<u64>,
    },
    Record {
        game: u32,
        #[serde(default = "first_board")]
        board: u8,
    },
}

impl Request {
    /// Whether the owner takes it without an answer from a holder it told
    /// so at the join (see [`Reply::Joined`]): a command whose outcome
    /// comes in the connection's frames.
    pub(super) fn may_go_one_way(&self) -> bool {
        matches!(self, Request::Act { .. } | Request::Ping { .. })
    }
}

/// A record request from a node that names no board asks for board 1.
pub(super) fn first_board() -> u8 {
    1
}

#[derive(Serialize, Deserialize, Debug)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(super) enum Reply {
    Done,
    Joined {
        conn: ConnId,
        member: Result<Member, wire::ErrorCode>,
        /// The owner's node id (a node of an earlier version does not
        /// say): it answers the watch for all its tables at once.
        #[serde(default)]
        owner: Option<String>,
        /// Whether the owner takes the connection's `act` and `ping`
        /// without an answer (a node of an earlier version answers each):
        /// the holder then only publishes them, and what they lead to
        /// comes back in the relayed frames, as it always did.
        #[serde(default)]
        one_way: bool,
    },
    Alive {
        alive: bool,
        /// How many frames the owner has sent the connection.
        #[serde(default)]
        sent: u64,
    },
    Record {
        record: Option<wire::GameRecord>,
    },
    /// For each connection of a watch, in its order: how many frames the
    /// owner sent it, or nothing when the owner does not have it.
    Watched {
        sent: Vec<Option<u64>>,
    },
    /// The table is not (or no longer) here.
    Closed,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_join_from_a_node_that_does_not_read_batches_asks_for_none() {
        let earlier =
            r#"{"type":"join","node":"n1","key":7,"keys":[],"claim_hash":"00","since":null}"#;
        let Ok(Request::Join { batches, .. }) = serde_json::from_str(earlier) else {
            panic!("a join of the earlier form reads");
        };
        assert!(!batches);
        let now = Request::Join {
            node: "n1".into(),
            key: 7,
            keys: Vec::new(),
            claim_hash: "00".into(),
            since: None,
            batches: true,
        };
        let text = serde_json::to_string(&now).unwrap();
        let Ok(Request::Join { batches, .. }) = serde_json::from_str(&text) else {
            panic!("a join reads back");
        };
        assert!(batches);
    }

    #[test]
    fn a_join_answered_by_a_node_that_wants_answers_says_so() {
        let now = Reply::Joined {
            conn: 5,
            member: Ok(Member::Spectator),
            owner: Some("n2".into()),
            one_way: true,
        };
        let text = serde_json::to_string(&now).unwrap();
        let Ok(Reply::Joined { one_way, .. }) = serde_json::from_str(&text) else {
            panic!("a join's answer reads back");
        };
        assert!(one_way);
        // The same answer as a node of an earlier version writes it.
        let mut earlier: serde_json::Value = serde_json::from_str(&text).unwrap();
        let fields = earlier.as_object_mut().unwrap();
        fields.remove("one_way");
        fields.remove("owner");
        let Ok(Reply::Joined {
            one_way,
            owner,
            member,
            ..
        }) = serde_json::from_value(earlier)
        else {
            panic!("a join's answer of the earlier form reads");
        };
        assert!(!one_way);
        assert_eq!(owner, None);
        assert_eq!(member, Ok(Member::Spectator));
    }

    #[test]
    fn only_commands_answered_in_the_frames_go_one_way() {
        let holder = Holder {
            node: "n1".into(),
            key: 7,
        };
        let act = Request::Act {
            holder: holder.clone(),
            id: Some("a1".into()),
            board: None,
            intent: Err("x".into()),
        };
        assert!(act.may_go_one_way());
        assert!(Request::Ping {
            holder: holder.clone()
        }
        .may_go_one_way());
        assert!(!Request::Leave {
            holder: holder.clone()
        }
        .may_go_one_way());
        assert!(!Request::Alive { holder }.may_go_one_way());
        assert!(!Request::Probe.may_go_one_way());
        assert!(!Request::Record { game: 1, board: 1 }.may_go_one_way());
    }
}
