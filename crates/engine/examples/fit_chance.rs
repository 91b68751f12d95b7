//! Fits the goats' winning chance (`crates/engine/src/chance.rs`) to the
//! outcomes of recorded games: every placement-phase position of each
//! finished game of the house rules from ply 4 on (where a review shows an
//! estimate), scored for the goats by the review's own search, against
//! two outcomes of its game for the goats (a win 1, a draw ½, a loss 0):
//! the game's result, and the tablebase's result of the position where
//! its placement ended (what the game was worth with best play from
//! there, whoever played it on).
//!
//! Each is fitted twice: with its intercept free, and held at 0 (an even
//! score an even game).
//!
//! `cargo run --release -p baghchal-engine --example fit_chance -- TABLEBASE DIR...`

use std::path::PathBuf;
use std::sync::Arc;

use baghchal_engine::chance::{fit, fit_slope};
use baghchal_engine::{Engine, Value};
use baghchal_rules::{Phase, Record, Rules, Side};
use baghchal_tablebase::Tablebase;

/// The review's search nodes per position (`crates/server/src/bot.rs`).
const NODES: u64 = 20_000;
/// The plies before this one were a tournament's opening.
const FROM: u16 = 4;

fn main() {
    let mut args = std::env::args().skip(1);
    let tablebase = args.next().expect("the tablebase file, then the records");
    let tablebase = Tablebase::load(tablebase.as_ref()).expect("a tablebase file");
    let mut files: Vec<PathBuf> = Vec::new();
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
    let engine = Engine::with_tablebase(Arc::new(tablebase));
    let mut samples = Vec::new();
    let mut solved_samples = Vec::new();
    let mut games = 0;
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        let Ok(record) = text.parse::<Record>() else {
            continue;
        };
        let Ok(game) = record.replay() else { continue };
        let Some(outcome) = game.outcome() else {
            continue;
        };
        if *game.rules() != Rules::default() {
            continue;
        }
        let result = match outcome.winner() {
            Some(Side::Goat) => 1.0,
            Some(Side::Tiger) => 0.0,
            None => 0.5,
        };
        games += 1;
        let mut position = game.start().clone();
        let first = samples.len();
        let mut solved = None;
        for &action in game.actions() {
            if solved.is_none() && position.phase() == Phase::Movement {
                solved = engine.solved(&position).map(|v| {
                    let goats = match position.side_to_move() {
                        Side::Goat => v,
                        Side::Tiger => v.flip(),
                    };
                    match goats {
                        Value::Win { .. } => 1.0,
                        Value::Loss { .. } => 0.0,
                        _ => 0.5,
                    }
                });
            }
            if position.phase() == Phase::Placement && position.ply() >= FROM {
                if let Some(best) = engine.best(&position, NODES) {
                    if let Value::Score(s) = best.value {
                        let goats = match position.side_to_move() {
                            Side::Goat => s,
                            Side::Tiger => -s,
                        };
                        samples.push((goats, result));
                    }
                }
            }
            position.play_unchecked(action);
        }
        if let Some(result) = solved {
            for &(score, _) in &samples[first..] {
                solved_samples.push((score, result));
            }
        }
    }
    println!("games {games}");
    for (name, samples) in [("result", &samples), ("solved", &solved_samples)] {
        let mean = samples.iter().map(|s| s.1).sum::<f64>() / samples.len() as f64;
        for (curve, fitted) in [("free", fit(samples)), ("even", fit_slope(samples))] {
            let fit = fitted.expect("positions of games with different results");
            println!(
                "{name} {curve}: positions {} mean {mean:.3} intercept {:.4} slope {:.4} \
                 log_loss {:.4} constant_log_loss {:.4}",
                fit.positions, fit.intercept, fit.slope, fit.log_loss, fit.constant_log_loss
            );
        }
    }
}
