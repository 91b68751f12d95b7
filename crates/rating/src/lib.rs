//! Ratings for Bagh-Chal: Glicko-2 (Mark Glickman, *Example of the
//! Glicko-2 system*) with lichess's parameters as the start, one rating per
//! player and [`Speed`] class, and the tigers' side advantage as a term in
//! the expected score.
//!
//! At equal strength the goats' side is worth some 300 Elo less than the
//! tigers' (`docs/strength.md`), so a game's expected score counts the
//! [`SideAdvantage`]: the goats are expected to score as a player that many
//! points weaker would. A win with the favoured side therefore gains less
//! than a win with the other. The advantage is estimated by maximum
//! likelihood from rated games ([`SideAdvantage::estimate`]);
//! `docs/ratings.md` gives the method, the data and the choice.
//!
//! Every game is a rating period of its own, rated with both players'
//! ratings from before it ([`rate`]); time without games widens the
//! deviation ([`Rating::after_idle`]). The crate is pure: no I/O, no
//! clock, no async.
//!
//! ```
//! use baghchal_rating::{rate, Outcome, Rating, SideAdvantage};
//!
//! let goats = Rating::default();
//! let tigers = Rating::default();
//! let after = rate(goats, tigers, Outcome::GoatsWin, SideAdvantage::SELF_PLAY);
//! assert!(after.goats.rating > 1500.0 && after.tigers.rating < 1500.0);
//! assert_eq!(after.goats.to_string(), format!("{}?", after.goats.shown()));
//! assert_eq!(after.goats_change().to_string(), format!("+{}", after.goats.shown() - 1500));
//! ```

#![warn(missing_docs)]

mod advantage;
mod estimate;
mod game;
mod glicko;
pub mod puzzle;
mod rating;
mod speed;

pub use advantage::SideAdvantage;
pub use estimate::{Estimate, RatedGame};
pub use game::{expected_goats_score, rate, Outcome, Rated};
pub use glicko::{PeriodResult, MAX_SOLVER_ITERATIONS, SOLVER_TOLERANCE};
pub use rating::{
    Change, Rating, DEVIATION_CAP, DEVIATION_FLOOR, PERIODS_PER_DAY, PROVISIONAL_DEVIATION, SCALE,
    START_DEVIATION, START_RATING, START_VOLATILITY, TAU,
};
pub use speed::{ParseSpeedError, Speed, ACTIONS_PER_SIDE};
