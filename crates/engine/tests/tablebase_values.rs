//! The analysis board's and the review's values with the built house
//! tablebase. Building it takes minutes, so this runs on demand:
//! `BAGHCHAL_TABLEBASE=baghchal.tb cargo test -p baghchal-engine --test tablebase_values -- --ignored`.

use std::sync::Arc;

use baghchal_engine::{Engine, Level, Source, Value};
use baghchal_rules::{Game, Position, Rules, Side};
use baghchal_tablebase::Tablebase;

fn engine() -> Engine {
    let path =
        std::env::var("BAGHCHAL_TABLEBASE").expect("BAGHCHAL_TABLEBASE names the tablebase file");
    let tablebase = Tablebase::load(path.as_ref()).expect("a valid tablebase file");
    Engine::with_tablebase(Arc::new(tablebase))
}

#[test]
#[ignore = "needs the built tablebase named by BAGHCHAL_TABLEBASE"]
fn every_movement_phase_action_takes_the_tablebase_value_of_where_it_leads() {
    let engine = engine();
    let mut draws = 0;
    for text in [
        "T...T/GGGGG/GG.GG/GGGGG/TG.GT t 0 4 100",
        "TGGGT/GGGGG/GGGGG/GG.GG/TGGGT t 0 0 100",
        "T.GGT/GGGGG/GG.GG/GGGGG/TGGGT g 0 1 60",
        // Drawn with best play: a tablebase draw is shown as a draw.
        "GGGGG/GGTGG/GT.GG/GTGTG/GGG.G t 0 1 39",
    ] {
        let position = Position::from_text(text, Rules::default()).unwrap();
        let values = engine.value_actions(&position, 1_000);
        assert_eq!(values.len(), position.legal_actions().len(), "{text}");
        for value in &values {
            let mut next = position.clone();
            next.play_unchecked(value.action);
            match (next.outcome(), engine.solved(&next)) {
                (Some(_), _) => assert_eq!(value.source, Source::Rules),
                (None, Some(after)) => {
                    let expected = match after {
                        Value::Win { plies } => Value::Loss { plies: plies + 1 },
                        Value::Loss { plies } => Value::Win { plies: plies + 1 },
                        other => other,
                    };
                    // A proof under the house rules may shorten it, and
                    // then names the tablebase's value beside its own.
                    let solved = value.solved.unwrap_or(value.value);
                    assert_eq!(solved, expected, "{text} {}", value.action);
                    if expected == Value::Draw {
                        draws += 1;
                        assert_eq!(value.source, Source::Solved, "{text} {}", value.action);
                    } else {
                        assert!(
                            matches!(value.source, Source::Solved | Source::Proved),
                            "{text} {}",
                            value.action
                        );
                    }
                }
                (None, None) => panic!("{text} {}: the tablebase covers it", value.action),
            }
        }
    }
    assert!(draws > 0, "a tablebase draw is shown as a draw");
}

/// Plays `game` on with the top level on both sides until it ends.
fn play_out(engine: &Engine, game: &mut Game) {
    while !game.is_finished() {
        let action = engine
            .choose(game.position(), Level::MAX, 0)
            .expect("an unfinished game has an action");
        game.play(action).expect("the engine plays legal actions");
    }
}

#[test]
#[ignore = "needs the built tablebase named by BAGHCHAL_TABLEBASE"]
fn a_tablebase_loss_the_repetition_rule_shortens_is_proved_shorter_under_the_house_rules() {
    // An outside check found the goats' e3-e2 served as an exact `loss
    // 28` while the tigers, playing the server's best actions, won in 23
    // under the house rules: the repetition rule took the goats' longest
    // defence away.
    let text = "GGGTG/GGTGG/GGGGG/.T.T./GGG.G g 0 3 48";
    let start = Position::from_text(text, Rules::default()).unwrap();
    let e3e2 = "e3-e2".parse().unwrap();
    let value_of = |engine: &Engine| {
        engine
            .value_actions(&start, 20_000)
            .into_iter()
            .find(|v| v.action == e3e2)
            .expect("e3-e2 is legal")
    };
    // Within a review's bound of proof nodes the proof under the house
    // rules finds the loss sooner, and names the tablebase's value beside
    // it.
    let engine = engine();
    let value = value_of(&engine);
    assert_eq!(value.value, Value::Loss { plies: 22 });
    assert_eq!(value.source, Source::Proved);
    assert_eq!(value.solved, Some(Value::Loss { plies: 28 }));
    // Without the proof, nothing recorded lies on the tigers' route, so
    // the tablebase's loss holds as an upper bound on its distance.
    let value = value_of(&engine.clone().with_proof_nodes(0));
    assert_eq!(value.value, Value::Loss { plies: 28 });
    assert_eq!(value.source, Source::Proved);
    assert_eq!(value.solved, None);
    let deep = engine.clone();
    let mut game = Game::from_position(start.clone());
    game.play(e3e2).unwrap();
    let judged = deep.judge(game.position(), std::slice::from_ref(&start), 20_000);
    assert_eq!(judged.value, Value::Win { plies: 21 });
    assert_eq!(judged.source, Source::Proved);
    assert_eq!(judged.solved, Some(Value::Win { plies: 27 }));
    // The top level, playing on, wins within the tablebase's distance.
    play_out(&engine, &mut game);
    let outcome = game.outcome().expect("the game ended");
    assert_eq!(outcome.winner(), Some(Side::Tiger), "{}", game.record());
    let plies = game.actions().len();
    assert!(plies <= 28, "the loss came within 28 plies, not in {plies}");
    // The review of that game names each value's kind: never an estimate
    // in the movement phase, and the goats' proved values are losses.
    for review in engine.analyse(&game, 20_000) {
        assert!(
            review.after_source != Source::Search,
            "every movement-phase value is solved or proved: {review:?}"
        );
        if review.side == Side::Goat && review.after_source == Source::Proved {
            assert!(matches!(review.after, Value::Loss { .. }), "{review:?}");
        }
        if let Some(solved) = review.after_solved {
            assert_eq!(review.after_source, Source::Proved, "{review:?}");
            assert_ne!(solved, review.after, "{review:?}");
        }
    }
}
