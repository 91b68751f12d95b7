//! A game's clocks: pure arithmetic over the timestamps of accepted
//! actions, so that replaying a table's stored events gives the same
//! clocks on any server at any time.
//!
//! The rules of the house:
//! - No clock runs until each side has made its first action (the time in
//!   which a game may be aborted); those first actions cost nothing and
//!   earn no increment.
//! - From then on the side to move's time runs from the timestamp of the
//!   action that gave it the turn. An accepted action deducts the time
//!   since then and adds the increment; at a correspondence pace the
//!   mover's allowance starts afresh instead.
//! - The time of a side that has run out is zero; the table ends the game
//!   on the flag.

use std::time::Duration;

use baghchal_rules::Side;

use crate::time::Timestamp;

/// A time control, every bound checked.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TimeControl {
    /// A clock of initial time plus an increment per action.
    Fischer {
        /// Each side's time at the start.
        initial: Duration,
        /// Added after each of a side's actions.
        increment: Duration,
    },
    /// A correspondence pace: this many days for each action.
    DaysPerAction(u8),
}

/// The bounds of a clock, in seconds.
pub const INITIAL_SECONDS: std::ops::RangeInclusive<u32> = 5..=10_800;
/// The bounds of an increment, in seconds.
pub const INCREMENT_SECONDS: std::ops::RangeInclusive<u32> = 0..=180;
/// The bounds of a correspondence pace, in days.
pub const DAYS_PER_ACTION: std::ops::RangeInclusive<u8> = 1..=3;

const DAY: Duration = Duration::from_secs(24 * 60 * 60);

impl TimeControl {
    /// The time control as a table request states it.
    pub fn to_wire(self) -> baghchal_protocol::TimeControl {
        match self {
            TimeControl::Fischer { initial, increment } => baghchal_protocol::TimeControl {
                initial: Some(u32::try_from(initial.as_secs()).unwrap_or(u32::MAX)),
                increment: Some(u32::try_from(increment.as_secs()).unwrap_or(u32::MAX)),
                days_per_action: None,
            },
            TimeControl::DaysPerAction(days) => baghchal_protocol::TimeControl {
                initial: None,
                increment: None,
                days_per_action: Some(days),
            },
        }
    }

    /// A side's time before its first action, and at a correspondence
    /// pace for each action.
    pub fn allowance(self) -> Duration {
        match self {
            TimeControl::Fischer { initial, .. } => initial,
            TimeControl::DaysPerAction(days) => DAY * u32::from(days),
        }
    }
}

/// The clocks of one game.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Clocks {
    control: TimeControl,
    /// Each side's time left at the start of the current turn: goats,
    /// tigers.
    left: [Duration; 2],
    /// The side whose time runs, and since when.
    running: Option<(Side, Timestamp)>,
    /// The side whose time was running when the server stopped, and
    /// when (see [`Clocks::pause`]).
    paused: Option<(Side, Timestamp)>,
}

/// The most of a server's downtime a paused clock is not charged: a
/// restart that takes longer charges the rest to the side on move.
pub const RESTART_CREDIT: Duration = Duration::from_secs(5 * 60);

fn index(side: Side) -> usize {
    match side {
        Side::Goat => 0,
        Side::Tiger => 1,
    }
}

impl Clocks {
    /// A new game's clocks: full allowances, nothing running.
    pub fn new(control: TimeControl) -> Clocks {
        Clocks {
            control,
            left: [control.allowance(); 2],
            running: None,
            paused: None,
        }
    }

    /// The time control.
    pub fn control(&self) -> TimeControl {
        self.control
    }

    /// `side`'s time left at the start of the current turn.
    pub fn left(&self, side: Side) -> Duration {
        self.left[index(side)]
    }

    /// `side`'s time left at `now`.
    pub fn left_at(&self, side: Side, now: Timestamp) -> Duration {
        match self.running {
            Some((running, since)) if running == side => {
                self.left(side).saturating_sub(now.since(since))
            }
            _ => self.left(side),
        }
    }

    /// The side whose time runs, and since when.
    pub fn running(&self) -> Option<(Side, Timestamp)> {
        self.running
    }

    /// When the running side's time runs out, and whose it is.
    pub fn deadline(&self) -> Option<(Side, Timestamp)> {
        self.running
            .map(|(side, since)| (side, since.after(self.left(side))))
    }

    /// `side` acted at `at`. `next` is the side whose time runs from now
    /// on: the side to move once each side has made its first action and
    /// while the game goes on, else `None`.
    pub fn acted(&mut self, side: Side, at: Timestamp, next: Option<Side>) {
        if let Some((running, since)) = self.running {
            if running == side {
                let spent = self.left(side).saturating_sub(at.since(since));
                self.left[index(side)] = match (self.control, next) {
                    // The game is over: nothing more to earn.
                    (_, None) => spent,
                    (TimeControl::Fischer { increment, .. }, Some(_)) => spent + increment,
                    (TimeControl::DaysPerAction(_), Some(_)) => self.control.allowance(),
                };
            }
        }
        self.running = next.map(|side| (side, at));
    }

    /// The game ended at `at` otherwise than on time: the running side's
    /// time stops.
    pub fn stop(&mut self, at: Timestamp) {
        if let Some((side, since)) = self.running.take() {
            self.left[index(side)] = self.left(side).saturating_sub(at.since(since));
        }
    }

    /// How long the computer playing `side` pauses before it thinks, for
    /// a table's `pace`: at most a fortieth of the time it has left, so
    /// that a short clock goes on the game and not on the pause (the
    /// pause counts against its clock like its thinking).
    pub fn pace_within(&self, side: Side, pace: Duration) -> Duration {
        pace.min(self.left(side) / 40)
    }

    /// The server stops at `at`: the running side's time stops, as it
    /// stood, until [`Clocks::resume`].
    pub fn pause(&mut self, at: Timestamp) {
        if let Some((side, since)) = self.running.take() {
            self.left[index(side)] = self.left(side).saturating_sub(at.since(since));
            self.paused = Some((side, at));
        }
    }

    /// The side whose clock a server's stop paused, and when.
    pub fn paused(&self) -> Option<(Side, Timestamp)> {
        self.paused
    }

    /// The server is back at `at`: the paused side's time runs again,
    /// charged only what of the downtime passes [`RESTART_CREDIT`].
    pub fn resume(&mut self, at: Timestamp) {
        if let Some((side, since)) = self.paused.take() {
            let charged = at.since(since).saturating_sub(RESTART_CREDIT);
            self.left[index(side)] = self.left(side).saturating_sub(charged);
            self.running = Some((side, at));
        }
    }

    /// `side`'s time ran out.
    pub fn flag(&mut self, side: Side) {
        self.left[index(side)] = Duration::ZERO;
        self.running = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: Timestamp = Timestamp::from_millis(1_000_000);

    fn at(ms: u64) -> Timestamp {
        T0.after(Duration::from_millis(ms))
    }

    fn blitz() -> Clocks {
        Clocks::new(TimeControl::Fischer {
            initial: Duration::from_secs(60),
            increment: Duration::from_secs(2),
        })
    }

    #[test]
    fn the_first_action_of_each_side_costs_nothing_and_then_the_side_to_move_runs() {
        let mut clocks = blitz();
        clocks.acted(Side::Goat, at(5_000), None);
        assert_eq!(clocks.running(), None);
        clocks.acted(Side::Tiger, at(9_000), Some(Side::Goat));
        assert_eq!(clocks.left(Side::Goat), Duration::from_secs(60));
        assert_eq!(clocks.left(Side::Tiger), Duration::from_secs(60));
        assert_eq!(clocks.running(), Some((Side::Goat, at(9_000))));
        assert_eq!(clocks.deadline(), Some((Side::Goat, at(69_000))));
    }

    #[test]
    fn an_action_deducts_the_time_since_the_turn_started_and_adds_the_increment() {
        let mut clocks = blitz();
        clocks.acted(Side::Tiger, at(0), Some(Side::Goat));
        clocks.acted(Side::Goat, at(10_500), Some(Side::Tiger));
        assert_eq!(clocks.left(Side::Goat), Duration::from_millis(51_500));
        assert_eq!(clocks.running(), Some((Side::Tiger, at(10_500))));
        assert_eq!(
            clocks.left_at(Side::Tiger, at(12_500)),
            Duration::from_secs(58)
        );
        assert_eq!(
            clocks.left_at(Side::Goat, at(12_500)),
            Duration::from_millis(51_500)
        );
    }

    #[test]
    fn the_last_action_earns_no_increment_and_a_stop_keeps_the_time_spent() {
        let mut clocks = blitz();
        clocks.acted(Side::Tiger, at(0), Some(Side::Goat));
        clocks.acted(Side::Goat, at(1_000), None);
        assert_eq!(clocks.left(Side::Goat), Duration::from_secs(59));
        assert_eq!(clocks.running(), None);
        let mut resigned = blitz();
        resigned.acted(Side::Tiger, at(0), Some(Side::Goat));
        resigned.stop(at(4_000));
        assert_eq!(resigned.left(Side::Goat), Duration::from_secs(56));
        assert_eq!(resigned.deadline(), None);
    }

    #[test]
    fn a_late_action_leaves_no_negative_time_and_a_flag_leaves_none() {
        let mut clocks = blitz();
        clocks.acted(Side::Tiger, at(0), Some(Side::Goat));
        clocks.acted(Side::Goat, at(75_000), Some(Side::Tiger));
        assert_eq!(clocks.left(Side::Goat), Duration::from_secs(2));
        clocks.flag(Side::Tiger);
        assert_eq!(clocks.left(Side::Tiger), Duration::ZERO);
        assert_eq!(clocks.running(), None);
    }

    #[test]
    fn the_computers_pause_shrinks_with_its_time_and_never_grows() {
        let pace = Duration::from_millis(1200);
        let mut clocks = Clocks::new(TimeControl::Fischer {
            initial: Duration::from_secs(5),
            increment: Duration::ZERO,
        });
        assert_eq!(
            clocks.pace_within(Side::Goat, pace),
            Duration::from_millis(125)
        );
        clocks.acted(Side::Goat, at(0), Some(Side::Tiger));
        clocks.acted(Side::Tiger, at(0), Some(Side::Goat));
        clocks.acted(Side::Goat, at(4000), Some(Side::Tiger));
        assert_eq!(
            clocks.pace_within(Side::Goat, pace),
            Duration::from_millis(25)
        );
        assert_eq!(blitz().pace_within(Side::Tiger, pace), pace);
        let days = Clocks::new(TimeControl::DaysPerAction(1));
        assert_eq!(days.pace_within(Side::Goat, pace), pace);
    }

    #[test]
    fn a_correspondence_pace_starts_each_action_afresh() {
        let mut clocks = Clocks::new(TimeControl::DaysPerAction(2));
        let two_days = Duration::from_secs(2 * 24 * 3600);
        clocks.acted(Side::Tiger, at(0), Some(Side::Goat));
        clocks.acted(Side::Goat, at(30 * 3600 * 1000), Some(Side::Tiger));
        assert_eq!(clocks.left(Side::Goat), two_days);
        assert_eq!(
            clocks.deadline(),
            Some((Side::Tiger, at(30 * 3600 * 1000).after(two_days)))
        );
    }

    #[test]
    fn a_restart_charges_the_side_on_move_only_past_the_credit() {
        let mut clocks = blitz();
        clocks.acted(Side::Tiger, at(0), Some(Side::Goat));
        clocks.pause(at(10_000));
        assert_eq!(clocks.running(), None);
        assert_eq!(clocks.deadline(), None);
        assert_eq!(clocks.paused(), Some((Side::Goat, at(10_000))));
        assert_eq!(clocks.left(Side::Goat), Duration::from_secs(50));
        // Down for a minute: nothing charged.
        clocks.resume(at(70_000));
        assert_eq!(clocks.paused(), None);
        assert_eq!(clocks.running(), Some((Side::Goat, at(70_000))));
        assert_eq!(clocks.deadline(), Some((Side::Goat, at(120_000))));
        // Down for the credit and 20 s more: 20 s charged.
        clocks.pause(at(75_000));
        let back = at(75_000).after(RESTART_CREDIT + Duration::from_secs(20));
        clocks.resume(back);
        assert_eq!(clocks.left(Side::Goat), Duration::from_secs(25));
        // A resume with nothing paused changes nothing.
        let before = clocks;
        clocks.resume(back);
        assert_eq!(clocks, before);
    }

    #[test]
    fn replaying_the_same_timestamps_gives_the_same_clocks() {
        let play = |clocks: &mut Clocks| {
            clocks.acted(Side::Goat, at(100), None);
            clocks.acted(Side::Tiger, at(900), Some(Side::Goat));
            clocks.acted(Side::Goat, at(4_900), Some(Side::Tiger));
            clocks.acted(Side::Tiger, at(5_300), Some(Side::Goat));
        };
        let (mut a, mut b) = (blitz(), blitz());
        play(&mut a);
        play(&mut b);
        assert_eq!(a, b);
        assert_eq!(a.left(Side::Goat), Duration::from_secs(58));
        assert_eq!(a.left(Side::Tiger), Duration::from_millis(61_600));
    }
}
