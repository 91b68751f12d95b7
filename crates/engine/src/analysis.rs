//! Post-game analysis: for every action of a game, what the position was
//! worth to the mover before it, what it was worth after it, and the
//! action the engine preferred, so that a page can show where the game
//! turned.

use std::cmp::Ordering;
use std::fmt;

use baghchal_rules::{Action, Game, Position, Side};

use crate::search::{WIN, WON};
use crate::Engine;

/// What a position is worth to one side.
///
/// Ordered from that side's point of view: any win beats any score, a
/// shorter win beats a longer one, a longer loss beats a shorter one.
///
/// ```
/// use baghchal_engine::Value;
/// assert!(Value::Win { plies: 3 } > Value::Win { plies: 9 });
/// assert!(Value::Win { plies: 99 } > Value::Score(5_000));
/// assert!(Value::Score(-5_000) > Value::Loss { plies: 40 });
/// assert!(Value::Draw == Value::Score(0).max(Value::Draw).min(Value::Draw));
/// assert_eq!(Value::Win { plies: 4 }.flip(), Value::Loss { plies: 4 });
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Value {
    /// The side wins in this many plies with best play (0: it has won).
    Win {
        /// Plies to the win, counted from the position.
        plies: u16,
    },
    /// The side loses in this many plies against best play (0: it has lost).
    Loss {
        /// Plies to the loss, counted from the position.
        plies: u16,
    },
    /// The game is drawn (by the rules; a search gives a `Score`).
    Draw,
    /// The search's estimate, in thousandths of a goat (a captured goat is
    /// worth 1000); positive is good for the side.
    Score(i32),
}

impl Value {
    /// The value for the other side.
    pub fn flip(self) -> Value {
        match self {
            Value::Win { plies } => Value::Loss { plies },
            Value::Loss { plies } => Value::Win { plies },
            Value::Draw => Value::Draw,
            Value::Score(s) => Value::Score(-s),
        }
    }

    /// One number on the search's scale, for comparing and plotting: wins
    /// are near +30000, losses near -30000, a draw is 0.
    pub fn score(self) -> i32 {
        match self {
            Value::Win { plies } => WIN - plies as i32,
            Value::Loss { plies } => -WIN + plies as i32,
            Value::Draw => 0,
            Value::Score(s) => s,
        }
    }

    /// A search score read back as a value.
    pub(crate) fn from_score(score: i32) -> Value {
        if score > WON {
            Value::Win {
                plies: (WIN - score) as u16,
            }
        } else if score < -WON {
            Value::Loss {
                plies: (WIN + score) as u16,
            }
        } else {
            Value::Score(score)
        }
    }
}

impl PartialOrd for Value {
    fn partial_cmp(&self, other: &Value) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Value {
    fn cmp(&self, other: &Value) -> Ordering {
        self.score().cmp(&other.score())
    }
}

impl fmt::Display for Value {
    /// `win 12`, `loss 3`, `draw`, or a score in goats such as `+1.25`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Win { plies } => write!(f, "win {plies}"),
            Value::Loss { plies } => write!(f, "loss {plies}"),
            Value::Draw => f.write_str("draw"),
            Value::Score(s) => write!(f, "{:+.2}", *s as f64 / 1000.0),
        }
    }
}

/// Where a value comes from.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Source {
    /// The game is over: the rules' result.
    Rules,
    /// The movement-phase tablebase: exact.
    Tablebase,
    /// A bounded search: an estimate (exact when it is a win or a loss).
    Search,
}

/// The analysis of one action of a game.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ActionAnalysis {
    /// The ply at which the action was played (0 for the first action).
    pub ply: u16,
    /// The side that played it.
    pub side: Side,
    /// The action played.
    pub action: Action,
    /// The position's value for the mover before the action, with the
    /// engine's best play.
    pub before: Value,
    /// Where `before` comes from.
    pub before_source: Source,
    /// The value for the mover after the action.
    pub after: Value,
    /// Where `after` comes from.
    pub after_source: Source,
    /// The engine's preferred action in the position before (it may be the
    /// one played).
    pub best: Action,
}

impl ActionAnalysis {
    /// How much the action gave away, on the scale of [`Value::score`]:
    /// 0 for the best action, large for the action that turned a won or
    /// drawn game. Never negative (an action that does better than the
    /// estimate costs nothing).
    pub fn cost(&self) -> i32 {
        (self.before.score() - self.after.score()).max(0)
    }
}

impl Engine {
    /// Analyses every action of `game`: the value before and after it
    /// for the side that played it (the tablebase where it covers the
    /// position, else a search of `nodes` nodes per position) and the
    /// engine's preferred action. The game need not be finished; an
    /// ending by resignation or agreement does not change the values,
    /// which are those of the board.
    ///
    /// A game of n actions costs n + 1 searches; at 200,000 nodes a
    /// position takes a few tens of milliseconds.
    ///
    /// ```
    /// use baghchal_engine::{Engine, Value};
    /// use baghchal_rules::Game;
    ///
    /// let mut game = Game::new(baghchal_rules::Rules::default());
    /// for text in ["c3", "a1-b2", "b4"] {
    ///     game.play(text.parse().unwrap()).unwrap();
    /// }
    /// let analysis = Engine::new().analyse(&game, 5_000);
    /// assert_eq!(analysis.len(), 3);
    /// assert_eq!(analysis[1].action.to_string(), "a1-b2");
    /// assert!(analysis.iter().all(|a| a.cost() >= 0));
    /// ```
    pub fn analyse(&self, game: &Game, nodes: u64) -> Vec<ActionAnalysis> {
        let mut positions = Vec::with_capacity(game.actions().len() + 1);
        let mut position = game.start().clone();
        positions.push(position.clone());
        for &action in game.actions() {
            position.play_unchecked(action);
            positions.push(position.clone());
        }
        let values: Vec<(Value, Source, Option<Action>)> =
            positions.iter().map(|p| self.value(p, nodes)).collect();
        game.actions()
            .iter()
            .enumerate()
            .map(|(i, &action)| {
                let (before, before_source, best) = values[i];
                let (after, after_source, _) = values[i + 1];
                ActionAnalysis {
                    ply: positions[i].ply(),
                    side: positions[i].side_to_move(),
                    action,
                    before,
                    before_source,
                    after: after.flip(),
                    after_source,
                    best: best.unwrap_or(action),
                }
            })
            .collect()
    }

    /// The value of `position` for its side to move, where it comes from,
    /// and the best action.
    fn value(&self, position: &Position, nodes: u64) -> (Value, Source, Option<Action>) {
        if let Some(outcome) = position.outcome() {
            let value = match outcome.winner() {
                None => Value::Draw,
                Some(w) if w == position.side_to_move() => Value::Win { plies: 0 },
                Some(_) => Value::Loss { plies: 0 },
            };
            return (value, Source::Rules, None);
        }
        let best = self.best(position, nodes).expect("an unfinished position");
        match self.probe(position) {
            Some(value) => (value, Source::Tablebase, Some(best.action)),
            None => (best.value, Source::Search, Some(best.action)),
        }
    }
}

/// A legal action with what playing it is worth to the side to move.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ActionValue {
    /// The action.
    pub action: Action,
    /// Its value for the side to move, counted in plies from the position
    /// before it (`Win { plies: 1 }`: the action wins).
    pub value: Value,
    /// Where the value comes from.
    pub source: Source,
}

impl Engine {
    /// Every legal action of `position` with its value for the side to
    /// move, best first: the rules' result for an action that ends the
    /// game, the tablebase's exact value where it covers the position the
    /// action leads to, and otherwise one search of at most `nodes` nodes
    /// that scores all the remaining actions. Empty when the game is over.
    /// The position's repetition record is its own: an action it forbids
    /// is not listed.
    ///
    /// ```
    /// use baghchal_engine::{Engine, Source, Value};
    /// use baghchal_rules::{Position, Rules};
    ///
    /// // Four goats eaten: every jump takes the fifth and wins.
    /// let pos = Position::from_text("T...T/GGGGG/GG.GG/GGGGG/TG.GT t 0 4 100", Rules::default()).unwrap();
    /// let values = Engine::new().value_actions(&pos, 5_000);
    /// assert_eq!(values.len(), pos.legal_actions().len());
    /// assert_eq!(values[0].value, Value::Win { plies: 1 });
    /// assert_eq!(values[0].source, Source::Rules);
    /// assert!(values.windows(2).all(|w| w[0].value >= w[1].value));
    /// ```
    pub fn value_actions(&self, position: &Position, nodes: u64) -> Vec<ActionValue> {
        let me = position.side_to_move();
        let mut known: Vec<(Action, Option<(Value, Source)>)> = position
            .legal_actions()
            .into_iter()
            .map(|action| {
                let mut next = position.clone();
                next.play_unchecked(action);
                let value = match next.outcome() {
                    Some(o) => Some((
                        match o.winner() {
                            None => Value::Draw,
                            Some(w) if w == me => Value::Win { plies: 1 },
                            Some(_) => Value::Loss { plies: 1 },
                        },
                        Source::Rules,
                    )),
                    None => self
                        .probe(&next)
                        .map(|v| (one_ply_earlier(v.flip()), Source::Tablebase)),
                };
                (action, value)
            })
            .collect();
        if known.iter().any(|(_, v)| v.is_none()) {
            let scored = self.score_actions(position, nodes);
            for (action, value) in &mut known {
                if value.is_none() {
                    *value = scored
                        .iter()
                        .find(|s| s.action == *action)
                        .map(|s| (s.value, Source::Search));
                }
            }
        }
        let mut values: Vec<ActionValue> = known
            .into_iter()
            .filter_map(|(action, value)| {
                value.map(|(value, source)| ActionValue {
                    action,
                    value,
                    source,
                })
            })
            .collect();
        values.sort_by_key(|v| std::cmp::Reverse(v.value));
        values
    }
}

/// A value seen one ply further from its result.
fn one_ply_earlier(value: Value) -> Value {
    match value {
        Value::Win { plies } => Value::Win { plies: plies + 1 },
        Value::Loss { plies } => Value::Loss { plies: plies + 1 },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use baghchal_rules::{Rules, Side};

    #[test]
    fn the_values_of_the_actions_leave_out_what_the_repetition_rule_forbids() {
        let mut pos =
            Position::from_text("T...T/GGGGG/GG.GG/GGGGG/TG.GT t 0 4 100", Rules::default())
                .expect("a valid position");
        for text in ["a5-b5", "c4-c3", "b5-a5"] {
            pos.play_mut(text.parse().unwrap()).unwrap();
        }
        let back: Action = "c3-c4".parse().unwrap();
        assert!(
            !pos.is_legal(&back),
            "c3-c4 would repeat the first position"
        );
        let values = Engine::new().value_actions(&pos, 5_000);
        let listed: Vec<Action> = values.iter().map(|v| v.action).collect();
        let mut legal = pos.legal_actions();
        legal.sort_by_key(|a| a.to_string());
        let mut sorted = listed.clone();
        sorted.sort_by_key(|a| a.to_string());
        assert_eq!(sorted, legal);
        assert!(!listed.contains(&back));
        assert!(values.iter().all(|v| v.source == Source::Search));
        assert!(values.windows(2).all(|w| w[0].value >= w[1].value));
    }

    #[test]
    fn a_finished_position_has_no_action_values() {
        let pos = Position::from_text("T...T/...../...../.G.../T...T g 14 5 10", Rules::default())
            .expect("a won position");
        assert!(Engine::new().value_actions(&pos, 1_000).is_empty());
    }

    #[test]
    fn a_blunder_that_hangs_the_fifth_goat_has_the_largest_cost() {
        // Four goats eaten; the goats place on b2 next to the tiger on a1
        // with c3 empty behind it, and the tigers take the fifth goat.
        let start = Position::from_text("T...T/...../...../...../T...T g 16 4 8", Rules::default())
            .expect("a valid position");
        let mut game = Game::from_position(start);
        for text in ["b2", "a1xc3"] {
            game.play(text.parse().unwrap()).unwrap();
        }
        assert_eq!(game.outcome().unwrap().winner(), Some(Side::Tiger));
        let analysis = Engine::new().analyse(&game, 20_000);
        assert_eq!(analysis.len(), 2);
        let blunder = analysis[0];
        assert_eq!(blunder.side, Side::Goat);
        assert_eq!(blunder.after, Value::Loss { plies: 1 });
        assert_eq!(blunder.after_source, Source::Search);
        assert!(blunder.before > blunder.after);
        assert_ne!(blunder.best.to_string(), "b2");
        let capture = analysis[1];
        assert_eq!(capture.before, Value::Win { plies: 1 });
        assert_eq!(capture.after, Value::Win { plies: 0 });
        assert_eq!(capture.after_source, Source::Rules);
        assert_eq!(capture.cost(), 0);
    }
}
