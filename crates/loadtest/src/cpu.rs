//! CPU time from `/proc`: of the server's processes, of the services it
//! uses (NATS, PostgreSQL and the backends it forks), of the load
//! generator and of the whole machine.

/// CPU seconds used by the server, each service it uses, this process and
/// the whole machine.
#[derive(Clone, Debug, Default)]
pub struct Cpu {
    pub server: Option<f64>,
    /// Each service's process id and CPU time, in the order of
    /// `--service-pid`.
    pub services: Vec<(u32, Option<f64>)>,
    pub load: Option<f64>,
    pub machine_busy: Option<f64>,
}

impl Cpu {
    /// The CPU time so far; the server's is the sum over `server_pids`
    /// (none when there are none, or one is gone), each service's that of
    /// its process and of its children, reaped or alive
    /// ([`tree_cpu_seconds`]).
    pub fn now(server_pids: &[u32], service_pids: &[u32]) -> Cpu {
        let server = (!server_pids.is_empty())
            .then(|| server_pids.iter().map(|&pid| cpu_seconds(pid)).sum())
            .flatten();
        Cpu {
            server,
            services: service_pids
                .iter()
                .map(|&pid| (pid, tree_cpu_seconds(pid)))
                .collect(),
            load: cpu_seconds(std::process::id()),
            machine_busy: machine_cpu_seconds().map(|(busy, _)| busy),
        }
    }

    pub fn since(&self, before: &Cpu) -> Cpu {
        let delta = |now: Option<f64>, then: Option<f64>| Some(now? - then?);
        Cpu {
            server: delta(self.server, before.server),
            services: self
                .services
                .iter()
                .zip(&before.services)
                .map(|(&(pid, now), &(_, then))| (pid, delta(now, then)))
                .collect(),
            load: delta(self.load, before.load),
            machine_busy: delta(self.machine_busy, before.machine_busy),
        }
    }

    /// The services' CPU time together (none when there are none, or one
    /// is gone).
    pub fn services_total(&self) -> Option<f64> {
        (!self.services.is_empty())
            .then(|| self.services.iter().map(|&(_, cpu)| cpu).sum())
            .flatten()
    }
}

/// Clock ticks per second of `/proc`'s CPU times (`USER_HZ`, fixed at 100 on
/// Linux for user space).
const TICKS_PER_SECOND: f64 = 100.0;

/// The CPU time process `pid` has used so far (user + system), in seconds.
pub fn cpu_seconds(pid: u32) -> Option<f64> {
    let fields = stat_fields(pid)?;
    Some((field(&fields, 14)? + field(&fields, 15)?) / TICKS_PER_SECOND)
}

/// The CPU time process `pid` and its children have used so far: its
/// own, its reaped children's (`cutime`, `cstime`) and its live
/// children's, in seconds. PostgreSQL's work is done by the backends its
/// postmaster forks, one a connection.
pub fn tree_cpu_seconds(pid: u32) -> Option<f64> {
    let fields = stat_fields(pid)?;
    let own: f64 = [14, 15, 16, 17]
        .iter()
        .map(|&n| field(&fields, n))
        .sum::<Option<f64>>()?;
    let children: f64 = std::fs::read_dir("/proc")
        .ok()?
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|child| {
            let fields = stat_fields(child)?;
            (field(&fields, 4)? == f64::from(pid))
                .then(|| Some(field(&fields, 14)? + field(&fields, 15)?))
                .flatten()
        })
        .sum();
    Some((own + children) / TICKS_PER_SECOND)
}

/// The fields of `/proc/PID/stat` after the command name, which may hold
/// spaces: the state (the line's third field) first.
fn stat_fields(pid: u32) -> Option<Vec<String>> {
    fields_of(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// The fields of a `/proc/PID/stat` line after the command name.
fn fields_of(stat: &str) -> Option<Vec<String>> {
    Some(
        stat.rsplit_once(')')?
            .1
            .split_whitespace()
            .map(str::to_owned)
            .collect(),
    )
}

/// Field `n` of the whole `/proc/PID/stat` line (`proc(5)` numbers them
/// from 1: the parent's id is 4, utime 14, stime 15, cutime 16, cstime
/// 17), from [`stat_fields`].
fn field(fields: &[String], n: usize) -> Option<f64> {
    fields.get(n.checked_sub(3)?)?.parse().ok()
}

/// Busy and total CPU time of the whole machine so far, in seconds summed
/// over all cores, from `/proc/stat`.
pub fn machine_cpu_seconds() -> Option<(f64, f64)> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let line = stat.lines().next()?.strip_prefix("cpu ")?;
    let ticks: Vec<f64> = line
        .split_whitespace()
        .filter_map(|t| t.parse().ok())
        .collect();
    // user nice system idle iowait irq softirq steal (guest time is
    // already counted in user).
    let total: f64 = ticks.iter().take(8).sum();
    let idle = ticks.get(3)? + ticks.get(4).unwrap_or(&0.0);
    Some(((total - idle) / TICKS_PER_SECOND, total / TICKS_PER_SECOND))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_lines_fields_are_numbered_as_proc_numbers_them() {
        // A backend's command name holds spaces and a parenthesis.
        let line = "4242 (postgres: 15/main: postgres test (idle)) S 2242 4242 4242 0 -1 \
                    4194560 1000 0 0 0 731 52 9 4 20 0 1 0 123456 0 0";
        let fields = fields_of(line).unwrap();
        assert_eq!(field(&fields, 3), None, "the state is not a number");
        assert_eq!(field(&fields, 4), Some(2242.0));
        assert_eq!(
            [14, 15, 16, 17].map(|n| field(&fields, n)),
            [Some(731.0), Some(52.0), Some(9.0), Some(4.0)]
        );
        assert_eq!(field(&fields, 2), None);
    }
}
