//! Any text: rules that parse print back to a text that parses to the same
//! rules.
#![no_main]

use baghchal_rules::Rules;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    if let Ok(rules) = text.parse::<Rules>() {
        assert_eq!(rules.to_string().parse::<Rules>(), Ok(rules));
    }
});
