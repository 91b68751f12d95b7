//! The frames an owner relays to the node that holds a socket: each with
//! its number in the connection's sequence, delivered strictly in order.

use axum::extract::ws::Utf8Bytes;
use bytes::Bytes;

use crate::table::conn::Outgoing;
use crate::token::{Token, TokenHash};

use baghchal_protocol::CloseCode as wire_close;

/// Frame `seq` (from 1) for a remote connection: a kind, the number in
/// eight bytes (big-endian), then for `T` the text, for `C` the code and
/// the reason; `E` when the table dropped the connection.
pub(super) fn relay_frame(seq: u64, outgoing: Option<&Outgoing>) -> Bytes {
    // One buffer, written once: this runs for every frame relayed.
    let head = |kind: u8, body_len: usize| {
        let mut frame = Vec::with_capacity(9 + body_len);
        frame.push(kind);
        frame.extend_from_slice(&seq.to_be_bytes());
        frame
    };
    let frame = match outgoing {
        Some(Outgoing::Text(text) | Outgoing::Event(text, _)) => {
            let mut frame = head(b'T', text.len());
            frame.extend_from_slice(text.as_bytes());
            frame
        }
        Some(Outgoing::Close(close)) => {
            let reason = close.reason().as_bytes();
            let mut frame = head(b'C', 2 + reason.len());
            frame.extend_from_slice(&close.code().to_be_bytes());
            frame.extend_from_slice(reason);
            frame
        }
        None => head(b'E', 0),
    };
    Bytes::from(frame)
}

/// A relayed frame's number and what it carries (`None`: the connection
/// ends, or a close code this node does not know); `None` for a frame
/// that cannot be read. A text is handed on as a slice of `payload`'s
/// bytes, checked but not copied.
pub(super) fn read_relay_frame(payload: &Bytes) -> Option<(u64, Option<Outgoing>)> {
    let (&kind, rest) = payload.split_first()?;
    let (seq, body) = rest.split_first_chunk::<8>()?;
    let seq = u64::from_be_bytes(*seq);
    let outgoing = match kind {
        b'T' => Some(Outgoing::Text(
            Utf8Bytes::try_from(payload.slice(payload.len() - body.len()..)).ok()?,
        )),
        b'C' => {
            let (code, _) = body.split_first_chunk::<2>()?;
            let code = u16::from_be_bytes(*code);
            wire_close::ALL
                .into_iter()
                .find(|c| c.code() == code)
                .map(Outgoing::Close)
        }
        b'E' => None,
        _ => return None,
    };
    Some((seq, outgoing))
}

/// The welcome of a relayed join that claimed the guest's seat carries
/// the hash of the secret the socket's node keeps (the owner never sees
/// the secret): `text` with that secret in the hash's place. Any other
/// frame is returned as it is.
pub(super) fn restore_secret(text: Utf8Bytes, hash: &TokenHash, secret: &Token) -> Utf8Bytes {
    let placeholder = format!("\"secret\":\"{}\"", hash.as_str());
    if !text.as_str().contains(&placeholder) {
        return text;
    }
    let restored = format!("\"secret\":\"{}\"", secret.as_str());
    Utf8Bytes::from(text.as_str().replacen(&placeholder, &restored, 1))
}

/// Where a relayed frame stands against the last one delivered.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum InSequence {
    /// The next one: deliver it.
    Next,
    /// Delivered already: drop it.
    Again,
    /// Frames before it went missing.
    Gap,
}

pub(super) fn in_sequence(received: u64, seq: u64) -> InSequence {
    // The sequence of one connection never runs out of numbers.
    let Some(next) = received.checked_add(1) else {
        return InSequence::Again;
    };
    match seq.cmp(&next) {
        std::cmp::Ordering::Equal => InSequence::Next,
        std::cmp::Ordering::Less => InSequence::Again,
        std::cmp::Ordering::Greater => InSequence::Gap,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::MOVED;

    /// The close reasons a table sends, as the static strings they are.
    fn static_reason(reason: &str) -> &'static str {
        const KNOWN: [&str; 2] = ["replaced by a newer connection", MOVED];
        KNOWN
            .into_iter()
            .find(|known| *known == reason)
            .unwrap_or("closed")
    }

    #[test]
    fn a_relayed_close_keeps_its_code_and_reason() {
        let frame = relay_frame(7, Some(&Outgoing::Close(wire_close::Moved)));
        assert_eq!(frame[0], b'C');
        assert_eq!(u16::from_be_bytes([frame[9], frame[10]]), 1012);
        assert_eq!(
            static_reason(std::str::from_utf8(&frame[11..]).unwrap()),
            MOVED
        );
        assert_eq!(static_reason("something else"), "closed");
        assert!(matches!(
            read_relay_frame(&frame),
            Some((7, Some(Outgoing::Close(wire_close::Moved))))
        ));
    }

    #[test]
    fn a_relayed_frame_keeps_its_number_and_its_text() {
        let text = Outgoing::Text(Utf8Bytes::from_static("{\"type\":\"pong\"}"));
        let Some((seq, Some(Outgoing::Text(back)))) =
            read_relay_frame(&relay_frame(u64::MAX - 1, Some(&text)))
        else {
            panic!("a text frame reads back as text");
        };
        assert_eq!((seq, back.as_str()), (u64::MAX - 1, "{\"type\":\"pong\"}"));
        assert!(matches!(
            read_relay_frame(&relay_frame(3, None)),
            Some((3, None))
        ));
        // Too short, an unknown kind, text that is not UTF-8.
        let read = |bytes: &'static [u8]| read_relay_frame(&Bytes::from_static(bytes));
        assert!(read(b"T1234567").is_none());
        assert!(read(b"X12345678").is_none());
        assert!(read(b"T\0\0\0\0\0\0\0\x01\xff").is_none());
        assert!(read(b"").is_none());
    }

    #[test]
    fn a_claimed_seats_secret_takes_its_hashs_place_in_the_welcome_only() {
        let secret = Token::generate().unwrap();
        let hash = secret.hash();
        let welcome = format!(
            "{{\"type\":\"welcome\",\"role\":\"player\",\"player\":\"guest\",\"secret\":\"{}\"}}",
            hash.as_str()
        );
        let restored = restore_secret(Utf8Bytes::from(welcome), &hash, &secret);
        let message: serde_json::Value = serde_json::from_str(restored.as_str()).unwrap();
        assert_eq!(message["secret"], secret.as_str());
        assert!(!restored.as_str().contains(hash.as_str()));
        // A spectator's welcome, or a player's who claimed nothing.
        let plain = "{\"type\":\"welcome\",\"role\":\"spectator\"}";
        let kept = restore_secret(Utf8Bytes::from_static(plain), &hash, &secret);
        assert_eq!(kept.as_str(), plain);
    }

    #[test]
    fn frames_are_delivered_in_sequence_once_and_a_missing_one_is_found() {
        assert_eq!(in_sequence(0, 1), InSequence::Next);
        assert_eq!(in_sequence(41, 42), InSequence::Next);
        assert_eq!(in_sequence(42, 42), InSequence::Again);
        assert_eq!(in_sequence(42, 3), InSequence::Again);
        assert_eq!(in_sequence(42, 44), InSequence::Gap);
        assert_eq!(in_sequence(0, 2), InSequence::Gap);
        assert_eq!(in_sequence(u64::MAX, u64::MAX), InSequence::Again);
    }
}
