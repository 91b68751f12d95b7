//! Game notations other programs use, read and written: this project's
//! own [`record`](crate::Record), the PyPI `baghchal` package's PGN-like
//! move list and FEN-like position ([`pypi`]), and OBX 2.0, the notation of
//! baghchal.net ([`obx`]). `docs/notation.md` compares them.
//!
//! Reading a game replays it under the rules the notation names: a text
//! that does not parse is refused with its line, and an action that is not
//! legal where it stands with its ply and the rules' reason.
//!
//! ```
//! use baghchal_rules::notation::{self, Format};
//! use baghchal_rules::Rules;
//!
//! let game = notation::read(Format::Pypi, "1. G33 B5142", Rules::default()).unwrap();
//! assert_eq!(game.position().to_string(), "T...T/...../..G../.T.../....T g 19 0 2");
//! let obx = notation::write(Format::Obx, &game).unwrap();
//! assert_eq!(notation::read(Format::Obx, &obx, Rules::default()).unwrap().actions(), game.actions());
//!
//! let err = notation::read(Format::Pypi, "1. G42 B5142", Rules::default()).unwrap_err();
//! assert_eq!(err.to_string(), "line 1, ply 2: B5142: that point is occupied");
//! ```

use std::fmt;
use std::str::FromStr;

use crate::{board, Action, Game, Jump, Square};

pub mod obx;
pub mod pypi;
mod record;

/// A notation for games.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Format {
    /// This project's game record ([`Record`](crate::Record)).
    Record,
    /// The PyPI `baghchal` package's move list or position.
    Pypi,
    /// OBX 2.0 (baghchal.net): one position a line.
    Obx,
}

impl Format {
    /// Every format.
    pub const ALL: [Format; 3] = [Format::Record, Format::Pypi, Format::Obx];

    /// The format's name: `record`, `pypi` or `obx`.
    pub const fn name(self) -> &'static str {
        match self {
            Format::Record => "record",
            Format::Pypi => "pypi",
            Format::Obx => "obx",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not a [`Format`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ParseFormatError;

impl fmt::Display for ParseFormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the notation is record, pypi or obx")
    }
}

impl std::error::Error for ParseFormatError {}

impl FromStr for Format {
    type Err = ParseFormatError;

    /// ```
    /// use baghchal_rules::notation::Format;
    /// assert_eq!("obx".parse(), Ok(Format::Obx));
    /// assert!("pgn".parse::<Format>().is_err());
    /// ```
    fn from_str(s: &str) -> Result<Format, ParseFormatError> {
        Format::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or(ParseFormatError)
    }
}

/// Why a game text is refused. Every refusal names the line of the text
/// it is about (from 1); a refused action also its ply.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum NotationError {
    /// The text does not parse.
    Syntax {
        /// The line at fault, from 1.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// The rules or the start it names are not a game of this project
    /// (a start whose ply count contradicts its side to move included).
    Start {
        /// The line that names them.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// An action is not legal where it stands.
    Illegal {
        /// The line the action is on.
        line: usize,
        /// The half move of the game it would be (the first action of a
        /// game is ply 1; a start's own ply count is included).
        ply: u32,
        /// The action as the text writes it.
        action: String,
        /// Why it is illegal.
        reason: String,
    },
    /// The text says something the actions do not lead to (a board, a
    /// counter, a result).
    Inconsistent {
        /// The line that says it.
        line: usize,
        /// The half move at which it does.
        ply: u32,
        /// What disagrees.
        reason: String,
    },
}

impl NotationError {
    /// The line of the text the refusal is about, from 1.
    pub fn line(&self) -> usize {
        match self {
            NotationError::Syntax { line, .. }
            | NotationError::Start { line, .. }
            | NotationError::Illegal { line, .. }
            | NotationError::Inconsistent { line, .. } => *line,
        }
    }

    /// The ply of a refused action or of a disagreement.
    pub fn ply(&self) -> Option<u32> {
        match self {
            NotationError::Illegal { ply, .. } | NotationError::Inconsistent { ply, .. } => {
                Some(*ply)
            }
            NotationError::Syntax { .. } | NotationError::Start { .. } => None,
        }
    }
}

impl fmt::Display for NotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotationError::Syntax { line, reason } => write!(f, "line {line}: {reason}"),
            NotationError::Start { line, reason } => write!(f, "line {line}: start: {reason}"),
            NotationError::Illegal {
                line,
                ply,
                action,
                reason,
            } => write!(f, "line {line}, ply {ply}: {action}: {reason}"),
            NotationError::Inconsistent { line, ply, reason } => {
                write!(f, "line {line}, ply {ply}: {reason}")
            }
        }
    }
}

impl std::error::Error for NotationError {}

/// A game that a notation cannot express (its variant, its start, a
/// chain of jumps).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct WriteError {
    /// The notation.
    pub format: Format,
    /// What it cannot express.
    pub reason: String,
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the {} notation {}", self.format, self.reason)
    }
}

impl std::error::Error for WriteError {}

/// Reads a game in `format`. `rules` are used where the notation does not
/// name its own: by OBX. A record names its rules; the PyPI notation
/// implies the package's ([`pypi::rules`]).
pub fn read(format: Format, text: &str, rules: crate::Rules) -> Result<Game, NotationError> {
    match format {
        Format::Record => record::read(text),
        Format::Pypi => pypi::read(text),
        Format::Obx => obx::read(text, rules),
    }
}

/// Writes `game` in `format`.
pub fn write(format: Format, game: &Game) -> Result<String, WriteError> {
    match format {
        Format::Record => Ok(game.record().to_string()),
        Format::Pypi => pypi::write(game),
        Format::Obx => obx::write(game),
    }
}

/// The action that goes from `from` to `to`: a step between neighbours on
/// a line, or a single jump two points along one; `None` otherwise.
fn action_between(from: Square, to: Square) -> Option<Action> {
    if board::is_line(from, to) {
        Some(Action::Step { from, to })
    } else {
        board::jump_over(from, to).map(|_| Action::Jump(Jump::single(from, to)))
    }
}

/// The ply `game`'s next action would be.
fn next_ply(game: &Game) -> u32 {
    u32::from(game.position().ply()) + 1
}

/// Plays `action` (written `written` on `line`) in `game`, or says at
/// which ply and why it is illegal.
fn play(game: &mut Game, action: Action, written: &str, line: usize) -> Result<(), NotationError> {
    let ply = next_ply(game);
    game.play(action).map_err(|reason| NotationError::Illegal {
        line,
        ply,
        action: written.to_owned(),
        reason: reason.to_string(),
    })
}

/// Refuses a start that no game reaches: its ply count contradicts its
/// side to move.
fn check_start(position: &crate::Position, line: usize) -> Result<(), NotationError> {
    position.check_turn().map_err(|e| NotationError::Start {
        line,
        reason: e.to_string(),
    })
}
