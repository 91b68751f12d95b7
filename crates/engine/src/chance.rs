//! The goats' winning chance: a search's score read as the share of the
//! game the goats can expect (a win 1, a draw ½, a loss 0), by a logistic
//! curve fitted to the outcomes of recorded games.
//!
//! The curve is `1 / (1 + e^-(INTERCEPT + SLOPE · s))` with `s` the score
//! for the goats in goats (a thousand of the engine's units). The fit is a
//! maximum-likelihood logistic regression of each game's result on the
//! score of its positions ([`fit`]); `docs/review.md` gives the data, the
//! command and the figures.

use crate::value::Value;
use baghchal_rules::Side;

/// The curve's value at an even score, fitted (see the module): the
/// goats of the recorded games won most of them (79 % of the points), and
/// the search's placement scores, mostly below zero for the goats, did
/// not foresee it.
pub const INTERCEPT: f64 = 2.134;
/// The curve's steepness per goat of score, fitted (see the module).
pub const SLOPE: f64 = 0.1988;

/// The goats' expected share of the game (0 to 1) for a search score
/// for the goats, in thousandths of a goat.
///
/// ```
/// use baghchal_engine::chance::goats_chance;
/// assert!(goats_chance(2_000) > goats_chance(0));
/// assert!(goats_chance(-30_000) < 0.05);
/// // The fit's curve at an even score.
/// assert_eq!((goats_chance(0) * 100.0).round(), 89.0);
/// ```
pub fn goats_chance(score: i32) -> f64 {
    curve(INTERCEPT, SLOPE, score)
}

/// The goats' chance in whole percent (0 to 100).
///
/// ```
/// use baghchal_engine::chance::goats_percent;
/// assert_eq!(goats_percent(-250), 89);
/// assert_eq!(goats_percent(-2_310), 84);
/// assert_eq!(goats_percent(30_000), 100);
/// ```
pub fn goats_percent(score: i32) -> u8 {
    (goats_chance(score) * 100.0).round().clamp(0.0, 100.0) as u8
}

fn curve(intercept: f64, slope: f64, score: i32) -> f64 {
    1.0 / (1.0 + (-(intercept + slope * score as f64 / 1000.0)).exp())
}

/// What a value is worth to `side` as a share of the game, in percent: a
/// win 100, a draw 50, a loss 0 (whatever the distance), an estimate its
/// chance.
///
/// ```
/// use baghchal_engine::chance::percent_for;
/// use baghchal_engine::Value;
/// use baghchal_rules::Side;
/// assert_eq!(percent_for(Value::Draw, Side::Tiger), 50);
/// assert_eq!(percent_for(Value::Win { plies: 9 }, Side::Goat), 100);
/// ```
pub fn percent_for(value: Value, side: Side) -> u8 {
    match value {
        Value::Win { .. } => 100,
        Value::Loss { .. } => 0,
        Value::Draw => 50,
        Value::Score(s) => match side {
            Side::Goat => goats_percent(s),
            Side::Tiger => 100 - goats_percent(-s),
        },
    }
}

/// A fitted curve and how well it predicts.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct Fit {
    /// The curve's value at an even score.
    pub intercept: f64,
    /// The steepness per goat of score.
    pub slope: f64,
    /// Positions fitted.
    pub positions: usize,
    /// The mean log loss of the fit on those positions.
    pub log_loss: f64,
    /// The mean log loss of a constant chance (the mean result) on them.
    pub constant_log_loss: f64,
}

/// Fits the curve to `(score for the goats, the goats' result)` pairs,
/// the result 1 for a win, ½ for a draw and 0 for a loss, by Newton's
/// method on the log loss; `None` without two different results.
///
/// ```
/// use baghchal_engine::chance::fit;
/// let samples: Vec<(i32, f64)> = (-20..=20)
///     .flat_map(|s| [(s * 250, 1.0), (s * 250, 0.0), (s * 250, if s > 0 { 1.0 } else { 0.0 })])
///     .collect();
/// let fit = fit(&samples).unwrap();
/// assert!(fit.slope > 0.0);
/// assert!(fit.log_loss < fit.constant_log_loss);
/// ```
pub fn fit(samples: &[(i32, f64)]) -> Option<Fit> {
    fit_with(samples, true)
}

/// [`fit`] with the intercept held at 0, so that an even score is an
/// even game: where the recorded players were unequal, the intercept
/// measures them, not the positions (see `docs/review.md`).
///
/// ```
/// use baghchal_engine::chance::fit_slope;
/// let samples = [(-2_000, 0.0), (-1_000, 0.5), (0, 1.0), (0, 0.0), (1_000, 0.5), (2_000, 1.0)];
/// let fit = fit_slope(&samples).unwrap();
/// assert_eq!(fit.intercept, 0.0);
/// assert!(fit.slope > 0.0);
/// ```
pub fn fit_slope(samples: &[(i32, f64)]) -> Option<Fit> {
    fit_with(samples, false)
}

fn fit_with(samples: &[(i32, f64)], intercept: bool) -> Option<Fit> {
    let n = samples.len() as f64;
    let mean = samples.iter().map(|s| s.1).sum::<f64>() / n;
    if samples.is_empty() || mean <= 0.0 || mean >= 1.0 {
        return None;
    }
    let mut a = if intercept {
        (mean / (1.0 - mean)).ln()
    } else {
        0.0
    };
    let mut b = 0.0;
    for _ in 0..50 {
        // Gradient and Hessian of the mean log loss, with a small ridge.
        let (mut ga, mut gb, mut haa, mut hab, mut hbb) = (0.0, 0.0, 1e-9, 0.0, 1e-9);
        for &(score, y) in samples {
            let x = score as f64 / 1000.0;
            let p = curve(a, b, score);
            ga += p - y;
            gb += (p - y) * x;
            let w = p * (1.0 - p);
            haa += w;
            hab += w * x;
            hbb += w * x * x;
        }
        let (da, db) = if intercept {
            let det = haa * hbb - hab * hab;
            if det.abs() < 1e-12 {
                break;
            }
            ((hbb * ga - hab * gb) / det, (haa * gb - hab * ga) / det)
        } else {
            (0.0, gb / hbb)
        };
        a -= da;
        b -= db;
        if da.abs() < 1e-10 && db.abs() < 1e-10 {
            break;
        }
    }
    let loss = |p: &dyn Fn(i32) -> f64| {
        samples
            .iter()
            .map(|&(s, y)| {
                let p = p(s).clamp(1e-12, 1.0 - 1e-12);
                -(y * p.ln() + (1.0 - y) * (1.0 - p).ln())
            })
            .sum::<f64>()
            / n
    };
    Some(Fit {
        intercept: a,
        slope: b,
        positions: samples.len(),
        log_loss: loss(&|s| curve(a, b, s)),
        constant_log_loss: loss(&|_| mean),
    })
}
