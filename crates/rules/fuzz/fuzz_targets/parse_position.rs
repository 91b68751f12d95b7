//! Any text: a position text that parses prints back to a text that parses
//! to the same setup; one that validates keeps its text as a position.
#![no_main]

use baghchal_rules::{Position, Rules, Setup};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let Ok(setup) = text.parse::<Setup>() else {
        return;
    };
    let printed = setup.to_string();
    assert_eq!(printed.parse::<Setup>(), Ok(setup));
    for rules in ["standard", "three-tigers", "multi-jump goats-to-win=3"] {
        let rules: Rules = rules.parse().expect("valid rules");
        if let Ok(pos) = Position::from_setup(setup, rules) {
            assert_eq!(pos.to_string(), printed);
            assert_eq!(pos.setup(), setup);
            assert_eq!(pos.legal_actions().len(), pos.count_legal());
            if pos.is_finished() {
                assert_eq!(pos.count_legal(), 0);
            }
        }
    }
});
