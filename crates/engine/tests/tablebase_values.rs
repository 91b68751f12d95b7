//! The analysis board's values with the built house tablebase. Building
//! it takes minutes, so this runs on demand:
//! `BAGHCHAL_TABLEBASE=baghchal.tb cargo test -p baghchal-engine --test tablebase_values -- --ignored`.

use std::sync::Arc;

use baghchal_engine::{Engine, Source, Value};
use baghchal_rules::{Position, Rules};
use baghchal_tablebase::Tablebase;

#[test]
#[ignore = "needs the built tablebase named by BAGHCHAL_TABLEBASE"]
fn every_movement_phase_action_takes_the_tablebase_value_of_where_it_leads() {
    let path =
        std::env::var("BAGHCHAL_TABLEBASE").expect("BAGHCHAL_TABLEBASE names the tablebase file");
    let tablebase = Tablebase::load(path.as_ref()).expect("a valid tablebase file");
    let engine = Engine::with_tablebase(Arc::new(tablebase));
    for text in [
        "T...T/GGGGG/GG.GG/GGGGG/TG.GT t 0 4 100",
        "TGGGT/GGGGG/GGGGG/GG.GG/TGGGT t 0 0 100",
        "T.GGT/GGGGG/GG.GG/GGGGG/TGGGT g 0 1 60",
    ] {
        let position = Position::from_text(text, Rules::default()).unwrap();
        let values = engine.value_actions(&position, 1_000);
        assert_eq!(values.len(), position.legal_actions().len(), "{text}");
        for value in &values {
            let mut next = position.clone();
            next.play_unchecked(value.action);
            match (next.outcome(), engine.probe(&next)) {
                (Some(_), _) => assert_eq!(value.source, Source::Rules),
                (None, Some(after)) => {
                    assert_eq!(value.source, Source::Tablebase, "{text} {}", value.action);
                    let expected = match after {
                        Value::Win { plies } => Value::Loss { plies: plies + 1 },
                        Value::Loss { plies } => Value::Win { plies: plies + 1 },
                        other => other,
                    };
                    assert_eq!(value.value, expected, "{text} {}", value.action);
                }
                (None, None) => assert_eq!(value.source, Source::Search),
            }
        }
    }
}
