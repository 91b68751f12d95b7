//! Points of the board and sets of points.

use std::fmt;
use std::str::FromStr;

/// One of the 25 points of the board.
///
/// Columns `a`..`e` run from the left, rows `1`..`5` from the bottom, so
/// `a5` is the top-left point, `c3` the centre and `e1` the bottom-right.
/// The index is `row * 5 + column`, both counted from zero: `a1` is 0,
/// `e5` is 24.
///
/// ```
/// use baghchal_rules::Square;
/// let c3: Square = "c3".parse().unwrap();
/// assert_eq!(c3, Square::C3);
/// assert_eq!(c3.index(), 12);
/// assert_eq!(c3.to_string(), "c3");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Square(u8);

macro_rules! squares {
    ($($name:ident = $idx:expr),* $(,)?) => {
        impl Square {
            $(
                #[allow(missing_docs)]
                pub const $name: Square = Square($idx);
            )*
        }
    };
}

squares! {
    A1 = 0, B1 = 1, C1 = 2, D1 = 3, E1 = 4,
    A2 = 5, B2 = 6, C2 = 7, D2 = 8, E2 = 9,
    A3 = 10, B3 = 11, C3 = 12, D3 = 13, E3 = 14,
    A4 = 15, B4 = 16, C4 = 17, D4 = 18, E4 = 19,
    A5 = 20, B5 = 21, C5 = 22, D5 = 23, E5 = 24,
}

impl Square {
    /// Every point, `a1` first, row by row.
    pub const ALL: [Square; 25] = {
        let mut all = [Square(0); 25];
        let mut i = 0;
        while i < 25 {
            all[i] = Square(i as u8);
            i += 1;
        }
        all
    };

    /// The point with this index (`row * 5 + column`), if it is below 25.
    ///
    /// ```
    /// use baghchal_rules::Square;
    /// assert_eq!(Square::new(24), Some(Square::E5));
    /// assert_eq!(Square::new(25), None);
    /// ```
    pub const fn new(index: u8) -> Option<Square> {
        if index < 25 {
            Some(Square(index))
        } else {
            None
        }
    }

    /// The point at `column` and `row`, both counted from zero.
    ///
    /// ```
    /// use baghchal_rules::Square;
    /// assert_eq!(Square::from_coords(2, 2), Some(Square::C3));
    /// assert_eq!(Square::from_coords(5, 0), None);
    /// ```
    pub const fn from_coords(column: u8, row: u8) -> Option<Square> {
        if column < 5 && row < 5 {
            Some(Square(row * 5 + column))
        } else {
            None
        }
    }

    /// The point's name, `a1` to `e5`.
    ///
    /// ```
    /// use baghchal_rules::Square;
    /// assert_eq!(Square::D2.name(), "d2");
    /// ```
    pub const fn name(self) -> &'static str {
        const NAMES: [&str; 25] = [
            "a1", "b1", "c1", "d1", "e1", "a2", "b2", "c2", "d2", "e2", "a3", "b3", "c3", "d3",
            "e3", "a4", "b4", "c4", "d4", "e4", "a5", "b5", "c5", "d5", "e5",
        ];
        NAMES[self.0 as usize]
    }

    /// The index, `row * 5 + column`.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The column, 0 for `a` to 4 for `e`.
    pub const fn column(self) -> u8 {
        self.0 % 5
    }

    /// The row, 0 for `1` to 4 for `5`.
    pub const fn row(self) -> u8 {
        self.0 / 5
    }

    /// Whether diagonal lines leave this point (row + column even).
    ///
    /// ```
    /// use baghchal_rules::Square;
    /// assert!(Square::C3.has_diagonals());
    /// assert!(!Square::B3.has_diagonals());
    /// ```
    pub const fn has_diagonals(self) -> bool {
        (self.column() + self.row()).is_multiple_of(2)
    }

    /// The set holding just this point.
    pub const fn bitboard(self) -> Bitboard {
        Bitboard(1 << self.0)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Written as a string, not through `write!`: the names of the legal
        // actions are written for every state the server sends.
        f.write_str(self.name())
    }
}

/// A point name that is not `a1`..`e5`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ParseSquareError;

impl fmt::Display for ParseSquareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("invalid point: expected a column a-e and a row 1-5, like c3")
    }
}

impl std::error::Error for ParseSquareError {}

impl FromStr for Square {
    type Err = ParseSquareError;

    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        match s.as_bytes() {
            [c @ b'a'..=b'e', r @ b'1'..=b'5'] => Ok(Square((r - b'1') * 5 + (c - b'a'))),
            _ => Err(ParseSquareError),
        }
    }
}

/// A set of points, one bit per point (bit `i` is the point with index `i`).
///
/// ```
/// use baghchal_rules::{Bitboard, Square};
/// let set = Square::A1.bitboard() | Square::C3.bitboard();
/// assert_eq!(set.count(), 2);
/// assert!(set.contains(Square::C3));
/// assert_eq!(set.into_iter().collect::<Vec<_>>(), vec![Square::A1, Square::C3]);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug)]
pub struct Bitboard(pub u32);

impl Bitboard {
    /// No point.
    pub const EMPTY: Bitboard = Bitboard(0);
    /// All 25 points.
    pub const FULL: Bitboard = Bitboard((1 << 25) - 1);

    /// Whether `square` is in the set.
    pub const fn contains(self, square: Square) -> bool {
        self.0 & (1 << square.0) != 0
    }

    /// How many points are in the set.
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The lowest point of the set, if any.
    pub const fn first(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            Some(Square(self.0.trailing_zeros() as u8))
        }
    }

    /// The set with `square` added.
    #[must_use]
    pub const fn with(self, square: Square) -> Bitboard {
        Bitboard(self.0 | (1 << square.0))
    }

    /// The set with `square` removed.
    #[must_use]
    pub const fn without(self, square: Square) -> Bitboard {
        Bitboard(self.0 & !(1 << square.0))
    }
}

impl std::ops::BitOr for Bitboard {
    type Output = Bitboard;
    fn bitor(self, rhs: Bitboard) -> Bitboard {
        Bitboard(self.0 | rhs.0)
    }
}

impl std::ops::BitAnd for Bitboard {
    type Output = Bitboard;
    fn bitand(self, rhs: Bitboard) -> Bitboard {
        Bitboard(self.0 & rhs.0)
    }
}

impl std::ops::BitXor for Bitboard {
    type Output = Bitboard;
    fn bitxor(self, rhs: Bitboard) -> Bitboard {
        Bitboard(self.0 ^ rhs.0)
    }
}

impl std::ops::Not for Bitboard {
    type Output = Bitboard;
    /// The complement within the 25 points.
    fn not(self) -> Bitboard {
        Bitboard(!self.0 & Bitboard::FULL.0)
    }
}

impl std::ops::BitOrAssign for Bitboard {
    fn bitor_assign(&mut self, rhs: Bitboard) {
        self.0 |= rhs.0;
    }
}

impl std::ops::BitAndAssign for Bitboard {
    fn bitand_assign(&mut self, rhs: Bitboard) {
        self.0 &= rhs.0;
    }
}

impl IntoIterator for Bitboard {
    type Item = Square;
    type IntoIter = Squares;
    fn into_iter(self) -> Squares {
        Squares(self.0)
    }
}

/// The points of a [`Bitboard`], lowest index first.
#[derive(Clone, Debug)]
pub struct Squares(u32);

impl Iterator for Squares {
    type Item = Square;
    #[inline]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            let sq = self.0.trailing_zeros() as u8;
            self.0 &= self.0 - 1;
            Some(Square(sq))
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Squares {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_square_round_trips_through_its_name() {
        for sq in Square::ALL {
            assert_eq!(sq.to_string().parse::<Square>(), Ok(sq));
        }
    }

    #[test]
    fn malformed_square_names_are_refused() {
        for bad in ["", "a", "f1", "a0", "a6", "A1", "c33", " c3"] {
            assert_eq!(bad.parse::<Square>(), Err(ParseSquareError), "{bad:?}");
        }
    }
}
