//! The `event` and `ack` messages written field by field: the frames
//! every accepted action sends, whose field names, enum names and legal
//! actions serde_json would each pass through its string escaper (some
//! 8,000 instructions an action). The bytes are the same as serde_json's
//! for every message (`tests::the_event_frame_is_serde_jsons_own`, and
//! every server fixture in the golden tests).

use serde::Serialize;

use crate::{GameState, Phase, ServerMessage, Side, TableEvent};

impl ServerMessage {
    /// Writes the message as JSON to the end of `out`: the bytes
    /// `serde_json::to_writer` writes, sooner for an `event` or an `ack`.
    pub fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        match self {
            ServerMessage::Event {
                version,
                board,
                event,
                state,
            } => {
                out.extend_from_slice(b"{\"type\":\"event\",\"version\":");
                number(out, *version);
                if let Some(board) = board {
                    out.extend_from_slice(b",\"board\":");
                    number(out, *board);
                }
                out.extend_from_slice(b",\"event\":");
                match event {
                    TableEvent::Played { side: by, action } => {
                        out.extend_from_slice(b"{\"kind\":\"played\",\"side\":");
                        out.extend_from_slice(side(*by));
                        out.extend_from_slice(b",\"action\":");
                        string(out, action)?;
                        out.push(b'}');
                    }
                    other => value(out, other)?,
                }
                out.extend_from_slice(b",\"state\":");
                write_state(out, state)?;
                out.push(b'}');
                Ok(())
            }
            ServerMessage::Ack { id } => write_ack_json(id, out),
            other => serde_json::to_writer(out, other),
        }
    }
}

/// Writes the `ack` of `id` to the end of `out`, as
/// [`ServerMessage::write_json`] writes `ServerMessage::Ack`: for a
/// server that holds the id only as a `&str`.
pub fn write_ack_json(id: &str, out: &mut Vec<u8>) -> serde_json::Result<()> {
    out.extend_from_slice(b"{\"type\":\"ack\",\"id\":");
    string(out, id)?;
    out.push(b'}');
    Ok(())
}

/// Writes `state` as its derived `Serialize` does, fields in their order.
fn write_state(out: &mut Vec<u8>, state: &GameState) -> serde_json::Result<()> {
    out.extend_from_slice(b"{\"game\":");
    number(out, state.game);
    out.extend_from_slice(b",\"position\":");
    string(out, &state.position)?;
    out.extend_from_slice(b",\"side_to_move\":");
    out.extend_from_slice(side(state.side_to_move));
    out.extend_from_slice(match state.phase {
        Phase::Placement => b",\"phase\":\"placement\"",
        Phase::Movement => b",\"phase\":\"movement\"",
    });
    let counts: [(&[u8], u8); 5] = [
        (b",\"in_hand\":", state.in_hand),
        (b",\"eaten\":", state.eaten),
        (b",\"goats_to_win\":", state.goats_to_win),
        (b",\"trapped_tigers\":", state.trapped_tigers),
        (b",\"tigers\":", state.tigers),
    ];
    for (key, count) in counts {
        out.extend_from_slice(key);
        number(out, count);
    }
    for (key, plies) in [
        (&b",\"ply\":"[..], state.ply),
        (b",\"ply_limit\":", state.ply_limit),
    ] {
        out.extend_from_slice(key);
        number(out, plies);
    }
    out.extend_from_slice(b",\"legal\":[");
    for (i, action) in state.legal.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        string(out, action)?;
    }
    out.extend_from_slice(b"],\"last_action\":");
    match &state.last_action {
        Some(action) => string(out, action)?,
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"result\":");
    value(out, &state.result)?;
    out.extend_from_slice(b",\"draw_offer\":");
    optional_side(out, state.draw_offer);
    out.extend_from_slice(b",\"rematch_offer\":");
    optional_side(out, state.rematch_offer);
    out.extend_from_slice(b",\"host_side\":");
    out.extend_from_slice(side(state.host_side));
    out.extend_from_slice(b",\"tally\":");
    value(out, &state.tally)?;
    out.extend_from_slice(b",\"clock\":");
    value(out, &state.clock)?;
    out.extend_from_slice(if state.abortable {
        b",\"abortable\":true"
    } else {
        b",\"abortable\":false"
    });
    if let Some(series) = &state.series {
        out.extend_from_slice(b",\"series\":");
        value(out, series)?;
    }
    if let Some(board) = state.board {
        out.extend_from_slice(b",\"board\":");
        number(out, board);
    }
    if let Some(match_state) = &state.match_state {
        out.extend_from_slice(b",\"match\":");
        value(out, match_state)?;
    }
    out.push(b'}');
    Ok(())
}

/// A side's name, quoted.
fn side(side: Side) -> &'static [u8] {
    match side {
        Side::Goats => b"\"goats\"",
        Side::Tigers => b"\"tigers\"",
    }
}

fn optional_side(out: &mut Vec<u8>, side_or_none: Option<Side>) {
    out.extend_from_slice(side_or_none.map_or(b"null", side));
}

/// A string as a JSON string: as it is when nothing in it needs escaping
/// (every action name and position text), through serde_json otherwise.
fn string(out: &mut Vec<u8>, text: &str) -> serde_json::Result<()> {
    if text.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
        out.push(b'"');
        out.extend_from_slice(text.as_bytes());
        out.push(b'"');
        Ok(())
    } else {
        serde_json::to_writer(out, text)
    }
}

/// A whole number, as serde_json writes it (with `itoa`, as it does).
fn number<N: itoa::Integer>(out: &mut Vec<u8>, n: N) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

/// Anything else, through serde_json.
fn value<T: Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) -> serde_json::Result<()> {
    serde_json::to_writer(out, value)
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use proptest::option;
    use proptest::prelude::*;

    use super::*;
    use crate::{ClockState, GameResult, TableEvent, Tally};

    fn side() -> impl Strategy<Value = Side> {
        prop_oneof![Just(Side::Goats), Just(Side::Tigers)]
    }

    /// Any text, mostly the kind the server sends, sometimes with what
    /// has to be escaped.
    fn text() -> impl Strategy<Value = String> {
        prop_oneof![
            3 => "[a-e][1-5](-[a-e][1-5])?",
            1 => any::<String>(),
            1 => "[\"\\\\\\n\\u{1}é/ ]{0,6}",
        ]
    }

    prop_compose! {
        fn state()(
            game in any::<u32>(),
            position in text(),
            side_to_move in side(),
            movement in any::<bool>(),
            counts in any::<[u8; 5]>(),
            ply in any::<u16>(),
            ply_limit in any::<u16>(),
            legal in prop::collection::vec(text(), 0..30),
            last_action in option::of(text()),
            result_winner in option::of(option::of(side())),
            draw_offer in option::of(side()),
            rematch_offer in option::of(side()),
            host_side in side(),
            wins in any::<[u32; 3]>(),
            clock in option::of((any::<u64>(), option::of(side()), text())),
            abortable in any::<bool>(),
            board in option::of(1u8..=2),
        ) -> GameState {
            GameState {
                game,
                position,
                side_to_move,
                phase: if movement { Phase::Movement } else { Phase::Placement },
                in_hand: counts[0],
                eaten: counts[1],
                goats_to_win: counts[2],
                trapped_tigers: counts[3],
                tigers: counts[4],
                ply,
                ply_limit,
                legal: legal.into_iter().map(Cow::Owned).collect(),
                last_action: last_action.map(Cow::Owned),
                result: result_winner.map(|winner| GameResult {
                    winner,
                    reason: crate::EndReason::Resignation,
                }),
                draw_offer,
                rematch_offer,
                host_side,
                tally: Tally { host: wins[0], guest: wins[1], draws: wins[2] },
                clock: clock.map(|(ms, running, now)| ClockState {
                    goats_ms: ms,
                    tigers_ms: ms / 3,
                    running,
                    turn_started_at: None,
                    now,
                }),
                abortable,
                series: None,
                board,
                match_state: None,
            }
        }
    }

    proptest! {
        #[test]
        fn the_event_frame_is_serde_jsons_own(
            version in any::<u64>(),
            board in option::of(1u8..=2),
            state in state(),
            side in side(),
            played in option::of(text()),
        ) {
            let message = ServerMessage::Event {
                version,
                board,
                event: match played {
                    Some(action) => TableEvent::Played { side, action },
                    None => TableEvent::Resigned { side },
                },
                state,
            };
            let mut written = Vec::new();
            message.write_json(&mut written).expect("written");
            let serde = serde_json::to_vec(&message).expect("serialized");
            prop_assert_eq!(String::from_utf8(written), String::from_utf8(serde));
        }

        #[test]
        fn the_ack_frame_is_serde_jsons_own(id in text()) {
            let message = ServerMessage::Ack { id };
            let mut written = Vec::new();
            message.write_json(&mut written).expect("written");
            let serde = serde_json::to_vec(&message).expect("serialized");
            prop_assert_eq!(String::from_utf8(written), String::from_utf8(serde));
        }
    }
}
