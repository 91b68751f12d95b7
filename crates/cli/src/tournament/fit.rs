//! The fits of a tournament: Bradley-Terry ratings from its games, and
//! the curve through the ratings of points of the levels' path that
//! places the labels on it.

use std::fmt;

/// Ratings with their 95% error bars, and the goats' edge.
pub(super) struct Fit {
    /// Each player's rating.
    pub ratings: Vec<f64>,
    /// Each rating's 95% interval.
    pub errors: Vec<f64>,
    /// 95% intervals of the gaps between neighbouring levels (entry `k`
    /// for the gap from level `k - 1` to level `k`; entry 0 unused).
    pub gap_errors: Vec<f64>,
    /// Elo points the goat side is worth (negative: the tigers' side is
    /// the stronger one at equal levels).
    pub goat_edge: f64,
}

/// The expected score of a rating difference `d` (Elo's logistic curve).
fn expected(d: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-d / 400.0))
}

/// Maximum-likelihood Bradley-Terry ratings with a side term: the goats'
/// expected score is `expected(goats - tigers + edge)`, each game
/// `(goats, tigers, score)` scoring 1, ½ or 0 for the goats. One virtual
/// draw each way between neighbours keeps a player that won or lost
/// everything finite. Anchored so that the mean rating is the mean of
/// `nominal`, the players' labels.
pub(super) fn ratings(nominal: &[f64], games: &[(usize, usize, f64)]) -> Fit {
    let n = nominal.len();
    let edge = n;
    // (goat side, tiger side, goats' score, weight, with the side term)
    let mut results: Vec<(usize, usize, f64, f64, bool)> = games
        .iter()
        .map(|&(g, t, score)| (g, t, score, 1.0, true))
        .collect();
    for i in 1..n {
        results.push((i - 1, i, 0.5, 1.0, false));
    }
    let scale = 10f64.ln() / 400.0;
    let mut x = vec![0.0f64; n + 1];
    let mut hessian = vec![vec![0.0f64; n + 1]; n + 1];
    for _ in 0..100 {
        let mut gradient = vec![0.0f64; n + 1];
        for row in hessian.iter_mut() {
            row.fill(0.0);
        }
        for &(i, j, s, w, sided) in &results {
            let side = if sided { x[edge] } else { 0.0 };
            let p = expected(x[i] - x[j] + side);
            let mut v = vec![(i, 1.0), (j, -1.0)];
            if sided {
                v.push((edge, 1.0));
            }
            let h = w * scale * scale * p * (1.0 - p);
            for &(a, va) in &v {
                gradient[a] += va * w * scale * (s - p);
                for &(b, vb) in &v {
                    hessian[a][b] += h * va * vb;
                }
            }
        }
        // Newton step on the subspace where the ratings sum to zero.
        let step = multiply(&pinv(&hessian, n), &gradient);
        let mut largest = 0.0f64;
        for k in 0..=n {
            x[k] += step[k].clamp(-400.0, 400.0);
            largest = largest.max(step[k].abs());
        }
        if largest < 1e-6 {
            break;
        }
    }
    let covariance = pinv(&hessian, n);
    let mean_label = nominal.iter().sum::<f64>() / n as f64;
    let mean = x[..n].iter().sum::<f64>() / n as f64;
    Fit {
        ratings: x[..n].iter().map(|r| r - mean + mean_label).collect(),
        errors: (0..n)
            .map(|k| 1.96 * covariance[k][k].max(0.0).sqrt())
            .collect(),
        gap_errors: (0..n)
            .map(|k| match k {
                0 => 0.0,
                k => {
                    let v =
                        covariance[k][k] + covariance[k - 1][k - 1] - 2.0 * covariance[k][k - 1];
                    1.96 * v.max(0.0).sqrt()
                }
            })
            .collect(),
        goat_edge: x[edge],
    }
}

/// Ratings per side: each player's strength as the goats and as the
/// tigers, their mean, and 95% error bars, all relative to an anchor.
pub(super) struct Sided {
    /// Each player's rating as the goats.
    pub goats: Vec<f64>,
    /// Each player's rating as the tigers.
    pub tigers: Vec<f64>,
    /// The mean of the two.
    pub mean: Vec<f64>,
    /// 95% intervals of `goats`, `tigers` and `mean`.
    pub goats_errors: Vec<f64>,
    /// See `goats_errors`.
    pub tigers_errors: Vec<f64>,
    /// See `goats_errors`.
    pub mean_errors: Vec<f64>,
    /// 95% intervals of the gaps between the means of neighbours (entry
    /// `k` for `k - 1` to `k`; entry 0 unused).
    pub gap_errors: Vec<f64>,
}

/// The standard deviation of the prior on every rating: weak, so that it
/// only keeps a player that won or lost everything finite.
const PRIOR: f64 = 2000.0;

/// Maximum-a-posteriori Bradley-Terry ratings with a strength per player
/// and side: the goats' expected score in a game is
/// `expected(goats_rating(g) - tigers_rating(t))`, each game
/// `(goats, tigers, score)` scoring 1, ½ or 0 for the goats; a weak
/// Gaussian prior keeps perfect scores finite. The likelihood fixes only
/// differences, so the ratings are anchored: the mean of the `anchor`
/// players' means is `anchor_value`, and the error bars are those of each
/// rating relative to that anchor.
pub(super) fn sided(
    n: usize,
    games: &[(usize, usize, f64)],
    anchor: &[usize],
    anchor_value: f64,
) -> Sided {
    let m = 2 * n;
    let scale = 10f64.ln() / 400.0;
    let mut x = vec![0.0f64; m];
    let mut hessian = vec![vec![0.0f64; m]; m];
    for _ in 0..200 {
        let mut gradient: Vec<f64> = x.iter().map(|v| -v / (PRIOR * PRIOR)).collect();
        for (a, row) in hessian.iter_mut().enumerate() {
            row.fill(0.0);
            row[a] = 1.0 / (PRIOR * PRIOR);
        }
        for &(g, t, score) in games {
            let (i, j) = (g, n + t);
            let p = expected(x[i] - x[j]);
            let h = scale * scale * p * (1.0 - p);
            gradient[i] += scale * (score - p);
            gradient[j] -= scale * (score - p);
            hessian[i][i] += h;
            hessian[j][j] += h;
            hessian[i][j] -= h;
            hessian[j][i] -= h;
        }
        let step = multiply(&invert(&hessian), &gradient);
        let mut largest = 0.0f64;
        for (v, d) in x.iter_mut().zip(&step) {
            *v += d.clamp(-400.0, 400.0);
            largest = largest.max(d.abs());
        }
        if largest < 1e-6 {
            break;
        }
    }
    let covariance = invert(&hessian);
    // The anchor as a combination of the parameters.
    let mut base = vec![0.0f64; m];
    for &a in anchor {
        base[a] += 0.5 / anchor.len() as f64;
        base[n + a] += 0.5 / anchor.len() as f64;
    }
    let shift = anchor_value - base.iter().zip(&x).map(|(c, v)| c * v).sum::<f64>();
    let interval = |weights: &[(usize, f64)]| {
        let mut c: Vec<f64> = base.iter().map(|b| -b).collect();
        for &(k, w) in weights {
            c[k] += w;
        }
        let v: f64 = (0..m)
            .map(|a| (0..m).map(|b| c[a] * covariance[a][b] * c[b]).sum::<f64>())
            .sum();
        1.96 * v.max(0.0).sqrt()
    };
    let contrast = |weights: &[(usize, f64)]| {
        let v: f64 = (0..m)
            .map(|a| {
                let c: f64 = weights.iter().filter(|w| w.0 == a).map(|w| w.1).sum();
                (0..m)
                    .map(|b| {
                        let d: f64 = weights.iter().filter(|w| w.0 == b).map(|w| w.1).sum();
                        c * covariance[a][b] * d
                    })
                    .sum::<f64>()
            })
            .sum();
        1.96 * v.max(0.0).sqrt()
    };
    Sided {
        goats: (0..n).map(|k| x[k] + shift).collect(),
        tigers: (0..n).map(|k| x[n + k] + shift).collect(),
        mean: (0..n).map(|k| (x[k] + x[n + k]) / 2.0 + shift).collect(),
        goats_errors: (0..n).map(|k| interval(&[(k, 1.0)])).collect(),
        tigers_errors: (0..n).map(|k| interval(&[(n + k, 1.0)])).collect(),
        mean_errors: (0..n)
            .map(|k| interval(&[(k, 0.5), (n + k, 0.5)]))
            .collect(),
        gap_errors: (0..n)
            .map(|k| match k {
                0 => 0.0,
                k => contrast(&[(k, 0.5), (n + k, 0.5), (k - 1, -0.5), (n + k - 1, -0.5)]),
            })
            .collect(),
    }
}

/// The pseudo-inverse of an information matrix whose null space is the
/// ratings' common shift (ones on the first `n` coordinates):
/// (H + uuᵀ)⁻¹ − uuᵀ with u that shift, normalised.
fn pinv(h: &[Vec<f64>], n: usize) -> Vec<Vec<f64>> {
    let j = 1.0 / n as f64;
    let shift = |a: usize, b: usize| if a < n && b < n { j } else { 0.0 };
    let shifted: Vec<Vec<f64>> = h
        .iter()
        .enumerate()
        .map(|(a, row)| {
            row.iter()
                .enumerate()
                .map(|(b, x)| x + shift(a, b))
                .collect()
        })
        .collect();
    let mut inverse = invert(&shifted);
    for (a, row) in inverse.iter_mut().enumerate() {
        for (b, x) in row.iter_mut().enumerate() {
            *x -= shift(a, b);
        }
    }
    inverse
}

/// Gauss-Jordan inversion with partial pivoting.
fn invert(m: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let n = m.len();
    let mut a: Vec<Vec<f64>> = m
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let mut r = row.clone();
            r.extend((0..n).map(|k| if k == i { 1.0 } else { 0.0 }));
            r
        })
        .collect();
    for col in 0..n {
        let pivot = (col..n)
            .max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))
            .expect("a row");
        a.swap(col, pivot);
        let p = a[col][col];
        for x in a[col].iter_mut() {
            *x /= p;
        }
        for row in 0..n {
            if row != col {
                let factor = a[row][col];
                if factor != 0.0 {
                    let pivot_row = a[col].clone();
                    for (x, y) in a[row].iter_mut().zip(pivot_row) {
                        *x -= factor * y;
                    }
                }
            }
        }
    }
    a.into_iter().map(|row| row[n..].to_vec()).collect()
}

/// The product of a matrix and a vector.
fn multiply(m: &[Vec<f64>], v: &[f64]) -> Vec<f64> {
    m.iter()
        .map(|row| row.iter().zip(v).map(|(a, b)| a * b).sum())
        .collect()
}

/// A weighted least-squares cubic through points `(x, y, σ)`, each
/// weighted by 1/σ².
#[derive(Clone, Copy, Debug)]
pub(super) struct Curve {
    /// Coefficients of 1, u, u², u³ with u = (x - centre) / scale.
    coefficients: [f64; 4],
    centre: f64,
    scale: f64,
}

impl Curve {
    /// The fit; `None` with fewer than four points.
    pub fn fit(points: &[(f64, f64, f64)]) -> Option<Curve> {
        if points.len() < 4 {
            return None;
        }
        let (lo, hi) = points
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
                (lo.min(p.0), hi.max(p.0))
            });
        let centre = (lo + hi) / 2.0;
        let scale = ((hi - lo) / 2.0).max(f64::EPSILON);
        let mut normal = vec![vec![0.0; 4]; 4];
        let mut right = vec![0.0; 4];
        for &(x, y, sigma) in points {
            let w = 1.0 / (sigma * sigma).max(1e-9);
            let u = (x - centre) / scale;
            let powers = [1.0, u, u * u, u * u * u];
            for a in 0..4 {
                right[a] += w * powers[a] * y;
                for b in 0..4 {
                    normal[a][b] += w * powers[a] * powers[b];
                }
            }
        }
        let c = multiply(&invert(&normal), &right);
        Some(Curve {
            coefficients: [c[0], c[1], c[2], c[3]],
            centre,
            scale,
        })
    }

    /// The curve's value at `x`.
    pub fn at(&self, x: f64) -> f64 {
        let u = (x - self.centre) / self.scale;
        self.coefficients
            .iter()
            .rev()
            .fold(0.0, |acc, &c| acc * u + c)
    }
}

/// Why the labels could not be placed.
#[derive(Debug, PartialEq)]
pub(super) enum PlaceError {
    /// Fewer than four points were played.
    TooFewPoints,
    /// The fitted curve falls somewhere between the weakest and the
    /// strongest point (more games are needed).
    NotIncreasing { at: f64 },
    /// The points played span fewer Elo than the labels need.
    TooNarrow { span: f64, needed: f64 },
}

impl fmt::Display for PlaceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlaceError::TooFewPoints => f.write_str("placing the labels needs at least four points"),
            PlaceError::NotIncreasing { at } => write!(
                f,
                "the fitted curve falls near s = {at:.2}: play more games per pair"
            ),
            PlaceError::TooNarrow { span, needed } => write!(
                f,
                "the points played span {span:.0} Elo of the {needed:.0} the labels need: add weaker points"
            ),
        }
    }
}

/// Places `labels` labels `step` Elo apart on the path: a cubic through
/// the ratings of the points played at `strengths` (weighted by their
/// error bars), the top label at the strongest point, and each lower
/// label where the curve stands `step` Elo below the next. Returns the
/// curve and the labels' strengths, weakest first.
pub(super) fn place(
    strengths: &[f64],
    fit: &Fit,
    labels: usize,
    step: f64,
) -> Result<(Curve, Vec<f64>), PlaceError> {
    let points: Vec<(f64, f64, f64)> = strengths
        .iter()
        .zip(&fit.ratings)
        .zip(&fit.errors)
        .map(|((&s, &r), &e)| (s, r, e / 1.96))
        .collect();
    let curve = Curve::fit(&points).ok_or(PlaceError::TooFewPoints)?;
    let lo = strengths.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = strengths.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    const SAMPLES: usize = 1000;
    let x = |i: usize| lo + (hi - lo) * i as f64 / SAMPLES as f64;
    if let Some(i) = (1..=SAMPLES).find(|&i| curve.at(x(i)) <= curve.at(x(i - 1))) {
        return Err(PlaceError::NotIncreasing { at: x(i) });
    }
    let top = curve.at(hi);
    let needed = step * (labels - 1) as f64;
    if top - curve.at(lo) < needed {
        return Err(PlaceError::TooNarrow {
            span: top - curve.at(lo),
            needed,
        });
    }
    let placed = (0..labels)
        .map(|k| {
            let target = top - step * (labels - 1 - k) as f64;
            // Bisection on the increasing curve.
            let (mut a, mut b) = (lo, hi);
            for _ in 0..60 {
                let m = (a + b) / 2.0;
                if curve.at(m) < target {
                    a = m;
                } else {
                    b = m;
                }
            }
            (a + b) / 2.0
        })
        .collect();
    Ok((curve, placed))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fit_of(ratings: Vec<f64>) -> Fit {
        let n = ratings.len();
        Fit {
            ratings,
            errors: vec![50.0; n],
            gap_errors: vec![0.0; n],
            goat_edge: 0.0,
        }
    }

    #[test]
    fn the_cubic_goes_through_a_cubic() {
        let f = |x: f64| 3.0 + 2.0 * x - 0.5 * x * x + 0.1 * x * x * x;
        let points: Vec<(f64, f64, f64)> = (0..8).map(|i| (i as f64, f(i as f64), 1.0)).collect();
        let curve = Curve::fit(&points).unwrap();
        for x in [0.0, 1.5, 4.2, 7.0] {
            assert!((curve.at(x) - f(x)).abs() < 1e-6, "{x}");
        }
        assert!(Curve::fit(&points[..3]).is_none());
    }

    #[test]
    fn labels_land_where_a_straight_rating_line_is_100_elo_apart() {
        // 80 Elo per unit of strength, from s = 0 to 30.
        let strengths: Vec<f64> = (0..=30).map(f64::from).collect();
        let fit = fit_of(strengths.iter().map(|s| 80.0 * s).collect());
        let (_, placed) = place(&strengths, &fit, 21, 100.0).unwrap();
        assert_eq!(placed.len(), 21);
        assert!((placed[20] - 30.0).abs() < 1e-6);
        for (k, s) in placed.iter().enumerate() {
            let expected = 30.0 - 1.25 * (20 - k) as f64;
            assert!((s - expected).abs() < 1e-6, "{k}: {s}");
        }
    }

    #[test]
    fn a_flat_top_pushes_the_labels_below_it_down_the_path() {
        // Rising 100 Elo per unit to s = 20, then only 20 per unit.
        let strengths: Vec<f64> = (0..=25).map(f64::from).collect();
        let rating = |s: f64| {
            if s <= 20.0 {
                100.0 * s
            } else {
                2000.0 + 20.0 * (s - 20.0)
            }
        };
        let fit = fit_of(strengths.iter().map(|&s| rating(s)).collect());
        let (_, placed) = place(&strengths, &fit, 5, 100.0).unwrap();
        // The second label sits about 100 Elo below the top: far below
        // s = 24, where a straight line would put it.
        assert!(placed[3] < 22.5, "{placed:?}");
        assert!(placed.windows(2).all(|w| w[0] < w[1]), "{placed:?}");
    }

    #[test]
    fn placing_refuses_a_narrow_or_falling_curve() {
        let strengths: Vec<f64> = (0..10).map(f64::from).collect();
        let narrow = fit_of(strengths.iter().map(|s| 10.0 * s).collect());
        assert!(matches!(
            place(&strengths, &narrow, 21, 100.0),
            Err(PlaceError::TooNarrow { .. })
        ));
        let falling = fit_of(strengths.iter().map(|s| 500.0 - 300.0 * s).collect());
        assert!(matches!(
            place(&strengths, &falling, 3, 100.0),
            Err(PlaceError::NotIncreasing { .. })
        ));
        assert_eq!(
            place(&strengths[..3], &narrow, 3, 100.0).err(),
            Some(PlaceError::TooFewPoints)
        );
    }
}
