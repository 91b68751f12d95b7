//! Every name a domain value has outside the domain, written once: on the
//! wire (the protocol crate's types) and in the database (text columns).
//! The rules and the table speak in domain types; [`crate::ws`],
//! [`crate::http`] and [`crate::storage`] convert here and nowhere else.

use std::borrow::Cow;
use std::sync::OnceLock;

use baghchal_protocol as wire;
use baghchal_rules::notation::Format;
use baghchal_rules::{Action, Outcome, Phase, Reason, Repetition, Side, Square};

/// An action in notation, as the state on the wire names it: a static
/// string for a placement, a step or a single jump (all of them named
/// once, the first time one is asked for: 1,275 short strings), a new
/// string only for a chain of jumps.
///
/// ```
/// use baghchal_table::names::action_name;
/// let step = "b2-c3".parse().unwrap();
/// assert_eq!(action_name(&step), "b2-c3");
/// assert!(matches!(action_name(&step), std::borrow::Cow::Borrowed(_)));
/// ```
pub fn action_name(action: &Action) -> Cow<'static, str> {
    const POINTS: usize = Square::ALL.len();
    static NAMES: OnceLock<Vec<String>> = OnceLock::new();
    let index = match action {
        Action::Place(to) => to.index(),
        Action::Step { from, to } => POINTS + from.index() * POINTS + to.index(),
        Action::Jump(jump) => match jump.landings() {
            [to] => POINTS * (1 + POINTS) + jump.from().index() * POINTS + to.index(),
            _ => return Cow::Owned(action.to_string()),
        },
    };
    let names = NAMES.get_or_init(|| {
        let pairs = |separator: char| {
            Square::ALL.into_iter().flat_map(move |from| {
                Square::ALL
                    .into_iter()
                    .map(move |to| format!("{}{separator}{}", from.name(), to.name()))
            })
        };
        Square::ALL
            .into_iter()
            .map(|to| to.name().to_owned())
            .chain(pairs('-'))
            .chain(pairs('x'))
            .collect()
    });
    match names.get(index) {
        Some(name) => Cow::Borrowed(name.as_str()),
        None => Cow::Owned(action.to_string()),
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::Opponent;
    use crate::seat::Player;

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
    fn every_action_is_named_as_its_notation() {
        let mut named = 0;
        for from in Square::ALL {
            let place = Action::Place(from);
            assert_eq!(action_name(&place), place.to_string());
            for to in Square::ALL {
                for text in [format!("{from}-{to}"), format!("{from}x{to}")] {
                    if let Ok(action) = text.parse::<Action>() {
                        assert_eq!(action_name(&action), action.to_string());
                        named += 1;
                    }
                }
            }
        }
        assert!(named > 0);
    }

    #[test]
    fn a_stored_side_is_named_as_on_the_wire() {
        for side in [Side::Goat, Side::Tiger] {
            let wire = serde_json::to_value(side_to_wire(side)).unwrap();
            assert_eq!(wire, serde_json::Value::from(side_name(side)));
        }
    }
}
