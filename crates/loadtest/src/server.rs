//! The server under test: a `baghchal` process started on a free loopback
//! port with a fresh SQLite database, or the `baghchal-ceiling` process,
//! and what `/proc` tells about it.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use anyhow::{bail, Context};
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::process::{Child, Command};

/// How long the server may take to print its address.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// What the server prints on stdout once its socket is bound.
const LISTENING: &str = "listening on ";

/// A `baghchal` server process owned by the benchmark. Dropping it kills
/// the process and deletes its database.
pub struct ServerProcess {
    /// The running server; killed on drop.
    child: Child,
    /// Its process id, for `/proc`.
    pid: u32,
    /// The base URL it printed, e.g. `http://127.0.0.1:40123`.
    url: String,
    /// The directory of its database, deleted on drop.
    _data: tempfile::TempDir,
}

impl ServerProcess {
    /// Starts `binary` on `127.0.0.1:0` with a fresh SQLite database in a
    /// temporary directory, passing `extra` arguments after the benchmark's
    /// own, and waits until it says where it listens. Its output after that
    /// line goes to `log` (or nowhere).
    pub async fn start(
        binary: &Path,
        extra: &[String],
        log: Option<&Path>,
    ) -> anyhow::Result<ServerProcess> {
        let data = tempfile::Builder::new()
            .prefix("baghchal-load-")
            .tempdir()
            .context("creating the database directory")?;
        let database = data.path().join("load.db");
        let mut args: Vec<String> = vec!["serve".into(), "--addr".into(), "127.0.0.1:0".into()];
        // A fresh SQLite file, unless the extra arguments name a database
        // (`--server-arg --database-url --server-arg postgres://...`).
        let named = extra
            .iter()
            .any(|arg| arg == "--database-url" || arg.starts_with("--database-url="));
        if !named {
            args.push("--database-url".into());
            args.push(format!("sqlite://{}?mode=rwc", database.display()));
        }
        args.extend(
            [
                // Every table comes from this one address.
                "--table-burst",
                "1000000",
                "--tables-per-minute",
                "1000000",
                // And every socket.
                "--connections-per-address",
                "1000000",
                "--websockets-per-address",
                "1000000",
                "--hello-burst",
                "1000000",
                "--hellos-per-minute",
                "1000000",
            ]
            .map(String::from),
        );
        args.extend(extra.iter().cloned());
        ServerProcess::spawn(binary, &args, log, data).await
    }

    /// Starts the ceiling server `binary` (`baghchal-ceiling`) on
    /// `127.0.0.1:0` and waits until it says where it listens.
    pub async fn start_ceiling(binary: &Path, log: Option<&Path>) -> anyhow::Result<ServerProcess> {
        let data = tempfile::Builder::new()
            .prefix("baghchal-ceiling-")
            .tempdir()
            .context("creating a directory")?;
        let args = ["--addr".to_owned(), "127.0.0.1:0".to_owned()];
        ServerProcess::spawn(binary, &args, log, data).await
    }

    async fn spawn(
        binary: &Path,
        args: &[String],
        log: Option<&Path>,
        data: tempfile::TempDir,
    ) -> anyhow::Result<ServerProcess> {
        let mut child = Command::new(binary)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .with_context(|| format!("starting {}", binary.display()))?;
        let pid = child.id().context("the server exited at once")?;
        let stdout = child.stdout.take().context("no stdout pipe")?;
        let stderr = child.stderr.take().context("no stderr pipe")?;

        let mut lines = BufReader::new(stdout).lines();
        let wait_for_address = async {
            while let Some(line) = lines.next_line().await? {
                if let Some(rest) = line.split(LISTENING).nth(1) {
                    return Ok(Some(rest.trim().trim_end_matches('/').to_owned()));
                }
            }
            Ok::<_, std::io::Error>(None)
        };
        let url = match tokio::time::timeout(START_TIMEOUT, wait_for_address).await {
            Ok(Ok(Some(url))) => url,
            Ok(Ok(None)) => {
                let status = child.wait().await?;
                bail!(
                    "{} exited ({status}) without printing {LISTENING:?}: {}",
                    binary.display(),
                    tail(stderr).await
                );
            }
            Ok(Err(e)) => return Err(e).context("reading the server's output"),
            Err(_) => bail!(
                "{} printed no {LISTENING:?} line within {START_TIMEOUT:?}",
                binary.display()
            ),
        };

        // Keep both pipes drained so that logging never blocks the server.
        let log = match log {
            Some(path) => Some(
                tokio::fs::File::create(path)
                    .await
                    .with_context(|| format!("creating {}", path.display()))?
                    .into_std()
                    .await,
            ),
            None => None,
        };
        drain(
            lines.into_inner(),
            log.as_ref().map(clone_file).transpose()?,
        );
        drain(stderr, log.as_ref().map(clone_file).transpose()?);

        Ok(ServerProcess {
            child,
            pid,
            url,
            _data: data,
        })
    }

    /// The base URL the server listens on.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Stops the server: the benchmark keeps nothing of its database.
    pub async fn stop(mut self) {
        let _ = self.child.kill().await;
    }
}

fn clone_file(file: &std::fs::File) -> anyhow::Result<tokio::fs::File> {
    Ok(tokio::fs::File::from_std(file.try_clone()?))
}

/// Copies `from` to `to` (or discards it) until it ends.
fn drain<R>(from: R, to: Option<tokio::fs::File>)
where
    R: AsyncRead + Unpin + Send + 'static,
{
    tokio::spawn(async move {
        let mut from = from;
        let _ = match to {
            Some(mut file) => tokio::io::copy(&mut from, &mut file).await,
            None => tokio::io::copy(&mut from, &mut tokio::io::sink()).await,
        };
    });
}

/// The last lines a failed server wrote on stderr.
async fn tail<R: AsyncRead + Unpin>(from: R) -> String {
    let mut lines = BufReader::new(from).lines();
    let mut last = Vec::new();
    while let Ok(Ok(Some(line))) =
        tokio::time::timeout(Duration::from_secs(1), lines.next_line()).await
    {
        last.push(line);
        if last.len() > 20 {
            last.remove(0);
        }
    }
    if last.is_empty() {
        "(nothing on stderr)".to_owned()
    } else {
        last.join("\n")
    }
}

/// The binary `name` built next to this one (`target/release/`), e.g.
/// `baghchal` (from the `baghchal` package) or `baghchal-ceiling` (from
/// this one).
pub fn sibling_binary(name: &str, package: &str, option: &str) -> anyhow::Result<PathBuf> {
    let me = std::env::current_exe().context("locating this binary")?;
    let path = me.with_file_name(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    if !path.is_file() {
        bail!(
            "{} does not exist: build it (cargo build --release -p {package}) or pass {option}",
            path.display()
        );
    }
    Ok(path)
}

/// A process's memory, from `/proc/PID/status`, in KiB.
#[derive(Clone, Copy, Debug, Default)]
pub struct Memory {
    /// The peak resident set size (`VmHWM`).
    pub peak_rss_kib: u64,
    /// The resident set size now (`VmRSS`).
    pub rss_kib: u64,
}

impl Memory {
    /// Reads the memory of process `pid`; `None` if it is gone or `/proc`
    /// is not there.
    pub fn of(pid: u32) -> Option<Memory> {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        let field = |name: &str| {
            status
                .lines()
                .find_map(|line| line.strip_prefix(name))
                .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        };
        Some(Memory {
            peak_rss_kib: field("VmHWM:")?,
            rss_kib: field("VmRSS:")?,
        })
    }

    /// The memory of every process of `pids`, added up (the nodes of a
    /// cluster); `None` if there are none or one cannot be read.
    pub fn of_all(pids: &[u32]) -> Option<Memory> {
        if pids.is_empty() {
            return None;
        }
        pids.iter().try_fold(Memory::default(), |sum, &pid| {
            let one = Memory::of(pid)?;
            Some(Memory {
                peak_rss_kib: sum.peak_rss_kib + one.peak_rss_kib,
                rss_kib: sum.rss_kib + one.rss_kib,
            })
        })
    }
}
