//! `baghchal tournament`.

/// Options of `baghchal tournament`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `baghchal tournament`.
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("baghchal tournament is not available in this build yet")
}
