//! The ladder: each level is a search limit and a seeded error at the
//! root, after Stockfish's skill levels. A level scores every root action;
//! each score gets a random bonus of up to `noise` (thousandths of a goat),
//! and the best total is played. A higher level searches deeper and errs
//! less, so the ladder is monotone in strength.

use baghchal_rules::Action;
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

use crate::search::{Limits, WON};
use crate::Level;

/// A level's search limits and controlled error.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Skill {
    /// The deepest iteration.
    pub depth: u8,
    /// The most nodes searched per action.
    pub nodes: u64,
    /// The largest random bonus added to a root action's score, in
    /// thousandths of a goat (0: always the best action).
    pub noise: i32,
    /// log2 of the transposition table's entries.
    pub tt_bits: u8,
}

/// Depth, nodes and noise, per level from 400 to 2400.
const LADDER: [(u8, u64, i32); 21] = [
    (1, 1_000, 3_000), // 400
    (1, 1_000, 2_200), // 500
    (1, 1_000, 1_600), // 600
    (2, 2_000, 1_200), // 700
    (2, 2_000, 900),   // 800
    (2, 2_000, 650),   // 900
    (3, 3_000, 480),   // 1000
    (3, 3_000, 360),   // 1100
    (4, 4_000, 270),   // 1200
    (4, 4_000, 200),   // 1300
    (5, 5_000, 150),   // 1400
    (6, 6_000, 110),   // 1500
    (8, 8_000, 80),    // 1600
    (64, 10_000, 50),  // 1700
    (64, 14_000, 30),  // 1800
    (64, 20_000, 15),  // 1900
    (64, 40_000, 0),   // 2000
    (64, 80_000, 0),   // 2100
    (64, 160_000, 0),  // 2200
    (64, 320_000, 0),  // 2300
    (64, 640_000, 0),  // 2400
];

impl Skill {
    /// The skill of `level`.
    pub fn of(level: Level) -> Skill {
        let (depth, nodes, noise) = LADDER[(level.get() as usize - 400) / 100];
        Skill {
            depth,
            nodes,
            noise,
            // About one entry per node searched.
            tt_bits: (64 - nodes.leading_zeros()).clamp(10, 20) as u8,
        }
    }

    pub(crate) fn limits(&self) -> Limits {
        Limits {
            depth: self.depth,
            nodes: self.nodes,
            all_root_scores: self.noise > 0,
        }
    }

    /// Picks among the scored root actions (best first): each score plus a
    /// seeded bonus in `0..noise`; a won game is never thrown away and a
    /// lost one never chosen over a playable one.
    pub(crate) fn pick(&self, scored: &[(Action, i32)], seed: u64) -> Action {
        let (best, top) = scored[0];
        if self.noise == 0 || top > WON || scored.len() == 1 {
            return best;
        }
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut choice = (best, i32::MIN);
        for &(action, score) in scored {
            if score < -WON && top >= -WON {
                continue;
            }
            let total = score + rng.random_range(0..self.noise);
            if total > choice.1 {
                choice = (action, total);
            }
        }
        choice.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ladder_is_monotone_in_its_limits_and_error() {
        let skills: Vec<Skill> = Level::all().map(Skill::of).collect();
        for pair in skills.windows(2) {
            assert!(pair[0].depth <= pair[1].depth, "{pair:?}");
            assert!(pair[0].nodes <= pair[1].nodes, "{pair:?}");
            assert!(pair[0].noise >= pair[1].noise, "{pair:?}");
        }
        assert_eq!(Skill::of(Level::MAX).noise, 0);
    }
}
