//! The game notations: every format writes a played game that reads back
//! to the same game, positions round-trip, and a bad text is refused with
//! its line, or with the ply and the rules' reason.

use baghchal_rules::notation::{self, obx, pypi, Format, NotationError};
use baghchal_rules::{Game, Position, Rules, RulesOptions};

/// A game of seeded random legal actions, to its end or `max` plies.
fn random_game(rules: Rules, seed: u64, max: usize) -> Game {
    let mut game = Game::new(rules);
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    while !game.is_finished() && game.actions().len() < max {
        let legal = game.position().legal_actions();
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let action = legal[(state >> 33) as usize % legal.len()];
        game.play(action).unwrap();
    }
    game
}

/// The positions a game goes through.
fn positions(game: &Game) -> Vec<Position> {
    let mut position = game.start().clone();
    let mut out = vec![position.clone()];
    for action in game.actions() {
        position.play_unchecked(*action);
        out.push(position.clone());
    }
    out
}

#[test]
fn every_format_reads_back_the_games_it_writes() {
    for seed in 0..40 {
        let game = random_game(Rules::default(), seed, 400);
        for format in Format::ALL {
            let text = notation::write(format, &game).unwrap();
            let read = notation::read(format, &text, Rules::default())
                .unwrap_or_else(|e| panic!("{format} of seed {seed}: {e}\n{text}"));
            assert_eq!(read.actions(), game.actions(), "{format}, seed {seed}");
            let boards =
                |g: &Game| -> Vec<String> { positions(g).iter().map(|p| p.to_string()).collect() };
            assert_eq!(boards(&read), boards(&game), "{format}, seed {seed}");
            assert_eq!(notation::write(format, &read).unwrap(), text);
        }
    }
}

#[test]
fn a_game_of_a_variant_round_trips_in_the_record_and_obx() {
    let rules = Rules::new(RulesOptions {
        three_tigers: true,
        goats_to_win: Some(6),
        first: baghchal_rules::Side::Tiger,
        ..RulesOptions::default()
    })
    .unwrap();
    for seed in 0..10 {
        let game = random_game(rules, seed, 300);
        let record = notation::write(Format::Record, &game).unwrap();
        assert_eq!(
            notation::read(Format::Record, &record, Rules::default())
                .unwrap()
                .actions(),
            game.actions()
        );
        let lines = notation::write(Format::Obx, &game).unwrap();
        assert_eq!(
            notation::read(Format::Obx, &lines, rules)
                .unwrap()
                .actions(),
            game.actions()
        );
        let err = notation::write(Format::Pypi, &game).unwrap_err();
        assert_eq!(err.to_string(), "the pypi notation has no three-tiger game");
    }
}

#[test]
fn chains_of_jumps_are_refused_by_the_notations_without_them() {
    let rules = Rules::new(RulesOptions {
        multi_jump: true,
        ..RulesOptions::default()
    })
    .unwrap();
    let mut game = Game::from_position(
        Position::from_text("TT.../...G./...../.G.../T...T t 18 0 3", rules).unwrap(),
    );
    game.play("a1xc3xe5".parse().unwrap()).unwrap();
    assert_eq!(
        notation::write(Format::Obx, &game).unwrap_err().to_string(),
        "the obx notation has no chains of jumps"
    );
    assert!(notation::write(Format::Pypi, &game).is_err());
    let record = notation::write(Format::Record, &game).unwrap();
    assert_eq!(
        notation::read(Format::Record, &record, Rules::default())
            .unwrap()
            .actions(),
        game.actions()
    );
}

#[test]
fn positions_round_trip_in_the_packages_and_obx_text() {
    for seed in 0..10 {
        let game = random_game(Rules::default(), seed, 400);
        for position in positions(&game) {
            let fen = pypi::write_fen(&position).unwrap();
            let back = pypi::read_fen(&fen).unwrap();
            assert_eq!(back.setup(), position.setup(), "{fen}");
            let line = obx::write_position(&position, None).unwrap();
            let back = obx::read(&line, Rules::default()).unwrap();
            assert_eq!(back.start().setup(), position.setup(), "{line}");
        }
    }
}

#[test]
fn the_packages_points_count_rows_from_the_top() {
    let game = notation::read(Format::Pypi, "1. G12 B5141 2. G54", Rules::default()).unwrap();
    assert_eq!(
        game.position().to_string(),
        "TG..T/...../...../T..../...GT t 18 0 3"
    );
    let game = notation::read(Format::Pypi, "1.G14", Rules::default()).unwrap();
    assert_eq!(game.actions()[0].to_string(), "d5");
}

/// The error a text gets.
fn error(format: Format, text: &str) -> NotationError {
    notation::read(format, text, Rules::default()).unwrap_err()
}

#[test]
fn text_that_does_not_parse_is_refused_with_its_line() {
    let cases: [(Format, &str, &str); 9] = [
        (Format::Record, "rules standard\nmoves c3\n", "line 2: expected rules, start, actions or result"),
        (Format::Record, "rules five-tigers\n", "line 1: rules: unknown rules option \"five-tigers\""),
        (Format::Record, "rules standard\nactions c3 z9\n", "line 2: action 2: invalid point at offset 0: invalid point: expected a column a-e and a row 1-5, like c3"),
        (Format::Pypi, "1. G33 B112", "line 1: B112 is not a move: write G33, G3334, B1122 or Bx1133"),
        (Format::Pypi, "1. G33 B1122\n3. G44", "line 2: expected the goats' move number 2., found 3."),
        (Format::Pypi, "G33", "line 1: the goats' move G33 needs its number 1. before it"),
        (Format::Pypi, "B3B/5/5/5/B3B G", "line 1: a position is BOARD SIDE GOAT_MOVES, as in B3B/5/5/5/B3B G 0"),
        (Format::Obx, "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g c0 - 0\nTXXXT/XXXXX/XXGXX/XXXXX/TXXXT t c0 mC9 1", "line 2: mC9 is not a move: write mC3, mA1B2, mA1C1(B1) or -"),
        (Format::Obx, "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g 0 - 0", "line 1: the goats captured are c and a number, not 0"),
    ];
    for (format, text, message) in cases {
        let err = error(format, text);
        assert!(matches!(err, NotationError::Syntax { .. }), "{err:?}");
        assert_eq!(err.to_string(), message, "{format}: {text:?}");
    }
}

#[test]
fn an_illegal_action_is_refused_with_its_ply_and_reason() {
    let cases: [(Format, &str, &str); 7] = [
        (
            Format::Record,
            "rules standard\nactions c3 a1-b2 b2\n",
            "line 2, ply 3: b2: that point is occupied",
        ),
        (
            Format::Record,
            "start T...T/...../...../...../T...T g 20 0 30\nactions c3 c3-c4\n",
            "line 2, ply 32: c3-c4: no piece of the side to move stands there",
        ),
        (
            Format::Pypi,
            "1. G33 B5142 2. G3334",
            "line 1, ply 3: G3334: goats must be placed while any are in hand",
        ),
        (
            Format::Pypi,
            "1. G33 B5133",
            "line 1, ply 2: B5133: no line of the board joins those points that way",
        ),
        (
            Format::Pypi,
            "1. G32 Bx1133",
            "line 1, ply 2: Bx1133: a jump must pass over a goat",
        ),
        (
            Format::Pypi,
            "1. G42 B5142",
            "line 1, ply 2: B5142: that point is occupied",
        ),
        (
            Format::Obx,
            "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g c0 - 0\nTXXXT/XXXXX/XXXXX/XXXXX/TXXXT t c0 mA1A2 1",
            "line 2, ply 1: mA1A2: goats must be placed while any are in hand",
        ),
    ];
    for (format, text, message) in cases {
        let err = error(format, text);
        assert!(matches!(err, NotationError::Illegal { .. }), "{err:?}");
        assert_eq!(err.to_string(), message, "{format}: {text:?}");
    }
}

#[test]
fn a_text_that_disagrees_with_its_moves_is_refused_at_that_ply() {
    let err = error(
        Format::Record,
        "rules standard\nactions c3\nresult goats tigers_trapped\n",
    );
    assert_eq!(
        err.to_string(),
        "line 3, ply 1: the result does not follow from the actions"
    );
    let err = error(Format::Pypi, "1. G33 B5142# 1-0");
    assert_eq!(
        err.to_string(),
        "line 1, ply 2: the result 1-0 does not follow from the moves"
    );
    let err = error(
        Format::Obx,
        "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g c0 - 0\nTXXXT/XXXXX/XXGXX/XXXXX/TXXXT t c1 mC3 1",
    );
    assert_eq!(
        err.to_string(),
        "line 2, ply 1: after mC3 0 goats are captured, not 1"
    );
    let err = error(
        Format::Obx,
        "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g c0 - 0\nTXXXT/XXXXX/XXGXX/XXXXX/TXXXT t c0 mC3 7",
    );
    assert_eq!(
        err.to_string(),
        "line 2, ply 1: after mC3 the move number is 1, not 7"
    );
}

#[test]
fn a_finished_game_takes_the_packages_result_mark() {
    let game = (0..200)
        .map(|seed| random_game(Rules::default(), seed, 400))
        .find(|g| g.outcome().map(|o| o.reason()) == Some(baghchal_rules::Reason::CaptureTarget))
        .expect("a random game where the tigers capture five goats");
    let text = notation::write(Format::Pypi, &game).unwrap();
    assert!(text.ends_with("# 0-1"), "{text}");
    let read = notation::read(Format::Pypi, &text, Rules::default()).unwrap();
    assert_eq!(
        read.outcome().unwrap().reason(),
        baghchal_rules::Reason::CaptureTarget
    );
    let more = format!("{} 99. G33", text.trim_end_matches("# 0-1"));
    let err = error(Format::Pypi, &more);
    assert!(
        matches!(
            err,
            NotationError::Syntax { .. } | NotationError::Illegal { .. }
        ),
        "{err}"
    );
}

mod arbitrary_text {
    use super::*;
    use proptest::prelude::*;

    /// Text near each notation's alphabet, and any text.
    fn text() -> impl Strategy<Value = String> {
        prop_oneof![
            "[GBx#0-9. /\n-]{0,40}",
            "[TGX/gtcm0-9A-E -]{0,60}",
            "(rules|start|actions|result)[ a-z0-9T.G/\n-]{0,40}",
            any::<String>(),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn reading_any_text_never_panics(text in text()) {
            for format in Format::ALL {
                let _ = notation::read(format, &text, Rules::default());
            }
            let _ = pypi::read_fen(&text);
        }
    }
}

#[test]
fn awkward_text_is_refused_without_a_panic() {
    let long_row = format!("B{}B/5/5/5/B3B G 0", "5".repeat(80));
    assert!(pypi::read_fen(&long_row).is_err());
    let wide = "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g c0 - 0\nTXXXT/XXXXX/XXGXX/XXXXX/TXXXT t c0 mAé1 1";
    assert!(matches!(
        error(Format::Obx, wide),
        NotationError::Syntax { line: 2, .. }
    ));
    let huge = "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g c255 - 65535";
    assert!(notation::read(Format::Obx, huge, Rules::default()).is_err());
    assert!(notation::read(Format::Pypi, "B3B/5/5/5/B3B B 65535", Rules::default()).is_err());
    assert!(notation::read(Format::Pypi, "99999999999999999999. G33", Rules::default()).is_err());
}

/// A game of seeded random legal actions under the package's rules, as
/// far as `plies`.
fn package_game(seed: u64, plies: usize) -> Game {
    let mut game = Game::new(pypi::rules());
    let mut state = seed;
    while !game.is_finished() && game.actions().len() < plies {
        let legal = game.position().legal_actions();
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        game.play(legal[(state >> 33) as usize % legal.len()])
            .unwrap();
    }
    game
}

#[test]
fn a_move_after_the_package_has_drawn_by_a_board_seen_three_times_is_refused() {
    // Seed 2263 comes to the same board a third time at ply 49, the
    // sides to move differing: a draw for the package, not for the rules.
    let drawn = package_game(2263, 49);
    assert!(!drawn.is_finished());
    let text = notation::write(Format::Pypi, &drawn).unwrap();
    assert!(text.ends_with("# 1/2-1/2"), "{text}");
    assert_eq!(
        notation::read(Format::Pypi, &text, Rules::default())
            .unwrap()
            .actions(),
        drawn.actions()
    );
    let on = package_game(2263, 50);
    let next = on.actions()[49];
    let side = drawn.position().side_to_move();
    let written = pypi::write_move(&next, side).unwrap();
    let number = match side {
        baghchal_rules::Side::Goat => format!("{}. ", text.matches(". ").count() + 1),
        baghchal_rules::Side::Tiger => String::new(),
    };
    let longer = format!("{} {number}{written}", text.trim_end_matches("# 1/2-1/2"));
    assert_eq!(
        error(Format::Pypi, &longer).to_string(),
        format!(
            "line 1, ply 50: {written}: the package ends the game before it: the same board for the third time"
        )
    );
    assert_eq!(
        notation::write(Format::Pypi, &on).unwrap_err().to_string(),
        "the pypi notation ends this game at ply 49 (the same board for the third time), before its last actions"
    );
}

#[test]
fn a_start_whose_ply_contradicts_its_side_to_move_is_refused_with_its_line() {
    let err = error(
        Format::Record,
        "rules standard\nstart T...T/...../..G../...../T...T g 19 0 1\nactions c4\n",
    );
    assert_eq!(
        err.to_string(),
        "line 2: start: at ply 1 it is the tigers' turn, not the goats': the goats move first, at the even plies"
    );
    let err = error(
        Format::Obx,
        "TXXXT/XXXXX/XXGXX/XXXXX/TXXXT g c0 - 1\nTXXXT/XXXXX/XXGGX/XXXXX/TXXXT t c0 mD3 2",
    );
    assert!(matches!(err, NotationError::Start { line: 1, .. }), "{err}");
    // Under the tigers-first variant the tigers move at the even plies.
    let record = "rules tigers-first\nstart T...T/...../..G../...../T...T g 19 0 1\nactions c4\n";
    assert!(notation::read(Format::Record, record, Rules::default()).is_ok());
}
