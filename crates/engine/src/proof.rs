//! Proofs under the house rules: that one side wins within a number of
//! plies whatever the other side does, the repetition record and the ply
//! limit included.
//!
//! The movement-phase tablebase knows only the board and the side to
//! move. Under the repetition rule a loser's defence can be an action that
//! would recreate a recorded position, which the rules forbid (the loss
//! then comes sooner), and a recorded position can lie on the winner's
//! shortest route (the win then takes a detour, or is lost). A [`Prover`]
//! plays the real rules from a position with its own record: a
//! depth-first search over the winner's choices (any one action that
//! wins) and the loser's (every legal action), with a budget of plies.
//!
//! With a tablebase the winner's actions are only those that keep the
//! tablebase's win (or end the game) within [`REACH`] plies of the
//! remaining budget, shortest first, and the loser's are
//! tried from its best defence on (the tablebase's draws, then the longest
//! losses), so that a budget too small is refuted early. Restricting the
//! winner's choices never makes a proof unsound: it can only miss one.
//! A proved budget is therefore an upper bound on the distance (the win
//! comes within it), exact only where nothing was restricted.
//!
//! A position whose tablebase win fits the remaining budget and the ply
//! limit is proved at once where no recorded position with the loser to
//! move has a shorter tablebase loss: along the winner's shortest route
//! every position has a shorter distance than those before it, so the
//! route never repeats itself, and only such a recorded position could
//! forbid one of the winner's actions on it (a recorded position with the
//! winner to move only takes a defence from the loser).
//!
//! The search is bounded by a number of nodes; reaching it proves
//! nothing. Positions met again along other paths are looked up by their
//! board, side to move and repetition record (as a set: the order of the
//! recorded positions does not change what the rule forbids), and by their
//! ply where the ply limit is within the budget's reach.

use std::collections::HashMap;

use baghchal_rules::{key, Action, Bitboard, Position, Repetition, Side};
use baghchal_tablebase::{Tablebase, Wdl};

use crate::board::{Board, End};

/// How many plies beyond the remaining budget the tablebase's distance of
/// a winner's action may reach for the action to be tried: the repetition
/// rule shortens a loss by a few plies, and an action the tablebase puts
/// far beyond the budget rarely wins within it. Leaving those out is what
/// makes the search reach its proofs in thousands of nodes rather than
/// millions: after the goats' e3-e2 in `GGGTG/GGTGG/GGGGG/.T.T./GGG.G g 0
/// 3 48` the tigers' win within 21 takes 3,568 nodes with 8, 46,658 with
/// 12, 453,453 with 16, and with 4 no proof is found.
const REACH: u16 = 8;

/// What a search of one budget found for the winner.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Found {
    /// The winner wins within the budget: the proof's height in plies
    /// (the longest line of the proof, at most the budget).
    Proved(u16),
    /// Not within the budget (with the winner's choices the search makes).
    Refuted,
    /// The node bound was reached first.
    Unknown,
}

/// What is known of a position met before, for the remaining budget.
#[derive(Clone, Copy)]
struct Entry {
    /// The smallest height proved (`u16::MAX`: none).
    proved: u16,
    /// The largest budget refuted (0: none beyond the trivial).
    refuted: u16,
}

/// A proof that `winner` wins within `plies` from a position.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Proof {
    /// The side that wins.
    pub winner: Side,
    /// The most plies the win takes, whatever the loser does.
    pub plies: u16,
    /// The winner's first action of the proof, where the winner is to move.
    pub action: Option<Action>,
}

/// A bounded proof search from one position.
pub(crate) struct Prover<'a> {
    board: Board,
    tablebase: Option<&'a Tablebase>,
    winner: Side,
    nodes: u64,
    node_limit: u64,
    /// The hash of the repetition record's set at each ply of the current
    /// line, the current position's last.
    sets: Vec<u64>,
    /// At each ply of the current line, the shortest tablebase loss of a
    /// recorded position with the loser to move (0 where the tablebase
    /// does not cover one, `u16::MAX` where none is recorded): the
    /// winner's shortest route from a tablebase win of `d` plies cannot
    /// be cut by the record when this is at least `d`.
    cuts: Vec<u16>,
    /// Whether the ply limit can be reached within the budgets searched:
    /// then a position's ply is part of what is looked up.
    ply_matters: bool,
    table: HashMap<(u64, u64), Entry>,
    /// The winner's action at the root of the last proof.
    root_action: Option<Action>,
    /// Whether the rules forbid repeating a position.
    forbid: bool,
}

impl<'a> Prover<'a> {
    /// A search for `winner`'s win from `position`, under its own rules
    /// and with its repetition record, that stops after `node_limit`
    /// nodes. `tablebase` orders and restricts the actions; it is used
    /// only where it covers the position's rules.
    pub(crate) fn new(
        position: &Position,
        tablebase: Option<&'a Tablebase>,
        winner: Side,
        node_limit: u64,
    ) -> Prover<'a> {
        let covered = tablebase.filter(|_| *position.rules() == baghchal_rules::Rules::default());
        let set = position
            .repetition_record()
            .iter()
            .fold(0, |set, &key| set ^ mix(key));
        let mut prover = Prover {
            board: Board::new(position),
            tablebase: covered,
            winner,
            nodes: 0,
            node_limit,
            sets: vec![set],
            cuts: Vec::new(),
            ply_matters: true,
            table: HashMap::new(),
            root_action: None,
            forbid: position.rules().repetition() == Repetition::Forbid,
        };
        let cut = position
            .repetition_record()
            .iter()
            .map(|&key| prover.cut(key))
            .min()
            .unwrap_or(u16::MAX);
        prover.cuts.push(cut);
        prover
    }

    /// Nodes searched so far.
    #[cfg(test)]
    pub(crate) fn nodes(&self) -> u64 {
        self.nodes
    }

    /// The shortest win within `most` plies that the search proves before
    /// its node bound: it proves `most` first, then each time the proof's
    /// height less two (the winner's distances are odd with the winner to
    /// move, even with the loser to move), until a budget is refuted or
    /// the bound is reached. `None` where not even `most` is proved.
    /// Only the rule that forbids repeating a position is searched (a
    /// threefold count is not a set): under the other, `None`.
    pub(crate) fn shortest(&mut self, most: u16) -> Option<Proof> {
        if !self.forbid {
            return None;
        }
        let limit = self.board.ply_limit() as u32;
        self.ply_matters = self.board.ply as u32 + most as u32 >= limit;
        let mut best: Option<Proof> = None;
        let mut budget = most;
        loop {
            self.root_action = None;
            match self.node(budget) {
                Found::Proved(height) => {
                    best = Some(Proof {
                        winner: self.winner,
                        plies: height,
                        action: self.root_action,
                    });
                    match height.checked_sub(2) {
                        Some(next) => budget = next,
                        None => break,
                    }
                }
                Found::Refuted | Found::Unknown => break,
            }
        }
        best
    }

    /// Whether the winner wins within `budget` plies from the board.
    fn node(&mut self, budget: u16) -> Found {
        self.nodes += 1;
        if self.nodes > self.node_limit {
            return Found::Unknown;
        }
        let winner_to_move = self.board.side == self.winner;
        match self.board.end(self.board.has_action()) {
            Some(End::Loss) if winner_to_move => return Found::Refuted,
            Some(End::Loss) => return Found::Proved(0),
            Some(End::Draw) => return Found::Refuted,
            None => {}
        }
        // The tablebase's win, where the record cannot cut its route.
        if let Some(distance) = self.route(winner_to_move) {
            if distance <= budget {
                return Found::Proved(distance);
            }
        }
        // The winner needs an action; the loser's action and then one.
        if budget < if winner_to_move { 1 } else { 2 } {
            return Found::Refuted;
        }
        let key = self.key();
        if let Some(entry) = self.table.get(&key) {
            if entry.proved <= budget {
                return Found::Proved(entry.proved);
            }
            if entry.refuted >= budget {
                return Found::Refuted;
            }
        }
        let found = if winner_to_move {
            self.winner_node(budget)
        } else {
            self.loser_node(budget)
        };
        if found != Found::Unknown && self.table.len() < self.node_limit as usize {
            let entry = self.table.entry(key).or_insert(Entry {
                proved: u16::MAX,
                refuted: 0,
            });
            match found {
                Found::Proved(height) => entry.proved = entry.proved.min(height),
                Found::Refuted => entry.refuted = entry.refuted.max(budget),
                Found::Unknown => {}
            }
        }
        found
    }

    /// The winner to move: one action that wins within the budget.
    fn winner_node(&mut self, budget: u16) -> Found {
        let root = self.sets.len() == 1;
        let mut actions = Vec::new();
        self.board.generate(&mut actions);
        // The actions that keep the tablebase's win, with its distance.
        let mut candidates: Vec<(u16, Action)> = Vec::with_capacity(actions.len());
        for action in actions {
            self.make(&action);
            let order = if self.board.end(self.board.has_action()) == Some(End::Loss) {
                Some(0)
            } else {
                match self.probe() {
                    Some((Wdl::Loss, distance)) if distance < budget + REACH => Some(distance),
                    Some(_) => None,
                    None => Some(0),
                }
            };
            self.unmake();
            if let Some(distance) = order {
                candidates.push((distance, action));
            }
        }
        candidates.sort_by_key(|&(distance, _)| distance);
        let mut unknown = false;
        for (_, action) in candidates {
            self.make(&action);
            let found = self.node(budget - 1);
            self.unmake();
            match found {
                Found::Proved(height) => {
                    if root {
                        self.root_action = Some(action);
                    }
                    return Found::Proved(height + 1);
                }
                Found::Refuted => {}
                Found::Unknown => {
                    unknown = true;
                    break;
                }
            }
        }
        if unknown {
            Found::Unknown
        } else {
            Found::Refuted
        }
    }

    /// The loser to move: every action loses within the budget.
    fn loser_node(&mut self, budget: u16) -> Found {
        let mut actions = Vec::new();
        self.board.generate(&mut actions);
        // The best defences first: the tablebase's draws and wins for the
        // loser, then its longest losses.
        let mut ordered: Vec<(u32, Action)> = Vec::with_capacity(actions.len());
        for action in actions {
            self.make(&action);
            let order = match self.probe() {
                Some((Wdl::Win, distance)) => distance as u32,
                Some(_) | None => u32::MAX,
            };
            self.unmake();
            ordered.push((order, action));
        }
        ordered.sort_by_key(|&(order, _)| std::cmp::Reverse(order));
        let mut height = 0;
        for (_, action) in ordered {
            self.make(&action);
            let found = self.node(budget - 1);
            self.unmake();
            match found {
                Found::Proved(h) => height = height.max(h + 1),
                other => return other,
            }
        }
        Found::Proved(height)
    }

    /// The tablebase's result and distance for the board and side to
    /// move, where it covers them.
    fn probe(&self) -> Option<(Wdl, u16)> {
        let tablebase = self.tablebase?;
        if self.board.in_hand > 0 {
            return None;
        }
        let probe = tablebase.probe_board(
            Bitboard(self.board.tigers),
            Bitboard(self.board.goats),
            self.board.side,
            self.board.eaten,
        )?;
        Some((probe.wdl, probe.distance))
    }

    /// The tablebase's distance of the winner's win from the board, where
    /// it holds under the house rules: within the ply limit, and no
    /// recorded position with the loser to move and a shorter loss. Each
    /// of the winner's actions on its shortest route leads to a loser's
    /// position of a shorter loss than any before it on the route, so the
    /// route never repeats itself, and only such a position recorded
    /// before could forbid one of them; a recorded position with the
    /// winner to move only takes a defence from the loser.
    fn route(&self, winner_to_move: bool) -> Option<u16> {
        let distance = match self.probe()? {
            (Wdl::Win, distance) if winner_to_move => distance,
            (Wdl::Loss, distance) if !winner_to_move => distance,
            _ => return None,
        };
        let cut = *self.cuts.last().expect("the root's cut");
        let fits = self.board.ply as u32 + distance as u32 <= self.board.ply_limit() as u32;
        (fits && cut >= distance).then_some(distance)
    }

    /// What a recorded position `key` (with the board's goats eaten) can
    /// cut: its tablebase loss with the loser to move, 0 where the
    /// tablebase does not cover it, `u16::MAX` otherwise.
    fn cut(&self, key: u64) -> u16 {
        if key::side(key) == self.winner {
            return u16::MAX;
        }
        let Some(tablebase) = self.tablebase else {
            return 0;
        };
        match tablebase.probe_board(
            Bitboard(key::tigers(key)),
            Bitboard(key::goats(key)),
            key::side(key),
            self.board.eaten,
        ) {
            Some(probe) if probe.wdl == Wdl::Loss => probe.distance,
            Some(_) => u16::MAX,
            None => 0,
        }
    }

    /// What a position is looked up by: its repetition key, and the hash
    /// of its record's set (with its ply where that matters).
    fn key(&self) -> (u64, u64) {
        let set = *self.sets.last().expect("the root's set");
        let ply = if self.ply_matters {
            mix(self.board.ply as u64 | 1 << 60)
        } else {
            0
        };
        (self.board.key(), set ^ ply)
    }

    fn make(&mut self, action: &Action) {
        let set = *self.sets.last().expect("the root's set");
        self.board.make(action);
        let cut = *self.cuts.last().expect("the root's cut");
        let recorded = self.board.key();
        // A capture clears the record; every movement-phase position is
        // recorded.
        let (set, cut) = if self.board.in_hand > 0 {
            (set, cut)
        } else if matches!(action, Action::Jump(_)) {
            (mix(recorded), self.cut(recorded))
        } else {
            (set ^ mix(recorded), cut.min(self.cut(recorded)))
        };
        self.sets.push(set);
        self.cuts.push(cut);
    }

    fn unmake(&mut self) {
        self.board.unmake();
        self.sets.pop();
        self.cuts.pop();
    }
}

/// A 64-bit mix of a key (splitmix64's finaliser).
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use baghchal_rules::Rules;
    use rand::rngs::ChaCha8Rng;
    use rand::{RngExt, SeedableRng};

    /// Whether `winner` wins within `plies` from `position`, by trying
    /// every line with the rules crate's own positions.
    fn wins_within(position: &Position, winner: Side, plies: u16) -> bool {
        if let Some(outcome) = position.outcome() {
            return outcome.winner() == Some(winner);
        }
        if plies == 0 {
            return false;
        }
        let mut lines = position.legal_actions().into_iter().map(|action| {
            let mut next = position.clone();
            next.play_unchecked(action);
            wins_within(&next, winner, plies - 1)
        });
        if position.side_to_move() == winner {
            lines.any(|won| won)
        } else {
            lines.all(|won| won)
        }
    }

    /// The shortest win within `most` plies, by brute force.
    fn brute_shortest(position: &Position, winner: Side, most: u16) -> Option<u16> {
        (0..=most).find(|&plies| wins_within(position, winner, plies))
    }

    fn prove(position: &Position, winner: Side, most: u16) -> Option<u16> {
        Prover::new(position, None, winner, 1_000_000)
            .shortest(most)
            .map(|proof| proof.plies)
    }

    /// A position after `line` from `start` (read from text), with the
    /// record those actions made.
    fn after(start: &str, line: &[&str]) -> Position {
        let mut position = Position::from_text(start, Rules::default()).expect("a valid start");
        for text in line {
            position
                .play_mut(text.parse().expect("an action"))
                .expect("a legal action");
        }
        position
    }

    /// The same board read from text: its record holds only itself.
    fn alone(position: &Position) -> Position {
        Position::from_text(&position.to_string(), Rules::default()).expect("a valid position")
    }

    #[test]
    fn the_proved_distance_is_the_shortest_win_over_random_games() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let (mut wins, mut differ) = (0, 0);
        for _ in 0..100 {
            let mut position = Position::default();
            while !position.is_finished() {
                let actions = position.legal_actions();
                position.play_unchecked(actions[rng.random_range(0..actions.len())]);
                if position.in_hand() > 0 || position.is_finished() {
                    continue;
                }
                let fresh = alone(&position);
                for winner in [Side::Tiger, Side::Goat] {
                    let with_record = brute_shortest(&position, winner, 5);
                    let without = brute_shortest(&fresh, winner, 5);
                    assert_eq!(
                        prove(&position, winner, 5),
                        with_record,
                        "{position} {winner:?}"
                    );
                    assert_eq!(prove(&fresh, winner, 5), without, "{fresh} {winner:?}");
                    wins += usize::from(with_record.is_some());
                    differ += usize::from(with_record != without);
                }
            }
        }
        assert!(wins > 100, "the games reach wins to prove: {wins}");
        assert!(differ > 0, "the record changes some of them");
    }

    #[test]
    fn the_record_makes_the_goats_loss_come_sooner() {
        // c3-d2, c5-d4, d2-c3: the goats may not play c4-c5 back, and the
        // tigers then have a win the board alone does not give them.
        let position = after(
            "GGGGT/GG..T/GGT../GGG.G/GTGGG t 0 4 39",
            &["c3-d2", "c5-d4", "d2-c3"],
        );
        assert_eq!(
            position.to_string(),
            "GG.GT/GG.GT/GGT../GGG.G/GTGGG g 0 4 42"
        );
        assert_eq!(prove(&position, Side::Tiger, 5), Some(2));
        assert_eq!(brute_shortest(&position, Side::Tiger, 5), Some(2));
        assert_eq!(prove(&alone(&position), Side::Tiger, 5), None);
    }

    #[test]
    fn the_record_cuts_the_goats_shortest_win() {
        let position = after(
            "TGGGG/GG..G/GTG.G/TGGTG/GGG.G g 0 3 44",
            &[
                "e3-d3", "d2-d1", "e1-d2", "d1-e1", "d2-e3", "e1-d1", "c1-d2", "d1-c1",
            ],
        );
        assert_eq!(prove(&alone(&position), Side::Goat, 5), Some(5));
        assert_eq!(brute_shortest(&position, Side::Goat, 5), None);
        assert_eq!(prove(&position, Side::Goat, 5), None);
        // A longer budget finds the way round, as the brute force does.
        let longer = brute_shortest(&position, Side::Goat, 9);
        assert_eq!(prove(&position, Side::Goat, 9), longer);
    }

    #[test]
    fn the_node_bound_proves_nothing() {
        let position = after(
            "GGGGT/GG..T/GGT../GGG.G/GTGGG t 0 4 39",
            &["c3-d2", "c5-d4", "d2-c3"],
        );
        let mut prover = Prover::new(&position, None, Side::Tiger, 3);
        assert_eq!(prover.shortest(5), None);
        assert!(prover.nodes() <= 4);
    }

    #[test]
    fn a_threefold_rule_is_not_searched() {
        let rules = Rules::new(baghchal_rules::RulesOptions {
            repetition: Repetition::ThreefoldDraw,
            ..Default::default()
        })
        .expect("valid rules");
        let position =
            Position::from_text("T...T/GGGGG/GG.GG/GGGGG/TG.GT t 0 4 100", rules).unwrap();
        assert_eq!(
            Prover::new(&position, None, Side::Tiger, 1_000).shortest(3),
            None
        );
        let house = alone(&position);
        assert_eq!(prove(&house, Side::Tiger, 3), Some(1));
    }
}
