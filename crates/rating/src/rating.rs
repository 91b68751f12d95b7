//! A player's rating in one speed class: its value, deviation and
//! volatility, how it is shown, and how it widens with time without games.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Points per unit of Glicko-2's internal scale: 400 / ln 10, so that the
/// internal logistic is the usual 10-to-1-per-400-points one.
///
/// ```
/// assert!((baghchal_rating::SCALE - 400.0 / std::f64::consts::LN_10).abs() < 1e-4);
/// ```
pub const SCALE: f64 = 173.7178;

/// A new player's rating (lichess's start).
///
/// ```
/// assert_eq!(baghchal_rating::Rating::default().rating, baghchal_rating::START_RATING);
/// ```
pub const START_RATING: f64 = 1500.0;

/// A new player's deviation (lichess's start), also the most a deviation
/// can grow to.
///
/// ```
/// use baghchal_rating::{Rating, START_DEVIATION};
/// assert_eq!(Rating::default().after_idle(10_000.0).deviation, START_DEVIATION);
/// ```
pub const START_DEVIATION: f64 = 500.0;

/// A new player's volatility (lichess's start).
///
/// ```
/// assert_eq!(baghchal_rating::Rating::default().volatility, baghchal_rating::START_VOLATILITY);
/// ```
pub const START_VOLATILITY: f64 = 0.09;

/// The system constant τ, which bounds how fast the volatility changes
/// (lichess's value; Glickman suggests 0.3 to 1.2).
///
/// ```
/// assert!((0.3..=1.2).contains(&baghchal_rating::TAU));
/// ```
pub const TAU: f64 = 0.75;

/// The least deviation a rated game leaves: however many games a player
/// has, the rating keeps moving by a useful amount. Since every game is a
/// rating period that first widens the deviation by the volatility
/// (Glicko-2's step 6), the floor binds only for steady players: a player
/// who plays on settles near a deviation of 60 at a volatility of 0.06,
/// near 74 at the start's 0.09, and below 45 at 0.01.
///
/// ```
/// use baghchal_rating::{rate, Outcome, Rating, SideAdvantage, DEVIATION_FLOOR};
///
/// let sure = Rating { rating: 1500.0, deviation: DEVIATION_FLOOR, volatility: 0.01 };
/// let after = rate(sure, sure, Outcome::Draw, SideAdvantage::NONE);
/// assert_eq!(after.goats.deviation, DEVIATION_FLOOR);
/// ```
pub const DEVIATION_FLOOR: f64 = 45.0;

/// The most a deviation can be: a rating is never less certain than a new
/// one.
///
/// ```
/// assert_eq!(baghchal_rating::DEVIATION_CAP, baghchal_rating::START_DEVIATION);
/// ```
pub const DEVIATION_CAP: f64 = START_DEVIATION;

/// A rating is provisional while its deviation is this much or more; it
/// is then shown with a question mark and left off the leaderboard.
///
/// ```
/// use baghchal_rating::{Rating, PROVISIONAL_DEVIATION};
/// let r = Rating { deviation: PROVISIONAL_DEVIATION, ..Rating::default() };
/// assert!(r.is_provisional());
/// ```
pub const PROVISIONAL_DEVIATION: f64 = 110.0;

/// Rating periods per day of inactivity (lichess's calculator's rate):
/// a period of idleness is 1 / 0.21436, about 4.67 days. Each rated game
/// is a period of its own, so this rate only says how fast the deviation
/// widens between games.
///
/// ```
/// let days_per_period = 1.0 / baghchal_rating::PERIODS_PER_DAY;
/// assert!((days_per_period - 4.665).abs() < 0.001);
/// ```
pub const PERIODS_PER_DAY: f64 = 0.21436;

/// The widest interval a sane rating value is read in; values outside are
/// read at its nearest end, so no input can overflow the arithmetic.
const RATING_BOUND: f64 = 100_000.0;

/// The volatility is read in this interval (the start is 0.09).
const VOLATILITY_RANGE: (f64, f64) = (1e-6, 1.0);

/// One player's Glicko-2 rating in one speed class, on the usual scale
/// (1500 is the start, 400 points of difference are odds of 10 to 1).
///
/// Plain data: the server may store it as JSON.
///
/// ```
/// use baghchal_rating::Rating;
///
/// let r: Rating = serde_json::from_str(r#"{"rating":1623.4,"deviation":80.0,"volatility":0.06}"#).unwrap();
/// assert_eq!(r.shown(), 1623);
/// assert_eq!(r.to_string(), "1623");
/// assert_eq!(Rating::default().to_string(), "1500?");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rating {
    /// The rating itself.
    pub rating: f64,
    /// Its deviation (RD): one standard deviation of the uncertainty about
    /// it, in rating points.
    pub deviation: f64,
    /// Its volatility σ: how erratic the player's results have been, on
    /// Glicko-2's own scale.
    pub volatility: f64,
}

impl Default for Rating {
    /// A new player: 1500, deviation 500, volatility 0.09 (lichess's start).
    ///
    /// ```
    /// use baghchal_rating::Rating;
    /// let r = Rating::default();
    /// assert_eq!((r.rating, r.deviation, r.volatility), (1500.0, 500.0, 0.09));
    /// ```
    fn default() -> Rating {
        Rating {
            rating: START_RATING,
            deviation: START_DEVIATION,
            volatility: START_VOLATILITY,
        }
    }
}

impl Rating {
    /// Whether the rating is still provisional: its deviation is
    /// [`PROVISIONAL_DEVIATION`] (110) or more.
    ///
    /// ```
    /// use baghchal_rating::Rating;
    /// assert!(Rating::default().is_provisional());
    /// assert!(!Rating { deviation: 109.9, ..Rating::default() }.is_provisional());
    /// ```
    pub fn is_provisional(&self) -> bool {
        // A NaN deviation is as uncertain as can be.
        self.deviation >= PROVISIONAL_DEVIATION || self.deviation.is_nan()
    }

    /// The integer rating that players see: the rating rounded to the
    /// nearest whole point (a non-finite value shows as the start).
    ///
    /// ```
    /// use baghchal_rating::Rating;
    /// assert_eq!(Rating { rating: 1622.5, ..Rating::default() }.shown(), 1623);
    /// assert_eq!(Rating { rating: 1622.49, ..Rating::default() }.shown(), 1622);
    /// ```
    pub fn shown(&self) -> i32 {
        // The cast saturates; the bound keeps it far from i32's ends.
        self.sane().rating.round() as i32
    }

    /// The change players see at the end of a game: the shown rating after
    /// less the shown rating before, so that the numbers add up on screen.
    ///
    /// ```
    /// use baghchal_rating::Rating;
    /// let before = Rating { rating: 1500.4, ..Rating::default() };
    /// let after = Rating { rating: 1512.2, ..Rating::default() };
    /// assert_eq!(after.change_since(&before).to_string(), "+12");
    /// assert_eq!(before.change_since(&after).to_string(), "\u{2212}12");
    /// ```
    pub fn change_since(&self, before: &Rating) -> Change {
        Change(self.shown() - before.shown())
    }

    /// The rating after `days` without rated games in its speed class: the
    /// deviation widens as in Glicko-2's step 6 for a player who did not
    /// play, once per idle rating period ([`PERIODS_PER_DAY`], so one
    /// period is about 4.67 days, and fractions count),
    /// √(φ² + periods · σ²) on Glicko-2's scale, up to [`DEVIATION_CAP`].
    /// The rating and volatility stay. The server applies it before rating
    /// a game, with the days since the player's previous rated game in the
    /// class; zero, negative or non-finite days change nothing.
    ///
    /// ```
    /// use baghchal_rating::Rating;
    ///
    /// let r = Rating { rating: 1700.0, deviation: 60.0, volatility: 0.06 };
    /// let later = r.after_idle(365.0);
    /// assert!(later.deviation > 60.0 && later.deviation < 120.0);
    /// assert_eq!(later.rating, 1700.0);
    /// assert_eq!(r.after_idle(0.0), r);
    /// ```
    pub fn after_idle(&self, days: f64) -> Rating {
        let r = self.sane();
        if days.is_nan() || days <= 0.0 {
            return r;
        }
        let periods = (days * PERIODS_PER_DAY).min(1e9);
        let phi = r.deviation / SCALE;
        let widened = (phi * phi + periods * r.volatility * r.volatility).sqrt() * SCALE;
        Rating {
            deviation: widened.min(DEVIATION_CAP).max(r.deviation),
            ..r
        }
    }

    /// The rating with every field made usable: a non-finite field reads as
    /// the start's, the rating within ±100,000, the deviation within
    /// 0..=[`DEVIATION_CAP`], the volatility within 0.000001..=1.
    pub(crate) fn sane(&self) -> Rating {
        let or_start = |x: f64, start: f64| if x.is_finite() { x } else { start };
        Rating {
            rating: or_start(self.rating, START_RATING).clamp(-RATING_BOUND, RATING_BOUND),
            deviation: or_start(self.deviation, START_DEVIATION).clamp(0.0, DEVIATION_CAP),
            volatility: or_start(self.volatility, START_VOLATILITY)
                .clamp(VOLATILITY_RANGE.0, VOLATILITY_RANGE.1),
        }
    }
}

impl fmt::Display for Rating {
    /// The shown rating, with a question mark while provisional: `1500?`,
    /// `1623`.
    ///
    /// ```
    /// use baghchal_rating::Rating;
    /// assert_eq!(Rating { rating: 1623.0, deviation: 60.0, volatility: 0.06 }.to_string(), "1623");
    /// assert_eq!(Rating { rating: 1623.0, deviation: 110.0, volatility: 0.06 }.to_string(), "1623?");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mark = if self.is_provisional() { "?" } else { "" };
        write!(f, "{}{mark}", self.shown())
    }
}

/// A change of the shown rating, as players see it at the end of a game:
/// `+12`, `−12` (with the minus sign U+2212), `±0`.
///
/// ```
/// use baghchal_rating::Change;
/// assert_eq!(Change(12).to_string(), "+12");
/// assert_eq!(Change(-12).to_string(), "\u{2212}12");
/// assert_eq!(Change(0).to_string(), "\u{b1}0");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Change(pub i32);

impl fmt::Display for Change {
    /// The signed change: `+12`, `−12`, `±0`.
    ///
    /// ```
    /// assert_eq!(baghchal_rating::Change(7).to_string(), "+7");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            0 => f.write_str("\u{b1}0"),
            n if n > 0 => write!(f, "+{n}"),
            n => write!(f, "\u{2212}{}", n.unsigned_abs()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deviation_of_exactly_the_threshold_is_provisional_and_just_under_it_is_not() {
        let at = Rating {
            deviation: PROVISIONAL_DEVIATION,
            ..Rating::default()
        };
        let under = Rating {
            deviation: PROVISIONAL_DEVIATION - 0.001,
            ..Rating::default()
        };
        assert!(at.is_provisional());
        assert!(!under.is_provisional());
        assert_eq!(at.to_string(), "1500?");
        assert_eq!(under.to_string(), "1500");
    }

    #[test]
    fn a_nan_deviation_counts_as_provisional() {
        let r = Rating {
            deviation: f64::NAN,
            ..Rating::default()
        };
        assert!(r.is_provisional());
    }

    #[test]
    fn idle_growth_follows_the_formula_and_stops_at_the_cap() {
        let r = Rating {
            rating: 1800.0,
            deviation: 50.0,
            volatility: 0.06,
        };
        // 30 days are 6.4308 periods: √((50/S)² + 6.4308 · 0.06²) · S.
        let phi = 50.0 / SCALE;
        let expected = (phi * phi + 30.0 * PERIODS_PER_DAY * 0.0036).sqrt() * SCALE;
        assert!((r.after_idle(30.0).deviation - expected).abs() < 1e-9);
        assert!(r.after_idle(30.0).deviation > r.after_idle(10.0).deviation);
        assert_eq!(r.after_idle(1e12).deviation, DEVIATION_CAP);
        assert_eq!(r.after_idle(f64::INFINITY).deviation, DEVIATION_CAP);
        assert_eq!(r.after_idle(-5.0), r);
        assert_eq!(r.after_idle(f64::NAN), r);
    }

    #[test]
    fn a_year_away_makes_an_established_rating_provisional_again() {
        let r = Rating {
            rating: 1800.0,
            deviation: DEVIATION_FLOOR,
            volatility: START_VOLATILITY,
        };
        assert!(!r.after_idle(90.0).is_provisional());
        assert!(r.after_idle(365.0).is_provisional());
    }

    #[test]
    fn insane_fields_read_as_usable_ones() {
        let r = Rating {
            rating: f64::NAN,
            deviation: f64::INFINITY,
            volatility: -1.0,
        }
        .sane();
        assert_eq!(r.rating, START_RATING);
        assert_eq!(r.deviation, START_DEVIATION);
        assert_eq!(r.volatility, VOLATILITY_RANGE.0);
        assert_eq!(
            Rating {
                rating: 1e300,
                ..Rating::default()
            }
            .shown(),
            100_000
        );
    }
}
