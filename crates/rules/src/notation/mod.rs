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
    ///
    /// ```
    /// use baghchal_rules::notation::{self, Format};
    /// use baghchal_rules::Rules;
    /// let err = notation::read(Format::Record, "rules standard\nactions c3 c3\n", Rules::default()).unwrap_err();
    /// assert_eq!((err.line(), err.ply()), (2, Some(2)));
    /// assert_eq!(err.to_string(), "line 2, ply 2: c3: no goat can be placed now");
    /// ```
    pub fn line(&self) -> usize {
        match self {
            NotationError::Syntax { line, .. }
            | NotationError::Start { line, .. }
            | NotationError::Illegal { line, .. }
            | NotationError::Inconsistent { line, .. } => *line,
        }
    }

    /// The ply of a refused action or of a disagreement; `None` for a
    /// text that does not parse and for a start.
    ///
    /// ```
    /// use baghchal_rules::notation::{self, Format};
    /// use baghchal_rules::Rules;
    /// let err = notation::read(Format::Pypi, "1. G33 B51", Rules::default()).unwrap_err();
    /// assert_eq!((err.line(), err.ply()), (1, None));
    /// ```
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

/// The notation `text` is written in, told by its first words: a record
/// starts with `rules`, `start`, `actions` or `result`; a PyPI move list
/// with a move number (`1.`); a position of the package or of OBX with
/// its board, told apart by the side to move after it (`G` or `B` for
/// the package, `g` or `t` for OBX) or else by the board's letters (`B`
/// and digits for the package, `T` and `X` for OBX); a line that starts
/// with `OBX:` is OBX. Otherwise the text is refused with its first line.
///
/// ```
/// use baghchal_rules::notation::{self, Format};
/// assert_eq!(notation::detect("rules standard\nactions c3"), Ok(Format::Record));
/// assert_eq!(notation::detect("1. G33 B5142"), Ok(Format::Pypi));
/// assert_eq!(notation::detect("B3B/5/5/5/B3B G 0"), Ok(Format::Pypi));
/// assert_eq!(notation::detect("TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g c0 - #"), Ok(Format::Obx));
/// assert_eq!(
///     notation::detect("\nc3 a1-b2").unwrap_err().to_string(),
///     "line 2: c3 starts no game of a notation read here: a record starts with \
///      rules, start, actions or result, a PyPI move list with 1., a position \
///      with its board (B3B/5/5/5/B3B G 0 or TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g c0 - #)",
/// );
/// ```
pub fn detect(text: &str) -> Result<Format, NotationError> {
    let Some((n, line)) = text
        .lines()
        .enumerate()
        .map(|(n, l)| (n + 1, l.trim()))
        .find(|(_, l)| !l.is_empty())
    else {
        return Err(NotationError::Syntax {
            line: 1,
            reason: "no game: the text is empty".into(),
        });
    };
    if line.starts_with("OBX:") {
        return Ok(Format::Obx);
    }
    let mut words = line.split_whitespace();
    let first = words.next().unwrap_or_default();
    let numbered = first
        .split_once('.')
        .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    let format = match first {
        "rules" | "start" | "actions" | "result" => Some(Format::Record),
        _ if numbered => Some(Format::Pypi),
        board if board.contains('/') => match words.next() {
            Some("g" | "t") => Some(Format::Obx),
            Some("G" | "B") => Some(Format::Pypi),
            _ if board.contains(['T', 'X']) => Some(Format::Obx),
            _ if board.contains(|c: char| c == 'B' || c.is_ascii_digit()) => Some(Format::Pypi),
            _ => None,
        },
        _ => None,
    };
    format.ok_or_else(|| NotationError::Syntax {
        line: n,
        reason: format!(
            "{first} starts no game of a notation read here: a record starts with \
             rules, start, actions or result, a PyPI move list with 1., a position \
             with its board (B3B/5/5/5/B3B G 0 or TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g c0 - #)"
        ),
    })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Rules;

    /// A game of seeded legal actions, `plies` long or to its end.
    fn game(seed: u64, plies: usize) -> Game {
        let mut game = Game::new(Rules::default());
        let mut state = seed;
        while !game.is_finished() && game.actions().len() < plies {
            let legal = game.position().legal_actions();
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            game.play(legal[(state >> 33) as usize % legal.len()])
                .unwrap();
        }
        game
    }

    #[test]
    fn every_text_a_notation_writes_is_detected_as_that_notation() {
        for seed in 0..20 {
            let game = game(seed, 30 + seed as usize * 7);
            for format in Format::ALL {
                let text = write(format, &game).unwrap();
                assert_eq!(detect(&text), Ok(format), "{text}");
            }
            let position = game.position();
            let fen = pypi::write_fen(position).unwrap();
            assert_eq!(detect(&fen), Ok(Format::Pypi), "{fen}");
            let line = obx::write_position(position, None).unwrap();
            assert_eq!(detect(&line), Ok(Format::Obx), "{line}");
        }
    }

    #[test]
    fn texts_as_people_paste_them_are_detected() {
        let cases = [
            ("\n\n  rules standard\nactions c3\n", Format::Record),
            (
                "start T...T/...../...../...../T...T g 20 0 0\n",
                Format::Record,
            ),
            ("1.G14", Format::Pypi),
            ("12. G33 B5142", Format::Pypi),
            ("B3B/5/5/5/B3B G 0", Format::Pypi),
            ("OBX: TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g c0 - #", Format::Obx),
            ("TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g c0 - 0", Format::Obx),
            // A board alone, without its side to move: told by its letters.
            ("TXXXT/XXXXX/XXXXX/XXXXX/TXXXT", Format::Obx),
            ("B3B/5/5/5/B3B", Format::Pypi),
        ];
        for (text, format) in cases {
            assert_eq!(detect(text), Ok(format), "{text:?}");
        }
        for text in ["", " \n ", "c3 a1-b2", "GGGGG/GGGGG", ".1 G33", "pgn"] {
            assert!(
                matches!(detect(text), Err(NotationError::Syntax { .. })),
                "{text:?}"
            );
        }
    }
}
