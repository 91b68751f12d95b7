//! The tablebase build yields to play.
//!
//! Idle scheduling is not enough on a small machine: the build's memory
//! traffic and the machine's own scheduling of its cores still cost play
//! its tail latency at any priority (docs/performance.md). So the build
//! also stops working while there is play, for most of the time.
//!
//! The tables count the actions they receive in an [`Activity`]. Each build
//! thread calls [`Throttle::pause`] between two steps of its work (a step
//! is a bounded chunk of the solver's, about a millisecond at most). The
//! throttle looks at the count: when it has not moved for
//! [`Duty::quiet`], the server is idle and the build goes on at full speed.
//! When there has been play, the build works in slices: [`Duty::slice`]
//! of work, then [`Duty::rest`] in which every build thread sleeps, then
//! the next slice. So under constant play the build still gets
//! `slice / (slice + rest)` of its threads' wall time (a fifth with the
//! defaults), less the overrun of one step per slice, and finishes in at
//! most `(slice + rest) / slice` times its time on an idle server (five).

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The play on the server, as the tables report it: a count of the
/// actions they received. Cheap to clone; one relaxed increment per
/// action.
#[derive(Clone, Default, Debug)]
pub struct Activity(Arc<AtomicU64>);

impl Activity {
    /// A table received an action (a player's or the computer's).
    pub fn record(&self) {
        self.0.fetch_add(1, Relaxed);
    }

    /// Actions so far.
    pub fn count(&self) -> u64 {
        self.0.load(Relaxed)
    }
}

/// How the build shares the machine with play.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Duty {
    /// Work between two rests while there is play.
    pub slice: Duration,
    /// The build's sleep after each slice while there is play.
    pub rest: Duration,
    /// No action for this long and the server counts as idle: the build
    /// goes on without rests.
    pub quiet: Duration,
}

impl Default for Duty {
    /// 10 ms of work in every 50 while there is play; idle after 100 ms
    /// without an action.
    fn default() -> Duty {
        Duty {
            slice: Duration::from_millis(10),
            rest: Duration::from_millis(40),
            quiet: Duration::from_millis(100),
        }
    }
}

/// The throttle's time: the monotonic clock and a sleep (tests step a
/// fake one).
pub trait Clock: Send + Sync {
    /// Time since some fixed start.
    fn now(&self) -> Duration;
    /// Blocks the calling thread for about `d`.
    fn sleep(&self, d: Duration);
}

/// The operating system's monotonic clock.
struct SystemClock(Instant);

impl Clock for SystemClock {
    fn now(&self) -> Duration {
        self.0.elapsed()
    }

    fn sleep(&self, d: Duration) {
        std::thread::sleep(d);
    }
}

/// The longest sleep between two looks at the build's cancellation.
const CANCEL_EVERY: Duration = Duration::from_millis(10);

/// Blocks the build's threads while there is play, with a duty cycle
/// (see the module's documentation). Shared by every build thread.
pub struct Throttle {
    activity: Activity,
    duty: Duty,
    clock: Arc<dyn Clock>,
    state: Mutex<State>,
}

/// What the throttle has seen and decided; times are the clock's.
#[derive(Default)]
struct State {
    /// The activity count at the last look.
    seen: u64,
    /// When the count was last seen to move.
    last_play: Option<Duration>,
    /// The end of the slice the build is working in, if any.
    slice_end: Duration,
    /// The end of the rest the build is taking, if any.
    rest_end: Option<Duration>,
}

impl Throttle {
    /// A throttle on `activity` with the system's clock.
    pub fn new(activity: Activity, duty: Duty) -> Throttle {
        Throttle::with_clock(activity, duty, Arc::new(SystemClock(Instant::now())))
    }

    /// A throttle on `activity` with `clock`.
    pub fn with_clock(activity: Activity, duty: Duty, clock: Arc<dyn Clock>) -> Throttle {
        Throttle {
            activity,
            duty,
            clock,
            state: Mutex::new(State::default()),
        }
    }

    /// The activity it watches.
    pub fn activity(&self) -> &Activity {
        &self.activity
    }

    /// Called by a build thread between two steps: returns at once on an
    /// idle server or inside a slice, else sleeps to the end of the rest
    /// (looking at `cancelled` at least every 10 ms, and returning once it
    /// says so).
    pub fn pause(&self, cancelled: &dyn Fn() -> bool) {
        while !cancelled() {
            let now = self.clock.now();
            let Some(rest_end) = self.decide(now) else {
                return;
            };
            self.clock.sleep((rest_end - now).min(CANCEL_EVERY));
        }
    }

    /// Whether to go on at `now` (`None`), or else until when to rest.
    fn decide(&self, now: Duration) -> Option<Duration> {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let count = self.activity.count();
        if count != state.seen {
            state.seen = count;
            state.last_play = Some(now);
        }
        let busy = state
            .last_play
            .is_some_and(|at| now.saturating_sub(at) < self.duty.quiet);
        if !busy {
            state.rest_end = None;
            return None;
        }
        if now < state.slice_end {
            return None;
        }
        match state.rest_end {
            None => {
                let end = now + self.duty.rest;
                state.rest_end = Some(end);
                Some(end)
            }
            Some(end) if now < end => Some(end),
            Some(_) => {
                state.rest_end = None;
                state.slice_end = now + self.duty.slice;
                None
            }
        }
    }
}

/// Time that moves only when told to, or when slept; each sleep is
/// counted. With `play_while_asleep`, an action is recorded at each sleep,
/// as constant play would.
#[cfg(test)]
#[derive(Default)]
pub(crate) struct FakeClock {
    now: AtomicU64,
    slept: AtomicU64,
    play_while_asleep: Option<Activity>,
}

#[cfg(test)]
impl FakeClock {
    /// A clock with `activity` recorded at each sleep.
    pub fn playing(activity: Activity) -> FakeClock {
        FakeClock {
            play_while_asleep: Some(activity),
            ..FakeClock::default()
        }
    }

    pub fn advance(&self, d: Duration) {
        self.now.fetch_add(d.as_nanos() as u64, Relaxed);
    }

    /// Time slept so far.
    pub fn slept(&self) -> Duration {
        Duration::from_nanos(self.slept.load(Relaxed))
    }
}

#[cfg(test)]
impl Clock for FakeClock {
    fn now(&self) -> Duration {
        Duration::from_nanos(self.now.load(Relaxed))
    }

    fn sleep(&self, d: Duration) {
        if let Some(activity) = &self.play_while_asleep {
            activity.record();
        }
        self.slept.fetch_add(d.as_nanos() as u64, Relaxed);
        self.advance(d);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DUTY: Duty = Duty {
        slice: Duration::from_millis(10),
        rest: Duration::from_millis(40),
        quiet: Duration::from_millis(100),
    };
    const MS: Duration = Duration::from_millis(1);

    fn throttle(clock: FakeClock) -> (Throttle, Arc<FakeClock>) {
        let clock = Arc::new(clock);
        let activity = clock.play_while_asleep.clone().unwrap_or_default();
        (Throttle::with_clock(activity, DUTY, clock.clone()), clock)
    }

    fn never() -> bool {
        false
    }

    #[test]
    fn on_an_idle_server_the_build_never_waits() {
        let (throttle, clock) = throttle(FakeClock::default());
        for _ in 0..1000 {
            throttle.pause(&never);
            clock.advance(MS);
        }
        assert_eq!(clock.slept(), Duration::ZERO);
    }

    #[test]
    fn play_makes_the_build_rest_and_then_work_a_slice() {
        let (throttle, clock) = throttle(FakeClock::default());
        throttle.activity().record();
        throttle.pause(&never);
        assert_eq!(clock.slept(), DUTY.rest, "an action: the build rests first");

        // Within the slice that follows, more play does not stop it.
        for _ in 0..9 {
            clock.advance(MS);
            throttle.activity().record();
            throttle.pause(&never);
        }
        assert_eq!(clock.slept(), DUTY.rest);

        // The slice is over and there is still play: another rest.
        clock.advance(MS);
        throttle.activity().record();
        throttle.pause(&never);
        assert_eq!(clock.slept(), 2 * DUTY.rest);
    }

    #[test]
    fn once_play_stops_for_the_quiet_time_the_build_goes_on_without_rests() {
        let (throttle, clock) = throttle(FakeClock::default());
        throttle.activity().record();
        throttle.pause(&never);
        let rested = clock.slept();
        // Past the slice, but the last action is less than `quiet` ago.
        clock.advance(DUTY.slice);
        throttle.pause(&never);
        assert_eq!(clock.slept(), rested + DUTY.rest);

        // Now no action for `quiet` since the first: idle again.
        clock.advance(DUTY.quiet - clock.now());
        for _ in 0..100 {
            throttle.pause(&never);
            clock.advance(MS);
        }
        assert_eq!(clock.slept(), rested + DUTY.rest);
    }

    #[test]
    fn under_constant_play_the_build_still_gets_a_fifth_of_the_time() {
        let activity = Activity::default();
        let (throttle, clock) = throttle(FakeClock::playing(activity.clone()));
        // Steps of 1 ms with an action in each.
        let mut worked = Duration::ZERO;
        while worked < Duration::from_secs(10) {
            activity.record();
            throttle.pause(&never);
            clock.advance(MS);
            worked += MS;
        }
        let wall = clock.now();
        assert_eq!(wall, worked + clock.slept());
        // 10 ms of work in every 50.
        assert_eq!(clock.slept(), 4 * worked);
    }

    #[test]
    fn every_thread_rests_together_and_works_the_same_slice() {
        let (throttle, _clock) = throttle(FakeClock::default());
        throttle.activity().record();
        let at = |ms| Duration::from_millis(ms);
        // The first thread to look starts a rest of 40 ms; one that looks
        // in the middle of it sleeps to its end, not 40 ms more.
        assert_eq!(throttle.decide(at(0)), Some(at(40)));
        assert_eq!(throttle.decide(at(20)), Some(at(40)));
        // The first to wake starts the slice, and the others work in it.
        assert_eq!(throttle.decide(at(40)), None);
        assert_eq!(throttle.decide(at(41)), None);
        assert_eq!(throttle.decide(at(49)), None);
        assert_eq!(throttle.decide(at(50)), Some(at(90)));
    }

    #[test]
    fn a_rest_ends_as_soon_as_the_build_is_cancelled() {
        let (throttle, clock) = throttle(FakeClock::default());
        throttle.activity().record();
        let looks = AtomicU64::new(0);
        // Cancelled at the second look: after one sleep of at most 10 ms.
        throttle.pause(&|| looks.fetch_add(1, Relaxed) >= 1);
        assert_eq!(clock.slept(), CANCEL_EVERY);
        // Already cancelled: no sleep at all.
        throttle.pause(&|| true);
        assert_eq!(clock.slept(), CANCEL_EVERY);
    }
}
