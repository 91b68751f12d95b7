//! Any text: parsing never panics, and an action that parses prints back as
//! the same text.
#![no_main]

use baghchal_rules::Action;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    if let Ok(action) = text.parse::<Action>() {
        assert_eq!(action.to_string(), text);
        assert_eq!(action.to_string().parse::<Action>(), Ok(action));
    }
});
