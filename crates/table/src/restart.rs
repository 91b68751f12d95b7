//! A single server's restart: the clocks stop while it is down. As the
//! server stops, each board whose clock runs stores
//! [`Event::ClockPaused`]; when the table loads again, each paused board
//! stores [`Event::ClockResumed`], and its side on move is charged only
//! what of the downtime passes [`RESTART_CREDIT`]. A crash stores no
//! pause: its downtime is charged, and only the grace after a load keeps
//! a flag from falling before the player on move can come back.
//!
//! [`RESTART_CREDIT`]: crate::clock::RESTART_CREDIT

use crate::boards::{Board, Boards};
use crate::play::Event;

impl Boards {
    /// The events that pause each board's running clock (the server is
    /// stopping).
    pub fn pauses(&self) -> Vec<(Board, Event)> {
        self.iter()
            .filter_map(|(board, play)| {
                let (side, _) = play.clocks()?.running()?;
                Some((board, Event::ClockPaused { side }))
            })
            .collect()
    }

    /// The events that run each paused clock again (the server is back).
    pub fn resumes(&self) -> Vec<(Board, Event)> {
        self.iter()
            .filter_map(|(board, play)| {
                let (side, _) = play.clocks()?.paused()?;
                Some((board, Event::ClockResumed { side }))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use baghchal_rules::{Rules, Side};

    use super::*;
    use crate::clock::{TimeControl, RESTART_CREDIT};
    use crate::options::{Format, Opponent, TableOptions};
    use crate::play::Intent;
    use crate::seat::Player;
    use crate::time::Timestamp;

    const T0: Timestamp = Timestamp::from_millis(1_796_160_000_000);

    fn at(ms: u64) -> Timestamp {
        T0.after(Duration::from_millis(ms))
    }

    fn apply_all(boards: &mut Boards, events: Vec<(Board, Event)>, now: Timestamp) {
        for (board, event) in events {
            boards.apply(board, event, now).unwrap();
        }
    }

    #[test]
    fn a_restart_pauses_the_running_clock_and_credits_the_downtime_up_to_the_bound() {
        let mut boards = Boards::new(TableOptions {
            opponent: Opponent::Friend,
            host_side: Side::Goat,
            level: None,
            spectator_seats: 0,
            rules: Rules::default(),
            clock: Some(TimeControl::Fischer {
                initial: Duration::from_secs(60),
                increment: Duration::ZERO,
            }),
            format: Format::Single,
        });
        assert_eq!(boards.pauses(), []);
        for (player, action, ms) in [(Player::Host, "c3", 0), (Player::Guest, "a1-a2", 0)] {
            let intent = Intent::Play(action.parse().unwrap());
            let events = boards.decide(player, crate::boards::Target::One(1), intent, at(ms));
            apply_all(&mut boards, events.unwrap(), at(ms));
        }
        // The goats' clock runs; the server stops 10 s on.
        let pauses = boards.pauses();
        assert_eq!(pauses, [(1, Event::ClockPaused { side: Side::Goat })]);
        apply_all(&mut boards, pauses, at(10_000));
        assert_eq!(boards.pauses(), []);
        assert_eq!(boards.next_flag(T0), None);
        // Back two minutes later: nothing charged for the downtime.
        let resumes = boards.resumes();
        assert_eq!(resumes, [(1, Event::ClockResumed { side: Side::Goat })]);
        apply_all(&mut boards, resumes, at(130_000));
        assert_eq!(boards.resumes(), []);
        let clock = boards.state(1, at(130_000)).unwrap().clock.unwrap();
        assert_eq!(clock.goats_ms, 50_000);
        assert_eq!(boards.next_flag(T0), Some(at(180_000)));
        // Down longer than the credit: the rest is charged.
        let pauses = boards.pauses();
        apply_all(&mut boards, pauses, at(131_000));
        let back = at(131_000).after(RESTART_CREDIT + Duration::from_secs(30));
        let resumes = boards.resumes();
        apply_all(&mut boards, resumes, back);
        let clock = boards.state(1, back).unwrap().clock.unwrap();
        assert_eq!(clock.goats_ms, 19_000);
        assert_eq!(boards.version(), 6);
    }
}
