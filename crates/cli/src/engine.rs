//! `baghchal engine`: the engine line protocol on stdin/stdout
//! (`docs/engine-protocol.md`).

use std::path::PathBuf;

use anyhow::Context;
use baghchal_engine::protocol;

/// Options of `baghchal engine`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// A movement-phase tablebase file to probe (built by `baghchal
    /// tablebase build`; default: baghchal.tb when it exists).
    #[arg(long, env = "BAGHCHAL_TABLEBASE")]
    tablebase: Option<PathBuf>,
}

/// Runs `baghchal engine` until `quit` or the end of the input.
pub fn run(args: Args) -> anyhow::Result<()> {
    let engine = crate::tablebase::engine(args.tablebase.as_deref())?;
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    protocol::run(engine, stdin.lock(), stdout.lock()).context("engine input or output failed")
}
