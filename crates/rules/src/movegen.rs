//! Move generation on the compact state: legal actions, their count
//! without listing them, the endings, and the repetition record.

use crate::key;
use crate::{board, Action, Bitboard, Jump, Outcome, Reason, Repetition, Rules, Side, Square};

/// The compact state that move generation works on.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct State {
    pub tigers: u32,
    pub goats: u32,
    pub side: Side,
    pub in_hand: u8,
    pub eaten: u8,
    pub ply: u16,
}

impl State {
    #[inline]
    pub fn key(&self) -> u64 {
        key::pack(self.tigers, self.goats, self.side)
    }

    #[inline]
    pub fn empty(&self) -> u32 {
        !(self.tigers | self.goats) & Bitboard::FULL.0
    }

    /// Plays `action`, assumed legal. Returns whether it captured.
    #[inline]
    pub fn apply(&mut self, action: &Action) -> bool {
        let captured = match *action {
            Action::Place(to) => {
                self.goats |= 1 << to.index();
                self.in_hand -= 1;
                false
            }
            Action::Step { from, to } => {
                let mv = (1 << from.index()) | (1 << to.index());
                match self.side {
                    Side::Goat => self.goats ^= mv,
                    Side::Tiger => self.tigers ^= mv,
                }
                false
            }
            Action::Jump(ref j) => {
                // Not a toggle: a chain may end where it started.
                self.tigers = (self.tigers & !(1 << j.from().index())) | (1 << j.to().index());
                for sq in j.captures() {
                    self.goats &= !(1 << sq.index());
                    self.eaten += 1;
                }
                true
            }
        };
        self.side = self.side.other();
        self.ply += 1;
        captured
    }
}

/// Whether the repetition rule forbids recreating `key` from `record`.
#[inline]
fn forbidden(rules: &Rules, record: &[u64], key: u64) -> bool {
    rules.repetition() == Repetition::Forbid && record.contains(&key)
}

/// Calls `f` with `start` and every longer chain that goes on from it. The
/// tiger of the chain stands on `at` (and in `tigers`), the goats it has
/// captured are gone from `goats`, and `room` counts the last jump of
/// `start` and every further one the action may still hold.
fn for_each_chain(
    tigers: u32,
    goats: u32,
    start: Jump,
    at: Square,
    room: usize,
    f: &mut impl FnMut(&Jump),
) {
    f(&start);
    if room <= 1 {
        return;
    }
    let empty = !(tigers | goats) & Bitboard::FULL.0;
    for line in board::jump_lines(at) {
        if goats & (1 << line.over.index()) != 0 && empty & (1 << line.land.index()) != 0 {
            if let Some(next) = start.extended(line.land) {
                // The tiger leaves `at` for the landing point.
                for_each_chain(
                    (tigers & !(1 << at.index())) | (1 << line.land.index()),
                    goats & !(1 << line.over.index()),
                    next,
                    line.land,
                    room - 1,
                    f,
                );
            }
        }
    }
}

/// Calls `f` with every jump action (single, or chains under the
/// multi-jump variant) of the tiger on `from`.
#[inline]
pub(crate) fn for_each_jump(s: &State, rules: &Rules, from: Square, f: &mut impl FnMut(&Jump)) {
    let empty = s.empty();
    let room = if rules.multi_jump() {
        rules.goats_to_win().saturating_sub(s.eaten) as usize
    } else {
        1
    };
    for line in board::jump_lines(from) {
        if s.goats & (1 << line.over.index()) != 0 && empty & (1 << line.land.index()) != 0 {
            let jump = Jump::single(from, line.land);
            if room <= 1 {
                f(&jump);
            } else {
                // The tiger has left `from`: it is empty for the rest of the chain.
                let tigers = (s.tigers & !(1 << from.index())) | (1 << line.land.index());
                let goats = s.goats & !(1 << line.over.index());
                for_each_chain(tigers, goats, jump, line.land, room, f);
            }
        }
    }
}

/// Calls `f` with every legal action of `s` (which is assumed unfinished
/// apart from possibly having none).
pub(crate) fn for_each_legal(s: &State, rules: &Rules, record: &[u64], f: &mut impl FnMut(Action)) {
    let empty = s.empty();
    let check = rules.repetition() == Repetition::Forbid && s.in_hand == 0 && !record.is_empty();
    match s.side {
        Side::Goat if s.in_hand > 0 => {
            for to in Bitboard(empty) {
                f(Action::Place(to));
            }
        }
        side => {
            let mine = if side == Side::Goat {
                s.goats
            } else {
                s.tigers
            };
            for from in Bitboard(mine) {
                for to in board::neighbours(from) & Bitboard(empty) {
                    if check {
                        let mv = from.bitboard().0 | to.bitboard().0;
                        let key = match side {
                            Side::Goat => key::pack(s.tigers, s.goats ^ mv, side.other()),
                            Side::Tiger => key::pack(s.tigers ^ mv, s.goats, side.other()),
                        };
                        if forbidden(rules, record, key) {
                            continue;
                        }
                    }
                    f(Action::Step { from, to });
                }
                if side == Side::Tiger {
                    for_each_jump(s, rules, from, &mut |j| f(Action::Jump(*j)));
                }
            }
        }
    }
}

/// The number of legal actions of `s`, without listing them: whole sets
/// of points at a time, one direction after another.
#[inline]
pub(crate) fn count_legal(s: &State, rules: &Rules, record: &[u64]) -> u64 {
    let empty = s.empty();
    if s.side == Side::Goat && s.in_hand > 0 {
        return u64::from(empty.count_ones());
    }
    let mine = match s.side {
        Side::Goat => s.goats,
        Side::Tiger => s.tigers,
    };
    let mut n = 0u32;
    for ray in board::RAYS {
        n += (board::shifted(mine & ray.step_from, ray.shift) & empty).count_ones();
    }
    if s.side == Side::Tiger {
        if rules.multi_jump() {
            for from in Bitboard(mine) {
                for_each_jump(s, rules, from, &mut |_| n += 1);
            }
        } else {
            for ray in board::RAYS {
                let over = board::shifted(mine & ray.jump_from, ray.shift) & s.goats;
                n += (board::shifted(over, ray.shift) & empty).count_ones();
            }
        }
    }
    let mut n = u64::from(n);
    if rules.repetition() == Repetition::Forbid && s.in_hand == 0 && !record.is_empty() {
        n -= repeated_steps(s, record);
    }
    n
}

/// How many of the steps of `s` lead to a recorded position. A capture
/// clears the record, so only steps can repeat, and every recorded entry is
/// distinct under the forbid rule.
#[inline]
fn repeated_steps(s: &State, record: &[u64]) -> u64 {
    let next = s.side.other();
    let empty = s.empty();
    let mut hits = 0;
    for &key in record {
        if key::side(key) != next {
            continue;
        }
        let tigers = key::tigers(key);
        let goats = key::goats(key);
        let (mine, theirs, other_mine, other_theirs) = match s.side {
            Side::Goat => (s.goats, goats, s.tigers, tigers),
            Side::Tiger => (s.tigers, tigers, s.goats, goats),
        };
        if other_mine != other_theirs {
            continue;
        }
        let diff = mine ^ theirs;
        if diff.count_ones() != 2 {
            continue;
        }
        let from = diff & mine;
        let to = diff & empty;
        if from.count_ones() == 1 && to.count_ones() == 1 {
            let from = Square::ALL[from.trailing_zeros() as usize];
            if board::neighbours(from).0 & to != 0 {
                hits += 1;
            }
        }
    }
    hits
}

/// The outcome that the rules give `s`, checked in the house order.
pub(crate) fn evaluate(s: &State, rules: &Rules, record: &[u64]) -> Option<Outcome> {
    if s.eaten >= rules.goats_to_win() {
        return Some(Outcome::win(Side::Tiger, Reason::CaptureTarget));
    }
    ending_after_target(s, rules, record, count_legal(s, rules, record))
}

/// The endings checked after the capture target, in the house order, given
/// that `s` has `legal` legal actions.
#[inline]
pub(crate) fn ending_after_target(
    s: &State,
    rules: &Rules,
    record: &[u64],
    legal: u64,
) -> Option<Outcome> {
    if legal == 0 {
        let reason = match s.side {
            Side::Tiger => Reason::TigersTrapped,
            Side::Goat => Reason::GoatsBlocked,
        };
        return Some(Outcome::win(s.side.other(), reason));
    }
    if rules.repetition() == Repetition::ThreefoldDraw && s.in_hand == 0 {
        let key = s.key();
        if record.iter().filter(|&&k| k == key).count() >= 3 {
            return Some(Outcome::draw(Reason::Threefold));
        }
    }
    if s.ply >= rules.ply_limit() {
        return Some(Outcome::draw(Reason::PlyLimit));
    }
    None
}

/// Updates the movement-phase record after an action that led to `s`.
#[inline]
pub(crate) fn record_after(record: &mut Vec<u64>, s: &State, captured: bool) {
    if s.in_hand == 0 {
        if captured {
            // No earlier position can come back: it had more goats.
            record.clear();
        }
        record.push(s.key());
    }
}
