//! Fitting the evaluation's weights to game results, after Texel's
//! method: a logistic regression of each game's result on the terms that
//! the evaluation counts, over the positions of the game where the
//! evaluation is what the search would use.
//!
//! The regression predicts the tigers' score (1 for a win, ½ for a draw,
//! 0 for a loss) from the goats eaten and the evaluation's terms, plus the
//! goats in hand and the side to move, which absorb how far the game has
//! gone (they are the same for every action compared at one node, so the
//! evaluation leaves them out). Each phase has its own coefficients and
//! both share one intercept; each phase's weights are scaled so that a
//! goat eaten is worth [`GOAT`](crate::eval::GOAT).

use std::fmt;

use baghchal_rules::{Game, Phase, Position, Rules, Side};
use baghchal_tablebase::{Tablebase, Wdl};

use crate::board::Board;
use crate::eval::{self, Weights, GOAT, TERMS};

/// Regression inputs of a position: goats eaten, the terms, goats in hand
/// and the tigers to move.
const INPUTS: usize = TERMS.len() + 3;
/// The ridge on every coefficient, for inputs that never vary (goats in
/// hand in the movement phase).
const RIDGE: f64 = 1e-3;

/// Positions of finished games, gathered for [`Tuner::fit`].
#[derive(Default)]
pub struct Tuner {
    /// (in the placement phase, inputs, the tigers' score).
    samples: Vec<(bool, [f64; INPUTS], f64)>,
    games: usize,
}

/// One phase's fit.
#[derive(Clone, Debug)]
pub struct PhaseFit {
    /// Positions the fit used.
    pub positions: usize,
    /// The fitted weights, in thousandths of a goat.
    weights: Weights,
    /// The mean log loss on those positions of the current weights, with
    /// their best scale and terms for the goats in hand and the side to
    /// move.
    pub current_loss: f64,
    /// The mean log loss on those positions of the fit.
    pub fitted_loss: f64,
}

/// The fits of both phases.
#[derive(Clone, Debug)]
pub struct Tuned {
    /// Games read.
    pub games: usize,
    /// While goats are still to be placed.
    pub placement: PhaseFit,
    /// Once every goat is placed.
    pub movement: PhaseFit,
}

impl Tuner {
    /// An empty tuner.
    pub fn new() -> Tuner {
        Tuner::default()
    }

    /// Adds the positions of a finished game of the house rules from ply
    /// `from` on (to skip an opening chosen at random) where the
    /// evaluation matters: the side to move is the goats or the tigers
    /// have no capture (the quiescence search would try it), and, with a
    /// tablebase, the position is in the placement phase or a draw of the
    /// tablebase (the search uses its wins and losses as they are).
    /// Returns the positions added; a game of other rules, or unfinished,
    /// adds none.
    ///
    /// ```
    /// use baghchal_engine::tune::Tuner;
    /// use baghchal_rules::{Game, Rules};
    ///
    /// let mut game = Game::new(Rules::default());
    /// for text in ["c1", "a1-b1", "c5", "b1-a1"] {
    ///     game.play(text.parse().unwrap()).unwrap();
    /// }
    /// let mut tuner = Tuner::new();
    /// assert_eq!(tuner.add_game(&game, None, 0), 0, "an unfinished game");
    /// game.resign(baghchal_rules::Side::Goat).unwrap();
    /// // The last position, the tigers to move with b1xd1 at hand, is
    /// // left to the quiescence search.
    /// assert_eq!(tuner.add_game(&game, None, 0), 3);
    /// ```
    pub fn add_game(&mut self, game: &Game, tablebase: Option<&Tablebase>, from: u16) -> usize {
        let Some(outcome) = game.outcome() else {
            return 0;
        };
        if *game.rules() != Rules::default() {
            return 0;
        }
        let result = match outcome.winner() {
            Some(Side::Tiger) => 1.0,
            Some(Side::Goat) => 0.0,
            None => 0.5,
        };
        self.games += 1;
        let mut added = 0;
        let mut position = game.start().clone();
        for &action in game.actions() {
            if position.ply() >= from {
                if let Some(inputs) = inputs(&position, tablebase) {
                    let placement = position.phase() == Phase::Placement;
                    self.samples.push((placement, inputs, result));
                    added += 1;
                }
            }
            position.play_unchecked(action);
        }
        added
    }

    /// Fits the weights of both phases: a block of coefficients each and
    /// one intercept. `None` with too few positions of either phase, or
    /// when the fit finds a goat eaten no help to the tigers.
    pub fn fit(&self) -> Option<Tuned> {
        let count = |phase: bool| self.samples.iter().filter(|s| s.0 == phase).count();
        if count(true) < 2 * INPUTS || count(false) < 2 * INPUTS {
            return None;
        }
        let block = |placement: bool, x: &[f64]| -> Vec<f64> {
            let mut joint = vec![0.0; 2 * x.len() + 1];
            let at = if placement { 0 } else { x.len() };
            joint[at..at + x.len()].copy_from_slice(x);
            joint[2 * x.len()] = 1.0;
            joint
        };
        let full: Vec<(bool, Vec<f64>, f64)> = self
            .samples
            .iter()
            .map(|(p, x, y)| (*p, block(*p, x), *y))
            .collect();
        // The current weights as one input per phase, with the same
        // goats-in-hand and side terms.
        let current: Vec<(bool, Vec<f64>, f64)> = self
            .samples
            .iter()
            .map(|(p, x, y)| {
                let w = eval::phase_weights(*p).to_array();
                let score = x[0]
                    + (0..TERMS.len())
                        .map(|k| w[k] as f64 * x[1 + k])
                        .sum::<f64>()
                        / GOAT as f64;
                (*p, block(*p, &[score, x[INPUTS - 2], x[INPUTS - 1]]), *y)
            })
            .collect();
        let fitted = logistic(&full)?;
        let was = logistic(&current)?;
        let phase = |placement: bool| -> Option<PhaseFit> {
            let coefficients = &fitted[if placement { 0 } else { INPUTS }..];
            let goat = coefficients[0];
            if goat <= 0.0 {
                return None;
            }
            let mut weights = [0; TERMS.len()];
            for (k, w) in weights.iter_mut().enumerate() {
                *w = (coefficients[1 + k] / goat * GOAT as f64).round() as i32;
            }
            Some(PhaseFit {
                positions: count(placement),
                weights: Weights::from_array(weights),
                current_loss: loss(&current, &was, placement),
                fitted_loss: loss(&full, &fitted, placement),
            })
        };
        Some(Tuned {
            games: self.games,
            placement: phase(true)?,
            movement: phase(false)?,
        })
    }
}

/// The regression inputs of `position`, if the evaluation matters there.
fn inputs(position: &Position, tablebase: Option<&Tablebase>) -> Option<[f64; INPUTS]> {
    let board = Board::new(position);
    let (eaten, counts) = eval::terms(&board);
    let threats = counts[TERMS.iter().position(|&t| t == "threat").expect("a term")];
    if position.side_to_move() == Side::Tiger && threats > 0 {
        return None;
    }
    if let Some(tablebase) = tablebase {
        if let Some(probe) = tablebase.probe(position) {
            if probe.wdl != Wdl::Draw {
                return None;
            }
        }
    }
    let mut x = [0.0; INPUTS];
    x[0] = eaten as f64;
    for (k, &c) in counts.iter().enumerate() {
        x[1 + k] = c as f64;
    }
    x[INPUTS - 2] = position.in_hand() as f64;
    x[INPUTS - 1] = (position.side_to_move() == Side::Tiger) as u8 as f64;
    Some(x)
}

/// The mean log loss of coefficients `w` on the samples of one phase.
fn loss(samples: &[(bool, Vec<f64>, f64)], w: &[f64], placement: bool) -> f64 {
    let (total, n) =
        samples
            .iter()
            .filter(|s| s.0 == placement)
            .fold((0.0, 0usize), |(total, n), (_, x, y)| {
                let z: f64 = x.iter().zip(w).map(|(a, b)| a * b).sum();
                let p = 1.0 / (1.0 + (-z).exp());
                let l = -(y * p.max(1e-12).ln() + (1.0 - y) * (1.0 - p).max(1e-12).ln());
                (total + l, n + 1)
            });
    total / n.max(1) as f64
}

/// Maximum-likelihood logistic regression by Newton's method, with a
/// small ridge: the coefficients, or `None` if the system cannot be
/// solved. The phase of each sample plays no part.
fn logistic(samples: &[(bool, Vec<f64>, f64)]) -> Option<Vec<f64>> {
    let d = samples.first()?.1.len();
    let mut w = vec![0.0; d];
    for _ in 0..50 {
        let mut gradient = vec![0.0; d];
        let mut hessian = vec![vec![0.0; d]; d];
        for (_, x, y) in samples {
            let z: f64 = x.iter().zip(&w).map(|(a, b)| a * b).sum();
            let p = 1.0 / (1.0 + (-z).exp());
            for i in (0..d).filter(|&i| x[i] != 0.0) {
                gradient[i] += (p - y) * x[i];
                for j in 0..d {
                    hessian[i][j] += p * (1.0 - p) * x[i] * x[j];
                }
            }
        }
        for (i, row) in hessian.iter_mut().enumerate() {
            row[i] += RIDGE;
        }
        let step = solve(hessian, gradient)?;
        let mut largest = 0.0f64;
        for (wi, si) in w.iter_mut().zip(&step) {
            *wi -= si;
            largest = largest.max(si.abs());
        }
        if largest < 1e-9 {
            break;
        }
    }
    Some(w)
}

/// Solves `a x = b` by Gaussian elimination with partial pivoting.
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let n = b.len();
    for col in 0..n {
        let pivot = (col..n).max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))?;
        if a[pivot][col].abs() < 1e-12 {
            return None;
        }
        a.swap(col, pivot);
        b.swap(col, pivot);
        let (done, rest) = a.split_at_mut(col + 1);
        let pivot_row = &done[col];
        for (r, row) in rest.iter_mut().enumerate() {
            let f = row[col] / pivot_row[col];
            if f != 0.0 {
                for (x, p) in row[col..].iter_mut().zip(&pivot_row[col..]) {
                    *x -= f * p;
                }
                b[col + 1 + r] -= f * b[col];
            }
        }
    }
    let mut x = vec![0.0; n];
    for row in (0..n).rev() {
        let rest: f64 = (row + 1..n).map(|k| a[row][k] * x[k]).sum();
        x[row] = (b[row] - rest) / a[row][row];
    }
    Some(x)
}

impl fmt::Display for Tuned {
    /// The fitted weights as the constants of `crates/engine/src/eval.rs`,
    /// with each phase's positions and log losses in a comment.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "// {} games", self.games)?;
        for (name, fit) in [("PLACEMENT", &self.placement), ("MOVEMENT", &self.movement)] {
            writeln!(
                f,
                "// {} positions; log loss {:.4} with the current weights, {:.4} fitted",
                fit.positions, fit.current_loss, fit.fitted_loss
            )?;
            writeln!(f, "pub(crate) const {name}: Weights = Weights {{")?;
            for (term, w) in TERMS.iter().zip(fit.weights.to_array()) {
                writeln!(f, "    {term}: {w},")?;
            }
            writeln!(f, "}};")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logistic_regression_recovers_the_coefficients_of_its_data() {
        // Scores drawn from a known model, as expected values.
        let mut samples = Vec::new();
        for a in -10..=10 {
            for b in 0..5 {
                let x = vec![a as f64 / 5.0, b as f64, 1.0];
                let z = 1.5 * x[0] - 0.5 * x[1] + 0.25;
                samples.push((true, x, 1.0 / (1.0 + (-z).exp())));
            }
        }
        let w = logistic(&samples).unwrap();
        for (got, want) in w.iter().zip([1.5, -0.5, 0.25]) {
            assert!((got - want).abs() < 1e-3, "{w:?}");
        }
    }

    #[test]
    fn tuning_random_games_fits_both_phases_and_beats_the_current_fit() {
        use rand::rngs::ChaCha8Rng;
        use rand::{RngExt, SeedableRng};
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut tuner = Tuner::new();
        for _ in 0..300 {
            let mut game = Game::new(Rules::default());
            while !game.is_finished() {
                let actions = game.position().legal_actions();
                game.play(actions[rng.random_range(0..actions.len())])
                    .unwrap();
            }
            tuner.add_game(&game, None, 2);
        }
        let tuned = tuner.fit().expect("positions of both phases");
        assert_eq!(tuned.games, 300);
        for fit in [&tuned.placement, &tuned.movement] {
            assert!(fit.positions > 500, "{fit:?}");
            // The fit includes the current weights as a special case.
            assert!(fit.fitted_loss <= fit.current_loss + 1e-9, "{fit:?}");
        }
        let text = tuned.to_string();
        assert!(text.starts_with("// 300 games\n"), "{text}");
        assert!(text.contains("pub(crate) const MOVEMENT: Weights = Weights {\n    mobility: "));
    }
}
