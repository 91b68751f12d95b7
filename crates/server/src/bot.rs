//! The computer's seats: a small trait over the engine, asked off the async
//! runtime on a blocking pool of bounded size.

use std::sync::Arc;

use baghchal_engine::{Engine, Level, Source, Value};
use baghchal_protocol as wire;
use baghchal_rules::{Action, Game, Position};
use tokio::sync::Semaphore;

/// Something that chooses the computer's action. Called on a blocking
/// thread: it may think for a while.
pub trait Bot: Send + Sync + 'static {
    /// An action for the side to move at `level`; `None` when there is
    /// none. `seed` drives the level's controlled randomness.
    fn choose(&self, position: &Position, level: Level, seed: u64) -> Option<Action>;

    /// Reviews every action of `game`; `None` when this bot cannot
    /// analyse.
    fn analyse(&self, game: &Game) -> Option<Vec<wire::ActionReview>> {
        let _ = game;
        None
    }
}

/// Search nodes per position of a post-game analysis: about ten
/// milliseconds each on one core, so a long game takes a few seconds.
const ANALYSIS_NODES: u64 = 20_000;

impl Bot for Engine {
    fn choose(&self, position: &Position, level: Level, seed: u64) -> Option<Action> {
        Engine::choose(self, position, level, seed)
    }

    fn analyse(&self, game: &Game) -> Option<Vec<wire::ActionReview>> {
        let reviews = Engine::analyse(self, game, ANALYSIS_NODES)
            .into_iter()
            .map(|a| wire::ActionReview {
                ply: a.ply,
                side: crate::options::side_to_wire(a.side),
                action: a.action.to_string(),
                before: evaluation(a.before),
                after: evaluation(a.after),
                before_source: source(a.before_source),
                after_source: source(a.after_source),
                best: a.best.to_string(),
                cost: a.cost(),
            })
            .collect();
        Some(reviews)
    }
}

fn evaluation(value: Value) -> wire::Evaluation {
    match value {
        Value::Win { plies } => wire::Evaluation::Win { plies },
        Value::Loss { plies } => wire::Evaluation::Loss { plies },
        Value::Draw => wire::Evaluation::Draw,
        Value::Score(score) => wire::Evaluation::Score { score },
    }
}

fn source(source: Source) -> wire::EvaluationSource {
    match source {
        Source::Rules => wire::EvaluationSource::Rules,
        Source::Tablebase => wire::EvaluationSource::Tablebase,
        Source::Search => wire::EvaluationSource::Search,
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

    /// Reviews every action of `game` on a thinker's thread; `None` when
    /// the bot cannot analyse or its thread failed.
    pub async fn analyse(&self, game: Game) -> Option<Vec<wire::ActionReview>> {
        let _permit = self.thinkers.acquire().await.ok()?;
        let bot = Arc::clone(&self.bot);
        match tokio::task::spawn_blocking(move || bot.analyse(&game)).await {
            Ok(reviews) => reviews,
            Err(e) => {
                tracing::error!(error = %e, "the analysis thread failed");
                None
            }
        }
    }

    /// Chooses an action for `position`, waiting for a free thinker first.
    /// `None` when the bot has none or its thread failed.
    pub async fn choose(&self, position: Position, level: Level, seed: u64) -> Option<Action> {
        let _permit = self.thinkers.acquire().await.ok()?;
        let bot = Arc::clone(&self.bot);
        let started = std::time::Instant::now();
        let chosen = tokio::task::spawn_blocking(move || bot.choose(&position, level, seed)).await;
        crate::stats::thought(level.get(), started.elapsed());
        match chosen {
            Ok(action) => action,
            Err(e) => {
                tracing::error!(error = %e, "the computer's thread failed");
                None
            }
        }
    }
}
