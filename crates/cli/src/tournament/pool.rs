//! The reference pool: opponents that never change when the engine does,
//! so that ratings measured against them stay comparable from one version
//! of the engine to the next.
//!
//! The bots play the house rules through the rules crate (its legal
//! actions at the root, its geometry and key layout below) and share no
//! code with the engine. They are frozen: changing what a bot plays
//! changes every rating measured against it, so a bot that plays
//! differently must get a new name.
//!
//! - `random`: a uniformly random legal action.
//! - `greedy`: one ply of greed. The tigers capture when they can, else
//!   step where the most goats stand open to a capture; the goats play the
//!   action after which the fewest goats can be captured, then the one that
//!   leaves the tigers the fewest actions.
//! - `ab2`, `ab4`, ...: plain fixed-depth alpha-beta (negamax) to that many
//!   plies, captures first, with no transposition table, no extensions and
//!   no quiescence, on the evaluation that `evaluate` documents.
//!
//! Ties at the root are broken by the game's seed.

use std::fmt;

use anyhow::{anyhow, bail};
use baghchal_rules::{board, key, Action, Bitboard, Jump, Position, Repetition, Side};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

/// A bot of the pool.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub(super) enum Bot {
    /// A uniformly random legal action.
    Random,
    /// One ply of greed: the capturer and the blocker.
    Greedy,
    /// Fixed-depth alpha-beta to this many plies.
    AlphaBeta(u8),
}

/// The pool that `--pool` plays by default.
pub(super) const DEFAULT: [Bot; 7] = [
    Bot::Random,
    Bot::Greedy,
    Bot::AlphaBeta(2),
    Bot::AlphaBeta(4),
    Bot::AlphaBeta(6),
    Bot::AlphaBeta(9),
    Bot::AlphaBeta(10),
];

/// The deepest search a bot may have.
const MAX_DEPTH: u8 = 12;

impl Bot {
    /// Reads `random`, `greedy` or `abN` (N from 1 to 12).
    pub fn parse(text: &str) -> anyhow::Result<Bot> {
        match text.trim() {
            "random" => Ok(Bot::Random),
            "greedy" => Ok(Bot::Greedy),
            t => t
                .strip_prefix("ab")
                .and_then(|d| d.parse::<u8>().ok())
                .filter(|d| (1..=MAX_DEPTH).contains(d))
                .map(Bot::AlphaBeta)
                .ok_or_else(|| {
                    anyhow!("{t:?} is not a pool bot (random, greedy, ab1 ... ab{MAX_DEPTH})")
                }),
        }
    }

    /// Reads a comma-separated list of bots, weakest first, once each.
    pub fn parse_list(text: &str) -> anyhow::Result<Vec<Bot>> {
        let mut bots = text
            .split(',')
            .map(Bot::parse)
            .collect::<anyhow::Result<Vec<Bot>>>()?;
        bots.sort();
        bots.dedup();
        if bots.is_empty() {
            bail!("the pool needs at least one bot");
        }
        Ok(bots)
    }

    /// A number that tells bots apart (in openings' seeds).
    pub fn id(self) -> u64 {
        match self {
            Bot::Random => 1,
            Bot::Greedy => 2,
            Bot::AlphaBeta(depth) => 16 + depth as u64,
        }
    }

    /// The bot's action in `position` (house rules, unfinished).
    pub fn act(self, position: &Position, seed: u64) -> Option<Action> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let actions = position.legal_actions();
        if actions.is_empty() {
            return None;
        }
        let best: Vec<Action> = match self {
            Bot::Random => actions,
            Bot::Greedy => greedy(position, &actions),
            Bot::AlphaBeta(depth) => search(position, &actions, depth),
        };
        Some(best[rng.random_range(0..best.len())])
    }
}

impl fmt::Display for Bot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Bot::Random => f.write_str("random"),
            Bot::Greedy => f.write_str("greedy"),
            Bot::AlphaBeta(depth) => write!(f, "ab{depth}"),
        }
    }
}

/// The compact board the bots look ahead on.
#[derive(Clone, Copy, Debug)]
struct Node {
    tigers: u32,
    goats: u32,
    side: Side,
    in_hand: u8,
    eaten: u8,
    ply: u16,
}

impl Node {
    fn of(position: &Position) -> Node {
        Node {
            tigers: position.tigers().0,
            goats: position.goats().0,
            side: position.side_to_move(),
            in_hand: position.in_hand(),
            eaten: position.eaten(),
            ply: position.ply(),
        }
    }

    fn empty(&self) -> u32 {
        !(self.tigers | self.goats) & Bitboard::FULL.0
    }

    fn key(&self) -> u64 {
        key::pack(self.tigers, self.goats, self.side)
    }

    /// The node after `action` (legal here), and whether it captured.
    fn after(&self, action: &Action) -> (Node, bool) {
        let mut n = *self;
        let mut captured = false;
        match *action {
            Action::Place(to) => {
                n.goats |= to.bitboard().0;
                n.in_hand -= 1;
            }
            Action::Step { from, to } => {
                let mv = from.bitboard().0 | to.bitboard().0;
                match self.side {
                    Side::Goat => n.goats ^= mv,
                    Side::Tiger => n.tigers ^= mv,
                }
            }
            Action::Jump(ref jump) => {
                n.tigers = n.tigers & !jump.from().bitboard().0 | jump.to().bitboard().0;
                for over in jump.captures() {
                    n.goats &= !over.bitboard().0;
                    n.eaten += 1;
                }
                captured = true;
            }
        }
        n.side = self.side.other();
        n.ply += 1;
        (n, captured)
    }

    /// The actions of the side to move, captures first, leaving out the
    /// steps that recreate a position of `record` (house rules: single
    /// jumps, repetition forbidden in the movement phase).
    fn actions(&self, record: &[u64], out: &mut Vec<Action>) {
        out.clear();
        let empty = self.empty();
        if self.side == Side::Goat && self.in_hand > 0 {
            out.extend(Bitboard(empty).into_iter().map(Action::Place));
            return;
        }
        let mine = match self.side {
            Side::Goat => self.goats,
            Side::Tiger => self.tigers,
        };
        if self.side == Side::Tiger {
            for from in Bitboard(mine) {
                for line in board::jump_lines(from) {
                    if self.goats & line.over.bitboard().0 != 0
                        && empty & line.land.bitboard().0 != 0
                    {
                        out.push(Action::Jump(Jump::single(from, line.land)));
                    }
                }
            }
        }
        let check = self.in_hand == 0 && !record.is_empty();
        for from in Bitboard(mine) {
            for to in board::neighbours(from) & Bitboard(empty) {
                if check {
                    let mv = from.bitboard().0 | to.bitboard().0;
                    let key = match self.side {
                        Side::Goat => key::pack(self.tigers, self.goats ^ mv, Side::Tiger),
                        Side::Tiger => key::pack(self.tigers ^ mv, self.goats, Side::Goat),
                    };
                    if record.contains(&key) {
                        continue;
                    }
                }
                out.push(Action::Step { from, to });
            }
        }
    }

    /// The goats a tiger could jump now, as a set.
    fn capturable(&self) -> u32 {
        let empty = self.empty();
        let mut set = 0;
        for from in Bitboard(self.tigers) {
            for line in board::jump_lines(from) {
                if self.goats & line.over.bitboard().0 != 0 && empty & line.land.bitboard().0 != 0 {
                    set |= line.over.bitboard().0;
                }
            }
        }
        set
    }

    /// The tigers' steps and jumps (repetition ignored), and how many
    /// tigers have none.
    fn tiger_moves(&self) -> (u32, u32) {
        let empty = self.empty();
        let (mut total, mut trapped) = (0, 0);
        for from in Bitboard(self.tigers) {
            let mut n = (board::neighbours(from) & Bitboard(empty)).count();
            for line in board::jump_lines(from) {
                if self.goats & line.over.bitboard().0 != 0 && empty & line.land.bitboard().0 != 0 {
                    n += 1;
                }
            }
            total += n;
            trapped += (n == 0) as u32;
        }
        (total, trapped)
    }
}

/// A won position's score, less the plies to the win.
const WIN: i32 = 1_000_000;

/// The pool's evaluation, from the tigers' side (published in
/// docs/strength.md; frozen):
///
/// `1000·eaten + 150·capturable + 10·moves − 200·trapped`
///
/// where `eaten` counts the goats captured, `capturable` the goats a tiger
/// could jump now, `moves` the tigers' steps and jumps, and `trapped` the
/// tigers with neither.
fn evaluate(n: &Node) -> i32 {
    let (moves, trapped) = n.tiger_moves();
    1000 * n.eaten as i32 + 150 * n.capturable().count_ones() as i32 + 10 * moves as i32
        - 200 * trapped as i32
}

/// The greedy bot's choices among `actions`.
fn greedy(position: &Position, actions: &[Action]) -> Vec<Action> {
    let node = Node::of(position);
    let scored: Vec<(i64, Action)> = actions
        .iter()
        .map(|a| {
            let (child, captured) = node.after(a);
            let open = child.capturable().count_ones() as i64;
            let score = match node.side {
                Side::Tiger => 100 * captured as i64 + open,
                Side::Goat => -100 * open - child.tiger_moves().0 as i64,
            };
            (score, *a)
        })
        .collect();
    let best = scored.iter().map(|s| s.0).max().expect("an action");
    scored
        .into_iter()
        .filter(|s| s.0 == best)
        .map(|s| s.1)
        .collect()
}

/// The actions that a `depth`-ply alpha-beta scores best.
fn search(position: &Position, actions: &[Action], depth: u8) -> Vec<Action> {
    let rules = position.rules();
    debug_assert_eq!(rules.repetition(), Repetition::Forbid);
    let mut searcher = Searcher {
        target: rules.goats_to_win(),
        ply_limit: rules.ply_limit(),
        record: position.repetition_record().to_vec(),
        buffers: vec![Vec::new(); depth as usize + 1],
    };
    let node = Node::of(position);
    let mut best = -WIN - 1;
    let mut chosen = Vec::new();
    for action in actions {
        // A window one below the best so far finds every tie exactly.
        let value = -searcher.child(&node, action, depth - 1, 1, -WIN - 1, -(best - 1));
        if value > best {
            best = value;
            chosen.clear();
        }
        if value == best {
            chosen.push(*action);
        }
    }
    chosen
}

/// The state of one search: the rules' numbers, the movement-phase record
/// along the line, and a buffer of actions per ply.
struct Searcher {
    target: u8,
    ply_limit: u16,
    record: Vec<u64>,
    buffers: Vec<Vec<Action>>,
}

impl Searcher {
    /// The value of playing `action` in `node`, for the side that moves
    /// after it, searched `depth` plies further; `height` plies from the
    /// root. The record since the last capture starts at `base`.
    fn child(
        &mut self,
        node: &Node,
        action: &Action,
        depth: u8,
        height: i32,
        alpha: i32,
        beta: i32,
    ) -> i32 {
        let (child, captured) = node.after(action);
        let len = self.record.len();
        let mut saved = Vec::new();
        if child.in_hand == 0 {
            if captured {
                // No earlier position can come back: it had more goats.
                saved = std::mem::take(&mut self.record);
            }
            self.record.push(child.key());
        }
        let value = self.node(&child, depth, height, alpha, beta);
        if child.in_hand == 0 {
            if captured {
                self.record = saved;
            } else {
                self.record.truncate(len);
            }
        }
        value
    }

    /// Negamax with alpha-beta, from the side to move's point of view.
    fn node(&mut self, node: &Node, depth: u8, height: i32, mut alpha: i32, beta: i32) -> i32 {
        if node.eaten >= self.target {
            return -(WIN - height);
        }
        let mut actions = std::mem::take(&mut self.buffers[depth as usize]);
        node.actions(&self.record, &mut actions);
        let value = if actions.is_empty() {
            -(WIN - height)
        } else if node.ply >= self.ply_limit {
            0
        } else if depth == 0 {
            match node.side {
                Side::Tiger => evaluate(node),
                Side::Goat => -evaluate(node),
            }
        } else {
            let mut best = -WIN - 1;
            for action in &actions {
                let value = -self.child(node, action, depth - 1, height + 1, -beta, -alpha);
                if value > best {
                    best = value;
                    if value > alpha {
                        alpha = value;
                        if alpha >= beta {
                            break;
                        }
                    }
                }
            }
            best
        };
        self.buffers[depth as usize] = actions;
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use baghchal_rules::{Game, Rules, Square};

    fn sq(text: &str) -> Square {
        text.parse().expect("a square")
    }

    #[test]
    fn bots_read_by_name_and_refuse_others() {
        assert_eq!(
            Bot::parse_list("ab9,random,greedy,ab2,ab9").unwrap(),
            vec![
                Bot::Random,
                Bot::Greedy,
                Bot::AlphaBeta(2),
                Bot::AlphaBeta(9)
            ]
        );
        for bad in ["", "ab0", "ab13", "abc", "minimax"] {
            assert!(Bot::parse(bad).is_err(), "{bad}");
        }
        for bot in DEFAULT {
            assert_eq!(Bot::parse(&bot.to_string()).unwrap(), bot);
        }
    }

    #[test]
    fn the_generator_agrees_with_the_rules_over_random_games() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut actions = Vec::new();
        for _ in 0..40 {
            let mut position = Position::new(Rules::default());
            while !position.is_finished() {
                let node = Node::of(&position);
                node.actions(position.repetition_record(), &mut actions);
                let mut ours: Vec<String> = actions.iter().map(Action::to_string).collect();
                let mut theirs: Vec<String> = position
                    .legal_actions()
                    .iter()
                    .map(Action::to_string)
                    .collect();
                ours.sort();
                theirs.sort();
                assert_eq!(ours, theirs, "{position}");
                let legal = position.legal_actions();
                let action = legal[rng.random_range(0..legal.len())];
                let (child, _) = node.after(&action);
                position.play_unchecked(action);
                assert_eq!(child.key(), position.key());
                assert_eq!(child.eaten, position.eaten());
                assert_eq!(child.in_hand, position.in_hand());
            }
        }
    }

    #[test]
    fn the_tigers_take_a_goat_that_stands_open() {
        // The goat on b2 can be jumped from a1 onto c3.
        let position =
            Position::from_text("T...T/...../...../.G.../T...T t 19 0 1", Rules::default())
                .unwrap();
        let capture = Action::Jump(Jump::single(sq("a1"), sq("c3")));
        for bot in [Bot::Greedy, Bot::AlphaBeta(1), Bot::AlphaBeta(4)] {
            assert_eq!(bot.act(&position, 3), Some(capture), "{bot}");
        }
    }

    #[test]
    fn the_goats_of_a_searching_bot_keep_a_goat_out_of_reach() {
        // Goats to place: b2 next to the tiger on a1 with c3 empty would be
        // taken at once.
        let position = Position::default();
        for bot in [Bot::Greedy, Bot::AlphaBeta(2)] {
            for seed in 0..8 {
                let action = bot.act(&position, seed).unwrap();
                let after = position.clone().play(action).unwrap();
                let taken = after
                    .legal_actions()
                    .iter()
                    .any(|a| matches!(a, Action::Jump(_)));
                assert!(!taken, "{bot} placed {action}");
            }
        }
    }

    #[test]
    fn every_bot_finishes_a_game_with_legal_actions() {
        for (goats, tigers) in [(Bot::Random, Bot::Greedy), (Bot::AlphaBeta(2), Bot::Random)] {
            let mut game = Game::new(Rules::default());
            while !game.is_finished() {
                let position = game.position().clone();
                let bot = match position.side_to_move() {
                    Side::Goat => goats,
                    Side::Tiger => tigers,
                };
                let action = bot.act(&position, position.ply() as u64).unwrap();
                game.play(action).unwrap();
            }
            assert!(game.position().is_finished());
        }
    }
}
