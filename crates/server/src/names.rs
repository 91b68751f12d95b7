//! Every name a domain value has outside the domain, written once: on the
//! wire (the protocol crate's types) and in the database (text columns).
//! The rules and the table speak in domain types; [`crate::ws`],
//! [`crate::http`] and [`crate::storage`] convert here and nowhere else.

use baghchal_protocol as wire;
use baghchal_rules::notation::Format;
use baghchal_rules::{Outcome, Phase, Reason, Repetition, Side};

use crate::options::Opponent;
use crate::play::{Claim, Event, Player};

/// A rules side on the wire.
pub fn side_to_wire(side: Side) -> wire::Side {
    match side {
        Side::Goat => wire::Side::Goats,
        Side::Tiger => wire::Side::Tigers,
    }
}

/// A wire side as a rules side.
pub fn side_from_wire(side: wire::Side) -> Side {
    match side {
        wire::Side::Goats => Side::Goat,
        wire::Side::Tigers => Side::Tiger,
    }
}

/// The stored name of a side.
pub fn side_name(side: Side) -> &'static str {
    match side {
        Side::Goat => "goats",
        Side::Tiger => "tigers",
    }
}

/// The side with this stored name.
pub fn side_from_name(name: &str) -> Option<Side> {
    match name {
        "goats" => Some(Side::Goat),
        "tigers" => Some(Side::Tiger),
        _ => None,
    }
}

/// A repetition rule on the wire.
pub fn repetition_to_wire(repetition: Repetition) -> wire::Repetition {
    match repetition {
        Repetition::Forbid => wire::Repetition::Forbid,
        Repetition::ThreefoldDraw => wire::Repetition::ThreefoldDraw,
    }
}

/// A wire repetition rule as a rules one.
pub fn repetition_from_wire(repetition: wire::Repetition) -> Repetition {
    match repetition {
        wire::Repetition::Forbid => Repetition::Forbid,
        wire::Repetition::ThreefoldDraw => Repetition::ThreefoldDraw,
    }
}

/// The stored name of a repetition rule.
pub fn repetition_name(repetition: Repetition) -> &'static str {
    match repetition {
        Repetition::Forbid => "forbid",
        Repetition::ThreefoldDraw => "threefold_draw",
    }
}

/// The repetition rule with this stored name.
pub fn repetition_from_name(name: &str) -> Option<Repetition> {
    match name {
        "forbid" => Some(Repetition::Forbid),
        "threefold_draw" => Some(Repetition::ThreefoldDraw),
        _ => None,
    }
}

impl Opponent {
    /// The stored name (also the name in logs).
    pub fn as_str(self) -> &'static str {
        match self {
            Opponent::Friend => "friend",
            Opponent::Computer => "computer",
            Opponent::Bots => "bots",
        }
    }

    /// The opponent with this stored name.
    pub fn parse(name: &str) -> Option<Opponent> {
        match name {
            "friend" => Some(Opponent::Friend),
            "computer" => Some(Opponent::Computer),
            "bots" => Some(Opponent::Bots),
            _ => None,
        }
    }

    /// On the wire.
    pub fn to_wire(self) -> wire::Opponent {
        match self {
            Opponent::Friend => wire::Opponent::Friend,
            Opponent::Computer => wire::Opponent::Computer,
            Opponent::Bots => wire::Opponent::Bots,
        }
    }

    /// From the wire.
    pub fn from_wire(opponent: wire::Opponent) -> Opponent {
        match opponent {
            wire::Opponent::Friend => Opponent::Friend,
            wire::Opponent::Computer => Opponent::Computer,
            wire::Opponent::Bots => Opponent::Bots,
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

/// A phase on the wire.
pub fn phase_to_wire(phase: Phase) -> wire::Phase {
    match phase {
        Phase::Placement => wire::Phase::Placement,
        Phase::Movement => wire::Phase::Movement,
    }
}

/// A wire notation as the rules crate's.
pub fn format_from_wire(format: wire::NotationFormat) -> Format {
    match format {
        wire::NotationFormat::Record => Format::Record,
        wire::NotationFormat::Pypi => Format::Pypi,
        wire::NotationFormat::Obx => Format::Obx,
    }
}

/// A notation of the rules crate on the wire.
pub fn format_to_wire(format: Format) -> wire::NotationFormat {
    match format {
        Format::Record => wire::NotationFormat::Record,
        Format::Pypi => wire::NotationFormat::Pypi,
        Format::Obx => wire::NotationFormat::Obx,
    }
}

/// Why a game ended, on the wire.
pub fn reason_to_wire(reason: Reason) -> wire::EndReason {
    match reason {
        Reason::CaptureTarget => wire::EndReason::CaptureTarget,
        Reason::TigersTrapped => wire::EndReason::TigersTrapped,
        Reason::GoatsBlocked => wire::EndReason::GoatsBlocked,
        Reason::PlyLimit => wire::EndReason::PlyLimit,
        Reason::Threefold => wire::EndReason::Threefold,
        Reason::Resignation => wire::EndReason::Resignation,
        Reason::Agreement => wire::EndReason::Agreement,
        Reason::Timeout => wire::EndReason::Timeout,
        Reason::Abandoned => wire::EndReason::Abandoned,
        Reason::Aborted => wire::EndReason::Aborted,
    }
}

/// A rules outcome on the wire.
pub fn result_to_wire(outcome: Outcome) -> wire::GameResult {
    wire::GameResult {
        winner: outcome.winner().map(side_to_wire),
        reason: reason_to_wire(outcome.reason()),
    }
}

/// An event on the wire; `game_number` is the current game's.
pub fn event_to_wire(event: &Event, game_number: u32) -> wire::TableEvent {
    match *event {
        Event::Played { side, action } => wire::TableEvent::Played {
            side: side_to_wire(side),
            action: action.to_string(),
        },
        Event::Resigned { side } => wire::TableEvent::Resigned {
            side: side_to_wire(side),
        },
        Event::DrawOffered { side } => wire::TableEvent::DrawOffered {
            side: side_to_wire(side),
        },
        Event::DrawDeclined { side } => wire::TableEvent::DrawDeclined {
            side: side_to_wire(side),
        },
        Event::DrawAgreed => wire::TableEvent::DrawAgreed,
        Event::RematchOffered { side } => wire::TableEvent::RematchOffered {
            side: side_to_wire(side),
        },
        Event::RematchStarted => wire::TableEvent::RematchStarted { game: game_number },
        Event::Flagged { side } => wire::TableEvent::Flagged {
            side: side_to_wire(side),
        },
        Event::Claimed { side, claim } => wire::TableEvent::Claimed {
            side: side_to_wire(side),
            result: match claim {
                Claim::Victory => wire::ClaimResult::Win,
                Claim::Draw => wire::ClaimResult::Draw,
            },
        },
        Event::Aborted { side } => wire::TableEvent::Aborted {
            side: side_to_wire(side),
        },
        Event::RematchDeclined { side } => wire::TableEvent::RematchDeclined {
            side: side_to_wire(side),
        },
        Event::RematchWithdrawn { side } => wire::TableEvent::RematchWithdrawn {
            side: side_to_wire(side),
        },
        Event::DrawWithdrawn { side } => wire::TableEvent::DrawWithdrawn {
            side: side_to_wire(side),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_stored_and_wire_name_reads_back_as_itself() {
        for side in [Side::Goat, Side::Tiger] {
            assert_eq!(side_from_name(side_name(side)), Some(side));
            assert_eq!(side_from_wire(side_to_wire(side)), side);
        }
        for r in [Repetition::Forbid, Repetition::ThreefoldDraw] {
            assert_eq!(repetition_from_name(repetition_name(r)), Some(r));
            assert_eq!(repetition_from_wire(repetition_to_wire(r)), r);
        }
        for o in [Opponent::Friend, Opponent::Computer, Opponent::Bots] {
            assert_eq!(Opponent::parse(o.as_str()), Some(o));
            assert_eq!(Opponent::from_wire(o.to_wire()), o);
        }
        for p in [Player::Host, Player::Guest] {
            assert_eq!(Player::parse(p.as_str()), Some(p));
        }
        assert_eq!(side_from_name("goat"), None);
        assert_eq!(repetition_from_name("never"), None);
    }

    #[test]
    fn a_stored_side_is_named_as_on_the_wire() {
        for side in [Side::Goat, Side::Tiger] {
            let wire = serde_json::to_value(side_to_wire(side)).unwrap();
            assert_eq!(wire, serde_json::Value::from(side_name(side)));
        }
    }
}
