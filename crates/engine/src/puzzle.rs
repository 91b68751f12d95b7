//! Puzzles from the solved movement phase and the last plies of the
//! placement phase (solved in full down to the tablebase,
//! `puzzle_placement.rs`): positions where the side to move has exactly
//! one action that keeps its best result, with a solution line in which
//! every move of the solver is the only one that keeps it and every reply
//! is the best defence, checked by
//! playing the line under the house rules from the puzzle's own start
//! (its repetition record begins there).
//!
//! Two kinds:
//! - a win: the solver wins in [`MIN_WIN`] to [`MAX_WIN`] plies, and at each of its
//!   turns exactly one legal action keeps the win; the line ends with the
//!   game won by the rules;
//! - holding the draw: the goats to move in a drawn position, where every
//!   legal action but one loses (the tablebase's result) and the one keeps
//!   the draw.
//!
//! Themes are detected from the line, never guessed: `capture` (the
//! solver jumps), `trap` (the goats win by trapping every tiger),
//! `last_tiger` (the goats' last move traps the last free tiger),
//! `hold_draw`, `block` (the tigers win by leaving the goats no action),
//! `endgame` (three or more goats eaten at the start), `placement` (the
//! start is in the placement phase).
//!
//! They are found in and around recorded games ([`Engine::find_puzzles`])
//! and right after the blunders of played games
//! ([`Engine::find_blunder_puzzles`]). A set is text, one puzzle a line
//! (see [`Puzzle::to_line`]), shipped with the engine ([`shipped`]) and
//! built by `baghchal puzzles build`.

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

use baghchal_rules::{Action, Phase, Position, Rules, Side};

use crate::{Engine, Value};

pub use crate::puzzle_placement::{plies_to_movement, PLACEMENT_PLIES};

/// The longest win a puzzle asks for, in plies (four moves of the solver).
pub const MAX_WIN: u16 = 7;
/// The shortest: a win in one (any capture of the last goat, say) is no
/// puzzle.
pub const MIN_WIN: u16 = 3;

/// The Glicko-2 deviation of a puzzle's rating before anyone has tried
/// it.
pub const START_DEVIATION: u16 = 350;

/// The points of the mover's share of the game (a win 100, a draw 50, a
/// loss 0) from which the review marks an action a blunder
/// (`docs/review.md`): a puzzle from a played game starts right after one.
pub const BLUNDER_POINTS: u8 = 15;

/// The nodes of the search that judges a position the tablebase does not
/// cover, as the review's (only the goats' last placement reaches it
/// here, and every action of that reaches the tablebase).
const JUDGE_NODES: u64 = 20_000;

/// What a puzzle is about, detected from its line.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Theme {
    /// The solver captures a goat on the way.
    Capture,
    /// The goats win by trapping every tiger.
    Trap,
    /// The goats' last move traps the last tiger that could move.
    LastTiger,
    /// The goats keep a drawn position with its only drawing action.
    HoldDraw,
    /// The tigers win by leaving the goats no legal action.
    Block,
    /// Three or more goats have been eaten.
    Endgame,
    /// The start is in the placement phase (within [`PLACEMENT_PLIES`] of
    /// the movement phase).
    Placement,
}

impl Theme {
    /// Every theme, in order.
    pub const ALL: [Theme; 7] = [
        Theme::Capture,
        Theme::Trap,
        Theme::LastTiger,
        Theme::HoldDraw,
        Theme::Block,
        Theme::Endgame,
        Theme::Placement,
    ];

    /// The theme's name: `capture`, `trap`, `last_tiger`, `hold_draw`,
    /// `block`, `endgame`, `placement`.
    pub fn name(self) -> &'static str {
        match self {
            Theme::Capture => "capture",
            Theme::Trap => "trap",
            Theme::LastTiger => "last_tiger",
            Theme::HoldDraw => "hold_draw",
            Theme::Block => "block",
            Theme::Endgame => "endgame",
            Theme::Placement => "placement",
        }
    }
}

impl FromStr for Theme {
    type Err = String;

    fn from_str(s: &str) -> Result<Theme, String> {
        Theme::ALL
            .into_iter()
            .find(|t| t.name() == s)
            .ok_or_else(|| format!("unknown theme {s:?}"))
    }
}

/// One puzzle.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Puzzle {
    /// A stable id: the start position's key in hex.
    pub id: String,
    /// The start (movement phase, house rules), the solver to move.
    pub start: Position,
    /// The line: the solver's action, the reply, the solver's, ...; it
    /// ends with the solver's action.
    pub solution: Vec<Action>,
    /// What it is about.
    pub themes: BTreeSet<Theme>,
    /// Its starting rating (Glicko-2 scale), from the solver's moves.
    pub rating: u16,
    /// Where it was found: in a recorded game (`game`), one action off
    /// one (`tablebase`), or right after a blunder in a played game
    /// (`blunder`).
    pub origin: Origin,
}

/// Where a puzzle was found.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Origin {
    /// A position of a recorded game.
    Game,
    /// A position one action off a recorded game's, found by the
    /// tablebase.
    Tablebase,
    /// The position right after an action of a played game that the
    /// review marks a blunder ([`BLUNDER_POINTS`]).
    Blunder,
}

impl Origin {
    /// Its name in a set's file: `game`, `tablebase`, `blunder`.
    pub fn name(self) -> &'static str {
        match self {
            Origin::Game => "game",
            Origin::Tablebase => "tablebase",
            Origin::Blunder => "blunder",
        }
    }
}

impl Puzzle {
    /// The side that solves it.
    pub fn solver(&self) -> Side {
        self.start.side_to_move()
    }

    /// One line of text: `ID<TAB>POSITION<TAB>SOLUTION<TAB>THEMES<TAB>RATING<TAB>ORIGIN`,
    /// the solution and the themes separated by spaces.
    pub fn to_line(&self) -> String {
        let solution: Vec<String> = self.solution.iter().map(Action::to_string).collect();
        let themes: Vec<&str> = self.themes.iter().map(|t| t.name()).collect();
        let origin = self.origin.name();
        format!(
            "{}\t{}\t{}\t{}\t{}\t{origin}",
            self.id,
            self.start,
            solution.join(" "),
            themes.join(" "),
            self.rating
        )
    }

    /// Reads a line of [`Puzzle::to_line`] and checks its line under the
    /// house rules ([`Puzzle::check`]).
    ///
    /// ```
    /// use baghchal_engine::puzzle::Puzzle;
    /// let line = "p1\tT...T/GGGGG/GG.GG/GGGGG/TG.GT t 0 4 100\ta1xc3\tcapture endgame\t900\tgame";
    /// let puzzle = Puzzle::from_line(line).unwrap();
    /// assert_eq!(puzzle.to_line(), line);
    /// assert!(Puzzle::from_line("p1\tT...T/GGGGG/GG.GG/GGGGG/TG.GT t 0 4 100\ta1-b2\t\t900\tgame").is_err());
    /// ```
    pub fn from_line(line: &str) -> Result<Puzzle, String> {
        let fields: Vec<&str> = line.split('\t').collect();
        let [id, start, solution, themes, rating, origin] = fields[..] else {
            return Err(format!("{} fields, not 6", fields.len()));
        };
        let start = Position::from_text(start, Rules::default()).map_err(|e| e.to_string())?;
        let solution = solution
            .split_whitespace()
            .map(|a| a.parse::<Action>().map_err(|e| e.to_string()))
            .collect::<Result<Vec<_>, _>>()?;
        let themes = themes
            .split_whitespace()
            .map(Theme::from_str)
            .collect::<Result<_, _>>()?;
        let rating = rating.parse().map_err(|_| format!("rating {rating:?}"))?;
        let origin = [Origin::Game, Origin::Tablebase, Origin::Blunder]
            .into_iter()
            .find(|o| o.name() == origin)
            .ok_or_else(|| format!("origin {origin:?}"))?;
        let puzzle = Puzzle {
            id: id.to_owned(),
            start,
            solution,
            themes,
            rating,
            origin,
        };
        puzzle.check()?;
        Ok(puzzle)
    }

    /// Plays the line under the house rules from the puzzle's start (its
    /// repetition record begins there): every action legal, the solver
    /// given a choice at each of its turns (a forced action is no
    /// puzzle), and a win puzzle's line ends with the solver's win by the
    /// rules.
    pub fn check(&self) -> Result<(), String> {
        if self.solution.is_empty() || self.solution.len().is_multiple_of(2) {
            return Err("the line ends with the solver's action".into());
        }
        let mut position = self.start.clone();
        for (i, &action) in self.solution.iter().enumerate() {
            if i % 2 == 0 && position.legal_actions().len() < 2 {
                return Err(format!("ply {}: {action} is the only legal action", i + 1));
            }
            position
                .play_mut(action)
                .map_err(|e| format!("ply {}: {action}: {e}", i + 1))?;
        }
        if self.themes.contains(&Theme::HoldDraw) {
            return match position.outcome() {
                None => Ok(()),
                Some(_) => Err("holding the draw ends no game".into()),
            };
        }
        match position.outcome().and_then(|o| o.winner()) {
            Some(w) if w == self.solver() => Ok(()),
            _ => Err("the line does not end with the solver's win".into()),
        }
    }

    /// Whether `played` (the actions so far, solver's and replies) follows
    /// the line.
    pub fn follows(&self, played: &[Action]) -> bool {
        played.len() <= self.solution.len() && self.solution[..played.len()] == *played
    }
}

/// The set shipped with the engine (`crates/engine/data/puzzles.txt`).
pub fn shipped() -> &'static [Puzzle] {
    static SHIPPED: std::sync::OnceLock<Vec<Puzzle>> = std::sync::OnceLock::new();
    SHIPPED.get_or_init(|| {
        include_str!("../data/puzzles.txt")
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .filter_map(|l| Puzzle::from_line(l).ok())
            .collect()
    })
}

/// The shipped puzzle of this id, if any.
///
/// ```
/// use baghchal_engine::puzzle::{find, shipped};
/// let first = &shipped()[0];
/// assert_eq!(find(&first.id), Some(first));
/// assert_eq!(find("nonsense"), None);
/// ```
pub fn find(id: &str) -> Option<&'static Puzzle> {
    static INDEX: std::sync::OnceLock<std::collections::HashMap<&'static str, usize>> =
        std::sync::OnceLock::new();
    let index = INDEX.get_or_init(|| {
        shipped()
            .iter()
            .enumerate()
            .map(|(i, p)| (p.id.as_str(), i))
            .collect()
    });
    index.get(id).map(|&i| &shipped()[i])
}

impl Engine {
    /// The puzzles of recorded games: every movement-phase position of
    /// each game that is a puzzle ([`Origin::Game`]), and every position
    /// one legal action off one of those ([`Origin::Tablebase`]), each
    /// once, ordered by id.
    pub fn find_puzzles(&self, games: &[baghchal_rules::Game]) -> Vec<Puzzle> {
        let mut found: std::collections::BTreeMap<String, Puzzle> = Default::default();
        let mut seen = std::collections::HashSet::new();
        let mut consider = |position: &Position, origin: Origin| {
            if !seen.insert((position.key(), position.eaten(), position.ply())) {
                return;
            }
            // Read back from text, as the puzzle starts: its record is
            // itself alone.
            let Ok(fresh) = Position::from_text(&position.to_string(), Rules::default()) else {
                return;
            };
            if let Some(puzzle) = self.puzzle_at(&fresh, origin) {
                found.entry(puzzle.id.clone()).or_insert(puzzle);
            }
        };
        for game in games {
            let mut position = game.start().clone();
            let mut positions = vec![position.clone()];
            for &action in game.actions() {
                position.play_unchecked(action);
                positions.push(position.clone());
            }
            for position in &positions {
                if plies_to_movement(position) > PLACEMENT_PLIES || position.is_finished() {
                    continue;
                }
                consider(position, Origin::Game);
                for action in position.legal_actions() {
                    let mut next = position.clone();
                    next.play_unchecked(action);
                    consider(&next, Origin::Tablebase);
                }
            }
        }
        found.into_values().collect()
    }

    /// The puzzles right after the blunders of played games: every
    /// action the review marks a blunder (it gives away
    /// [`BLUNDER_POINTS`] or more of the mover's share of the game, the
    /// values judged as the review judges them, the game's repetition
    /// record included) whose position after it is in the movement phase
    /// and a puzzle for the opponent ([`Origin::Blunder`]: the only action
    /// that wins, or for the goats the only one that keeps the draw), read
    /// back from its text so that its record begins there. Each once,
    /// ordered by id.
    pub fn find_blunder_puzzles(&self, games: &[baghchal_rules::Game]) -> Vec<Puzzle> {
        let mut found: std::collections::BTreeMap<String, Puzzle> = Default::default();
        for game in games {
            if *game.rules() != Rules::default() {
                continue;
            }
            let mut position = game.start().clone();
            let mut positions = vec![position.clone()];
            for &action in game.actions() {
                position.play_unchecked(action);
                positions.push(position.clone());
            }
            for (i, &action) in game.actions().iter().enumerate() {
                let after = &positions[i + 1];
                if plies_to_movement(after) > PLACEMENT_PLIES || after.is_finished() {
                    continue;
                }
                let before = self.judge(&positions[i], &positions[..i], JUDGE_NODES);
                let judged = self.judge(after, &positions[..=i], JUDGE_NODES);
                let analysis = crate::ActionAnalysis {
                    ply: positions[i].ply(),
                    side: positions[i].side_to_move(),
                    action,
                    before: before.value,
                    before_source: before.source,
                    before_solved: before.solved,
                    after: judged.value.flip(),
                    after_source: judged.source,
                    after_solved: judged.solved.map(Value::flip),
                    best: before.best.unwrap_or(action),
                };
                if analysis.lost() < BLUNDER_POINTS {
                    continue;
                }
                let Ok(fresh) = Position::from_text(&after.to_string(), Rules::default()) else {
                    continue;
                };
                if let Some(puzzle) = self.puzzle_at(&fresh, Origin::Blunder) {
                    found.entry(puzzle.id.clone()).or_insert(puzzle);
                }
            }
        }
        found.into_values().collect()
    }

    /// The puzzle that starts at `position`, if it is one (see the
    /// module): `None` without a tablebase, in another variant, more than
    /// [`PLACEMENT_PLIES`] before the movement phase, or where the side to
    /// move has no single action that keeps its result.
    pub fn puzzle_at(&self, position: &Position, origin: Origin) -> Option<Puzzle> {
        if plies_to_movement(position) > PLACEMENT_PLIES
            || *position.rules() != Rules::default()
            || position.is_finished()
        {
            return None;
        }
        let solver = position.side_to_move();
        let value = self.exact(position)?;
        let mut themes = BTreeSet::new();
        if position.eaten() >= 3 {
            themes.insert(Theme::Endgame);
        }
        if position.phase() == Phase::Placement {
            themes.insert(Theme::Placement);
        }
        let solution = match value {
            Value::Win { plies } if (MIN_WIN..=MAX_WIN).contains(&plies) => {
                self.winning_line(position)?
            }
            Value::Draw if solver == Side::Goat => {
                let only = self.only_keeping(position, Value::Draw)?;
                themes.insert(Theme::HoldDraw);
                vec![only]
            }
            _ => return None,
        };
        let mut line = position.clone();
        let mut trapped_before_last = 0;
        for (i, &action) in solution.iter().enumerate() {
            if i % 2 == 0 && action.is_capture() {
                themes.insert(Theme::Capture);
            }
            if i + 1 == solution.len() {
                trapped_before_last = line.trapped_tigers();
            }
            line.play_unchecked(action);
        }
        if line.is_finished() {
            match solver {
                Side::Goat if line.trapped_tigers() == 4 => {
                    themes.insert(Theme::Trap);
                    if trapped_before_last == 3 {
                        themes.insert(Theme::LastTiger);
                    }
                }
                Side::Tiger
                    if line.outcome().map(|o| o.reason())
                        == Some(baghchal_rules::Reason::GoatsBlocked) =>
                {
                    themes.insert(Theme::Block);
                }
                _ => {}
            }
        }
        let solver_moves = solution.len().div_ceil(2) as u16;
        let rating = if themes.contains(&Theme::HoldDraw) {
            1300
        } else {
            900 + 200 * (solver_moves - 1)
        };
        // The key names the board and the side to move; the goats in
        // hand (none in the movement phase) tell a placement position from
        // a movement one of the same board.
        let id = position.key() | (u64::from(position.in_hand()) << 56);
        let puzzle = Puzzle {
            id: format!("{id:016x}"),
            start: position.clone(),
            solution,
            themes,
            rating,
            origin,
        };
        puzzle.check().ok()?;
        Some(puzzle)
    }

    /// The solver's line to the win: at each of its turns the only action
    /// that keeps the win, each reply the longest defence.
    fn winning_line(&self, start: &Position) -> Option<Vec<Action>> {
        let mut position = start.clone();
        let mut line = Vec::new();
        loop {
            let only = self.only_keeping(&position, Value::Win { plies: 0 })?;
            position.play_mut(only).ok()?;
            line.push(only);
            if position.is_finished() {
                return Some(line);
            }
            let reply = self.best_reply(&position)?;
            position.play_mut(reply).ok()?;
            line.push(reply);
            if position.is_finished() || line.len() > MAX_WIN as usize {
                return None;
            }
        }
    }

    /// The one legal action that keeps a result as good as `keep` (a win
    /// of any length, or a draw), when exactly one does.
    fn only_keeping(&self, position: &Position, keep: Value) -> Option<Action> {
        let me = position.side_to_move();
        let mut keeping = position.legal_actions().into_iter().filter(|&action| {
            let mut next = position.clone();
            next.play_unchecked(action);
            let value = match next.outcome() {
                Some(o) => match o.winner() {
                    Some(w) if w == me => Value::Win { plies: 1 },
                    Some(_) => Value::Loss { plies: 1 },
                    None => Value::Draw,
                },
                None => match self.exact(&next) {
                    Some(v) => v.flip(),
                    None => return false,
                },
            };
            match keep {
                Value::Win { .. } => matches!(value, Value::Win { .. }),
                _ => value >= Value::Draw,
            }
        });
        let only = keeping.next()?;
        keeping.next().is_none().then_some(only)
    }
}

impl fmt::Display for Theme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_puzzle_reads_and_its_line_holds_under_the_house_rules() {
        let text = include_str!("../data/puzzles.txt");
        let lines: Vec<&str> = text
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .collect();
        assert_eq!(shipped().len(), lines.len(), "every line reads");
        let mut ids = BTreeSet::new();
        for puzzle in shipped() {
            assert!(ids.insert(puzzle.id.clone()), "{} twice", puzzle.id);
            assert_eq!(puzzle.check(), Ok(()), "{}", puzzle.id);
        }
    }

    #[test]
    fn the_shipped_placement_puzzles_start_within_reach_of_the_movement_phase() {
        let placement: Vec<&Puzzle> = shipped()
            .iter()
            .filter(|p| p.start.phase() == Phase::Placement)
            .collect();
        assert!(!placement.is_empty());
        for puzzle in shipped() {
            let in_placement = puzzle.start.phase() == Phase::Placement;
            assert_eq!(
                puzzle.themes.contains(&Theme::Placement),
                in_placement,
                "{}",
                puzzle.id
            );
            assert!(plies_to_movement(&puzzle.start) <= PLACEMENT_PLIES);
        }
    }

    #[test]
    fn a_line_that_does_not_win_is_refused() {
        let start = "T...T/GGGGG/GG.GG/GGGGG/TG.GT t 0 4 100";
        let wins = format!("p\t{start}\ta1xc3\tcapture\t900\tgame");
        assert!(Puzzle::from_line(&wins).is_ok());
        let steps = format!("p\t{start}\ta5-b5\t\t900\tgame");
        assert!(Puzzle::from_line(&steps).is_err());
        let even = format!("p\t{start}\ta5-b5 c4-c3\t\t900\tgame");
        assert!(Puzzle::from_line(&even).is_err());
    }

    #[test]
    fn a_line_with_a_forced_action_of_the_solver_is_refused() {
        // The tigers' one legal action here is the capture that opens the line.
        let forced = "p\tTG.G./TGGG./GTGGG/GGGG./TGGGG t 0 3 223\ta5xc5 d5-e5 b3xb5\tcapture endgame\t1100\ttablebase";
        let err = Puzzle::from_line(forced).unwrap_err();
        assert_eq!(err, "ply 1: a5xc5 is the only legal action");
        let start = "T...T/GGGGG/GG.GG/GGGGG/TG.GT t 0 4 100";
        let chosen = format!("p\t{start}\ta1xc3\tcapture\t900\tgame");
        assert!(Puzzle::from_line(&chosen).is_ok());
    }

    #[test]
    fn a_puzzle_is_followed_move_by_move() {
        let line = "p\tT...T/GGGGG/GG.GG/GGGGG/TG.GT t 0 4 100\ta1xc3\tcapture endgame\t900\tgame";
        let puzzle = Puzzle::from_line(line).unwrap();
        assert!(puzzle.follows(&[]));
        assert!(puzzle.follows(&["a1xc3".parse().unwrap()]));
        assert!(!puzzle.follows(&["a5xc3".parse().unwrap()]));
    }
}
