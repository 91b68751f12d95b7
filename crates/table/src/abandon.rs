//! Games nobody plays on: an unfinished game whose table had no event for
//! [`idle_limit`] ends by itself. Like [`Boards`], without I/O: the moment
//! is an argument.
//!
//! The rule, much as lichess applies it to a game its players left: the side
//! to move left the game on its turn and loses it, reason `abandoned`
//! ([`Event::Abandoned`]); such a game counts like any other (in the
//! tally, and for the ratings at a rated table). A game still abortable
//! (a side has yet to make its first action) is aborted by the side to
//! move instead, as the first-move timer would. A game whose clock runs
//! is left to its clock (its flag falls first: a correspondence clock
//! gives at most 3 days an action), a game where the computer is to move
//! is left to the computer, and a bots table (the computer against
//! itself, played only while watched) is never abandoned.

use std::time::Duration;

use baghchal_rules::Side;

use crate::boards::{Board, Boards};
use crate::clock::TimeControl;
use crate::options::{Opponent, TableOptions};
use crate::play::{Event, Play};
use crate::time::Timestamp;

/// How long a game may go without an event before it ends as abandoned.
pub const IDLE_LIMIT: Duration = Duration::from_secs(24 * 60 * 60);
/// The same at a correspondence table (days per action).
pub const IDLE_LIMIT_CORRESPONDENCE: Duration = Duration::from_secs(30 * 24 * 60 * 60);

/// How long a game at a table of `options` may go without an event.
pub fn idle_limit(options: &TableOptions) -> Duration {
    match options.clock {
        Some(TimeControl::DaysPerAction(_)) => IDLE_LIMIT_CORRESPONDENCE,
        _ => IDLE_LIMIT,
    }
}

/// The side that would abandon `play`'s game: the side to move of an
/// unfinished game with no clock running (or paused by a restart),
/// unless the computer holds it.
fn leaving(play: &Play) -> Option<Side> {
    let game = play.game();
    let clock_runs = play
        .clocks()
        .is_some_and(|c| c.running().is_some() || c.paused().is_some());
    if game.is_finished() || clock_runs {
        return None;
    }
    let side = game.position().side_to_move();
    (!play.is_computer(side)).then_some(side)
}

impl Boards {
    /// Whether this table's games may be abandoned at all.
    fn may_be_abandoned(&self) -> bool {
        self.first().options().opponent != Opponent::Bots
    }

    /// When a game of this table ends as abandoned unless an event comes
    /// first: [`idle_limit`] after the table's last event. `None` when no
    /// game would (see the module's rule) or the table had no event yet.
    pub fn abandon_due(&self) -> Option<Timestamp> {
        if !self.may_be_abandoned() || self.iter().all(|(_, play)| leaving(play).is_none()) {
            return None;
        }
        let limit = idle_limit(self.first().options());
        Some(self.last_event()?.after(limit))
    }

    /// The events that end the games abandoned at `now`: on each board,
    /// the side to move's abandonment, or its abort of a game still
    /// abortable. Empty before [`Boards::abandon_due`].
    pub fn abandoned_at(&self, now: Timestamp) -> Vec<(Board, Event)> {
        if self.abandon_due().is_none_or(|due| now < due) {
            return Vec::new();
        }
        self.iter()
            .filter_map(|(board, play)| {
                let side = leaving(play)?;
                Some(if play.abortable() {
                    (board, Event::Aborted { side })
                } else {
                    (board, Event::Abandoned { side })
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::Format;
    use crate::play::Intent;
    use crate::seat::Player;
    use baghchal_protocol as wire;
    use baghchal_rules::Rules;

    const T0: Timestamp = Timestamp::from_millis(1_796_160_000_000);
    const HOUR: Duration = Duration::from_secs(60 * 60);

    fn table(opponent: Opponent, clock: Option<TimeControl>) -> Boards {
        Boards::new(TableOptions {
            opponent,
            host_side: Side::Goat,
            level: None,
            spectator_seats: 0,
            rules: Rules::default(),
            clock,
            format: Format::Single,
        })
    }

    fn act(boards: &mut Boards, player: Player, intent: Intent, at: Timestamp) {
        let target = boards.target(None, &intent).unwrap();
        for (board, event) in boards.decide(player, target, intent, at).unwrap() {
            boards.apply(board, event, at).unwrap();
        }
    }

    fn play(action: &str) -> Intent {
        Intent::Play(action.parse().unwrap())
    }

    #[test]
    fn a_game_left_for_a_day_on_a_players_turn_is_lost_by_that_player() {
        let mut boards = table(Opponent::Friend, None);
        assert_eq!(boards.abandon_due(), None, "no event yet");
        act(&mut boards, Player::Host, play("c3"), T0);
        act(&mut boards, Player::Guest, play("a1-a2"), T0.after(HOUR));
        let due = T0.after(HOUR + IDLE_LIMIT);
        assert_eq!(boards.abandon_due(), Some(due));
        let just_before = Timestamp::from_millis(due.as_millis() - 1);
        assert_eq!(boards.abandoned_at(just_before), []);
        let events = boards.abandoned_at(due);
        assert_eq!(events, [(1, Event::Abandoned { side: Side::Goat })]);
        let ended = boards.apply(1, events[0].1, due).unwrap().unwrap();
        assert_eq!(ended.aborted_by, None);
        let state = boards.state(1, due).unwrap();
        assert_eq!(
            state.result,
            Some(wire::GameResult {
                winner: Some(wire::Side::Tigers),
                reason: wire::EndReason::Abandoned,
            })
        );
        assert_eq!(state.tally.guest, 1);
        // Over: nothing more to abandon.
        assert_eq!(boards.abandon_due(), None);
        assert_eq!(boards.abandoned_at(due.after(IDLE_LIMIT)), []);
    }

    #[test]
    fn any_event_puts_the_abandonment_off() {
        let mut boards = table(Opponent::Friend, None);
        act(&mut boards, Player::Host, play("c3"), T0);
        act(&mut boards, Player::Guest, play("a1-a2"), T0);
        act(
            &mut boards,
            Player::Host,
            Intent::OfferDraw,
            T0.after(20 * HOUR),
        );
        assert_eq!(boards.abandon_due(), Some(T0.after(20 * HOUR + IDLE_LIMIT)));
        assert_eq!(boards.abandoned_at(T0.after(IDLE_LIMIT)), []);
    }

    #[test]
    fn a_game_still_abortable_is_aborted_by_the_side_to_move() {
        let mut boards = table(Opponent::Friend, None);
        act(&mut boards, Player::Host, play("c3"), T0);
        assert_eq!(
            boards.abandoned_at(T0.after(IDLE_LIMIT)),
            [(1, Event::Aborted { side: Side::Tiger })]
        );
    }

    #[test]
    fn a_correspondence_game_waits_thirty_days_and_a_running_clock_is_left_to_its_flag() {
        let mut boards = table(Opponent::Friend, Some(TimeControl::DaysPerAction(3)));
        act(&mut boards, Player::Host, play("c3"), T0);
        assert_eq!(
            boards.abandon_due(),
            Some(T0.after(IDLE_LIMIT_CORRESPONDENCE))
        );
        act(&mut boards, Player::Guest, play("a1-a2"), T0);
        // The goats' clock runs now: their flag ends the game.
        assert_eq!(boards.abandon_due(), None);
        assert_eq!(boards.abandoned_at(T0.after(IDLE_LIMIT_CORRESPONDENCE)), []);
    }

    #[test]
    fn the_computer_to_move_and_a_bots_table_are_never_abandoned() {
        let mut computer = Boards::new(TableOptions {
            host_side: Side::Tiger,
            ..*table(Opponent::Computer, None).first().options()
        });
        // The computer holds the goats and moves first.
        let c3 = computer.first().decide(Side::Goat, play("c3"), T0).unwrap();
        assert_eq!(computer.abandon_due(), None);
        computer.apply(1, c3, T0).unwrap();
        // The person's turn: it may be abandoned.
        assert_eq!(computer.abandon_due(), Some(T0.after(IDLE_LIMIT)));
        let mut bots = table(Opponent::Bots, None);
        let c3 = bots.first().decide(Side::Goat, play("c3"), T0).unwrap();
        bots.apply(1, c3, T0).unwrap();
        assert_eq!(bots.abandon_due(), None);
    }
}
