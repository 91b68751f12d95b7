//! A player's command, and what the table does by itself: the flag that
//! falls, the first-move timer, the abandoned game, the clocks a restart
//! paused.

use baghchal_protocol as wire;

use crate::stats::ActionStage;
use baghchal_table::boards::{Board, UnknownBoard};
use baghchal_table::play::{Intent, Refusal};
use baghchal_table::recent_ids::ClientId;
use baghchal_table::time::Timestamp;

use super::conn::{encode, encode_ack, ConnId, Member, Outgoing};
use super::Table;

impl Table {
    /// A player's action on `board` (as the client named it), taken up
    /// at `taken`.
    pub(super) async fn act(
        &mut self,
        conn: ConnId,
        id: Option<String>,
        board: Option<Board>,
        intent: Result<Intent, String>,
        taken: std::time::Instant,
    ) {
        // A connection replaced or dropped meanwhile has no say.
        let Some((member, outbox)) = self.member_of(conn) else {
            return;
        };
        // Hashed once: looked up now, remembered once stored.
        let id = id.map(ClientId::new);
        let reply_error =
            |code: wire::ErrorCode, reason: Option<wire::IllegalReason>, message: String| {
                crate::stats::action_refused(code);
                let _ = outbox.try_send(Outgoing::Text(encode(&wire::ServerMessage::Error {
                    id: id.as_ref().map(|id| id.as_str().to_owned()),
                    code,
                    reason,
                    message,
                })));
            };
        let Member::Player(player) = member else {
            reply_error(
                wire::ErrorCode::Spectator,
                None,
                "spectators cannot act".into(),
            );
            return;
        };
        if let Some(id) = &id {
            if self.recent.contains(player, id.hash()) {
                let _ = outbox.try_send(Outgoing::Text(encode_ack(id.as_str())));
                return;
            }
        }
        let intent = match intent {
            Ok(intent) => intent,
            Err(message) => {
                reply_error(
                    wire::ErrorCode::IllegalAction,
                    Some(wire::IllegalReason::Notation),
                    message,
                );
                return;
            }
        };
        let target = match self.boards.target(board, &intent) {
            Ok(target) => target,
            Err(UnknownBoard) => {
                reply_error(
                    wire::ErrorCode::UnknownBoard,
                    None,
                    UnknownBoard::message(self.boards.count()),
                );
                return;
            }
        };
        // A flag due falls before anything else is decided, at the same
        // moment: the one time read for the whole action.
        let now = self.now();
        if !self.flag_if_due(now).await {
            reply_error(
                wire::ErrorCode::Internal,
                None,
                "the server could not store that; nothing changed, try again".into(),
            );
            return;
        }
        let refuse = |refusal: Refusal| {
            let (code, reason) = refusal.code();
            reply_error(code, reason, refusal.message());
        };
        if intent == Intent::Rematch && self.cancelled() {
            reply_error(
                wire::ErrorCode::GameOver,
                None,
                "the host cancelled this table".into(),
            );
            return;
        }
        let events = match self.boards.decide(player, target, intent, now) {
            Ok(events) => events,
            Err(refusal) => return refuse(refusal),
        };
        if let Intent::Claim(_) = intent {
            // Only the game the absence names may be claimed.
            let claimable = self.seats.may_claim(&self.boards, player, target, now);
            if !claimable {
                return refuse(Refusal::NotClaimable);
            }
        }
        crate::stats::stage(ActionStage::Decide, taken.elapsed());
        if self
            .commit_events(events, Some(player), id.as_ref(), now)
            .await
        {
            crate::stats::action_accepted();
        } else {
            reply_error(
                wire::ErrorCode::Internal,
                None,
                "the server could not store that; nothing changed, try again".into(),
            );
        }
    }

    /// When the first flag falls on any board, or the first-move timer
    /// ends a game (at a table the lobby made): the timers that keep the
    /// table in memory.
    pub(super) fn clock_due(&self) -> Option<Timestamp> {
        if !self.boards.resumes().is_empty() {
            // A clock a restart paused runs again at once.
            return Some(self.opened);
        }
        let flag = self.boards.next_flag(self.flag_not_before);
        let first = self.seats.first_move_grace().and_then(|grace| {
            self.boards
                .next_first_move(grace, self.opened, self.flag_not_before)
        });
        flag.into_iter().chain(first).min()
    }

    /// When the table next ends a game by itself: [`Table::clock_due`], or
    /// a game nobody played on for long ends as abandoned (which keeps no
    /// table in memory: one loaded after the moment ends it at once).
    pub(super) fn flag_due(&self) -> Option<Timestamp> {
        self.clock_due()
            .into_iter()
            .chain(self.boards.abandon_due())
            .min()
    }

    /// Runs again each clock a restart paused, ends each board's game on
    /// time if its running side's time is out, aborts a lobby game whose
    /// side to move let the first-move timer run out, and ends a game
    /// nobody played on for long as abandoned, each as of `now`. Returns
    /// `false` only when an event could not be stored.
    pub(super) async fn flag_if_due(&mut self, now: Timestamp) -> bool {
        let mut due = self.boards.resumes();
        due.extend(self.boards.flags_due(now, self.flag_not_before));
        if let Some(grace) = self.seats.first_move_grace() {
            due.extend(
                self.boards
                    .first_moves_due(now, grace, self.opened, self.flag_not_before),
            );
        }
        let abandoned = due.is_empty();
        if abandoned {
            due = self.boards.abandoned_at(now);
        }
        let mut stored = true;
        for (board, event) in &due {
            tracing::info!(event = ?event, board, "the table acts by itself");
            stored &= self.commit(*board, *event, now).await;
        }
        if abandoned && stored && !due.is_empty() {
            self.left_alone = true;
        }
        stored
    }

    /// A single server is stopping: each running clock stops with it
    /// (`baghchal_table::restart`). In a cluster a stop hands the table
    /// over instead.
    pub(super) async fn pause_clocks(&mut self) {
        if self.tenure.epoch.is_some() {
            return;
        }
        let pauses = self.boards.pauses();
        if !pauses.is_empty() && !self.commit_events(pauses, None, None, self.now()).await {
            tracing::warn!("the clocks could not be paused: the downtime will be charged");
        }
    }
}
