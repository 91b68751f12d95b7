//! Properties of the game update, named as sentences: the side advantage,
//! symmetry, the floor, provisional ratings and extreme inputs.

mod common;

use baghchal_rating::{
    rate, Outcome, Rating, SideAdvantage, DEVIATION_CAP, DEVIATION_FLOOR, START_DEVIATION,
};
use common::Rng;

const OUTCOMES: [Outcome; 3] = [Outcome::GoatsWin, Outcome::TigersWin, Outcome::Draw];

fn at(rating: f64, deviation: f64, volatility: f64) -> Rating {
    Rating {
        rating,
        deviation,
        volatility,
    }
}

#[test]
fn at_equal_ratings_the_favoured_side_gains_less_for_a_win_than_the_other_side() {
    for rating in [800.0, 1500.0, 2200.0] {
        for deviation in [45.0, 80.0, 200.0, 500.0] {
            let even = at(rating, deviation, 0.06);
            for points in [50.0, 320.0, 600.0] {
                let adv = SideAdvantage::tigers(points);
                let goats_won = rate(even, even, Outcome::GoatsWin, adv);
                let tigers_won = rate(even, even, Outcome::TigersWin, adv);
                let goats_gain = goats_won.goats.rating - rating;
                let tigers_gain = tigers_won.tigers.rating - rating;
                assert!(tigers_gain > 0.0 && goats_gain > tigers_gain);
                // And the loser of the favoured side loses more.
                assert!(rating - goats_won.tigers.rating > rating - tigers_won.goats.rating);
            }
        }
    }
}

#[test]
fn with_the_goats_favoured_the_goats_gain_less_for_a_win() {
    let even = at(1500.0, 80.0, 0.06);
    let adv = SideAdvantage::tigers(-200.0);
    let goats_won = rate(even, even, Outcome::GoatsWin, adv);
    let tigers_won = rate(even, even, Outcome::TigersWin, adv);
    assert!(goats_won.goats.rating - 1500.0 < tigers_won.tigers.rating - 1500.0);
}

#[test]
fn swapping_the_sides_with_the_advantage_negated_gives_the_mirrored_result() {
    let mut rng = Rng::new(7);
    for _ in 0..2000 {
        let a = at(
            rng.between(0.0, 4000.0),
            rng.between(45.0, 500.0),
            rng.between(0.01, 0.2),
        );
        let b = at(
            rng.between(0.0, 4000.0),
            rng.between(45.0, 500.0),
            rng.between(0.01, 0.2),
        );
        let adv = SideAdvantage::tigers(rng.between(-600.0, 600.0));
        for outcome in OUTCOMES {
            let straight = rate(a, b, outcome, adv);
            let swapped = rate(b, a, outcome.swapped(), adv.negated());
            assert_eq!(straight.goats, swapped.tigers);
            assert_eq!(straight.tigers, swapped.goats);
        }
    }
}

#[test]
fn without_an_advantage_a_draw_between_equals_changes_no_rating() {
    let even = at(1700.0, 120.0, 0.06);
    let rated = rate(even, even, Outcome::Draw, SideAdvantage::NONE);
    assert!((rated.goats.rating - 1700.0).abs() < 1e-9);
    assert!((rated.tigers.rating - 1700.0).abs() < 1e-9);
    assert!(rated.goats.deviation < 120.0);
}

#[test]
fn with_the_advantage_a_draw_between_equals_moves_points_to_the_goats() {
    let even = at(1700.0, 120.0, 0.06);
    let rated = rate(even, even, Outcome::Draw, SideAdvantage::SELF_PLAY);
    assert!(rated.goats.rating > 1700.0 && rated.tigers.rating < 1700.0);
}

#[test]
fn a_win_never_lowers_a_rating_and_a_loss_never_raises_one() {
    let mut rng = Rng::new(11);
    for _ in 0..5000 {
        let goats = at(
            rng.between(0.0, 4000.0),
            rng.between(45.0, 500.0),
            rng.between(0.001, 0.5),
        );
        let tigers = at(
            rng.between(0.0, 4000.0),
            rng.between(45.0, 500.0),
            rng.between(0.001, 0.5),
        );
        let adv = SideAdvantage::tigers(rng.between(-500.0, 500.0));
        let won = rate(goats, tigers, Outcome::GoatsWin, adv);
        assert!(won.goats.rating >= goats.rating && won.tigers.rating <= tigers.rating);
        let lost = rate(goats, tigers, Outcome::TigersWin, adv);
        assert!(lost.goats.rating <= goats.rating && lost.tigers.rating >= tigers.rating);
    }
}

#[test]
fn no_deviation_falls_below_the_floor_however_many_games_are_played() {
    let mut player = at(1500.0, 300.0, 0.01);
    let opponent = at(1500.0, DEVIATION_FLOOR, 0.01);
    let mut reached = false;
    for game in 0..300 {
        let outcome = OUTCOMES[game % 3];
        player = rate(player, opponent, outcome, SideAdvantage::NONE).goats;
        assert!(player.deviation >= DEVIATION_FLOOR);
        reached |= player.deviation == DEVIATION_FLOOR;
    }
    assert!(reached, "{player:?}");
}

#[test]
fn a_rating_below_the_floor_is_read_at_the_floor() {
    let shaky = at(1500.0, 1.0, 0.06);
    let rated = rate(shaky, shaky, Outcome::Draw, SideAdvantage::NONE);
    assert_eq!(rated.goats_before.deviation, DEVIATION_FLOOR);
    assert!(rated.goats.deviation >= DEVIATION_FLOOR);
}

/// The figure `docs/ratings.md` quotes: a new player who scores as
/// expected against established players (1500, deviation 60) leaves
/// provisional after this many games.
#[test]
fn a_new_player_leaves_provisional_after_a_dozen_games_or_so() {
    let opponent = at(1500.0, 60.0, 0.06);
    let mut player = Rating::default();
    let mut games = 0;
    while player.is_provisional() {
        let outcome = OUTCOMES[games % 2];
        player = rate(player, opponent, outcome, SideAdvantage::NONE).goats;
        games += 1;
        assert!(games < 100);
    }
    assert!((8..=16).contains(&games), "{games}");
    eprintln!("provisional for {games} games; then {player:?}");
}

/// The figure `DEVIATION_FLOOR`'s documentation quotes: every game is a
/// rating period, so a player who keeps playing settles where a period's
/// widening (the volatility) balances a game's information.
#[test]
fn an_active_players_deviation_settles_above_the_floor_at_an_ordinary_volatility() {
    let settled = |volatility| {
        let opponent = at(1500.0, 60.0, 0.06);
        let mut player = at(1500.0, 200.0, volatility);
        for game in 0..400 {
            player = rate(player, opponent, OUTCOMES[game % 2], SideAdvantage::NONE).goats;
        }
        eprintln!("after 400 games: {player:?}");
        player.deviation
    };
    assert!((58.0..=62.0).contains(&settled(0.06)));
    assert!((70.0..=76.0).contains(&settled(0.09)));
}

#[test]
fn extreme_inputs_never_give_a_nan_or_an_infinite_rating() {
    let ratings = [0.0, 1.0, 1500.0, 3999.0, 4000.0, -1e9, 1e300, f64::NAN];
    let deviations = [0.0, 45.0, 110.0, 499.0, 500.0, 1e9, f64::INFINITY];
    let volatilities = [0.0, 1e-300, 1e-9, 0.06, 1.0, 10.0, f64::NAN];
    let advantages = [0.0, 320.0, -4000.0, 1e12, f64::NAN];
    for r in ratings {
        for d in deviations {
            for v in volatilities {
                for (other_r, other_d) in [(0.0, 45.0), (4000.0, 45.0), (1500.0, 500.0)] {
                    for adv in advantages {
                        for outcome in OUTCOMES {
                            let rated = rate(
                                at(r, d, v),
                                at(other_r, other_d, 0.06),
                                outcome,
                                SideAdvantage::tigers(adv),
                            );
                            for after in [rated.goats, rated.tigers] {
                                assert!(after.rating.is_finite(), "{r} {d} {v} {adv}: {after:?}");
                                assert!(
                                    (DEVIATION_FLOOR..=DEVIATION_CAP).contains(&after.deviation),
                                    "{r} {d} {v} {adv}: {after:?}"
                                );
                                assert!(after.volatility.is_finite() && after.volatility > 0.0);
                            }
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn idle_time_before_a_game_makes_the_game_count_for_more() {
    let player = at(1600.0, 60.0, 0.06);
    let opponent = at(1600.0, 60.0, 0.06);
    let fresh = rate(player, opponent, Outcome::GoatsWin, SideAdvantage::NONE);
    let rusty = rate(
        player.after_idle(200.0),
        opponent,
        Outcome::GoatsWin,
        SideAdvantage::NONE,
    );
    assert!(rusty.goats.rating > fresh.goats.rating);
    assert!(player.after_idle(1e6).deviation == START_DEVIATION);
}

/// The examples `docs/ratings.md` quotes (`cargo test -p baghchal-rating
/// --test properties examples -- --nocapture` prints them).
#[test]
fn the_examples_in_the_ratings_document_hold() {
    let established = at(1500.0, 60.0, 0.06);
    let moved = |outcome, adv| rate(established, established, outcome, adv).goats.rating - 1500.0;
    let adv = SideAdvantage::SELF_PLAY;
    let (win, draw, loss) = (
        moved(Outcome::GoatsWin, adv),
        moved(Outcome::Draw, adv),
        moved(Outcome::TigersWin, adv),
    );
    let plain = moved(Outcome::GoatsWin, SideAdvantage::NONE);
    eprintln!("equals at 1500/60/0.06, advantage 320: goats' win {win:.1}, draw {draw:.1}, tigers' win {loss:.1}; no advantage: {plain:.1}");
    assert!((win - 17.8).abs() < 0.05 && (draw - 7.4).abs() < 0.05 && (loss + 2.9).abs() < 0.05);
    assert!((plain - 10.2).abs() < 0.05);

    let stronger = at(1820.0, 60.0, 0.06);
    let even = rate(stronger, established, Outcome::GoatsWin, adv);
    eprintln!("1820 as the goats beats 1500: {}", even.goats_change());
    assert_eq!(even.goats_change().0, 10);

    let new_as_goats = rate(Rating::default(), established, Outcome::GoatsWin, adv);
    let new_as_tigers = rate(established, Rating::default(), Outcome::TigersWin, adv);
    eprintln!(
        "a new player's first win against 1500/60: as the goats {}, as the tigers {}",
        new_as_goats.goats_change(),
        new_as_tigers.tigers_change()
    );
    assert_eq!(new_as_goats.goats_change().0, 618);
    assert_eq!(new_as_tigers.tigers_change().0, 101);

    let days_to_provisional = |rating: Rating| {
        (0..10_000)
            .find(|&days| rating.after_idle(f64::from(days)).is_provisional())
            .unwrap()
    };
    let slow = days_to_provisional(at(1500.0, 60.0, 0.06));
    let fast = days_to_provisional(at(1500.0, 74.0, 0.09));
    eprintln!("provisional again after {slow} days (60, 0.06), {fast} days (74, 0.09)");
    assert_eq!((slow, fast), (365, 127));
}
