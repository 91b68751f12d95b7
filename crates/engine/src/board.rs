//! The search's own position: two 25-bit boards, the counters and the
//! repetition record, played and taken back in place (make/unmake).
//!
//! It follows the rules of the [`Position`] it is made from (capture
//! target, multi-jump chains, the repetition rule, the ply limit); a test
//! below compares its legal actions and endings with the rules crate's
//! over random games of every variant.

use baghchal_rules::{
    board, key, Action, Bitboard, Jump, Position, Repetition, Side, Square, MAX_CHAIN,
};

/// The 25 points.
const FULL: u32 = Bitboard::FULL.0;

/// The straight jumps from point `sq`.
#[inline]
fn lines(sq: usize) -> &'static [board::JumpLine] {
    board::jump_lines(Square::ALL[sq])
}

/// The points joined to `sq` by a line, as a bit set.
#[inline]
pub(crate) fn neighbours(sq: usize) -> u32 {
    board::neighbours(Square::ALL[sq]).0
}

/// How a finished position ended, from the rules' point of view.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum End {
    /// The side to move has lost (capture target reached against the
    /// goats, or the side to move has no legal action).
    Loss,
    /// A draw by threefold repetition or by the ply limit.
    Draw,
}

/// What [`Board::make`] needs to take an action back.
#[derive(Clone, Copy)]
struct Undo {
    tigers: u32,
    goats: u32,
    in_hand: u8,
    eaten: u8,
    record_start: usize,
    pushed: bool,
}

/// A position for the search, with make/unmake.
#[derive(Clone)]
pub(crate) struct Board {
    pub(crate) tigers: u32,
    pub(crate) goats: u32,
    pub(crate) side: Side,
    pub(crate) in_hand: u8,
    pub(crate) eaten: u8,
    pub(crate) ply: u16,
    target: u8,
    multi_jump: bool,
    forbid: bool,
    ply_limit: u16,
    /// Movement-phase keys; the record that matters is `keys[record_start..]`.
    keys: Vec<u64>,
    record_start: usize,
    undo: Vec<Undo>,
}

impl Board {
    /// The board of `position`, with its repetition record.
    pub(crate) fn new(position: &Position) -> Board {
        let rules = position.rules();
        Board {
            tigers: position.tigers().0,
            goats: position.goats().0,
            side: position.side_to_move(),
            in_hand: position.in_hand(),
            eaten: position.eaten(),
            ply: position.ply(),
            target: rules.goats_to_win(),
            multi_jump: rules.multi_jump(),
            forbid: rules.repetition() == Repetition::Forbid,
            ply_limit: rules.ply_limit(),
            keys: position.repetition_record().to_vec(),
            record_start: 0,
            undo: Vec::with_capacity(64),
        }
    }

    #[inline]
    pub(crate) fn empty(&self) -> u32 {
        !(self.tigers | self.goats) & FULL
    }

    /// The capture target of the rules.
    #[inline]
    pub(crate) fn target(&self) -> u8 {
        self.target
    }

    /// The ply limit of the rules.
    #[inline]
    pub(crate) fn ply_limit(&self) -> u16 {
        self.ply_limit
    }

    /// The repetition key of the board and side to move.
    #[inline]
    pub(crate) fn key(&self) -> u64 {
        key::pack(self.tigers, self.goats, self.side)
    }

    /// A 64-bit hash of everything that the value depends on apart from
    /// the record and the ply: board, side, goats in hand.
    #[inline]
    pub(crate) fn hash(&self) -> u64 {
        let mut x = self.key() ^ (self.in_hand as u64) << 51;
        x ^= x >> 31;
        x = x.wrapping_mul(0x7fb5_d329_728e_a185);
        x ^= x >> 27;
        x = x.wrapping_mul(0x81da_def4_bc2d_d44d);
        x ^ x >> 33
    }

    #[inline]
    fn record(&self) -> &[u64] {
        &self.keys[self.record_start..]
    }

    /// Whether the repetition rule forbids a step that leads to `key`.
    #[inline]
    fn forbidden(&self, key: u64) -> bool {
        self.forbid && self.in_hand == 0 && self.record().contains(&key)
    }

    /// Appends every legal action of the side to move to `out`, captures
    /// first. The caller has checked that the game is not over.
    pub(crate) fn generate(&self, out: &mut Vec<Action>) {
        let empty = self.empty();
        if self.side == Side::Goat && self.in_hand > 0 {
            for to in bits(empty) {
                out.push(Action::Place(Square::ALL[to]));
            }
            return;
        }
        let (mine, side) = match self.side {
            Side::Goat => (self.goats, Side::Goat),
            Side::Tiger => (self.tigers, Side::Tiger),
        };
        if side == Side::Tiger {
            let room = if self.multi_jump {
                self.target.saturating_sub(self.eaten) as usize
            } else {
                1
            };
            for from in bits(mine) {
                for line in lines(from) {
                    if self.goats >> line.over.index() & 1 != 0
                        && empty >> line.land.index() & 1 != 0
                    {
                        let mut landings = [Square::A1; MAX_CHAIN];
                        landings[0] = line.land;
                        if room <= 1 {
                            out.push(Action::Jump(Jump::single(Square::ALL[from], landings[0])));
                        } else {
                            let tigers = (self.tigers & !(1 << from)) | 1 << line.land.index();
                            let goats = self.goats & !(1 << line.over.index());
                            chains(
                                tigers,
                                goats,
                                Square::ALL[from],
                                &mut landings,
                                1,
                                room,
                                out,
                            );
                        }
                    }
                }
            }
        }
        let check = self.forbid && self.in_hand == 0 && self.record_start < self.keys.len();
        for from in bits(mine) {
            for to in bits(neighbours(from) & empty) {
                if check {
                    let mv = 1 << from | 1 << to;
                    let key = match side {
                        Side::Goat => key::pack(self.tigers, self.goats ^ mv, Side::Tiger),
                        Side::Tiger => key::pack(self.tigers ^ mv, self.goats, Side::Goat),
                    };
                    if self.forbidden(key) {
                        continue;
                    }
                }
                out.push(Action::Step {
                    from: Square::ALL[from],
                    to: Square::ALL[to],
                });
            }
        }
    }

    /// Whether the side to move has any legal action.
    pub(crate) fn has_action(&self) -> bool {
        let empty = self.empty();
        if self.side == Side::Goat && self.in_hand > 0 {
            return empty != 0;
        }
        let mine = match self.side {
            Side::Goat => self.goats,
            Side::Tiger => self.tigers,
        };
        let check = self.forbid && self.in_hand == 0 && self.record_start < self.keys.len();
        for from in bits(mine) {
            for to in bits(neighbours(from) & empty) {
                if !check {
                    return true;
                }
                let mv = 1 << from | 1 << to;
                let key = match self.side {
                    Side::Goat => key::pack(self.tigers, self.goats ^ mv, Side::Tiger),
                    Side::Tiger => key::pack(self.tigers ^ mv, self.goats, Side::Goat),
                };
                if !self.forbidden(key) {
                    return true;
                }
            }
            if self.side == Side::Tiger {
                for line in lines(from) {
                    if self.goats >> line.over.index() & 1 != 0
                        && empty >> line.land.index() & 1 != 0
                    {
                        return true;
                    }
                }
            }
        }
        false
    }

    /// The ending of this position, checked in the rules' order, given
    /// whether the side to move has a legal action.
    #[inline]
    pub(crate) fn end(&self, has_action: bool) -> Option<End> {
        if self.eaten >= self.target {
            // Only ever the goats to move here: the tigers have won.
            return Some(End::Loss);
        }
        if !has_action {
            return Some(End::Loss);
        }
        if !self.forbid && self.in_hand == 0 {
            let key = self.key();
            if self.record().iter().filter(|&&k| k == key).count() >= 3 {
                return Some(End::Draw);
            }
        }
        if self.ply >= self.ply_limit {
            return Some(End::Draw);
        }
        None
    }

    /// Plays a legal action in place.
    pub(crate) fn make(&mut self, action: &Action) {
        let mut undo = Undo {
            tigers: self.tigers,
            goats: self.goats,
            in_hand: self.in_hand,
            eaten: self.eaten,
            record_start: self.record_start,
            pushed: false,
        };
        let mut captured = false;
        match action {
            Action::Place(to) => {
                self.goats |= 1 << to.index();
                self.in_hand -= 1;
            }
            Action::Step { from, to } => {
                let mv = 1 << from.index() | 1 << to.index();
                match self.side {
                    Side::Goat => self.goats ^= mv,
                    Side::Tiger => self.tigers ^= mv,
                }
            }
            Action::Jump(j) => {
                // A chain may end where it started.
                self.tigers = self.tigers & !(1 << j.from().index()) | 1 << j.to().index();
                for sq in j.captures() {
                    self.goats &= !(1 << sq.index());
                    self.eaten += 1;
                }
                captured = true;
            }
        }
        self.side = self.side.other();
        self.ply += 1;
        if self.in_hand == 0 {
            if captured {
                self.record_start = self.keys.len();
            }
            self.keys.push(self.key());
            undo.pushed = true;
        }
        self.undo.push(undo);
    }

    /// Takes back the last action made.
    pub(crate) fn unmake(&mut self) {
        let undo = self.undo.pop().expect("an action to take back");
        if undo.pushed {
            self.keys.pop();
        }
        self.tigers = undo.tigers;
        self.goats = undo.goats;
        self.in_hand = undo.in_hand;
        self.eaten = undo.eaten;
        self.record_start = undo.record_start;
        self.side = self.side.other();
        self.ply -= 1;
    }

    /// The goats that a tiger could capture with one jump now, as a bit set.
    #[inline]
    pub(crate) fn capturable(&self) -> u32 {
        self.jumpable_from(self.tigers)
    }

    /// The goats that a tiger could capture after one step: a tiger's
    /// empty neighbour lines up with the goat and an empty landing.
    #[inline]
    pub(crate) fn latent(&self) -> u32 {
        let mut reach = 0;
        for from in bits(self.tigers) {
            reach |= neighbours(from);
        }
        self.jumpable_from(reach & self.empty())
    }

    /// The goats that a tiger standing on any point of `points` could
    /// jump onto an empty landing.
    #[inline]
    fn jumpable_from(&self, points: u32) -> u32 {
        let empty = self.empty();
        let mut set = 0;
        for from in bits(points) {
            for line in lines(from) {
                if self.goats >> line.over.index() & 1 != 0 && empty >> line.land.index() & 1 != 0 {
                    set |= 1 << line.over.index();
                }
            }
        }
        set
    }

    /// The tigers' steps and jumps, ignoring the repetition rule:
    /// (total, tigers with none, tigers with exactly one).
    #[inline]
    pub(crate) fn tiger_mobility(&self) -> (u32, u32, u32) {
        let empty = self.empty();
        let (mut total, mut trapped, mut cornered) = (0, 0, 0);
        for from in bits(self.tigers) {
            let mut n = (neighbours(from) & empty).count_ones();
            for line in lines(from) {
                n += self.goats >> line.over.index() & empty >> line.land.index() & 1;
            }
            total += n;
            trapped += (n == 0) as u32;
            cornered += (n == 1) as u32;
        }
        (total, trapped, cornered)
    }
}

/// Every chain from `from` continuing after `landings[..len]`; each prefix
/// is an action of its own.
#[allow(clippy::too_many_arguments)]
fn chains(
    tigers: u32,
    goats: u32,
    from: Square,
    landings: &mut [Square; MAX_CHAIN],
    len: usize,
    room: usize,
    out: &mut Vec<Action>,
) {
    out.push(Action::Jump(
        Jump::chain(from, &landings[..len]).expect("a chain within MAX_CHAIN"),
    ));
    if len >= room || len >= MAX_CHAIN {
        return;
    }
    let at = landings[len - 1].index();
    let empty = !(tigers | goats) & FULL;
    for line in lines(at) {
        if goats >> line.over.index() & 1 != 0 && empty >> line.land.index() & 1 != 0 {
            landings[len] = line.land;
            chains(
                tigers & !(1 << at) | 1 << line.land.index(),
                goats & !(1 << line.over.index()),
                from,
                landings,
                len + 1,
                room,
                out,
            );
        }
    }
}

/// The indices of the set bits of `set`, lowest first.
#[inline]
pub(crate) fn bits(mut set: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (set != 0).then(|| {
            let i = set.trailing_zeros() as usize;
            set &= set - 1;
            i
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use baghchal_rules::{Outcome, Rules, RulesOptions};
    use rand::rngs::ChaCha8Rng;
    use rand::{RngExt, SeedableRng};

    fn variants() -> Vec<Rules> {
        let house = RulesOptions::default();
        let options = [
            house,
            RulesOptions {
                multi_jump: true,
                ..house
            },
            RulesOptions {
                three_tigers: true,
                ..house
            },
            RulesOptions {
                first: Side::Tiger,
                ..house
            },
            RulesOptions {
                goats_to_win: Some(7),
                multi_jump: true,
                ..house
            },
            RulesOptions {
                repetition: Repetition::ThreefoldDraw,
                ply_limit: 120,
                ..house
            },
            RulesOptions {
                ply_limit: 60,
                ..house
            },
        ];
        options
            .into_iter()
            .map(|o| Rules::new(o).expect("valid rules"))
            .collect()
    }

    fn sorted(mut actions: Vec<Action>) -> Vec<String> {
        let mut texts: Vec<String> = actions.drain(..).map(|a| a.to_string()).collect();
        texts.sort();
        texts
    }

    fn end_of(outcome: Option<Outcome>, side: Side) -> Option<End> {
        outcome.map(|o| match o.winner() {
            None => End::Draw,
            Some(w) if w == side => panic!("the side to move never wins on the spot"),
            Some(_) => End::Loss,
        })
    }

    #[test]
    fn legal_actions_and_endings_match_the_rules_over_random_games() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for rules in variants() {
            for _ in 0..40 {
                let mut position = Position::new(rules);
                let mut board = Board::new(&position);
                let mut made = 0;
                loop {
                    let mut mine = Vec::new();
                    let has = board.has_action();
                    let end = board.end(has);
                    assert_eq!(end, end_of(position.outcome(), position.side_to_move()));
                    assert_eq!(board.key(), position.key());
                    if end.is_some() {
                        break;
                    }
                    board.generate(&mut mine);
                    assert_eq!(has, !mine.is_empty());
                    let theirs = position.legal_actions();
                    assert_eq!(sorted(mine.clone()), sorted(theirs), "{position}");
                    // Mostly steps and jumps, to reach repetitions and ends.
                    let action = mine[rng.random_range(0..mine.len())];
                    board.make(&action);
                    position.play_unchecked(action);
                    made += 1;
                }
                // Take every action back and land on the start again.
                for _ in 0..made {
                    board.unmake();
                }
                let start = Board::new(&Position::new(rules));
                assert_eq!(board.key(), start.key());
                assert_eq!(board.ply, 0);
                assert_eq!(board.keys, start.keys);
            }
        }
    }

    /// The goats open to capture after one tiger step, by moving each
    /// tiger to each empty neighbour and asking what it could jump there.
    fn latent_by_stepping(board: &Board) -> u32 {
        let mut set = 0;
        for from in bits(board.tigers) {
            for to in bits(neighbours(from) & board.empty()) {
                let empty = board.empty() & !(1 << to) | 1 << from;
                for (over, land) in board::jumps(Square::ALL[to]) {
                    if board.goats >> over.index() & 1 != 0 && empty >> land.index() & 1 != 0 {
                        set |= 1 << over.index();
                    }
                }
            }
        }
        set
    }

    #[test]
    fn latent_threats_are_the_captures_one_tiger_step_away() {
        let pos = Position::from_text("T...T/...../..G../...../T...T g 19 0 1", Rules::default())
            .expect("a position");
        // a1-b2 lines b2, c3 and the empty d4 up; so do a5-b4, e1-d2, e5-d4.
        assert_eq!(Board::new(&pos).latent(), 1 << Square::C3.index());
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for _ in 0..30 {
            let mut position = Position::default();
            while !position.is_finished() {
                let board = Board::new(&position);
                assert_eq!(board.latent(), latent_by_stepping(&board), "{position}");
                let actions = position.legal_actions();
                position.play_unchecked(actions[rng.random_range(0..actions.len())]);
            }
        }
    }
}
