//! A moment of wall time, as the event log stores it with every accepted
//! event (milliseconds since the Unix epoch, UTC): the core reads no clock
//! of its own, every time is an argument.

use std::time::{Duration, UNIX_EPOCH};

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
    /// use baghchal_table::time::Timestamp;
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
}
