//! Any text: a record that parses prints back to a text that parses to the
//! same record, and a record that replays gives back its own record.
#![no_main]

use baghchal_rules::Record;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let Ok(record) = text.parse::<Record>() else {
        return;
    };
    let printed = record.to_string();
    assert_eq!(printed.parse::<Record>().as_ref(), Ok(&record));
    if let Ok(game) = record.replay() {
        assert_eq!(game.record(), record);
        assert_eq!(game.outcome(), record.result);
    }
});
