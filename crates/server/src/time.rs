//! Wall time: the one source of timestamps for clocks, absences and offer
//! limits, injectable so that tests control it.
//!
//! A [`Timestamp`] is what the event log stores with every accepted event
//! (milliseconds since the Unix epoch, UTC), so that clocks can be
//! recomputed after a restart or by another server. [`SystemClock`] reads
//! the operating system's time once and then advances with tokio's
//! monotonic clock: its timers are tokio timers, and under
//! `tokio::time::pause` wall time pauses and advances with them.
//! [`ManualClock`] stands still until a test advances it.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tokio::sync::watch;
use tokio::time::Instant;

/// A moment, in milliseconds since the Unix epoch (UTC).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Timestamp(i64);

impl Timestamp {
    /// The moment `ms` milliseconds after the epoch.
    pub const fn from_millis(ms: i64) -> Timestamp {
        Timestamp(ms)
    }

    /// Milliseconds since the epoch.
    pub const fn as_millis(self) -> i64 {
        self.0
    }

    /// `d` later.
    pub fn after(self, d: Duration) -> Timestamp {
        Timestamp(
            self.0
                .saturating_add(i64::try_from(d.as_millis()).unwrap_or(i64::MAX)),
        )
    }

    /// The time from `earlier` to `self`; zero if `earlier` is later.
    pub fn since(self, earlier: Timestamp) -> Duration {
        Duration::from_millis(u64::try_from(self.0.saturating_sub(earlier.0)).unwrap_or(0))
    }

    /// RFC 3339 in UTC with milliseconds, e.g. `2026-12-01T21:30:04.250Z`.
    ///
    /// ```
    /// use baghchal_server::time::Timestamp;
    /// assert_eq!(Timestamp::from_millis(1_796_160_604_250).rfc3339(), "2026-12-01T21:30:04.250Z");
    /// ```
    pub fn rfc3339(self) -> String {
        let at = match u64::try_from(self.0) {
            Ok(ms) => UNIX_EPOCH + Duration::from_millis(ms),
            Err(_) => UNIX_EPOCH,
        };
        humantime::format_rfc3339_millis(at).to_string()
    }
}

/// A future that completes at a moment of wall time.
pub type Wait = Pin<Box<dyn Future<Output = ()> + Send>>;

/// Where the server reads wall time.
pub trait WallClock: Send + Sync {
    /// Now.
    fn now(&self) -> Timestamp;

    /// Completes once `now() >= at`.
    fn wait_until(&self, at: Timestamp) -> Wait;
}

/// The operating system's time, read once at start and advanced with
/// tokio's clock from then on (so that it never jumps, and pauses with
/// tokio's paused time in tests).
#[derive(Clone, Copy, Debug)]
pub struct SystemClock {
    wall: Timestamp,
    instant: Instant,
}

impl SystemClock {
    /// The clock, reading the system time now.
    pub fn new() -> SystemClock {
        let ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
            .unwrap_or(0);
        SystemClock {
            wall: Timestamp(ms),
            instant: Instant::now(),
        }
    }
}

impl Default for SystemClock {
    fn default() -> SystemClock {
        SystemClock::new()
    }
}

impl WallClock for SystemClock {
    fn now(&self) -> Timestamp {
        self.wall.after(self.instant.elapsed())
    }

    fn wait_until(&self, at: Timestamp) -> Wait {
        let instant = self.instant + at.since(self.wall);
        Box::pin(tokio::time::sleep_until(instant))
    }
}

/// A clock that stands still until [`ManualClock::advance`]: for tests.
#[derive(Clone, Debug)]
pub struct ManualClock {
    now: Arc<watch::Sender<Timestamp>>,
}

impl ManualClock {
    /// A clock showing `start`.
    pub fn new(start: Timestamp) -> ManualClock {
        ManualClock {
            now: Arc::new(watch::Sender::new(start)),
        }
    }

    /// Moves the clock on by `d`, waking whoever waits for a moment now
    /// past.
    pub fn advance(&self, d: Duration) {
        self.now.send_modify(|now| *now = now.after(d));
    }
}

impl WallClock for ManualClock {
    fn now(&self) -> Timestamp {
        *self.now.borrow()
    }

    fn wait_until(&self, at: Timestamp) -> Wait {
        let mut rx = self.now.subscribe();
        Box::pin(async move {
            while *rx.borrow_and_update() < at {
                if rx.changed().await.is_err() {
                    std::future::pending::<()>().await;
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_add_and_subtract_without_going_negative() {
        let t = Timestamp::from_millis(1_000);
        assert_eq!(t.after(Duration::from_millis(250)).as_millis(), 1_250);
        assert_eq!(
            t.since(Timestamp::from_millis(400)),
            Duration::from_millis(600)
        );
        assert_eq!(Timestamp::from_millis(400).since(t), Duration::ZERO);
        assert_eq!(
            Timestamp::from_millis(0).rfc3339(),
            "1970-01-01T00:00:00.000Z"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn the_system_clock_advances_with_paused_tokio_time() {
        let clock = SystemClock::new();
        let start = clock.now();
        let due = start.after(Duration::from_secs(5));
        clock.wait_until(due).await;
        assert!(clock.now() >= due);
        assert!(clock.now() < start.after(Duration::from_secs(6)));
    }

    #[tokio::test]
    async fn a_manual_clock_wakes_its_waiters_when_advanced_past_their_moment() {
        let clock = ManualClock::new(Timestamp::from_millis(0));
        let waiting = tokio::spawn(clock.wait_until(Timestamp::from_millis(1_500)));
        clock.advance(Duration::from_secs(1));
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished());
        clock.advance(Duration::from_secs(1));
        waiting.await.unwrap();
        assert_eq!(clock.now(), Timestamp::from_millis(2_000));
    }
}
