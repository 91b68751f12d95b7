//! The last plies of the placement phase, solved in full for the puzzles:
//! from a position at most [`PLACEMENT_PLIES`] plies before the movement
//! phase, every line is searched to the movement phase (full width, no
//! pruning, no estimate), where the tablebase gives each position's
//! result. The value found is then as sure as the tablebase's: no
//! position of the placement phase can come again (each placement lowers
//! the goats in hand, which the position holds), so the repetition record
//! that reaches the movement phase holds nothing that can recur there,
//! and the tablebase's value of the first movement-phase position is the
//! one every movement-phase puzzle rests on.

use baghchal_rules::{Action, Phase, Position, Rules, Side};

use crate::analysis::{one_ply_earlier, rules_value};
use crate::{Engine, Value};

/// The most plies before the movement phase from which a position is
/// solved in full: the goats' last three placements and the tigers'
/// actions before them (`docs/puzzles.md` gives what each more ply
/// costs).
pub const PLACEMENT_PLIES: u8 = 6;

/// Plies from `position` to the movement phase (the goats' last
/// placement played): 0 in the movement phase.
///
/// ```
/// use baghchal_engine::puzzle::plies_to_movement;
/// use baghchal_rules::{Position, Rules};
/// let start = Position::new(Rules::default());
/// assert_eq!(plies_to_movement(&start), 39);
/// ```
pub fn plies_to_movement(position: &Position) -> u8 {
    let in_hand = position.in_hand();
    match (in_hand, position.side_to_move()) {
        (0, _) => 0,
        (n, Side::Goat) => 2 * n - 1,
        (n, Side::Tiger) => 2 * n,
    }
}

impl Engine {
    /// The value of `position` for the side to move where the tablebase
    /// settles it: in the movement phase of the house rules the
    /// tablebase's; in the placement phase within [`PLACEMENT_PLIES`] of
    /// the movement phase the best, for the side to move, of its actions'
    /// values (the rules' result where an action ends the game, else the
    /// value of the position it leads to, one ply longer). `None`
    /// elsewhere or without a tablebase.
    pub(crate) fn exact(&self, position: &Position) -> Option<Value> {
        if position.phase() == Phase::Movement {
            return self.solved(position);
        }
        if *position.rules() != Rules::default() || plies_to_movement(position) > PLACEMENT_PLIES {
            return None;
        }
        self.exact_actions(position)?
            .into_iter()
            .map(|(_, value)| value)
            .max()
    }

    /// Every legal action of `position` with its exact value for the side
    /// to move (see [`Engine::exact`]), counted from `position`: `None`
    /// when one is not known.
    pub(crate) fn exact_actions(&self, position: &Position) -> Option<Vec<(Action, Value)>> {
        let me = position.side_to_move();
        position
            .legal_actions()
            .into_iter()
            .map(|action| {
                let mut next = position.clone();
                next.play_unchecked(action);
                let value = match next.outcome() {
                    Some(o) => rules_value(o.winner(), me),
                    None => one_ply_earlier(self.exact(&next)?.flip()),
                };
                Some((action, value))
            })
            .collect()
    }

    /// The reply a puzzle's line takes: in the movement phase the
    /// tablebase's best, in the placement phase the best by
    /// [`Engine::exact`] (the longest defence), the first in the legal
    /// order among equals.
    pub(crate) fn best_reply(&self, position: &Position) -> Option<Action> {
        if position.phase() == Phase::Movement {
            return self.best_by_tablebase(position);
        }
        let actions = self.exact_actions(position)?;
        let best = actions.iter().map(|&(_, value)| value).max()?;
        actions
            .into_iter()
            .find(|&(_, value)| value == best)
            .map(|(action, _)| action)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plies_to_the_movement_phase_count_both_sides() {
        let read = |text: &str| Position::from_text(text, Rules::default()).unwrap();
        // Goats to move with one goat in hand: their last placement.
        assert_eq!(
            plies_to_movement(&read("T.GGT/GGGGG/GGGGG/GGGG./TGGGT g 1 0 38")),
            1
        );
        assert_eq!(
            plies_to_movement(&read("T.GGT/GGGGG/GGGGG/GGGG./TGGGT t 1 0 37")),
            2
        );
        assert_eq!(
            plies_to_movement(&read("T.GGT/GGGGG/GGGGG/GGG../TGGGT g 2 0 36")),
            3
        );
    }

    #[test]
    fn without_a_tablebase_nothing_is_exact() {
        let engine = Engine::new();
        let last = Position::from_text("T.GGT/GGGGG/GGGGG/GGGG./TGGGT g 1 0 38", Rules::default())
            .unwrap();
        assert_eq!(engine.exact(&last), None);
        assert_eq!(engine.exact(&Position::new(Rules::default())), None);
    }
}
