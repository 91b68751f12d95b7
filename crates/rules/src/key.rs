//! The layout of a position key: the number that identifies a board and
//! the side to move (not the counters), which the repetition rule compares
//! and [`Position::key`](crate::Position::key) returns.
//!
//! Bits 0..25 are the tigers' points and bits 25..50 the goats' points,
//! each by [`Square::index`](crate::Square::index); bit 50 is set when the
//! tigers are to move.
//!
//! ```
//! use baghchal_rules::{key, Position, Side};
//! let pos = Position::default();
//! let k = pos.key();
//! assert_eq!(k, key::pack(pos.tigers().0, pos.goats().0, Side::Goat));
//! assert_eq!(key::tigers(k), pos.tigers().0);
//! assert_eq!(key::goats(k), 0);
//! assert_eq!(key::side(k), Side::Goat);
//! ```

use crate::Side;

/// Where the goats' points start.
pub const GOATS_SHIFT: u32 = 25;

/// The bit set when the tigers are to move.
pub const TIGERS_TO_MOVE: u64 = 1 << 50;

/// The 25 bits of one side's points.
const POINTS: u64 = (1 << 25) - 1;

/// The key of the tigers' and the goats' points (25-bit sets) with `side`
/// to move.
#[inline(always)]
pub const fn pack(tigers: u32, goats: u32, side: Side) -> u64 {
    let to_move = match side {
        Side::Tiger => TIGERS_TO_MOVE,
        Side::Goat => 0,
    };
    tigers as u64 | (goats as u64) << GOATS_SHIFT | to_move
}

/// The tigers' points of `key`.
#[inline(always)]
pub const fn tigers(key: u64) -> u32 {
    (key & POINTS) as u32
}

/// The goats' points of `key`.
#[inline(always)]
pub const fn goats(key: u64) -> u32 {
    (key >> GOATS_SHIFT & POINTS) as u32
}

/// The side to move of `key`.
#[inline(always)]
pub const fn side(key: u64) -> Side {
    if key & TIGERS_TO_MOVE != 0 {
        Side::Tiger
    } else {
        Side::Goat
    }
}
