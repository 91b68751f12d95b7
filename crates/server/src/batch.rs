//! A socket's batched writes: the frames its table queued together leave
//! in one write (an acknowledgement with the event it acknowledges, a
//! welcome with the events a reconnecting client missed).

use axum::extract::ws::Message;
use baghchal_protocol::CloseCode;
use futures_util::{Sink, SinkExt};
use tokio::sync::mpsc;

use crate::table::conn::Outgoing;

/// Frames a socket writes at once at most, of those its table queued.
pub const WRITE_AT_ONCE: usize = 8;

/// Bytes after which a socket stops taking more frames into one write:
/// an acknowledgement and its event fit, and the write buffer, which
/// keeps the size of the largest write for the socket's life, stays small.
pub const WRITE_BYTES_AT_ONCE: usize = 4 * 1024;

/// What one batch wrote.
#[derive(Debug, Default)]
pub struct Written {
    /// When the table sent each event of the batch (for the stage's
    /// figures), at the event's place among the batch's frames. (Kept in
    /// place: a list on the heap was an allocation a socket an action.)
    pub events: [Option<std::time::Instant>; WRITE_AT_ONCE],
    /// The socket is to close with this code: the table said so, or it
    /// dropped the connection for not keeping up (`None` from the queue).
    pub close: Option<CloseCode>,
}

/// Feeds `first` and whatever else `inbox` holds by now, up to
/// [`WRITE_AT_ONCE`] frames or about [`WRITE_BYTES_AT_ONCE`] bytes, into
/// `sink`, then flushes it once. A frame is taken from `inbox` only once
/// it will be written in this batch: the rest stay queued for the next.
/// `first` is `None` when the table dropped the connection.
pub async fn write_batch<S>(
    sink: &mut S,
    first: Option<Outgoing>,
    inbox: &mut mpsc::Receiver<Outgoing>,
) -> Result<Written, S::Error>
where
    S: Sink<Message> + Unpin,
{
    let mut written = Written::default();
    let mut next = first;
    let mut frames = 0;
    let mut bytes = 0;
    loop {
        match next {
            Some(Outgoing::Text(text)) => {
                bytes += text.len();
                sink.feed(Message::Text(text)).await?;
            }
            Some(Outgoing::Event(text, sent)) => {
                bytes += text.len();
                sink.feed(Message::Text(text)).await?;
                written.events[frames] = Some(sent);
            }
            Some(Outgoing::Close(code)) => {
                written.close = Some(code);
                break;
            }
            // The table dropped this connection: it did not keep up.
            None => {
                written.close = Some(CloseCode::TooSlow);
                break;
            }
        }
        frames += 1;
        if frames >= WRITE_AT_ONCE || bytes >= WRITE_BYTES_AT_ONCE {
            break;
        }
        next = match inbox.try_recv() {
            Ok(outgoing) => Some(outgoing),
            Err(mpsc::error::TryRecvError::Empty) => break,
            Err(mpsc::error::TryRecvError::Disconnected) => None,
        };
    }
    sink.flush().await?;
    Ok(written)
}

#[cfg(test)]
mod tests {
    use std::convert::Infallible;

    use axum::extract::ws::Utf8Bytes;
    use proptest::prelude::*;

    use super::*;

    fn frame(n: usize, len: usize) -> Outgoing {
        let text = format!("{n:06}{}", "x".repeat(len));
        Outgoing::Text(Utf8Bytes::from(text))
    }

    fn number(message: &Message) -> usize {
        let Message::Text(text) = message else {
            panic!("not a text frame: {message:?}")
        };
        text.as_str()[..6].parse().expect("a numbered frame")
    }

    /// Writes every batch until the queue closes, as a socket does, and
    /// returns the frames in the order written.
    async fn drain(mut inbox: mpsc::Receiver<Outgoing>) -> Vec<Message> {
        let mut sink: Vec<Message> = Vec::new();
        while let Some(first) = inbox.recv().await {
            let written: Result<Written, Infallible> =
                write_batch(&mut sink, Some(first), &mut inbox).await;
            assert!(written.is_ok_and(|w| w.close.is_none()));
        }
        sink
    }

    /// Frames queued in bursts (each burst's sizes given), the writer
    /// running between the bursts: every frame is written once, in order.
    fn run(bursts: Vec<Vec<usize>>) -> Vec<usize> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime");
        runtime.block_on(async {
            let total: usize = bursts.iter().map(Vec::len).sum();
            let (outbox, inbox) = mpsc::channel(total.max(1));
            let writer = tokio::spawn(drain(inbox));
            let mut n = 0;
            for burst in bursts {
                for len in burst {
                    outbox
                        .send(frame(n, len))
                        .await
                        .expect("the writer is there");
                    n += 1;
                }
                tokio::task::yield_now().await;
            }
            drop(outbox);
            let written = writer.await.expect("the writer ends");
            written.iter().map(number).collect()
        })
    }

    #[test]
    fn a_join_of_more_frames_than_one_write_takes_loses_none() {
        // A welcome, the missed events and a presence, queued at once.
        for count in 1..=3 * WRITE_AT_ONCE {
            assert_eq!(run(vec![vec![500; count]]), (0..count).collect::<Vec<_>>());
        }
        // Frames that pass the byte bound before the count bound.
        assert_eq!(run(vec![vec![3000; 7]]), (0..7).collect::<Vec<_>>());
    }

    #[test]
    fn a_close_ends_the_batch_and_keeps_what_came_before() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime");
        runtime.block_on(async {
            let (outbox, mut inbox) = mpsc::channel(8);
            for n in 1..3 {
                outbox.try_send(frame(n, 10)).expect("room");
            }
            outbox
                .try_send(Outgoing::Close(CloseCode::Replaced))
                .expect("room");
            outbox.try_send(frame(9, 10)).expect("room");
            let mut sink: Vec<Message> = Vec::new();
            let written: Result<Written, Infallible> =
                write_batch(&mut sink, Some(frame(0, 10)), &mut inbox).await;
            let written = written.expect("a vector takes every frame");
            assert_eq!(written.close, Some(CloseCode::Replaced));
            assert_eq!(sink.iter().map(number).collect::<Vec<_>>(), [0, 1, 2]);

            // A queue the table closed: the socket is too slow.
            let written: Result<Written, Infallible> =
                write_batch(&mut sink, None, &mut inbox).await;
            assert_eq!(written.expect("written").close, Some(CloseCode::TooSlow));
        });
    }

    proptest! {
        #[test]
        fn every_frame_queued_is_written_once_in_order(
            bursts in prop::collection::vec(
                // Mostly the size of an event, some the size of a snapshot.
                prop::collection::vec(prop_oneof![4 => 0usize..700, 1 => 700usize..6000], 0..40),
                1..12,
            )
        ) {
            let total: usize = bursts.iter().map(Vec::len).sum();
            prop_assert_eq!(run(bursts), (0..total).collect::<Vec<_>>());
        }
    }
}
