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

/// The computer-against-computer tables (bots tables) people may create:
/// each plays while watched, on the analyses' threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BotsLimit {
    /// Bots tables an address may create at once.
    pub burst: NonZeroU32,
    /// Bots tables an address may create per hour once the burst is spent.
    pub per_hour: NonZeroU32,
    /// Bots tables open at once on this server: a creation beyond it is
    /// refused.
    pub max_open: usize,
}

impl Default for BotsLimit {
    /// 3 at once, then 6 an hour, from one address; 64 open at once.
    fn default() -> BotsLimit {
        BotsLimit {
            burst: NonZeroU32::new(3).unwrap_or(NonZeroU32::MIN),
            per_hour: NonZeroU32::new(6).unwrap_or(NonZeroU32::MIN),
            max_open: 64,
        }
    }
}

impl BotsLimit {
    /// The creation budget as a quota per address.
    pub fn quota(self) -> Quota {
        Quota::per_hour(self.per_hour).allow_burst(self.burst)
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

/// The budget of API reads (`GET /api/...`) one client address may make:
/// each reads the database, so a client looping on them would take the
/// database's time from everyone else's play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadLimit {
    /// Reads an address may make at once.
    pub burst: NonZeroU32,
    /// Reads an address may make per second once the burst is spent.
    pub per_second: NonZeroU32,
}

impl Default for ReadLimit {
    /// 240 at once, then 20 a second: a page asks for two or three things
    /// as it opens, and a household's browsers stay far inside it.
    fn default() -> ReadLimit {
        ReadLimit {
            burst: NonZeroU32::new(240).unwrap_or(NonZeroU32::MIN),
            per_second: NonZeroU32::new(20).unwrap_or(NonZeroU32::MIN),
        }
    }
}

impl ReadLimit {
    /// As a quota per address.
    pub fn quota(self) -> Quota {
        Quota::per_second(self.per_second).allow_burst(self.burst)
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

    /// Takes one table from `address`'s budget (an IPv6 address's /64
    /// shares one), or says how long to wait.
    pub fn check(&self, address: IpAddr) -> Result<(), Duration> {
        if self.limiter.len() > FORGET_ABOVE {
            // Addresses whose budget is full again carry no state.
            self.limiter.retain_recent();
        }
        self.limiter
            .check_key(&crate::connections::address_key(address))
            .map_err(|not_until| not_until.wait_time_from(DefaultClock::default().now()))
    }
}

/// The proxies whose `X-Forwarded-For` is believed: none (the default),
/// every peer (`--trust-proxy`: only where the proxy is the only way in),
/// or the peers in some address blocks (`--trusted-proxy CIDR`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrustedProxies {
    any: bool,
    blocks: Vec<AddressBlock>,
}

impl TrustedProxies {
    /// No proxy: the client's address is the peer's.
    pub fn none() -> TrustedProxies {
        TrustedProxies::default()
    }

    /// Every peer is a proxy.
    pub fn any() -> TrustedProxies {
        TrustedProxies {
            any: true,
            blocks: Vec::new(),
        }
    }

    /// The peers in `blocks`.
    pub fn within(blocks: Vec<AddressBlock>) -> TrustedProxies {
        TrustedProxies { any: false, blocks }
    }

    /// Whether `peer` is a proxy whose `X-Forwarded-For` is believed.
    pub fn trusts(&self, peer: IpAddr) -> bool {
        let peer = peer.to_canonical();
        self.any || self.blocks.iter().any(|block| block.contains(peer))
    }
}

/// A block of addresses, `10.0.0.0/8` or `fd00::/8` (an address alone is
/// a block of one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AddressBlock {
    network: IpAddr,
    prefix: u8,
}

/// Text that is not an address block.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{0:?} is not an address block (try 10.0.0.0/8, fd00::/8 or 192.0.2.7)")]
pub struct BadAddressBlock(String);

impl std::str::FromStr for AddressBlock {
    type Err = BadAddressBlock;

    fn from_str(text: &str) -> Result<AddressBlock, BadAddressBlock> {
        let bad = || BadAddressBlock(text.to_owned());
        let (address, prefix) = match text.trim().split_once('/') {
            Some((address, prefix)) => (address, Some(prefix)),
            None => (text.trim(), None),
        };
        let network: IpAddr = address.parse().map_err(|_| bad())?;
        let width = if network.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            Some(prefix) => prefix.parse::<u8>().map_err(|_| bad())?,
            None => width,
        };
        if prefix > width {
            return Err(bad());
        }
        Ok(AddressBlock {
            network: network.to_canonical(),
            prefix,
        })
    }
}

impl AddressBlock {
    /// Whether `address` is in the block.
    pub fn contains(self, address: IpAddr) -> bool {
        let leading = |bits: u128, width: u32| -> u128 {
            let prefix = u32::from(self.prefix);
            if prefix == 0 {
                0
            } else {
                bits >> (width - prefix)
            }
        };
        match (self.network, address.to_canonical()) {
            (IpAddr::V4(network), IpAddr::V4(address)) => {
                leading(u32::from(network).into(), 32) == leading(u32::from(address).into(), 32)
            }
            (IpAddr::V6(network), IpAddr::V6(address)) => {
                leading(u128::from(network), 128) == leading(u128::from(address), 128)
            }
            _ => false,
        }
    }
}

/// The client's address: the peer's, or, when the peer is a trusted
/// proxy, the last address of `X-Forwarded-For` (the one that proxy
/// appended; earlier ones are the client's word and are ignored).
pub fn client_address(peer: SocketAddr, headers: &HeaderMap, proxies: &TrustedProxies) -> IpAddr {
    if proxies.trusts(peer.ip()) {
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
    fn the_addresses_of_one_ipv6_64_share_one_budget_of_tables() {
        let limit = CreationLimit::new(TableLimit {
            burst: NonZeroU32::new(3).unwrap(),
            per_minute: NonZeroU32::new(1).unwrap(),
        });
        for n in 1..=3 {
            let address: IpAddr = format!("2001:db8:1:2::{n}").parse().unwrap();
            assert!(limit.check(address).is_ok());
        }
        let same_64: IpAddr = "2001:db8:1:2:ffff::9".parse().unwrap();
        assert!(limit.check(same_64).is_err(), "a /64 is one client");
        let next_64: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert!(limit.check(next_64).is_ok());
    }

    #[test]
    fn a_forwarded_address_counts_only_behind_a_trusted_proxy() {
        let peer: SocketAddr = "10.0.0.1:5000".parse().unwrap();
        let mut headers = HeaderMap::new();
        headers.insert(
            "x-forwarded-for",
            "203.0.113.9, 198.51.100.7".parse().unwrap(),
        );
        let none = TrustedProxies::none();
        let any = TrustedProxies::any();
        assert_eq!(
            client_address(peer, &headers, &none),
            "10.0.0.1".parse::<IpAddr>().unwrap()
        );
        assert_eq!(
            client_address(peer, &headers, &any),
            "198.51.100.7".parse::<IpAddr>().unwrap()
        );
        assert_eq!(
            client_address(peer, &HeaderMap::new(), &any),
            "10.0.0.1".parse::<IpAddr>().unwrap()
        );
    }

    #[test]
    fn a_forwarded_address_counts_only_from_a_peer_in_a_trusted_block() {
        let proxies = TrustedProxies::within(vec![
            "10.0.0.0/24".parse().unwrap(),
            "fd00::7".parse().unwrap(),
        ]);
        let mut headers = HeaderMap::new();
        headers.insert("x-forwarded-for", "198.51.100.7".parse().unwrap());
        let from = |peer: &str| client_address(peer.parse().unwrap(), &headers, &proxies);
        let client: IpAddr = "198.51.100.7".parse().unwrap();
        assert_eq!(from("10.0.0.200:5000"), client);
        assert_eq!(from("[::ffff:10.0.0.3]:5000"), client);
        assert_eq!(from("[fd00::7]:5000"), client);
        // Anyone else who reaches the node is taken at its own address.
        assert_eq!(from("10.0.1.1:5000"), "10.0.1.1".parse::<IpAddr>().unwrap());
        assert_eq!(from("[fd00::8]:5000"), "fd00::8".parse::<IpAddr>().unwrap());
        assert_eq!(
            from("203.0.113.9:5000"),
            "203.0.113.9".parse::<IpAddr>().unwrap()
        );
    }

    #[test]
    fn address_blocks_are_read_with_their_prefix_or_as_one_address() {
        let block = |text: &str| text.parse::<AddressBlock>();
        let has = |b: &str, a: &str| block(b).unwrap().contains(a.parse().unwrap());
        assert!(has("0.0.0.0/0", "203.0.113.9"));
        assert!(!has("0.0.0.0/0", "::1"));
        assert!(has("192.0.2.7", "192.0.2.7"));
        assert!(!has("192.0.2.7", "192.0.2.8"));
        assert!(has("172.16.0.0/12", "172.31.255.255"));
        assert!(!has("172.16.0.0/12", "172.32.0.0"));
        assert!(has("2001:db8::/32", "2001:db8:ffff::1"));
        assert!(has("::/0", "2001:db8::1"));
        for bad in [
            "",
            "10.0.0.0/33",
            "::/129",
            "10.0.0/8",
            "10.0.0.0/x",
            "proxy",
        ] {
            assert!(block(bad).is_err(), "{bad:?}");
        }
    }
}
