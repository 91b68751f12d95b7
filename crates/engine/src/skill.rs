//! The ladder: each level is a point on one path through search limits
//! and a seeded error at the root, after Stockfish's skill levels. A level
//! scores every root action; each score gets a random bonus of up to
//! `noise` (thousandths of a goat), and the best total is played.
//!
//! Along the path, the node limit grows by half per unit of strength and
//! the error shrinks geometrically until it vanishes, so that every step
//! up the path searches more and errs less: the ladder is monotone in
//! strength by construction. Where on the path each label sits was
//! measured: a self-play tournament over evenly spaced points of the path
//! gave their ratings, and each label was placed where the fitted rating
//! curve stands 100 Elo per label below the top (`baghchal tournament
//! --strengths ... --place`; docs/strength.md).

use baghchal_rules::Action;
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

use crate::search::{Limits, WON};
use crate::Level;

/// A level's search limits and controlled error.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct Skill {
    /// The level's place on the path: higher is stronger, about 100 Elo
    /// per unit (the labels sit from 2.56 for 400 to 22.3 for 2400).
    pub strength: f64,
    /// The most nodes searched per action.
    pub nodes: u64,
    /// The largest random bonus added to a root action's score, in
    /// thousandths of a goat (0: always the best action).
    pub noise: i32,
    /// log2 of the transposition table's entries.
    pub tt_bits: u8,
    /// Whether the goats' placements come from the placement book where
    /// it holds the position (the top level only: the labels below were
    /// placed by measurement without it).
    pub book: bool,
    /// Whether the goats' placements are screened first by a search that
    /// counts only the goats eaten: the level then chooses among the
    /// placements that give no goat away by force within that search (the
    /// top level only, like the book).
    pub guard: bool,
}

/// Nodes at strength 0, and their growth per unit of strength.
const NODES_AT_ZERO: f64 = 300.0;
const NODES_GROWTH: f64 = 1.5;
/// The root error at strength 0; it falls geometrically to
/// `LAST_NOISE` at strength `CLEAN_FROM` and is zero from there on.
const NOISE_AT_ZERO: f64 = 3000.0;
const LAST_NOISE: f64 = 10.0;
const CLEAN_FROM: f64 = 16.0;
/// The placement book is played from the top label's strength on.
const BOOK_FROM: f64 = LADDER[LADDER.len() - 1];

/// Each label's place on the path, from 400 to 2400 (measured; see the
/// module's documentation).
const LADDER: [f64; 21] = [
    2.56, 3.33, 4.11, 4.89, 5.68, 6.48, 7.29, 8.12, 8.96, 9.82, 10.70, 11.60, 12.53, 13.50, 14.50,
    15.56, 16.67, 17.87, 19.16, 20.61, 22.30,
];

impl Skill {
    /// The skill of `level`.
    pub fn of(level: Level) -> Skill {
        Skill::at(LADDER[(level.get() as usize - 400) / 100])
    }

    /// The point of the path at `strength`.
    pub fn at(strength: f64) -> Skill {
        let nodes = (NODES_AT_ZERO * NODES_GROWTH.powf(strength))
            .round()
            .max(1.0) as u64;
        let noise = if strength >= CLEAN_FROM {
            0
        } else {
            (NOISE_AT_ZERO * (LAST_NOISE / NOISE_AT_ZERO).powf(strength / CLEAN_FROM)).round()
                as i32
        };
        Skill {
            strength,
            nodes,
            noise,
            // About one entry per node searched.
            tt_bits: (64 - nodes.leading_zeros()).clamp(10, 20) as u8,
            book: strength >= BOOK_FROM,
            guard: strength >= BOOK_FROM,
        }
    }

    pub(crate) fn limits(&self) -> Limits {
        Limits {
            depth: u8::MAX,
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
            assert!(pair[0].strength < pair[1].strength, "{pair:?}");
            assert!(pair[0].nodes < pair[1].nodes, "{pair:?}");
            assert!(pair[0].noise >= pair[1].noise, "{pair:?}");
        }
        assert_eq!(Skill::of(Level::MAX).noise, 0);
        // Only the top level plays the placement book.
        assert!(Skill::of(Level::MAX).book);
        assert!(skills[..skills.len() - 1].iter().all(|s| !s.book));
        assert!(Skill::of(Level::MAX).guard);
        assert!(skills[..skills.len() - 1].iter().all(|s| !s.guard));
        // The weakest level may throw away more than a goat's worth.
        assert!(Skill::of(Level::MIN).noise > crate::eval::GOAT);
    }
}
