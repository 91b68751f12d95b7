//! Small artificial shapes of the game, solved in full and compared position
//! by position with a plain reference solver written here, and with an
//! exhaustive search near the end.

use baghchal_rules::{board, Bitboard, Side, Square};
use baghchal_tablebase::{Probe, Shape, Silent, Tablebase, Wdl};

const FULL: u32 = (1 << 25) - 1;

fn binomial(n: u32, k: u32) -> u32 {
    if k > n {
        return 0;
    }
    (0..k).fold(1u64, |acc, i| acc * (n - i) as u64 / (i + 1) as u64) as u32
}

fn squares(mask: u32) -> impl Iterator<Item = u32> {
    (0..25).filter(move |sq| mask & 1 << sq != 0)
}

/// The sets of `k` points among 25, in colex order.
fn sets(k: u32) -> Vec<u32> {
    let mut all: Vec<u32> = (0..1u32 << 25).filter(|m| m.count_ones() == k).collect();
    all.sort_by_key(|&m| rank(m));
    all
}

/// Colex rank of a set of points among the sets of its size.
fn rank(mask: u32) -> u32 {
    squares(mask)
        .enumerate()
        .map(|(i, sq)| binomial(sq, i as u32 + 1))
        .sum()
}

/// The actions of the side to move: (tigers, goats, captured) after each.
fn actions(tiger: bool, t: u32, g: u32) -> Vec<(u32, u32, bool)> {
    let empty = FULL & !t & !g;
    let mut out = Vec::new();
    let movers = if tiger { t } else { g };
    for from in squares(movers) {
        let sq = Square::ALL[from as usize];
        for to in board::neighbours(sq) {
            if empty & 1 << to.index() != 0 {
                let step = 1 << from | 1 << to.index();
                out.push(if tiger {
                    (t ^ step, g, false)
                } else {
                    (t, g ^ step, false)
                });
            }
        }
        if tiger {
            for (over, land) in board::jumps(sq) {
                if g & 1 << over.index() != 0 && empty & 1 << land.index() != 0 {
                    out.push((
                        t ^ (1 << from | 1 << land.index()),
                        g ^ 1 << over.index(),
                        true,
                    ));
                }
            }
        }
    }
    out
}

/// A plain retrograde solver: every board without symmetry, one sweep over
/// the unresolved boards per distance. Values are 0 for a draw, else
/// distance + 1.
struct Reference {
    shape: Shape,
    tiger_sets: Vec<u32>,
    /// By goats eaten: [side][tigers][goats or empty points, when fewer].
    tiers: Vec<Vec<u16>>,
}

impl Reference {
    fn solve(shape: Shape) -> Reference {
        let mut reference = Reference {
            shape,
            tiger_sets: sets(4),
            tiers: vec![Vec::new(); shape.target as usize],
        };
        for eaten in (0..shape.target).rev() {
            reference.tiers[eaten as usize] = reference.solve_tier(eaten);
        }
        reference
    }

    /// Whether a tier ranks its empty points, and how many it ranks.
    fn minor(&self, eaten: u32) -> (bool, u32) {
        let goats = self.shape.goats - eaten;
        if goats * 2 > 21 {
            (true, 21 - goats)
        } else {
            (false, goats)
        }
    }

    fn slot(&self, eaten: u32, tiger: bool, t: u32, g: u32) -> usize {
        let (empties, k) = self.minor(eaten);
        let per = binomial(25, k) as usize;
        let minor = if empties { FULL & !t & !g } else { g };
        let side = if tiger {
            self.tiger_sets.len() * per
        } else {
            0
        };
        side + rank(t) as usize * per + rank(minor) as usize
    }

    /// The value of a board of a solved tier.
    fn value(&self, eaten: u32, tiger: bool, t: u32, g: u32) -> u16 {
        self.tiers[eaten as usize][self.slot(eaten, tiger, t, g)]
    }

    fn boards(&self, eaten: u32) -> Vec<(bool, u32, u32)> {
        let (empties, k) = self.minor(eaten);
        let minors = sets(k);
        let mut out = Vec::new();
        for tiger in [false, true] {
            for &t in &self.tiger_sets {
                for &m in minors.iter().filter(|&&m| m & t == 0) {
                    out.push((tiger, t, if empties { FULL & !t & !m } else { m }));
                }
            }
        }
        out
    }

    fn solve_tier(&self, eaten: u32) -> Vec<u16> {
        let (_, k) = self.minor(eaten);
        let mut values = vec![0u16; 2 * self.tiger_sets.len() * binomial(25, k) as usize];
        let last = eaten + 1 == self.shape.target;
        let below_longest = if last {
            0
        } else {
            self.tiers[eaten as usize + 1]
                .iter()
                .copied()
                .max()
                .unwrap_or(0)
        };
        let mut pending = self.boards(eaten);
        for distance in 0u16.. {
            let mut found = Vec::new();
            pending.retain(|&(tiger, t, g)| {
                let children: Vec<u16> = actions(tiger, t, g)
                    .into_iter()
                    .map(|(t, g, captured)| match (captured, last) {
                        // The capture reaches the target: the goats lost.
                        (true, true) => 1,
                        (true, false) => self.value(eaten + 1, false, t, g),
                        (false, _) => values[self.slot(eaten, !tiger, t, g)],
                    })
                    .collect();
                // Some action reaches a loss (stored odd) in distance - 1.
                let wins = distance % 2 == 1 && children.contains(&distance);
                // Every action reaches a win (stored even), the longest in
                // distance - 1.
                let loses = distance % 2 == 0
                    && children.iter().all(|&v| v != 0 && v % 2 == 0)
                    && children.iter().map(|&v| v as i32 - 1).max().unwrap_or(-1)
                        == distance as i32 - 1;
                if wins || loses {
                    found.push(self.slot(eaten, tiger, t, g));
                }
                !(wins || loses)
            });
            if found.is_empty() && distance > below_longest + 1 {
                break;
            }
            for slot in found {
                values[slot] = distance + 1;
            }
        }
        values
    }
}

fn stored(probe: Probe) -> u16 {
    match probe.wdl {
        Wdl::Draw => 0,
        _ => probe.distance + 1,
    }
}

fn compare_with_reference(shape: Shape) -> Tablebase {
    let tb = Tablebase::build_shape(shape, &Silent).unwrap();
    let reference = Reference::solve(shape);
    let mut counts = [0u32; 3];
    for eaten in 0..shape.target {
        for (tiger, t, g) in reference.boards(eaten) {
            let side = if tiger { Side::Tiger } else { Side::Goat };
            let probe = tb
                .probe_board(Bitboard(t), Bitboard(g), side, eaten as u8)
                .expect("covered");
            let expected = reference.value(eaten, tiger, t, g);
            assert_eq!(
                stored(probe),
                expected,
                "tigers {t:025b} goats {g:025b} {side:?} to move, {eaten} eaten"
            );
            counts[probe.wdl as usize] += 1;
        }
    }
    // Each shape has positions of every kind.
    assert!(counts.iter().all(|&n| n > 0), "{counts:?}");
    tb
}

#[test]
fn a_full_board_with_one_capture_to_win_matches_the_reference() {
    compare_with_reference(Shape {
        goats: 20,
        target: 1,
    });
}

#[test]
fn a_full_board_with_two_captures_to_win_matches_the_reference() {
    compare_with_reference(Shape {
        goats: 20,
        target: 2,
    });
}

#[test]
fn two_goats_and_two_captures_to_win_match_the_reference() {
    compare_with_reference(Shape {
        goats: 2,
        target: 2,
    });
}
