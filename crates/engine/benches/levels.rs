//! Time per move of each level, on one core: the median, 90th percentile
//! and maximum over positions sampled from seeded games (placement and
//! movement phase alike).
//!
//! `cargo bench -p baghchal-engine --bench levels [-- LEVEL ...]`

use std::time::{Duration, Instant};

use baghchal_engine::{Engine, Level};
use baghchal_rules::Position;

/// Positions every few plies of a few games between two mid levels.
fn sample(engine: &Engine) -> Vec<Position> {
    let mut positions = Vec::new();
    let level = Level::new(1000).expect("a level");
    for game in 0..4u64 {
        let mut position = Position::default();
        while !position.is_finished() && position.ply() < 160 {
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
    let engine = Engine::new();
    let positions = sample(&engine);
    println!("{} positions", positions.len());
    println!("level  median     p90        max");
    for level in levels {
        let mut times: Vec<Duration> = positions
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let start = Instant::now();
                std::hint::black_box(engine.choose(p, level, i as u64));
                start.elapsed()
            })
            .collect();
        times.sort();
        let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
        println!(
            "{level:>5}  {:>9.2?}  {:>9.2?}  {:>9.2?}",
            at(0.5),
            at(0.9),
            times[times.len() - 1]
        );
    }
}
