//! A table's events as their rows hold them: the `kind` column and the
//! encoding of every event, decoded in this one place.

use baghchal_table::names::{side_from_name, side_name};
use baghchal_table::play::{Claim, Event, Logged};
use baghchal_table::seat::Player;
use baghchal_table::time::Timestamp;

/// What kind of event a stored event is: the `kind` column.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum EventKind {
    Played,
    Resigned,
    DrawOffered,
    DrawDeclined,
    DrawAgreed,
    RematchOffered,
    RematchStarted,
    Flagged,
    ClaimedVictory,
    ClaimedDraw,
    Aborted,
    RematchDeclined,
    RematchWithdrawn,
    DrawWithdrawn,
}

impl EventKind {
    pub(super) fn as_str(self) -> &'static str {
        match self {
            EventKind::Played => "played",
            EventKind::Resigned => "resigned",
            EventKind::DrawOffered => "draw_offered",
            EventKind::DrawDeclined => "draw_declined",
            EventKind::DrawAgreed => "draw_agreed",
            EventKind::RematchOffered => "rematch_offered",
            EventKind::RematchStarted => "rematch_started",
            EventKind::Flagged => "flagged",
            EventKind::ClaimedVictory => "claimed_victory",
            EventKind::ClaimedDraw => "claimed_draw",
            EventKind::Aborted => "aborted",
            EventKind::RematchDeclined => "rematch_declined",
            EventKind::RematchWithdrawn => "rematch_withdrawn",
            EventKind::DrawWithdrawn => "draw_withdrawn",
        }
    }

    pub(super) fn parse(text: &str) -> Option<EventKind> {
        Some(match text {
            "played" => EventKind::Played,
            "resigned" => EventKind::Resigned,
            "draw_offered" => EventKind::DrawOffered,
            "draw_declined" => EventKind::DrawDeclined,
            "draw_agreed" => EventKind::DrawAgreed,
            "rematch_offered" => EventKind::RematchOffered,
            "rematch_started" => EventKind::RematchStarted,
            "flagged" => EventKind::Flagged,
            "claimed_victory" => EventKind::ClaimedVictory,
            "claimed_draw" => EventKind::ClaimedDraw,
            "aborted" => EventKind::Aborted,
            "rematch_declined" => EventKind::RematchDeclined,
            "rematch_withdrawn" => EventKind::RematchWithdrawn,
            "draw_withdrawn" => EventKind::DrawWithdrawn,
            _ => return None,
        })
    }
}

/// An event as its row's columns hold it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct StoredEvent {
    pub(super) version: u64,
    pub(super) kind: EventKind,
    pub(super) side: Option<&'static str>,
    pub(super) action: Option<String>,
    pub(super) player: Option<&'static str>,
    pub(super) client_id: Option<String>,
    /// Milliseconds since the epoch: the `created_at` column.
    pub(super) at: i64,
    /// The `board` column: 1, or 2 on a two-board table's second board.
    pub(super) board: i64,
}

impl StoredEvent {
    pub(super) fn encode(logged: &Logged) -> StoredEvent {
        let (kind, side, action) = match logged.event {
            Event::Played { side, action } => (EventKind::Played, Some(side), Some(action)),
            Event::Resigned { side } => (EventKind::Resigned, Some(side), None),
            Event::DrawOffered { side } => (EventKind::DrawOffered, Some(side), None),
            Event::DrawDeclined { side } => (EventKind::DrawDeclined, Some(side), None),
            Event::DrawAgreed => (EventKind::DrawAgreed, None, None),
            Event::RematchOffered { side } => (EventKind::RematchOffered, Some(side), None),
            Event::RematchStarted => (EventKind::RematchStarted, None, None),
            Event::Flagged { side } => (EventKind::Flagged, Some(side), None),
            Event::Claimed { side, claim } => (
                match claim {
                    Claim::Victory => EventKind::ClaimedVictory,
                    Claim::Draw => EventKind::ClaimedDraw,
                },
                Some(side),
                None,
            ),
            Event::Aborted { side } => (EventKind::Aborted, Some(side), None),
            Event::RematchDeclined { side } => (EventKind::RematchDeclined, Some(side), None),
            Event::RematchWithdrawn { side } => (EventKind::RematchWithdrawn, Some(side), None),
            Event::DrawWithdrawn { side } => (EventKind::DrawWithdrawn, Some(side), None),
        };
        StoredEvent {
            version: logged.version,
            kind,
            side: side.map(side_name),
            action: action.map(|a| a.to_string()),
            player: logged.player.map(Player::as_str),
            client_id: logged.client_id.clone(),
            at: logged.at.as_millis(),
            board: i64::from(logged.board),
        }
    }
}

/// Reads an event row back; the error names the column that is not what
/// this server writes.
pub(super) fn decode_event(row: EventRow) -> Result<Logged, &'static str> {
    let (version, kind, side, action, player, client_id, at, board) = row;
    let side = || side.as_deref().and_then(side_from_name).ok_or("side");
    let kind = EventKind::parse(&kind).ok_or("kind")?;
    let event = match kind {
        EventKind::Played => Event::Played {
            side: side()?,
            action: action
                .as_deref()
                .and_then(|a| a.parse().ok())
                .ok_or("action")?,
        },
        EventKind::Resigned => Event::Resigned { side: side()? },
        EventKind::DrawOffered => Event::DrawOffered { side: side()? },
        EventKind::DrawDeclined => Event::DrawDeclined { side: side()? },
        EventKind::DrawAgreed => Event::DrawAgreed,
        EventKind::RematchOffered => Event::RematchOffered { side: side()? },
        EventKind::RematchStarted => Event::RematchStarted,
        EventKind::Flagged => Event::Flagged { side: side()? },
        EventKind::ClaimedVictory => Event::Claimed {
            side: side()?,
            claim: Claim::Victory,
        },
        EventKind::ClaimedDraw => Event::Claimed {
            side: side()?,
            claim: Claim::Draw,
        },
        EventKind::Aborted => Event::Aborted { side: side()? },
        EventKind::RematchDeclined => Event::RematchDeclined { side: side()? },
        EventKind::RematchWithdrawn => Event::RematchWithdrawn { side: side()? },
        EventKind::DrawWithdrawn => Event::DrawWithdrawn { side: side()? },
    };
    let player = match player {
        Some(name) => Some(Player::parse(&name).ok_or("player")?),
        None => None,
    };
    Ok(Logged {
        version: u64::try_from(version).map_err(|_| "version")?,
        event,
        player,
        client_id,
        at: Timestamp::from_millis(at),
        board: u8::try_from(board)
            .ok()
            .filter(|b| (1..=2).contains(b))
            .ok_or("board")?,
    })
}

/// An event row: version, kind, side, action, player, client id, the
/// time it was accepted, the board.
pub(super) type EventRow = (
    i64,
    String,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    i64,
    i64,
);

#[cfg(test)]
mod tests {
    use super::*;
    use baghchal_rules::Side;
    use baghchal_table::play::Claim;
    use baghchal_table::seat::Player;

    fn row(stored: StoredEvent) -> EventRow {
        (
            i64::try_from(stored.version).unwrap(),
            stored.kind.as_str().to_owned(),
            stored.side.map(str::to_owned),
            stored.action,
            stored.player.map(str::to_owned),
            stored.client_id,
            stored.at,
            stored.board,
        )
    }

    #[test]
    fn every_event_reads_back_as_it_was_written() {
        let events = [
            Event::Played {
                side: Side::Goat,
                action: "c3".parse().unwrap(),
            },
            Event::Resigned { side: Side::Tiger },
            Event::DrawOffered { side: Side::Goat },
            Event::DrawDeclined { side: Side::Tiger },
            Event::DrawAgreed,
            Event::RematchOffered { side: Side::Goat },
            Event::RematchStarted,
            Event::Flagged { side: Side::Tiger },
            Event::Claimed {
                side: Side::Goat,
                claim: Claim::Victory,
            },
            Event::Claimed {
                side: Side::Tiger,
                claim: Claim::Draw,
            },
            Event::Aborted { side: Side::Goat },
            Event::RematchDeclined { side: Side::Tiger },
            Event::RematchWithdrawn { side: Side::Goat },
            Event::DrawWithdrawn { side: Side::Tiger },
        ];
        for (i, event) in events.into_iter().enumerate() {
            for (player, client_id) in [(Some(Player::Guest), Some("7".to_owned())), (None, None)] {
                let logged = Logged {
                    version: i as u64 + 1,
                    event,
                    player,
                    client_id,
                    at: Timestamp::from_millis(1_796_160_604_250 + i as i64),
                    board: 1 + (i % 2) as u8,
                };
                let back = decode_event(row(StoredEvent::encode(&logged)));
                assert_eq!(back, Ok(logged));
            }
        }
    }

    #[test]
    fn an_unreadable_event_row_names_its_column() {
        let good = || {
            row(StoredEvent::encode(&Logged {
                version: 1,
                event: Event::Resigned { side: Side::Goat },
                player: Some(Player::Host),
                client_id: None,
                at: Timestamp::from_millis(0),
                board: 1,
            }))
        };
        let mut bad = good();
        bad.1 = "teleported".into();
        assert_eq!(decode_event(bad), Err("kind"));
        let mut bad = good();
        bad.2 = Some("goat".into());
        assert_eq!(decode_event(bad), Err("side"));
        let mut bad = good();
        bad.4 = Some("referee".into());
        assert_eq!(decode_event(bad), Err("player"));
        let mut bad = good();
        bad.0 = -1;
        assert_eq!(decode_event(bad), Err("version"));
    }
}
