//! The computer's seats: a small trait over the engine, asked off the async
//! runtime on a blocking pool of bounded size.

use std::sync::Arc;

use baghchal_engine::{Engine, Level};
use baghchal_rules::{Action, Position};
use tokio::sync::Semaphore;

/// Something that chooses the computer's action. Called on a blocking
/// thread: it may think for a while.
pub trait Bot: Send + Sync + 'static {
    /// An action for the side to move at `level`; `None` when there is
    /// none. `seed` drives the level's controlled randomness.
    fn choose(&self, position: &Position, level: Level, seed: u64) -> Option<Action>;
}

impl Bot for Engine {
    fn choose(&self, position: &Position, level: Level, seed: u64) -> Option<Action> {
        Engine::choose(self, position, level, seed)
    }
}

/// The computer players of every table: the bot and the bound on how many
/// think at once. Cheap to clone.
#[derive(Clone)]
pub struct Computer {
    bot: Arc<dyn Bot>,
    thinkers: Arc<Semaphore>,
}

impl Computer {
    /// At most `threads` positions are thought about at once.
    pub fn new(bot: Arc<dyn Bot>, threads: usize) -> Computer {
        Computer {
            bot,
            thinkers: Arc::new(Semaphore::new(threads.max(1))),
        }
    }

    /// Chooses an action for `position`, waiting for a free thinker first.
    /// `None` when the bot has none or its thread failed.
    pub async fn choose(&self, position: Position, level: Level, seed: u64) -> Option<Action> {
        let _permit = self.thinkers.acquire().await.ok()?;
        let bot = Arc::clone(&self.bot);
        let chosen = tokio::task::spawn_blocking(move || bot.choose(&position, level, seed)).await;
        match chosen {
            Ok(action) => action,
            Err(e) => {
                tracing::error!(error = %e, "the computer's thread failed");
                None
            }
        }
    }
}
