//! The lobby's task: on its clock it marks this node's players present,
//! sweeps the absent and runs the pools' waves; on its clock, a poke (a
//! change made here) or a word from another node, it reads the lobby's
//! state and tells this node's players what changed.

use std::sync::PoisonError;

use baghchal_protocol::{LobbyEvent, Paired};
use tokio_util::sync::CancellationToken;

use super::{hidden_from, without, Channels, Lobby, GONE_AFTER_MS, PRESENCE_EVERY, WAVE_EVERY};
use crate::cluster::{LobbyChanges, Node};
use crate::storage::StorageError;

impl Lobby {
    /// The lobby's task, until `stop`.
    pub async fn run(self, stop: CancellationToken) {
        let Some(mut left) = self
            .inner
            .left_rx
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
        else {
            return;
        };
        // Word of the changes made here goes out from a task of its own:
        // while NATS is away its client's queue can fill, and then a
        // publish waits; that must hold the word, never the lobby.
        if let Some(node) = self.inner.node.clone() {
            let lobby = self.clone();
            let stop = stop.clone();
            tokio::spawn(async move { lobby.announce_changes(&node, &stop).await });
        }
        // Word of changes made on the other nodes, when in a cluster.
        let mut changes = match &self.inner.node {
            Some(node) => match node.lobby_changes().await {
                Ok(changes) => Some(changes),
                Err(e) => {
                    tracing::warn!(error = %e, "no word of the lobby's changes on other nodes; reading it every tick");
                    None
                }
            },
            None => None,
        };
        let mut tick: u32 = 0;
        // The clock of the waves and presence: pokes in between do not
        // delay it.
        let mut every = tokio::time::interval(self.inner.tick);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                () = stop.cancelled() => return,
                () = self.inner.poke.notified() => {
                    if let Err(e) = self.step(None).await {
                        tracing::warn!(error = %e, "the lobby's step failed");
                    }
                    continue;
                }
                Some(()) = next_change(&mut changes) => {
                    // Through the poke: a burst of words is one read.
                    self.inner.poke.notify_one();
                    continue;
                }
                _ = every.tick() => tick = tick.wrapping_add(1),
                Some(player) = left.recv() => {
                    let gone = !self.lock().by_player.contains_key(&player);
                    if gone {
                        if let Err(e) = self.inner.storage.leave_lobby(&player).await {
                            tracing::warn!(error = %e, "leaving the lobby failed");
                        } else {
                            self.changed();
                        }
                    }
                    continue;
                }
            }
            if let Err(e) = self.step(Some(tick)).await {
                tracing::warn!(error = %e, "the lobby's step failed");
            }
        }
    }

    /// Tells the other nodes of `node`'s cluster of each change made
    /// here ([`Lobby::changed`]; a burst of changes is one word), until
    /// `stop`.
    async fn announce_changes(&self, node: &Node, stop: &CancellationToken) {
        loop {
            tokio::select! {
                () = stop.cancelled() => return,
                () = self.inner.announce.notified() => node.announce_lobby_change().await,
            }
        }
    }

    /// Tells this node's players what changed; on the clock's `tick`s,
    /// also marks them present, sweeps the absent and runs the waves.
    async fn step(&self, tick: Option<u32>) -> Result<(), StorageError> {
        let players: Vec<String> = self.lock().by_player.keys().cloned().collect();
        let due = |every: u32| tick.is_some_and(|t| t.is_multiple_of(every));
        if due(PRESENCE_EVERY) {
            self.inner.storage.refresh_lobby(&players).await?;
            let before = crate::storage::now_millis() - GONE_AFTER_MS;
            self.inner.storage.sweep_lobby(before).await?;
        }
        if due(WAVE_EVERY) && self.wave().await? > 0 {
            self.changed();
        }
        if players.is_empty() {
            self.lock().state = None;
            return Ok(());
        }
        let state = self.state().await?;
        let apart = self.apart(&state, &players).await?;
        let tables = self.inner.storage.lobby_tables(&players).await?;
        let mut channels = self.lock();
        let mut sends: Vec<(String, LobbyEvent)> = Vec::new();
        if channels.state.as_ref() != Some(&state) {
            channels.state = Some(state);
            channels.version += 1;
        }
        let version = channels.version;
        let Channels {
            by_player,
            state,
            sent,
            ..
        } = &mut *channels;
        if let Some(state) = state.as_ref() {
            // Each player is sent the state when it changed, or when what
            // it hides from them did.
            for player in by_player.keys() {
                let hidden = hidden_from(state, player, &apart);
                let last = sent.get(player);
                if last.is_some_and(|(v, h)| *v == version && *h == hidden) {
                    continue;
                }
                sends.push((player.clone(), LobbyEvent::State(without(state, &hidden))));
                sent.insert(player.clone(), (version, hidden));
            }
        }
        for (player, table) in tables {
            if channels.announced.get(&player) != Some(&table) {
                sends.push((
                    player.clone(),
                    LobbyEvent::Paired(Paired {
                        url: self.url(&table),
                        table: table.clone(),
                    }),
                ));
                channels.announced.insert(player, table);
            }
        }
        for (player, event) in sends {
            if let Some(list) = channels.by_player.get_mut(&player) {
                // A channel that cannot keep up is dropped: its stream ends
                // and the page opens another.
                list.retain(|(_, tx)| tx.try_send(event.clone()).is_ok());
            }
        }
        Ok(())
    }
}

/// The next word of a change made on another node; never, outside a
/// cluster or once the subscription ended.
async fn next_change(changes: &mut Option<LobbyChanges>) -> Option<()> {
    match changes {
        Some(changes) => changes.next().await,
        None => std::future::pending().await,
    }
}
