//! The movement-phase tablebase: every position of the house rules with all
//! goats placed and 0..=4 goats eaten, solved by retrograde analysis.

use std::path::Path;

use baghchal_rules::Position;

/// The value of a position for the side to move.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Wdl {
    /// The side to move wins.
    Win,
    /// Endless play: neither side can force a result.
    Draw,
    /// The side to move loses.
    Loss,
}

/// What the tablebase knows of a position.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Probe {
    /// Win, draw or loss for the side to move.
    pub wdl: Wdl,
    /// Plies to the result with best play (0 for a draw).
    pub distance: u16,
}

/// A solved tablebase, in memory.
pub struct Tablebase {
    _private: (),
}

impl Tablebase {
    /// Reads a tablebase file written by [`Tablebase::save`].
    pub fn load(_path: &Path) -> std::io::Result<Tablebase> {
        Err(std::io::Error::other("the tablebase is not built yet"))
    }

    /// The value of `position`, if the tablebase covers it (house rules,
    /// movement phase, fewer goats eaten than the target).
    pub fn probe(&self, _position: &Position) -> Option<Probe> {
        None
    }
}
