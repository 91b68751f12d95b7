//! The rule profile of a game: the house rules and their variants.

use std::fmt;
use std::str::FromStr;

use crate::{Bitboard, Side, Square};

/// How the game treats a movement-phase position that comes back.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum Repetition {
    /// The house rule: an action that would recreate a recorded
    /// movement-phase position is illegal.
    #[default]
    Forbid,
    /// The same position with the same side to move for the third time in
    /// the movement phase is a draw; every capture clears the count.
    ThreefoldDraw,
}

/// The options of a table, unchecked: every field is public, and
/// [`Rules::new`] checks them.
///
/// ```
/// use baghchal_rules::{Rules, RulesOptions, Side};
/// let opts = RulesOptions { goats_to_win: Some(4), first: Side::Tiger, ..RulesOptions::default() };
/// let rules = Rules::new(opts).unwrap();
/// assert_eq!(rules.goats_to_win(), 4);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct RulesOptions {
    /// Goats the tigers must capture to win (3..=7); `None` takes the
    /// variant's own: 5, or 4 in the three-tiger game.
    pub goats_to_win: Option<u8>,
    /// The side that makes the first action.
    pub first: Side,
    /// Whether one tiger may make successive capture jumps in one turn.
    pub multi_jump: bool,
    /// The three-tiger game: three tigers on a1, a5 and e5, sixteen goats.
    pub three_tigers: bool,
    /// What a repeated movement-phase position does.
    pub repetition: Repetition,
    /// Plies after which a game with no winner is drawn (1..=10000).
    pub ply_limit: u16,
}

impl Default for RulesOptions {
    fn default() -> RulesOptions {
        RulesOptions {
            goats_to_win: None,
            first: Side::Goat,
            multi_jump: false,
            three_tigers: false,
            repetition: Repetition::Forbid,
            ply_limit: 400,
        }
    }
}

/// The least and greatest capture targets.
pub const GOATS_TO_WIN: std::ops::RangeInclusive<u8> = 3..=7;
/// The least and greatest ply limits.
pub const PLY_LIMIT: std::ops::RangeInclusive<u16> = 1..=10_000;

/// A rule profile that has been checked. `Default` is the house profile.
///
/// ```
/// use baghchal_rules::Rules;
/// let rules = Rules::default();
/// assert_eq!(rules.total_goats(), 20);
/// assert_eq!(rules.goats_to_win(), 5);
/// assert_eq!(rules.ply_limit(), 400);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Rules {
    opts: RulesOptions,
}

/// Why a set of options is not a playable rule profile.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum RulesError {
    /// The capture target is outside 3..=7.
    GoatsToWin(u8),
    /// The ply limit is outside 1..=10000.
    PlyLimit(u16),
}

impl fmt::Display for RulesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            RulesError::GoatsToWin(n) => write!(
                f,
                "goats to win must be between {} and {}, not {n}",
                GOATS_TO_WIN.start(),
                GOATS_TO_WIN.end()
            ),
            RulesError::PlyLimit(n) => write!(
                f,
                "the ply limit must be between {} and {}, not {n}",
                PLY_LIMIT.start(),
                PLY_LIMIT.end()
            ),
        }
    }
}

impl std::error::Error for RulesError {}

impl Rules {
    /// Checks the options.
    ///
    /// ```
    /// use baghchal_rules::{Rules, RulesError, RulesOptions};
    /// let bad = RulesOptions { goats_to_win: Some(9), ..RulesOptions::default() };
    /// assert_eq!(Rules::new(bad), Err(RulesError::GoatsToWin(9)));
    /// ```
    pub fn new(mut opts: RulesOptions) -> Result<Rules, RulesError> {
        let target = opts
            .goats_to_win
            .unwrap_or(default_target(opts.three_tigers));
        if !GOATS_TO_WIN.contains(&target) {
            return Err(RulesError::GoatsToWin(target));
        }
        if !PLY_LIMIT.contains(&opts.ply_limit) {
            return Err(RulesError::PlyLimit(opts.ply_limit));
        }
        opts.goats_to_win = Some(target);
        Ok(Rules { opts })
    }

    /// The options these rules were made from.
    pub fn options(&self) -> RulesOptions {
        self.opts
    }

    /// Goats the tigers must capture to win.
    pub fn goats_to_win(&self) -> u8 {
        self.opts
            .goats_to_win
            .unwrap_or(default_target(self.opts.three_tigers))
    }

    /// The side that makes the first action.
    pub fn first(&self) -> Side {
        self.opts.first
    }

    /// Whether successive capture jumps are allowed.
    pub fn multi_jump(&self) -> bool {
        self.opts.multi_jump
    }

    /// What a repeated movement-phase position does.
    pub fn repetition(&self) -> Repetition {
        self.opts.repetition
    }

    /// Plies after which a game with no winner is drawn.
    pub fn ply_limit(&self) -> u16 {
        self.opts.ply_limit
    }

    /// The number of tigers: 4, or 3 in the three-tiger game.
    pub fn tigers(&self) -> u8 {
        if self.opts.three_tigers {
            3
        } else {
            4
        }
    }

    /// The number of goats: 20, or 16 in the three-tiger game.
    pub fn total_goats(&self) -> u8 {
        if self.opts.three_tigers {
            16
        } else {
            20
        }
    }

    /// Where the tigers start: the four corners, or a1, a5 and e5 in the
    /// three-tiger game.
    pub fn tiger_start(&self) -> Bitboard {
        let three = Square::A1.bitboard() | Square::A5.bitboard() | Square::E5.bitboard();
        if self.opts.three_tigers {
            three
        } else {
            three | Square::E1.bitboard()
        }
    }
}

/// The capture target when none is asked: 5, or 4 in the three-tiger game.
const fn default_target(three_tigers: bool) -> u8 {
    if three_tigers {
        4
    } else {
        5
    }
}

impl Default for Rules {
    fn default() -> Rules {
        Rules {
            opts: RulesOptions {
                goats_to_win: Some(5),
                ..RulesOptions::default()
            },
        }
    }
}

impl fmt::Display for Rules {
    /// The options as `key=value` words, the house defaults left out;
    /// `standard` for the house profile itself.
    ///
    /// ```
    /// use baghchal_rules::{Rules, RulesOptions};
    /// assert_eq!(Rules::default().to_string(), "standard");
    /// let r = Rules::new(RulesOptions { multi_jump: true, ply_limit: 200, ..Default::default() }).unwrap();
    /// assert_eq!(r.to_string(), "multi-jump ply-limit=200");
    /// assert_eq!(r.to_string().parse::<Rules>(), Ok(r));
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = RulesOptions::default();
        let o = self.opts;
        let mut words = Vec::new();
        if o.three_tigers {
            words.push("three-tigers".to_owned());
        }
        if self.goats_to_win() != default_target(o.three_tigers) {
            words.push(format!("goats-to-win={}", self.goats_to_win()));
        }
        if o.first == Side::Tiger {
            words.push("tigers-first".to_owned());
        }
        if o.multi_jump {
            words.push("multi-jump".to_owned());
        }
        if o.repetition == Repetition::ThreefoldDraw {
            words.push("threefold-draw".to_owned());
        }
        if o.ply_limit != d.ply_limit {
            words.push(format!("ply-limit={}", o.ply_limit));
        }
        if words.is_empty() {
            f.write_str("standard")
        } else {
            f.write_str(&words.join(" "))
        }
    }
}

/// Why a rules text could not be read.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ParseRulesError {
    /// A word that names no option.
    UnknownOption(String),
    /// An option whose value is not a number in range.
    BadValue(String),
    /// The options parsed but do not make a rule profile.
    Invalid(RulesError),
}

impl fmt::Display for ParseRulesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseRulesError::UnknownOption(w) => write!(f, "unknown rules option {w:?}"),
            ParseRulesError::BadValue(w) => write!(f, "bad value in rules option {w:?}"),
            ParseRulesError::Invalid(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ParseRulesError {}

impl FromStr for Rules {
    type Err = ParseRulesError;

    /// Reads the words written by `Display`, in any order. An empty text
    /// and `standard` are the house profile.
    fn from_str(s: &str) -> Result<Rules, ParseRulesError> {
        let mut o = RulesOptions::default();
        for word in s.split_whitespace() {
            let (key, value) = match word.split_once('=') {
                Some((k, v)) => (k, Some(v)),
                None => (word, None),
            };
            let number = |v: Option<&str>| -> Result<u16, ParseRulesError> {
                v.and_then(|v| v.parse::<u16>().ok())
                    .ok_or_else(|| ParseRulesError::BadValue(word.to_owned()))
            };
            match (key, value) {
                ("standard", None) => {}
                ("three-tigers", None) => o.three_tigers = true,
                ("tigers-first", None) => o.first = Side::Tiger,
                ("multi-jump", None) => o.multi_jump = true,
                ("threefold-draw", None) => o.repetition = Repetition::ThreefoldDraw,
                ("goats-to-win", v) => {
                    o.goats_to_win = Some(
                        u8::try_from(number(v)?)
                            .map_err(|_| ParseRulesError::BadValue(word.to_owned()))?,
                    )
                }
                ("ply-limit", v) => o.ply_limit = number(v)?,
                _ => return Err(ParseRulesError::UnknownOption(word.to_owned())),
            }
        }
        Rules::new(o).map_err(ParseRulesError::Invalid)
    }
}
