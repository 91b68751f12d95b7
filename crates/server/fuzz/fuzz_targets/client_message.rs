//! Any text, as the text of a websocket frame: decoding never panics, a
//! message that decodes encodes to JSON that decodes to the same message,
//! and an action's notation goes through the rules' parser as the socket's
//! task sends it.
#![no_main]

use baghchal_protocol::ClientMessage;
use baghchal_rules::Action;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let Ok(message) = ClientMessage::decode(text) else {
        return;
    };
    let json = serde_json::to_string(&message).expect("a message encodes");
    assert_eq!(ClientMessage::decode(&json).ok().as_ref(), Some(&message));
    if let ClientMessage::Action { action, .. } = &message {
        if let Ok(parsed) = action.parse::<Action>() {
            assert_eq!(&parsed.to_string(), action);
        }
    }
});
