//! The budgets of identities: new anonymous players and sign-ups per
//! address, login attempts per address and per name (as lichess's
//! password hasher limits them), and the hashing pool.

use std::sync::Arc;
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use super::passwords::Passwords;
use crate::client_limit::NewPlayerLimit;
use crate::connections::AddressBudget;

/// Names a login budget remembers before it forgets the idle ones.
const FORGET_ABOVE: usize = 10_000;

/// Login attempts per account name, whichever address they come from.
#[derive(Clone)]
pub struct NameBudget {
    limiter: Arc<DefaultKeyedRateLimiter<String>>,
}

impl NameBudget {
    /// A budget of `quota` per name.
    pub fn new(quota: Quota) -> NameBudget {
        NameBudget {
            limiter: Arc::new(RateLimiter::keyed(quota)),
        }
    }

    /// Takes one from `name`'s budget, or says how long to wait.
    pub fn check(&self, name: &str) -> Result<(), Duration> {
        if self.limiter.len() > FORGET_ABOVE {
            self.limiter.retain_recent();
        }
        let key: String = name.chars().take(64).collect();
        self.limiter
            .check_key(&key)
            .map_err(|not_until| not_until.wait_time_from(DefaultClock::default().now()))
    }
}

/// The burst of sign-ups an operator may set (new players have their
/// own, [`NewPlayerLimit`]).
#[derive(Clone, Copy, Debug)]
pub struct AccountLimits {
    /// Sign-ups one address may make at once (then one every 10 minutes).
    pub signup_burst: std::num::NonZeroU32,
}

impl Default for AccountLimits {
    fn default() -> AccountLimits {
        AccountLimits {
            signup_burst: nonzero(5),
        }
    }
}

/// What identities share: the hashing pool and the budgets.
#[derive(Clone)]
pub struct Accounts {
    /// The Argon2id pool.
    pub passwords: Passwords,
    /// New anonymous players per address: 30 at once, then one a minute
    /// (by default: `NewPlayerLimit`).
    pub newcomers: AddressBudget,
    /// Sign-ups per address: 5 at once (by default), then one every 10
    /// minutes.
    pub signups: AddressBudget,
    /// Password checks per address (logins, password changes, closing):
    /// 10 at once, then one every 20 seconds.
    pub logins: AddressBudget,
    /// Logins per account name: 10 at once, then one a minute.
    pub login_names: NameBudget,
    /// Whether the cookie is `Secure` (the public URL is https).
    pub secure_cookies: bool,
}

impl Accounts {
    /// The documented budgets, `new_players` for new anonymous players and
    /// `limits`' bursts, cookies `Secure` when `public_url` is https.
    pub fn new(public_url: &str, new_players: NewPlayerLimit, limits: AccountLimits) -> Accounts {
        let quota = |burst: u32, every: Duration| {
            Quota::with_period(every)
                .and_then(|q| std::num::NonZeroU32::new(burst).map(|burst| q.allow_burst(burst)))
                .unwrap_or_else(|| Quota::per_second(nonzero(1)))
        };
        Accounts {
            passwords: Passwords::default(),
            newcomers: AddressBudget::new(
                Quota::per_minute(new_players.per_minute).allow_burst(new_players.burst),
            ),
            signups: AddressBudget::new(quota(limits.signup_burst.get(), Duration::from_secs(600))),
            logins: AddressBudget::new(quota(10, Duration::from_secs(20))),
            login_names: NameBudget::new(quota(10, Duration::from_secs(60))),
            secure_cookies: public_url.starts_with("https://"),
        }
    }
}

fn nonzero(n: u32) -> std::num::NonZeroU32 {
    std::num::NonZeroU32::new(n).unwrap_or(std::num::NonZeroU32::MIN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_refused_after_its_burst_of_logins() {
        let names = NameBudget::new(Quota::per_hour(nonzero(1)).allow_burst(nonzero(3)));
        for _ in 0..3 {
            assert!(names.check("goatherd").is_ok());
        }
        assert!(names.check("goatherd").is_err());
        assert!(names.check("tigerlily").is_ok());
    }
}
