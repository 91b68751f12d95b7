//! The movement-phase tablebase: every position of the house rules with all
//! goats placed and 0..=4 goats eaten, solved by retrograde analysis.
//!
//! Values are for the side to move, with the distance to the result in
//! plies under best play (the winner the fastest, the loser the slowest).
//! The tablebase knows the board, the side to move and the goats eaten,
//! nothing else: it ignores the repetition record and the ply limit, and
//! scores endless play as a draw. A game that must avoid repeating a
//! position or that nears the ply limit can therefore differ from it.
//!
//! Positions are stored once per symmetry class (the board with its
//! diagonals has the eight symmetries of the square), one byte each: 0 for
//! a draw, otherwise the distance plus one. Wins have odd distances and
//! losses even ones.
//!
//! ```no_run
//! use baghchal_rules::{Position, Rules};
//! use baghchal_tablebase::{Probe, Tablebase, Wdl};
//! let tb = Tablebase::load("baghchal.tb".as_ref()).unwrap();
//! // a1xc3 captures the fifth goat.
//! let pos = Position::from_text("T...T/GGGGG/GG.GG/GGGGG/TG.GT t 0 4 100", Rules::default()).unwrap();
//! assert_eq!(tb.probe(&pos), Some(Probe { wdl: Wdl::Win, distance: 1 }));
//! ```

#![warn(missing_docs)]

mod build;
mod file;
mod index;
pub mod symmetry;

use std::io;
use std::path::Path;
use std::sync::atomic::Ordering::Relaxed;

use baghchal_rules::{Bitboard, Phase, Position, Side};

pub use crate::build::{work, Progress, Shape, Silent};
pub use crate::index::Indexer;

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

impl Probe {
    /// Decodes a stored byte.
    fn decode(byte: u8) -> Probe {
        match byte {
            0 => Probe {
                wdl: Wdl::Draw,
                distance: 0,
            },
            b => Probe {
                wdl: if b % 2 == 0 { Wdl::Win } else { Wdl::Loss },
                distance: b as u16 - 1,
            },
        }
    }
}

/// Counts of a tablebase, for reports.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Stats {
    /// Positions stored (one per symmetry class), both sides to move.
    pub positions: u64,
    /// Wins for the side to move.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// Losses for the side to move.
    pub losses: u64,
    /// The longest distance to a result, in plies.
    pub longest: u16,
}

/// A solved tablebase, in memory.
pub struct Tablebase {
    shape: Shape,
    indexer: Indexer,
    /// The file's bytes: the header, then the values.
    bytes: Vec<u8>,
    /// Where each tier's values start in `bytes`.
    offsets: Vec<usize>,
}

impl Tablebase {
    /// Solves the house rules on the current rayon pool.
    pub fn build(progress: &dyn Progress) -> io::Result<Tablebase> {
        Tablebase::build_shape(Shape::HOUSE, progress)
    }

    /// Solves any shape (smaller ones serve tests). Fails with
    /// [`io::ErrorKind::Interrupted`] when `progress` is cancelled.
    pub fn build_shape(shape: Shape, progress: &dyn Progress) -> io::Result<Tablebase> {
        let indexer = Indexer::new();
        let cancelled = || {
            io::Error::new(
                io::ErrorKind::Interrupted,
                "the tablebase build was cancelled",
            )
        };
        let solved = build::solve(shape, &indexer, progress);
        if progress.cancelled() {
            return Err(cancelled());
        }
        // The file's bytes, a step at a time, each tier dropped once copied.
        let mut bytes = Vec::with_capacity(expected_len(shape, &indexer));
        bytes.resize(file::HEADER, 0);
        for tier in solved.tiers {
            for step in tier.chunks(build::STEP_BYTES) {
                progress.pause();
                if progress.cancelled() {
                    return Err(cancelled());
                }
                for v in step {
                    let v = v.load(Relaxed);
                    let byte = u8::try_from(v).map_err(|_| {
                        io::Error::other(format!("a distance of {} plies does not fit", v - 1))
                    })?;
                    bytes.push(byte);
                }
            }
        }
        file::seal(shape, &mut bytes, || progress.pause());
        Ok(Tablebase::from_bytes(shape, indexer, bytes))
    }

    fn from_bytes(shape: Shape, indexer: Indexer, bytes: Vec<u8>) -> Tablebase {
        let mut offsets = Vec::new();
        let mut at = file::HEADER;
        for eaten in 0..shape.target {
            offsets.push(at);
            at += 2 * indexer.tier_len(shape.goats_on_board(eaten));
        }
        debug_assert_eq!(at, bytes.len());
        Tablebase {
            shape,
            indexer,
            bytes,
            offsets,
        }
    }

    /// Reads a tablebase file written by [`Tablebase::save`], checking its
    /// header, size and checksum.
    pub fn load(path: &Path) -> io::Result<Tablebase> {
        let bytes = std::fs::read(path)?;
        let indexer = Indexer::new();
        let shape = file::check(&bytes, |shape| expected_len(shape, &indexer))?;
        Ok(Tablebase::from_bytes(shape, indexer, bytes))
    }

    /// Writes the tablebase to `path`.
    pub fn save(&self, path: &Path) -> io::Result<()> {
        std::fs::write(path, &self.bytes)
    }

    /// The shape this tablebase solves.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The size of the file, in bytes.
    pub fn file_len(&self) -> usize {
        self.bytes.len()
    }

    /// The value of `position`, if the tablebase covers it (house rules,
    /// movement phase, fewer goats eaten than the target). The repetition
    /// rule and the ply limit of the position's rules are not considered.
    pub fn probe(&self, position: &Position) -> Option<Probe> {
        let rules = position.rules();
        let house = rules.tigers() == 4
            && rules.total_goats() as u32 == self.shape.goats
            && rules.goats_to_win() as u32 == self.shape.target
            && !rules.multi_jump();
        if !house || position.phase() != Phase::Movement {
            return None;
        }
        self.probe_board(
            position.tigers(),
            position.goats(),
            position.side_to_move(),
            position.eaten(),
        )
    }

    /// The value of a board with `eaten` goats eaten and `side` to move, if
    /// covered: four tigers, `eaten` below the target and the rest of the
    /// goats on the board.
    pub fn probe_board(
        &self,
        tigers: Bitboard,
        goats: Bitboard,
        side: Side,
        eaten: u8,
    ) -> Option<Probe> {
        let eaten = eaten as u32;
        let covered = eaten < self.shape.target
            && tigers.count() == index::TIGERS
            && goats.count() == self.shape.goats_on_board(eaten)
            && (tigers.0 | goats.0) & !index::FULL == 0
            && tigers.0 & goats.0 == 0;
        if !covered {
            return None;
        }
        let len = self.indexer.tier_len(self.shape.goats_on_board(eaten));
        let index = self.indexer.index(tigers.0, goats.0) as usize;
        let side = match side {
            Side::Goat => 0,
            Side::Tiger => len,
        };
        Some(Probe::decode(
            self.bytes[self.offsets[eaten as usize] + side + index],
        ))
    }

    /// Counts the values stored (canonical entries only).
    pub fn stats(&self) -> Stats {
        let mut stats = Stats::default();
        for eaten in 0..self.shape.target {
            let goats = self.shape.goats_on_board(eaten);
            let len = self.indexer.tier_len(goats);
            let start = self.offsets[eaten as usize];
            for side in 0..2 {
                let values = &self.bytes[start + side * len..start + (side + 1) * len];
                for (index, &byte) in values.iter().enumerate() {
                    if !self.indexer.is_canonical(goats, index as u32) {
                        continue;
                    }
                    stats.positions += 1;
                    let probe = Probe::decode(byte);
                    match probe.wdl {
                        Wdl::Win => stats.wins += 1,
                        Wdl::Draw => stats.draws += 1,
                        Wdl::Loss => stats.losses += 1,
                    }
                    stats.longest = stats.longest.max(probe.distance);
                }
            }
        }
        stats
    }
}

/// The file size of a shape's tablebase.
fn expected_len(shape: Shape, indexer: &Indexer) -> usize {
    file::HEADER
        + (0..shape.target)
            .map(|e| 2 * indexer.tier_len(shape.goats_on_board(e)))
            .sum::<usize>()
}
