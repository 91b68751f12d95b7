//! The tigers' side advantage estimated from rated games, by maximum
//! likelihood.

use serde::{Deserialize, Serialize};

use crate::advantage::{SideAdvantage, SEARCH_BOUND};
use crate::game::{expected_goats_score, Outcome};
use crate::glicko;
use crate::rating::{Rating, SCALE};

/// The standard deviation, in rating points, of the weak Gaussian prior
/// around 0 that keeps an estimate finite when one side won every game
/// (the same prior the tournament's fit puts on its ratings).
const PRIOR_SD: f64 = 2000.0;

impl SideAdvantage {
    /// The maximum-likelihood advantage for these games, each with both
    /// players' ratings from before it: the `A` that maximises
    /// Σ s · ln p + (1 − s) · ln(1 − p), with `p` the goats' expected score
    /// ([`crate::expected_goats_score`], which counts both deviations) and
    /// `s` the goats' score (draws as half points), plus a weak Gaussian
    /// prior (σ = 2000 points) that only keeps a one-sided record finite.
    /// The log-likelihood is concave in `A`, so its one root is found by
    /// Newton's method kept inside a shrinking bracket. `None` for no
    /// games.
    ///
    /// With every player's deviation 0 and equal weights, the estimate
    /// depends on the results only through the goats' total score: the
    /// `A` at which the goats' expected total equals their actual total.
    ///
    /// ```
    /// use baghchal_rating::{Outcome, Rating, RatedGame, SideAdvantage};
    ///
    /// let at = |rating| Rating { rating, deviation: 0.0, volatility: 0.06 };
    /// let game = |outcome| RatedGame { goats: at(1500.0), tigers: at(1500.0), outcome };
    /// // Equal ratings, the goats won 10 games of 110: odds of 10 to 1, 400 points.
    /// let mut games = vec![game(Outcome::TigersWin); 100];
    /// games.extend([game(Outcome::GoatsWin); 10]);
    /// let estimate = SideAdvantage::estimate(&games).unwrap();
    /// assert!((estimate.advantage.points() - 400.0).abs() < 1.0);
    /// assert_eq!(estimate.games, 110);
    /// assert!(SideAdvantage::estimate(&[]).is_none());
    /// ```
    pub fn estimate(games: &[RatedGame]) -> Option<Estimate> {
        if games.is_empty() {
            return None;
        }
        // d/dA of the log-likelihood and its second derivative. With
        // p = 1 / (1 + exp(−c · (G − T − A))), dp/dA = −c · p · (1 − p),
        // so each game adds c · (p − s) and −c² · p · (1 − p).
        let slope = |a: f64| {
            let advantage = SideAdvantage::tigers(a);
            let mut first = -a / (PRIOR_SD * PRIOR_SD);
            let mut second = -1.0 / (PRIOR_SD * PRIOR_SD);
            for game in games {
                let c = game.steepness();
                let p = expected_goats_score(&game.goats, &game.tigers, advantage);
                first += c * (p - game.outcome.goats_score());
                second -= c * c * p * (1.0 - p);
            }
            (first, second)
        };
        let (mut low, mut high) = (-SEARCH_BOUND, SEARCH_BOUND);
        let mut a = 0.0;
        for _ in 0..200 {
            let (first, second) = slope(a);
            // The slope falls as A grows: the root is above a positive one.
            if first > 0.0 {
                low = a;
            } else {
                high = a;
            }
            let newton = a - first / second;
            let next = if newton > low && newton < high {
                newton
            } else {
                (low + high) / 2.0
            };
            let done = (next - a).abs() < 1e-9;
            a = next;
            if done || high - low < 1e-9 {
                break;
            }
        }
        let (_, second) = slope(a);
        Some(Estimate {
            advantage: SideAdvantage::tigers(a),
            standard_error: (-1.0 / second).sqrt(),
            games: games.len(),
        })
    }
}

/// One rated game for the estimator: both players' ratings from before it
/// and the result.
///
/// ```
/// use baghchal_rating::{Outcome, Rating, RatedGame};
/// let game = RatedGame { goats: Rating::default(), tigers: Rating::default(), outcome: Outcome::Draw };
/// assert_eq!(game.outcome.goats_score(), 0.5);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RatedGame {
    /// The goats' player's rating before the game.
    pub goats: Rating,
    /// The tigers' player's rating before the game.
    pub tigers: Rating,
    /// How the game ended.
    pub outcome: Outcome,
}

impl RatedGame {
    /// c in p = 1 / (1 + exp(−c · (G − T − A))): ln 10 / 400 flattened by
    /// g of both deviations.
    fn steepness(&self) -> f64 {
        let (goats, tigers) = (self.goats.sane(), self.tigers.sane());
        let phi = goats.deviation.hypot(tigers.deviation) / SCALE;
        glicko::g(phi) / SCALE
    }
}

/// An estimate of the side advantage.
///
/// ```
/// use baghchal_rating::{Outcome, Rating, RatedGame, SideAdvantage};
///
/// let game = |outcome| RatedGame { goats: Rating::default(), tigers: Rating::default(), outcome };
/// let estimate = SideAdvantage::estimate(&[game(Outcome::GoatsWin), game(Outcome::TigersWin)]).unwrap();
/// assert!(estimate.advantage.points().abs() < 1e-6);
/// assert!(estimate.standard_error > 100.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// The estimated advantage.
    pub advantage: SideAdvantage,
    /// Its standard error in rating points, from the curvature of the
    /// log-likelihood at the estimate; ± 1.96 of them is a 95% interval.
    pub standard_error: f64,
    /// How many games it rests on.
    pub games: usize,
}
