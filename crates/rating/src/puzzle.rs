//! A puzzle try as a rated game, after lichess's `PuzzleFinisher`: the
//! first try of a puzzle by a player is one Glicko-2 game between the
//! player and the puzzle, the player winning when they solve it. Two
//! weights keep the shared number, the puzzle's rating, steadier than the
//! player's (`docs/puzzles.md`):
//!
//! - the player's change is weighed down while the puzzle's own rating is
//!   provisional: only 0.8 of it on a solve and 0.3 on a failure (lichess's
//!   1 − 0.2 and 1 − 0.7 for its mixed puzzles), since a new puzzle's
//!   rating says little yet;
//! - the puzzle does not move at all for a player whose rating is still
//!   "clueless" (a deviation of [`CLUELESS_DEVIATION`] or more: a new
//!   player's first 9 tries if they solve new puzzles, 25 if they fail
//!   them), nor where the caller says it may
//!   not (the server lets only accounts move puzzles), and never more than
//!   [`MAX_PUZZLE_DELTA`] at once.
//!
//! ```
//! use baghchal_rating::puzzle::rate_try;
//! use baghchal_rating::Rating;
//!
//! let player = Rating { rating: 1500.0, deviation: 80.0, volatility: 0.06 };
//! let puzzle = Rating { rating: 1500.0, deviation: 80.0, volatility: 0.09 };
//! let solved = rate_try(player, puzzle, true, true);
//! assert!(solved.player.rating > 1500.0);
//! let moved = solved.puzzle.expect("an established player moves the puzzle");
//! assert!(moved.rating < 1500.0);
//! ```

use crate::game::{rate, Outcome};
use crate::rating::Rating;
use crate::SideAdvantage;

/// A player's deviation from which their tries leave puzzles' ratings
/// alone (lichess's "clueless").
///
/// ```
/// assert_eq!(baghchal_rating::puzzle::CLUELESS_DEVIATION, 230.0);
/// ```
pub const CLUELESS_DEVIATION: f64 = 230.0;

/// The most a puzzle's rating moves on one try (lichess's
/// `maxRatingDelta`).
///
/// ```
/// assert_eq!(baghchal_rating::puzzle::MAX_PUZZLE_DELTA, 700.0);
/// ```
pub const MAX_PUZZLE_DELTA: f64 = 700.0;

/// The least weight a player's change keeps.
const LEAST_WEIGHT: f64 = 0.1;

/// A rated try: both ratings before it and after it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RatedTry {
    /// The player's rating before the try (its deviation floored).
    pub player_before: Rating,
    /// The player's rating after it.
    pub player: Rating,
    /// The puzzle's rating before the try.
    pub puzzle_before: Rating,
    /// The puzzle's rating after it; `None` where the try leaves it as it
    /// was (a clueless player, or one the caller lets not move it).
    pub puzzle: Option<Rating>,
}

/// Rates a player's first try of a puzzle: `solved` or failed, and
/// whether this player may move the puzzle's rating at all
/// (`moves_puzzle`).
///
/// ```
/// use baghchal_rating::puzzle::rate_try;
/// use baghchal_rating::Rating;
///
/// // A new player moves no puzzle, and a provisional puzzle's failure
/// // costs less than a solve gains.
/// let puzzle = Rating { rating: 1500.0, deviation: 350.0, volatility: 0.09 };
/// let solved = rate_try(Rating::default(), puzzle, true, true);
/// let failed = rate_try(Rating::default(), puzzle, false, true);
/// assert_eq!(solved.puzzle, None);
/// assert!(solved.player.rating - 1500.0 > 1500.0 - failed.player.rating);
/// ```
pub fn rate_try(player: Rating, puzzle: Rating, solved: bool, moves_puzzle: bool) -> RatedTry {
    let outcome = if solved {
        Outcome::GoatsWin
    } else {
        Outcome::TigersWin
    };
    // The player and the puzzle as the two sides of one game, neither
    // favoured.
    let game = rate(player, puzzle, outcome, SideAdvantage::NONE);
    let penalty: f64 = match (puzzle.is_provisional(), solved) {
        (false, _) => 0.0,
        (true, true) => 0.2,
        (true, false) => 0.7,
    };
    let player_after = average(
        game.goats_before,
        game.goats,
        (1.0 - penalty).max(LEAST_WEIGHT),
    );
    let clueless = game.goats_before.deviation >= CLUELESS_DEVIATION;
    let puzzle_after = (moves_puzzle && !clueless).then(|| {
        let before = game.tigers_before.rating;
        Rating {
            rating: game
                .tigers
                .rating
                .clamp(before - MAX_PUZZLE_DELTA, before + MAX_PUZZLE_DELTA),
            ..game.tigers
        }
    });
    RatedTry {
        player_before: game.goats_before,
        player: player_after,
        puzzle_before: game.tigers_before,
        puzzle: puzzle_after,
    }
}

/// `before` moved `weight` of the way to `after`, field by field (lichess's
/// `Glicko.average`).
fn average(before: Rating, after: Rating, weight: f64) -> Rating {
    let mix = |a: f64, b: f64| a + (b - a) * weight;
    Rating {
        rating: mix(before.rating, after.rating),
        deviation: mix(before.deviation, after.deviation),
        volatility: mix(before.volatility, after.volatility),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn established(rating: f64) -> Rating {
        Rating {
            rating,
            deviation: 70.0,
            volatility: 0.06,
        }
    }

    #[test]
    fn an_established_puzzle_and_player_move_as_one_glicko_game() {
        let player = established(1600.0);
        let puzzle = established(1500.0);
        let rated = rate_try(player, puzzle, false, true);
        let game = rate(player, puzzle, Outcome::TigersWin, SideAdvantage::NONE);
        assert_eq!(rated.player, game.goats);
        assert_eq!(rated.puzzle, Some(game.tigers));
        assert!(rated.player.rating < 1600.0);
    }

    #[test]
    fn a_provisional_puzzle_weighs_the_players_change_down() {
        let player = established(1500.0);
        let new_puzzle = Rating {
            rating: 1500.0,
            deviation: 350.0,
            volatility: 0.09,
        };
        let full = rate(player, new_puzzle, Outcome::GoatsWin, SideAdvantage::NONE).goats;
        let rated = rate_try(player, new_puzzle, true, true);
        let gained = rated.player.rating - 1500.0;
        assert!((gained - 0.8 * (full.rating - 1500.0)).abs() < 1e-9);
        let failed = rate_try(player, new_puzzle, false, true);
        let lost_full = 1500.0
            - rate(player, new_puzzle, Outcome::TigersWin, SideAdvantage::NONE)
                .goats
                .rating;
        assert!(((1500.0 - failed.player.rating) - 0.3 * lost_full).abs() < 1e-9);
    }

    #[test]
    fn a_clueless_player_or_one_not_allowed_leaves_the_puzzle_alone() {
        let puzzle = established(1400.0);
        assert_eq!(rate_try(Rating::default(), puzzle, true, true).puzzle, None);
        assert_eq!(
            rate_try(established(1500.0), puzzle, true, false).puzzle,
            None
        );
        assert!(rate_try(established(1500.0), puzzle, true, true)
            .puzzle
            .is_some());
    }

    #[test]
    fn the_puzzle_moves_less_than_the_player_and_never_beyond_the_bound() {
        let player = Rating {
            rating: 1500.0,
            deviation: 200.0,
            volatility: 0.09,
        };
        let puzzle = established(1500.0);
        let rated = rate_try(player, puzzle, true, true);
        let moved = rated.puzzle.unwrap();
        assert!(1500.0 - moved.rating < rated.player.rating - 1500.0);
        let wild = Rating {
            rating: 4000.0,
            deviation: 200.0,
            volatility: 0.09,
        };
        let far = rate_try(wild, established(100.0), false, true);
        assert!(far.puzzle.unwrap().rating <= 100.0 + MAX_PUZZLE_DELTA);
    }

    /// How many tries a new player makes before they move puzzles, solving
    /// or failing new puzzles of their own rating (`docs/puzzles.md`).
    fn tries_until_not_clueless(solved: bool) -> usize {
        let mut player = Rating::default();
        let puzzle = Rating {
            rating: 1500.0,
            deviation: 350.0,
            volatility: 0.09,
        };
        (1..100)
            .find(|_| {
                player = rate_try(player, puzzle, solved, true).player;
                player.deviation < CLUELESS_DEVIATION
            })
            .unwrap_or(100)
    }

    #[test]
    fn a_new_player_leaves_clueless_after_a_few_tries() {
        let solving = tries_until_not_clueless(true);
        let failing = tries_until_not_clueless(false);
        println!("tries until a new player moves puzzles: {solving} solving, {failing} failing");
        assert!((3..=12).contains(&solving), "{solving}");
        assert!(failing >= solving, "{failing}");
    }

    #[test]
    fn nothing_is_nan_whatever_comes_in() {
        let odd = Rating {
            rating: f64::NAN,
            deviation: f64::INFINITY,
            volatility: -1.0,
        };
        for solved in [true, false] {
            let rated = rate_try(odd, odd, solved, true);
            for r in [rated.player, rated.player_before, rated.puzzle_before]
                .into_iter()
                .chain(rated.puzzle)
            {
                assert!(
                    r.rating.is_finite() && r.deviation.is_finite() && r.volatility.is_finite()
                );
            }
        }
    }
}
