//! The rules of SPEC §1 and §2, one behaviour per test.

use baghchal_rules::{
    board, goats_to_trap, perft, Action, Bitboard, Game, IllegalAction, Outcome, Phase, Position,
    Reason, Record, Rules, Side, Square,
};

fn pos(text: &str, rules: &str) -> Position {
    Position::from_text(text, rules.parse().unwrap()).unwrap()
}

fn play(mut p: Position, actions: &str) -> Position {
    for a in actions.split_whitespace() {
        p = p.play(a.parse().unwrap()).unwrap();
    }
    p
}

fn names(p: &Position) -> Vec<String> {
    let mut v: Vec<String> = p.legal_actions().iter().map(Action::to_string).collect();
    v.sort();
    v
}

#[test]
fn diagonals_leave_only_the_points_whose_row_and_column_add_up_to_an_even_number() {
    for sq in Square::ALL {
        let diagonal = board::neighbours(sq)
            .into_iter()
            .any(|n| n.row() != sq.row() && n.column() != sq.column());
        assert_eq!(diagonal, (sq.row() + sq.column()) % 2 == 0, "{sq}");
    }
    assert_eq!(board::neighbours(Square::C3).count(), 8);
    assert_eq!(board::neighbours(Square::B3).count(), 4);
    assert_eq!(board::neighbours(Square::A5).count(), 3);
}

#[test]
fn a_multi_jump_chain_may_end_where_it_started() {
    let p = pos("T...T/...../...../.GG../TG..T t 17 0 5", "multi-jump");
    let p = play(p, "a1xc3xc1xa1");
    assert_eq!(p.to_string(), "T...T/...../...../...../T...T g 17 3 6");
    assert_eq!(p.piece_at(Square::A1), Some(Side::Tiger));
}

#[test]
fn a_multi_jump_chain_may_land_again_on_its_first_landing_point() {
    let p = pos("T...T/...../...../TGG../.G.GT t 16 0 7", "multi-jump");
    assert!(names(&p).contains(&"e1xc1xa1xc3xc1".to_owned()));
    let p = play(p, "e1xc1xa1xc3xc1");
    assert_eq!(p.to_string(), "T...T/...../...../T..../..T.. g 16 4 8");
}

#[test]
fn a_multi_jump_chain_stops_at_the_capture_target() {
    let p = pos("T...T/...../...../.GG../TG..T t 14 3 9", "multi-jump");
    let err = p.clone().play("a1xc3xc1xa1".parse().unwrap()).unwrap_err();
    assert_eq!(err.reason, IllegalAction::ChainPastTarget);
    assert_eq!(err.position, p);
    let p = play(p, "a1xc3xc1");
    assert_eq!(
        p.outcome(),
        Some(Outcome::win(Side::Tiger, Reason::CaptureTarget))
    );
}

#[test]
fn chains_need_the_multi_jump_variant() {
    let p = pos("T...T/...../...../.GG../TG..T t 17 0 5", "standard");
    let err = p.play("a1xc3xc1".parse().unwrap()).unwrap_err();
    assert_eq!(err.reason, IllegalAction::ChainNotAllowed);
}

#[test]
fn the_fifth_capture_wins_at_once() {
    let p = play(
        pos("T...T/...../.GG../.TG../....T t 13 4 9", "standard"),
        "b2xd4",
    );
    assert_eq!(
        p.outcome(),
        Some(Outcome::win(Side::Tiger, Reason::CaptureTarget))
    );
    assert!(p.legal_actions().is_empty());
}

#[test]
fn the_capture_target_comes_before_a_blocked_side() {
    // Five eaten and the tigers without a move: the tigers win by captures.
    let p = pos("GGGGG/GG.G./GGG../TTGG./TTGG. t 0 5 100", "standard");
    assert_eq!(
        p.outcome(),
        Some(Outcome::win(Side::Tiger, Reason::CaptureTarget))
    );
    // With four eaten the same tigers are trapped.
    let p = pos("GGGGG/GG.G./GGG../TTGG./TTGGG t 0 4 100", "standard");
    assert_eq!(
        p.outcome(),
        Some(Outcome::win(Side::Goat, Reason::TigersTrapped))
    );
}

#[test]
fn a_placement_can_trap_the_tigers() {
    let p = play(
        pos("TGGGT/GG.GG/G...G/GG.GG/TGGGT g 4 0 32", "standard"),
        "c3",
    );
    assert_eq!(
        p.outcome(),
        Some(Outcome::win(Side::Goat, Reason::TigersTrapped))
    );
    assert_eq!(p.trapped_tigers(), 4);
}

#[test]
fn a_goat_step_can_trap_the_tigers() {
    let p = play(
        pos("TGGGT/GGGGG/G..GG/GGGGG/TGGGT g 0 1 60", "standard"),
        "c2-c3",
    );
    assert_eq!(
        p.outcome(),
        Some(Outcome::win(Side::Goat, Reason::TigersTrapped))
    );
}

#[test]
fn goats_without_a_step_lose() {
    let p = pos("GGGGT/GGGGG/GGGGG/TTGGG/.TGGG g 0 0 100", "standard");
    assert_eq!(
        p.outcome(),
        Some(Outcome::win(Side::Tiger, Reason::GoatsBlocked))
    );
    let p = play(
        pos("GGGGT/GGGGG/GGGGG/T.GGG/TTGGG t 0 0 100", "standard"),
        "a1-b2",
    );
    assert_eq!(
        p.outcome(),
        Some(Outcome::win(Side::Tiger, Reason::GoatsBlocked))
    );
}

#[test]
fn goats_whose_every_step_repeats_a_position_lose() {
    let p = play(
        pos("TGGGT/GGGGG/GGGGG/GGGG./TGGGT g 0 0 50", "standard"),
        "e3-e2 e1xe3 d2-e1 e3-d2 e1-e2 d2-e3 d1-e1 e3-d2 e2-e3 d2-e2 e1-d1 e2-d2",
    );
    assert_eq!(
        p.outcome(),
        Some(Outcome::win(Side::Tiger, Reason::GoatsBlocked))
    );
    // The goats could step, were it not for the record.
    let empty = p.empty();
    assert!(p
        .goats()
        .into_iter()
        .any(|g| !(board::neighbours(g) & empty).is_empty()));
}

#[test]
fn an_action_that_recreates_a_recorded_position_is_not_legal() {
    let p = play(
        pos("TGG.T/GGGGG/GGGGG/GGGGG/T.GGT t 0 1 40", "standard"),
        "a1-b1 c5-d5 b1-a1",
    );
    let back: Action = "d5-c5".parse().unwrap();
    assert!(!p.legal_actions().contains(&back));
    assert_eq!(p.check(&back), Err(IllegalAction::Repetition));
    assert_eq!(p.count_legal(), p.legal_actions().len());
}

#[test]
fn the_position_after_the_last_placement_is_the_first_recorded() {
    let p = pos("TGGGT/GGGGG/GG.GG/GGGGG/T.GGT g 1 0 37", "standard");
    assert!(p.repetition_record().is_empty());
    let p = play(p, "b1");
    assert_eq!(p.phase(), Phase::Movement);
    assert_eq!(p.repetition_record(), &[p.key()]);
}

#[test]
fn a_movement_phase_position_read_from_text_records_itself() {
    let p = pos("TGG.T/GGGGG/GGGGG/GGGGG/T.GGT t 0 1 40", "standard");
    assert_eq!(p.repetition_record(), &[p.key()]);
    // So the tigers may not come straight back to it.
    let p = play(p, "a1-b1 c5-d5 b1-a1");
    assert!(!p.is_legal(&"d5-c5".parse().unwrap()));
}

#[test]
fn a_capture_clears_the_record() {
    let p = play(
        pos("TGGGT/GGGGG/GGGGG/GGGG./TGGGT g 0 0 50", "standard"),
        "e3-e2",
    );
    assert_eq!(p.repetition_record().len(), 2);
    let p = play(p, "e1xe3");
    assert_eq!(p.repetition_record(), &[p.key()]);
}

#[test]
fn the_400th_ply_draws() {
    let p = pos("TGGGT/GGGGG/GG.GG/GGGGG/TGGGT t 0 0 399", "standard");
    let p = play(p, "a1xc3");
    assert_eq!(p.ply(), 400);
    assert_eq!(p.outcome(), Some(Outcome::draw(Reason::PlyLimit)));
    assert_eq!(perft(&p, 3), 1);
}

#[test]
fn a_blocked_side_at_the_400th_ply_still_loses() {
    let p = play(
        pos("GGGGT/GGGGG/GGGGG/T.GGG/TTGGG t 0 0 399", "standard"),
        "a1-b2",
    );
    assert_eq!(
        p.outcome(),
        Some(Outcome::win(Side::Tiger, Reason::GoatsBlocked))
    );
}

#[test]
fn the_ply_limit_is_a_variant() {
    let p = play(Position::new("ply-limit=2".parse().unwrap()), "c3 a1-b1");
    assert_eq!(p.outcome(), Some(Outcome::draw(Reason::PlyLimit)));
}

#[test]
fn the_third_occurrence_draws_in_the_threefold_variant() {
    let start = pos("TGG.T/GGGGG/GGGGG/GGGGG/T.GGT t 0 1 40", "threefold-draw");
    let cycle = "a1-b1 c5-d5 b1-a1 d5-c5";
    let p = play(start, cycle);
    assert_eq!(p.outcome(), None);
    let p = play(p, "a1-b1 c5-d5 b1-a1");
    assert_eq!(p.outcome(), None);
    let p = play(p, "d5-c5");
    assert_eq!(p.outcome(), Some(Outcome::draw(Reason::Threefold)));
}

#[test]
fn the_three_tiger_game_starts_with_three_tigers_and_sixteen_goats() {
    let rules: Rules = "three-tigers".parse().unwrap();
    let p = Position::new(rules);
    assert_eq!(p.to_string(), "T...T/...../...../...../T.... g 16 0 0");
    assert_eq!(rules.goats_to_win(), 4);
}

#[test]
fn the_tigers_may_move_first() {
    let p = Position::new("tigers-first".parse().unwrap());
    assert_eq!(p.side_to_move(), Side::Tiger);
    assert_eq!(p.legal_actions().len(), 12);
}

#[test]
fn goats_in_hand_can_only_be_placed_and_tigers_never_place() {
    let p = Position::default();
    assert_eq!(
        p.check(&"a1-a2".parse().unwrap()),
        Err(IllegalAction::MustPlace)
    );
    let p = play(p, "c3");
    assert_eq!(
        p.check(&"b3".parse().unwrap()),
        Err(IllegalAction::CannotPlace)
    );
    let p = play(p, "a1-a2");
    assert_eq!(
        p.check(&"c3-c4".parse().unwrap()),
        Err(IllegalAction::MustPlace)
    );
}

#[test]
fn a_tiger_cannot_jump_a_tiger_or_an_empty_point() {
    let p = pos("...../...../..T../.T.../T...T t 20 0 3", "standard");
    assert_eq!(
        p.check(&"a1xc3".parse().unwrap()),
        Err(IllegalAction::Occupied)
    );
    assert_eq!(
        p.check(&"e1xc3".parse().unwrap()),
        Err(IllegalAction::Occupied)
    );
    assert_eq!(
        p.check(&"c3xc5".parse().unwrap()),
        Err(IllegalAction::NothingToCapture)
    );
}

#[test]
fn a_record_replays_to_the_same_game() {
    let text = "rules goats-to-win=3 multi-jump\nactions c3 a1-b1 b2 b1-a1\n";
    let record: Record = text.parse().unwrap();
    let game = record.replay().unwrap();
    assert_eq!(game.record().to_string(), text);
    assert_eq!(game.position().ply(), 4);
}

#[test]
fn a_step_or_jump_off_the_lines_is_refused_as_such() {
    let p = play(Position::default(), "c3");
    let off = [
        Action::Step {
            from: Square::A1,
            to: Square::C1,
        },
        Action::Step {
            from: Square::E5,
            to: Square::E5,
        },
        Action::Jump(baghchal_rules::Jump::single(Square::A1, Square::B3)),
    ];
    for action in off {
        assert_eq!(p.check(&action), Err(IllegalAction::NotALine), "{action}");
    }
    // b2 has diagonals, b3 has none: no step b3-c4, no jump b3xd5.
    let p = pos("T...T/...../.T.../..G../T.... t 19 0 3", "standard");
    let step = Action::Step {
        from: Square::B3,
        to: Square::C4,
    };
    assert_eq!(p.check(&step), Err(IllegalAction::NotALine));
}

/// The goats needed to trap tigers standing on `tigers`: every free
/// neighbour, and every free landing point beyond one.
fn goats_needed(tigers: &[Square]) -> u32 {
    let on = tigers.iter().fold(Bitboard::EMPTY, |b, &t| b.with(t));
    let mut needed = Bitboard::EMPTY;
    for &t in tigers {
        for n in board::neighbours(t) {
            if !on.contains(n) {
                needed = needed.with(n);
            }
        }
        for line in board::jump_lines(t) {
            if !on.contains(line.over) && !on.contains(line.land) {
                needed = needed.with(line.land);
            }
        }
    }
    needed.count()
}

fn fewest_goats_to_trap(tigers: usize, from: usize, chosen: &mut Vec<Square>) -> u32 {
    if chosen.len() == tigers {
        return goats_needed(chosen);
    }
    let mut best = u32::MAX;
    for i in from..Square::ALL.len() {
        chosen.push(Square::ALL[i]);
        best = best.min(fewest_goats_to_trap(tigers, i + 1, chosen));
        chosen.pop();
    }
    best
}

#[test]
fn the_fewest_goats_that_trap_the_tigers_are_counted_over_every_placement_of_them() {
    for tigers in [3u8, 4] {
        let fewest = fewest_goats_to_trap(usize::from(tigers), 0, &mut Vec::new());
        assert_eq!(u32::from(goats_to_trap(tigers)), fewest, "{tigers} tigers");
    }
}

#[test]
fn with_every_capture_target_the_goats_keep_enough_goats_to_win_on_time() {
    for three_tigers in [false, true] {
        for target in 3..=7 {
            let rules: Rules = if three_tigers {
                format!("three-tigers goats-to-win={target}")
            } else {
                format!("goats-to-win={target}")
            }
            .parse()
            .unwrap();
            let left = rules.total_goats() - (target - 1);
            assert!(left >= goats_to_trap(rules.tigers()), "{rules}");
        }
    }
}

#[test]
fn a_flag_loses_and_the_decided_endings_read_back_from_a_record() {
    let mut game = Game::new(Rules::default());
    game.play("c3".parse().unwrap()).unwrap();
    game.time_out(Side::Tiger).unwrap();
    assert_eq!(
        game.outcome(),
        Some(Outcome::win(Side::Goat, Reason::Timeout))
    );
    assert_eq!(game.time_out(Side::Goat), Err(IllegalAction::GameOver));
    let mut claimed = Game::new(Rules::default());
    claimed.claim(Side::Tiger, false).unwrap();
    assert_eq!(claimed.outcome(), Some(Outcome::draw(Reason::Abandoned)));
    let mut aborted = Game::new(Rules::default());
    assert!(aborted.before_both_moved());
    aborted.abort().unwrap();
    for game in [game, claimed, aborted] {
        let text = game.record().to_string();
        let back: Record = text.parse().unwrap();
        assert_eq!(back.replay().unwrap(), game, "{text}");
    }
    let late: Record = "actions c3 a1-a2\nresult draw aborted\n".parse().unwrap();
    assert!(late.replay().is_err());
}
