//! Rating one game: both players' new ratings from their ratings before
//! it, the result and the side advantage.

use serde::{Deserialize, Serialize};

use crate::advantage::SideAdvantage;
use crate::glicko::{self, PeriodResult};
use crate::rating::{Change, Rating, DEVIATION_CAP, DEVIATION_FLOOR, SCALE, START_RATING, TAU};

/// How a rated game ended, for its ratings. Aborted games are not rated,
/// so there is no variant for them.
///
/// ```
/// use baghchal_rating::Outcome;
/// assert_eq!(Outcome::GoatsWin.goats_score(), 1.0);
/// assert_eq!(Outcome::Draw.goats_score(), 0.5);
/// assert_eq!(serde_json::to_string(&Outcome::TigersWin).unwrap(), r#""tigers_win""#);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The goats won (the tigers trapped, or the tigers lost on time or
    /// resigned).
    GoatsWin,
    /// The tigers won.
    TigersWin,
    /// A draw.
    Draw,
}

impl Outcome {
    /// The goats' score: 1, ½ or 0.
    ///
    /// ```
    /// assert_eq!(baghchal_rating::Outcome::TigersWin.goats_score(), 0.0);
    /// ```
    pub fn goats_score(self) -> f64 {
        match self {
            Outcome::GoatsWin => 1.0,
            Outcome::Draw => 0.5,
            Outcome::TigersWin => 0.0,
        }
    }

    /// The same game seen with the sides swapped: a goats' win becomes a
    /// tigers' win.
    ///
    /// ```
    /// use baghchal_rating::Outcome;
    /// assert_eq!(Outcome::GoatsWin.swapped(), Outcome::TigersWin);
    /// assert_eq!(Outcome::Draw.swapped(), Outcome::Draw);
    /// ```
    pub fn swapped(self) -> Outcome {
        match self {
            Outcome::GoatsWin => Outcome::TigersWin,
            Outcome::TigersWin => Outcome::GoatsWin,
            Outcome::Draw => Outcome::Draw,
        }
    }
}

/// Both players' ratings before and after one rated game.
///
/// ```
/// use baghchal_rating::{rate, Outcome, Rating, SideAdvantage};
///
/// let rated = rate(Rating::default(), Rating::default(), Outcome::Draw, SideAdvantage::NONE);
/// assert_eq!(rated.goats_before, Rating::default());
/// assert_eq!(rated.goats_change(), rated.goats.change_since(&rated.goats_before));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rated {
    /// The goats' player's rating before the game (after idle growth, if
    /// the server applied it).
    pub goats_before: Rating,
    /// The tigers' player's rating before the game.
    pub tigers_before: Rating,
    /// The goats' player's new rating.
    pub goats: Rating,
    /// The tigers' player's new rating.
    pub tigers: Rating,
}

impl Rated {
    /// The change the goats' player sees: `+12`, `−12`.
    ///
    /// ```
    /// use baghchal_rating::{rate, Outcome, Rating, SideAdvantage};
    /// let rated = rate(Rating::default(), Rating::default(), Outcome::GoatsWin, SideAdvantage::NONE);
    /// assert!(rated.goats_change().0 > 0);
    /// ```
    pub fn goats_change(&self) -> Change {
        self.goats.change_since(&self.goats_before)
    }

    /// The change the tigers' player sees.
    ///
    /// ```
    /// use baghchal_rating::{rate, Outcome, Rating, SideAdvantage};
    /// let rated = rate(Rating::default(), Rating::default(), Outcome::GoatsWin, SideAdvantage::NONE);
    /// assert_eq!(rated.tigers_change().0, -rated.goats_change().0);
    /// ```
    pub fn tigers_change(&self) -> Change {
        self.tigers.change_since(&self.tigers_before)
    }
}

/// Rates one game: each player's Glicko-2 update for a rating period of
/// this one game, against the other's rating from before it, with the
/// tigers' side favoured by `advantage` in the expected score, τ =
/// [`TAU`], and the deviation kept within [`DEVIATION_FLOOR`] and
/// [`DEVIATION_CAP`]. Inputs are read sanely: a non-finite field as the
/// start's, a deviation below the floor at the floor.
///
/// At equal ratings with a positive advantage the tigers are expected to
/// score more than half, so a tigers' win gains less than a goats' win.
///
/// ```
/// use baghchal_rating::{rate, Outcome, Rating, SideAdvantage};
///
/// let even = Rating { rating: 1500.0, deviation: 80.0, volatility: 0.06 };
/// let adv = SideAdvantage::tigers(300.0);
/// let goats_won = rate(even, even, Outcome::GoatsWin, adv);
/// let tigers_won = rate(even, even, Outcome::TigersWin, adv);
/// assert!(goats_won.goats.rating - 1500.0 > tigers_won.tigers.rating - 1500.0);
/// assert!(tigers_won.tigers.rating > 1500.0);
/// ```
pub fn rate(goats: Rating, tigers: Rating, outcome: Outcome, advantage: SideAdvantage) -> Rated {
    let goats_before = floored(goats);
    let tigers_before = floored(tigers);
    let edge = advantage.points();
    let goats_score = outcome.goats_score();
    let update = |player: &Rating, opponent: Rating, score: f64, advantage: f64| {
        let result = PeriodResult {
            opponent,
            score,
            advantage,
        };
        floored(glicko::period(player, &[result], TAU).0)
    };
    Rated {
        goats_before,
        tigers_before,
        goats: update(&goats_before, tigers_before, goats_score, -edge),
        tigers: update(&tigers_before, goats_before, 1.0 - goats_score, edge),
    }
}

/// The goats' expected score in a game between these two ratings with the
/// tigers favoured by `advantage`, counting both deviations as Glicko does
/// for a prediction: 1 / (1 + 10^(−g(√(φ_G² + φ_T²)) · (G − T − A) / 400)).
///
/// ```
/// use baghchal_rating::{expected_goats_score, Rating, SideAdvantage};
///
/// let sure = |rating| Rating { rating, deviation: 0.0, volatility: 0.06 };
/// let p = expected_goats_score(&sure(1800.0), &sure(1500.0), SideAdvantage::tigers(300.0));
/// assert!((p - 0.5).abs() < 1e-12);
/// let p = expected_goats_score(&sure(1500.0), &sure(1500.0), SideAdvantage::tigers(400.0));
/// assert!((p - 1.0 / 11.0).abs() < 1e-6);
/// ```
pub fn expected_goats_score(goats: &Rating, tigers: &Rating, advantage: SideAdvantage) -> f64 {
    let (goats, tigers) = (goats.sane(), tigers.sane());
    let phi = goats.deviation.hypot(tigers.deviation) / SCALE;
    let difference = (goats.rating - START_RATING) / SCALE
        - (tigers.rating - START_RATING) / SCALE
        - advantage.points() / SCALE;
    glicko::expectation(glicko::g(phi), difference)
}

/// The rating read sanely, its deviation within the floor and the cap.
fn floored(rating: Rating) -> Rating {
    let r = rating.sane();
    Rating {
        deviation: r.deviation.clamp(DEVIATION_FLOOR, DEVIATION_CAP),
        ..r
    }
}
