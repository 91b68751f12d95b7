//! `baghchal tablebase`: build, inspect and probe the movement-phase
//! tablebase.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{anyhow, bail, Context};
use baghchal_engine::Engine;
use baghchal_rules::{Position, Rules};
use baghchal_server::tablebase::tablebase_path;
use baghchal_tablebase::{Indexer, Probe, Progress, Shape, Tablebase, Wdl};
use indicatif::{ProgressBar, ProgressStyle};

/// Options of `baghchal tablebase`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

/// Where the tablebase is: the flags of `serve`, taken by every command
/// that reads the tablebase, so that they all find the file the server
/// built.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct Location {
    /// The directory of the server's files (the tablebase); default: the
    /// directory of the SQLite database (DATABASE_URL), or the current one.
    #[arg(long, env = "BAGHCHAL_DATA_DIR")]
    pub data_dir: Option<PathBuf>,
    /// The movement-phase tablebase file (default: DATA_DIR/baghchal.tb,
    /// where `serve` builds it in the background when it is missing).
    #[arg(long, env = "BAGHCHAL_TABLEBASE")]
    pub tablebase: Option<PathBuf>,
}

impl Location {
    /// The file, for a server of this database.
    pub fn path_for(&self, database_url: &str) -> PathBuf {
        tablebase_path(
            self.tablebase.as_deref(),
            self.data_dir.as_deref(),
            database_url,
        )
    }

    /// The file, for the server of `DATABASE_URL` (or of the default
    /// database, as `serve` has).
    pub fn path(&self) -> PathBuf {
        self.path_for(&database_url())
    }

    /// Where the file was looked for and why there, for a message.
    fn looked(&self) -> String {
        let path = self.path();
        let why = if self.tablebase.is_some() {
            "named by --tablebase or BAGHCHAL_TABLEBASE".to_owned()
        } else if self.data_dir.is_some() {
            "in the data directory of --data-dir or BAGHCHAL_DATA_DIR".to_owned()
        } else {
            format!("in the data directory of the database {}", database_url())
        };
        format!("{} ({why})", path.display())
    }

    /// The tablebase, read and checked; when there is no file, an error
    /// that says where it was looked for.
    pub fn load(&self) -> anyhow::Result<Tablebase> {
        let path = self.path();
        if !path.exists() {
            bail!(
                "no tablebase at {}; build it with `baghchal tablebase build` \
                 or let `baghchal serve` build it there",
                self.looked()
            );
        }
        Tablebase::load(&path).with_context(|| format!("loading the tablebase {}", path.display()))
    }

    /// The engine for `engine`, `tournament`, `tune` and `squeeze`: with
    /// the tablebase when its file exists, else without one (saying where
    /// it was looked for). A file named by `--tablebase` must exist.
    pub fn engine(&self) -> anyhow::Result<Engine> {
        if self.tablebase.is_none() && !self.path().exists() {
            eprintln!(
                "note: no tablebase at {}; the levels play without it",
                self.looked()
            );
            return Ok(Engine::new());
        }
        let tablebase = self.load()?;
        eprintln!("note: tablebase {}", self.path().display());
        Ok(Engine::with_tablebase(Arc::new(tablebase)))
    }
}

/// The database `serve` would use: `DATABASE_URL`, or its default.
fn database_url() -> String {
    std::env::var("DATABASE_URL")
        .unwrap_or_else(|_| baghchal_server::DEFAULT_DATABASE_URL.to_owned())
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    /// Solve the movement phase of the house rules and write the file.
    Build {
        /// Where to write the tablebase (default: where `serve` reads it,
        /// see --data-dir and --tablebase).
        #[arg(long)]
        out: Option<PathBuf>,
        #[command(flatten)]
        location: Location,
        /// Worker threads (default: one per core).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Print the value of a position and of each of its actions.
    Probe {
        /// The position text (`BOARD SIDE IN_HAND EATEN PLY`).
        position: String,
        #[command(flatten)]
        location: Location,
    },
    /// Check a tablebase file and count its results.
    Info {
        #[command(flatten)]
        location: Location,
    },
}

/// Runs `baghchal tablebase`.
pub fn run(args: Args) -> anyhow::Result<()> {
    match args.command {
        Command::Build {
            out,
            threads,
            location,
        } => build(out.unwrap_or_else(|| location.path()), threads),
        Command::Probe { position, location } => probe(&position, &location),
        Command::Info { location } => info(&location),
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
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
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

fn probe(text: &str, location: &Location) -> anyhow::Result<()> {
    let position =
        Position::from_text(text, Rules::default()).map_err(|e| anyhow!("bad position: {e}"))?;
    let tb = location.load()?;
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

fn info(location: &Location) -> anyhow::Result<()> {
    let start = Instant::now();
    let tb = location.load()?;
    let file = location.path();
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
