//! The process's open-file limit, raised to fit the sockets a run opens
//! (each websocket or lobby channel is a file).

use anyhow::Context;

/// Raises the open-file limit to fit `sockets` sockets and some more.
pub fn raise_open_file_limit(sockets: u64) -> anyhow::Result<()> {
    use rlimit::Resource;
    let wanted = sockets + 1024;
    let (soft, hard) = Resource::NOFILE
        .get()
        .context("reading the open-file limit")?;
    if soft >= wanted {
        return Ok(());
    }
    // Raising the hard limit needs privileges; try, then settle for it.
    if Resource::NOFILE.set(wanted, hard.max(wanted)).is_err() {
        Resource::NOFILE
            .set(hard, hard)
            .context("raising the open-file limit")?;
        if hard < wanted {
            eprintln!("warning: the open-file limit is {hard}; {wanted} descriptors are wanted");
        }
    }
    Ok(())
}
