//! The live games list: the lobby's games in progress, the best-rated
//! first, each with both players' ratings in the game's class (read for
//! the whole list at once).

use std::collections::HashMap;

use baghchal_protocol as wire;
use baghchal_rating::Rating;
use baghchal_table::clock::TimeControl;

use super::{speed_of_columns, Lobby, LIVE_GAMES};
use crate::storage::StorageError;

impl Lobby {
    /// The lobby games in progress, the best-rated first.
    pub async fn live(&self) -> Result<wire::LiveGames, StorageError> {
        let storage = &self.inner.storage;
        let tables = storage.live_tables(LIVE_GAMES).await?;
        // Every player's ratings in one read.
        let ids: Vec<String> = tables
            .iter()
            .flat_map(|t| t.players.iter().map(|(id, _)| id.clone()))
            .collect();
        let ratings: HashMap<(String, String), Rating> = storage
            .ratings_of(&ids)
            .await?
            .into_iter()
            .map(|(player, r)| {
                let rating = Rating {
                    rating: r.rating,
                    deviation: r.deviation,
                    volatility: r.volatility,
                };
                ((player, r.speed), rating)
            })
            .collect();
        let mut games = Vec::with_capacity(tables.len());
        for live in tables {
            let Some(clock) = live.clock.decode() else {
                continue;
            };
            let speed = speed_of_columns(live.clock);
            let mut seen = Vec::with_capacity(2);
            for (id, name) in &live.players {
                let rating = ratings
                    .get(&(id.clone(), speed.name().to_owned()))
                    .copied()
                    .unwrap_or_default();
                seen.push(wire::LobbyPlayer {
                    id: id.clone(),
                    name: name.clone(),
                    rating: u32::try_from(rating.shown()).unwrap_or(0),
                    provisional: rating.is_provisional(),
                });
            }
            let guest = seen.pop();
            let host = seen.pop();
            let (Some(host), Some(guest)) = (host, guest) else {
                continue;
            };
            let (goats, tigers) = if live.host_side == "goats" {
                (host, guest)
            } else {
                (guest, host)
            };
            games.push(wire::LiveGame {
                url: self.url(&live.table),
                table: live.table,
                speed: speed.name().to_owned(),
                clock: clock.map(TimeControl::to_wire),
                rated: live.rated,
                goats,
                tigers,
            });
        }
        games.sort_by_key(|g| std::cmp::Reverse(g.goats.rating.max(g.tigers.rating)));
        Ok(wire::LiveGames { games })
    }
}
