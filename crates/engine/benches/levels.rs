//! Time per move of each level, on one core: the median, 90th percentile
//! and maximum over positions sampled from seeded games (placement and
//! movement phase alike), and the median nodes searched (which, unlike
//! the time, does not depend on the machine's load).
//!
//! `cargo bench -p baghchal-engine --bench levels [-- LEVEL ...]`
//!
//! With `BAGHCHAL_TABLEBASE=PATH` the levels play as the server's do, with
//! the movement-phase tablebase.

use std::sync::Arc;
use std::time::Instant;

use baghchal_engine::{Engine, Level};
use baghchal_rules::{Phase, Position, Side};
use baghchal_tablebase::Tablebase;

/// Positions every few plies of a few games between two mid levels.
fn sample(engine: &Engine) -> Vec<Position> {
    let mut positions = Vec::new();
    let level = Level::new(1000).expect("a level");
    for game in 0..8u64 {
        let mut position = Position::default();
        while !position.is_finished() {
            if position.ply() % 6 == (game % 6) as u16 {
                positions.push(position.clone());
            }
            let action = engine
                .choose(&position, level, game << 16 | position.ply() as u64)
                .expect("an unfinished game");
            position.play_unchecked(action);
        }
    }
    positions
}

fn main() {
    let levels: Vec<Level> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok().and_then(Level::new))
        .collect();
    let levels = if levels.is_empty() {
        Level::all().collect()
    } else {
        levels
    };
    let engine = match std::env::var_os("BAGHCHAL_TABLEBASE") {
        Some(path) => {
            let tablebase = Tablebase::load(std::path::Path::new(&path)).expect("a tablebase file");
            Engine::with_tablebase(Arc::new(tablebase))
        }
        None => Engine::new(),
    };
    // The same positions with or without the tablebase.
    let positions = sample(&Engine::new());
    println!(
        "{} positions, {}",
        positions.len(),
        if engine.tablebase().is_some() {
            "with the tablebase"
        } else {
            "without a tablebase"
        }
    );
    println!("level  positions             median     p90        max        nodes (median)");
    for level in levels {
        let mut all = Vec::with_capacity(positions.len());
        let mut placing = Vec::new();
        for (i, p) in positions.iter().enumerate() {
            let start = Instant::now();
            let thought = engine
                .think(p, level, i as u64)
                .expect("an unfinished position");
            let took = (start.elapsed(), std::hint::black_box(thought).nodes);
            all.push(took);
            if p.phase() == Phase::Placement && p.side_to_move() == Side::Goat {
                placing.push(took);
            }
        }
        report(level, "all", &mut all);
        // Where the top level's guard and book act.
        report(level, "goats placing", &mut placing);
    }
}

/// One line: the median, 90th percentile and maximum time, and the
/// median nodes, of `taken`.
fn report(level: Level, what: &str, taken: &mut [(std::time::Duration, u64)]) {
    if taken.is_empty() {
        return;
    }
    let mut times: Vec<_> = taken.iter().map(|t| t.0).collect();
    let mut nodes: Vec<_> = taken.iter().map(|t| t.1).collect();
    times.sort();
    nodes.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    println!(
        "{level:>5}  {what:<13} {:>5}  {:>9.2?}  {:>9.2?}  {:>9.2?}  {:>9}",
        taken.len(),
        at(0.5),
        at(0.9),
        times[times.len() - 1],
        nodes[nodes.len() / 2]
    );
}
