//! A table's events as their rows hold them, in the core's stored form
//! (`baghchal_table::stored`).

use std::borrow::Cow;

use baghchal_table::names::{action_name, side_from_name, side_name};
use baghchal_table::play::{Event, Logged};
use baghchal_table::seat::Player;
use baghchal_table::stored::Unreadable;
use baghchal_table::time::Timestamp;

/// An event as its row's columns hold it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct StoredEvent {
    pub(super) version: u64,
    /// The `kind` column.
    pub(super) kind: &'static str,
    pub(super) side: Option<&'static str>,
    /// The action in notation: a static name for all but a multiple jump.
    pub(super) action: Option<Cow<'static, str>>,
    pub(super) player: Option<&'static str>,
    pub(super) client_id: Option<String>,
    /// Milliseconds since the epoch: the `created_at` column.
    pub(super) at: i64,
    /// The `board` column: 1, or 2 on a two-board table's second board.
    pub(super) board: i64,
}

impl StoredEvent {
    pub(super) fn encode(logged: Logged) -> StoredEvent {
        let form = logged.event.stored();
        StoredEvent {
            version: logged.version,
            kind: form.kind,
            side: form.side.map(side_name),
            action: form.action.map(|a| action_name(&a)),
            player: logged.player.map(Player::as_str),
            client_id: logged.client_id,
            at: logged.at.as_millis(),
            board: i64::from(logged.board),
        }
    }
}

/// Reads an event row back; the error names the column that is not what
/// this server writes.
pub(super) fn decode_event(row: EventRow) -> Result<Logged, &'static str> {
    let (version, kind, side, action, player, client_id, at, board) = row;
    let side = match side {
        Some(name) => Some(side_from_name(&name).ok_or("side")?),
        None => None,
    };
    let action = match action {
        Some(text) => Some(text.parse().map_err(|_| "action")?),
        None => None,
    };
    let event = Event::from_stored(&kind, side, action).map_err(|e| match e {
        Unreadable::Kind => "kind",
        Unreadable::Side => "side",
        Unreadable::Action => "action",
    })?;
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
            stored.kind.to_owned(),
            stored.side.map(str::to_owned),
            stored.action.map(Cow::into_owned),
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
            Event::Abandoned { side: Side::Goat },
            Event::ClockPaused { side: Side::Tiger },
            Event::ClockResumed { side: Side::Goat },
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
                let back = decode_event(row(StoredEvent::encode(logged.clone())));
                assert_eq!(back, Ok(logged));
            }
        }
    }

    #[test]
    fn an_unreadable_event_row_names_its_column() {
        let good = || {
            row(StoredEvent::encode(Logged {
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
