//! Blocking: a player blocks another, and from then on the lobby keeps
//! them apart (the waves never pair them, neither may take the other's
//! challenge, neither sees the other's challenges), as lichess does.

use baghchal_protocol::{BlockList, BlockedPlayer};

use super::{Lobby, LobbyError};
use crate::storage::Blocking;

impl Lobby {
    /// `player` blocks `other`; blocking a player twice changes nothing.
    pub async fn block(&self, player: &str, other: &str) -> Result<(), LobbyError> {
        if player == other {
            return Err(LobbyError::Field {
                field: "player",
                message: "a player cannot block themselves".into(),
            });
        }
        match self.inner.storage.block(player, other).await? {
            Blocking::Blocked => {}
            Blocking::Unknown => return Err(LobbyError::UnknownPlayer),
            Blocking::Full => return Err(LobbyError::TooManyBlocks),
        }
        // The lobby's state hides the blocked player's challenges now.
        self.changed();
        Ok(())
    }

    /// `player` no longer blocks `other` (whether or not they did).
    pub async fn unblock(&self, player: &str, other: &str) -> Result<(), LobbyError> {
        if self.inner.storage.unblock(player, other).await? {
            self.changed();
        }
        Ok(())
    }

    /// The players `player` blocks, the latest first.
    pub async fn blocks(&self, player: &str) -> Result<BlockList, LobbyError> {
        let players = self
            .inner
            .storage
            .blocked_by(player)
            .await?
            .into_iter()
            .map(|row| BlockedPlayer {
                id: row.id,
                name: row.name,
            })
            .collect();
        Ok(BlockList { players })
    }
}
