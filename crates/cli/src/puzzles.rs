//! `baghchal puzzles build`: the puzzle set from the solved movement phase,
//! recorded games and the site's finished games (see
//! `crates/engine/src/puzzle.rs` and `docs/puzzles.md`).

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
    /// Build the set from recorded games and the site's finished games and
    /// write it, one puzzle a line.
    Build(Build),
}

#[derive(clap::Args, Debug)]
struct Build {
    /// Record files, or directories of them (every file directly inside).
    records: Vec<PathBuf>,
    /// Also the site's finished games, read from this database
    /// (`sqlite://FILE` or `postgres://...`, the server's): the positions
    /// right after their blunders. The command connects as the server
    /// does, running the migrations of its version.
    #[arg(long)]
    database_url: Option<String>,
    /// How many of the database's newest finished games to read.
    #[arg(long, default_value_t = 10_000)]
    games: u32,
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
    if args.records.is_empty() && args.database_url.is_none() {
        bail!("name record files or directories, or a database (--database-url), or both");
    }
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
    let mut puzzles = engine.find_puzzles(&games);
    let played = match &args.database_url {
        Some(url) => played_games(url, args.games)?,
        None => Vec::new(),
    };
    if !played.is_empty() {
        let mut by_id: std::collections::BTreeMap<String, _> =
            puzzles.into_iter().map(|p| (p.id.clone(), p)).collect();
        for puzzle in engine.find_blunder_puzzles(&played) {
            by_id.entry(puzzle.id.clone()).or_insert(puzzle);
        }
        puzzles = by_id.into_values().collect();
    }
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
        "{} puzzles from {} recorded and {} played games in {:.1} s, written to {}",
        puzzles.len(),
        games.len(),
        played.len(),
        started.elapsed().as_secs_f64(),
        args.out.display()
    );
    for theme in Theme::ALL {
        let n = puzzles.iter().filter(|p| p.themes.contains(&theme)).count();
        eprintln!("{theme}: {n}");
    }
    Ok(())
}

/// The newest `limit` finished games of the house rules in the database
/// at `url` (the `games` rows), replayed from their records.
fn played_games(url: &str, limit: u32) -> anyhow::Result<Vec<Game>> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let records = runtime.block_on(async {
        let storage = baghchal_server::storage::Storage::connect(url)
            .await
            .with_context(|| format!("cannot open the database {url}"))?;
        let records = storage.finished_records(i64::from(limit)).await;
        storage.close().await;
        anyhow::Ok(records?)
    })?;
    Ok(records
        .iter()
        .filter_map(|text| text.parse::<Record>().ok()?.replay().ok())
        .filter(|game| *game.rules() == Rules::default())
        .collect())
}
