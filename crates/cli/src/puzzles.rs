//! `baghchal puzzles build`: the puzzle set from the solved movement phase
//! and recorded games (see `crates/engine/src/puzzle.rs` and
//! `docs/puzzles.md`).

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context};
use baghchal_engine::puzzle::Theme;
use baghchal_rules::{Game, Record, Rules};

/// Options of `baghchal puzzles`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    /// Build the set from recorded games and write it, one puzzle a line.
    Build(Build),
}

#[derive(clap::Args, Debug)]
struct Build {
    /// Record files, or directories of them (every file directly inside).
    #[arg(required = true)]
    records: Vec<PathBuf>,
    /// Where to write the set.
    #[arg(long, default_value = "crates/engine/data/puzzles.txt")]
    out: PathBuf,
    /// The movement-phase tablebase, found where the server keeps it.
    #[command(flatten)]
    location: crate::tablebase::Location,
}

/// Runs `baghchal puzzles`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let Command::Build(args) = args.command;
    let engine = args.location.engine()?;
    if engine.tablebase().is_none() {
        bail!("puzzles are built from the tablebase: build it first (baghchal tablebase build)");
    }
    let started = Instant::now();
    let mut files = Vec::new();
    for path in &args.records {
        if path.is_dir() {
            for entry in std::fs::read_dir(path)
                .with_context(|| format!("cannot read {}", path.display()))?
            {
                let entry = entry?;
                if entry.file_type()?.is_file() {
                    files.push(entry.path());
                }
            }
        } else {
            files.push(path.clone());
        }
    }
    files.sort();
    let mut games: Vec<Game> = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file)
            .with_context(|| format!("cannot read {}", file.display()))?;
        let Ok(record) = text.parse::<Record>() else {
            continue;
        };
        let Ok(game) = record.replay() else { continue };
        if *game.rules() == Rules::default() {
            games.push(game);
        }
    }
    let puzzles = engine.find_puzzles(&games);
    let mut text = String::from(
        "# The puzzle set: one puzzle a line (crates/engine/src/puzzle.rs), built by\n\
         # `baghchal puzzles build` (docs/puzzles.md).\n",
    );
    for puzzle in &puzzles {
        text.push_str(&puzzle.to_line());
        text.push('\n');
    }
    std::fs::write(&args.out, text)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    eprintln!(
        "{} puzzles from {} games in {:.1} s, written to {}",
        puzzles.len(),
        games.len(),
        started.elapsed().as_secs_f64(),
        args.out.display()
    );
    for theme in Theme::ALL {
        let n = puzzles.iter().filter(|p| p.themes.contains(&theme)).count();
        eprintln!("{theme}: {n}");
    }
    Ok(())
}
