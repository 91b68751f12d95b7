//! Why a setup, a position text or an action is refused.

use std::fmt;

use crate::{ParseSetupError, Position, Side};

/// Why a setup is not a position of the given rules.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PositionError {
    /// A bit above the 25 points is set.
    OffBoard,
    /// A point holds a tiger and a goat.
    Overlap,
    /// The number of tigers is not the rules' (4, or 3).
    TigerCount {
        /// What the rules want.
        expected: u8,
        /// What the setup has.
        found: u8,
    },
    /// Goats on the board + in hand + eaten is not the rules' total.
    GoatCount {
        /// What the rules want.
        expected: u8,
        /// What the setup adds up to.
        found: u16,
    },
    /// More goats eaten than the capture target.
    Eaten {
        /// The capture target.
        target: u8,
        /// Goats eaten in the setup.
        found: u8,
    },
    /// A ply count above the rules' limit.
    Ply {
        /// The ply limit.
        limit: u16,
        /// The setup's ply count.
        found: u16,
    },
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            PositionError::OffBoard => f.write_str("a piece stands off the board"),
            PositionError::Overlap => f.write_str("a point holds both a tiger and a goat"),
            PositionError::TigerCount { expected, found } => {
                write!(f, "expected {expected} tigers, found {found}")
            }
            PositionError::GoatCount { expected, found } => write!(
                f,
                "goats on the board, in hand and eaten add up to {found}, not {expected}"
            ),
            PositionError::Eaten { target, found } => write!(
                f,
                "{found} goats eaten is more than the capture target of {target}"
            ),
            PositionError::Ply { limit, found } => {
                write!(f, "ply {found} is beyond the ply limit of {limit}")
            }
        }
    }
}

impl std::error::Error for PositionError {}

/// A ply count that contradicts the side to move: turns alternate
/// strictly from the rules' first side, which therefore moves at the even
/// plies and the other side at the odd ones. No game reaches such a
/// position ([`Position::check_turn`]).
///
/// ```
/// use baghchal_rules::{Side, TurnError};
/// let e = TurnError { ply: 0, side: Side::Tiger, first: Side::Goat };
/// assert_eq!(e.to_string(), "at ply 0 it is the goats' turn, not the tigers': the goats move first, at the even plies");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct TurnError {
    /// The position's ply count.
    pub ply: u16,
    /// The side the position says is to move.
    pub side: Side,
    /// The side the rules let move first.
    pub first: Side,
}

impl fmt::Display for TurnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "at ply {} it is the {}' turn, not the {}': the {} move first, at the even plies",
            self.ply,
            self.side.other(),
            self.side,
            self.first
        )
    }
}

impl std::error::Error for TurnError {}

/// Why a position text could not be read as a position.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TextError {
    /// The text is malformed.
    Parse(ParseSetupError),
    /// The text is well formed but not a position of the rules.
    Invalid(PositionError),
}

impl fmt::Display for TextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TextError::Parse(e) => e.fmt(f),
            TextError::Invalid(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for TextError {}

/// Why an action cannot be played in a position. The position is left
/// as it was.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum IllegalAction {
    /// The game has finished.
    GameOver,
    /// Goats are in hand: the goats' only action is a placement.
    MustPlace,
    /// A placement by the tigers, or by goats with none in hand.
    CannotPlace,
    /// No piece of the side to move stands on the starting point.
    NotYourPiece,
    /// No line of the board joins the points that way: a step between
    /// points that are not neighbours, or a jump that is not two points
    /// along one line.
    NotALine,
    /// The destination is occupied.
    Occupied,
    /// Goats never jump.
    GoatsCannotJump,
    /// The jumped point does not hold a goat.
    NothingToCapture,
    /// More than one jump without the multi-jump variant.
    ChainNotAllowed,
    /// A chain that goes on after the capture target is reached.
    ChainPastTarget,
    /// The action would recreate a recorded movement-phase position.
    Repetition,
}

impl IllegalAction {
    /// A stable snake_case code for the wire.
    pub const fn code(self) -> &'static str {
        match self {
            IllegalAction::GameOver => "game_over",
            IllegalAction::MustPlace => "must_place",
            IllegalAction::CannotPlace => "cannot_place",
            IllegalAction::NotYourPiece => "not_your_piece",
            IllegalAction::NotALine => "not_a_line",
            IllegalAction::Occupied => "occupied",
            IllegalAction::GoatsCannotJump => "goats_cannot_jump",
            IllegalAction::NothingToCapture => "nothing_to_capture",
            IllegalAction::ChainNotAllowed => "chain_not_allowed",
            IllegalAction::ChainPastTarget => "chain_past_target",
            IllegalAction::Repetition => "repetition",
        }
    }
}

impl fmt::Display for IllegalAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            IllegalAction::GameOver => "the game is over",
            IllegalAction::MustPlace => "goats must be placed while any are in hand",
            IllegalAction::CannotPlace => "no goat can be placed now",
            IllegalAction::NotYourPiece => "no piece of the side to move stands there",
            IllegalAction::NotALine => "no line of the board joins those points that way",
            IllegalAction::Occupied => "that point is occupied",
            IllegalAction::GoatsCannotJump => "goats never jump",
            IllegalAction::NothingToCapture => "a jump must pass over a goat",
            IllegalAction::ChainNotAllowed => "only one capture per turn in these rules",
            IllegalAction::ChainPastTarget => "the capture target is reached: the chain ends",
            IllegalAction::Repetition => "that would repeat an earlier position",
        })
    }
}

impl std::error::Error for IllegalAction {}

/// An action refused by [`Position::play`], with the untouched position.
#[derive(Clone, Debug)]
pub struct PlayError {
    /// Why the action is illegal.
    pub reason: IllegalAction,
    /// The position, as it was.
    pub position: Position,
}

impl fmt::Display for PlayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.reason.fmt(f)
    }
}

impl std::error::Error for PlayError {}
