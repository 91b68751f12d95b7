//! `baghchal tune`: fits the evaluation's weights to the results of
//! recorded games (for example a tournament's `--records`) and prints
//! them as the constants of `crates/engine/src/eval.rs`.

use std::path::PathBuf;

use anyhow::{bail, Context};
use baghchal_engine::tune::Tuner;
use baghchal_rules::Record;

/// Options of `baghchal tune`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Record files, or directories of them (every file directly inside).
    #[arg(required = true)]
    records: Vec<PathBuf>,
    /// The first ply used of each game: the plies before it were the
    /// tournament's opening, not the levels' choice.
    #[arg(long, default_value_t = 4)]
    from: u16,
    /// The movement-phase tablebase, found where the server keeps it: where
    /// it has a win or a loss the search does not evaluate, so those
    /// positions are left out.
    #[command(flatten)]
    location: crate::tablebase::Location,
}

/// Runs `baghchal tune`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let engine = args.location.engine()?;
    let mut files = Vec::new();
    for path in &args.records {
        if path.is_dir() {
            let entries = std::fs::read_dir(path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            for entry in entries {
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
    let mut tuner = Tuner::new();
    for file in &files {
        let text = std::fs::read_to_string(file)
            .with_context(|| format!("cannot read {}", file.display()))?;
        let record: Record = text
            .parse()
            .with_context(|| format!("{} is not a game record", file.display()))?;
        let game = record
            .replay()
            .with_context(|| format!("{} does not replay", file.display()))?;
        tuner.add_game(&game, engine.tablebase(), args.from);
    }
    let Some(tuned) = tuner.fit() else {
        bail!(
            "no fit: the {} files hold too few positions of finished games of the house \
             rules, or ones in which eating goats does not help the tigers",
            files.len()
        );
    };
    print!("{tuned}");
    Ok(())
}
