//! The text form of a [`Setup`]: printing it, and reading it with a typed
//! error for each field.

use std::fmt;
use std::str::FromStr;

use crate::{Bitboard, Setup, Side, Square};

impl fmt::Display for Setup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The board is put together first and written once: the server
        // writes the position of every state it sends.
        let mut board = [b'/'; 29];
        for row in 0..5u8 {
            for column in 0..5u8 {
                let sq = Square::from_coords(column, row).expect("on the board");
                board[usize::from(4 - row) * 6 + usize::from(column)] = if self.tigers.contains(sq)
                {
                    b'T'
                } else if self.goats.contains(sq) {
                    b'G'
                } else {
                    b'.'
                };
            }
        }
        f.write_str(std::str::from_utf8(&board).map_err(|_| fmt::Error)?)?;
        write!(
            f,
            " {} {} {} {}",
            self.side.char(),
            self.in_hand,
            self.eaten,
            self.ply
        )
    }
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
