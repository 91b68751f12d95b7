//! `baghchal squeeze RECORDS...`: what the positions right after placement
//! of recorded games are worth under the house rules.
//!
//! The tablebase scores endless play as a draw; the house rules forbid
//! repeating a movement-phase position, so a position it calls a draw can
//! be lost. For each game this takes the first position of the movement
//! phase (the last goat just placed, the tigers to move, the repetition
//! record holding only it), probes the tablebase, and where it says draw
//! runs the engine's history-aware search (the repetition record on its
//! path, the tablebase at its leaves) to see whether one side wins by
//! force under the rules, and in how many plies. With `--along`, it also
//! walks each such game on and searches every position until one is
//! proved won or lost, and reports the first.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use baghchal_engine::Value;
use baghchal_rules::{Phase, Position, Record, Side};
use baghchal_tablebase::Wdl;

/// Options of `baghchal squeeze`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Record files, or directories of them (every `.txt` inside).
    #[arg(required = true)]
    records: Vec<PathBuf>,
    /// Nodes of the search per position.
    #[arg(long, default_value_t = 20_000_000)]
    nodes: u64,
    /// Also search the later positions of each game that enters the
    /// movement phase in a tablebase draw, until one is proved.
    #[arg(long)]
    along: bool,
    /// The movement-phase tablebase, found where the server keeps it; the
    /// analysis needs it.
    #[command(flatten)]
    location: crate::tablebase::Location,
}

/// What the search makes of a position, for the side to move.
fn verdict(value: Value) -> String {
    match value {
        Value::Win { plies } => format!("won in {plies}"),
        Value::Loss { plies } => format!("lost in {plies}"),
        Value::Draw => "draw".to_string(),
        Value::Score(s) => format!("open ({:+.2})", s as f64 / 1000.0),
    }
}

/// Every record file named by `paths`, in order.
pub(crate) fn files(paths: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut inside: Vec<PathBuf> = std::fs::read_dir(path)
                .with_context(|| format!("cannot read {}", path.display()))?
                .map(|e| e.map(|e| e.path()))
                .collect::<Result<_, _>>()?;
            inside.retain(|p| p.extension().is_some_and(|e| e == "txt"));
            inside.sort();
            out.extend(inside);
        } else {
            out.push(path.clone());
        }
    }
    Ok(out)
}

/// The name of a record file, for the report.
fn name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into(),
    )
}

/// Runs `baghchal squeeze`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let engine = args.location.engine()?;
    let Some(tablebase) = engine.tablebase() else {
        bail!("squeeze needs the tablebase: build it with `baghchal tablebase build`");
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "| game | goats lost in placement | tablebase | search ({} nodes) | first proof along the game | result |",
        args.nodes
    );
    let _ = writeln!(out, "|---|---:|---|---|---|---|");
    let (mut games, mut draws, mut lost, mut won) = (0, 0, 0, 0);
    let mut depths = Vec::new();
    for path in files(&args.records)? {
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let record: Record = text
            .parse()
            .with_context(|| format!("{} is not a record", path.display()))?;
        record
            .replay()
            .with_context(|| format!("{} does not replay", path.display()))?;
        let result = record
            .result
            .map_or("unfinished".to_string(), |o| o.to_string());
        // The position after each action, from the start.
        let mut position = match record.start {
            Some(setup) => Position::from_setup(setup, record.rules)?,
            None => Position::new(record.rules),
        };
        let mut actions = record.actions.iter();
        while position.phase() == Phase::Placement && !position.is_finished() {
            match actions.next() {
                Some(&a) => position.play_unchecked(a),
                None => break,
            }
        }
        if position.phase() != Phase::Movement || position.is_finished() {
            continue;
        }
        games += 1;
        let Some(probe) = tablebase.probe(&position) else {
            continue;
        };
        let wdl = match probe.wdl {
            Wdl::Win => format!(
                "{} win in {}",
                position.side_to_move().name(),
                probe.distance
            ),
            Wdl::Loss => format!(
                "{} loss in {}",
                position.side_to_move().name(),
                probe.distance
            ),
            Wdl::Draw => "draw".to_string(),
        };
        let mut searched = "–".to_string();
        let mut along = "–".to_string();
        if probe.wdl == Wdl::Draw {
            draws += 1;
            let best = engine
                .best(&position, args.nodes)
                .expect("an unfinished position");
            searched = format!("{} {}", position.side_to_move().name(), verdict(best.value));
            match (position.side_to_move(), best.value) {
                (Side::Tiger, Value::Win { plies }) | (Side::Goat, Value::Loss { plies }) => {
                    lost += 1;
                    depths.push(plies);
                }
                (Side::Tiger, Value::Loss { .. }) | (Side::Goat, Value::Win { .. }) => won += 1,
                _ => {}
            }
            if args.along {
                along = "none".to_string();
                let mut walk = position.clone();
                for &action in actions {
                    walk.play_unchecked(action);
                    if walk.is_finished() {
                        break;
                    }
                    let best = engine.best(&walk, args.nodes).expect("unfinished");
                    if matches!(best.value, Value::Win { .. } | Value::Loss { .. }) {
                        along = format!(
                            "ply {}: {} {}",
                            walk.ply(),
                            walk.side_to_move().name(),
                            verdict(best.value)
                        );
                        break;
                    }
                }
            }
        }
        let _ = writeln!(
            out,
            "| {} | {} | {wdl} | {searched} | {along} | {result} |",
            name(&path),
            position.eaten()
        );
    }
    depths.sort_unstable();
    let _ = writeln!(
        out,
        "\n{games} games reached the movement phase; the tablebase calls {draws} of those \
         positions drawn; the search proves {lost} of the draws lost for the goats{} and \
         {won} won for them.",
        if depths.is_empty() {
            String::new()
        } else {
            format!(
                " (in {} to {} plies, median {})",
                depths[0],
                depths[depths.len() - 1],
                depths[depths.len() / 2]
            )
        }
    );
    print!("{out}");
    Ok(())
}
