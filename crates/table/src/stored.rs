//! An event as a table's log stores it: the name of its kind, and the
//! side and action it names. This is the one place where events are
//! encoded for storage and decoded from it; the names are stable, since
//! every stored log is read with them.

use baghchal_rules::{Action, Side};

use crate::play::{Claim, Event};

/// An event's stored form.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct StoredForm {
    /// The kind's name (the `kind` column).
    pub kind: &'static str,
    /// The side it names, if any.
    pub side: Option<Side>,
    /// The action it names, if any.
    pub action: Option<Action>,
}

/// Which part of a stored event is not what this code writes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Unreadable {
    /// The kind's name.
    Kind,
    /// A side missing where the kind needs one.
    Side,
    /// An action missing where the kind needs one.
    Action,
}

impl Event {
    /// This event's stored form.
    pub fn stored(&self) -> StoredForm {
        let form = |kind, side: Option<Side>| StoredForm {
            kind,
            side,
            action: None,
        };
        match *self {
            Event::Played { side, action } => StoredForm {
                kind: "played",
                side: Some(side),
                action: Some(action),
            },
            Event::Resigned { side } => form("resigned", Some(side)),
            Event::DrawOffered { side } => form("draw_offered", Some(side)),
            Event::DrawDeclined { side } => form("draw_declined", Some(side)),
            Event::DrawAgreed => form("draw_agreed", None),
            Event::RematchOffered { side } => form("rematch_offered", Some(side)),
            Event::RematchStarted => form("rematch_started", None),
            Event::Flagged { side } => form("flagged", Some(side)),
            Event::Claimed {
                side,
                claim: Claim::Victory,
            } => form("claimed_victory", Some(side)),
            Event::Claimed {
                side,
                claim: Claim::Draw,
            } => form("claimed_draw", Some(side)),
            Event::Aborted { side } => form("aborted", Some(side)),
            Event::RematchDeclined { side } => form("rematch_declined", Some(side)),
            Event::RematchWithdrawn { side } => form("rematch_withdrawn", Some(side)),
            Event::DrawWithdrawn { side } => form("draw_withdrawn", Some(side)),
            Event::Abandoned { side } => form("abandoned", Some(side)),
            Event::ClockPaused { side } => form("clock_paused", Some(side)),
            Event::ClockResumed { side } => form("clock_resumed", Some(side)),
        }
    }

    /// The event a stored form holds.
    pub fn from_stored(
        kind: &str,
        side: Option<Side>,
        action: Option<Action>,
    ) -> Result<Event, Unreadable> {
        let side = || side.ok_or(Unreadable::Side);
        Ok(match kind {
            "played" => Event::Played {
                side: side()?,
                action: action.ok_or(Unreadable::Action)?,
            },
            "resigned" => Event::Resigned { side: side()? },
            "draw_offered" => Event::DrawOffered { side: side()? },
            "draw_declined" => Event::DrawDeclined { side: side()? },
            "draw_agreed" => Event::DrawAgreed,
            "rematch_offered" => Event::RematchOffered { side: side()? },
            "rematch_started" => Event::RematchStarted,
            "flagged" => Event::Flagged { side: side()? },
            "claimed_victory" => Event::Claimed {
                side: side()?,
                claim: Claim::Victory,
            },
            "claimed_draw" => Event::Claimed {
                side: side()?,
                claim: Claim::Draw,
            },
            "aborted" => Event::Aborted { side: side()? },
            "rematch_declined" => Event::RematchDeclined { side: side()? },
            "rematch_withdrawn" => Event::RematchWithdrawn { side: side()? },
            "draw_withdrawn" => Event::DrawWithdrawn { side: side()? },
            "abandoned" => Event::Abandoned { side: side()? },
            "clock_paused" => Event::ClockPaused { side: side()? },
            "clock_resumed" => Event::ClockResumed { side: side()? },
            _ => return Err(Unreadable::Kind),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_event_keeps_its_stored_name_and_reads_back() {
        let c3: Action = "c3".parse().unwrap();
        let events = [
            (
                Event::Played {
                    side: Side::Goat,
                    action: c3,
                },
                "played",
            ),
            (Event::Resigned { side: Side::Tiger }, "resigned"),
            (Event::DrawOffered { side: Side::Goat }, "draw_offered"),
            (Event::DrawDeclined { side: Side::Tiger }, "draw_declined"),
            (Event::DrawAgreed, "draw_agreed"),
            (
                Event::RematchOffered { side: Side::Goat },
                "rematch_offered",
            ),
            (Event::RematchStarted, "rematch_started"),
            (Event::Flagged { side: Side::Tiger }, "flagged"),
            (
                Event::Claimed {
                    side: Side::Goat,
                    claim: Claim::Victory,
                },
                "claimed_victory",
            ),
            (
                Event::Claimed {
                    side: Side::Tiger,
                    claim: Claim::Draw,
                },
                "claimed_draw",
            ),
            (Event::Aborted { side: Side::Goat }, "aborted"),
            (
                Event::RematchDeclined { side: Side::Tiger },
                "rematch_declined",
            ),
            (
                Event::RematchWithdrawn { side: Side::Goat },
                "rematch_withdrawn",
            ),
            (Event::DrawWithdrawn { side: Side::Tiger }, "draw_withdrawn"),
            (Event::Abandoned { side: Side::Goat }, "abandoned"),
            (Event::ClockPaused { side: Side::Tiger }, "clock_paused"),
            (Event::ClockResumed { side: Side::Goat }, "clock_resumed"),
        ];
        for (event, name) in events {
            let form = event.stored();
            assert_eq!(form.kind, name);
            assert_eq!(
                Event::from_stored(form.kind, form.side, form.action),
                Ok(event)
            );
        }
        assert_eq!(
            Event::from_stored("played", Some(Side::Goat), None),
            Err(Unreadable::Action)
        );
        assert_eq!(
            Event::from_stored("resigned", None, None),
            Err(Unreadable::Side)
        );
        assert_eq!(
            Event::from_stored("castled", None, None),
            Err(Unreadable::Kind)
        );
    }
}
