//! Reading a client's frame: [`ClientMessage::decode`].
//!
//! The tagged enum reads a message by first copying the whole object into
//! serde's buffer of owned values, and only then into the variant the
//! `type` names. An action, nearly every frame a table reads, is read
//! straight into its fields first; any frame that does not read as one
//! goes through the enum, which gives the same message or the same error.

use serde::Deserialize;

use crate::ClientMessage;

/// The fields of an `action` message. The enum's variant reads the same
/// fields, with the same defaults, and ignores others as this does.
#[derive(Deserialize)]
struct ActionFields<'a> {
    /// Borrowed: a `type` written with escapes is left to the enum.
    #[serde(rename = "type")]
    kind: &'a str,
    id: String,
    action: String,
    #[serde(default)]
    board: Option<u8>,
}

impl ClientMessage {
    /// Reads the text of one websocket frame: exactly one JSON message,
    /// nothing after it but whitespace. The server decodes every text
    /// frame with this, and the fuzz target `client_message` feeds it any
    /// text.
    ///
    /// ```
    /// use baghchal_protocol::ClientMessage;
    /// assert_eq!(ClientMessage::decode(r#"{"type":"ping"}"#).unwrap(), ClientMessage::Ping);
    /// assert!(ClientMessage::decode(r#"{"type":"ping"} {"type":"ping"}"#).is_err());
    /// ```
    pub fn decode(text: &str) -> Result<ClientMessage, serde_json::Error> {
        // Only an object: a struct would also read from an array.
        if text.trim_start().starts_with('{') {
            if let Ok(fields) = serde_json::from_str::<ActionFields<'_>>(text) {
                if fields.kind == "action" {
                    return Ok(ClientMessage::Action {
                        id: fields.id,
                        action: fields.action,
                        board: fields.board,
                    });
                }
            }
        }
        serde_json::from_str(text)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// The enum alone, as every frame was read before.
    fn through_enum(text: &str) -> Result<ClientMessage, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// A member of a message object: mostly the fields of an action and
    /// their neighbours, with values of the right kind and of wrong ones.
    fn member() -> impl Strategy<Value = String> {
        let key = prop_oneof![
            Just("type"),
            Just("id"),
            Just("action"),
            Just("board"),
            Just("since"),
            Just("table"),
            Just("token"),
            Just("other"),
            Just("t\\u0079pe"),
        ];
        let value = prop_oneof![
            Just("\"action\"".to_owned()),
            Just("\"act\\u0069on\"".to_owned()),
            Just("\"resign\"".to_owned()),
            Just("\"ping\"".to_owned()),
            Just("\"hello\"".to_owned()),
            "\"[a-e][1-5](-[a-e][1-5])?\"",
            "\"[0-9a-z\\\\\"]{0,6}\"",
            Just("null".to_owned()),
            Just("true".to_owned()),
            Just("1.0".to_owned()),
            Just("[]".to_owned()),
            Just("{}".to_owned()),
            (0u16..300).prop_map(|n| n.to_string()),
            (-3i8..3).prop_map(|n| n.to_string()),
        ];
        (key, value).prop_map(|(key, value)| format!("\"{key}\":{value}"))
    }

    /// A message: an object of such members in any order (repeats
    /// included), sometimes in a form that is not an object.
    fn message() -> impl Strategy<Value = String> {
        let object = prop::collection::vec(member(), 0..7)
            .prop_map(|members| format!("{{{}}}", members.join(",")))
            .boxed();
        // The members of an action, then others, shuffled.
        let action = (
            "\"[a-z0-9]{1,4}\"",
            "\"[a-e][1-5](-[a-e][1-5])?\"",
            prop::collection::vec(member(), 0..3),
        )
            .prop_flat_map(|(id, action, others)| {
                let mut members = vec![
                    "\"type\":\"action\"".to_owned(),
                    format!("\"id\":{id}"),
                    format!("\"action\":{action}"),
                ];
                members.extend(others);
                Just(members).prop_shuffle()
            })
            .prop_map(|members| format!("{{{}}}", members.join(",")));
        prop_oneof![
            4 => action,
            6 => object.clone(),
            1 => object.clone().prop_map(|o| format!(" \n{o} ")),
            1 => object.prop_map(|o| format!("{o} {{}}")),
            1 => Just(r#"["action","7","c3"]"#.to_owned()),
            1 => Just(r#"["action","7","c3",1]"#.to_owned()),
            1 => any::<String>(),
        ]
    }

    proptest! {
        #[test]
        fn decode_reads_as_the_enum_does(text in message()) {
            match (ClientMessage::decode(&text), through_enum(&text)) {
                (Ok(fast), Ok(slow)) => prop_assert_eq!(fast, slow),
                (Err(fast), Err(slow)) => prop_assert_eq!(fast.to_string(), slow.to_string()),
                (fast, slow) => prop_assert!(false, "{text}: {fast:?} against {slow:?}"),
            }
        }
    }

    #[test]
    fn an_action_reads_with_and_without_its_board() {
        assert_eq!(
            ClientMessage::decode(r#"{"id":"7","action":"b2-c3","type":"action","board":2}"#)
                .unwrap(),
            ClientMessage::Action {
                id: "7".into(),
                action: "b2-c3".into(),
                board: Some(2)
            }
        );
        assert_eq!(
            ClientMessage::decode(r#"{"type":"action","id":"x","action":"c3","extra":[1]}"#)
                .unwrap(),
            ClientMessage::Action {
                id: "x".into(),
                action: "c3".into(),
                board: None
            }
        );
    }
}
