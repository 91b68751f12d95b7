//! The table's events as the wire shows them.

use baghchal_protocol as wire;

use crate::names::side_to_wire;
use crate::play::{Claim, Event};

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
        Event::Abandoned { side } => wire::TableEvent::Abandoned {
            side: side_to_wire(side),
        },
        Event::ClockPaused { side } => wire::TableEvent::ClockPaused {
            side: side_to_wire(side),
        },
        Event::ClockResumed { side } => wire::TableEvent::ClockResumed {
            side: side_to_wire(side),
        },
    }
}
