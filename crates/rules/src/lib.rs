//! The rules of Bagh-Chal, the Nepali hunt game of four tigers against
//! twenty goats: the board, the actions and their notation, positions and
//! their text form, the house rule profile with its variants, the endings,
//! game records and perft.
//!
//! The crate is pure: no I/O, no async. Validation is a type boundary: an
//! unchecked [`Setup`] becomes a [`Position`] only through
//! [`Position::from_setup`], and playing an illegal [`Action`] returns an
//! error with the position untouched.
//!
//! ```
//! use baghchal_rules::{Action, Position, Side, Square};
//!
//! let mut pos = Position::default();
//! for text in ["c3", "a1-b2", "a1"] {
//!     pos = pos.play(text.parse().unwrap()).unwrap();
//! }
//! assert_eq!(pos.to_string(), "T...T/...../..G../.T.../G...T t 18 0 3");
//! assert!(pos.legal_actions().contains(&Action::Step { from: Square::B2, to: Square::B1 }));
//! ```

#![warn(missing_docs)]

pub mod board;
pub mod key;
pub mod notation;

mod action;
mod destinations;
mod error;
mod game;
mod movegen;
mod outcome;
mod perft;
mod position;
mod rules;
mod setup;
mod square;
mod text;

pub use crate::action::{Action, Jump, ParseActionError, Side, MAX_CHAIN};
pub use crate::destinations::Destinations;
pub use crate::error::{IllegalAction, PlayError, PositionError, TextError, TurnError};
pub use crate::game::{goats_to_trap, Game, ParseRecordError, Record, ReplayError};
pub use crate::outcome::{Outcome, ParseReasonError, Reason};
pub use crate::perft::{perft, perft_divide};
pub use crate::position::{Phase, Position};
pub use crate::rules::{
    ParseRulesError, Repetition, Rules, RulesError, RulesOptions, GOATS_TO_WIN, PLY_LIMIT,
};
pub use crate::setup::Setup;
pub use crate::square::{Bitboard, ParseSquareError, Square, Squares};
pub use crate::text::ParseSetupError;

/// The position text of the house start.
pub const START_TEXT: &str = "T...T/...../...../...../T...T g 20 0 0";
