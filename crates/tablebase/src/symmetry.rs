//! The eight symmetries of the board: the dihedral group of the square.
//!
//! The board's lines are symmetric under all of them: the points with
//! diagonals (row + column even) map onto points with diagonals.

/// Number of symmetries, the identity included.
pub const COUNT: usize = 8;

/// Where each symmetry sends each point: `SQUARES[s][sq]`. Symmetry `s`
/// transposes when bit 2 is set, then mirrors the columns (bit 0) and the
/// rows (bit 1). Symmetry 0 is the identity.
pub const SQUARES: [[u8; 25]; COUNT] = {
    let mut table = [[0u8; 25]; COUNT];
    let mut s = 0;
    while s < COUNT {
        let mut sq = 0;
        while sq < 25 {
            let (mut c, mut r) = (sq % 5, sq / 5);
            if s & 4 != 0 {
                let t = c;
                c = r;
                r = t;
            }
            if s & 1 != 0 {
                c = 4 - c;
            }
            if s & 2 != 0 {
                r = 4 - r;
            }
            table[s][sq] = (r * 5 + c) as u8;
            sq += 1;
        }
        s += 1;
    }
    table
};

/// The image of a set of points under symmetry `s`.
#[inline]
pub fn transform(mut mask: u32, s: usize) -> u32 {
    let map = &SQUARES[s];
    let mut out = 0;
    while mask != 0 {
        let sq = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        out |= 1 << map[sq];
    }
    out
}

/// `COMPOSE[a][b]`: the symmetry that applies `b`, then `a`.
pub(crate) const COMPOSE: [[u8; COUNT]; COUNT] = {
    let mut table = [[0u8; COUNT]; COUNT];
    let mut a = 0;
    while a < COUNT {
        let mut b = 0;
        while b < COUNT {
            let mut c = 0;
            while c < COUNT {
                let mut same = true;
                let mut sq = 0;
                while sq < 25 {
                    if SQUARES[a][SQUARES[b][sq] as usize] != SQUARES[c][sq] {
                        same = false;
                    }
                    sq += 1;
                }
                if same {
                    table[a][b] = c as u8;
                }
                c += 1;
            }
            b += 1;
        }
        a += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use super::*;
    use baghchal_rules::{board, Square};

    #[test]
    fn every_symmetry_is_a_distinct_permutation_of_the_points() {
        for (s, map) in SQUARES.iter().enumerate() {
            let image: u32 = map.iter().fold(0, |acc, &sq| acc | 1 << sq);
            assert_eq!(image, (1 << 25) - 1, "symmetry {s}");
        }
        for (a, map) in SQUARES.iter().enumerate() {
            assert!(SQUARES[..a].iter().all(|other| other != map));
        }
    }

    #[test]
    fn every_symmetry_keeps_the_lines_and_jumps_of_the_board() {
        for map in &SQUARES {
            for a in Square::ALL {
                let ma = Square::ALL[map[a.index()] as usize];
                for b in board::neighbours(a) {
                    let mb = Square::ALL[map[b.index()] as usize];
                    assert!(board::is_line(ma, mb), "{a}-{b}");
                }
                for (over, land) in board::jumps(a) {
                    let mo = Square::ALL[map[over.index()] as usize];
                    let ml = Square::ALL[map[land.index()] as usize];
                    assert_eq!(board::jump_over(ma, ml), Some(mo));
                }
            }
        }
    }

    #[test]
    fn composition_matches_applying_one_symmetry_after_the_other() {
        let mask = 0b1_0110_0000_1000_0011_0001_1011;
        for (a, row) in COMPOSE.iter().enumerate() {
            for (b, &c) in row.iter().enumerate() {
                let both = transform(transform(mask, b), a);
                assert_eq!(both, transform(mask, c as usize));
            }
        }
    }
}
