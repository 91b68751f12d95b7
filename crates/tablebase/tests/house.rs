//! Checks of a built house tablebase against the rules crate. Building it
//! takes minutes, so these run on demand:
//! `BAGHCHAL_TABLEBASE=baghchal.tb cargo test -p baghchal-tablebase --test house -- --ignored`.

use baghchal_rules::{Action, Bitboard, Position, Rules, Setup, Side};
use baghchal_tablebase::{Probe, Tablebase, Wdl};

fn tablebase() -> Tablebase {
    let path = std::env::var("BAGHCHAL_TABLEBASE")
        .expect("BAGHCHAL_TABLEBASE names the tablebase file to check");
    Tablebase::load(path.as_ref()).expect("a valid tablebase file")
}

fn position(text: &str) -> Position {
    Position::from_text(text, Rules::default()).unwrap()
}

/// The stored value (distance + 1, 0 for a draw).
fn stored(probe: Probe) -> u16 {
    match probe.wdl {
        Wdl::Draw => 0,
        _ => probe.distance + 1,
    }
}

/// The position after `action`, with no record of earlier positions: the
/// tablebase ignores the repetition rule.
fn play(pos: &Position, action: Action) -> Position {
    let after = pos.clone().play(action).unwrap();
    Position::from_setup(after.setup(), Rules::default()).unwrap()
}

/// The stored value of a position if a search of `depth` plies with the
/// rules crate proves it (see the small shapes' search).
fn search(pos: &Position, depth: u16) -> Option<u16> {
    if let Some(outcome) = pos.outcome() {
        return match outcome.winner() {
            Some(side) if side == pos.side_to_move() => Some(0),
            Some(_) => Some(1),
            None => None,
        };
    }
    let mut best_win: Option<u16> = None;
    let mut longest_loss = 0;
    let mut all_lose = true;
    for action in pos.legal_actions() {
        let child = play(pos, action);
        let value = match child.outcome() {
            Some(_) => search(&child, 0),
            None if depth == 0 => None,
            None => search(&child, depth - 1),
        };
        match value {
            Some(v) if v % 2 == 1 => {
                best_win = Some(best_win.map_or(v + 1, |b| b.min(v + 1)));
            }
            Some(v) => longest_loss = longest_loss.max(v + 1),
            None => all_lose = false,
        }
    }
    match best_win {
        Some(win) => Some(win),
        None if all_lose => Some(longest_loss),
        None => None,
    }
    .filter(|&v| v <= depth + 1)
}

#[test]
#[ignore = "needs a built tablebase (BAGHCHAL_TABLEBASE)"]
fn trapped_tigers_to_move_have_lost() {
    let tb = tablebase();
    let pos = position("TGGGT/GGGGG/GGGGG/GG.GG/TGGGT t 0 0 100");
    assert_eq!(
        tb.probe(&pos),
        Some(Probe {
            wdl: Wdl::Loss,
            distance: 0
        })
    );
}

#[test]
#[ignore = "needs a built tablebase (BAGHCHAL_TABLEBASE)"]
fn the_fifth_capture_is_a_win_in_one() {
    let tb = tablebase();
    let pos = position("T...T/GGGGG/GG.GG/GGGGG/TG.GT t 0 4 100");
    assert_eq!(
        tb.probe(&pos),
        Some(Probe {
            wdl: Wdl::Win,
            distance: 1
        })
    );
}

#[test]
#[ignore = "needs a built tablebase (BAGHCHAL_TABLEBASE)"]
fn positions_outside_the_movement_phase_are_not_covered() {
    let tb = tablebase();
    assert_eq!(tb.probe(&Position::default()), None);
    let pos = position("TGGGT/GGGGG/GGGGG/GG.GG/TGG.T g 1 0 37");
    assert_eq!(tb.probe(&pos), None);
}

/// Boards of the movement phase with `eaten` goats eaten, a sample of them.
fn sample(eaten: u8, stride: usize) -> impl Iterator<Item = Position> {
    let empties = 1 + eaten as u32;
    (0u32..1 << 25)
        .filter(move |m| m.count_ones() == 4 + empties)
        .step_by(stride)
        .flat_map(move |m| {
            // The first four points of the set hold the tigers.
            let mut tigers = 0;
            let mut rest = m;
            for _ in 0..4 {
                let low = rest & rest.wrapping_neg();
                tigers |= low;
                rest ^= low;
            }
            let goats = ((1 << 25) - 1) & !m;
            [Side::Goat, Side::Tiger].map(|side| {
                let setup = Setup {
                    tigers: Bitboard(tigers),
                    goats: Bitboard(goats),
                    side,
                    in_hand: 0,
                    eaten,
                    ply: 0,
                };
                Position::from_setup(setup, Rules::default()).unwrap()
            })
        })
}

#[test]
#[ignore = "needs a built tablebase (BAGHCHAL_TABLEBASE)"]
fn a_search_with_the_rules_near_the_end_agrees_with_the_tablebase() {
    let tb = tablebase();
    let depth = 3;
    let (mut proved, mut near) = (0, 0);
    for eaten in 0..5 {
        for pos in sample(eaten, 2999) {
            let value = stored(tb.probe(&pos).unwrap());
            let found = search(&pos, depth);
            if let Some(v) = found {
                assert_eq!(v, value, "{pos}");
                proved += 1;
            }
            if value != 0 && value <= depth + 1 {
                assert_eq!(found, Some(value), "{pos}");
                near += 1;
            }
        }
    }
    assert!(proved > 500 && near > 500, "{proved} proved, {near} near");
}

#[test]
#[ignore = "needs a built tablebase (BAGHCHAL_TABLEBASE)"]
fn every_action_agrees_with_the_value_one_ply_later() {
    let tb = tablebase();
    let mut checked = 0;
    for eaten in 0..5 {
        for pos in sample(eaten, 997) {
            let value = tb.probe(&pos).unwrap();
            let children: Vec<Option<u16>> = pos
                .legal_actions()
                .into_iter()
                .map(|a| {
                    let child = play(&pos, a);
                    match child.outcome() {
                        Some(_) => search(&child, 0),
                        None => tb.probe(&child).map(stored),
                    }
                })
                .collect();
            let expected =
                if let Some(win) = children.iter().flatten().filter(|v| *v % 2 == 1).min() {
                    win + 1
                } else if children.iter().all(|v| v.is_some_and(|v| v != 0)) {
                    children.iter().flatten().max().map_or(1, |v| v + 1)
                } else {
                    0
                };
            assert_eq!(stored(value), expected, "{pos}");
            checked += 1;
        }
    }
    assert!(checked > 5000, "{checked} checked");
}
