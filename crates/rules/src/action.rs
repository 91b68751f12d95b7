//! The sides and their actions, with their notation.

use std::fmt::{self, Write as _};
use std::str::FromStr;

use crate::{board, ParseSquareError, Square};

/// One of the two sides.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Side {
    /// The goats: twenty of them (sixteen in the three-tiger game).
    Goat,
    /// The tigers: four of them (three in the three-tiger game).
    Tiger,
}

impl Side {
    /// The other side.
    ///
    /// ```
    /// use baghchal_rules::Side;
    /// assert_eq!(Side::Goat.other(), Side::Tiger);
    /// ```
    #[must_use]
    pub const fn other(self) -> Side {
        match self {
            Side::Goat => Side::Tiger,
            Side::Tiger => Side::Goat,
        }
    }

    /// The letter of the position text: `g` or `t`.
    pub const fn char(self) -> char {
        match self {
            Side::Goat => 'g',
            Side::Tiger => 't',
        }
    }

    /// The side of a position-text letter.
    pub const fn from_char(c: char) -> Option<Side> {
        match c {
            'g' => Some(Side::Goat),
            't' => Some(Side::Tiger),
            _ => None,
        }
    }

    /// A lowercase English name: `goats` or `tigers`.
    pub const fn name(self) -> &'static str {
        match self {
            Side::Goat => "goats",
            Side::Tiger => "tigers",
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The longest capture chain one action can hold (the highest capture
/// target; a chain stops when the target is reached).
pub const MAX_CHAIN: usize = 7;

/// A capture: one straight jump, or under the multi-jump variant several
/// in a row by the same tiger.
///
/// ```
/// use baghchal_rules::{Jump, Square};
/// let j = Jump::single(Square::A1, Square::C3);
/// assert_eq!(j.to(), Square::C3);
/// assert_eq!(j.captures().collect::<Vec<_>>(), vec![Square::B2]);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Jump {
    from: Square,
    len: u8,
    landings: [Square; MAX_CHAIN],
}

impl Jump {
    /// One jump from `from` to `to`, two points along a line.
    pub const fn single(from: Square, to: Square) -> Jump {
        let mut landings = [Square::A1; MAX_CHAIN];
        landings[0] = to;
        Jump {
            from,
            len: 1,
            landings,
        }
    }

    /// A chain of jumps through `landings`; `None` if it is empty or longer
    /// than [`MAX_CHAIN`]. Whether each jump exists is the position's
    /// business, not this type's.
    pub fn chain(from: Square, landings: &[Square]) -> Option<Jump> {
        if landings.is_empty() || landings.len() > MAX_CHAIN {
            return None;
        }
        let mut jump = Jump::single(from, landings[0]);
        jump.landings[..landings.len()].copy_from_slice(landings);
        jump.len = landings.len() as u8;
        Some(jump)
    }

    /// The same chain with one more landing, if there is room.
    pub(crate) fn extended(&self, to: Square) -> Option<Jump> {
        let n = self.len as usize;
        if n == MAX_CHAIN {
            return None;
        }
        let mut jump = *self;
        jump.landings[n] = to;
        jump.len += 1;
        Some(jump)
    }

    /// Where the tiger starts.
    pub const fn from(&self) -> Square {
        self.from
    }

    /// Where the tiger ends.
    pub const fn to(&self) -> Square {
        self.landings[self.len as usize - 1]
    }

    /// Every landing point, in order.
    pub fn landings(&self) -> &[Square] {
        &self.landings[..self.len as usize]
    }

    /// How many goats the chain captures.
    pub const fn len(&self) -> usize {
        self.len as usize
    }

    /// A chain is never empty; here for completeness.
    pub const fn is_empty(&self) -> bool {
        false
    }

    /// The points jumped over, one per landing: the midpoints of each leg.
    pub fn captures(&self) -> impl Iterator<Item = Square> + '_ {
        let mut at = self.from;
        self.landings().iter().map(move |&land| {
            let mid = (at.index() + land.index()) / 2;
            at = land;
            Square::ALL[mid]
        })
    }
}

/// One half move.
///
/// ```
/// use baghchal_rules::{Action, Square};
/// let a: Action = "b2-c3".parse().unwrap();
/// assert_eq!(a, Action::Step { from: Square::B2, to: Square::C3 });
/// assert_eq!(a.to_string(), "b2-c3");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Action {
    /// A goat from the hand onto an empty point: `c3`.
    Place(Square),
    /// A piece along a line to the adjacent empty point: `b2-c3`.
    Step {
        /// Where the piece stands.
        from: Square,
        /// Where it goes.
        to: Square,
    },
    /// A tiger's capture: `a1xc3`, or a chain `a1xc3xe5` under the
    /// multi-jump variant.
    Jump(Jump),
}

impl Action {
    /// The point a moving piece leaves; `None` for a placement.
    pub fn from(&self) -> Option<Square> {
        match self {
            Action::Place(_) => None,
            Action::Step { from, .. } => Some(*from),
            Action::Jump(j) => Some(j.from()),
        }
    }

    /// The point where the piece ends.
    pub fn to(&self) -> Square {
        match self {
            Action::Place(to) | Action::Step { to, .. } => *to,
            Action::Jump(j) => j.to(),
        }
    }

    /// Whether this action captures.
    pub fn is_capture(&self) -> bool {
        matches!(self, Action::Jump(_))
    }

    /// The goats this action captures, in order.
    pub fn captures(&self) -> impl Iterator<Item = Square> + '_ {
        let jump = match self {
            Action::Jump(j) => Some(j),
            _ => None,
        };
        jump.into_iter().flat_map(Jump::captures)
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::Place(to) => f.write_str(to.name()),
            Action::Step { from, to } => {
                f.write_str(from.name())?;
                f.write_char('-')?;
                f.write_str(to.name())
            }
            Action::Jump(j) => {
                f.write_str(j.from().name())?;
                for land in j.landings() {
                    f.write_char('x')?;
                    f.write_str(land.name())?;
                }
                Ok(())
            }
        }
    }
}

/// Why a text is not an action in notation.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ParseActionError {
    /// The text is empty.
    Empty,
    /// A point name is malformed (at this byte offset).
    Square {
        /// Byte offset of the bad point name.
        at: usize,
    },
    /// Something other than `-` or `x` follows the first point, or a step
    /// has more than two points.
    Separator {
        /// Byte offset of the bad character.
        at: usize,
    },
    /// A step or jump goes between points that are not on one line, or
    /// starts and ends on the same point.
    Geometry,
    /// A chain of more than [`MAX_CHAIN`] jumps.
    TooLong,
}

impl fmt::Display for ParseActionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseActionError::Empty => f.write_str("empty action"),
            ParseActionError::Square { at } => {
                write!(f, "invalid point at offset {at}: {ParseSquareError}")
            }
            ParseActionError::Separator { at } => write!(
                f,
                "unexpected character at offset {at}: write c3, b2-c3 or a1xc3"
            ),
            ParseActionError::Geometry => {
                f.write_str("no line of the board joins those points that way")
            }
            ParseActionError::TooLong => write!(f, "a chain has at most {MAX_CHAIN} jumps"),
        }
    }
}

impl std::error::Error for ParseActionError {}

impl FromStr for Action {
    type Err = ParseActionError;

    /// Reads `c3`, `b2-c3`, `a1xc3` or `a1xc3xe5`. A step must follow a
    /// line of the board and a jump must be a straight jump along one;
    /// whether the action is legal in a position is checked by the
    /// position.
    fn from_str(s: &str) -> Result<Action, ParseActionError> {
        if s.is_empty() {
            return Err(ParseActionError::Empty);
        }
        let square_at = |at: usize| -> Result<Square, ParseActionError> {
            s.get(at..at + 2)
                .and_then(|t| t.parse().ok())
                .ok_or(ParseActionError::Square { at })
        };
        let from = square_at(0)?;
        let bytes = s.as_bytes();
        if bytes.len() == 2 {
            return Ok(Action::Place(from));
        }
        match bytes[2] {
            b'-' => {
                let to = square_at(3)?;
                if bytes.len() != 5 {
                    return Err(ParseActionError::Separator { at: 5 });
                }
                if !board::is_line(from, to) {
                    return Err(ParseActionError::Geometry);
                }
                Ok(Action::Step { from, to })
            }
            b'x' => {
                let mut landings = Vec::new();
                let mut at = 2;
                let mut prev = from;
                while at < bytes.len() {
                    if bytes[at] != b'x' {
                        return Err(ParseActionError::Separator { at });
                    }
                    let land = square_at(at + 1)?;
                    if board::jump_over(prev, land).is_none() {
                        return Err(ParseActionError::Geometry);
                    }
                    landings.push(land);
                    prev = land;
                    at += 3;
                }
                Jump::chain(from, &landings)
                    .map(Action::Jump)
                    .ok_or(ParseActionError::TooLong)
            }
            _ => Err(ParseActionError::Separator { at: 2 }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notation_round_trips() {
        for text in ["c3", "b2-c3", "a1xc3", "a1xc3xe5", "c1xa3xc5xe3xc1"] {
            let action: Action = text.parse().unwrap();
            assert_eq!(action.to_string(), text);
        }
    }

    #[test]
    fn malformed_actions_give_precise_errors() {
        use ParseActionError::*;
        let cases = [
            ("", Empty),
            ("c", Square { at: 0 }),
            ("z3", Square { at: 0 }),
            ("c3c4", Separator { at: 2 }),
            ("c3-", Square { at: 3 }),
            ("c3-c4-c5", Separator { at: 5 }),
            ("b3-c4", Geometry),
            ("c3-c3", Geometry),
            ("a1xb2", Geometry),
            ("b1xd3", Geometry),
            ("a1xc3-", Separator { at: 5 }),
            ("a1xa3xa5xa3xa5xa3xa5xa3xa5", TooLong),
        ];
        for (text, err) in cases {
            assert_eq!(text.parse::<Action>(), Err(err), "{text:?}");
        }
    }

    #[test]
    fn a_chain_reports_every_captured_goat() {
        let a: Action = "a1xc3xe5".parse().unwrap();
        assert_eq!(
            a.captures().collect::<Vec<_>>(),
            vec![crate::Square::B2, crate::Square::D4]
        );
    }
}
