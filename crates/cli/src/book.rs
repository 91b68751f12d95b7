//! `baghchal book RECORDS...`: builds the goats' placement book from
//! recorded games (`crates/engine/src/book.rs` documents the book).
//!
//! Every position of the placement phase with the goats to move, up to
//! `--plies`, in the records (turned and mirrored images counted once) is
//! searched with `--nodes` nodes, the earliest placements first, and the
//! best placement goes into the book. The book is written after every
//! position, so a run that is stopped keeps its work, and `--extend`
//! goes on from it. Where the top level, without the book, would place
//! elsewhere, the position after its placement is searched as deeply
//! too, and the report lists the placements that the deep search scores
//! more than half a goat below the best: where the top level gives a goat
//! away. The search is deterministic, so the same records and nodes make
//! the same book.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use anyhow::Context;
use baghchal_engine::{Engine, Level, PlacementBook};
use baghchal_rules::{Action, Position, Record};

use crate::tournament::squeeze::files;

/// Options of `baghchal book`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Record files, or directories of them (every `.txt` inside).
    #[arg(required = true)]
    records: Vec<PathBuf>,
    /// Nodes of the deep search per position (ten times the top level's
    /// 2.5 million by default).
    #[arg(long, default_value_t = 25_000_000)]
    nodes: u64,
    /// Take the goats' placements up to this ply (the first placement is
    /// ply 0).
    #[arg(long, default_value_t = 24)]
    plies: u16,
    /// Take only the games whose goats were this player, by the record's
    /// file name (`NNNN-GOATS-TIGERS.txt`).
    #[arg(long)]
    goats: Option<String>,
    /// The book to extend: its entries are kept and not searched again.
    #[arg(long)]
    extend: Option<PathBuf>,
    /// Where to write the book.
    #[arg(long)]
    output: PathBuf,
    /// Write the report of the positions searched (Markdown) here.
    #[arg(long)]
    report: Option<PathBuf>,
    /// Worker threads.
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// The movement-phase tablebase, found where the server keeps it.
    #[command(flatten)]
    location: crate::tablebase::Location,
}

/// A searched position: the deep search's best placement and what the
/// top level would have played.
struct Searched {
    position: Position,
    best: Action,
    best_value: i32,
    top: Action,
    /// The deep search's value of the top level's placement, when it
    /// differs from the best.
    top_value: Option<i32>,
}

/// How far below the best a placement must score to give a goat away.
const GIVE_AWAY: i32 = 500;

/// The goats' placement positions of `record` up to ply `plies`.
fn positions(record: &Record, plies: u16) -> Vec<Position> {
    let mut out = Vec::new();
    let Ok(game) = record.replay() else {
        return out;
    };
    let mut position = game.start().clone();
    for &action in game.actions() {
        if position.ply() > plies {
            break;
        }
        if let Some(canonical) = PlacementBook::canonical(&position) {
            out.push(canonical);
        }
        position.play_unchecked(action);
    }
    out
}

/// Searches one position.
fn search(engine: &Engine, bookless: &Engine, position: Position, nodes: u64) -> Option<Searched> {
    let best = engine.best(&position, nodes)?;
    let top = bookless.choose(&position, Level::MAX, 0)?;
    let top_value = if top == best.action {
        None
    } else {
        let mut after = position.clone();
        after.play_unchecked(top);
        Some(-engine.best(&after, nodes).map_or(0, |r| r.value.score()))
    };
    Some(Searched {
        position,
        best: best.action,
        best_value: best.value.score(),
        top,
        top_value,
    })
}

/// Runs `baghchal book`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let book = match &args.extend {
        Some(path) => std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?
            .parse::<PlacementBook>()
            .with_context(|| format!("{} is not a placement book", path.display()))?,
        None => PlacementBook::new(),
    };
    let mut seen = HashSet::new();
    let mut todo = Vec::new();
    for path in files(&args.records)? {
        if let Some(goats) = &args.goats {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name.split('-').nth(1) != Some(goats.as_str()) {
                continue;
            }
        }
        let record: Record = std::fs::read_to_string(&path)?
            .parse()
            .with_context(|| format!("{} is not a record", path.display()))?;
        for position in positions(&record, args.plies) {
            if book.get(&position).is_none() && seen.insert(position.to_string()) {
                todo.push(position);
            }
        }
    }
    // The earliest placements first: they are shared by the most games.
    todo.sort_by_key(Position::ply);
    eprintln!("{} positions to search", todo.len());
    let engine = args.location.engine()?;
    let bookless = engine.clone().with_book(PlacementBook::new());
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    // The book is written after every position, so that a long run that
    // is stopped keeps what it searched.
    let state = Mutex::new((book, Vec::new(), Ok(())));
    std::thread::scope(|scope| {
        for _ in 0..args.threads.max(1) {
            scope.spawn(|| {
                while let Some(position) = todo.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let searched = search(&engine, &bookless, position.clone(), args.nodes);
                    let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                    let Some(s) = searched else {
                        continue;
                    };
                    eprintln!(
                        "{n}/{}: {} best {} ({:+}), top {} ({})",
                        todo.len(),
                        s.position,
                        s.best,
                        s.best_value,
                        s.top,
                        s.top_value.map_or("same".to_string(), |v| format!("{v:+}"))
                    );
                    let mut state = state.lock().expect("no worker panicked");
                    let (book, found, written) = &mut *state;
                    book.insert(&s.position, s.best, s.best_value);
                    found.push(s);
                    if written.is_ok() {
                        *written = std::fs::write(&args.output, book.to_string())
                            .with_context(|| format!("cannot write {}", args.output.display()));
                    }
                }
            });
        }
    });
    let (book, mut found, written) = state.into_inner().expect("no worker panicked");
    written?;
    std::fs::write(&args.output, book.to_string())
        .with_context(|| format!("cannot write {}", args.output.display()))?;
    found.sort_by_key(|s| (s.position.ply(), s.position.to_string()));
    let text = report(&args, &found, book.len());
    print!("{text}");
    if let Some(path) = &args.report {
        std::fs::write(path, &text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

/// The Markdown report of the positions searched.
fn report(args: &Args, found: &[Searched], entries: usize) -> String {
    let mut out = String::new();
    let differ = found.iter().filter(|s| s.top_value.is_some()).count();
    let _ = writeln!(
        out,
        "{} positions searched with {} nodes each; the book now holds {entries}. \
         The top level (without the book) places elsewhere than the deep search \
         in {differ} of them; where the deep search scores its placement more \
         than {:.2} goats below the best (values for the goats, in goats):\n",
        found.len(),
        args.nodes,
        GIVE_AWAY as f64 / 1000.0
    );
    let _ = writeln!(out, "| position | top level | deep search's best |");
    let _ = writeln!(out, "|---|---|---|");
    for s in found {
        let Some(top) = s.top_value else {
            continue;
        };
        if s.best_value - top > GIVE_AWAY {
            let _ = writeln!(
                out,
                "| `{}` | {} ({:+.2}) | {} ({:+.2}) |",
                s.position,
                s.top,
                top as f64 / 1000.0,
                s.best,
                s.best_value as f64 / 1000.0
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use baghchal_rules::Game;

    #[test]
    fn the_positions_are_the_goats_placements_up_to_the_ply_once_per_symmetry() {
        let mut game = Game::new(Default::default());
        for text in ["a3", "a1-b1", "a4", "b1-c1", "b2"] {
            game.play(text.parse().unwrap()).unwrap();
        }
        let record = game.record();
        let found = positions(&record, 2);
        assert_eq!(found.len(), 2);
        assert!(found.iter().all(|p| p.in_hand() > 0 && p.ply() % 2 == 0));
        assert_eq!(positions(&record, 4).len(), 3);
        // Each position is in the book's orientation.
        for p in positions(&record, 4) {
            assert_eq!(PlacementBook::canonical(&p), Some(p.clone()));
        }
    }
}
