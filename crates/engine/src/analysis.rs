//! Post-game analysis: for every action of a game, what the position was
//! worth to the mover before it, what it was worth after it, and the
//! action the engine preferred, so that a page can show where the game
//! turned.

use baghchal_rules::{Action, Game, Phase, Position, Rules, Side};
use baghchal_tablebase::Wdl;

use crate::proof::Prover;
use crate::value::Value;
use crate::Engine;

/// The longest win or loss, in plies, that a proof under the house rules
/// is looked for.
const PROOF_DEPTH: u16 = 40;

/// How much longer than the tablebase's distance a proof is looked for
/// where a recorded position lies on the winner's route.
const DETOUR: u16 = 8;

/// What kind of value a value is: where it comes from and how far it can
/// be trusted under the house rules.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Source {
    /// The game is over: the rules' result.
    Rules,
    /// Solved: the movement-phase tablebase's result for the board and the
    /// side to move (a win, a draw or a loss, with the distance in plies
    /// under best play). The tablebase ignores the repetition record and
    /// the ply limit, so the house rules can make the game go otherwise.
    Solved,
    /// Proved under the house rules: a win or a loss that comes within
    /// the value's plies whatever the loser does, the repetition record
    /// and the ply limit included. Either the tablebase's win or loss,
    /// where no position the game has recorded lies on the winner's
    /// shortening route (see [`Engine::judge`]), or a search's.
    Proved,
    /// A bounded search's estimate: always a [`Value::Score`], read as
    /// the goats' winning chance by [`crate::chance`].
    Search,
}

/// What is known of a position for its side to move.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Judgement {
    /// The value for the side to move.
    pub value: Value,
    /// What kind of value it is.
    pub source: Source,
    /// The tablebase's value for the board, where a proof under the house
    /// rules differs from it (the repetition rule makes a loss come
    /// sooner, or a recorded position makes the winner go round it).
    pub solved: Option<Value>,
    /// The engine's preferred action; `None` once the game is over.
    pub best: Option<Action>,
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
    /// What kind of value `before` is.
    pub before_source: Source,
    /// The tablebase's value of the position before, where `before` is
    /// proved under the house rules and differs from it.
    pub before_solved: Option<Value>,
    /// The value for the mover after the action.
    pub after: Value,
    /// What kind of value `after` is.
    pub after_source: Source,
    /// The tablebase's value for the mover after the action, where
    /// `after` is proved under the house rules and differs from it.
    pub after_solved: Option<Value>,
    /// The engine's preferred action in the position before (it may be the
    /// one played).
    pub best: Action,
}

impl ActionAnalysis {
    /// What the action gave away, in percentage points of the mover's
    /// share of the game (a win 100, a draw 50, a loss 0, an estimate its
    /// winning chance, see [`crate::chance::percent_for`]): 0 for the
    /// best action, 50 for turning a win into a draw or a draw into a
    /// loss. Never negative. An action from an estimate into a draw gives
    /// nothing away: the estimate's chance averages games that went on
    /// from positions like it, while the draw is the result of best play.
    ///
    /// ```
    /// use baghchal_engine::{ActionAnalysis, Source, Value};
    /// use baghchal_rules::Side;
    /// let turned = ActionAnalysis {
    ///     ply: 61,
    ///     side: Side::Goat,
    ///     action: "b2-c3".parse().unwrap(),
    ///     before: Value::Draw,
    ///     before_source: Source::Solved,
    ///     before_solved: None,
    ///     after: Value::Loss { plies: 12 },
    ///     after_source: Source::Proved,
    ///     after_solved: None,
    ///     best: "b2-b1".parse().unwrap(),
    /// };
    /// assert_eq!(turned.lost(), 50);
    /// ```
    pub fn lost(&self) -> u8 {
        if self.before_source == Source::Search && self.after == Value::Draw {
            return 0;
        }
        let before = crate::chance::percent_for(self.before, self.side);
        let after = crate::chance::percent_for(self.after, self.side);
        before.saturating_sub(after)
    }
}

impl Engine {
    /// Analyses every action of `game`: the value before and after it
    /// for the side that played it, what kind of value each is (see
    /// [`Engine::judge`]), and the engine's preferred action. The game
    /// need not be finished; an ending by resignation or agreement does
    /// not change the values, which are those of the board.
    ///
    /// A game of n actions costs at most n + 1 searches of `nodes`
    /// nodes; at 20,000 nodes a position takes about ten milliseconds.
    ///
    /// ```
    /// use baghchal_engine::{Engine, Source, Value};
    /// use baghchal_rules::Game;
    ///
    /// let mut game = Game::new(baghchal_rules::Rules::default());
    /// for text in ["c3", "a1-b2", "b4"] {
    ///     game.play(text.parse().unwrap()).unwrap();
    /// }
    /// let analysis = Engine::new().analyse(&game, 5_000);
    /// assert_eq!(analysis.len(), 3);
    /// assert_eq!(analysis[1].action.to_string(), "a1-b2");
    /// assert!(analysis.iter().all(|a| a.after_source == Source::Search));
    /// ```
    pub fn analyse(&self, game: &Game, nodes: u64) -> Vec<ActionAnalysis> {
        let positions = positions_of(game);
        let judged: Vec<Judgement> = (0..positions.len())
            .map(|i| self.judge(&positions[i], &positions[..i], nodes))
            .collect();
        game.actions()
            .iter()
            .enumerate()
            .map(|(i, &action)| {
                let before = judged[i];
                let after = judged[i + 1];
                ActionAnalysis {
                    ply: positions[i].ply(),
                    side: positions[i].side_to_move(),
                    action,
                    before: before.value,
                    before_source: before.source,
                    before_solved: before.solved,
                    after: after.value.flip(),
                    after_source: after.source,
                    after_solved: after.solved.map(Value::flip),
                    best: before.best.unwrap_or(action),
                }
            })
            .collect()
    }

    /// What is known of `position` for its side to move, reached through
    /// `history` (the positions before it, oldest first, from which its
    /// repetition record was made; empty for a position read from text).
    ///
    /// - A finished game: the rules' result ([`Source::Rules`]).
    /// - A position the tablebase covers (the movement phase of the house
    ///   rules): the tablebase's result, [`Source::Proved`] where it is a
    ///   win or a loss within the ply limit and no recorded position lies
    ///   on the winner's route, else [`Source::Solved`]. The winner's
    ///   route passes only through positions of a shorter distance (each
    ///   of the winner's actions lowers it, and so does each of the
    ///   loser's), so the route never repeats itself, and it can only be
    ///   cut by a position recorded before: one with the winner to move
    ///   and a shorter win, or the loser to move and a shorter loss. Where
    ///   the record holds none, the repetition rule only takes actions
    ///   from the loser, and the result comes within the distance. A
    ///   tablebase draw is never proved: the repetition rule can end it.
    ///   A win or a loss is then searched under the house rules, at most
    ///   40 plies deep, with the position's repetition record (see
    ///   [`Engine::proof_nodes`]): a shorter result where the tablebase's
    ///   holds, the result at all where a recorded position cuts its
    ///   route. What that proves is [`Source::Proved`] with its own
    ///   distance, and the tablebase's value in [`Judgement::solved`]
    ///   where the two differ.
    /// - A position each of whose actions ends the game or reaches the
    ///   tablebase (the goats' last placement): the best of those values.
    /// - Elsewhere a search of at most `nodes` nodes: a win or a loss it
    ///   finds is proved (its tablebase leaves are the first positions of
    ///   the movement phase, which have recorded nothing but themselves),
    ///   any other score is an estimate ([`Source::Search`]).
    ///
    /// ```
    /// use baghchal_engine::{Engine, Source, Value};
    /// use baghchal_rules::{Position, Rules};
    /// // Four goats eaten and a jump on: the tigers win in one, proved.
    /// let pos = Position::from_text("T...T/GGGGG/GG.GG/GGGGG/TG.GT t 0 4 100", Rules::default()).unwrap();
    /// let judged = Engine::new().judge(&pos, &[], 5_000);
    /// assert_eq!(judged.value, Value::Win { plies: 1 });
    /// assert_eq!(judged.source, Source::Proved);
    /// ```
    pub fn judge(&self, position: &Position, history: &[Position], nodes: u64) -> Judgement {
        if let Some(outcome) = position.outcome() {
            let value = match outcome.winner() {
                None => Value::Draw,
                Some(w) if w == position.side_to_move() => Value::Win { plies: 0 },
                Some(_) => Value::Loss { plies: 0 },
            };
            return Judgement {
                value,
                source: Source::Rules,
                solved: None,
                best: None,
            };
        }
        if let Some(solved) = self.solved(position) {
            let holds = self.tablebase_holds(position, solved, history, None);
            let known = self.under_house_rules(position, solved, holds);
            let best = known.action.or_else(|| self.best_by_tablebase(position));
            return Judgement {
                value: known.value,
                source: known.source,
                solved: known.solved,
                best,
            };
        }
        let successors = self.known_actions(position, history);
        if let Some(values) = successors
            .iter()
            .map(|(a, v)| v.map(|known| (*a, known)))
            .collect::<Option<Vec<_>>>()
        {
            if let Some(judged) = best_of(&values) {
                return judged;
            }
        }
        let best = self.best(position, nodes).expect("an unfinished position");
        Judgement {
            value: best.value,
            source: searched(best.value),
            solved: None,
            best: Some(best.action),
        }
    }

    /// The tablebase's win or loss `solved` of `position` under the house
    /// rules: a proof search (see [`crate::proof`]) with the position's
    /// repetition record, within [`Engine::proof_nodes`] nodes, for a distance of
    /// at most [`PROOF_DEPTH`] plies. Where the tablebase's result
    /// `holds` (see [`Engine::judge`]) it looks for a shorter one;
    /// where a recorded position lies on the winner's route, for one at
    /// most [`DETOUR`] plies longer. Without a proof, the tablebase's
    /// value: proved where it holds, else solved.
    fn under_house_rules(&self, position: &Position, solved: Value, holds: bool) -> Known {
        let unproved = Known {
            value: solved,
            source: if holds {
                Source::Proved
            } else {
                Source::Solved
            },
            solved: None,
            action: None,
        };
        let (winner, distance) = match solved {
            Value::Win { plies } => (position.side_to_move(), plies),
            Value::Loss { plies } => (position.side_to_move().other(), plies),
            _ => return unproved,
        };
        let most = if holds {
            match distance.checked_sub(2) {
                Some(most) => most,
                None => return unproved,
            }
        } else {
            distance.saturating_add(DETOUR)
        };
        if most > PROOF_DEPTH || position.phase() != Phase::Movement {
            return unproved;
        }
        let mut prover = Prover::new(position, self.tablebase(), winner, self.proof_nodes());
        let Some(proof) = prover.shortest(most) else {
            return unproved;
        };
        let value = if proof.winner == position.side_to_move() {
            Value::Win { plies: proof.plies }
        } else {
            Value::Loss { plies: proof.plies }
        };
        Known {
            value,
            source: Source::Proved,
            solved: (value != solved).then_some(solved),
            action: proof.action,
        }
    }

    /// The tablebase's value of `position` for the side to move, draws
    /// included and whatever the ply limit: `None` where it does not cover
    /// the position (no tablebase, the placement phase, another variant).
    pub fn solved(&self, position: &Position) -> Option<Value> {
        let tablebase = self.tablebase()?;
        if position.phase() != Phase::Movement || *position.rules() != Rules::default() {
            return None;
        }
        let probe = tablebase.probe(position)?;
        Some(match probe.wdl {
            Wdl::Win => Value::Win {
                plies: probe.distance,
            },
            Wdl::Loss => Value::Loss {
                plies: probe.distance,
            },
            Wdl::Draw => Value::Draw,
        })
    }

    /// Whether the tablebase's win or loss `value` of `position` holds
    /// under the house rules, reached through `history` (see
    /// [`Engine::judge`]): within the ply limit, and no position of its
    /// repetition record but itself lies on the winner's route. A recorded
    /// position that `history` does not show cannot be ruled out.
    fn tablebase_holds(
        &self,
        position: &Position,
        value: Value,
        history: &[Position],
        last: Option<&Position>,
    ) -> bool {
        let (winner, distance) = match value {
            Value::Win { plies } => (position.side_to_move(), plies),
            Value::Loss { plies } => (position.side_to_move().other(), plies),
            _ => return false,
        };
        if position.ply() as u32 + distance as u32 > position.rules().ply_limit() as u32 {
            return false;
        }
        let own = position.key();
        let mut unseen: std::collections::HashSet<u64> = position
            .repetition_record()
            .iter()
            .copied()
            .filter(|&key| key != own)
            .collect();
        // The recorded positions, each once, from the latest back.
        for recorded in last.into_iter().chain(history.iter().rev()) {
            if unseen.is_empty() {
                break;
            }
            if !unseen.remove(&recorded.key()) {
                continue;
            }
            let on_route = match self.solved(recorded) {
                Some(Value::Win { plies }) => recorded.side_to_move() == winner && plies < distance,
                Some(Value::Loss { plies }) => {
                    recorded.side_to_move() != winner && plies < distance
                }
                Some(_) => false,
                None => true,
            };
            if on_route {
                return false;
            }
        }
        // A recorded position the history does not show cannot be ruled out.
        unseen.is_empty()
    }

    /// The legal action whose successor the tablebase values best for the
    /// side to move (the shortest win, the draw, the longest loss).
    pub(crate) fn best_by_tablebase(&self, position: &Position) -> Option<Action> {
        let me = position.side_to_move();
        position
            .legal_actions()
            .into_iter()
            .filter_map(|action| {
                let mut next = position.clone();
                next.play_unchecked(action);
                let value = match next.outcome() {
                    Some(o) => rules_value(o.winner(), me),
                    None => one_ply_earlier(self.solved(&next)?.flip()),
                };
                Some((value, action))
            })
            .max_by_key(|&(value, _)| value)
            .map(|(_, action)| action)
    }

    /// Every legal action of `position` with its value and kind where the
    /// rules or the tablebase know where it leads (`None` elsewhere),
    /// reached through `history`.
    fn known_actions(
        &self,
        position: &Position,
        history: &[Position],
    ) -> Vec<(Action, Option<Known>)> {
        let me = position.side_to_move();
        position
            .legal_actions()
            .into_iter()
            .map(|action| {
                let mut next = position.clone();
                next.play_unchecked(action);
                let value = match next.outcome() {
                    Some(o) => Some(Known {
                        value: rules_value(o.winner(), me),
                        source: Source::Rules,
                        solved: None,
                        action: None,
                    }),
                    None => self.solved(&next).map(|solved| {
                        let holds = self.tablebase_holds(&next, solved, history, Some(position));
                        let known = self.under_house_rules(&next, solved, holds);
                        Known {
                            value: one_ply_earlier(known.value.flip()),
                            source: known.source,
                            solved: known.solved.map(|v| one_ply_earlier(v.flip())),
                            action: None,
                        }
                    }),
                };
                (action, value)
            })
            .collect()
    }
}

/// The positions of a game, its start first and its last position last.
pub(crate) fn positions_of(game: &Game) -> Vec<Position> {
    let mut positions = Vec::with_capacity(game.actions().len() + 1);
    let mut position = game.start().clone();
    positions.push(position.clone());
    for &action in game.actions() {
        position.play_unchecked(action);
        positions.push(position.clone());
    }
    positions
}

/// The kind of a search's value: a win or a loss is proved, a score an
/// estimate.
fn searched(value: Value) -> Source {
    match value {
        Value::Score(_) => Source::Search,
        _ => Source::Proved,
    }
}

/// The value of an action that ends the game with `winner`, for `me`.
pub(crate) fn rules_value(winner: Option<Side>, me: Side) -> Value {
    match winner {
        None => Value::Draw,
        Some(w) if w == me => Value::Win { plies: 1 },
        Some(_) => Value::Loss { plies: 1 },
    }
}

/// A position's judgement from the values of all its actions: the best
/// value, proved where the proved values alone settle it (a proved win,
/// or every action proved), else solved. `None` without an action.
fn best_of(values: &[(Action, Known)]) -> Option<Judgement> {
    let &(action, best) = values.iter().max_by_key(|v| v.1.value)?;
    let proved = |s: Source| matches!(s, Source::Proved | Source::Rules);
    let settled = (matches!(best.value, Value::Win { .. }) && proved(best.source))
        || values.iter().all(|v| proved(v.1.source));
    Some(Judgement {
        value: best.value,
        source: if settled {
            Source::Proved
        } else {
            Source::Solved
        },
        solved: None,
        best: Some(action),
    })
}

/// A value known without a search of the position itself: the rules',
/// the tablebase's, or a proof's.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Known {
    value: Value,
    source: Source,
    /// The tablebase's value where a proof differs from it.
    solved: Option<Value>,
    /// A proof's first action for the winner to move.
    action: Option<Action>,
}

/// A legal action with what playing it is worth to the side to move.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ActionValue {
    /// The action.
    pub action: Action,
    /// Its value for the side to move, counted in plies from the position
    /// before it (`Win { plies: 1 }`: the action wins).
    pub value: Value,
    /// What kind of value it is.
    pub source: Source,
    /// The tablebase's value of the action, where `value` is proved under
    /// the house rules and differs from it.
    pub solved: Option<Value>,
}

impl Engine {
    /// Every legal action of `position` with its value for the side to
    /// move, best first: the rules' result for an action that ends the
    /// game, the tablebase's where it covers the position the action
    /// leads to (proved or solved, as [`Engine::judge`] tells them apart,
    /// with the position read as having no history: a position read from
    /// text, or the start of a line), and otherwise one search of at most
    /// `nodes` nodes that scores all the remaining actions (a win or a
    /// loss proved, a score an estimate). Empty when the game is over.
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
        self.value_actions_after(position, &[], nodes)
    }

    /// [`Engine::value_actions`] for the last position of `game`, whose
    /// earlier positions show what its repetition record holds.
    pub fn value_line(&self, game: &Game, nodes: u64) -> Vec<ActionValue> {
        let positions = positions_of(game);
        let (last, history) = positions.split_last().expect("a game has a start");
        self.value_actions_after(last, history, nodes)
    }

    fn value_actions_after(
        &self,
        position: &Position,
        history: &[Position],
        nodes: u64,
    ) -> Vec<ActionValue> {
        let mut known = self.known_actions(position, history);
        if known.iter().any(|(_, v)| v.is_none()) {
            let scored = self.score_actions(position, nodes);
            for (action, value) in &mut known {
                if value.is_none() {
                    *value = scored.iter().find(|s| s.action == *action).map(|s| Known {
                        value: s.value,
                        source: searched(s.value),
                        solved: None,
                        action: None,
                    });
                }
            }
        }
        let mut values: Vec<ActionValue> = known
            .into_iter()
            .filter_map(|(action, known)| {
                known.map(|known| ActionValue {
                    action,
                    value: known.value,
                    source: known.source,
                    solved: known.solved,
                })
            })
            .collect();
        values.sort_by_key(|v| std::cmp::Reverse(v.value));
        values
    }
}

/// A value seen one ply further from its result.
pub(crate) fn one_ply_earlier(value: Value) -> Value {
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
        assert!(values
            .iter()
            .all(|v| matches!(v.source, Source::Search | Source::Proved)));
        assert!(values
            .iter()
            .all(|v| (v.source == Source::Search) == matches!(v.value, Value::Score(_))));
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
        assert_eq!(blunder.after_source, Source::Proved);
        assert_eq!(
            blunder.lost(),
            crate::chance::percent_for(blunder.before, Side::Goat)
        );
        assert!(blunder.before > blunder.after);
        assert_ne!(blunder.best.to_string(), "b2");
        let capture = analysis[1];
        assert_eq!(capture.before, Value::Win { plies: 1 });
        assert_eq!(capture.after, Value::Win { plies: 0 });
        assert_eq!(capture.after_source, Source::Rules);
        assert_eq!(capture.lost(), 0);
    }
}
