//! Any text: a point name parses exactly when it is `a1`..`e5`, and a
//! parsed point prints back as the same text.
#![no_main]

use baghchal_rules::Square;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    if let Ok(sq) = text.parse::<Square>() {
        assert_eq!(sq.to_string(), text);
    }
});
