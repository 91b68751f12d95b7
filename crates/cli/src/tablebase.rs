//! `baghchal tablebase`.

/// Options of `baghchal tablebase`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `baghchal tablebase`.
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("baghchal tablebase is not available in this build yet")
}
