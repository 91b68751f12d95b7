//! How many tables one client address may create: a small burst, then a
//! steady rate (a keyed GCRA limiter), answered with 429 and
//! `Retry-After` beyond it.

use std::net::{IpAddr, SocketAddr};
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use axum::http::HeaderMap;
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

/// The table-creation budget of one client address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableLimit {
    /// Tables an address may create at once.
    pub burst: NonZeroU32,
    /// Tables an address may create per minute once the burst is spent.
    pub per_minute: NonZeroU32,
}

impl Default for TableLimit {
    /// 20 at once, then 10 a minute: more than a person makes.
    fn default() -> TableLimit {
        TableLimit {
            burst: NonZeroU32::new(20).unwrap_or(NonZeroU32::MIN),
            per_minute: NonZeroU32::new(10).unwrap_or(NonZeroU32::MIN),
        }
    }
}

/// The budget of new anonymous players one client address may be given
/// (each browser's first visit makes one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NewPlayerLimit {
    /// New players an address may be given at once.
    pub burst: NonZeroU32,
    /// New players an address may be given per minute once the burst is
    /// spent.
    pub per_minute: NonZeroU32,
}

impl Default for NewPlayerLimit {
    /// 30 at once, then one a minute.
    fn default() -> NewPlayerLimit {
        NewPlayerLimit {
            burst: NonZeroU32::new(30).unwrap_or(NonZeroU32::MIN),
            per_minute: NonZeroU32::MIN,
        }
    }
}

/// The budget of post-game analyses one client address may have computed
/// (one served from storage, or computed for someone else, costs nothing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AnalysisLimit {
    /// Analyses an address may have computed at once.
    pub burst: NonZeroU32,
    /// Analyses an address may have computed per hour once the burst is
    /// spent.
    pub per_hour: NonZeroU32,
    /// Analysis-board requests an address may have in flight at once.
    pub board_per_address: usize,
}

impl Default for AnalysisLimit {
    /// 10 at once, then 30 an hour: a player reviews the games they play;
    /// 4 analysis-board requests in flight: a person stepping quickly
    /// through a line waits a few.
    fn default() -> AnalysisLimit {
        AnalysisLimit {
            burst: NonZeroU32::new(10).unwrap_or(NonZeroU32::MIN),
            per_hour: NonZeroU32::new(30).unwrap_or(NonZeroU32::MIN),
            board_per_address: 4,
        }
    }
}

impl AnalysisLimit {
    /// As a quota per address.
    pub fn quota(self) -> Quota {
        Quota::per_hour(self.per_hour).allow_burst(self.burst)
    }
}

/// Addresses remembered before the idle ones are forgotten.
const FORGET_ABOVE: usize = 10_000;

/// The limiter, shared by the handlers.
#[derive(Clone)]
pub struct CreationLimit {
    limiter: Arc<DefaultKeyedRateLimiter<IpAddr>>,
}

impl CreationLimit {
    /// A limiter with this budget per address.
    pub fn new(limit: TableLimit) -> CreationLimit {
        let quota = Quota::per_minute(limit.per_minute).allow_burst(limit.burst);
        CreationLimit {
            limiter: Arc::new(RateLimiter::keyed(quota)),
        }
    }

    /// Takes one table from `address`'s budget, or says how long to wait.
    pub fn check(&self, address: IpAddr) -> Result<(), Duration> {
        if self.limiter.len() > FORGET_ABOVE {
            // Addresses whose budget is full again carry no state.
            self.limiter.retain_recent();
        }
        self.limiter
            .check_key(&address)
            .map_err(|not_until| not_until.wait_time_from(DefaultClock::default().now()))
    }
}

/// The client's address: the peer's, or, behind a trusted proxy, the last
/// address of `X-Forwarded-For` (the one that proxy appended; earlier ones
/// are the client's word and are ignored).
pub fn client_address(peer: SocketAddr, headers: &HeaderMap, trust_proxy: bool) -> IpAddr {
    if trust_proxy {
        let forwarded = headers
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .next_back()
            .and_then(|a| a.trim().parse::<IpAddr>().ok());
        if let Some(address) = forwarded {
            return address;
        }
    }
    peer.ip()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_gets_its_burst_and_then_a_wait() {
        let limit = CreationLimit::new(TableLimit {
            burst: NonZeroU32::new(3).unwrap(),
            per_minute: NonZeroU32::new(1).unwrap(),
        });
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let b: IpAddr = "192.0.2.2".parse().unwrap();
        for _ in 0..3 {
            assert!(limit.check(a).is_ok());
        }
        let wait = limit.check(a).unwrap_err();
        assert!(wait > Duration::ZERO && wait <= Duration::from_secs(60));
        assert!(limit.check(b).is_ok(), "each address has its own budget");
    }

    #[test]
    fn a_forwarded_address_counts_only_behind_a_trusted_proxy() {
        let peer: SocketAddr = "10.0.0.1:5000".parse().unwrap();
        let mut headers = HeaderMap::new();
        headers.insert(
            "x-forwarded-for",
            "203.0.113.9, 198.51.100.7".parse().unwrap(),
        );
        assert_eq!(
            client_address(peer, &headers, false),
            "10.0.0.1".parse::<IpAddr>().unwrap()
        );
        assert_eq!(
            client_address(peer, &headers, true),
            "198.51.100.7".parse::<IpAddr>().unwrap()
        );
        assert_eq!(
            client_address(peer, &HeaderMap::new(), true),
            "10.0.0.1".parse::<IpAddr>().unwrap()
        );
    }
}
