//! The computer opponent: it chooses an action for a position (whose
//! history, repetition record and ply count are part of it) at a level of
//! the ladder 400..=2400.
//!
//! The search is iterative deepening principal-variation alpha-beta over
//! the engine's own make/unmake board, with a transposition table,
//! capture-first ordering with killers and history, late quiet actions
//! searched a ply shallower first, and a quiescence search on captures.
//! It plays under the position's own rules (every variant). With a movement-phase [`Tablebase`] it converts won positions
//! by the shortest distance and uses the tablebase's values (which ignore
//! the repetition record) at the search's leaves.
//!
//! The top level plays the goats' placement from a book where it has one
//! ([`PlacementBook`]): placements chosen offline by a far deeper search.
//! Its goats' placements are also guarded: a search that counts only the
//! goats eaten and reduces nothing ([`Engine::keeping`]) first sets aside
//! the placements that give a goat away by force, and the level chooses
//! among the rest.
//!
//! Levels are made from search limits (depth and nodes, never the clock,
//! so that a choice is reproducible from its seed) and a seeded,
//! level-dependent error at the root, after Stockfish's skill levels.
//!
//! ```
//! use baghchal_engine::{Engine, Level};
//! use baghchal_rules::Position;
//!
//! let engine = Engine::new();
//! let position = Position::default();
//! let action = engine.choose(&position, Level::MIN, 1).unwrap();
//! assert!(position.legal_actions().contains(&action));
//! ```

#![warn(missing_docs)]

mod analysis;
mod board;
mod book;
pub mod chance;
mod eval;
mod proof;
pub mod protocol;
pub mod puzzle;
mod puzzle_placement;
mod search;
mod skill;
pub mod tune;
mod value;

use std::fmt;
use std::sync::Arc;

use baghchal_rules::{Action, Phase, Position, Rules, Side};
use baghchal_tablebase::{Tablebase, Wdl};

pub use crate::analysis::{ActionAnalysis, ActionValue, Judgement, Source};
pub use crate::book::{BookError, BookMove, PlacementBook};
use crate::search::{Limits, Search};
pub use crate::skill::Skill;
pub use crate::value::Value;

/// A level of the ladder: 400 to 2400 in steps of 100.
///
/// ```
/// use baghchal_engine::Level;
/// assert!(Level::new(1200).is_some());
/// assert!(Level::new(1250).is_none());
/// assert!(Level::new(2500).is_none());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Level(u16);

impl Level {
    /// The weakest level.
    pub const MIN: Level = Level(400);
    /// The strongest level.
    pub const MAX: Level = Level(2400);

    /// The level with this label, if it is one of the ladder's.
    pub fn new(label: u16) -> Option<Level> {
        ((400..=2400).contains(&label) && label.is_multiple_of(100)).then_some(Level(label))
    }

    /// The label.
    pub fn get(self) -> u16 {
        self.0
    }

    /// Every level, weakest first.
    pub fn all() -> impl Iterator<Item = Level> {
        (4..=24).map(|n| Level(n * 100))
    }

    /// The search limits and the controlled error of this level.
    pub fn skill(self) -> Skill {
        Skill::of(self)
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// The levels from which a tablebase win is converted by the shortest
/// route; below, the tablebase only informs the search.
const CONVERT_FROM: Level = Level(1900);

/// How deep, and within how many nodes, the guard searches a goats'
/// placement for captures the tigers can force: about half a second, deep
/// enough (10 plies early in the placement, 12 once the board fills) to
/// see what a plain 10-ply alpha-beta plays for.
const GUARD_DEPTH: u8 = 12;
const GUARD_NODES: u64 = 3_000_000;

/// A chosen action and what the search saw of it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Thought {
    /// The action chosen.
    pub action: Action,
    /// Its value for the side to move, as the search scored it.
    pub value: Value,
    /// The deepest finished iteration (0: from the tablebase or the
    /// placement book).
    pub depth: u8,
    /// Nodes searched, the guard's included.
    pub nodes: u64,
}

/// The computer player. Cheap to clone; shares its tablebase and its
/// placement book.
#[derive(Clone, Default)]
pub struct Engine {
    tablebase: Option<Arc<Tablebase>>,
    /// The goats' placement book of the levels that play one; `None`: the
    /// book shipped with the engine.
    book: Option<Arc<PlacementBook>>,
    /// The top level places its goats without the material guard (to
    /// measure what the guard changes).
    unguarded: bool,
    /// The nodes a proof under the house rules may search for one
    /// position; `None`: [`PROOF_NODES`].
    proof_nodes: Option<u64>,
}

/// The nodes a proof under the house rules may search for one position
/// of a review or an analysis (see [`Engine::judge`]), unless
/// [`Engine::with_proof_nodes`] says otherwise.
pub const PROOF_NODES: u64 = 20_000;

/// An action with the search's score for the side to move, in thousandths
/// of a goat (see [`Value`] for won and lost scores).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Scored {
    /// The action.
    pub action: Action,
    /// Its value for the side that plays it.
    pub value: Value,
}

/// The actions that keep the most goats, from [`Engine::keeping`].
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Keeping {
    /// The actions, in the search's order.
    pub actions: Vec<Action>,
    /// The deepest search that finished.
    pub depth: u8,
    /// Nodes searched.
    pub nodes: u64,
}

impl Engine {
    /// An engine without a tablebase.
    pub fn new() -> Engine {
        Engine::default()
    }

    /// An engine that probes `tablebase` in the movement phase.
    pub fn with_tablebase(tablebase: Arc<Tablebase>) -> Engine {
        Engine {
            tablebase: Some(tablebase),
            ..Engine::default()
        }
    }

    /// This engine with `book` in place of the shipped placement book (an
    /// empty book: the levels search every placement).
    ///
    /// ```
    /// use baghchal_engine::{Engine, Level, PlacementBook};
    /// use baghchal_rules::Position;
    /// let engine = Engine::new().with_book(PlacementBook::new());
    /// assert!(engine.book().is_empty());
    /// assert!(engine.think(&Position::default(), Level::MAX, 0).unwrap().nodes > 0);
    /// ```
    pub fn with_book(self, book: PlacementBook) -> Engine {
        Engine {
            book: Some(Arc::new(book)),
            ..self
        }
    }

    /// This engine with the top level's goats placed without the guard:
    /// its search then chooses among every placement, including those that
    /// give a goat away by force (see [`Skill::guard`]).
    pub fn without_guard(self) -> Engine {
        Engine {
            unguarded: true,
            ..self
        }
    }

    /// This engine with `nodes` as the bound of each proof under the house
    /// rules (see [`Engine::judge`]) in place of [`PROOF_NODES`].
    pub fn with_proof_nodes(self, nodes: u64) -> Engine {
        Engine {
            proof_nodes: Some(nodes),
            ..self
        }
    }

    /// The bound of each proof under the house rules, in nodes.
    pub fn proof_nodes(&self) -> u64 {
        self.proof_nodes.unwrap_or(PROOF_NODES)
    }

    /// The placement book the levels that play one consult.
    pub fn book(&self) -> &PlacementBook {
        match &self.book {
            Some(book) => book,
            None => PlacementBook::shipped(),
        }
    }

    /// The tablebase, if the engine has one.
    pub fn tablebase(&self) -> Option<&Tablebase> {
        self.tablebase.as_deref()
    }

    /// Chooses an action for the side to move at `level`; `None` when the
    /// game is over. `seed` drives the level's controlled randomness, so
    /// that a choice can be reproduced: the same position, level and seed
    /// give the same action.
    pub fn choose(&self, position: &Position, level: Level, seed: u64) -> Option<Action> {
        self.think(position, level, seed).map(|t| t.action)
    }

    /// [`Engine::choose`] with what the search saw: the chosen action's
    /// value, the depth reached and the nodes searched.
    ///
    /// ```
    /// use baghchal_engine::{Engine, Level, PlacementBook};
    /// use baghchal_rules::Position;
    /// let start = Position::default();
    /// // The top level plays the start from its placement book (where
    /// // its guard finds that the book's placement keeps every goat)...
    /// let booked = Engine::new().think(&start, Level::MAX, 0).unwrap();
    /// assert_eq!(booked.depth, 0);
    /// // ...and searches it without one.
    /// let engine = Engine::new().with_book(PlacementBook::new());
    /// let thought = engine.think(&start, Level::MAX, 0).unwrap();
    /// assert!(thought.depth >= 4);
    /// assert!(thought.nodes > 0);
    /// ```
    pub fn think(&self, position: &Position, level: Level, seed: u64) -> Option<Thought> {
        self.think_at(position, &level.skill(), seed)
    }

    /// [`Engine::think`] at any point of the levels' path, between or
    /// beyond the labels (for placing the labels by measurement). A skill
    /// at least as strong as level 1900's converts tablebase wins by the
    /// shortest route.
    ///
    /// ```
    /// use baghchal_engine::{Engine, Skill};
    /// use baghchal_rules::Position;
    /// let position = Position::default();
    /// let thought = Engine::new().think_at(&position, &Skill::at(7.5), 3).unwrap();
    /// assert!(position.is_legal(&thought.action));
    /// ```
    pub fn think_at(&self, position: &Position, skill: &Skill, seed: u64) -> Option<Thought> {
        if position.is_finished() {
            return None;
        }
        let keeping = self.guard(position, skill);
        let guard_nodes = keeping.as_ref().map_or(0, |k| k.nodes);
        if skill.book {
            if let Some(known) = self.book().get(position) {
                if keeping
                    .as_ref()
                    .is_none_or(|k| k.actions.contains(&known.action))
                {
                    return Some(Thought {
                        action: known.action,
                        value: Value::from_score(known.value),
                        depth: 0,
                        nodes: guard_nodes,
                    });
                }
            }
        }
        if skill.strength >= CONVERT_FROM.skill().strength {
            if let Some(best) = self.tablebase_best(position) {
                return Some(Thought {
                    action: best.action,
                    value: best.value,
                    depth: 0,
                    nodes: 0,
                });
            }
        }
        let mut search = Search::new(position, self.tablebase(), skill.tt_bits);
        let report = match &keeping {
            Some(keeping) => search.run_among(&skill.limits(), &keeping.actions),
            None => search.run(&skill.limits()),
        };
        let action = skill.pick(&report.scored, seed);
        let score = report
            .scored
            .iter()
            .find(|(a, _)| *a == action)
            .map_or(0, |&(_, s)| s);
        Some(Thought {
            action,
            value: Value::from_score(score),
            depth: report.depth,
            nodes: guard_nodes + report.nodes,
        })
    }

    /// The goats' placements that a skill with the guard chooses among:
    /// those that give no goat away by force within the guard's search
    /// (see [`Skill::guard`]); `None` where every action may be played.
    fn guard(&self, position: &Position, skill: &Skill) -> Option<Keeping> {
        let guarded = skill.guard
            && !self.unguarded
            && position.phase() == Phase::Placement
            && position.side_to_move() == Side::Goat;
        if !guarded {
            return None;
        }
        self.keeping(position, GUARD_DEPTH, GUARD_NODES)
    }

    /// The best action for the side to move by a search of at most
    /// `nodes` nodes, with its value; `None` when the game is over.
    ///
    /// ```
    /// use baghchal_engine::Engine;
    /// use baghchal_rules::Position;
    /// let best = Engine::new().best(&Position::default(), 20_000).unwrap();
    /// assert!(Position::default().is_legal(&best.action));
    /// ```
    pub fn best(&self, position: &Position, nodes: u64) -> Option<Scored> {
        if position.is_finished() {
            return None;
        }
        if let Some(scored) = self.tablebase_best(position) {
            return Some(scored);
        }
        let mut search = Search::new(position, self.tablebase(), 18);
        let report = search.run(&Limits {
            depth: 64,
            nodes,
            all_root_scores: false,
        });
        let (action, score) = report.scored[0];
        Some(Scored {
            action,
            value: Value::from_score(score),
        })
    }

    /// Every legal action of `position` with its value for the side to
    /// move, best first, from one search of at most `nodes` nodes that
    /// scores each action exactly rather than only the best one (so it
    /// costs more per depth than [`Engine::best`]). Empty when the game is
    /// over.
    ///
    /// ```
    /// use baghchal_engine::Engine;
    /// use baghchal_rules::Position;
    /// let position = Position::default();
    /// let scored = Engine::new().score_actions(&position, 50_000);
    /// assert_eq!(scored.len(), position.legal_actions().len());
    /// assert!(scored.windows(2).all(|w| w[0].value >= w[1].value));
    /// ```
    pub fn score_actions(&self, position: &Position, nodes: u64) -> Vec<Scored> {
        if position.is_finished() {
            return Vec::new();
        }
        let mut search = Search::new(position, self.tablebase(), 18);
        let report = search.run(&Limits {
            depth: 64,
            nodes,
            all_root_scores: true,
        });
        report
            .scored
            .into_iter()
            .map(|(action, score)| Scored {
                action,
                value: Value::from_score(score),
            })
            .collect()
    }

    /// The actions of the side to move after which the opponent can force
    /// no more captures than after the best one, by a search that counts
    /// only the goats eaten and reduces nothing, iterated up to `depth`
    /// plies within `nodes` nodes; `None` when the game is over or not even
    /// one ply finished. For the goats this is the set of actions that give
    /// no goat away by force within the depth reached.
    ///
    /// ```
    /// use baghchal_engine::Engine;
    /// use baghchal_rules::{Position, Rules};
    /// // The goat on b4 hangs to the tiger on a5 unless c3 is filled.
    /// let text = "T...T/.G.../...../...../T...T g 19 0 2";
    /// let position = Position::from_text(text, Rules::default()).unwrap();
    /// let keeping = Engine::new().keeping(&position, 4, 1_000_000).unwrap();
    /// assert_eq!(keeping.depth, 4);
    /// assert_eq!(keeping.actions, vec!["c3".parse().unwrap()]);
    /// ```
    pub fn keeping(&self, position: &Position, depth: u8, nodes: u64) -> Option<Keeping> {
        if position.is_finished() {
            return None;
        }
        let mut search = Search::material(position, self.tablebase(), 18);
        let (actions, depth) = search.keeping(depth, nodes)?;
        Some(Keeping {
            actions,
            depth,
            nodes: search.nodes(),
        })
    }

    /// The tablebase's value of `position` for the side to move, if it
    /// covers the position and the win or loss fits in the ply limit.
    pub fn probe(&self, position: &Position) -> Option<Value> {
        let tablebase = self.tablebase()?;
        if position.phase() != Phase::Movement || *position.rules() != Rules::default() {
            return None;
        }
        let probe = tablebase.probe(position)?;
        let fits =
            position.ply() as u32 + probe.distance as u32 <= position.rules().ply_limit() as u32;
        match probe.wdl {
            Wdl::Win if fits => Some(Value::Win {
                plies: probe.distance,
            }),
            Wdl::Loss if fits => Some(Value::Loss {
                plies: probe.distance,
            }),
            _ => None,
        }
    }

    /// The action that converts a tablebase win fastest, with its value.
    fn tablebase_best(&self, position: &Position) -> Option<Scored> {
        let action = self.convert(position)?;
        let plies = match self.probe(position)? {
            Value::Win { plies } => plies,
            _ => return None,
        };
        Some(Scored {
            action,
            value: Value::Win { plies },
        })
    }

    /// In a tablebase win, the legal action that shortens the distance
    /// most while staying within the ply limit: a finished win first, then
    /// the successor lost for the opponent in the fewest plies. Legal
    /// actions never repeat a position, and every step of the conversion
    /// lowers the distance, so the route never comes back. `None` when the
    /// tablebase does not cover the position, it is not a win, or no
    /// action keeps the win (the caller searches then).
    fn convert(&self, position: &Position) -> Option<Action> {
        let Value::Win { plies } = self.probe(position)? else {
            return None;
        };
        let me = position.side_to_move();
        let mut best: Option<(u16, Action)> = None;
        for action in position.legal_actions() {
            let mut next = position.clone();
            next.play_unchecked(action);
            let distance = match next.outcome() {
                Some(o) if o.winner() == Some(me) => 0,
                Some(_) => continue,
                None => match self.probe(&next) {
                    Some(Value::Loss { plies: d }) if d < plies => d,
                    _ => continue,
                },
            };
            if best.is_none_or(|(d, _)| distance < d) {
                best = Some((distance, action));
            }
        }
        best.map(|(_, action)| action)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use baghchal_rules::{Game, RulesOptions, Side};

    fn play_out(engine: &Engine, rules: Rules, goat: Level, tiger: Level, seed: u64) -> Game {
        let mut game = Game::new(rules);
        while !game.is_finished() {
            let pos = game.position();
            let level = match pos.side_to_move() {
                Side::Goat => goat,
                Side::Tiger => tiger,
            };
            let action = engine
                .choose(pos, level, seed ^ pos.ply() as u64)
                .expect("an unfinished game has an action");
            game.play(action).expect("the engine plays legal actions");
        }
        game
    }

    fn after(line: &str) -> Position {
        let mut position = Position::default();
        for action in line.split_whitespace() {
            position.play_mut(action.parse().unwrap()).unwrap();
        }
        position
    }

    #[test]
    fn the_top_level_no_longer_plays_a_placement_a_deeper_search_scores_far_below_the_best() {
        // Reached by 2400 as the goats against ab9 (docs/strength.md, the
        // placement): its own search places c5, after which a search of
        // ten times its nodes scores the goats at -4.45; that search's
        // best, d1, at -3.78.
        let text = "T...T/G..../G...G/T...G/GGG.T g 13 0 14";
        let position = Position::from_text(text, Rules::default()).unwrap();
        let searching = Engine::new()
            .with_book(PlacementBook::new())
            .without_guard();
        let c5: Action = "c5".parse().unwrap();
        assert_eq!(searching.choose(&position, Level::MAX, 0), Some(c5));
        let engine = Engine::new();
        let thought = engine.think(&position, Level::MAX, 0).unwrap();
        assert_eq!(thought.action, "d1".parse().unwrap());
        assert_eq!(thought.depth, 0, "the book's placement");
        // The same position mirrored left to right.
        let mirrored = "T...T/....G/G...G/G...T/T.GGG g 13 0 14";
        let mirrored = Position::from_text(mirrored, Rules::default()).unwrap();
        let thought = engine.think(&mirrored, Level::MAX, 0).unwrap();
        assert_eq!(thought.action, "b1".parse().unwrap());
    }

    #[test]
    fn the_top_level_keeps_the_goats_its_search_alone_gave_away() {
        // 2400 as the goats against ab10 (docs/strength/goats-vs-deep,
        // game 31): after this opening its search placed a1, and the
        // tigers took two goats in the next four plies (c2xa2, b4xd2).
        let position = after("c3 a1-b2 d4 b2-c2 b2 a5-b4");
        let a1: Action = "a1".parse().unwrap();
        let unguarded = Engine::new().without_guard();
        assert_eq!(unguarded.choose(&position, Level::MAX, 0), Some(a1));
        let engine = Engine::new();
        let keeping = engine.keeping(&position, 12, 3_000_000).unwrap();
        assert!(keeping.depth >= 10, "{keeping:?}");
        assert!(!keeping.actions.contains(&a1), "{keeping:?}");
        let chosen = engine.choose(&position, Level::MAX, 0).unwrap();
        assert!(keeping.actions.contains(&chosen), "{chosen} {keeping:?}");
        // The line of the outside analysis (docs/strength.md): its book
        // places b2, which a 13-ply search found to give a goat away.
        let position = after("a3 a1-b1 a4 b1-c1");
        let b2: Action = "b2".parse().unwrap();
        assert_eq!(unguarded.choose(&position, Level::MAX, 0), Some(b2));
        let keeping = engine.keeping(&position, 10, 3_000_000).unwrap();
        assert_eq!(keeping.depth, 10);
        assert!(!keeping.actions.contains(&b2), "{keeping:?}");
        let chosen = engine.choose(&position, Level::MAX, 0).unwrap();
        assert!(keeping.actions.contains(&chosen), "{chosen} {keeping:?}");
        // The levels below the top search every placement, as they were
        // measured.
        let level = Level::new(2300).unwrap();
        assert_eq!(
            engine.choose(&position, level, 0),
            unguarded.choose(&position, level, 0)
        );
    }

    #[test]
    fn the_levels_below_the_top_search_the_placements_the_book_holds() {
        let position = after("a3 a1-b1 a4 b1-c1");
        assert!(Engine::new().book().get(&position).is_some());
        let level = Level::new(2300).unwrap();
        let thought = Engine::new().think(&position, level, 0).unwrap();
        assert!(thought.nodes > 0);
        let searching = Engine::new().with_book(PlacementBook::new());
        assert_eq!(Some(thought.action), searching.choose(&position, level, 0));
    }

    #[test]
    fn a_finished_game_has_no_action() {
        let pos = Position::from_text("T...T/...../...../.G.../T...T g 14 5 10", Rules::default());
        let pos = pos.expect("a won position");
        assert!(pos.is_finished());
        assert_eq!(Engine::new().choose(&pos, Level::MAX, 0), None);
    }

    #[test]
    fn the_same_seed_gives_the_same_choice() {
        let engine = Engine::new();
        let mut pos = Position::default();
        for text in ["c3", "a1-b2", "b4"] {
            pos.play_mut(text.parse().unwrap()).unwrap();
        }
        for level in [Level::MIN, Level::new(1200).unwrap()] {
            for seed in 0..5 {
                assert_eq!(
                    engine.choose(&pos, level, seed),
                    engine.choose(&pos, level, seed)
                );
            }
        }
    }

    #[test]
    fn the_weakest_level_varies_with_the_seed() {
        let engine = Engine::new();
        let pos = Position::default();
        let choices: std::collections::HashSet<Action> = (0..20)
            .map(|seed| engine.choose(&pos, Level::MIN, seed).unwrap())
            .collect();
        assert!(choices.len() > 3, "{choices:?}");
    }

    #[test]
    fn every_variant_plays_to_the_end_with_legal_actions() {
        let engine = Engine::new();
        let house = RulesOptions::default();
        for opts in [
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
                goats_to_win: Some(3),
                ..house
            },
            RulesOptions {
                repetition: baghchal_rules::Repetition::ThreefoldDraw,
                ply_limit: 80,
                ..house
            },
        ] {
            let rules = Rules::new(opts).unwrap();
            let game = play_out(
                &engine,
                rules,
                Level::new(900).unwrap(),
                Level::new(700).unwrap(),
                3,
            );
            assert!(game.outcome().is_some());
        }
    }

    #[test]
    fn a_strong_goat_side_beats_the_weakest_tigers() {
        let engine = Engine::new();
        let strong = Level::new(1600).unwrap();
        for seed in 0..2 {
            let game = play_out(&engine, Rules::default(), strong, Level::MIN, seed);
            assert_ne!(
                game.outcome().unwrap().winner(),
                Some(Side::Tiger),
                "{}",
                game.record()
            );
        }
    }

    #[test]
    fn strong_tigers_beat_the_weakest_goats() {
        let engine = Engine::new();
        let strong = Level::new(1600).unwrap();
        for seed in 0..2 {
            let game = play_out(&engine, Rules::default(), Level::MIN, strong, seed);
            assert_eq!(
                game.outcome().unwrap().winner(),
                Some(Side::Tiger),
                "{}",
                game.record()
            );
        }
    }
}
