//! Services a fault test owns, so that it can stop and start them without
//! touching the shared ones: a private NATS server, a private PostgreSQL,
//! and a TCP proxy whose connections the test cuts. Each listens on a free
//! loopback port and keeps its data in a directory of its own, removed
//! when it is dropped.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::process::{Child, Command};
use tokio::sync::watch;

use super::{unique, PATIENCE};

/// A free port on the loopback interface, as the system hands it out.
async fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    listener.local_addr().unwrap().port()
}

/// Waits until something accepts connections on `port`.
async fn until_listening(port: u16, what: &str) {
    let started = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).await.is_err() {
        assert!(started.elapsed() < PATIENCE, "{what} did not start");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A fresh directory under the system's temporary directory.
fn temp_dir(prefix: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(unique(prefix));
    std::fs::create_dir(&dir).unwrap();
    dir
}

/// The NATS server binary: `BAGHCHAL_TEST_NATS_SERVER`, else
/// `nats-server` on the `PATH` or in `/usr/sbin`.
fn nats_server_binary() -> Option<PathBuf> {
    if let Ok(path) = std::env::var("BAGHCHAL_TEST_NATS_SERVER") {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/sbin")])
        .map(|dir| dir.join("nats-server"))
        .find(|candidate| candidate.is_file())
}

/// A NATS server (with JetStream) of the test's own.
pub struct Nats {
    binary: PathBuf,
    port: u16,
    dir: PathBuf,
    /// Its configuration file, when it has one.
    config: Option<PathBuf>,
    child: Option<Child>,
}

impl Nats {
    /// Starts one.
    pub async fn start() -> Nats {
        Nats::start_with("").await
    }

    /// Starts one whose configuration file holds `settings` (an
    /// `authorization` block, say) besides its address.
    pub async fn start_with(settings: &str) -> Nats {
        let binary = nats_server_binary().expect(
            "a nats-server binary on the PATH or in /usr/sbin (or BAGHCHAL_TEST_NATS_SERVER)",
        );
        let dir = temp_dir("baghchal-nats-");
        let config = (!settings.is_empty()).then(|| {
            let path = dir.join("nats.conf");
            std::fs::write(&path, settings).unwrap();
            path
        });
        let mut nats = Nats {
            binary,
            port: free_port().await,
            dir,
            config,
            child: None,
        };
        nats.start_again().await;
        nats
    }

    /// Its URL.
    pub fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }

    /// Starts it (again) on its port and its store.
    pub async fn start_again(&mut self) {
        let mut command = Command::new(&self.binary);
        if let Some(config) = &self.config {
            command.arg("-c").arg(config);
        }
        let child = command
            .args([
                "-a",
                "127.0.0.1",
                "-p",
                &self.port.to_string(),
                "-js",
                "-sd",
            ])
            .arg(&self.dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("nats-server starts");
        self.child = Some(child);
        until_listening(self.port, "nats-server").await;
    }

    /// SIGKILL: every connection to it drops at once.
    pub async fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            child.kill().await.unwrap();
        }
    }
}

impl Drop for Nats {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.start_kill();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A PostgreSQL server of the test's own: a fresh cluster in a temporary
/// directory, its unix socket there too, TCP on a free loopback port,
/// trust authentication for the `postgres` role.
pub struct Postgres {
    bin: PathBuf,
    dir: PathBuf,
    port: u16,
    /// The user the server runs as when the test runs as root (PostgreSQL
    /// refuses to run as root).
    user: Option<String>,
}

impl Postgres {
    /// Creates and starts one: it needs a PostgreSQL installation and,
    /// running as root, a user to run it as.
    pub async fn start() -> Postgres {
        let bin = postgres_bin_dir()
            .expect("PostgreSQL's binaries (initdb, pg_ctl; or BAGHCHAL_TEST_PG_BIN)");
        let user = if is_root().await {
            Some(unprivileged_user().await.expect(
                "running as root, an unprivileged user (postgres, nobody) to run PostgreSQL as",
            ))
        } else {
            None
        };
        let dir = temp_dir("baghchal-pg-");
        if let Some(user) = &user {
            let status = Command::new("chown")
                .arg(user)
                .arg(&dir)
                .status()
                .await
                .unwrap();
            assert!(status.success(), "chown of the data directory");
        }
        let postgres = Postgres {
            bin,
            dir,
            port: free_port().await,
            user,
        };
        let data = postgres.data();
        postgres
            .run(
                "initdb",
                &["-D", &data, "-U", "postgres", "--auth=trust", "--no-sync"],
            )
            .await;
        postgres.pg_ctl("start").await;
        until_listening(postgres.port, "PostgreSQL").await;
        postgres
    }

    fn data(&self) -> String {
        self.dir.join("data").display().to_string()
    }

    /// The URL of its `postgres` database, to create others from.
    pub fn admin_url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    /// Runs one of its programs, as its user; it must succeed.
    async fn run(&self, program: &str, args: &[&str]) {
        let program = self.bin.join(program);
        let mut command = match &self.user {
            Some(user) => {
                let mut command = Command::new("runuser");
                command.args(["-u", user, "--"]).arg(&program);
                command
            }
            None => Command::new(&program),
        };
        let output = command
            .args(args)
            .stdin(Stdio::null())
            .output()
            .await
            .expect("a PostgreSQL program runs");
        assert!(
            output.status.success(),
            "{} {args:?}: {}{}",
            program.display(),
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }

    /// `pg_ctl ACTION` on its data directory (`start`, `stop`), waiting
    /// for it to complete; a stop is a fast one (sessions are ended, the
    /// data checkpointed).
    async fn pg_ctl(&self, action: &str) {
        let data = self.data();
        let log = self.dir.join("log").display().to_string();
        let options = format!(
            "-p {} -c listen_addresses=127.0.0.1 -c unix_socket_directories={}",
            self.port,
            self.dir.display()
        );
        let mut args = vec!["-D", &data, "-w", action];
        match action {
            "stop" => args.extend(["-m", "fast"]),
            _ => args.extend(["-l", &log, "-o", &options]),
        }
        self.run("pg_ctl", &args).await;
    }

    /// Stops it: every session ends.
    pub async fn stop(&self) {
        self.pg_ctl("stop").await;
    }

    /// Starts it again on the same data and port.
    pub async fn start_again(&self) {
        self.pg_ctl("start").await;
        until_listening(self.port, "PostgreSQL").await;
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let pg_ctl = self.bin.join("pg_ctl");
        let data = self.data();
        let mut command = match &self.user {
            Some(user) => {
                let mut command = std::process::Command::new("runuser");
                command.args(["-u", user, "--"]).arg(&pg_ctl);
                command
            }
            None => std::process::Command::new(&pg_ctl),
        };
        let _ = command
            .args(["-D", &data, "-m", "immediate", "-w", "stop"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Where `initdb` and `pg_ctl` are: `BAGHCHAL_TEST_PG_BIN`, else the
/// directory of `initdb` on the `PATH`.
fn postgres_bin_dir() -> Option<PathBuf> {
    if let Ok(dir) = std::env::var("BAGHCHAL_TEST_PG_BIN") {
        return Some(PathBuf::from(dir));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .find(|dir| dir.join("initdb").is_file() && dir.join("pg_ctl").is_file())
        .map(|dir| {
            // Follow a link to the installation's own directory, where
            // `postgres` sits next to `pg_ctl`.
            std::fs::canonicalize(dir.join("pg_ctl"))
                .ok()
                .and_then(|p| p.parent().map(Path::to_path_buf))
                .unwrap_or(dir)
        })
}

async fn is_root() -> bool {
    let output = Command::new("id").arg("-u").output().await;
    output.is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// A user other than root that `runuser` can run PostgreSQL as.
async fn unprivileged_user() -> Option<String> {
    for user in ["postgres", "nobody"] {
        let works = Command::new("runuser")
            .args(["-u", user, "--", "true"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .await
            .is_ok_and(|s| s.success());
        if works {
            return Some(user.to_owned());
        }
    }
    None
}

/// A TCP proxy on a free loopback port to `target`, until it is cut: then
/// every connection through it closes at once and new ones are refused
/// (its listener is gone).
pub struct Proxy {
    pub addr: String,
    cut: watch::Sender<bool>,
}

impl Proxy {
    pub async fn start(target: String) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let (cut, mut cut_seen) = watch::channel(false);
        let connections = cut.subscribe();
        tokio::spawn(async move {
            loop {
                let accepted = tokio::select! {
                    _ = cut_seen.changed() => break,
                    accepted = listener.accept() => accepted,
                };
                let Ok((mut inbound, _)) = accepted else {
                    continue;
                };
                let mut cut_seen = connections.clone();
                let target = target.clone();
                tokio::spawn(async move {
                    let Ok(mut outbound) = TcpStream::connect(&target).await else {
                        return;
                    };
                    tokio::select! {
                        _ = cut_seen.changed() => {}
                        _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound) => {}
                    }
                    let _ = inbound.shutdown().await;
                    let _ = outbound.shutdown().await;
                });
            }
        });
        Proxy { addr, cut }
    }

    /// Closes every connection through it and stops listening.
    pub fn cut(&self) {
        let _ = self.cut.send(true);
    }
}
