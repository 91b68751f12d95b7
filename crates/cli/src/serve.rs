//! `baghchal serve`.

/// Options of `baghchal serve`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `baghchal serve`.
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("baghchal serve is not available in this build yet")
}
