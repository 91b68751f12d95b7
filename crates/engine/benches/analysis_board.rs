//! The cost of one analysis-board request (`Engine::value_actions`, every
//! legal action valued by one bounded search): the median, 90th
//! percentile and maximum time on one core over positions sampled from
//! seeded games, for each node budget.
//!
//! `cargo bench -p baghchal-engine --bench analysis_board [-- NODES ...]`
//! (default: 100000, the server's budget). With `BAGHCHAL_TABLEBASE`
//! naming the tablebase file the engine probes it, as the server's does,
//! and proves the tablebase's wins and losses under the house rules
//! within `BAGHCHAL_PROOF_NODES` nodes each (default: the engine's).

use std::time::Instant;

use baghchal_engine::{Engine, Level};
use baghchal_rules::Position;

/// Positions every few plies of a few games between two mid levels.
fn sample(engine: &Engine) -> Vec<Position> {
    let mut positions = Vec::new();
    let level = Level::new(1000).expect("a level");
    for game in 0..4u64 {
        let mut position = Position::default();
        while !position.is_finished() {
            if position.ply() % 8 == (game % 8) as u16 {
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
    let budgets: Vec<u64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let budgets = if budgets.is_empty() {
        vec![100_000]
    } else {
        budgets
    };
    let mut engine = Engine::new();
    if let Ok(path) = std::env::var("BAGHCHAL_TABLEBASE") {
        let tablebase = baghchal_tablebase::Tablebase::load(path.as_ref()).expect("a tablebase");
        engine = Engine::with_tablebase(std::sync::Arc::new(tablebase));
    }
    if let Some(nodes) = std::env::var("BAGHCHAL_PROOF_NODES")
        .ok()
        .and_then(|n| n.parse().ok())
    {
        engine = engine.with_proof_nodes(nodes);
    }
    let positions = sample(&engine);
    println!("{} positions", positions.len());
    println!("nodes     median_ms  p90_ms  max_ms");
    for nodes in budgets {
        let mut times: Vec<f64> = positions
            .iter()
            .map(|p| {
                let start = Instant::now();
                let values = engine.value_actions(p, nodes);
                let ms = start.elapsed().as_secs_f64() * 1000.0;
                assert_eq!(values.len(), p.legal_actions().len());
                ms
            })
            .collect();
        times.sort_by(f64::total_cmp);
        let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
        println!(
            "{nodes:<9} {:>9.1} {:>7.1} {:>7.1}",
            at(0.5),
            at(0.9),
            at(1.0)
        );
    }
}
