//! Properties over random games, under random variants.

mod naive;

use baghchal_rules::{
    board, Action, Game, IllegalAction, Jump, Position, Record, Repetition, Rules, RulesOptions,
    Setup, Side, Square,
};
use naive::{NaivePosition, NaiveRules};
use proptest::prelude::*;

fn rules() -> impl Strategy<Value = Rules> {
    (
        prop::option::of(3u8..=7),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        prop_oneof![Just(400u16), 1u16..=120],
    )
        .prop_map(
            |(goats_to_win, tigers_first, multi_jump, three_tigers, threefold, ply_limit)| {
                Rules::new(RulesOptions {
                    goats_to_win,
                    first: if tigers_first {
                        Side::Tiger
                    } else {
                        Side::Goat
                    },
                    multi_jump,
                    three_tigers,
                    repetition: if threefold {
                        Repetition::ThreefoldDraw
                    } else {
                        Repetition::Forbid
                    },
                    ply_limit,
                })
                .expect("options in range")
            },
        )
}

fn square() -> impl Strategy<Value = Square> {
    (0u8..25).prop_map(|i| Square::new(i).expect("below 25"))
}

/// Any action at all, most of them illegal anywhere: steps between any two
/// points, chains through any points.
fn any_action() -> impl Strategy<Value = Action> {
    prop_oneof![
        square().prop_map(Action::Place),
        (square(), square()).prop_map(|(from, to)| Action::Step { from, to }),
        (square(), prop::collection::vec(square(), 1..=4))
            .prop_map(|(from, lands)| Action::Jump(Jump::chain(from, &lands).expect("1..=4"))),
    ]
}

/// Every action whose shape the board allows: placements, steps along a
/// line, and single jumps.
fn shaped_actions() -> Vec<Action> {
    let mut all = Vec::new();
    for from in Square::ALL {
        all.push(Action::Place(from));
        for to in board::neighbours(from) {
            all.push(Action::Step { from, to });
        }
        for (_, to) in board::jumps(from) {
            all.push(Action::Jump(Jump::single(from, to)));
        }
    }
    all
}

/// The choices that drive a random game: each picks one legal action; most
/// of them pass over captures when there is anything else, so that games
/// last into the movement phase and its repetitions.
fn choices(most: usize) -> impl Strategy<Value = Vec<(usize, u8)>> {
    prop::collection::vec((any::<usize>(), any::<u8>()), 0..most)
}

fn pick(legal: &[Action], (c, mood): (usize, u8)) -> Action {
    let quiet: Vec<Action> = legal.iter().copied().filter(|a| !a.is_capture()).collect();
    if mood % 8 != 0 && !quiet.is_empty() {
        quiet[c % quiet.len()]
    } else {
        legal[c % legal.len()]
    }
}

/// A random game, until it ends or the choices run out: every position on
/// the way.
fn random_game(rules: Rules, choices: &[(usize, u8)]) -> Vec<Position> {
    let mut pos = Position::new(rules);
    let mut seen = vec![pos.clone()];
    for &c in choices {
        let legal = pos.legal_actions();
        if legal.is_empty() {
            break;
        }
        pos.play_unchecked(pick(&legal, c));
        seen.push(pos.clone());
    }
    seen
}

fn goats_on_board(pos: &Position) -> u32 {
    pos.goats().count()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn the_legal_list_holds_an_action_exactly_when_it_is_legal(
        rules in rules(),
        choices in choices(240),
        extra in prop::collection::vec(any_action(), 16),
    ) {
        let shaped = shaped_actions();
        for pos in random_game(rules, &choices) {
            let legal = pos.legal_actions();
            prop_assert_eq!(legal.len(), pos.count_legal());
            for action in legal.iter().chain(&shaped).chain(&extra) {
                let listed = legal.contains(action);
                prop_assert_eq!(pos.check(action).is_ok(), listed, "{} in {}", action, pos);
                prop_assert_eq!(pos.is_legal(action), listed);
                if !listed {
                    let err = pos.clone().play(*action).unwrap_err();
                    prop_assert_eq!(&err.position, &pos);
                    if err.reason == IllegalAction::Repetition {
                        // The action is well formed: it leads to a recorded position.
                        let mut next = pos.clone();
                        next.play_unchecked(*action);
                        prop_assert!(pos.repetition_record().contains(&next.key()));
                    }
                    let mut copy = pos.clone();
                    prop_assert!(copy.play_mut(*action).is_err());
                    prop_assert_eq!(&copy, &pos);
                }
            }
        }
    }

    #[test]
    fn every_goat_is_on_the_board_in_hand_or_eaten(
        rules in rules(),
        choices in choices(400),
    ) {
        for pos in random_game(rules, &choices) {
            let total = goats_on_board(&pos) + u32::from(pos.in_hand()) + u32::from(pos.eaten());
            prop_assert_eq!(total, u32::from(rules.total_goats()));
            prop_assert_eq!(pos.tigers().count(), u32::from(rules.tigers()));
            prop_assert!((pos.tigers() & pos.goats()).is_empty());
            prop_assert!(pos.eaten() <= rules.goats_to_win());
        }
    }

    #[test]
    fn a_finished_game_has_no_legal_action(
        rules in rules(),
        choices in choices(400),
    ) {
        let game = random_game(rules, &choices);
        for pos in &game {
            if pos.is_finished() {
                prop_assert!(pos.legal_actions().is_empty());
                prop_assert_eq!(pos.count_legal(), 0);
                prop_assert!(pos.destinations().is_empty());
            } else {
                prop_assert!(!pos.legal_actions().is_empty());
            }
        }
        // Only the last position of a game can be finished.
        prop_assert!(game[..game.len() - 1].iter().all(|p| !p.is_finished()));
    }

    #[test]
    fn destinations_group_the_legal_actions(
        rules in rules(),
        choices in choices(200),
    ) {
        for pos in random_game(rules, &choices) {
            let dests = pos.destinations();
            let mut grouped: Vec<Action> = dests.placements().into_iter().map(Action::Place).collect();
            for (from, actions) in dests.pieces() {
                prop_assert!(actions.iter().all(|a| a.from() == Some(from)));
                grouped.extend_from_slice(actions);
            }
            let mut legal = pos.legal_actions();
            let key = |a: &Action| a.to_string();
            legal.sort_by_key(key);
            grouped.sort_by_key(key);
            prop_assert_eq!(grouped, legal);
        }
    }

    #[test]
    fn notation_and_position_text_round_trip(
        rules in rules(),
        choices in choices(400),
    ) {
        for pos in random_game(rules, &choices) {
            for action in pos.legal_actions() {
                prop_assert_eq!(action.to_string().parse::<Action>(), Ok(action));
            }
            let text = pos.to_string();
            let setup: Setup = text.parse().unwrap();
            prop_assert_eq!(setup, pos.setup());
            prop_assert_eq!(setup.to_string(), text.clone());
            let again = Position::from_text(&text, rules).unwrap();
            prop_assert_eq!(again.to_string(), text);
            prop_assert_eq!(again.key(), pos.key());
            prop_assert_eq!(rules.to_string().parse::<Rules>(), Ok(rules));
        }
    }

    #[test]
    fn a_record_replays_to_the_same_game(
        rules in rules(),
        choices in choices(400),
        resign in prop::option::of(any::<bool>()),
    ) {
        let mut game = Game::new(rules);
        for &c in &choices {
            let legal = game.position().legal_actions();
            if legal.is_empty() {
                break;
            }
            game.play(pick(&legal, c)).unwrap();
        }
        if let Some(tigers) = resign {
            let side = if tigers { Side::Tiger } else { Side::Goat };
            prop_assert_eq!(game.resign(side).is_ok(), game.position().outcome().is_none());
        }
        let text = game.record().to_string();
        let record: Record = text.parse().unwrap();
        prop_assert_eq!(&record, &game.record());
        prop_assert_eq!(record.replay().unwrap(), game);
    }

    #[test]
    fn the_library_and_the_naive_rules_agree_along_random_games(
        rules in rules(),
        choices in choices(300),
    ) {
        let mut pos = Position::new(rules);
        let mut naive = NaivePosition::from_text(
            &pos.to_string(),
            NaiveRules::parse(&rules.to_string()),
        );
        for &c in &choices {
            let mut legal: Vec<String> = pos.legal_actions().iter().map(Action::to_string).collect();
            legal.sort();
            prop_assert_eq!(&legal, &naive.legal_names(), "{}", pos);
            let outcome = pos.outcome().map(|o| (o.winner().map_or('-', Side::char), o.reason().as_str()));
            prop_assert_eq!(outcome, naive.outcome());
            if legal.is_empty() {
                break;
            }
            if pos.ply().is_multiple_of(16) {
                prop_assert_eq!(baghchal_rules::perft(&pos, 2), naive.perft(2), "{}", pos);
            }
            let action = pick(&pos.legal_actions(), c);
            pos = pos.play(action).unwrap();
            naive = naive.play(&action.to_string());
            prop_assert_eq!(pos.to_string(), naive.to_text());
        }
    }
}
