//! Iterative deepening principal-variation search with a transposition
//! table, capture-first move ordering with killers and history, late move
//! reductions (quiet actions late in the order are searched a ply or two
//! shallower, and again at full depth if they turn out better than the
//! best so far), and a quiescence search on the tigers' captures.
//!
//! Scores are for the side to move, in thousandths of a goat; a won game
//! scores `WIN - plies`, so that shorter wins are preferred.

use baghchal_rules::{Action, Position, Side};
use baghchal_tablebase::{Tablebase, Wdl};

use crate::board::{Board, End};
use crate::eval::evaluate;

/// The score of a game won on the spot.
pub(crate) const WIN: i32 = 30_000;
/// Scores beyond this are won or lost games.
pub(crate) const WON: i32 = WIN - 2_000;
const INFINITY: i32 = WIN + 1;
const MAX_PLY: usize = 128;
/// Actions from this place in the order on, if quiet (ordered by history
/// alone), are searched a ply shallower first.
const LATE: usize = 4;
/// The highest ordering key of a quiet action: its history score, capped
/// below the killers, captures and the table action.
const QUIET: i32 = (1 << 27) - 1;

/// How far a search may go.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    /// The deepest iteration.
    pub depth: u8,
    /// Nodes after which the search stops (the last finished iteration counts).
    pub nodes: u64,
    /// Score every root action exactly (for a level's controlled choice),
    /// not only the best one.
    pub all_root_scores: bool,
}

/// What a search found: each root action with its score, best first.
#[derive(Clone, Debug)]
pub(crate) struct Report {
    /// Root actions with the scores of the last finished iteration.
    pub scored: Vec<(Action, i32)>,
    /// The deepest finished iteration.
    pub depth: u8,
    /// Nodes searched.
    pub nodes: u64,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Bound {
    Exact,
    Lower,
    Upper,
}

#[derive(Clone, Copy)]
struct Entry {
    hash: u64,
    action: Option<Action>,
    score: i32,
    depth: i8,
    bound: Bound,
}

/// A transposition table: one entry per slot, deeper results kept.
struct Table {
    entries: Vec<Option<Entry>>,
    mask: usize,
}

impl Table {
    fn new(bits: u8) -> Table {
        let len = 1usize << bits;
        Table {
            entries: vec![None; len],
            mask: len - 1,
        }
    }

    #[inline]
    fn get(&self, hash: u64) -> Option<Entry> {
        self.entries[hash as usize & self.mask].filter(|e| e.hash == hash)
    }

    #[inline]
    fn put(&mut self, entry: Entry) {
        let slot = &mut self.entries[entry.hash as usize & self.mask];
        match slot {
            Some(old) if old.hash != entry.hash || old.depth <= entry.depth => *slot = Some(entry),
            None => *slot = Some(entry),
            Some(_) => {}
        }
    }
}

/// Won and lost scores are stored relative to the node, not the root.
#[inline]
fn to_table(score: i32, ply: usize) -> i32 {
    if score > WON {
        score + ply as i32
    } else if score < -WON {
        score - ply as i32
    } else {
        score
    }
}

#[inline]
fn from_table(score: i32, ply: usize) -> i32 {
    if score > WON {
        score - ply as i32
    } else if score < -WON {
        score + ply as i32
    } else {
        score
    }
}

/// One search over a board.
pub(crate) struct Search<'a> {
    board: Board,
    position: &'a Position,
    tablebase: Option<&'a Tablebase>,
    table: Table,
    killers: [[Option<Action>; 2]; MAX_PLY],
    history: Box<[[i32; 25]; 26]>,
    buffers: Vec<Vec<Action>>,
    keys: Vec<Vec<i32>>,
    nodes: u64,
    node_limit: u64,
    stopped: bool,
    /// Count only the goats eaten at the leaves, and search every action
    /// to full depth: a proof of what the tigers can force, not a guess at
    /// who stands better.
    material: bool,
}

impl<'a> Search<'a> {
    /// A search of `position`, probing `tablebase` in the movement phase
    /// where it covers the position.
    pub(crate) fn new(
        position: &'a Position,
        tablebase: Option<&'a Tablebase>,
        tt_bits: u8,
    ) -> Search<'a> {
        let covered = tablebase.filter(|_| *position.rules() == baghchal_rules::Rules::default());
        Search {
            board: Board::new(position),
            position,
            tablebase: covered,
            table: Table::new(tt_bits),
            killers: [[None; 2]; MAX_PLY],
            history: Box::new([[0; 25]; 26]),
            buffers: (0..MAX_PLY).map(|_| Vec::with_capacity(32)).collect(),
            keys: (0..MAX_PLY).map(|_| Vec::with_capacity(32)).collect(),
            nodes: 0,
            node_limit: u64::MAX,
            stopped: false,
            material: false,
        }
    }

    /// A search of `position` that scores only the goats eaten (and won
    /// or lost games) and reduces no action: it finds how many goats the
    /// tigers can take by force within its depth.
    pub(crate) fn material(
        position: &'a Position,
        tablebase: Option<&'a Tablebase>,
        tt_bits: u8,
    ) -> Search<'a> {
        Search {
            material: true,
            ..Search::new(position, tablebase, tt_bits)
        }
    }

    /// Searches the root by iterative deepening within `limits`.
    /// The position must not be finished.
    pub(crate) fn run(&mut self, limits: &Limits) -> Report {
        let mut actions = Vec::new();
        self.board.generate(&mut actions);
        self.run_among(limits, &actions)
    }

    /// [`Search::run`] over the root actions `actions` only (a non-empty
    /// subset of the legal ones).
    pub(crate) fn run_among(&mut self, limits: &Limits, actions: &[Action]) -> Report {
        self.node_limit = limits.nodes;
        let mut scored: Vec<(Action, i32)> = actions.iter().map(|&a| (a, 0)).collect();
        order_root(&mut scored);
        let mut depth_done = 0;
        let max_depth = limits.depth.clamp(1, (MAX_PLY - 8) as u8);
        for depth in 1..=max_depth {
            let Some(result) = self.root(&scored, depth as i32, limits.all_root_scores) else {
                break;
            };
            scored = result;
            depth_done = depth;
            if scored[0].1.abs() > WON && !limits.all_root_scores {
                // A forced result: deeper iterations find nothing shorter.
                let plies = WIN - scored[0].1.abs();
                if plies < depth as i32 {
                    break;
                }
            }
        }
        Report {
            scored,
            depth: depth_done,
            nodes: self.nodes,
        }
    }

    /// Nodes searched so far.
    pub(crate) fn nodes(&self) -> u64 {
        self.nodes
    }

    /// The root actions after which the tigers can force no more captures
    /// than after the best one, within the deepest depth (up to `depth`)
    /// that `nodes` let finish, with that depth. Meant for a
    /// [`Search::material`] search, where this is the set of actions that
    /// give no goat away by force within the depth. `None` if not even the
    /// first depth finished.
    pub(crate) fn keeping(&mut self, depth: u8, nodes: u64) -> Option<(Vec<Action>, u8)> {
        self.node_limit = nodes;
        let mut actions = Vec::new();
        self.board.generate(&mut actions);
        let mut scored: Vec<(Action, i32)> = actions.iter().map(|&a| (a, 0)).collect();
        order_root(&mut scored);
        let mut found = None;
        for depth in 1..=depth.clamp(1, (MAX_PLY - 8) as u8) {
            let Some(result) = self.root(&scored, depth as i32, false) else {
                break;
            };
            scored = result;
            let best = scored[0].1;
            let mut keeping = Vec::with_capacity(scored.len());
            for &(action, _) in &scored {
                self.board.make(&action);
                let score = -self.negamax(depth as i32 - 1, -best, -best + 1, 1);
                self.board.unmake();
                if self.stopped {
                    return found;
                }
                if score >= best {
                    keeping.push(action);
                }
            }
            found = Some((keeping, depth));
            if best.abs() > WON {
                break;
            }
        }
        found
    }

    /// One iteration at the root; `None` if the node limit stopped it.
    fn root(
        &mut self,
        previous: &[(Action, i32)],
        depth: i32,
        all: bool,
    ) -> Option<Vec<(Action, i32)>> {
        let mut alpha = -INFINITY;
        let beta = INFINITY;
        let mut result = Vec::with_capacity(previous.len());
        for (i, &(action, _)) in previous.iter().enumerate() {
            self.board.make(&action);
            let score = if all || i == 0 {
                -self.negamax(depth - 1, -beta, -alpha.max(-INFINITY), 1)
            } else {
                let s = -self.negamax(depth - 1, -alpha - 1, -alpha, 1);
                if s > alpha && !self.stopped {
                    -self.negamax(depth - 1, -beta, -alpha, 1)
                } else {
                    s
                }
            };
            self.board.unmake();
            if self.stopped {
                return None;
            }
            if !all && i > 0 && score <= alpha {
                // Only a bound: keep it below the best for ordering.
                result.push((action, score.min(alpha) - 1));
            } else {
                result.push((action, score));
            }
            if score > alpha && !all {
                alpha = score;
            }
        }
        result.sort_by_key(|&(_, score)| std::cmp::Reverse(score));
        if let Some(&(best, score)) = result.first() {
            self.table.put(Entry {
                hash: self.board.hash(),
                action: Some(best),
                score: to_table(score, 0),
                depth: depth as i8,
                bound: Bound::Exact,
            });
        }
        Some(result)
    }

    /// The tablebase's value of a covered movement-phase position (for its
    /// board, ignoring the repetition record), if the
    /// tablebase has one that the ply limit lets stand.
    fn probe(&self, ply: usize) -> Option<i32> {
        let tablebase = self.tablebase?;
        if self.board.in_hand > 0 {
            return None;
        }
        let setup = baghchal_rules::Setup {
            tigers: baghchal_rules::Bitboard(self.board.tigers),
            goats: baghchal_rules::Bitboard(self.board.goats),
            side: self.board.side,
            in_hand: 0,
            eaten: self.board.eaten,
            ply: self.board.ply,
        };
        let position = Position::from_setup(setup, *self.position.rules()).ok()?;
        let probe = tablebase.probe(&position)?;
        let within = self.board.ply as u32 + probe.distance as u32 <= self.board.ply_limit() as u32;
        match probe.wdl {
            Wdl::Win if within => Some(WIN - ply as i32 - probe.distance as i32),
            Wdl::Loss if within => Some(-WIN + ply as i32 + probe.distance as i32),
            _ => None,
        }
    }

    fn negamax(&mut self, depth: i32, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.nodes += 1;
        if self.nodes >= self.node_limit {
            self.stopped = true;
        }
        if self.stopped {
            return 0;
        }
        if self.board.eaten >= self.board.target() {
            return -WIN + ply as i32;
        }
        if depth <= 0 || ply >= MAX_PLY - 1 {
            return self.quiescence(alpha, beta, ply);
        }
        let mut actions = std::mem::take(&mut self.buffers[ply]);
        actions.clear();
        self.board.generate(&mut actions);
        match self.board.end(!actions.is_empty()) {
            Some(End::Loss) => {
                self.buffers[ply] = actions;
                return -WIN + ply as i32;
            }
            Some(End::Draw) => {
                self.buffers[ply] = actions;
                return 0;
            }
            None => {}
        }
        if let Some(score) = self.probe(ply) {
            self.buffers[ply] = actions;
            return score;
        }
        let hash = self.board.hash();
        // Near the ply limit a value depends on the ply count: no table.
        let use_table = (self.board.ply as i32 + depth) < self.board.ply_limit() as i32;
        let mut table_action = None;
        if let Some(entry) = self.table.get(hash).filter(|_| use_table) {
            table_action = entry.action;
            if entry.depth as i32 >= depth {
                let score = from_table(entry.score, ply);
                let cut = match entry.bound {
                    Bound::Exact => true,
                    Bound::Lower => score >= beta,
                    Bound::Upper => score <= alpha,
                };
                if cut {
                    self.buffers[ply] = actions;
                    return score;
                }
            }
        }
        let mut keys = std::mem::take(&mut self.keys[ply]);
        self.order(&actions, table_action, ply, &mut keys);
        let original_alpha = alpha;
        let mut best = -INFINITY;
        let mut best_action = None;
        for i in 0..actions.len() {
            select(&mut actions, &mut keys, i);
            let action = &actions[i];
            let reduction = if self.material {
                0
            } else if i >= LATE && depth >= 3 && keys[i] <= QUIET {
                1 + (i >= 2 * LATE && depth >= 6) as i32
            } else {
                0
            };
            self.board.make(action);
            let score = if i == 0 {
                -self.negamax(depth - 1, -beta, -alpha, ply + 1)
            } else {
                let mut s = -self.negamax(depth - 1 - reduction, -alpha - 1, -alpha, ply + 1);
                if s > alpha && reduction > 0 && !self.stopped {
                    s = -self.negamax(depth - 1, -alpha - 1, -alpha, ply + 1);
                }
                if s > alpha && s < beta && !self.stopped {
                    -self.negamax(depth - 1, -beta, -alpha, ply + 1)
                } else {
                    s
                }
            };
            self.board.unmake();
            if self.stopped {
                self.buffers[ply] = actions;
                self.keys[ply] = keys;
                return 0;
            }
            if score > best {
                best = score;
                best_action = Some(*action);
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        if !action.is_capture() {
                            let k = &mut self.killers[ply];
                            if k[0] != Some(*action) {
                                k[1] = k[0];
                                k[0] = Some(*action);
                            }
                            let from = action.from().map_or(25, |s| s.index());
                            self.history[from][action.to().index()] += depth * depth;
                        }
                        break;
                    }
                }
            }
        }
        self.buffers[ply] = actions;
        self.keys[ply] = keys;
        if use_table {
            let bound = if best >= beta {
                Bound::Lower
            } else if best > original_alpha {
                Bound::Exact
            } else {
                Bound::Upper
            };
            self.table.put(Entry {
                hash,
                action: best_action,
                score: to_table(best, ply),
                depth: depth as i8,
                bound,
            });
        }
        best
    }

    /// Stand pat, or let the tigers capture.
    fn quiescence(&mut self, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        if self.board.eaten >= self.board.target() {
            return -WIN + ply as i32;
        }
        if !self.board.has_action() {
            return -WIN + ply as i32;
        }
        if self.board.ply >= self.board.ply_limit() {
            return 0;
        }
        let stand = if self.material {
            material(&self.board)
        } else {
            evaluate(&self.board)
        };
        if self.board.side == Side::Goat || ply >= MAX_PLY - 1 || stand >= beta {
            return stand;
        }
        alpha = alpha.max(stand);
        let mut best = stand;
        let mut actions = std::mem::take(&mut self.buffers[ply]);
        actions.clear();
        self.board.generate(&mut actions);
        for action in actions.iter().filter(|a| a.is_capture()) {
            self.nodes += 1;
            self.board.make(action);
            let score = -self.quiescence(-beta, -alpha, ply + 1);
            self.board.unmake();
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        self.buffers[ply] = actions;
        best
    }

    /// Scores the actions for ordering into `keys`: the table action
    /// first, then captures (longest first), killers, and the rest by
    /// history.
    fn order(
        &self,
        actions: &[Action],
        table_action: Option<Action>,
        ply: usize,
        keys: &mut Vec<i32>,
    ) {
        let killers = self.killers[ply];
        keys.clear();
        keys.extend(actions.iter().map(|a| {
            if Some(*a) == table_action {
                1 << 30
            } else if let Action::Jump(j) = a {
                (1 << 29) + j.len() as i32
            } else if Some(*a) == killers[0] {
                1 << 28
            } else if Some(*a) == killers[1] {
                (1 << 28) - 1
            } else {
                let from = a.from().map_or(25, |s| s.index());
                self.history[from][a.to().index()].min(QUIET)
            }
        }));
    }
}

/// The goats eaten, for the side to move, in thousandths of a goat.
#[inline]
fn material(board: &Board) -> i32 {
    let tiger = crate::eval::GOAT * board.eaten as i32;
    match board.side {
        Side::Tiger => tiger,
        Side::Goat => -tiger,
    }
}

/// Moves the best-keyed action of `actions[i..]` to `i` (a lazy selection
/// sort: most nodes are cut after one or two actions).
#[inline]
fn select(actions: &mut [Action], keys: &mut [i32], i: usize) {
    let mut best = i;
    for j in i + 1..actions.len() {
        if keys[j] > keys[best] {
            best = j;
        }
    }
    actions.swap(i, best);
    keys.swap(i, best);
}

/// Captures first at the root before the first iteration.
fn order_root(scored: &mut [(Action, i32)]) {
    scored.sort_by_key(|(a, _)| match a {
        Action::Jump(j) => -(j.len() as i32),
        _ => 0,
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use baghchal_rules::Rules;

    fn position(text: &str) -> Position {
        Position::from_text(text, Rules::default()).expect("a valid position")
    }

    fn search(text: &str, depth: u8) -> Report {
        let pos = position(text);
        let mut search = Search::new(&pos, None, 16);
        search.run(&Limits {
            depth,
            nodes: u64::MAX,
            all_root_scores: false,
        })
    }

    #[test]
    fn the_tigers_take_the_fifth_goat_when_they_can() {
        // Four goats eaten; the goat on b2 hangs to the tiger on a1.
        let report = search("T...T/...../...../.G.../T...T t 15 4 9", 3);
        assert_eq!(report.scored[0].0.to_string(), "a1xc3");
        assert_eq!(report.scored[0].1, WIN - 1);
    }

    #[test]
    fn a_won_game_in_one_is_found_wherever_random_play_offers_one() {
        use rand::rngs::ChaCha8Rng;
        use rand::{RngExt, SeedableRng};
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let mut found = 0;
        for _ in 0..200 {
            let mut pos = Position::default();
            while !pos.is_finished() {
                let actions = pos.legal_actions();
                let wins_now = actions.iter().any(|&a| {
                    let mut next = pos.clone();
                    next.play_unchecked(a);
                    next.outcome().and_then(|o| o.winner()) == Some(pos.side_to_move())
                });
                if wins_now {
                    found += 1;
                    let mut search = Search::new(&pos, None, 12);
                    let report = search.run(&Limits {
                        depth: 2,
                        nodes: u64::MAX,
                        all_root_scores: false,
                    });
                    let (best, score) = report.scored[0];
                    assert_eq!(score, WIN - 1, "{pos}");
                    let mut next = pos.clone();
                    next.play_unchecked(best);
                    assert_eq!(
                        next.outcome().and_then(|o| o.winner()),
                        Some(pos.side_to_move())
                    );
                }
                let a = actions[rng.random_range(0..actions.len())];
                pos.play_unchecked(a);
            }
        }
        assert!(found > 50, "only {found} positions with a win in one");
    }
}
