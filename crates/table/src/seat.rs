//! The two seats of a table: the host, who created it, and the guest, who
//! joined through the opponent link (or the computer).

use baghchal_protocol as wire;

/// Which player: the creator or the one who joined (or the computer).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Player {
    /// The creator.
    Host,
    /// The opponent.
    Guest,
}

impl Player {
    /// 0 for the host, 1 for the guest: a place in a pair of seats.
    pub fn index(self) -> usize {
        match self {
            Player::Host => 0,
            Player::Guest => 1,
        }
    }
}

impl Player {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            Player::Host => "host",
            Player::Guest => "guest",
        }
    }

    /// The player with this stored name.
    pub fn parse(name: &str) -> Option<Player> {
        match name {
            "host" => Some(Player::Host),
            "guest" => Some(Player::Guest),
            _ => None,
        }
    }

    /// On the wire.
    pub fn to_wire(self) -> wire::Player {
        match self {
            Player::Host => wire::Player::Host,
            Player::Guest => wire::Player::Guest,
        }
    }
}
