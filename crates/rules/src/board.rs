//! The lines of the board: which points are neighbours, and which jumps
//! exist.
//!
//! Horizontal and vertical neighbours are connected everywhere; diagonal
//! lines leave only the points whose row + column is even (see
//! [`Square::has_diagonals`]).

use crate::{Bitboard, Square};

/// The eight directions as (column, row) offsets.
const DIRECTIONS: [(i8, i8); 8] = [
    (1, 0),
    (-1, 0),
    (0, 1),
    (0, -1),
    (1, 1),
    (1, -1),
    (-1, 1),
    (-1, -1),
];

/// A straight jump: over the middle point onto the landing point.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct JumpLine {
    /// The point jumped over.
    pub over: Square,
    /// The landing point.
    pub land: Square,
}

const fn offset(sq: u8, d: (i8, i8), times: i8) -> Option<u8> {
    let c = (sq % 5) as i8 + d.0 * times;
    let r = (sq / 5) as i8 + d.1 * times;
    if c < 0 || c > 4 || r < 0 || r > 4 {
        None
    } else {
        Some((r * 5 + c) as u8)
    }
}

const fn diagonals_at(sq: u8) -> bool {
    (sq % 5 + sq / 5).is_multiple_of(2)
}

const NEIGHBOURS: [Bitboard; 25] = {
    let mut table = [Bitboard(0); 25];
    let mut sq = 0;
    while sq < 25 {
        let mut bits = 0u32;
        let mut d = 0;
        while d < 8 {
            let dir = DIRECTIONS[d];
            let diagonal = dir.0 != 0 && dir.1 != 0;
            if !diagonal || diagonals_at(sq) {
                if let Some(to) = offset(sq, dir, 1) {
                    bits |= 1 << to;
                }
            }
            d += 1;
        }
        table[sq as usize] = Bitboard(bits);
        sq += 1;
    }
    table
};

/// Jumps from each point, at most 8; `len` says how many are filled.
#[derive(Clone, Copy)]
pub(crate) struct Jumps {
    pub lines: [JumpLine; 8],
    pub len: u8,
}

const JUMPS: [Jumps; 25] = {
    let blank = JumpLine {
        over: Square::A1,
        land: Square::A1,
    };
    let mut table = [Jumps {
        lines: [blank; 8],
        len: 0,
    }; 25];
    let mut sq = 0;
    while sq < 25 {
        let mut d = 0;
        while d < 8 {
            let dir = DIRECTIONS[d];
            let diagonal = dir.0 != 0 && dir.1 != 0;
            if !diagonal || diagonals_at(sq) {
                if let (Some(over), Some(land)) = (offset(sq, dir, 1), offset(sq, dir, 2)) {
                    let n = table[sq as usize].len as usize;
                    table[sq as usize].lines[n] = JumpLine {
                        over: Square::ALL[over as usize],
                        land: Square::ALL[land as usize],
                    };
                    table[sq as usize].len += 1;
                }
            }
            d += 1;
        }
        sq += 1;
    }
    table
};

/// For each direction, its index offset and the points a step that way
/// can leave (the neighbour exists and, for a diagonal, the point has
/// diagonals), and the points a jump that way can leave.
#[derive(Clone, Copy)]
pub(crate) struct Ray {
    /// How far the index moves: `+1` east, `+5` north, `+6` north-east...
    pub shift: i8,
    /// The points with a line to the neighbour in this direction.
    pub step_from: u32,
    /// The points with a straight jump in this direction.
    pub jump_from: u32,
}

pub(crate) const RAYS: [Ray; 8] = {
    let mut rays = [Ray {
        shift: 0,
        step_from: 0,
        jump_from: 0,
    }; 8];
    let mut d = 0;
    while d < 8 {
        let dir = DIRECTIONS[d];
        let diagonal = dir.0 != 0 && dir.1 != 0;
        let mut sq = 0;
        while sq < 25 {
            if !diagonal || diagonals_at(sq) {
                if offset(sq, dir, 1).is_some() {
                    rays[d].step_from |= 1 << sq;
                }
                if offset(sq, dir, 2).is_some() {
                    rays[d].jump_from |= 1 << sq;
                }
            }
            sq += 1;
        }
        rays[d].shift = dir.0 + 5 * dir.1;
        d += 1;
    }
    rays
};

/// The set `bits` moved `shift` points along the index (no wrap: the
/// callers mask the set first).
#[inline(always)]
pub(crate) const fn shifted(bits: u32, shift: i8) -> u32 {
    if shift >= 0 {
        bits << shift
    } else {
        bits >> -shift
    }
}

/// The points joined to `square` by one line.
///
/// ```
/// use baghchal_rules::{board, Square};
/// assert_eq!(board::neighbours(Square::C3).count(), 8);
/// assert_eq!(board::neighbours(Square::B3).count(), 4);
/// assert_eq!(board::neighbours(Square::A5).count(), 3);
/// ```
#[inline]
pub fn neighbours(square: Square) -> Bitboard {
    NEIGHBOURS[square.index()]
}

/// Whether a line joins `a` and `b` directly.
///
/// ```
/// use baghchal_rules::{board, Square};
/// assert!(board::is_line(Square::B2, Square::C3));
/// assert!(!board::is_line(Square::B3, Square::C4));
/// ```
#[inline]
pub fn is_line(a: Square, b: Square) -> bool {
    NEIGHBOURS[a.index()].contains(b)
}

/// The straight jumps from `square` as a table (what [`jumps`] iterates),
/// for move generators that walk it in a hot loop.
///
/// ```
/// use baghchal_rules::{board, Square};
/// let lines = board::jump_lines(Square::A1);
/// assert_eq!(lines.len(), 3);
/// assert!(lines.iter().any(|l| l.over == Square::B2 && l.land == Square::C3));
/// ```
#[inline]
pub fn jump_lines(square: Square) -> &'static [JumpLine] {
    let jumps = &JUMPS[square.index()];
    &jumps.lines[..jumps.len as usize]
}

/// The straight jumps from `square`: each as (the point jumped over, the
/// landing point).
///
/// ```
/// use baghchal_rules::{board, Square};
/// assert_eq!(board::jumps(Square::A5).count(), 3);
/// assert_eq!(board::jumps(Square::C3).count(), 8);
/// assert_eq!(board::jumps(Square::B3).count(), 3); // b1, b5, d3
/// ```
pub fn jumps(square: Square) -> impl Iterator<Item = (Square, Square)> {
    jump_lines(square).iter().map(|line| (line.over, line.land))
}

/// The point jumped over when going from `from` to `land` in one straight
/// jump along a line, if such a jump exists on the board.
///
/// ```
/// use baghchal_rules::{board, Square};
/// assert_eq!(board::jump_over(Square::A1, Square::C3), Some(Square::B2));
/// assert_eq!(board::jump_over(Square::B1, Square::D3), None); // no diagonal at b1
/// ```
pub fn jump_over(from: Square, land: Square) -> Option<Square> {
    jump_lines(from)
        .iter()
        .find(|line| line.land == land)
        .map(|line| line.over)
}

/// Every line of the board once, as pairs of points (for drawing it).
///
/// ```
/// use baghchal_rules::board;
/// // 40 orthogonal segments and 16 diagonal ones.
/// assert_eq!(board::lines().count(), 56);
/// ```
pub fn lines() -> impl Iterator<Item = (Square, Square)> {
    Square::ALL.into_iter().flat_map(|a| {
        neighbours(a)
            .into_iter()
            .filter(move |&b| a < b)
            .map(move |b| (a, b))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_counts_match_the_board_drawing() {
        assert_eq!(neighbours(Square::C3).count(), 8);
        assert_eq!(neighbours(Square::B2).count(), 8);
        assert_eq!(neighbours(Square::B3).count(), 4);
        assert_eq!(neighbours(Square::A5).count(), 3);
        assert_eq!(neighbours(Square::A4).count(), 3);
        assert_eq!(neighbours(Square::C1).count(), 5);
        assert_eq!(neighbours(Square::B1).count(), 3);
    }

    #[test]
    fn lines_are_symmetric() {
        for a in Square::ALL {
            for b in neighbours(a) {
                assert!(neighbours(b).contains(a), "{a}-{b}");
            }
        }
    }

    #[test]
    fn the_rays_agree_with_the_neighbour_and_jump_tables() {
        for sq in Square::ALL {
            let mut steps = 0;
            let mut jumps = Vec::new();
            for ray in RAYS {
                let from = 1u32 << sq.index();
                if ray.step_from & from != 0 {
                    steps |= shifted(from, ray.shift);
                }
                if ray.jump_from & from != 0 {
                    let over = shifted(from, ray.shift);
                    let land = shifted(over, ray.shift);
                    jumps.push((
                        over.trailing_zeros() as usize,
                        land.trailing_zeros() as usize,
                    ));
                }
            }
            assert_eq!(Bitboard(steps), neighbours(sq), "{sq}");
            let mut table: Vec<(usize, usize)> = jump_lines(sq)
                .iter()
                .map(|l| (l.over.index(), l.land.index()))
                .collect();
            table.sort_unstable();
            jumps.sort_unstable();
            assert_eq!(jumps, table, "{sq}");
        }
    }

    #[test]
    fn short_diagonals_exist_and_are_jumpable() {
        // c1-b2-a3 and c1-d2-e3, c5-b4-a3, e3-d4-c5 etc.
        assert!(is_line(Square::C1, Square::B2));
        assert!(is_line(Square::B2, Square::A3));
        assert_eq!(jump_over(Square::C1, Square::A3), Some(Square::B2));
        assert_eq!(jump_over(Square::A3, Square::C5), Some(Square::B4));
        assert_eq!(jump_over(Square::E3, Square::C5), Some(Square::D4));
        assert_eq!(jump_over(Square::B1, Square::B3), Some(Square::B2));
        assert_eq!(jump_over(Square::B3, Square::D5), None);
    }
}
