//! The side advantage's estimator: it recovers a known advantage from
//! synthetic games, and it reproduces the self-play ladder's side term from
//! the ladder's own table (`tests/data/ladder-2031.txt`, copied from
//! `docs/strength.md`).

mod common;

use baghchal_rating::{expected_goats_score, Outcome, RatedGame, Rating, SideAdvantage};
use common::Rng;

fn sure(rating: f64) -> Rating {
    Rating {
        rating,
        deviation: 0.0,
        volatility: 0.06,
    }
}

/// Games between random ratings whose goats' expected score is
/// `expected_goats_score` at the true advantage; about one game in ten
/// near even odds is drawn, without changing the expectation.
fn synthetic(
    rng: &mut Rng,
    truth: SideAdvantage,
    games: usize,
    deviations: bool,
) -> Vec<RatedGame> {
    (0..games)
        .map(|_| {
            let mut player = || Rating {
                rating: rng.between(800.0, 2200.0),
                deviation: if deviations {
                    rng.between(45.0, 300.0)
                } else {
                    0.0
                },
                volatility: 0.06,
            };
            let (goats, tigers) = (player(), player());
            let p = expected_goats_score(&goats, &tigers, truth);
            let draw = (2.0 * p.min(1.0 - p)).min(0.1);
            let u = rng.unit();
            let outcome = if u < p - draw / 2.0 {
                Outcome::GoatsWin
            } else if u < p + draw / 2.0 {
                Outcome::Draw
            } else {
                Outcome::TigersWin
            };
            RatedGame {
                goats,
                tigers,
                outcome,
            }
        })
        .collect()
}

#[test]
fn the_estimator_recovers_a_known_advantage_from_5000_synthetic_games_within_25_points() {
    let mut rng = Rng::new(2026);
    for deviations in [false, true] {
        for truth in [-150.0, 0.0, 320.0, 500.0] {
            let games = synthetic(&mut rng, SideAdvantage::tigers(truth), 5000, deviations);
            let estimate = SideAdvantage::estimate(&games).unwrap();
            let error = estimate.advantage.points() - truth;
            eprintln!(
                "truth {truth:4}, deviations {deviations:5}: estimate {:.1} ± {:.1}",
                estimate.advantage.points(),
                estimate.standard_error
            );
            assert!(error.abs() < 25.0, "{truth}: {estimate:?}");
            assert!(
                error.abs() < 4.0 * estimate.standard_error,
                "{truth}: {estimate:?}"
            );
            assert!(estimate.standard_error < 12.0, "{estimate:?}");
        }
    }
}

#[test]
fn the_standard_error_shrinks_as_the_square_root_of_the_games() {
    let mut rng = Rng::new(3);
    let truth = SideAdvantage::SELF_PLAY;
    let few = SideAdvantage::estimate(&synthetic(&mut rng, truth, 1000, false)).unwrap();
    let many = SideAdvantage::estimate(&synthetic(&mut rng, truth, 16_000, false)).unwrap();
    let ratio = few.standard_error / many.standard_error;
    assert!((3.6..4.4).contains(&ratio), "{ratio}");
}

#[test]
fn a_one_sided_record_gives_a_finite_estimate_on_that_side() {
    let game = |outcome| RatedGame {
        goats: sure(1500.0),
        tigers: sure(1500.0),
        outcome,
    };
    let all_tigers = SideAdvantage::estimate(&[game(Outcome::TigersWin); 20]).unwrap();
    assert!(all_tigers.advantage.points() > 1000.0);
    assert!(all_tigers.advantage.points().is_finite());
    let all_goats = SideAdvantage::estimate(&[game(Outcome::GoatsWin); 20]).unwrap();
    assert!(all_goats.advantage.points() < -1000.0);
}

/// One level of the ladder table.
struct Level {
    rating: f64,
    goats: [u32; 3],
    tigers: [u32; 3],
}

fn ladder() -> Vec<Level> {
    include_str!("data/ladder-2031.txt")
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let record = |text: &str| {
                let n: Vec<u32> = text.split('-').map(|n| n.parse().unwrap()).collect();
                [n[0], n[1], n[2]]
            };
            Level {
                rating: fields[1].parse().unwrap(),
                goats: record(fields[2]),
                tigers: record(fields[3]),
            }
        })
        .collect()
}

/// The levels a level played, 4 games with each side against each.
fn opponents(levels: &[Level], i: usize) -> impl Iterator<Item = usize> + '_ {
    (0..levels.len()).filter(move |&j| j != i && i.abs_diff(j) <= 2)
}

/// The ladder's games with the goats' player at one of `goats_levels`.
/// The table gives each level's record as the goats, not by opponent;
/// with every deviation 0 the estimate depends on the results only
/// through the goats' total score, so the wins and draws may be laid on
/// any of the level's games.
fn ladder_games(levels: &[Level], goats_levels: std::ops::Range<usize>) -> Vec<RatedGame> {
    let mut games = Vec::new();
    for i in goats_levels {
        let [wins, draws, losses] = levels[i].goats;
        let mut outcomes = std::iter::repeat_n(Outcome::GoatsWin, wins as usize)
            .chain(std::iter::repeat_n(Outcome::Draw, draws as usize))
            .chain(std::iter::repeat_n(Outcome::TigersWin, losses as usize));
        for j in opponents(levels, i) {
            for _ in 0..4 {
                games.push(RatedGame {
                    goats: sure(levels[i].rating),
                    tigers: sure(levels[j].rating),
                    outcome: outcomes
                        .next()
                        .expect("the record has a game for each pairing"),
                });
            }
        }
        assert!(outcomes.next().is_none(), "the record has no game too many");
    }
    games
}

#[test]
fn the_ladder_table_is_consistent_with_its_pairings() {
    let levels = ladder();
    assert_eq!(levels.len(), 21);
    let total: usize = (0..levels.len())
        .map(|i| {
            let played = 4 * opponents(&levels, i).count() as u32;
            assert_eq!(levels[i].goats.iter().sum::<u32>(), played);
            assert_eq!(levels[i].tigers.iter().sum::<u32>(), played);
            played as usize
        })
        .sum();
    assert_eq!(total, 312);
    assert_eq!(ladder_games(&levels, 0..levels.len()).len(), 312);
}

/// `docs/ratings.md`'s figures: `cargo test -p baghchal-rating --test
/// advantage ladder -- --nocapture` prints them.
#[test]
fn the_estimate_from_the_ladder_matches_the_ladders_own_side_term() {
    let levels = ladder();
    let all = SideAdvantage::estimate(&ladder_games(&levels, 0..21)).unwrap();
    eprintln!(
        "ladder, all 312 games: {:.1} ± {:.1} (95%: ± {:.0})",
        all.advantage.points(),
        all.standard_error,
        1.96 * all.standard_error
    );
    // The tournament's joint fit reports −322 for the goats.
    assert!((all.advantage.points() - 322.0).abs() < 2.0, "{all:?}");

    // The same advantage holds along the ladder: the goats' player's level
    // in thirds.
    for band in [0..7, 7..14, 14..21] {
        let part = SideAdvantage::estimate(&ladder_games(&levels, band.clone())).unwrap();
        eprintln!(
            "ladder, goats at levels {}-{} ({} games): {:.1} ± {:.1}",
            400 + 100 * band.start,
            300 + 100 * band.end,
            part.games,
            part.advantage.points(),
            part.standard_error
        );
        let apart = part.advantage.points() - all.advantage.points();
        assert!(
            apart.abs() < 2.0 * part.standard_error,
            "{band:?}: {part:?}"
        );
    }
}

/// Whether one advantage for everyone is enough, or players differ in how
/// much better they are with one side. A level played the same opponents
/// with each side, so take its surplus as the goats less its surplus as
/// the tigers (each surplus being the score less what one rating and the
/// common advantage predict): an error in the level's rating moves both
/// surpluses the same way and cancels from the difference, while a side
/// skill of its own would not. Pearson's χ² of those differences over the
/// 21 levels is compared with the 95% point of χ² with 20 degrees of
/// freedom (21 levels, one advantage fitted), 31.41.
#[test]
fn the_ladder_shows_no_side_skill_beyond_the_common_advantage() {
    let levels = ladder();
    let all = SideAdvantage::estimate(&ladder_games(&levels, 0..21)).unwrap();
    let score = |record: [u32; 3]| f64::from(record[0]) + 0.5 * f64::from(record[1]);
    let mut chi2 = 0.0;
    for (i, level) in levels.iter().enumerate() {
        let (mut surplus, mut variance) = (score(level.goats) - score(level.tigers), 0.0);
        for j in opponents(&levels, i) {
            let (me, them) = (sure(level.rating), sure(levels[j].rating));
            let as_goats = expected_goats_score(&me, &them, all.advantage);
            let as_tigers = 1.0 - expected_goats_score(&them, &me, all.advantage);
            surplus -= 4.0 * (as_goats - as_tigers);
            variance += 4.0 * (as_goats * (1.0 - as_goats) + as_tigers * (1.0 - as_tigers));
        }
        chi2 += surplus * surplus / variance;
    }
    eprintln!(
        "per-level side surpluses against one advantage: χ² = {chi2:.1} on 20 degrees of freedom"
    );
    assert!(chi2 < 31.41, "{chi2}");
}
