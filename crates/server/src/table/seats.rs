//! Seats and the gallery: joining with a token, a reconnecting client's
//! missed events or a snapshot, leaving, and who is away.

use axum::extract::ws::Utf8Bytes;
use baghchal_protocol as wire;
use baghchal_rules::Side;

use crate::storage::StorageError;
use baghchal_table::boards::Board;
use baghchal_table::names::side_to_wire;
use baghchal_table::play::Event;
use baghchal_table::seat::Player;
use baghchal_table::seats::{Admission, Key, ABSENCE_GRACE};
use baghchal_table::time::Timestamp;

use crate::token::{Token, TokenHash};

use super::conn::{encode, ConnId, Member, Outbox, Outgoing};
use super::{Conn, Table};

impl Table {
    pub(super) async fn join(
        &mut self,
        conn: ConnId,
        keys: &[Key],
        claim: Option<TokenHash>,
        since: Option<u64>,
        outbox: Outbox,
    ) -> Result<Member, wire::ErrorCode> {
        let identity = keys.iter().find_map(|key| match key {
            Key::Player(id) => Some(id.clone()),
            Key::Link(_) => None,
        });
        let mut claimed = None;
        let member = match self.seats.admit(keys, &self.options, &self.boards)? {
            Admission::Seated(player) => Member::Player(player),
            Admission::ClaimsGuest => {
                // The seat's secret: its hash, and what the welcome carries
                // (the secret, or for a relayed join its hash, which the
                // socket's node replaces by the secret it keeps).
                let (hash, secret) = match claim {
                    Some(hash) => (hash.clone(), hash.as_str().to_owned()),
                    None => {
                        let token = Token::generate().map_err(|e| {
                            tracing::error!(error = %e, "no random bytes");
                            wire::ErrorCode::Internal
                        })?;
                        (token.hash(), token.as_str().to_owned())
                    }
                };
                match self
                    .context
                    .storage
                    .claim_guest_seat(&self.id, &hash, identity.as_deref(), self.tenure.epoch)
                    .await
                {
                    Ok(true) => {}
                    Ok(false) => return Err(wire::ErrorCode::SeatTaken),
                    Err(StorageError::Fenced) => {
                        self.fenced = true;
                        return Err(wire::ErrorCode::Internal);
                    }
                    Err(e) => {
                        tracing::error!(error = %e, "storing the claimed seat failed");
                        return Err(wire::ErrorCode::Internal);
                    }
                }
                self.seats.seat_guest(hash.key(), identity);
                tracing::info!(conn_id = conn, "opponent link claimed");
                claimed = Some(secret);
                Member::Player(Player::Guest)
            }
            Admission::Watches => {
                if self.spectators.len() >= usize::from(self.options.spectator_seats) {
                    return Err(wire::ErrorCode::GalleryFull);
                }
                Member::Spectator
            }
        };

        let welcome = wire::ServerMessage::Welcome {
            protocol: wire::PROTOCOL_VERSION,
            table: wire::TableInfo {
                id: self.id.clone(),
                opponent: self.options.opponent.to_wire(),
                level: self.options.level.map(|l| l.get()),
                variant: self.options.variant(),
                clock: self.options.clock_to_wire(),
                format: self.options.format.to_wire(),
                series_games: self.options.format.series_games(),
            },
            role: match member {
                Member::Player(_) => wire::Role::Player,
                Member::Spectator => wire::Role::Spectator,
            },
            player: match member {
                Member::Player(p) => Some(p.to_wire()),
                Member::Spectator => None,
            },
            secret: claimed,
        };
        let mut frames = vec![encode(&welcome)];
        match since.and_then(|since| self.missed_since(since)) {
            Some(missed) => frames.extend(missed),
            None => frames.push(encode(&self.snapshot())),
        }
        for frame in frames {
            // A fresh outbox has room for a welcome, a snapshot and the
            // missed events (OUTBOX_LEN > EVENT_LOG_LEN + 2).
            let _ = outbox.try_send(Outgoing::Text(frame));
        }
        match member {
            Member::Player(player) => {
                let seat = match player {
                    Player::Host => &mut self.host,
                    Player::Guest => &mut self.guest,
                };
                self.seats.arrived(player);
                if let Some(old) = seat.replace(Conn { id: conn, outbox }) {
                    tracing::info!(conn_id = old.id, "seat taken over by a newer connection");
                    let _ = old
                        .outbox
                        .try_send(Outgoing::Close(wire::CloseCode::Replaced));
                }
            }
            Member::Spectator => {
                self.spectators.insert(conn, outbox);
                self.schedule_next_bots_game();
            }
        }
        // A computer that gave up on a failing database tries again.
        self.schedule_computer();
        tracing::info!(conn_id = conn, member = ?member, since, "joined");
        self.broadcast_presence();
        Ok(member)
    }

    /// The whole current state: every board's game.
    pub(super) fn snapshot(&self) -> wire::ServerMessage {
        let now = self.now();
        let boards: Vec<wire::BoardSnapshot> = self
            .boards
            .iter()
            .filter_map(|(board, play)| {
                Some(wire::BoardSnapshot {
                    moves: play.moves(),
                    state: self.boards.state(board, now)?,
                })
            })
            .collect();
        let first = boards
            .first()
            .cloned()
            .unwrap_or_else(|| wire::BoardSnapshot {
                moves: self.boards.first().moves(),
                state: self.boards.first().state(now),
            });
        wire::ServerMessage::Snapshot {
            version: self.boards.version(),
            moves: first.moves,
            state: first.state,
            boards: if self.boards.is_match() {
                boards
            } else {
                Vec::new()
            },
        }
    }

    /// The events after `since`, if the log still holds them all, each
    /// with the time of sending in its clock.
    pub(super) fn missed_since(&self, since: u64) -> Option<Vec<Utf8Bytes>> {
        let version = self.boards.version();
        if since > version {
            return None;
        }
        if since == version {
            return Some(Vec::new());
        }
        let first = self.log.front()?.version;
        if since + 1 < first {
            return None;
        }
        let now = self.now().rfc3339();
        Some(
            self.log
                .iter()
                .filter(|sent| sent.version > since)
                .map(|sent| match sent.clocked.as_deref() {
                    Some(message) => {
                        let mut message = message.clone();
                        if let wire::ServerMessage::Event { state, .. } = &mut message {
                            if let Some(clock) = &mut state.clock {
                                clock.now.clone_from(&now);
                            }
                        }
                        encode(&message)
                    }
                    None => sent.frame.clone(),
                })
                .collect(),
        )
    }

    pub(super) async fn leave(&mut self, conn: ConnId) {
        let now = self.now();
        let mut left = None;
        for player in [Player::Host, Player::Guest] {
            let seat = match player {
                Player::Host => &mut self.host,
                Player::Guest => &mut self.guest,
            };
            if seat.as_ref().is_some_and(|c| c.id == conn) {
                *seat = None;
                self.seats.left(player, now);
                left = Some(player);
            }
        }
        let spectator = self.spectators.remove(&conn).is_some();
        if left.is_none() && !spectator {
            return;
        }
        tracing::info!(conn_id = conn, "left");
        self.broadcast_presence();
        // A draw offer or a rematch request lapses when its maker leaves:
        // on every board at once, as a match's rematch request was made.
        if let Some(player) = left {
            let lapsed: Vec<(Board, Event)> = self
                .boards
                .iter()
                .flat_map(|(board, play)| {
                    play.withdraw_offers(play.side_of(player))
                        .map(move |event| (board, event))
                })
                .collect();
            if !lapsed.is_empty() && !self.commit_events(lapsed, None, None, self.now()).await {
                tracing::warn!("a lapsed offer could not be stored");
            }
        }
    }

    pub(super) fn member_of(&self, conn: ConnId) -> Option<(Member, Outbox)> {
        if let Some(c) = self.host.as_ref().filter(|c| c.id == conn) {
            return Some((Member::Player(Player::Host), c.outbox.clone()));
        }
        if let Some(c) = self.guest.as_ref().filter(|c| c.id == conn) {
            return Some((Member::Player(Player::Guest), c.outbox.clone()));
        }
        self.spectators
            .get(&conn)
            .map(|outbox| (Member::Spectator, outbox.clone()))
    }

    /// Whether the host cancelled this friend table before its guest
    /// arrived.
    pub(super) fn cancelled(&self) -> bool {
        self.seats.cancelled(&self.options, &self.boards)
    }

    /// The player away from a game in progress, if any (see
    /// [`baghchal_table::seats::Seats::absence`]).
    pub(super) fn absence(&self) -> Option<(Board, Side, Timestamp)> {
        self.seats.absence(&self.boards)
    }

    /// Sends who is connected: the seats as board 1 has them (board 2 of
    /// a match has them crossed).
    pub(super) fn broadcast_presence(&mut self) {
        let play = self.boards.first();
        let seat = |side: Side| {
            let player = play.player_of(side);
            let computer = play.is_computer(side);
            wire::SeatView {
                player: player.to_wire(),
                computer,
                level: if computer {
                    self.options.level.map(|l| l.get())
                } else {
                    None
                },
                connected: computer || self.seat(player).is_some(),
            }
        };
        let now = self.now();
        let absent = self.absence();
        let presence = wire::Presence {
            goats: seat(Side::Goat),
            tigers: seat(Side::Tiger),
            spectators: u32::try_from(self.spectators.len()).unwrap_or(u32::MAX),
            spectator_seats: self.options.spectator_seats,
            absent: absent.map(|(board, side, since)| wire::Absence {
                side: side_to_wire(side),
                board: self.boards.is_match().then_some(board),
                since: since.rfc3339(),
                claimable_at: since.after(ABSENCE_GRACE).rfc3339(),
                now: now.rfc3339(),
            }),
        };
        self.absent = absent;
        self.broadcast(encode(&wire::ServerMessage::Presence(presence)));
    }
}
