//! Agreement with a second implementation: the `skillratings` crate's
//! Glicko-2 on random seeded games, with the side advantage set to 0.

mod common;

use baghchal_rating::{rate, Outcome, PeriodResult, Rating, SideAdvantage, TAU};
use common::Rng;
use skillratings::glicko2::{glicko2, glicko2_rating_period, Glicko2Config, Glicko2Rating};
use skillratings::Outcomes;

/// A random rating whose deviation stays above the floor after one game,
/// so that both implementations compute the same thing.
fn random_rating(rng: &mut Rng) -> Rating {
    Rating {
        rating: rng.between(600.0, 2600.0),
        deviation: rng.between(60.0, 350.0),
        volatility: rng.between(0.03, 0.12),
    }
}

fn theirs(r: &Rating) -> Glicko2Rating {
    Glicko2Rating {
        rating: r.rating,
        deviation: r.deviation,
        volatility: r.volatility,
    }
}

fn random_outcome(rng: &mut Rng) -> Outcome {
    match rng.next_u64() % 3 {
        0 => Outcome::GoatsWin,
        1 => Outcome::TigersWin,
        _ => Outcome::Draw,
    }
}

fn assert_same(ours: &Rating, other: &Glicko2Rating, what: &str) {
    assert!(
        (ours.rating - other.rating).abs() < 1e-6,
        "{what}: {ours:?} {other:?}"
    );
    assert!(
        (ours.deviation - other.deviation).abs() < 1e-6,
        "{what}: {ours:?} {other:?}"
    );
    assert!(
        (ours.volatility - other.volatility).abs() < 1e-9,
        "{what}: {ours:?} {other:?}"
    );
}

#[test]
fn single_games_rate_as_skillratings_rates_them_when_the_advantage_is_zero() {
    let config = Glicko2Config {
        tau: TAU,
        convergence_tolerance: 1e-6,
    };
    let mut rng = Rng::new(2031);
    for game in 0..10_000 {
        let goats = random_rating(&mut rng);
        let tigers = random_rating(&mut rng);
        let outcome = random_outcome(&mut rng);
        let ours = rate(goats, tigers, outcome, SideAdvantage::NONE);
        let their_outcome = match outcome {
            Outcome::GoatsWin => Outcomes::WIN,
            Outcome::TigersWin => Outcomes::LOSS,
            Outcome::Draw => Outcomes::DRAW,
        };
        let (their_goats, their_tigers) =
            glicko2(&theirs(&goats), &theirs(&tigers), &their_outcome, &config);
        assert_same(&ours.goats, &their_goats, &format!("game {game}, goats"));
        assert_same(&ours.tigers, &their_tigers, &format!("game {game}, tigers"));
    }
}

#[test]
fn rating_periods_of_many_games_agree_with_skillratings() {
    let mut rng = Rng::new(18);
    for tau in [0.3, 0.5, 0.75, 1.2] {
        let config = Glicko2Config {
            tau,
            convergence_tolerance: 1e-6,
        };
        for period in 0..500 {
            let player = random_rating(&mut rng);
            let games = (rng.next_u64() % 12) as usize;
            let mut ours = Vec::new();
            let mut other = Vec::new();
            for _ in 0..games {
                let opponent = random_rating(&mut rng);
                let (score, outcome) = match rng.next_u64() % 3 {
                    0 => (1.0, Outcomes::WIN),
                    1 => (0.0, Outcomes::LOSS),
                    _ => (0.5, Outcomes::DRAW),
                };
                ours.push(PeriodResult {
                    opponent,
                    score,
                    advantage: 0.0,
                });
                other.push((theirs(&opponent), outcome));
            }
            let mine = player.after_period(&ours, tau);
            let theirs = glicko2_rating_period(&theirs(&player), &other, &config);
            if games == 0 {
                // skillratings caps an idle period's deviation at 350,
                // this crate at 500: below 350 they agree.
                assert_eq!(mine.rating, theirs.rating);
                if theirs.deviation < 350.0 {
                    assert!((mine.deviation - theirs.deviation).abs() < 1e-9);
                }
                continue;
            }
            assert_same(&mine, &theirs, &format!("τ {tau}, period {period}"));
        }
    }
}
