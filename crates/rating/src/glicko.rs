//! The Glicko-2 rating period (Glickman, *Example of the Glicko-2 system*,
//! steps 1 to 8), with a side advantage in each result's expected score and
//! a bounded volatility solver.

use std::f64::consts::PI;

use crate::rating::{Rating, DEVIATION_CAP, SCALE, START_RATING, TAU};

/// The volatility solver stops when its bracket is this narrow (on the
/// scale of ln σ²; Glickman's ε).
///
/// ```
/// assert_eq!(baghchal_rating::SOLVER_TOLERANCE, 1e-6);
/// ```
pub const SOLVER_TOLERANCE: f64 = 1e-6;

/// The most iterations the volatility solver makes, in each of its two
/// loops (finding the bracket, then narrowing it). The Illinois algorithm
/// converges superlinearly and needs far fewer; the bound only guarantees
/// that a rating update ends whatever its input.
///
/// ```
/// assert_eq!(baghchal_rating::MAX_SOLVER_ITERATIONS, 100);
/// ```
pub const MAX_SOLVER_ITERATIONS: u32 = 100;

/// The expected score is kept this far from 0 and 1, so that the variance
/// of a hopeless game stays finite.
const LEAST_EXPECTATION: f64 = 1e-12;

/// One result of a rating period, from the rated player's side.
///
/// ```
/// use baghchal_rating::{PeriodResult, Rating};
///
/// let win = PeriodResult { opponent: Rating::default(), score: 1.0, advantage: 0.0 };
/// assert_eq!(win.score, 1.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PeriodResult {
    /// The opponent's rating before the period.
    pub opponent: Rating,
    /// The rated player's score: 1 a win, 0.5 a draw, 0 a loss.
    pub score: f64,
    /// Rating points added to the rated player's side of the difference in
    /// the expected score: positive when the rated player held the
    /// favoured side (the tigers: [`crate::SideAdvantage`]), negative when
    /// the opponent did.
    pub advantage: f64,
}

impl Rating {
    /// The rating after one Glicko-2 rating period with these results,
    /// every opponent taken at its rating from before the period, and the
    /// system constant `tau`. No floor is applied (the game update
    /// [`crate::rate`] applies it); a period without results only widens
    /// the deviation (step 6). Inputs are read as in the game update: a
    /// non-finite field as the start's, a deviation above the cap at the
    /// cap, a `tau` that is not a positive number as [`crate::TAU`].
    ///
    /// Glickman's worked example (τ = 0.5):
    ///
    /// ```
    /// use baghchal_rating::{PeriodResult, Rating};
    ///
    /// let player = Rating { rating: 1500.0, deviation: 200.0, volatility: 0.06 };
    /// let result = |rating, deviation, score| PeriodResult {
    ///     opponent: Rating { rating, deviation, volatility: 0.06 },
    ///     score,
    ///     advantage: 0.0,
    /// };
    /// let after = player.after_period(
    ///     &[result(1400.0, 30.0, 1.0), result(1550.0, 100.0, 0.0), result(1700.0, 300.0, 0.0)],
    ///     0.5,
    /// );
    /// assert!((after.rating - 1464.06).abs() < 0.01);
    /// assert!((after.deviation - 151.52).abs() < 0.005);
    /// assert!((after.volatility - 0.05999).abs() < 0.00001);
    /// ```
    pub fn after_period(&self, results: &[PeriodResult], tau: f64) -> Rating {
        period(self, results, tau).0
    }
}

/// Steps 2 to 8 of Glickman's example; also returns the volatility
/// solver's iterations.
pub(crate) fn period(player: &Rating, results: &[PeriodResult], tau: f64) -> (Rating, u32) {
    let player = player.sane();
    // Step 2: to Glicko-2's scale.
    let mu = (player.rating - START_RATING) / SCALE;
    let phi = player.deviation / SCALE;
    let sigma = player.volatility;
    if results.is_empty() {
        // Only step 6: the deviation widens by one period's volatility.
        let widened = (phi * phi + sigma * sigma).sqrt() * SCALE;
        return (
            Rating {
                deviation: widened.min(DEVIATION_CAP),
                ..player
            },
            0,
        );
    }
    // Steps 3 and 4: the estimated variance v and improvement Δ.
    let mut information = 0.0;
    let mut surprise = 0.0;
    for result in results {
        let opponent = result.opponent.sane();
        let g = g(opponent.deviation / SCALE);
        let difference = mu - (opponent.rating - START_RATING) / SCALE + result.advantage / SCALE;
        let e = expectation(g, difference);
        let score = if result.score.is_finite() {
            result.score.clamp(0.0, 1.0)
        } else {
            0.5
        };
        information += g * g * e * (1.0 - e);
        surprise += g * (score - e);
    }
    let v = 1.0 / information;
    let delta = v * surprise;
    // Step 5: the new volatility.
    let tau = if tau.is_finite() && tau > 0.0 {
        tau
    } else {
        TAU
    };
    let (sigma, iterations) = volatility(delta, phi, v, sigma, tau);
    // Steps 6 and 7: the new deviation and rating.
    let phi_star = (phi * phi + sigma * sigma).sqrt();
    let new_phi = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
    let new_mu = mu + new_phi * new_phi * surprise;
    // Step 8: back to the rating scale.
    (
        Rating {
            rating: START_RATING + SCALE * new_mu,
            deviation: (SCALE * new_phi).min(DEVIATION_CAP),
            volatility: sigma,
        },
        iterations,
    )
}

/// Glicko-2's g(φ): how much an opponent's uncertainty flattens the
/// expected score.
pub(crate) fn g(phi: f64) -> f64 {
    1.0 / (1.0 + 3.0 * phi * phi / (PI * PI)).sqrt()
}

/// The expected score at `difference` (Glicko-2's scale) after g's
/// flattening, kept inside (0, 1).
pub(crate) fn expectation(g: f64, difference: f64) -> f64 {
    let e = 1.0 / (1.0 + (-g * difference).exp());
    e.clamp(LEAST_EXPECTATION, 1.0 - LEAST_EXPECTATION)
}

/// Step 5: the new volatility σ′, the root of Glickman's f(x) = 0 in
/// x = ln σ′², found by the Illinois algorithm (regula falsi that halves
/// the stale end's value), each loop bounded by [`MAX_SOLVER_ITERATIONS`].
/// Returns σ′ and the iterations both loops made.
pub(crate) fn volatility(delta: f64, phi: f64, v: f64, sigma: f64, tau: f64) -> (f64, u32) {
    let delta2 = delta * delta;
    let phi2 = phi * phi;
    let a0 = (sigma * sigma).ln();
    let f = |x: f64| {
        let ex = x.exp();
        let d = phi2 + v + ex;
        ex * (delta2 - phi2 - v - ex) / (2.0 * d * d) - (x - a0) / (tau * tau)
    };
    let mut iterations = 0;
    let mut a = a0;
    let mut b = if delta2 > phi2 + v {
        (delta2 - phi2 - v).ln()
    } else {
        let mut k = 1.0;
        while f(a0 - k * tau) < 0.0 && iterations < MAX_SOLVER_ITERATIONS {
            k += 1.0;
            iterations += 1;
        }
        a0 - k * tau
    };
    let mut fa = f(a);
    let mut fb = f(b);
    let mut narrowing = 0;
    while (b - a).abs() > SOLVER_TOLERANCE && narrowing < MAX_SOLVER_ITERATIONS {
        narrowing += 1;
        let c = a + (a - b) * fa / (fb - fa);
        if !c.is_finite() {
            break;
        }
        let fc = f(c);
        if fc == 0.0 {
            a = c;
            break;
        }
        if fc * fb <= 0.0 {
            a = b;
            fa = fb;
        } else {
            fa /= 2.0;
        }
        b = c;
        fb = fc;
    }
    let sigma = (a / 2.0).exp();
    let sigma = if sigma.is_finite() && sigma > 0.0 {
        sigma
    } else {
        (a0 / 2.0).exp()
    };
    (sigma, iterations + narrowing)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opponent(rating: f64, deviation: f64) -> Rating {
        Rating {
            rating,
            deviation,
            volatility: 0.06,
        }
    }

    fn glickman() -> (Rating, [PeriodResult; 3]) {
        let result = |rating, deviation, score| PeriodResult {
            opponent: opponent(rating, deviation),
            score,
            advantage: 0.0,
        };
        (
            opponent(1500.0, 200.0),
            [
                result(1400.0, 30.0, 1.0),
                result(1550.0, 100.0, 0.0),
                result(1700.0, 300.0, 0.0),
            ],
        )
    }

    /// The paper rounds its intermediate values (μ′ = −0.2069 gives
    /// 1464.06; unrounded it is 1464.0507) and shows σ′ = 0.05999 for
    /// 0.059996, so each figure is checked to the paper's last decimal
    /// with that much room.
    #[test]
    fn glickmans_worked_example_gives_his_figures() {
        let (player, results) = glickman();
        let (after, _) = period(&player, &results, 0.5);
        assert!((after.rating - 1464.06).abs() < 0.01, "{after:?}");
        assert!((after.deviation - 151.52).abs() < 0.005, "{after:?}");
        assert!((after.volatility - 0.05999).abs() < 0.00001, "{after:?}");
        // On Glicko-2's scale, to the paper's four decimals.
        assert!(((after.rating - 1500.0) / SCALE - -0.2069).abs() < 0.00005);
        assert!((after.deviation / SCALE - 0.8722).abs() < 0.00005);
    }

    #[test]
    fn glickmans_intermediate_values_come_out_on_the_way() {
        let (_, results) = glickman();
        let mu = 0.0;
        let mut information = 0.0;
        let mut surprise = 0.0;
        let mut gs = Vec::new();
        let mut es = Vec::new();
        for r in &results {
            let g = g(r.opponent.deviation / SCALE);
            let e = expectation(g, mu - (r.opponent.rating - 1500.0) / SCALE);
            gs.push(g);
            es.push(e);
            information += g * g * e * (1.0 - e);
            surprise += g * (r.score - e);
        }
        let paper_g = [0.9955, 0.9531, 0.7242];
        let paper_e = [0.639, 0.432, 0.303];
        for i in 0..3 {
            assert!((gs[i] - paper_g[i]).abs() < 0.00005, "g {i}: {}", gs[i]);
            assert!((es[i] - paper_e[i]).abs() < 0.0005, "E {i}: {}", es[i]);
        }
        let v = 1.0 / information;
        assert!((v - 1.7785).abs() < 0.0005, "v {v}");
        // The paper's −0.4834 multiplies its rounded v and sum; unrounded
        // Δ is −0.4839.
        assert!((v * surprise - -0.4834).abs() < 0.001, "Δ {}", v * surprise);
        let (sigma, iterations) = volatility(v * surprise, 200.0 / SCALE, v, 0.06, 0.5);
        assert!((sigma - 0.05999).abs() < 0.00001);
        assert!(iterations <= 10, "{iterations}");
    }

    #[test]
    fn a_period_without_games_only_widens_the_deviation() {
        let r = opponent(1500.0, 200.0);
        let (after, iterations) = period(&r, &[], 0.5);
        assert_eq!(after.rating, 1500.0);
        assert_eq!(after.volatility, 0.06);
        // Glickman: φ′ = √(1.1513² + 0.06²) · S = 200.27.
        assert!((after.deviation - 200.27).abs() < 0.005, "{after:?}");
        assert_eq!(iterations, 0);
    }

    #[test]
    fn the_volatility_solver_ends_within_its_bound_on_any_inputs() {
        for delta in [-1e6, -50.0, -1.0, 0.0, 1e-9, 0.3, 3.0, 40.0, 1e6] {
            for phi in [0.0, 45.0 / SCALE, 1.0, 500.0 / SCALE] {
                for v in [1e-3, 1.0, 4.0, 1e3, 1e12] {
                    for sigma in [1e-6, 0.01, 0.06, 0.09, 0.5, 1.0] {
                        for tau in [0.2, 0.5, 0.75, 1.2] {
                            let (s, n) = volatility(delta, phi, v, sigma, tau);
                            assert!(s.is_finite() && s > 0.0, "{delta} {phi} {v} {sigma} {tau}");
                            assert!(n <= 2 * MAX_SOLVER_ITERATIONS);
                        }
                    }
                }
            }
        }
    }

    /// Every (Δ, v) a real game can produce, from ratings 0 to 4000,
    /// deviations 45 to 500 and volatilities tiny to large: the solver
    /// converges long before its bound cuts it short.
    #[test]
    fn the_volatility_solver_converges_quickly_on_every_game_a_rating_can_meet() {
        let mut worst = 0;
        for rating in [0.0, 1000.0, 1500.0, 2500.0, 4000.0] {
            for other in [0.0, 1500.0, 4000.0] {
                for deviation in [45.0, 110.0, 350.0, 500.0] {
                    for volatility in [1e-6, 0.01, 0.06, 0.09, 0.3, 1.0] {
                        for score in [0.0, 0.5, 1.0] {
                            for advantage in [-400.0, 0.0, 400.0] {
                                let player = Rating {
                                    rating,
                                    deviation,
                                    volatility,
                                };
                                let result = PeriodResult {
                                    opponent: opponent(other, deviation),
                                    score,
                                    advantage,
                                };
                                let (after, n) = period(&player, &[result], 0.75);
                                assert!(after.rating.is_finite(), "{player:?} {result:?}");
                                assert!(after.volatility > 0.0 && after.volatility.is_finite());
                                worst = worst.max(n);
                            }
                        }
                    }
                }
            }
        }
        // The slowest are a volatility of 0.000001 with a 4000-point
        // upset: 32 iterations.
        assert!(worst <= 40, "{worst}");
    }

    #[test]
    fn a_hopeless_loss_and_an_impossible_win_give_finite_ratings() {
        let weak = opponent(0.0, 45.0);
        let strong = opponent(4000.0, 45.0);
        for (player, other, score) in [(weak, strong, 1.0), (strong, weak, 0.0)] {
            let (after, _) = period(
                &player,
                &[PeriodResult {
                    opponent: other,
                    score,
                    advantage: 0.0,
                }],
                0.75,
            );
            assert!(after.rating.is_finite() && after.deviation.is_finite());
            assert!(after.volatility.is_finite());
        }
    }
}
