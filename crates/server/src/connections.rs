//! What one client address, and everyone together, may hold open: the
//! caps on connections and websockets, the deadlines of a connection that
//! says nothing, and the budgets of `hello`s and control frames.
//!
//! An address is counted by [`address_key`]: an IPv4 address as it is, an
//! IPv6 address by its /64 (the block one subscriber usually holds).

use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr};
use std::num::NonZeroU32;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

/// The limits of what clients may hold open and how fast they may say
/// `hello`. The defaults are far above what people use and far below what
/// takes the server off the air.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// HTTP connections open at once, websockets not included.
    pub max_connections: usize,
    /// HTTP connections one address may hold open (not applied behind a
    /// trusted proxy, whose address every connection has).
    pub connections_per_address: usize,
    /// Websockets open at once.
    pub max_websockets: usize,
    /// Websockets one address may hold open.
    pub websockets_per_address: usize,
    /// How long a connection may take to send a request's headers, and how
    /// long it may stay idle between two requests.
    pub header_timeout: Duration,
    /// How long a websocket may stay open without joining a table.
    pub hello_timeout: Duration,
    /// The `hello`s one address may send at once.
    pub hello_burst: NonZeroU32,
    /// The `hello`s one address may send per minute once the burst is
    /// spent.
    pub hellos_per_minute: NonZeroU32,
    /// The control frames (ping, pong) a websocket may send at once.
    pub control_burst: NonZeroU32,
    /// The control frames a websocket may send per second once the burst
    /// is spent.
    pub control_per_second: NonZeroU32,
}

impl Default for Limits {
    /// 16,384 connections and 16,384 websockets, 256 connections and 128
    /// websockets per address; 10 s for headers, for an idle connection
    /// and for a websocket's `hello`; 60 `hello`s at once per address,
    /// then 120 a minute; 10 control frames at once per websocket, then 2
    /// a second.
    fn default() -> Limits {
        Limits {
            max_connections: 16_384,
            connections_per_address: 256,
            max_websockets: 16_384,
            websockets_per_address: 128,
            header_timeout: Duration::from_secs(10),
            hello_timeout: Duration::from_secs(10),
            hello_burst: NonZeroU32::new(60).unwrap_or(NonZeroU32::MIN),
            hellos_per_minute: NonZeroU32::new(120).unwrap_or(NonZeroU32::MIN),
            control_burst: NonZeroU32::new(10).unwrap_or(NonZeroU32::MIN),
            control_per_second: NonZeroU32::new(2).unwrap_or(NonZeroU32::MIN),
        }
    }
}

/// The key an address is counted under: an IPv4 address (also one mapped
/// into IPv6) as it is, an IPv6 address by its /64.
pub fn address_key(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V4(_) => address,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let prefix = u128::from(v6) & !((1u128 << 64) - 1);
                IpAddr::V6(Ipv6Addr::from(prefix))
            }
        },
    }
}

/// Why a [`Gate`] refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Everyone together holds the most allowed.
    Full,
    /// This address holds the most allowed.
    AddressFull,
}

impl Refusal {
    /// The metric label.
    pub fn label(self) -> &'static str {
        match self {
            Refusal::Full => "total",
            Refusal::AddressFull => "address",
        }
    }
}

/// Counts what is open, overall and per address, up to caps. Cheap to
/// clone; a [`Pass`] is given back when it is dropped.
#[derive(Clone)]
pub struct Gate {
    inner: Arc<GateInner>,
}

struct GateInner {
    max: usize,
    per_address: usize,
    open: Mutex<Open>,
}

#[derive(Default)]
struct Open {
    total: usize,
    by_address: HashMap<IpAddr, usize>,
}

impl Gate {
    /// A gate for `max` at once, `per_address` of them from one address.
    pub fn new(max: usize, per_address: usize) -> Gate {
        Gate {
            inner: Arc::new(GateInner {
                max,
                per_address,
                open: Mutex::new(Open::default()),
            }),
        }
    }

    /// Lets one more in from `address` (counted by [`address_key`]; `None`
    /// counts it only in the total), or says why not.
    pub fn enter(&self, address: Option<IpAddr>) -> Result<Pass, Refusal> {
        let key = address.map(address_key);
        let mut open = self.inner.open.lock().unwrap_or_else(|p| p.into_inner());
        if open.total >= self.inner.max {
            return Err(Refusal::Full);
        }
        if let Some(key) = key {
            let held = open.by_address.entry(key).or_insert(0);
            if *held >= self.inner.per_address {
                return Err(Refusal::AddressFull);
            }
            *held += 1;
        }
        open.total += 1;
        Ok(Pass {
            gate: self.clone(),
            key,
        })
    }

    /// How many are open.
    pub fn open(&self) -> usize {
        self.inner
            .open
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .total
    }
}

/// One place taken at a [`Gate`], given back on drop.
pub struct Pass {
    gate: Gate,
    key: Option<IpAddr>,
}

impl Drop for Pass {
    fn drop(&mut self) {
        let mut open = self
            .gate
            .inner
            .open
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        open.total = open.total.saturating_sub(1);
        if let Some(key) = self.key {
            if let Some(held) = open.by_address.get_mut(&key) {
                *held = held.saturating_sub(1);
                if *held == 0 {
                    open.by_address.remove(&key);
                }
            }
        }
    }
}

/// Addresses remembered before the idle ones are forgotten.
const FORGET_ABOVE: usize = 10_000;

/// A budget of each address (a keyed GCRA limiter, by [`address_key`]):
/// the `hello`s, the post-game analyses.
#[derive(Clone)]
pub struct AddressBudget {
    limiter: Arc<DefaultKeyedRateLimiter<IpAddr>>,
}

impl AddressBudget {
    /// The `hello` budget of `limits`.
    pub fn hellos(limits: &Limits) -> AddressBudget {
        AddressBudget::new(
            Quota::per_minute(limits.hellos_per_minute).allow_burst(limits.hello_burst),
        )
    }

    /// A budget of `quota` per address.
    pub fn new(quota: Quota) -> AddressBudget {
        AddressBudget {
            limiter: Arc::new(RateLimiter::keyed(quota)),
        }
    }

    /// Takes one from `address`'s budget, or says how long to wait.
    pub fn check(&self, address: IpAddr) -> Result<(), Duration> {
        if self.limiter.len() > FORGET_ABOVE {
            self.limiter.retain_recent();
        }
        self.limiter
            .check_key(&address_key(address))
            .map_err(|not_until| not_until.wait_time_from(DefaultClock::default().now()))
    }
}

/// Raises the process's soft limit on open files to its hard limit, so
/// that the caps above, not the inherited soft limit (1,024 under
/// systemd's default), bound what the server holds. Returns the soft
/// limit before and after.
#[cfg(unix)]
pub fn raise_open_files_limit() -> std::io::Result<(u64, u64)> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `limit` is a valid, writable rlimit for the call.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    let before = limit.rlim_cur;
    if limit.rlim_cur < limit.rlim_max {
        let raised = libc::rlimit {
            rlim_cur: limit.rlim_max,
            rlim_max: limit.rlim_max,
        };
        // SAFETY: `raised` is a valid rlimit; the soft limit asked for is
        // the hard limit, which an unprivileged process may set.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        limit = raised;
    }
    #[allow(clippy::useless_conversion)]
    Ok((u64::from(before), u64::from(limit.rlim_cur)))
}

/// Elsewhere the limit is left as it is.
#[cfg(not(unix))]
pub fn raise_open_files_limit() -> std::io::Result<(u64, u64)> {
    Ok((0, 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn an_ipv6_address_counts_by_its_64_and_an_ipv4_one_as_it_is() {
        assert_eq!(
            address_key(ip("2001:db8:1:2:aaaa:bbbb:cccc:dddd")),
            ip("2001:db8:1:2::")
        );
        assert_eq!(
            address_key(ip("2001:db8:1:2::1")),
            address_key(ip("2001:db8:1:2:ffff::9"))
        );
        assert_ne!(
            address_key(ip("2001:db8:1:2::1")),
            address_key(ip("2001:db8:1:3::1"))
        );
        assert_eq!(address_key(ip("192.0.2.7")), ip("192.0.2.7"));
        assert_eq!(address_key(ip("::ffff:192.0.2.7")), ip("192.0.2.7"));
    }

    #[test]
    fn a_gate_holds_its_caps_and_gives_places_back() {
        let gate = Gate::new(3, 2);
        let a = ip("2001:db8::1");
        let a_too = ip("2001:db8::2");
        let b = ip("192.0.2.1");
        let first = gate.enter(Some(a)).unwrap();
        let _second = gate.enter(Some(a_too)).unwrap();
        assert_eq!(gate.enter(Some(a)).err(), Some(Refusal::AddressFull));
        let _third = gate.enter(Some(b)).unwrap();
        assert_eq!(gate.enter(None).err(), Some(Refusal::Full));
        drop(first);
        assert_eq!(gate.open(), 2);
        let _again = gate.enter(Some(a)).unwrap();
        assert_eq!(gate.open(), 3);
    }

    #[test]
    fn hellos_are_counted_by_the_64() {
        let limits = Limits {
            hello_burst: NonZeroU32::new(2).unwrap(),
            hellos_per_minute: NonZeroU32::new(1).unwrap(),
            ..Limits::default()
        };
        let hellos = AddressBudget::hellos(&limits);
        assert!(hellos.check(ip("2001:db8::1")).is_ok());
        assert!(hellos.check(ip("2001:db8::2")).is_ok());
        assert!(hellos.check(ip("2001:db8::3")).is_err());
        assert!(hellos.check(ip("2001:db9::1")).is_ok());
    }

    #[cfg(unix)]
    #[test]
    fn the_soft_open_files_limit_is_raised_to_the_hard_one() {
        let (_, after) = raise_open_files_limit().unwrap();
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: a valid, writable rlimit.
        assert_eq!(
            unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) },
            0
        );
        assert_eq!(limit.rlim_cur, limit.rlim_max);
        #[allow(clippy::useless_conversion)]
        let soft = u64::from(limit.rlim_cur);
        assert_eq!(after, soft);
    }
}
