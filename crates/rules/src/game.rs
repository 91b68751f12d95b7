//! A game from its start: the actions played, the position they lead to,
//! and the endings decided outside the board (resignation, agreed draw, a
//! flag, a claim against an absent player, an abort); with its text
//! record.

use std::fmt;
use std::str::FromStr;

use crate::{
    Action, IllegalAction, Outcome, ParseActionError, ParseRulesError, ParseSetupError, Position,
    PositionError, Reason, Rules, Setup, Side,
};

/// A game: where it started, what was played, and how it ended.
///
/// ```
/// use baghchal_rules::{Game, Reason, Rules, Side};
/// let mut game = Game::new(Rules::default());
/// game.play("c3".parse().unwrap()).unwrap();
/// game.resign(Side::Tiger).unwrap();
/// assert_eq!(game.outcome().unwrap().winner(), Some(Side::Goat));
/// assert_eq!(game.outcome().unwrap().reason(), Reason::Resignation);
/// let record = game.record().to_string();
/// assert_eq!(record.parse::<baghchal_rules::Record>().unwrap().replay().unwrap(), game);
/// ```
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Game {
    start: Position,
    actions: Vec<Action>,
    position: Position,
    decided: Option<Outcome>,
}

impl Game {
    /// A new game at the start of `rules`.
    pub fn new(rules: Rules) -> Game {
        Game::from_position(Position::new(rules))
    }

    /// A game from `start`.
    pub fn from_position(start: Position) -> Game {
        Game {
            position: start.clone(),
            start,
            actions: Vec::new(),
            decided: None,
        }
    }

    /// The rules of the game.
    pub fn rules(&self) -> &Rules {
        self.start.rules()
    }

    /// Where the game started.
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The actions played, in order.
    pub fn actions(&self) -> &[Action] {
        &self.actions
    }

    /// How the game ended, by the rules or by the players.
    pub fn outcome(&self) -> Option<Outcome> {
        self.decided.or(self.position.outcome())
    }

    /// Whether the game is over.
    pub fn is_finished(&self) -> bool {
        self.outcome().is_some()
    }

    /// Plays `action`; an illegal one changes nothing.
    pub fn play(&mut self, action: Action) -> Result<(), IllegalAction> {
        if self.decided.is_some() {
            return Err(IllegalAction::GameOver);
        }
        self.position.play_mut(action)?;
        self.actions.push(action);
        Ok(())
    }

    /// Plays `action` without checking it: the game must not be decided
    /// and `action` must be one of the position's legal actions
    /// ([`Position::legal_actions`]), for a caller that keeps that list
    /// and has looked it up already; otherwise the game that results is
    /// unspecified, as with [`Position::play_unchecked`].
    ///
    /// ```
    /// use baghchal_rules::{Game, Rules};
    /// let mut game = Game::new(Rules::default());
    /// let action = game.position().legal_actions()[0];
    /// game.play_unchecked(action);
    /// assert_eq!(game.actions(), &[action]);
    /// ```
    pub fn play_unchecked(&mut self, action: Action) {
        self.position.play_unchecked(action);
        self.actions.push(action);
    }

    /// `side` resigns: the other side wins.
    pub fn resign(&mut self, side: Side) -> Result<(), IllegalAction> {
        self.decide(Outcome::win(side.other(), Reason::Resignation))
    }

    /// Both players agree a draw.
    pub fn agree_draw(&mut self) -> Result<(), IllegalAction> {
        self.decide(Outcome::draw(Reason::Agreement))
    }

    /// `side`'s time ran out: the other side wins, unless it could not
    /// possibly win any more ([`Game::could_win`]), which is a draw.
    ///
    /// ```
    /// use baghchal_rules::{Game, Outcome, Reason, Rules, Side};
    /// let mut game = Game::new(Rules::default());
    /// game.time_out(Side::Goat).unwrap();
    /// assert_eq!(game.outcome(), Some(Outcome::win(Side::Tiger, Reason::Timeout)));
    /// ```
    pub fn time_out(&mut self, side: Side) -> Result<(), IllegalAction> {
        let winner = side.other();
        let outcome = if self.could_win(winner) {
            Outcome::win(winner, Reason::Timeout)
        } else {
            Outcome::draw(Reason::Timeout)
        };
        self.decide(outcome)
    }

    /// Whether `side` could still win with the pieces it has, by some
    /// sequence of actions. The tigers always could: fewer goats are ever
    /// needed to reach the capture target than are left. The goats could
    /// while they have at least [`goats_to_trap`] goats left (on the board
    /// and in hand), the fewest that can trap the tigers anywhere.
    pub fn could_win(&self, side: Side) -> bool {
        match side {
            Side::Tiger => true,
            Side::Goat => {
                let rules = self.rules();
                let left = rules.total_goats().saturating_sub(self.position.eaten());
                left >= goats_to_trap(rules.tigers())
            }
        }
    }

    /// The player of `side` claims the game of an opponent who left: a
    /// win for `side`, or a draw when `win` is false.
    pub fn claim(&mut self, side: Side, win: bool) -> Result<(), IllegalAction> {
        self.decide(if win {
            Outcome::win(side, Reason::Abandoned)
        } else {
            Outcome::draw(Reason::Abandoned)
        })
    }

    /// The game is called off: no result (an outcome with no winner and
    /// the reason [`Reason::Aborted`], which is not a draw).
    pub fn abort(&mut self) -> Result<(), IllegalAction> {
        self.decide(Outcome::draw(Reason::Aborted))
    }

    /// Whether each side has yet to make its first action: the time in
    /// which a game may be aborted.
    pub fn before_both_moved(&self) -> bool {
        self.actions.len() < 2
    }

    fn decide(&mut self, outcome: Outcome) -> Result<(), IllegalAction> {
        if self.is_finished() {
            return Err(IllegalAction::GameOver);
        }
        self.decided = Some(outcome);
        Ok(())
    }

    /// The text record of the game.
    pub fn record(&self) -> Record {
        let start = self.start.setup();
        Record {
            rules: *self.rules(),
            start: (start != Setup::start(self.rules())).then_some(start),
            actions: self.actions.clone(),
            result: self.outcome(),
        }
    }
}

/// The fewest goats that can trap `tigers` tigers (4 or 3) anywhere on
/// the board: every point next to a tiger and every landing point beyond
/// such a goat must be taken. Ten for four tigers (on a column's four
/// points a1..a4), eight for three (in a corner).
pub const fn goats_to_trap(tigers: u8) -> u8 {
    if tigers <= 3 {
        8
    } else {
        10
    }
}

/// A game record: rules, start, actions and result, in a line-based text.
///
/// ```text
/// rules standard
/// start T...T/...../...../...../T...T g 20 0 0
/// actions c3 a1-b2 b3
/// result goats resignation
/// ```
///
/// `start` is left out for the start position of the rules, `result` for
/// an unfinished game; a result is `goats REASON`, `tigers REASON` or
/// `draw REASON`.
///
/// ```
/// use baghchal_rules::Record;
/// let text = "rules multi-jump\nactions c3 a1-a2\n";
/// let record: Record = text.parse().unwrap();
/// assert_eq!(record.to_string(), text);
/// let game = record.replay().unwrap();
/// assert_eq!(game.position().ply(), 2);
/// ```
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Record {
    /// The rules.
    pub rules: Rules,
    /// The starting setup, `None` for the rules' start.
    pub start: Option<Setup>,
    /// The actions, in order.
    pub actions: Vec<Action>,
    /// The result, `None` while unfinished.
    pub result: Option<Outcome>,
}

/// Why a record text could not be read.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ParseRecordError {
    /// A line that does not start with `rules`, `start`, `actions` or
    /// `result`, or one of them twice (line number from 1).
    Line(usize),
    /// The `rules` line.
    Rules(ParseRulesError),
    /// The `start` line.
    Start(ParseSetupError),
    /// An action (index from 0).
    Action {
        /// Index of the action.
        index: usize,
        /// What is wrong with it.
        error: ParseActionError,
    },
    /// The `result` line.
    Result,
}

impl fmt::Display for ParseRecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseRecordError::Line(n) => {
                write!(f, "line {n}: expected rules, start, actions or result")
            }
            ParseRecordError::Rules(e) => write!(f, "rules: {e}"),
            ParseRecordError::Start(e) => write!(f, "start: {e}"),
            ParseRecordError::Action { index, error } => write!(f, "action {}: {error}", index + 1),
            ParseRecordError::Result => {
                f.write_str("result: expected goats, tigers or draw and a reason")
            }
        }
    }
}

impl std::error::Error for ParseRecordError {}

/// Why a record does not replay.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ReplayError {
    /// The start is not a position of the rules.
    Start(PositionError),
    /// An action is illegal where it stands (index from 0).
    Action {
        /// Index of the action.
        index: usize,
        /// Why it is illegal.
        reason: IllegalAction,
    },
    /// The stated result is not what the actions lead to.
    Result,
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::Start(e) => write!(f, "start: {e}"),
            ReplayError::Action { index, reason } => write!(f, "action {}: {reason}", index + 1),
            ReplayError::Result => f.write_str("the result does not follow from the actions"),
        }
    }
}

impl std::error::Error for ReplayError {}

impl Record {
    /// Plays the record from its start, checking every action and the
    /// result.
    pub fn replay(&self) -> Result<Game, ReplayError> {
        let start = self.start.unwrap_or_else(|| Setup::start(&self.rules));
        let start = Position::from_setup(start, self.rules).map_err(ReplayError::Start)?;
        let mut game = Game::from_position(start);
        for (index, action) in self.actions.iter().enumerate() {
            game.play(*action)
                .map_err(|reason| ReplayError::Action { index, reason })?;
        }
        match (self.result, game.outcome()) {
            (None, None) => {}
            (Some(stated), Some(found)) if stated == found => {}
            (Some(stated), None) => {
                let valid = match (stated.reason(), stated.winner()) {
                    (Reason::Resignation, Some(winner)) => game.resign(winner.other()).is_ok(),
                    (Reason::Agreement, None) => game.agree_draw().is_ok(),
                    // A draw on time: the tigers flagged against goats that
                    // could not win.
                    (Reason::Timeout, winner) => {
                        let flagged = winner.map_or(Side::Tiger, Side::other);
                        game.time_out(flagged).is_ok() && game.outcome() == Some(stated)
                    }
                    (Reason::Abandoned, Some(winner)) => game.claim(winner, true).is_ok(),
                    (Reason::Abandoned, None) => game.claim(Side::Goat, false).is_ok(),
                    (Reason::Aborted, None) => game.before_both_moved() && game.abort().is_ok(),
                    _ => false,
                };
                if !valid {
                    return Err(ReplayError::Result);
                }
            }
            _ => return Err(ReplayError::Result),
        }
        Ok(game)
    }
}

impl fmt::Display for Record {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "rules {}", self.rules)?;
        if let Some(start) = &self.start {
            writeln!(f, "start {start}")?;
        }
        write!(f, "actions")?;
        for action in &self.actions {
            write!(f, " {action}")?;
        }
        writeln!(f)?;
        if let Some(result) = &self.result {
            let who = result.winner().map_or("draw", Side::name);
            writeln!(f, "result {who} {}", result.reason())?;
        }
        Ok(())
    }
}

impl FromStr for Record {
    type Err = ParseRecordError;

    fn from_str(s: &str) -> Result<Record, ParseRecordError> {
        let mut rules = None;
        let mut start = None;
        let mut actions = None;
        let mut result = None;
        for (n, line) in s.lines().enumerate() {
            let line = line.trim_end_matches('\r');
            if line.trim().is_empty() {
                continue;
            }
            let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
            let duplicate = ParseRecordError::Line(n + 1);
            match key {
                "rules" if rules.is_none() => {
                    rules = Some(rest.parse::<Rules>().map_err(ParseRecordError::Rules)?)
                }
                "start" if start.is_none() => {
                    start = Some(rest.parse::<Setup>().map_err(ParseRecordError::Start)?)
                }
                "actions" if actions.is_none() => {
                    let list = rest
                        .split_whitespace()
                        .enumerate()
                        .map(|(index, a)| {
                            a.parse::<Action>()
                                .map_err(|error| ParseRecordError::Action { index, error })
                        })
                        .collect::<Result<Vec<_>, _>>()?;
                    actions = Some(list);
                }
                "result" if result.is_none() => {
                    let (who, reason) = rest.split_once(' ').ok_or(ParseRecordError::Result)?;
                    let reason: Reason = reason.parse().map_err(|_| ParseRecordError::Result)?;
                    let outcome = match who {
                        "goats" => Outcome::win(Side::Goat, reason),
                        "tigers" => Outcome::win(Side::Tiger, reason),
                        "draw" => Outcome::draw(reason),
                        _ => return Err(ParseRecordError::Result),
                    };
                    result = Some(outcome);
                }
                _ => return Err(duplicate),
            }
        }
        Ok(Record {
            rules: rules.unwrap_or_default(),
            start,
            actions: actions.unwrap_or_default(),
            result,
        })
    }
}
