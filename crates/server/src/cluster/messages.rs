//! What nodes ask a table's owner and what it answers, as they cross
//! NATS (JSON).

use baghchal_protocol as wire;
use serde::{Deserialize, Serialize};

use crate::table::conn::{ConnId, Member};
use baghchal_table::play::{Claim, Intent};
use baghchal_table::seat::Player;

/// A socket as the node that holds it names it: the node and its key
/// there. The owner answers a request only for a socket that joined
/// through it, so a socket can never act through a connection id that
/// another owner gave out.
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
    Join {
        node: String,
        key: u64,
        token: String,
        since: Option<u64>,
    },
    Leave {
        holder: Holder,
    },
    Act {
        holder: Holder,
        id: Option<String>,
        #[serde(default)]
        board: Option<u8>,
        intent: Result<RemoteIntent, String>,
    },
    Ping {
        holder: Holder,
    },
    /// Whether the connection is still at the table.
    Alive {
        holder: Holder,
    },
    Record {
        game: u32,
        #[serde(default = "first_board")]
        board: u8,
    },
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
        member: Result<RemoteMember, wire::ErrorCode>,
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
    /// The table is not (or no longer) here.
    Closed,
}

#[derive(Serialize, Deserialize, Debug, Clone, Copy)]
#[serde(rename_all = "snake_case")]
pub(super) enum RemoteMember {
    Host,
    Guest,
    Spectator,
}

impl From<Member> for RemoteMember {
    fn from(member: Member) -> RemoteMember {
        match member {
            Member::Player(Player::Host) => RemoteMember::Host,
            Member::Player(Player::Guest) => RemoteMember::Guest,
            Member::Spectator => RemoteMember::Spectator,
        }
    }
}

impl From<RemoteMember> for Member {
    fn from(member: RemoteMember) -> Member {
        match member {
            RemoteMember::Host => Member::Player(Player::Host),
            RemoteMember::Guest => Member::Player(Player::Guest),
            RemoteMember::Spectator => Member::Spectator,
        }
    }
}

#[derive(Serialize, Deserialize, Debug)]
#[serde(rename_all = "snake_case")]
pub(super) enum RemoteIntent {
    Play(String),
    Resign,
    OfferDraw,
    AcceptDraw,
    DeclineDraw,
    Rematch,
    DeclineRematch,
    Abort,
    ClaimVictory,
    ClaimDraw,
}

impl From<Intent> for RemoteIntent {
    fn from(intent: Intent) -> RemoteIntent {
        match intent {
            Intent::Play(action) => RemoteIntent::Play(action.to_string()),
            Intent::Resign => RemoteIntent::Resign,
            Intent::OfferDraw => RemoteIntent::OfferDraw,
            Intent::AcceptDraw => RemoteIntent::AcceptDraw,
            Intent::DeclineDraw => RemoteIntent::DeclineDraw,
            Intent::Rematch => RemoteIntent::Rematch,
            Intent::DeclineRematch => RemoteIntent::DeclineRematch,
            Intent::Abort => RemoteIntent::Abort,
            Intent::Claim(Claim::Victory) => RemoteIntent::ClaimVictory,
            Intent::Claim(Claim::Draw) => RemoteIntent::ClaimDraw,
        }
    }
}

impl RemoteIntent {
    pub(super) fn parse(self) -> Result<Intent, String> {
        Ok(match self {
            RemoteIntent::Play(action) => Intent::Play(
                action
                    .parse()
                    .map_err(|e| format!("{action:?} is not an action in notation: {e}"))?,
            ),
            RemoteIntent::Resign => Intent::Resign,
            RemoteIntent::OfferDraw => Intent::OfferDraw,
            RemoteIntent::AcceptDraw => Intent::AcceptDraw,
            RemoteIntent::DeclineDraw => Intent::DeclineDraw,
            RemoteIntent::Rematch => Intent::Rematch,
            RemoteIntent::DeclineRematch => Intent::DeclineRematch,
            RemoteIntent::Abort => Intent::Abort,
            RemoteIntent::ClaimVictory => Intent::Claim(Claim::Victory),
            RemoteIntent::ClaimDraw => Intent::Claim(Claim::Draw),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_intent_crosses_between_nodes_unchanged() {
        for intent in [
            Intent::Play("c3".parse().unwrap()),
            Intent::Play("b3-c3".parse().unwrap()),
            Intent::Resign,
            Intent::OfferDraw,
            Intent::AcceptDraw,
            Intent::DeclineDraw,
            Intent::Rematch,
        ] {
            let json = serde_json::to_string(&RemoteIntent::from(intent)).unwrap();
            let back: RemoteIntent = serde_json::from_str(&json).unwrap();
            assert_eq!(back.parse(), Ok(intent));
        }
        assert!(RemoteIntent::Play("z9".into()).parse().is_err());
    }
}
