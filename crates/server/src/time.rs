//! Wall time: the one source of timestamps for clocks, absences and offer
//! limits, injectable so that tests control it.
//!
//! A [`Timestamp`] (the table core's) is what the event log stores with
//! every accepted event, so that clocks can be recomputed after a restart
//! or by another server. [`SystemClock`] reads
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

use baghchal_table::time::Timestamp;

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
            wall: Timestamp::from_millis(ms),
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
