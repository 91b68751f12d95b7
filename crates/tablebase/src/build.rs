//! Retrograde analysis, tier by tier.
//!
//! A tier holds every position with the same number of goats eaten, both
//! sides to move. Captures leave the tier for the one below (one more goat
//! eaten), which is solved first; a capture that reaches the target wins at
//! once. Within a tier the solver works level by level in increasing
//! distance: a position lost in `d` plies makes each of its predecessors (un-moves) a
//! win in `d + 1`; a position won in `d` plies makes its predecessors
//! candidates for a loss, which is confirmed by looking at all of the
//! candidate's actions. Positions never reached this way are draws: neither
//! side can force a result, so play goes on forever.
//!
//! Values are stored as `u16`: 0 for a draw (or unknown while solving),
//! otherwise the distance in plies plus one. A win for the side to move
//! always has an odd distance and a loss an even one, so the parity tells
//! them apart.

use std::sync::atomic::{AtomicU16, Ordering::Relaxed};

use baghchal_rules::{board, Square};
use rayon::prelude::*;

use crate::index::{Indexer, FULL};

/// The size of a movement-phase game: goats on the board before any
/// capture, and the number of captures that wins for the tigers.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Shape {
    /// Goats on the board with none eaten.
    pub goats: u32,
    /// Captures that win for the tigers.
    pub target: u32,
}

impl Shape {
    /// The house rules: twenty goats, five captures to win.
    pub const HOUSE: Shape = Shape {
        goats: 20,
        target: 5,
    };

    /// Goats on the board in the tier with `eaten` goats eaten.
    pub fn goats_on_board(&self, eaten: u32) -> u32 {
        self.goats - eaten
    }

    /// Whether the shape can be solved: at least one tier, at least one
    /// goat on the board in every tier, and room for the pieces.
    pub fn is_valid(&self) -> bool {
        self.target >= 1 && self.goats >= self.target && self.goats <= crate::index::FREE as u32
    }
}

/// Reports the progress of a build.
pub trait Progress: Sync {
    /// The solver starts on the tier with `eaten` goats eaten.
    fn tier(&self, eaten: u32);
    /// `n` more units of work are done (see [`work`]).
    fn advance(&self, n: u64);
    /// Whether to stop: the solver asks between steps and, once told, skips
    /// the rest of the work (the build then fails as interrupted).
    fn cancelled(&self) -> bool {
        false
    }
    /// Called by each build thread between two steps of its work, and
    /// never inside one: a build that shares its machine can block here to
    /// let other work run. A step is a bounded chunk of work (1,024
    /// entries looked at, 64 resolved entries spread, or 256 KiB cleared,
    /// copied or summed): some 40 µs on average on the house rules, and
    /// almost always under a millisecond. The solver asks
    /// [`Progress::cancelled`] right after, so a pause should end soon once
    /// the build is cancelled.
    fn pause(&self) {}
}

/// Entries looked at for the first time in one step.
const EXAMINE_STEP: u32 = 1 << 10;

/// Resolved entries whose predecessors are visited in one step: each has
/// a dozen or so, each looked up at random in the tier's values, and a
/// loss candidate's actions too.
const SPREAD_STEP: usize = 1 << 6;

/// Bytes of plain sweeping (clearing, copying, summing) in one step.
pub(crate) const STEP_BYTES: usize = 1 << 18;

/// The most entries in one piece of a list (a megabyte).
const PIECE: usize = 1 << 18;

/// A [`Progress`] that reports nothing.
pub struct Silent;

impl Progress for Silent {
    fn tier(&self, _eaten: u32) {}
    fn advance(&self, _n: u64) {}
}

/// Units of work in the build of `shape`: each entry counts once when it is
/// first examined and once when it is resolved (or found drawn).
pub fn work(shape: Shape, indexer: &Indexer) -> u64 {
    (0..shape.target)
        .map(|e| 4 * indexer.tier_len(shape.goats_on_board(e)) as u64)
        .sum()
}

/// The value of a position for the side to move, as stored while solving.
#[inline]
pub(crate) fn is_win(value: u16) -> bool {
    value != 0 && value.is_multiple_of(2)
}

#[inline]
pub(crate) fn is_loss(value: u16) -> bool {
    value % 2 == 1
}

/// The points joined to point `sq` by a line, as a bit set.
#[inline]
fn neighbours(sq: usize) -> u32 {
    board::neighbours(Square::ALL[sq]).0
}

#[inline]
fn squares(mut mask: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if mask == 0 {
            None
        } else {
            let sq = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            Some(sq)
        }
    })
}

/// Lists of entries by distance, each list kept in the pieces that the
/// threads filled: merging two moves pieces, never entries, and a piece
/// grows to [`PIECE`] entries at most, so that no step of the solver
/// copies a long list.
#[derive(Default)]
struct Buckets(Vec<Vec<Vec<u32>>>);

impl Buckets {
    fn push(&mut self, distance: usize, item: u32) {
        if self.0.len() <= distance {
            self.0.resize_with(distance + 1, Vec::new);
        }
        let pieces = &mut self.0[distance];
        match pieces.last_mut() {
            Some(piece) if piece.len() < PIECE => piece.push(item),
            _ => pieces.push(vec![item]),
        }
    }

    fn merge(mut self, mut other: Buckets) -> Buckets {
        if self.0.len() < other.0.len() {
            std::mem::swap(&mut self, &mut other);
        }
        for (mine, theirs) in self.0.iter_mut().zip(other.0) {
            mine.extend(theirs);
        }
        self
    }

    fn take(&mut self, distance: usize) -> Vec<Vec<u32>> {
        self.0
            .get_mut(distance)
            .map(std::mem::take)
            .unwrap_or_default()
    }
}

/// What the first look at a position finds.
#[derive(Default)]
struct Found {
    /// Positions whose value is known (already stored), by distance.
    resolved: Buckets,
    /// Positions a capture wins, by distance, unless a shorter win turns up.
    capture_wins: Buckets,
    /// Canonical entries examined.
    canonical: u64,
}

impl Found {
    fn merge(self, other: Found) -> Found {
        Found {
            resolved: self.resolved.merge(other.resolved),
            capture_wins: self.capture_wins.merge(other.capture_wins),
            canonical: self.canonical + other.canonical,
        }
    }
}

/// One tier being solved. Items are `side * len + index`, side 0 for the
/// goats to move and 1 for the tigers.
struct Tier<'a> {
    indexer: &'a Indexer,
    goats: u32,
    len: u32,
    /// Whether a capture reaches the target.
    last: bool,
    /// By rank within a tiger class: the places of the ranked points.
    places: Vec<u32>,
    /// The solved tier below (goats to move first), unless `last`.
    below: &'a [AtomicU16],
    values: Vec<AtomicU16>,
}

impl Tier<'_> {
    #[inline]
    fn value(&self, item: u32) -> u16 {
        self.values[item as usize].load(Relaxed)
    }

    #[inline]
    fn claim(&self, item: u32, value: u16) -> bool {
        self.values[item as usize]
            .compare_exchange(0, value, Relaxed, Relaxed)
            .is_ok()
    }

    #[inline]
    fn board(&self, item: u32) -> (bool, u32, u32) {
        let tiger = item >= self.len;
        let index = if tiger { item - self.len } else { item };
        let per = self.places.len() as u32;
        let places = self.places[(index % per) as usize];
        let (t, g) = self.indexer.board_of(self.goats, index / per, places);
        (tiger, t, g)
    }

    #[inline]
    fn item(&self, tiger: bool, t: u32, g: u32) -> u32 {
        self.indexer.index(t, g) + if tiger { self.len } else { 0 }
    }

    /// The value after a capture by the tigers, for the goats to move.
    #[inline]
    fn below(&self, t: u32, g: u32) -> u16 {
        self.below[self.indexer.index(t, g) as usize].load(Relaxed)
    }

    /// Calls `f` with every in-tier successor (as an item) of a position.
    /// Returns false as soon as `f` does.
    #[inline]
    fn steps(&self, tiger: bool, t: u32, g: u32, mut f: impl FnMut(u32) -> bool) -> bool {
        let empty = FULL & !t & !g;
        if tiger {
            for from in squares(t) {
                for to in squares(neighbours(from) & empty) {
                    let child = self.item(false, t ^ (1 << from | 1 << to), g);
                    if !f(child) {
                        return false;
                    }
                }
            }
        } else {
            for to in squares(empty) {
                for from in squares(neighbours(to) & g) {
                    let child = self.item(true, t, g ^ (1 << from | 1 << to));
                    if !f(child) {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// Calls `f` with the board after every capture the tigers have.
    #[inline]
    fn captures(&self, t: u32, g: u32, mut f: impl FnMut(u32, u32) -> bool) -> bool {
        let empty = FULL & !t & !g;
        for from in squares(t) {
            for line in board::jump_lines(Square::ALL[from]) {
                let (over, land) = (line.over.index(), line.land.index());
                if g & 1 << over != 0
                    && empty & 1 << land != 0
                    && !f(t ^ (1 << from | 1 << land), g ^ 1 << over)
                {
                    return false;
                }
            }
        }
        true
    }

    /// Calls `f` with every in-tier predecessor (as an item) of a position.
    #[inline]
    fn unmoves(&self, tiger: bool, t: u32, g: u32, mut f: impl FnMut(u32)) {
        let empty = FULL & !t & !g;
        if tiger {
            // The goats just stepped.
            for to in squares(g) {
                for from in squares(neighbours(to) & empty) {
                    f(self.item(false, t, g ^ (1 << from | 1 << to)));
                }
            }
        } else {
            for to in squares(t) {
                for from in squares(neighbours(to) & empty) {
                    f(self.item(true, t ^ (1 << from | 1 << to), g));
                }
            }
        }
    }

    /// First look at one entry.
    fn examine(&self, item: u32, found: &mut Found) {
        let (tiger, t, g) = self.board(item);
        let empty = FULL & !t & !g;
        let can_step = if tiger {
            squares(t).any(|sq| neighbours(sq) & empty != 0)
        } else {
            squares(empty).any(|sq| neighbours(sq) & g != 0)
        };
        if !tiger {
            if !can_step {
                self.values[item as usize].store(1, Relaxed);
                found.resolved.push(0, item);
            }
            return;
        }
        let mut any_capture = false;
        let mut best_win = u16::MAX;
        let mut all_lose = true;
        let mut longest_loss = 0;
        self.captures(t, g, |t2, g2| {
            any_capture = true;
            if self.last {
                best_win = 1;
                return false;
            }
            let v = self.below(t2, g2);
            if is_loss(v) {
                best_win = best_win.min(v);
            } else if is_win(v) {
                longest_loss = longest_loss.max(v);
            } else {
                all_lose = false;
            }
            true
        });
        if best_win == 1 {
            self.values[item as usize].store(2, Relaxed);
            found.resolved.push(1, item);
        } else if best_win != u16::MAX {
            // A goat loss in `best_win - 1` plies: a tiger win one ply later.
            found.capture_wins.push(best_win as usize, item);
        } else if !can_step && (!any_capture || all_lose) {
            // Every action (if any) leads to a goat win.
            let distance = if any_capture {
                longest_loss as usize
            } else {
                0
            };
            self.values[item as usize].store(distance as u16 + 1, Relaxed);
            found.resolved.push(distance, item);
        }
    }

    /// If every action of an unresolved position leads to a win for the
    /// opponent, its distance (one more than the longest of them).
    fn lost(&self, item: u32) -> Option<u16> {
        let (tiger, t, g) = self.board(item);
        let mut longest = 0;
        let all = self.steps(tiger, t, g, |child| {
            let v = self.value(child);
            longest = longest.max(v);
            is_win(v)
        });
        if !all {
            return None;
        }
        if tiger {
            let all = self.captures(t, g, |t2, g2| {
                if self.last {
                    return false;
                }
                let v = self.below(t2, g2);
                longest = longest.max(v);
                is_win(v)
            });
            if !all {
                return None;
            }
        }
        // `longest` is the stored value: distance + 1.
        Some(longest)
    }

    /// Spreads the results of the positions resolved at `distance`.
    fn spread(&self, frontier: &[Vec<u32>], distance: usize, progress: &dyn Progress) -> Buckets {
        frontier
            .par_iter()
            .flat_map(|piece| piece.par_chunks(SPREAD_STEP))
            .fold(Buckets::default, |mut out, chunk| {
                progress.pause();
                if progress.cancelled() {
                    return out;
                }
                for &item in chunk {
                    let value = self.value(item);
                    let (tiger, t, g) = self.board(item);
                    if is_loss(value) {
                        let win = distance as u16 + 2;
                        self.unmoves(tiger, t, g, |parent| {
                            if self.claim(parent, win) {
                                out.push(distance + 1, parent);
                            }
                        });
                    } else {
                        self.unmoves(tiger, t, g, |parent| {
                            if self.value(parent) != 0 {
                                return;
                            }
                            if let Some(d) = self.lost(parent) {
                                if self.claim(parent, d + 1) {
                                    out.push(d as usize, parent);
                                }
                            }
                        });
                    }
                }
                out
            })
            .reduce(Buckets::default, Buckets::merge)
    }

    fn solve(&self, progress: &dyn Progress) {
        let per = crate::index::per_class(self.goats);
        let classes = self.indexer.class_count() as u32;
        // Each class in parts of at most EXAMINE_STEP entries.
        let parts = per.div_ceil(EXAMINE_STEP);
        let found = (0..2 * classes * parts)
            .into_par_iter()
            .fold(Found::default, |mut found, c| {
                progress.pause();
                if progress.cancelled() {
                    return found;
                }
                let (c, part) = (c / parts, c % parts);
                let (side, class) = (c / classes, c % classes);
                let start = side * self.len + class * per;
                let first = start + part * EXAMINE_STEP;
                let end = (first + EXAMINE_STEP).min(start + per);
                let symmetric = !self.indexer.classes()[class as usize].stabilizer.is_empty();
                for item in first..end {
                    if symmetric
                        && !self
                            .indexer
                            .is_canonical(self.goats, item - side * self.len)
                    {
                        continue;
                    }
                    found.canonical += 1;
                    self.examine(item, &mut found);
                }
                progress.advance((end - first) as u64);
                found
            })
            .reduce(Found::default, Found::merge);
        let Found {
            mut resolved,
            mut capture_wins,
            canonical,
        } = found;
        let mut done = 0u64;
        let mut distance = 0;
        while distance < resolved.0.len() || distance < capture_wins.0.len() {
            if progress.cancelled() {
                return;
            }
            let wins = capture_wins.take(distance);
            let claimed: Vec<Vec<u32>> = wins
                .par_iter()
                .flat_map(|piece| piece.par_chunks(SPREAD_STEP))
                .fold(Vec::new, |mut claimed, chunk| {
                    progress.pause();
                    let won = chunk.iter().copied();
                    claimed.extend(won.filter(|&item| self.claim(item, distance as u16 + 1)));
                    claimed
                })
                .collect();
            drop(wins);
            let mut frontier = resolved.take(distance);
            frontier.extend(claimed);
            let next = self.spread(&frontier, distance, progress);
            resolved = resolved.merge(next);
            let count = frontier.iter().map(Vec::len).sum::<usize>() as u64;
            done += count;
            progress.advance(count);
            distance += 1;
        }
        // Draws, and the unused entries of symmetric classes.
        progress.advance(2 * self.len as u64 - done);
        debug_assert!(done <= canonical);
    }
}

/// The values of every tier, solved.
pub struct Solved {
    /// By goats eaten: the goats-to-move entries, then the tigers-to-move
    /// entries; 0 for a draw (and for unused entries), else distance + 1.
    /// Left atomic, as solved: reading them costs the same as a plain
    /// `u16`, and turning them into plain ones would be one more sweep of
    /// every tier.
    pub tiers: Vec<Vec<AtomicU16>>,
}

/// `n` zeroed values, allocated and cleared a step at a time.
fn zeroed(n: usize, progress: &dyn Progress) -> Vec<AtomicU16> {
    let mut values = Vec::with_capacity(n);
    while values.len() < n {
        progress.pause();
        let step = (n - values.len()).min(STEP_BYTES / 2);
        values.extend((0..step).map(|_| AtomicU16::new(0)));
    }
    values
}

/// Solves every tier of `shape`, the last (most goats eaten) first, on the
/// current rayon pool. Once `progress` is cancelled the values are
/// incomplete.
pub fn solve(shape: Shape, indexer: &Indexer, progress: &dyn Progress) -> Solved {
    assert!(shape.is_valid(), "unsolvable shape {shape:?}");
    let mut tiers: Vec<Vec<AtomicU16>> = Vec::new();
    for eaten in (0..shape.target).rev() {
        if progress.cancelled() {
            break;
        }
        progress.tier(eaten);
        let goats = shape.goats_on_board(eaten);
        let len = indexer.tier_len(goats) as u32;
        let below: &[AtomicU16] = tiers.last().map(Vec::as_slice).unwrap_or(&[]);
        let tier = Tier {
            indexer,
            goats,
            len,
            last: eaten + 1 == shape.target,
            places: (0..crate::index::per_class(goats))
                .map(|rank| crate::index::unrank_set(rank, crate::index::minor_count(goats)))
                .collect(),
            below,
            values: zeroed(2 * len as usize, progress),
        };
        tier.solve(progress);
        tiers.push(tier.values);
    }
    tiers.reverse();
    Solved { tiers }
}
