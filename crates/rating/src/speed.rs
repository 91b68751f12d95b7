//! Speed classes: a player has one rating per class, and a game's class
//! follows from its time control.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Actions per side in an average game, the N in a game's estimated
/// duration, initial time + N × increment: the engine's games average
/// about 100 plies (`docs/strength.md`), 50 for each side.
///
/// ```
/// assert_eq!(baghchal_rating::ACTIONS_PER_SIDE, 50);
/// ```
pub const ACTIONS_PER_SIDE: u64 = 50;

/// A speed class. Live games fall in a class by their estimated duration,
/// initial time + [`ACTIONS_PER_SIDE`] × increment (lichess's boundaries
/// with our N): under 3 minutes bullet, under 8 blitz, under 25 rapid, the
/// rest classical. Games with days per action are correspondence, and so
/// are untimed games, which can last as long as the players like.
///
/// The lobby's pools: `1+1` is bullet (1 min + 50 s = 110 s), `3+2` and
/// `5+3` blitz (280 s, 450 s), `10+5` and `15+10` rapid (850 s, 1400 s),
/// `1d` correspondence.
///
/// ```
/// use baghchal_rating::Speed;
///
/// let minutes = |m: u64| Some(m * 60_000);
/// let seconds = |s: u64| Some(s * 1000);
/// assert_eq!(Speed::of(minutes(1), seconds(1), None), Speed::Bullet);
/// assert_eq!(Speed::of(minutes(3), seconds(2), None), Speed::Blitz);
/// assert_eq!(Speed::of(minutes(5), seconds(3), None), Speed::Blitz);
/// assert_eq!(Speed::of(minutes(10), seconds(5), None), Speed::Rapid);
/// assert_eq!(Speed::of(minutes(15), seconds(10), None), Speed::Rapid);
/// assert_eq!(Speed::of(None, None, Some(1)), Speed::Correspondence);
/// assert_eq!(Speed::of(None, None, None), Speed::Correspondence);
/// assert_eq!("blitz".parse::<Speed>().unwrap(), Speed::Blitz);
/// assert_eq!(Speed::Rapid.to_string(), "rapid");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Speed {
    /// An estimated duration under 3 minutes.
    Bullet,
    /// From 3 minutes to under 8.
    Blitz,
    /// From 8 minutes to under 25.
    Rapid,
    /// 25 minutes or more.
    Classical,
    /// Days per action, or no clock.
    Correspondence,
}

/// The first estimated duration, in milliseconds, of each class after
/// bullet.
const BLITZ_FROM_MS: u64 = 3 * 60_000;
const RAPID_FROM_MS: u64 = 8 * 60_000;
const CLASSICAL_FROM_MS: u64 = 25 * 60_000;

impl Speed {
    /// Every class, fastest first.
    ///
    /// ```
    /// use baghchal_rating::Speed;
    /// assert_eq!(Speed::ALL.len(), 5);
    /// assert_eq!(Speed::ALL[0], Speed::Bullet);
    /// ```
    pub const ALL: [Speed; 5] = [
        Speed::Bullet,
        Speed::Blitz,
        Speed::Rapid,
        Speed::Classical,
        Speed::Correspondence,
    ];

    /// The class of a time control: `days` (per action) makes it
    /// correspondence; otherwise the estimated duration initial +
    /// [`ACTIONS_PER_SIDE`] × increment decides, a missing initial time or
    /// increment counting as 0; a game with neither a clock nor days is
    /// untimed, and untimed games are correspondence.
    ///
    /// ```
    /// use baghchal_rating::Speed;
    ///
    /// // 2 minutes + 50 × 1 s = 170 s: bullet; 2 minutes + 50 × 2 s = 220 s: blitz.
    /// assert_eq!(Speed::of(Some(120_000), Some(1000), None), Speed::Bullet);
    /// assert_eq!(Speed::of(Some(120_000), Some(2000), None), Speed::Blitz);
    /// assert_eq!(Speed::of(Some(30 * 60_000), None, None), Speed::Classical);
    /// assert_eq!(Speed::of(Some(60_000), Some(0), Some(3)), Speed::Correspondence);
    /// ```
    pub fn of(initial_ms: Option<u64>, increment_ms: Option<u64>, days: Option<u64>) -> Speed {
        if days.is_some() || (initial_ms.is_none() && increment_ms.is_none()) {
            return Speed::Correspondence;
        }
        let estimate = initial_ms
            .unwrap_or(0)
            .saturating_add(increment_ms.unwrap_or(0).saturating_mul(ACTIONS_PER_SIDE));
        match estimate {
            e if e < BLITZ_FROM_MS => Speed::Bullet,
            e if e < RAPID_FROM_MS => Speed::Blitz,
            e if e < CLASSICAL_FROM_MS => Speed::Rapid,
            _ => Speed::Classical,
        }
    }

    /// The class's name on the wire and in the database: `bullet`,
    /// `blitz`, `rapid`, `classical`, `correspondence`.
    ///
    /// ```
    /// assert_eq!(baghchal_rating::Speed::Correspondence.name(), "correspondence");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Speed::Bullet => "bullet",
            Speed::Blitz => "blitz",
            Speed::Rapid => "rapid",
            Speed::Classical => "classical",
            Speed::Correspondence => "correspondence",
        }
    }
}

impl fmt::Display for Speed {
    /// The class's [name](Speed::name).
    ///
    /// ```
    /// assert_eq!(baghchal_rating::Speed::Bullet.to_string(), "bullet");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not a speed class's.
///
/// ```
/// use baghchal_rating::Speed;
/// let err = "ultrabullet".parse::<Speed>().unwrap_err();
/// assert_eq!(err.to_string(), "unknown speed class \"ultrabullet\"");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseSpeedError(pub String);

impl fmt::Display for ParseSpeedError {
    /// Names the text that was not a class.
    ///
    /// ```
    /// let err = baghchal_rating::ParseSpeedError("x".into());
    /// assert_eq!(err.to_string(), "unknown speed class \"x\"");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown speed class {:?}", self.0)
    }
}

impl std::error::Error for ParseSpeedError {}

impl FromStr for Speed {
    type Err = ParseSpeedError;

    /// Reads a class's [name](Speed::name), exactly (lower case).
    ///
    /// ```
    /// use baghchal_rating::Speed;
    /// for speed in Speed::ALL {
    ///     assert_eq!(speed.name().parse::<Speed>(), Ok(speed));
    /// }
    /// assert!("Blitz".parse::<Speed>().is_err());
    /// ```
    fn from_str(s: &str) -> Result<Speed, ParseSpeedError> {
        Speed::ALL
            .into_iter()
            .find(|speed| speed.name() == s)
            .ok_or_else(|| ParseSpeedError(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_boundaries_fall_between_the_last_millisecond_of_a_class_and_the_first_of_the_next() {
        let at = |ms| Speed::of(Some(ms), Some(0), None);
        assert_eq!(at(BLITZ_FROM_MS - 1), Speed::Bullet);
        assert_eq!(at(BLITZ_FROM_MS), Speed::Blitz);
        assert_eq!(at(RAPID_FROM_MS - 1), Speed::Blitz);
        assert_eq!(at(RAPID_FROM_MS), Speed::Rapid);
        assert_eq!(at(CLASSICAL_FROM_MS - 1), Speed::Rapid);
        assert_eq!(at(CLASSICAL_FROM_MS), Speed::Classical);
    }

    #[test]
    fn the_increment_counts_fifty_times() {
        // 0 + 50 × 3.6 s = 180 s, the first of blitz.
        assert_eq!(Speed::of(None, Some(3_599), None), Speed::Bullet);
        assert_eq!(Speed::of(None, Some(3_600), None), Speed::Blitz);
    }

    #[test]
    fn huge_time_controls_do_not_overflow() {
        assert_eq!(
            Speed::of(Some(u64::MAX), Some(u64::MAX), None),
            Speed::Classical
        );
    }

    #[test]
    fn the_wire_names_are_the_serde_names() {
        for speed in Speed::ALL {
            let json = serde_json::to_string(&speed).unwrap();
            assert_eq!(json, format!("\"{}\"", speed.name()));
            assert_eq!(serde_json::from_str::<Speed>(&json).unwrap(), speed);
        }
    }
}
