//! Small artificial shapes of the game, solved in full and compared position
//! by position with a plain reference solver written here, and with an
//! exhaustive search near the end.

use baghchal_rules::{board, Bitboard, Side, Square};
use baghchal_tablebase::{Probe, Progress, Shape, Silent, Tablebase, Wdl};

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
    fn extend(prefix: u32, from: u32, k: u32, out: &mut Vec<u32>) {
        if k == 0 {
            out.push(prefix);
            return;
        }
        for sq in from..25 {
            extend(prefix | 1 << sq, sq + 1, k - 1, out);
        }
    }
    let mut all = Vec::new();
    extend(0, 0, k, &mut all);
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
    /// Solves the tiers from `top` goats eaten down to none; the captures
    /// from tier `top` (unless they reach the target) take their values
    /// from `below`.
    fn solve(shape: Shape, top: u32, below: impl Fn(u32, u32) -> u16) -> Reference {
        let mut reference = Reference {
            shape,
            tiger_sets: sets(4),
            tiers: vec![Vec::new(); shape.target as usize],
        };
        for eaten in (0..=top).rev() {
            reference.tiers[eaten as usize] = if eaten == top {
                reference.solve_tier(eaten, &below)
            } else {
                reference.solve_tier(eaten, &|t, g| reference.value(eaten + 1, false, t, g))
            };
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

    fn solve_tier(&self, eaten: u32, below: &dyn Fn(u32, u32) -> u16) -> Vec<u16> {
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
                        (true, false) => below(t, g),
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

fn goats_to_move_below(tb: &Tablebase, eaten: u32) -> impl Fn(u32, u32) -> u16 + '_ {
    move |t, g| {
        let probe = tb.probe_board(Bitboard(t), Bitboard(g), Side::Goat, eaten as u8 + 1);
        stored(probe.expect("covered"))
    }
}

/// Compares the tiers from `top` goats eaten down to none with the
/// reference, which takes the captures from tier `top` from the tablebase.
fn compare_with_reference(shape: Shape, top: u32) -> [u32; 3] {
    let tb = Tablebase::build_shape(shape, &Silent).unwrap();
    let reference = Reference::solve(shape, top, goats_to_move_below(&tb, top));
    let mut counts = [0u32; 3];
    for eaten in 0..=top {
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
    counts
}

#[test]
fn a_full_board_with_one_capture_to_win_matches_the_reference() {
    let shape = Shape {
        goats: 20,
        target: 1,
    };
    let [wins, draws, losses] = compare_with_reference(shape, 0);
    assert!(wins > 0 && draws > 0 && losses > 0);
}

#[test]
fn a_full_board_matches_the_reference_across_a_capture() {
    let shape = Shape {
        goats: 20,
        target: 2,
    };
    let [wins, draws, losses] = compare_with_reference(shape, 0);
    assert!(wins > 0 && draws > 0 && losses > 0);
}

/// The stored value (distance + 1) of a board if a search of `depth` plies
/// proves its result: a win in at most `depth` plies, or a loss in which
/// every line ends within `depth` plies.
fn search(shape: Shape, eaten: u32, tiger: bool, t: u32, g: u32, depth: u16) -> Option<u16> {
    let mut best_win: Option<u16> = None;
    let mut longest_loss = 0;
    let mut all_lose = true;
    for (t2, g2, captured) in actions(tiger, t, g) {
        let eaten2 = eaten + captured as u32;
        let child = if eaten2 == shape.target {
            Some(1)
        } else if depth == 0 {
            None
        } else {
            search(shape, eaten2, !tiger, t2, g2, depth - 1)
        };
        match child {
            Some(v) if v % 2 == 1 => {
                let win = v + 1;
                best_win = Some(best_win.map_or(win, |b| b.min(win)));
            }
            Some(v) => longest_loss = longest_loss.max(v + 1),
            None => all_lose = false,
        }
    }
    let value = match best_win {
        Some(win) => Some(win),
        None if all_lose => Some(longest_loss.max(1)),
        None => None,
    };
    value.filter(|&v| v <= depth + 1)
}

#[test]
fn a_search_near_the_end_agrees_with_the_tier_below_a_capture() {
    let shape = Shape {
        goats: 20,
        target: 2,
    };
    let tb = Tablebase::build_shape(shape, &Silent).unwrap();
    let depth = 5;
    let (mut proved, mut near) = (0, 0);
    let tigers = sets(4);
    let empties = sets(2);
    for (i, (&t, &e)) in tigers
        .iter()
        .flat_map(|t| empties.iter().map(move |e| (t, e)))
        .filter(|(&t, &e)| t & e == 0)
        .enumerate()
    {
        if i % 1999 != 0 {
            continue;
        }
        let g = FULL & !t & !e;
        for tiger in [false, true] {
            let side = if tiger { Side::Tiger } else { Side::Goat };
            let value = stored(tb.probe_board(Bitboard(t), Bitboard(g), side, 1).unwrap());
            let found = search(shape, 1, tiger, t, g, depth);
            if let Some(v) = found {
                assert_eq!(v, value, "tigers {t:025b} goats {g:025b} {side:?} to move");
                proved += 1;
            }
            if value != 0 && value <= depth + 1 {
                assert_eq!(
                    found,
                    Some(value),
                    "tigers {t:025b} goats {g:025b} {side:?}"
                );
                near += 1;
            }
        }
    }
    assert!(
        proved > 100 && near > 100,
        "{proved} proved, {near} near the end"
    );
}

/// A board from its text rows (5 down to 1).
fn board(rows: &str) -> (Bitboard, Bitboard) {
    let (mut t, mut g) = (0, 0);
    for (i, row) in rows.split('/').enumerate() {
        for (c, ch) in row.chars().enumerate() {
            let sq = (4 - i) * 5 + c;
            match ch {
                'T' => t |= 1 << sq,
                'G' => g |= 1 << sq,
                _ => {}
            }
        }
    }
    (Bitboard(t), Bitboard(g))
}

#[test]
fn trapped_tigers_lose_at_once_and_a_winning_capture_wins_in_one() {
    let shape = Shape {
        goats: 20,
        target: 1,
    };
    let tb = Tablebase::build_shape(shape, &Silent).unwrap();
    let (t, g) = board("TGGGT/GGGGG/GGGGG/GG.GG/TGGGT");
    let trapped = tb.probe_board(t, g, Side::Tiger, 0).unwrap();
    assert_eq!(
        trapped,
        Probe {
            wdl: Wdl::Loss,
            distance: 0
        }
    );
    let (t, g) = board("TGGGT/GGGGG/GG.GG/GGGGG/TGGGT");
    let capture = tb.probe_board(t, g, Side::Tiger, 0).unwrap();
    assert_eq!(
        capture,
        Probe {
            wdl: Wdl::Win,
            distance: 1
        }
    );
    // Not covered: the target reached, a goat too many.
    assert_eq!(tb.probe_board(t, g, Side::Tiger, 1), None);
    assert_eq!(
        tb.probe_board(t, Bitboard(g.0 | 1 << 12), Side::Tiger, 0),
        None
    );
}

#[test]
fn a_saved_tablebase_loads_with_the_same_values_and_a_damaged_one_is_refused() {
    let shape = Shape {
        goats: 20,
        target: 1,
    };
    let tb = Tablebase::build_shape(shape, &Silent).unwrap();
    let dir = std::env::temp_dir().join(format!("baghchal-tb-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("small.tb");
    tb.save(&path).unwrap();
    let loaded = Tablebase::load(&path).unwrap();
    assert_eq!(loaded.shape(), shape);
    assert_eq!(loaded.stats(), tb.stats());
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(bytes.len(), tb.file_len());

    let refused = |bytes: &[u8]| {
        std::fs::write(&path, bytes).unwrap();
        Tablebase::load(&path).map(|_| ()).unwrap_err().to_string()
    };
    let mut flipped = bytes.clone();
    flipped[bytes.len() / 2] ^= 1;
    assert!(refused(&flipped).contains("checksum"));
    assert!(refused(&bytes[..bytes.len() - 1]).contains("bytes"));
    let mut magic = bytes.clone();
    magic[0] = b'X';
    assert!(refused(&magic).contains("not a tablebase"));
    let mut version = bytes.clone();
    version[8] = 9;
    assert!(refused(&version).contains("version"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Cancels the build as soon as some work is done.
struct CancelOnFirstAdvance(std::sync::atomic::AtomicBool);

impl Progress for CancelOnFirstAdvance {
    fn tier(&self, _eaten: u32) {}
    fn advance(&self, _n: u64) {
        self.0.store(true, std::sync::atomic::Ordering::Relaxed);
    }
    fn cancelled(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::Relaxed)
    }
}

#[test]
fn a_build_cancelled_midway_fails_as_interrupted() {
    let shape = Shape {
        goats: 20,
        target: 2,
    };
    let progress = CancelOnFirstAdvance(Default::default());
    let err = Tablebase::build_shape(shape, &progress)
        .err()
        .expect("a cancelled build fails");
    assert_eq!(err.kind(), std::io::ErrorKind::Interrupted);
}

/// Counts the pauses between steps; cancels the build at the `cancel_at`th.
struct Pauses {
    count: std::sync::atomic::AtomicU64,
    cancel_at: u64,
}

impl Pauses {
    fn count(&self) -> u64 {
        self.count.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl Progress for Pauses {
    fn tier(&self, _eaten: u32) {}
    fn advance(&self, _n: u64) {}
    fn cancelled(&self) -> bool {
        self.count() >= self.cancel_at
    }
    fn pause(&self) {
        self.count
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
}

/// The file's bytes of a tablebase.
fn file_bytes(tb: &Tablebase, name: &str) -> Vec<u8> {
    let dir = std::env::temp_dir().join(format!("baghchal-tb-pause-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    tb.save(&path).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    bytes
}

#[test]
fn a_build_pauses_between_its_steps_and_gives_the_same_tablebase() {
    let shape = Shape {
        goats: 20,
        target: 2,
    };
    let pauses = Pauses {
        count: Default::default(),
        cancel_at: u64::MAX,
    };
    let paused = Tablebase::build_shape(shape, &pauses).unwrap();
    let silent = Tablebase::build_shape(shape, &Silent).unwrap();
    // Every tier is examined, spread and copied in many steps.
    assert!(pauses.count() > 100, "{} pauses", pauses.count());
    assert_eq!(
        file_bytes(&paused, "paused.tb"),
        file_bytes(&silent, "silent.tb")
    );
}

#[test]
fn a_build_cancelled_in_a_pause_fails_as_interrupted() {
    let shape = Shape {
        goats: 20,
        target: 2,
    };
    let pauses = Pauses {
        count: Default::default(),
        cancel_at: 50,
    };
    let err = Tablebase::build_shape(shape, &pauses)
        .err()
        .expect("a cancelled build fails");
    assert_eq!(err.kind(), std::io::ErrorKind::Interrupted);
}
