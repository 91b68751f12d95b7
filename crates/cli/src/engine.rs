//! `baghchal engine`: the engine line protocol on stdin/stdout
//! (`docs/engine-protocol.md`).

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use baghchal_engine::{protocol, Engine};
use baghchal_tablebase::Tablebase;

/// Options of `baghchal engine`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// A movement-phase tablebase file to probe (built by `baghchal tablebase build`).
    #[arg(long)]
    tablebase: Option<PathBuf>,
}

/// Runs `baghchal engine` until `quit` or the end of the input.
pub fn run(args: Args) -> anyhow::Result<()> {
    let engine = match &args.tablebase {
        Some(path) => {
            let tablebase = Tablebase::load(path)
                .with_context(|| format!("cannot load the tablebase {}", path.display()))?;
            Engine::with_tablebase(Arc::new(tablebase))
        }
        None => Engine::new(),
    };
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    protocol::run(engine, stdin.lock(), stdout.lock()).context("engine input or output failed")
}
