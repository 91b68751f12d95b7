//! The shipped placement-phase puzzles against a second, naive solver:
//! every line of the placement phase played out to the movement phase and
//! the tablebase's win, draw or loss read there (by its own probe, not the
//! engine's). At each of the solver's turns exactly one action must keep
//! the puzzle's result. Needs the built house tablebase:
//! `BAGHCHAL_TABLEBASE=baghchal.tb cargo test -p baghchal-engine --test placement_puzzles -- --ignored`.

use std::cmp::Ordering;

use baghchal_engine::puzzle::{shipped, Theme};
use baghchal_rules::{Phase, Position};
use baghchal_tablebase::{Tablebase, Wdl};

/// Win (1), draw (0) or loss (-1) for the side to move, by full-width
/// play to the movement phase and the tablebase there.
fn naive(tablebase: &Tablebase, position: &Position) -> i8 {
    if let Some(outcome) = position.outcome() {
        return match outcome.winner() {
            None => 0,
            Some(w) if w == position.side_to_move() => 1,
            Some(_) => -1,
        };
    }
    if position.phase() == Phase::Movement {
        let probe = tablebase.probe(position).expect("the tablebase covers it");
        return match probe.wdl {
            Wdl::Win => 1,
            Wdl::Draw => 0,
            Wdl::Loss => -1,
        };
    }
    position
        .legal_actions()
        .into_iter()
        .map(|action| {
            let mut next = position.clone();
            next.play_unchecked(action);
            -naive(tablebase, &next)
        })
        .max()
        .expect("an unfinished position has an action")
}

#[test]
#[ignore = "needs the built tablebase named by BAGHCHAL_TABLEBASE"]
fn each_placement_puzzles_solver_has_exactly_one_action_that_keeps_its_result() {
    let path =
        std::env::var("BAGHCHAL_TABLEBASE").expect("BAGHCHAL_TABLEBASE names the tablebase file");
    let tablebase = Tablebase::load(path.as_ref()).expect("a valid tablebase file");
    let mut checked = 0;
    for puzzle in shipped()
        .iter()
        .filter(|p| p.start.phase() == Phase::Placement)
    {
        let want: i8 = if puzzle.themes.contains(&Theme::HoldDraw) {
            0
        } else {
            1
        };
        let mut position = puzzle.start.clone();
        for (i, &action) in puzzle.solution.iter().enumerate() {
            if i % 2 == 0 && !position.is_finished() {
                let keeping: Vec<_> = position
                    .legal_actions()
                    .into_iter()
                    .filter(|&a| {
                        let mut next = position.clone();
                        next.play_unchecked(a);
                        (-naive(&tablebase, &next)).cmp(&want) != Ordering::Less
                    })
                    .collect();
                assert_eq!(keeping, vec![action], "{} at ply {}", puzzle.id, i + 1);
            }
            position.play_unchecked(action);
        }
        checked += 1;
    }
    assert!(checked > 0);
    println!("{checked} placement puzzles checked");
}
