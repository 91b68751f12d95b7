//! The frames an owner relays to the node that holds a socket: each with
//! its number in the connection's sequence, delivered strictly in order;
//! one a message, or several in a batch for a node that reads them.

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
    let mut frame = Vec::with_capacity(frame_len(outgoing));
    write_frame(&mut frame, seq, outgoing);
    Bytes::from(frame)
}

/// The length of [`relay_frame`]'s frame for `outgoing`.
fn frame_len(outgoing: Option<&Outgoing>) -> usize {
    9 + match outgoing {
        Some(Outgoing::Text(text) | Outgoing::Event(text, _)) => text.len(),
        Some(Outgoing::Close(close)) => 2 + close.reason().len(),
        None => 0,
    }
}

fn write_frame(out: &mut Vec<u8>, seq: u64, outgoing: Option<&Outgoing>) {
    let kind = match outgoing {
        Some(Outgoing::Text(_) | Outgoing::Event(..)) => b'T',
        Some(Outgoing::Close(_)) => b'C',
        None => b'E',
    };
    out.push(kind);
    out.extend_from_slice(&seq.to_be_bytes());
    match outgoing {
        Some(Outgoing::Text(text) | Outgoing::Event(text, _)) => {
            out.extend_from_slice(text.as_bytes());
        }
        Some(Outgoing::Close(close)) => {
            out.extend_from_slice(&close.code().to_be_bytes());
            out.extend_from_slice(close.reason().as_bytes());
        }
        None => {}
    }
}

/// How many bytes of frames a batch gathers before it goes: a single
/// frame larger than this still goes, alone.
pub(super) const BATCH_BYTES: usize = 64 * 1024;

/// Frames for one connection in one message, for a node that said at its
/// join that it reads them: `B`, then each frame as [`relay_frame`]
/// writes it, after its length in four bytes (big-endian). A batch of one
/// frame goes as that frame alone.
pub(super) struct Batch {
    message: Vec<u8>,
    frames: usize,
}

impl Batch {
    /// A batch of frame `seq`.
    pub(super) fn new(seq: u64, outgoing: Option<&Outgoing>) -> Batch {
        let mut batch = Batch {
            message: Vec::with_capacity(5 + frame_len(outgoing)),
            frames: 0,
        };
        batch.message.push(b'B');
        batch.push(seq, outgoing);
        batch
    }

    /// Whether `outgoing`'s frame still fits in this batch.
    pub(super) fn fits(&self, outgoing: &Outgoing) -> bool {
        self.message.len() + 4 + frame_len(Some(outgoing)) <= BATCH_BYTES
    }

    /// Adds frame `seq`, the next in the connection's sequence.
    pub(super) fn push(&mut self, seq: u64, outgoing: Option<&Outgoing>) {
        let at = self.message.len();
        self.message.extend_from_slice(&[0; 4]);
        write_frame(&mut self.message, seq, outgoing);
        // A frame is a text of a connection's queue: far below 4 GiB.
        let len = u32::try_from(self.message.len() - at - 4).unwrap_or(u32::MAX);
        self.message[at..at + 4].copy_from_slice(&len.to_be_bytes());
        self.frames += 1;
    }

    /// How many frames it holds.
    pub(super) fn frames(&self) -> usize {
        self.frames
    }

    /// The message to publish.
    pub(super) fn into_message(self) -> Bytes {
        let message = Bytes::from(self.message);
        if self.frames == 1 {
            message.slice(5..)
        } else {
            message
        }
    }
}

/// The frames of a relayed message, in order: the one it is, or a
/// batch's. An item is `None` for a frame that cannot be read; the frames
/// after it in the message are not read.
pub(super) fn read_relay_message(payload: &Bytes) -> RelayFrames<'_> {
    RelayFrames {
        payload,
        at: 1,
        done: false,
    }
}

/// See [`read_relay_message`].
pub(super) struct RelayFrames<'a> {
    payload: &'a Bytes,
    /// Where a batch's next frame starts.
    at: usize,
    done: bool,
}

impl RelayFrames<'_> {
    fn batched_frame(&mut self) -> Option<(u64, Option<Outgoing>)> {
        let (len, _) = self.payload.get(self.at..)?.split_first_chunk::<4>()?;
        let start = self.at + 4;
        let end = start.checked_add(usize::try_from(u32::from_be_bytes(*len)).ok()?)?;
        if end > self.payload.len() {
            return None;
        }
        self.at = end;
        read_relay_frame(&self.payload.slice(start..end))
    }
}

impl Iterator for RelayFrames<'_> {
    type Item = Option<(u64, Option<Outgoing>)>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        if self.payload.first() != Some(&b'B') {
            self.done = true;
            return Some(read_relay_frame(self.payload));
        }
        if self.at >= self.payload.len() {
            self.done = true;
            return None;
        }
        let frame = self.batched_frame();
        self.done = frame.is_none();
        Some(frame)
    }
}

/// A relayed frame's number and what it carries (`None`: the connection
/// ends, or a close code this node does not know); `None` for a frame
/// that cannot be read. A text is handed on as a slice of `payload`'s
/// bytes, checked but not copied.
fn read_relay_frame(payload: &Bytes) -> Option<(u64, Option<Outgoing>)> {
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

    fn text(s: &'static str) -> Outgoing {
        Outgoing::Text(Utf8Bytes::from_static(s))
    }

    /// The frames of a message, each as its number and its text (or its
    /// close code); `None` for one that cannot be read.
    fn frames(message: &Bytes) -> Vec<Option<(u64, String)>> {
        read_relay_message(message)
            .map(|frame| {
                frame.map(|(seq, outgoing)| {
                    let body = match outgoing {
                        Some(Outgoing::Text(text)) => text.as_str().to_owned(),
                        Some(Outgoing::Close(close)) => close.code().to_string(),
                        Some(Outgoing::Event(..)) => unreachable!("read as text"),
                        None => "end".to_owned(),
                    };
                    (seq, body)
                })
            })
            .collect()
    }

    #[test]
    fn a_batch_reads_back_as_its_frames_in_order() {
        let mut batch = Batch::new(4, Some(&text("{\"type\":\"ack\"}")));
        let event = Outgoing::Event(
            Utf8Bytes::from_static("{\"type\":\"event\"}"),
            std::time::Instant::now(),
        );
        assert!(batch.fits(&event));
        batch.push(5, Some(&event));
        batch.push(6, Some(&Outgoing::Close(wire_close::Moved)));
        batch.push(7, None);
        assert_eq!(batch.frames(), 4);
        let message = batch.into_message();
        assert_eq!(message[0], b'B');
        assert_eq!(
            frames(&message),
            [
                Some((4, "{\"type\":\"ack\"}".to_owned())),
                Some((5, "{\"type\":\"event\"}".to_owned())),
                Some((6, "1012".to_owned())),
                Some((7, "end".to_owned())),
            ]
        );
    }

    #[test]
    fn a_batch_of_one_frame_is_that_frame_alone() {
        let pong = text("{\"type\":\"pong\"}");
        let batch = Batch::new(9, Some(&pong));
        assert_eq!(batch.frames(), 1);
        let message = batch.into_message();
        assert_eq!(message, relay_frame(9, Some(&pong)));
        assert_eq!(
            frames(&message),
            [Some((9, "{\"type\":\"pong\"}".to_owned()))]
        );
    }

    #[test]
    fn a_batch_stops_short_of_its_size_but_takes_a_large_frame_alone() {
        let large: &'static str = "x".repeat(BATCH_BYTES).leak();
        let batch = Batch::new(1, Some(&text("{}")));
        assert!(!batch.fits(&text(large)));
        let half: &'static str = "y".repeat(BATCH_BYTES / 2).leak();
        let mut batch = Batch::new(1, Some(&text(half)));
        assert!(batch.fits(&text(half.get(..BATCH_BYTES / 2 - 40).unwrap())));
        assert!(!batch.fits(&text(half)));
        batch.push(2, Some(&text("{}")));
        assert_eq!(batch.frames(), 2);
        // Alone, a frame of any size goes.
        let alone = Batch::new(3, Some(&text(large))).into_message();
        assert_eq!(frames(&alone), [Some((3, large.to_owned()))]);
    }

    #[test]
    fn a_broken_batch_gives_the_frames_before_the_break_and_stops() {
        let mut batch = Batch::new(1, Some(&text("\"a\"")));
        batch.push(2, Some(&text("\"b\"")));
        let whole = batch.into_message();
        // Cut inside the second frame: its length runs past the end.
        let cut = whole.slice(..whole.len() - 1);
        assert_eq!(frames(&cut), [Some((1, "\"a\"".to_owned())), None]);
        // A length that does not fit in four bytes' worth of message.
        let mut bogus = whole[..].to_vec();
        bogus.extend_from_slice(&[0xff, 0xff, 0xff, 0xff]);
        let read = frames(&Bytes::from(bogus));
        assert_eq!(read.len(), 3);
        assert_eq!(read[2], None);
        // A batch's frame that is not a frame.
        let odd = Bytes::from_static(b"B\0\0\0\x02XY");
        assert_eq!(frames(&odd), [None]);
        // Nothing after the kind: no frame at all.
        assert!(frames(&Bytes::from_static(b"B")).is_empty());
        // A single frame that cannot be read.
        assert_eq!(frames(&Bytes::from_static(b"T1")), [None]);
    }

    #[test]
    fn any_bytes_read_as_frames_or_stop_and_never_panic() {
        // A small xorshift: the same bytes on every run.
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..20_000 {
            let len = (next() % 40) as usize;
            let mut bytes: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            // Mostly batches, with lengths that are sometimes right.
            if next() % 4 != 0 {
                bytes.insert(0, b'B');
                if bytes.len() > 4 && next() % 2 == 0 {
                    let inner = u32::try_from(bytes.len() - 5)
                        .unwrap()
                        .min((next() % 16) as u32);
                    bytes[1..5].copy_from_slice(&inner.to_be_bytes());
                }
            }
            let message = Bytes::from(bytes);
            let read: Vec<_> = read_relay_message(&message).collect();
            // At most one unreadable frame, and only last.
            let broken = read.iter().position(Option::is_none);
            assert!(broken.is_none_or(|at| at == read.len() - 1), "{message:?}");
            // A frame of a batch takes at least its length and a kind.
            assert!(read.len() <= message.len() / 5 + 1, "{message:?}");
        }
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
