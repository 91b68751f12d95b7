//! `baghchal engine`: the engine line protocol on stdin/stdout
//! (`docs/engine-protocol.md`).

use anyhow::Context;
use baghchal_engine::protocol;

/// Options of `baghchal engine`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The movement-phase tablebase to probe, found where the server keeps
    /// it; played without when it is not there.
    #[command(flatten)]
    location: crate::tablebase::Location,
}

/// Runs `baghchal engine` until `quit` or the end of the input.
pub fn run(args: Args) -> anyhow::Result<()> {
    let engine = args.location.engine()?;
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    protocol::run(engine, stdin.lock(), stdout.lock()).context("engine input or output failed")
}
