//! Word of the lobby's changes between nodes: a node that changed the
//! lobby (a challenge made, taken or withdrawn, a pool joined or left, a
//! pairing, a block) says so on `CLUSTER.lobby`, and every other node
//! reads the lobby's state at once instead of at its next tick. The word
//! carries nothing but the node's id: the database stays the truth, and a
//! word lost (NATS restarting) costs only the wait for the next tick.

use futures_util::StreamExt;

use super::Node;

/// The words of the other nodes' changes.
pub struct LobbyChanges {
    words: async_nats::Subscriber,
    /// This node's id: its own words are not news.
    own: String,
}

impl LobbyChanges {
    /// The next change made on another node; `None` once the subscription
    /// ended.
    pub async fn next(&mut self) -> Option<()> {
        loop {
            let word = self.words.next().await?;
            if word.payload.as_ref() != self.own.as_bytes() {
                return Some(());
            }
        }
    }
}

impl Node {
    fn lobby_subject(&self) -> String {
        format!("{}.lobby", self.inner.prefix)
    }

    /// Subscribes to the words of the lobby's changes on other nodes.
    pub async fn lobby_changes(&self) -> Result<LobbyChanges, async_nats::SubscribeError> {
        let words = self.inner.nats.subscribe(self.lobby_subject()).await?;
        Ok(LobbyChanges {
            words,
            own: self.inner.id.clone(),
        })
    }

    /// Tells the other nodes that the lobby changed here.
    pub async fn announce_lobby_change(&self) {
        let word = self.inner.id.clone().into_bytes();
        if let Err(e) = self
            .inner
            .nats
            .publish(self.lobby_subject(), word.into())
            .await
        {
            tracing::debug!(error = %e, "the lobby's change was not announced; other nodes see it at their next tick");
        }
    }
}
