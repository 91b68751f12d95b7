//! Numbering the positions of a tier: tigers up to symmetry, then the goats
//! on the other 21 points in the combinatorial number system.
//!
//! A tier is every position with the same number of goats on the board and
//! the same side to move. Its index is `class * per_class + rank`: `class`
//! numbers the sets of four tiger points up to the board's symmetries, and
//! `rank` the goats (or, when they are fewer, the empty points) among the 21
//! points the class's representative leaves free. When the representative is
//! itself symmetric, several ranks describe the same position; the smallest
//! is canonical and the others are never used.

use crate::symmetry::{self, COMPOSE};

/// Tigers on the board.
pub(crate) const TIGERS: u32 = 4;
/// Points not taken by a tiger.
pub(crate) const FREE: usize = 25 - TIGERS as usize;
/// Every point of the board.
pub(crate) const FULL: u32 = baghchal_rules::Bitboard::FULL.0;

/// `BINOMIAL[n][k]` = n choose k, for n, k ≤ 25.
pub(crate) const BINOMIAL: [[u32; 26]; 26] = {
    let mut t = [[0u32; 26]; 26];
    let mut n = 0;
    while n < 26 {
        t[n][0] = 1;
        let mut k = 1;
        while k <= n {
            t[n][k] = t[n - 1][k - 1] + if k < n { t[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    t
};

/// The colex rank of a set among the sets of its size.
#[inline]
pub(crate) fn rank_set(mut mask: u32) -> u32 {
    let mut rank = 0;
    let mut i = 1;
    while mask != 0 {
        let p = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        rank += BINOMIAL[p][i];
        i += 1;
    }
    rank
}

/// Bits ranked by [`LOW_RANK`]; the others by [`HIGH_RANK`].
const LOW_BITS: usize = 11;

/// The colex rank of each set of the low points.
static LOW_RANK: [u32; 1 << LOW_BITS] = {
    let mut t = [0u32; 1 << LOW_BITS];
    let mut m = 0;
    while m < 1 << LOW_BITS {
        let mut rank = 0;
        let mut i = 1;
        let mut p = 0;
        while p < LOW_BITS {
            if m & 1 << p != 0 {
                rank += BINOMIAL[p][i];
                i += 1;
            }
            p += 1;
        }
        t[m] = rank;
        m += 1;
    }
    t
};

/// What a set of the high points adds to the colex rank, by how many low
/// points precede them (at most 10: the smaller of goats and empty points).
static HIGH_RANK: [[u32; 11]; 1 << (FREE - LOW_BITS)] = {
    let mut t = [[0u32; 11]; 1 << (FREE - LOW_BITS)];
    let mut m = 0;
    while m < 1 << (FREE - LOW_BITS) {
        let mut before = 0;
        while before < 11 {
            let mut rank = 0;
            let mut i = before + 1;
            let mut p = 0;
            while p < FREE - LOW_BITS {
                if m & 1 << p != 0 {
                    rank += BINOMIAL[p + LOW_BITS][i];
                    i += 1;
                }
                p += 1;
            }
            t[m][before] = rank;
            before += 1;
        }
        m += 1;
    }
    t
};

/// The colex rank of a set of places among the 21 free points, with at
/// most 10 places.
#[inline]
pub(crate) fn rank_places(mask: u32) -> u32 {
    let low = mask as usize & ((1 << LOW_BITS) - 1);
    let high = mask as usize >> LOW_BITS;
    LOW_RANK[low] + HIGH_RANK[high][low.count_ones() as usize]
}

/// The set of `k` elements with colex rank `rank`.
#[inline]
pub(crate) fn unrank_set(rank: u32, k: usize) -> u32 {
    unrank_below::<FREE>(rank, k)
}

/// The set of `k` elements below `N` with colex rank `rank`.
#[inline]
fn unrank_below<const N: usize>(mut rank: u32, k: usize) -> u32 {
    let mut mask = 0;
    let mut p = N;
    for i in (1..=k).rev() {
        p -= 1;
        while BINOMIAL[p][i] > rank {
            p -= 1;
        }
        rank -= BINOMIAL[p][i];
        mask |= 1 << p;
    }
    mask
}

/// A set of tiger points up to symmetry.
#[derive(Clone, Debug)]
pub(crate) struct TigerClass {
    /// The smallest image of the set, as a 25-bit mask.
    pub rep: u32,
    /// The free points of `rep` in increasing order.
    pub free: [u8; FREE],
    /// For each point, its place among `free` (unused for tiger points).
    pub place: [u8; 25],
    /// The symmetries other than the identity that fix `rep`.
    pub stabilizer: Vec<u8>,
}

impl TigerClass {
    /// How many sets of tiger points this class stands for.
    pub fn orbit(&self) -> u64 {
        (symmetry::COUNT / (self.stabilizer.len() + 1)) as u64
    }
}

/// The numbering of positions with a given number of goats on the board.
#[derive(Clone, Debug)]
pub struct Indexer {
    classes: Vec<TigerClass>,
    /// By the colex rank of a tiger set: its class and a symmetry taking
    /// it to the class representative.
    lookup: Vec<(u16, u8)>,
}

impl Default for Indexer {
    fn default() -> Self {
        Indexer::new()
    }
}

impl Indexer {
    /// Builds the tiger classes (a few milliseconds).
    pub fn new() -> Indexer {
        let sets = BINOMIAL[25][TIGERS as usize] as usize;
        let mut reps = Vec::new();
        let mut best = Vec::with_capacity(sets);
        for rank in 0..sets as u32 {
            let set = unrank_any(rank, TIGERS as usize);
            let (s, rep) = (0..symmetry::COUNT)
                .map(|s| (s, symmetry::transform(set, s)))
                .min_by_key(|&(_, image)| image)
                .expect("eight symmetries");
            if rep == set {
                reps.push(rep);
            }
            best.push((s as u8, rep));
        }
        reps.sort_unstable();
        let classes: Vec<TigerClass> = reps
            .iter()
            .map(|&rep| {
                let mut free = [0u8; FREE];
                let mut place = [u8::MAX; 25];
                let mut n = 0;
                for sq in 0..25u8 {
                    if rep & 1 << sq == 0 {
                        free[n] = sq;
                        place[sq as usize] = n as u8;
                        n += 1;
                    }
                }
                let stabilizer = (1..symmetry::COUNT as u8)
                    .filter(|&s| symmetry::transform(rep, s as usize) == rep)
                    .collect();
                TigerClass {
                    rep,
                    free,
                    place,
                    stabilizer,
                }
            })
            .collect();
        let lookup = best
            .iter()
            .map(|&(s, rep)| {
                let class = reps.binary_search(&rep).expect("every rep is listed");
                (class as u16, s)
            })
            .collect();
        Indexer { classes, lookup }
    }

    /// The tiger classes.
    pub(crate) fn classes(&self) -> &[TigerClass] {
        &self.classes
    }

    /// Number of tiger sets up to symmetry.
    pub fn class_count(&self) -> usize {
        self.classes.len()
    }

    /// Entries of a tier with `goats` goats on the board (one side to move).
    pub fn tier_len(&self, goats: u32) -> usize {
        self.classes.len() * per_class(goats) as usize
    }

    /// Positions with `goats` goats on the board and one side to move: all
    /// of them, and up to symmetry.
    pub fn positions(&self, goats: u32) -> (u64, u64) {
        let per = per_class(goats);
        let mut all = 0;
        let mut classes = 0;
        for (c, class) in self.classes.iter().enumerate() {
            all += class.orbit() * per as u64;
            classes += if class.stabilizer.is_empty() {
                per as u64
            } else {
                let first = c as u32 * per;
                (first..first + per)
                    .filter(|&i| self.is_canonical(goats, i))
                    .count() as u64
            };
        }
        (all, classes)
    }

    /// The board of entry `index` of the tier with `goats` goats: (tigers,
    /// goats) as 25-bit masks.
    #[inline]
    pub fn board(&self, goats: u32, index: u32) -> (u32, u32) {
        let per = per_class(goats);
        let places = unrank_set(index % per, minor_count(goats));
        self.board_of(goats, index / per, places)
    }

    /// The board of tiger class `class` with the ranked points (goats or
    /// empty points) at `places` among the free points.
    #[inline]
    pub(crate) fn board_of(&self, goats: u32, class: u32, places: u32) -> (u32, u32) {
        let class = &self.classes[class as usize];
        let minor = expand(class, places);
        let goat_mask = if ranks_empties(goats) {
            FULL & !class.rep & !minor
        } else {
            minor
        };
        (class.rep, goat_mask)
    }

    /// The canonical entry of a board (any of its symmetric images gives
    /// the same entry).
    #[inline]
    pub fn index(&self, tigers: u32, goats: u32) -> u32 {
        let (class_id, s) = self.lookup[rank_set(tigers) as usize];
        let class = &self.classes[class_id as usize];
        let count = goats.count_ones();
        let minor = if ranks_empties(count) {
            FULL & !tigers & !goats
        } else {
            goats
        };
        let mut best = rank_places(compress(class, minor, s as usize));
        for &t in &class.stabilizer {
            let st = COMPOSE[t as usize][s as usize] as usize;
            best = best.min(rank_places(compress(class, minor, st)));
        }
        class_id as u32 * per_class(count) + best
    }

    /// Whether entry `index` is the canonical entry of its board.
    #[inline]
    pub fn is_canonical(&self, goats: u32, index: u32) -> bool {
        let per = per_class(goats);
        if self.classes[(index / per) as usize].stabilizer.is_empty() {
            return true;
        }
        let (t, g) = self.board(goats, index);
        self.index(t, g) == index
    }
}

/// Whether a tier ranks its empty points (fewer than its goats) rather
/// than its goats.
#[inline]
pub(crate) fn ranks_empties(goats: u32) -> bool {
    goats as usize * 2 > FREE
}

/// How many points a tier ranks.
#[inline]
pub(crate) fn minor_count(goats: u32) -> usize {
    if ranks_empties(goats) {
        FREE - goats as usize
    } else {
        goats as usize
    }
}

/// Entries per tiger class in a tier with `goats` goats.
#[inline]
pub fn per_class(goats: u32) -> u32 {
    BINOMIAL[FREE][goats as usize]
}

/// The image of `mask` under symmetry `s`, as places among `class.free`.
#[inline]
fn compress(class: &TigerClass, mut mask: u32, s: usize) -> u32 {
    let map = &symmetry::SQUARES[s];
    let mut out = 0;
    while mask != 0 {
        let sq = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        out |= 1 << class.place[map[sq] as usize];
    }
    out
}

/// Places among `class.free` back to points.
#[inline]
fn expand(class: &TigerClass, mut places: u32) -> u32 {
    let mut out = 0;
    while places != 0 {
        let p = places.trailing_zeros() as usize;
        places &= places - 1;
        out |= 1 << class.free[p];
    }
    out
}

/// The set of `k` points of the whole board with colex rank `rank`.
fn unrank_any(rank: u32, k: usize) -> u32 {
    unrank_below::<25>(rank, k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranking_and_unranking_are_inverse() {
        for k in [1, 3, 5, 10] {
            for rank in 0..BINOMIAL[FREE][k] {
                let set = unrank_set(rank, k);
                assert_eq!(set.count_ones() as usize, k);
                assert_eq!(rank_set(set), rank);
                assert_eq!(rank_places(set), rank);
            }
        }
    }

    #[test]
    fn the_tiger_sets_fall_into_classes_that_cover_them_all() {
        let ix = Indexer::new();
        let sets: u64 = ix.classes().iter().map(TigerClass::orbit).sum();
        assert_eq!(sets, BINOMIAL[25][4] as u64);
    }

    #[test]
    fn every_symmetric_image_of_a_board_has_the_same_entry() {
        let ix = Indexer::new();
        for goats in [2, 16, 20] {
            let per = per_class(goats);
            for index in (0..ix.tier_len(goats) as u32).step_by(997) {
                let (t, g) = ix.board(goats, index);
                assert_eq!(t & g, 0);
                assert_eq!(g.count_ones(), goats);
                let canonical = ix.index(t, g);
                assert_eq!(canonical / per, index / per);
                for s in 0..symmetry::COUNT {
                    let (ti, gi) = (symmetry::transform(t, s), symmetry::transform(g, s));
                    assert_eq!(ix.index(ti, gi), canonical);
                }
                if ix.is_canonical(goats, index) {
                    assert_eq!(canonical, index);
                }
            }
        }
    }

    #[test]
    fn the_movement_phase_has_the_known_number_of_positions() {
        let ix = Indexer::new();
        let (mut all, mut classes) = (0, 0);
        for goats in 16..=20 {
            let (a, c) = ix.positions(goats);
            all += 2 * a;
            classes += 2 * c;
        }
        assert_eq!(all, 705_743_500);
        assert_eq!(classes, 88_260_972);
    }
}
