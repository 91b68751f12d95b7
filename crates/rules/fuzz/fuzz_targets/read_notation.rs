//! Any text, in each notation: reading never panics, and a game that reads
//! writes back (where the notation can express it) to a text that reads to
//! the same game.
#![no_main]

use baghchal_rules::notation::{self, Format};
use baghchal_rules::Rules;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    for format in Format::ALL {
        let Ok(game) = notation::read(format, text, Rules::default()) else {
            continue;
        };
        let Ok(written) = notation::write(format, &game) else {
            continue;
        };
        let again = notation::read(format, &written, *game.rules())
            .unwrap_or_else(|e| panic!("{format}: {e}\n{written}"));
        assert_eq!(again.actions(), game.actions());
        assert_eq!(again.position().setup(), game.position().setup());
    }
});
