//! How a review names its values on recorded games: for every action of
//! each game of the house rules, the kind of the value after it (over,
//! solved, proved, estimate), counted apart for the placement and the
//! movement phase, and the time each review took.
//!
//! `cargo run --release -p baghchal-engine --example review_kinds -- TABLEBASE [--proof-nodes N] DIR...`
//!
//! `--proof-nodes 0` reviews without the proofs under the house rules
//! (the tablebase's values as they are, proved where their route holds).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use baghchal_engine::{Engine, Source, Value};
use baghchal_rules::{Phase, Record, Rules};
use baghchal_tablebase::Tablebase;

/// The review's search nodes per position (`crates/server/src/bot.rs`).
const NODES: u64 = 20_000;

fn main() {
    let mut args = std::env::args().skip(1);
    let tablebase = args.next().expect("the tablebase file, then the records");
    let tablebase = Tablebase::load(tablebase.as_ref()).expect("a tablebase file");
    let mut engine = Engine::with_tablebase(Arc::new(tablebase));
    let mut files: Vec<PathBuf> = Vec::new();
    let mut args = args.peekable();
    if args.peek().map(String::as_str) == Some("--proof-nodes") {
        args.next();
        let nodes = args.next().and_then(|n| n.parse().ok());
        engine = engine.with_proof_nodes(nodes.expect("--proof-nodes takes a number"));
    }
    for arg in args {
        let path = PathBuf::from(arg);
        if path.is_dir() {
            for entry in std::fs::read_dir(&path).expect("a readable directory") {
                files.push(entry.expect("an entry").path());
            }
        } else {
            files.push(path);
        }
    }
    files.sort();
    // [phase][kind]: placement, movement; over, solved, proved, estimate.
    let mut counts = [[0usize; 4]; 2];
    // Proved values that differ from the tablebase's: shorter, longer.
    let mut differ = [0usize; 2];
    let mut millis = Vec::new();
    let mut games = 0;
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        let Ok(game) = text.parse::<Record>().map(|r| r.replay()) else {
            continue;
        };
        let Ok(game) = game else { continue };
        if *game.rules() != Rules::default() {
            continue;
        }
        games += 1;
        let started = Instant::now();
        let reviews = engine.analyse(&game, NODES);
        millis.push(started.elapsed().as_secs_f64() * 1000.0);
        let mut position = game.start().clone();
        for (review, &action) in reviews.iter().zip(game.actions()) {
            position.play_unchecked(action);
            let phase = usize::from(position.phase() == Phase::Movement);
            let kind = match review.after_source {
                Source::Rules => 0,
                Source::Solved => 1,
                Source::Proved => 2,
                Source::Search => 3,
            };
            counts[phase][kind] += 1;
            if let Some(solved) = review.after_solved {
                differ[usize::from(plies(review.after) < plies(solved))] += 1;
            }
        }
    }
    millis.sort_by(f64::total_cmp);
    println!("games {games}");
    for (name, row) in ["placement", "movement"].iter().zip(counts) {
        let total: usize = row.iter().sum();
        println!(
            "{name}: plies {total} over {} solved {} proved {} estimate {}",
            row[0], row[1], row[2], row[3]
        );
    }
    println!(
        "proved unlike the tablebase: {} (sooner: {}, later: {})",
        differ[0] + differ[1],
        differ[1],
        differ[0]
    );
    if !millis.is_empty() {
        println!(
            "review ms: median {:.0} min {:.0} max {:.0}",
            millis[millis.len() / 2],
            millis[0],
            millis[millis.len() - 1]
        );
    }
}

/// The distance of a win or a loss.
fn plies(value: Value) -> u16 {
    match value {
        Value::Win { plies } | Value::Loss { plies } => plies,
        Value::Draw | Value::Score(_) => 0,
    }
}
