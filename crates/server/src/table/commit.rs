//! Committing events: stored first (with the rows of the games they end),
//! then acknowledged, applied, kept for reconnecting clients and broadcast.

use axum::extract::ws::Utf8Bytes;
use baghchal_protocol as wire;

use crate::stats::ActionStage;
use crate::storage::StorageError;
use baghchal_table::boards::Board;
use baghchal_table::finished::FinishedGame;
use baghchal_table::play::{Event, Logged};
use baghchal_table::recent_ids::ClientId;
use baghchal_table::seat::Player;
use baghchal_table::time::Timestamp;
use baghchal_table::view::event_to_wire;

use super::conn::{encode, encode_ack, Outgoing, EVENT_LOG_BYTES, EVENT_LOG_LEN};
use super::{Conn, Sent, Table};

impl Table {
    /// Stores `event` on `board`, one the table made by itself at `at`,
    /// then applies it and broadcasts it. Returns `false`, with nothing
    /// changed, when storing failed.
    pub(super) async fn commit(&mut self, board: Board, event: Event, at: Timestamp) -> bool {
        self.commit_events(vec![(board, event)], None, None, at)
            .await
    }

    /// Stores `events` (consecutive versions, each on its board) in one
    /// transaction, as accepted at `at` (the moment they were decided
    /// at), then acknowledges them once to their sender, and applies and
    /// broadcasts each. Returns `false`, with nothing changed, when
    /// storing failed.
    pub(super) async fn commit_events(
        &mut self,
        events: Vec<(Board, Event)>,
        player: Option<Player>,
        client_id: Option<&ClientId>,
        at: Timestamp,
    ) -> bool {
        let first = self.boards.version() + 1;
        // Tables with an unfinished game resume at start-up; a finished bots
        // table starts its next game when someone comes to watch.
        let ending = self.boards.ending(&events);
        let active = self.boards.active_after(&events, &ending);
        let finished = self.games_ended_by(first, &events, &ending, at);
        let logged: Vec<Logged> = (first..)
            .zip(&events)
            .map(|(version, &(board, event))| Logged {
                version,
                event,
                player,
                client_id: client_id.map(|id| id.as_str().to_owned()),
                at,
                board,
            })
            .collect();
        let handed = std::time::Instant::now();
        let active_changed = (self.active_stored != Some(active)).then_some(active);
        if let Err(e) = self
            .context
            .storage
            .append_events(
                &self.id,
                logged,
                &finished,
                active_changed,
                self.tenure.epoch,
            )
            .await
        {
            if matches!(e, StorageError::Fenced) {
                tracing::warn!(
                    version = first,
                    "the store refused a write: another node owns this table"
                );
                self.fenced = true;
            } else {
                tracing::error!(error = %e, version = first, "storing an event failed");
            }
            return false;
        }
        let stored = std::time::Instant::now();
        crate::stats::stage(ActionStage::Store, stored - handed);
        if player.is_some() || self.active_stored.is_some() {
            self.active_stored = Some(active);
        }
        // Stored: acknowledged to the sender, whose socket writes the
        // acknowledgement with the events that follow it.
        if let (Some(player), Some(id)) = (player, client_id) {
            self.recent.insert(player, id.hash());
            if let Some(conn) = self.seat(player) {
                let _ = conn
                    .outbox
                    .try_send(Outgoing::Text(encode_ack(id.as_str())));
            }
        }
        for (version, (board, event)) in (first..).zip(events) {
            if let Err(refusal) = self.boards.apply(board, event, at) {
                // `decide` approved it, and the events of one commit are
                // of different boards: this cannot happen.
                tracing::error!(refusal = ?refusal, "a decided event did not apply");
                return false;
            }
            let Some(play) = self.boards.get(board) else {
                return false;
            };
            let event_on_wire = event_to_wire(&event, play.game_number());
            let Some(state) = self.boards.state(board, at) else {
                return false;
            };
            let clocked = state.clock.is_some();
            let message = wire::ServerMessage::Event {
                version,
                board: self.boards.is_match().then_some(board),
                event: event_on_wire,
                state,
            };
            let frame = encode(&message);
            self.remember(Sent {
                version,
                frame: frame.clone(),
                clocked: clocked.then(|| Box::new(message)),
            });
            self.broadcast(frame);
            tracing::debug!(version, board, event = ?event, "committed");
        }
        crate::stats::stage(ActionStage::Broadcast, stored.elapsed());
        if self.absence() != self.absent {
            // The game left its abortable start or ended: the banner
            // appears or goes.
            self.broadcast_presence();
        }
        self.schedule_computer();
        self.schedule_next_bots_game();
        true
    }

    /// The rows of the games that `events`, from version `first` on, end
    /// (those at the indices `ending`): stored in the same transaction as
    /// the events. Worked out on a copy of the board, and only for an
    /// event that ends its game.
    pub(super) fn games_ended_by(
        &self,
        first: u64,
        events: &[(Board, Event)],
        ending: &[usize],
        at: Timestamp,
    ) -> Vec<FinishedGame> {
        let mut finished = Vec::new();
        for &i in ending {
            let (board, _) = events[i];
            let Some(play) = self.boards.get(board) else {
                continue;
            };
            let mut after = play.clone();
            let ended = events[..=i]
                .iter()
                .filter(|(b, _)| *b == board)
                .map(|&(_, event)| after.apply(event, at))
                .last();
            if let Some(Ok(Some(ended))) = ended {
                finished.push(FinishedGame::new(
                    &self.id,
                    &self.options,
                    &self.seats,
                    self.rated,
                    board,
                    first + i as u64,
                    ended,
                ));
            }
        }
        finished
    }

    /// Keeps `sent` for reconnecting clients, within the log's bounds.
    pub(super) fn remember(&mut self, sent: Sent) {
        self.log_bytes += sent.frame.len();
        self.log.push_back(sent);
        while self.log.len() > EVENT_LOG_LEN
            || (self.log_bytes > EVENT_LOG_BYTES && self.log.len() > 1)
        {
            if let Some(old) = self.log.pop_front() {
                self.log_bytes -= old.frame.len();
            }
        }
    }

    /// Sends `frame` to everyone; a connection that cannot keep up is
    /// dropped (its socket closes with 4001).
    pub(super) fn broadcast(&mut self, frame: Utf8Bytes) {
        let sent = std::time::Instant::now();
        let mut dropped = false;
        for (player, seat) in [
            (Player::Host, &mut self.host),
            (Player::Guest, &mut self.guest),
        ] {
            if let Some(conn) = seat {
                if conn
                    .outbox
                    .try_send(Outgoing::Event(frame.clone(), sent))
                    .is_err()
                {
                    tracing::info!(conn_id = conn.id, "dropping a slow or closed player socket");
                    *seat = None;
                    // Read only here: a broadcast that drops nobody needs no time.
                    self.seats.left(player, self.context.clock.now());
                    dropped = true;
                }
            }
        }
        let before = self.spectators.len();
        self.spectators.retain(|_, outbox| {
            outbox
                .try_send(Outgoing::Event(frame.clone(), sent))
                .is_ok()
        });
        if self.spectators.len() != before {
            tracing::info!(
                dropped = before - self.spectators.len(),
                "dropping slow spectators"
            );
            dropped = true;
        }
        if dropped {
            self.broadcast_presence();
        }
    }

    pub(super) fn seat(&self, player: Player) -> Option<&Conn> {
        match player {
            Player::Host => self.host.as_ref(),
            Player::Guest => self.guest.as_ref(),
        }
    }
}
