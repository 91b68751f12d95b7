//! A series of games with sides swapped after each: the score, and when
//! the series is decided. Pure counting; which games belong to a series is
//! the table's play to say.

use baghchal_protocol as wire;

use crate::seat::Player;

/// The games of one series counted so far. A win scores 1 and a draw ½
/// for each player; an aborted game is not counted.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Standing {
    /// The games the series has at most.
    games: u8,
    /// Games won by the host.
    host_wins: u8,
    /// Games won by the guest.
    guest_wins: u8,
    /// Games drawn.
    draws: u8,
}

impl Standing {
    /// A series of `games` games before its first result.
    ///
    /// ```
    /// use baghchal_table::seat::Player;
    /// use baghchal_table::series::Standing;
    /// let mut series = Standing::new(4);
    /// for winner in [Some(Player::Host), Some(Player::Host), Some(Player::Host)] {
    ///     series.count(winner);
    /// }
    /// // 3 to 0 with one game left: the guest can no longer catch up.
    /// assert!(series.is_decided());
    /// assert_eq!(series.winner(), Some(Player::Host));
    /// ```
    pub fn new(games: u8) -> Standing {
        Standing {
            games,
            host_wins: 0,
            guest_wins: 0,
            draws: 0,
        }
    }

    /// Counts one finished game: its winner, or `None` for a draw.
    pub fn count(&mut self, winner: Option<Player>) {
        let slot = match winner {
            Some(Player::Host) => &mut self.host_wins,
            Some(Player::Guest) => &mut self.guest_wins,
            None => &mut self.draws,
        };
        *slot = slot.saturating_add(1);
    }

    /// The games counted.
    pub fn played(&self) -> u8 {
        self.host_wins
            .saturating_add(self.guest_wins)
            .saturating_add(self.draws)
    }

    /// Whether the series is over: every game played, or the leader
    /// ahead by more than the games left could make up (each game moves
    /// the difference by one point at most).
    pub fn is_decided(&self) -> bool {
        let left = self.games.saturating_sub(self.played());
        left == 0 || self.host_wins.abs_diff(self.guest_wins) > left
    }

    /// The player ahead once the series is decided; `None` while it goes
    /// on, and for a tie.
    pub fn winner(&self) -> Option<Player> {
        if !self.is_decided() {
            return None;
        }
        match self.host_wins.cmp(&self.guest_wins) {
            std::cmp::Ordering::Greater => Some(Player::Host),
            std::cmp::Ordering::Less => Some(Player::Guest),
            std::cmp::Ordering::Equal => None,
        }
    }

    /// The series on the wire: the `number`th at its table, its current
    /// game at place `game` (from 1).
    pub fn to_wire(&self, number: u32, game: u8) -> wire::SeriesState {
        wire::SeriesState {
            number,
            games: self.games,
            game,
            host_wins: self.host_wins,
            guest_wins: self.guest_wins,
            draws: self.draws,
            result: self.is_decided().then(|| wire::SeriesResult {
                winner: self.winner().map(Player::to_wire),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn after(games: u8, results: &[Option<Player>]) -> Standing {
        let mut series = Standing::new(games);
        for &winner in results {
            series.count(winner);
        }
        series
    }

    const H: Option<Player> = Some(Player::Host);
    const G: Option<Player> = Some(Player::Guest);
    const D: Option<Player> = None;

    #[test]
    fn a_series_ends_once_the_leader_cannot_be_caught_and_not_before() {
        assert!(!after(4, &[]).is_decided());
        assert!(
            !after(4, &[H, H]).is_decided(),
            "2-0 with two left: a tie is possible"
        );
        assert!(after(4, &[H, H, H]).is_decided());
        assert!(after(4, &[H, H, D]).is_decided(), "2½-½ with one left");
        assert!(!after(4, &[H, D]).is_decided(), "1½-½ with two left");
        assert!(after(2, &[G, D]).is_decided(), "every game played");
        assert!(!after(6, &[G, G, G]).is_decided());
        assert!(after(6, &[G, G, G, G]).is_decided());
        assert_eq!(after(6, &[G, G, G, G]).winner(), Some(Player::Guest));
    }

    #[test]
    fn a_played_out_series_is_won_on_points_or_tied() {
        assert_eq!(after(4, &[H, G, D, H]).winner(), Some(Player::Host));
        assert_eq!(after(4, &[H, G, D, D]).winner(), None);
        assert_eq!(after(2, &[D, D]).winner(), None);
        assert_eq!(after(2, &[H]).winner(), None, "undecided: no winner yet");
    }

    #[test]
    fn the_wire_view_says_the_score_and_the_result_once_decided() {
        let going = after(4, &[H, D]).to_wire(1, 3);
        assert_eq!(
            (going.host_wins, going.guest_wins, going.draws, going.game),
            (1, 0, 1, 3)
        );
        assert_eq!(going.result, None);
        let tied = after(2, &[H, G]).to_wire(2, 2);
        assert_eq!(tied.result, Some(wire::SeriesResult { winner: None }));
        assert_eq!(tied.number, 2);
        let won = after(2, &[G, D]).to_wire(1, 2);
        assert_eq!(
            won.result,
            Some(wire::SeriesResult {
                winner: Some(wire::Player::Guest)
            })
        );
    }
}
