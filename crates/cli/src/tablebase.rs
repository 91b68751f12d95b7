//! `baghchal tablebase`: build, inspect and probe the movement-phase
//! tablebase.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{anyhow, Context};
use baghchal_engine::Engine;
use baghchal_rules::{Position, Rules};
use baghchal_tablebase::{Indexer, Probe, Progress, Shape, Tablebase, Wdl};
use indicatif::{ProgressBar, ProgressStyle};

/// Options of `baghchal tablebase`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

/// The engine for `engine`, `tournament` and `tune`: with the tablebase
/// named, or with baghchal.tb when that file exists, or without one.
pub fn engine(named: Option<&Path>) -> anyhow::Result<Engine> {
    let path = match named {
        Some(path) => path.to_owned(),
        None => {
            let default = PathBuf::from("baghchal.tb");
            if !default.exists() {
                return Ok(Engine::new());
            }
            default
        }
    };
    let tablebase = Tablebase::load(&path)
        .with_context(|| format!("loading the tablebase {}", path.display()))?;
    tracing::info!(path = %path.display(), "tablebase loaded");
    Ok(Engine::with_tablebase(Arc::new(tablebase)))
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    /// Solve the movement phase of the house rules and write the file.
    Build {
        /// Where to write the tablebase.
        #[arg(long, default_value = "baghchal.tb")]
        out: PathBuf,
        /// Worker threads (default: one per core).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Print the value of a position and of each of its actions.
    Probe {
        /// The position text (`BOARD SIDE IN_HAND EATEN PLY`).
        position: String,
        /// The tablebase file.
        #[arg(long, env = "BAGHCHAL_TABLEBASE", default_value = "baghchal.tb")]
        file: PathBuf,
    },
    /// Check a tablebase file and count its results.
    Info {
        /// The tablebase file.
        #[arg(long, env = "BAGHCHAL_TABLEBASE", default_value = "baghchal.tb")]
        file: PathBuf,
    },
}

/// Runs `baghchal tablebase`.
pub fn run(args: Args) -> anyhow::Result<()> {
    match args.command {
        Command::Build { out, threads } => build(out, threads),
        Command::Probe { position, file } => probe(&position, file),
        Command::Info { file } => info(file),
    }
}

/// The build's progress bar.
struct Bar(ProgressBar);

impl Progress for Bar {
    fn tier(&self, eaten: u32) {
        self.0.set_message(format!("{eaten} eaten"));
    }

    fn advance(&self, n: u64) {
        self.0.inc(n);
    }
}

fn build(out: PathBuf, threads: Option<usize>) -> anyhow::Result<()> {
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(n) = threads {
        pool = pool.num_threads(n);
    }
    let pool = pool.build().context("starting the worker threads")?;
    let bar = ProgressBar::new(baghchal_tablebase::work(Shape::HOUSE, &Indexer::new()));
    bar.set_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{wide_bar}] {percent:>3}% {msg} (eta {eta})",
        )
        .expect("a valid template")
        .progress_chars("=> "),
    );
    let start = Instant::now();
    let bar = Bar(bar);
    let tb = pool.install(|| Tablebase::build(&bar))?;
    bar.0.finish_with_message("solved");
    tb.save(&out)
        .with_context(|| format!("writing {}", out.display()))?;
    println!(
        "wrote {} ({} bytes) in {:.1} s with {} threads",
        out.display(),
        tb.file_len(),
        start.elapsed().as_secs_f64(),
        pool.current_num_threads()
    );
    Ok(())
}

fn load(file: &Path) -> anyhow::Result<Tablebase> {
    Tablebase::load(file).with_context(|| format!("loading the tablebase {}", file.display()))
}

fn describe(probe: Option<Probe>) -> String {
    match probe {
        None => "not covered".into(),
        Some(Probe { wdl: Wdl::Draw, .. }) => "draw".into(),
        Some(Probe { wdl, distance }) => {
            let word = if wdl == Wdl::Win { "win" } else { "loss" };
            format!("{word} in {distance}")
        }
    }
}

fn probe(text: &str, file: PathBuf) -> anyhow::Result<()> {
    let position =
        Position::from_text(text, Rules::default()).map_err(|e| anyhow!("bad position: {e}"))?;
    let tb = load(&file)?;
    println!("{} (side to move)", describe(tb.probe(&position)));
    for action in position.legal_actions() {
        let after = position.clone().play(action)?;
        let value = if after.is_finished() {
            format!("{:?}", after.outcome().expect("finished"))
        } else {
            describe(tb.probe(&after))
        };
        println!("{action} {value}");
    }
    Ok(())
}

fn info(file: PathBuf) -> anyhow::Result<()> {
    let start = Instant::now();
    let tb = load(&file)?;
    let loaded = start.elapsed();
    let shape = tb.shape();
    let stats = tb.stats();
    println!(
        "file: {} ({} bytes, loaded and checked in {:.0} ms)",
        file.display(),
        tb.file_len(),
        loaded.as_secs_f64() * 1e3
    );
    println!("goats: {}, capture target: {}", shape.goats, shape.target);
    println!("positions up to symmetry: {}", stats.positions);
    println!("side to move wins: {}", stats.wins);
    println!("draws: {}", stats.draws);
    println!("side to move loses: {}", stats.losses);
    println!("longest distance: {} plies", stats.longest);
    Ok(())
}
