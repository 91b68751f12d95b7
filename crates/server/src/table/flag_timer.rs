//! The timer of a table's next flag: a clock's, a first move's, or the
//! moment its game counts as abandoned.

use baghchal_table::time::Timestamp;

use crate::gate::Gated;
use crate::time::{Wait, WallClock};

/// Completes when `timer` does; never when there is none.
pub(super) async fn until_wall(timer: Option<&mut Gated<Wait>>) {
    match timer {
        Some(timer) => timer.await,
        None => std::future::pending().await,
    }
}

/// The timer of the table's next flag, kept from one turn of its loop to
/// the next. Every game has a moment at which it counts as abandoned,
/// which each action moves on: a timer made afresh at each turn was a
/// timer registered and cancelled (and a box) for every command.
#[derive(Default)]
pub(super) struct FlagTimer {
    set: Option<(Timestamp, Gated<Wait>)>,
}

impl FlagTimer {
    /// The timer for `due`. One set for a moment no later than `due` is
    /// kept: it fires early, the table finds nothing due then, and it is
    /// set again for what is due by then.
    pub(super) fn at(
        &mut self,
        due: Option<Timestamp>,
        clock: &dyn WallClock,
    ) -> Option<&mut Gated<Wait>> {
        let Some(due) = due else {
            self.set = None;
            return None;
        };
        if !matches!(&self.set, Some((at, _)) if *at <= due) {
            self.set = Some((due, Gated::new(clock.wait_until(due))));
        }
        self.set.as_mut().map(|(_, timer)| timer)
    }

    /// The timer fired.
    pub(super) fn fired(&mut self) {
        self.set = None;
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::time::ManualClock;

    fn at(ms: i64) -> Timestamp {
        Timestamp::from_millis(ms)
    }

    fn set_for(timer: &FlagTimer) -> Option<Timestamp> {
        timer.set.as_ref().map(|(at, _)| *at)
    }

    #[test]
    fn a_timer_for_no_later_moment_is_kept_and_any_other_replaced() {
        let clock = ManualClock::new(at(0));
        let mut timer = FlagTimer::default();
        assert!(timer.at(Some(at(1_000)), &clock).is_some());
        assert_eq!(set_for(&timer), Some(at(1_000)));
        // Each action moves the moment on: the timer set stays.
        timer.at(Some(at(1_500)), &clock);
        timer.at(Some(at(1_000)), &clock);
        assert_eq!(set_for(&timer), Some(at(1_000)));
        // An earlier moment needs a new timer.
        timer.at(Some(at(400)), &clock);
        assert_eq!(set_for(&timer), Some(at(400)));
        // Nothing due: no timer.
        assert!(timer.at(None, &clock).is_none());
        assert_eq!(set_for(&timer), None);
        timer.at(Some(at(2_000)), &clock);
        timer.fired();
        assert_eq!(set_for(&timer), None);
    }

    #[tokio::test]
    async fn a_kept_timer_fires_at_its_own_moment() {
        let clock = ManualClock::new(at(0));
        let mut timer = FlagTimer::default();
        timer.at(Some(at(1_000)), &clock);
        let kept = timer.at(Some(at(5_000)), &clock);
        let waiting = async move { until_wall(kept).await };
        tokio::pin!(waiting);
        assert!(futures_util::poll!(waiting.as_mut()).is_pending());
        clock.advance(Duration::from_millis(999));
        assert!(futures_util::poll!(waiting.as_mut()).is_pending());
        clock.advance(Duration::from_millis(1));
        waiting.await;
    }
}
