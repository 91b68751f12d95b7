//! The text form of a [`Setup`]: printing it, and reading it with a typed
//! error for each field.

use std::fmt;
use std::str::FromStr;

use crate::{Bitboard, Setup, Side, Square};

/// The longest position text: the board, then the side and three numbers
/// (at most 3, 3 and 5 digits), each after a space.
const TEXT_MAX: usize = 29 + 2 + 4 + 4 + 6;

impl fmt::Display for Setup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The whole text is put together here and written once: the
        // server writes the position of every state it sends, and
        // `write!` of the three numbers cost more than all the rest.
        let mut text = [b'/'; TEXT_MAX];
        for row in 0..5u8 {
            for column in 0..5u8 {
                let sq = Square::from_coords(column, row).expect("on the board");
                text[usize::from(4 - row) * 6 + usize::from(column)] = if self.tigers.contains(sq) {
                    b'T'
                } else if self.goats.contains(sq) {
                    b'G'
                } else {
                    b'.'
                };
            }
        }
        let mut len = 29;
        text[len] = b' ';
        text[len + 1] = self.side.char() as u8;
        len += 2;
        for number in [u16::from(self.in_hand), u16::from(self.eaten), self.ply] {
            text[len] = b' ';
            len += 1;
            len += write_number(&mut text[len..], number);
        }
        f.write_str(std::str::from_utf8(&text[..len]).map_err(|_| fmt::Error)?)
    }
}

/// Writes `number` in decimal at the start of `out` (room for five
/// digits); how many digits it took.
fn write_number(out: &mut [u8], mut number: u16) -> usize {
    let mut digits = [0u8; 5];
    let mut first = digits.len();
    loop {
        first -= 1;
        digits[first] = b'0' + (number % 10) as u8;
        number /= 10;
        if number == 0 {
            break;
        }
    }
    let digits = &digits[first..];
    out[..digits.len()].copy_from_slice(digits);
    digits.len()
}

/// Why a text is not a position text. Each variant names the field.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ParseSetupError {
    /// Not exactly five fields separated by spaces.
    Fields,
    /// The board is not five rows separated by `/`.
    Rows,
    /// A row (counted from the top, 0..5) is not five characters long.
    RowLength {
        /// Row index from the top.
        row: usize,
    },
    /// A board character other than `T`, `G` and `.`.
    Piece {
        /// Row index from the top.
        row: usize,
        /// Column index from the left.
        column: usize,
    },
    /// The side is not `g` or `t`.
    Side,
    /// Goats in hand is not a number 0..=255.
    InHand,
    /// Goats eaten is not a number 0..=255.
    Eaten,
    /// The ply count is not a number 0..=65535.
    Ply,
}

impl fmt::Display for ParseSetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseSetupError::Fields => {
                f.write_str("a position text has five fields: BOARD SIDE IN_HAND EATEN PLY")
            }
            ParseSetupError::Rows => f.write_str("the board has five rows separated by '/'"),
            ParseSetupError::RowLength { row } => {
                write!(f, "row {} of the board is not five points long", 5 - row)
            }
            ParseSetupError::Piece { row, column } => write!(
                f,
                "unknown piece at {}{}: use T, G or .",
                (b'a' + *column as u8) as char,
                5 - row
            ),
            ParseSetupError::Side => f.write_str("the side to move is 'g' or 't'"),
            ParseSetupError::InHand => f.write_str("goats in hand is not a number"),
            ParseSetupError::Eaten => f.write_str("goats eaten is not a number"),
            ParseSetupError::Ply => f.write_str("the ply count is not a number"),
        }
    }
}

impl std::error::Error for ParseSetupError {}

impl FromStr for Setup {
    type Err = ParseSetupError;

    fn from_str(s: &str) -> Result<Setup, ParseSetupError> {
        let fields: Vec<&str> = s.split(' ').collect();
        let [board, side, in_hand, eaten, ply] = fields[..] else {
            return Err(ParseSetupError::Fields);
        };
        let rows: Vec<&str> = board.split('/').collect();
        if rows.len() != 5 {
            return Err(ParseSetupError::Rows);
        }
        let mut tigers = Bitboard::EMPTY;
        let mut goats = Bitboard::EMPTY;
        for (i, row) in rows.iter().enumerate() {
            if row.len() != 5 || !row.is_ascii() {
                return Err(ParseSetupError::RowLength { row: i });
            }
            for (column, c) in row.bytes().enumerate() {
                let sq = Square::from_coords(column as u8, 4 - i as u8).expect("on the board");
                match c {
                    b'T' => tigers = tigers.with(sq),
                    b'G' => goats = goats.with(sq),
                    b'.' => {}
                    _ => return Err(ParseSetupError::Piece { row: i, column }),
                }
            }
        }
        let side = match side {
            "g" => Side::Goat,
            "t" => Side::Tiger,
            _ => return Err(ParseSetupError::Side),
        };
        let number = |t: &str| t.bytes().all(|b| b.is_ascii_digit()) && !t.is_empty();
        let in_hand = Some(in_hand)
            .filter(|t| number(t))
            .and_then(|t| t.parse().ok())
            .ok_or(ParseSetupError::InHand)?;
        let eaten = Some(eaten)
            .filter(|t| number(t))
            .and_then(|t| t.parse().ok())
            .ok_or(ParseSetupError::Eaten)?;
        let ply = Some(ply)
            .filter(|t| number(t))
            .and_then(|t| t.parse().ok())
            .ok_or(ParseSetupError::Ply)?;
        Ok(Setup {
            tigers,
            goats,
            side,
            in_hand,
            eaten,
            ply,
        })
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// Every count prints in full, whatever its number of digits, and
        /// reads back.
        #[test]
        fn every_count_prints_and_reads_back(
            tigers in any::<u32>(),
            goats in any::<u32>(),
            tiger_to_move in any::<bool>(),
            in_hand in any::<u8>(),
            eaten in any::<u8>(),
            ply in any::<u16>(),
        ) {
            let tigers = tigers & Bitboard::FULL.0;
            let setup = Setup {
                tigers: Bitboard(tigers),
                goats: Bitboard(goats & Bitboard::FULL.0 & !tigers),
                side: if tiger_to_move { Side::Tiger } else { Side::Goat },
                in_hand,
                eaten,
                ply,
            };
            let text = setup.to_string();
            let fields: Vec<&str> = text.split(' ').collect();
            prop_assert_eq!(&fields[2..], &[in_hand.to_string(), eaten.to_string(), ply.to_string()]);
            prop_assert_eq!(text.parse::<Setup>(), Ok(setup));
        }
    }
}
