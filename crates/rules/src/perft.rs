//! perft: counting action sequences, the standard check of a move
//! generator.

use crate::movegen::{count_legal, ending_after_target, for_each_legal, State};
use crate::{Action, Position, Rules};

/// The number of action sequences of `depth` actions from `position`,
/// where a finished game counts as one leaf and is not expanded
/// (`perft(p, 0) == 1`).
///
/// ```
/// use baghchal_rules::{perft, Position};
/// let start = Position::default();
/// assert_eq!(perft(&start, 0), 1);
/// assert_eq!(perft(&start, 1), 21);
/// ```
pub fn perft(position: &Position, depth: u32) -> u64 {
    if depth == 0 || position.is_finished() {
        return 1;
    }
    let mut search = Search::new(position, depth);
    search.node(position.state(), 0, depth)
}

/// perft split by the first action: each legal action with the count below
/// it (`depth - 1` further actions). Empty when `depth` is 0 or the game
/// is over (there is no first action then, though perft counts one leaf).
///
/// ```
/// use baghchal_rules::{perft, perft_divide, Position};
/// let start = Position::default();
/// let split = perft_divide(&start, 3);
/// assert_eq!(split.len(), 21);
/// assert_eq!(split.iter().map(|(_, n)| n).sum::<u64>(), perft(&start, 3));
/// ```
pub fn perft_divide(position: &Position, depth: u32) -> Vec<(Action, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    position
        .legal_actions()
        .into_iter()
        .map(|action| {
            let mut child = position.clone();
            child.play_unchecked(action);
            (action, perft(&child, depth - 1))
        })
        .collect()
}

/// The working state of one perft run: the rules, the movement-phase
/// record as a stack, and one action buffer per depth.
struct Search {
    rules: Rules,
    record: Vec<u64>,
    buffers: Vec<Vec<Action>>,
}

impl Search {
    fn new(position: &Position, depth: u32) -> Search {
        Search {
            rules: *position.rules(),
            record: position.repetition_record().to_vec(),
            buffers: (0..depth).map(|_| Vec::with_capacity(64)).collect(),
        }
    }

    /// perft of the unfinished `s`, whose record is `record[base..]`.
    fn node(&mut self, s: &State, base: usize, depth: u32) -> u64 {
        if depth == 1 {
            return count_legal(s, &self.rules, &self.record[base..]);
        }
        let mut actions = std::mem::take(&mut self.buffers[depth as usize - 1]);
        actions.clear();
        for_each_legal(s, &self.rules, &self.record[base..], &mut |a| {
            actions.push(a)
        });
        let mut total = 0;
        for action in &actions {
            let mut child = *s;
            let captured = child.apply(action);
            let len = self.record.len();
            let mut child_base = base;
            if child.in_hand == 0 {
                if captured {
                    child_base = len;
                }
                self.record.push(child.key());
            }
            total += self.child(&child, child_base, depth - 1);
            self.record.truncate(len);
        }
        self.buffers[depth as usize - 1] = actions;
        total
    }

    /// perft of a child position, which may be finished (then it is one
    /// leaf). The ending checks follow [`Position::outcome`]'s order.
    fn child(&mut self, c: &State, base: usize, depth: u32) -> u64 {
        if c.eaten >= self.rules.goats_to_win() {
            return 1;
        }
        let record = &self.record[base..];
        let n = count_legal(c, &self.rules, record);
        if ending_after_target(c, &self.rules, record, n).is_some() {
            return 1;
        }
        if depth == 1 {
            n
        } else {
            self.node(c, base, depth)
        }
    }
}
