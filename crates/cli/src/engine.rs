//! `baghchal engine`.

/// Options of `baghchal engine`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `baghchal engine`.
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("baghchal engine is not available in this build yet")
}
