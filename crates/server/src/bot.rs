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

    /// Every legal action of `position` with its value for the side to
    /// move, best first; `None` when this bot cannot analyse.
    fn value_actions(&self, position: &Position) -> Option<Vec<wire::ActionValue>> {
        let _ = position;
        None
    }
}

/// Search nodes per position of a post-game analysis: about ten
/// milliseconds each on one core, so a long game takes a few seconds.
const ANALYSIS_NODES: u64 = 20_000;

/// Search nodes of one analysis-board request: one search scores every
/// action the tablebase does not, in a few tens of milliseconds.
pub const ANALYSIS_BOARD_NODES: u64 = 100_000;

impl Bot for Engine {
    fn choose(&self, position: &Position, level: Level, seed: u64) -> Option<Action> {
        Engine::choose(self, position, level, seed)
    }

    fn analyse(&self, game: &Game) -> Option<Vec<wire::ActionReview>> {
        let reviews = Engine::analyse(self, game, ANALYSIS_NODES)
            .into_iter()
            .map(|a| wire::ActionReview {
                ply: a.ply,
                side: baghchal_table::names::side_to_wire(a.side),
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

    fn value_actions(&self, position: &Position) -> Option<Vec<wire::ActionValue>> {
        let values = Engine::value_actions(self, position, ANALYSIS_BOARD_NODES)
            .into_iter()
            .map(|v| wire::ActionValue {
                action: v.action.to_string(),
                evaluation: evaluation(v.value),
                source: source(v.source),
            })
            .collect();
        Some(values)
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
    /// Analysis-board requests in flight (thinking or waiting for a
    /// thinker), [`BOARDS_PER_THINKER`] a thinker: one more is refused
    /// rather than queued.
    boards: Arc<Semaphore>,
}

/// Analysis-board requests in flight per thinker: a person stepping
/// quickly through a line waits a few of them, a flood is refused.
pub const BOARDS_PER_THINKER: usize = 8;

/// Why the computer did not value a position.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Unavailable {
    /// As many analysis-board requests as it takes are being served.
    Busy,
    /// The bot cannot analyse, or its thread failed.
    Failed,
}

impl Computer {
    /// At most `threads` positions are thought about at once.
    pub fn new(bot: Arc<dyn Bot>, threads: usize) -> Computer {
        Computer {
            bot,
            thinkers: Arc::new(Semaphore::new(threads.max(1))),
            boards: Arc::new(Semaphore::new(threads.max(1) * BOARDS_PER_THINKER)),
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

    /// Values every legal action of `position` on a thinker's thread, or
    /// says why not. A request beyond [`BOARDS_PER_THINKER`] a thinker in
    /// flight is refused at once.
    pub async fn value_actions(
        &self,
        position: Position,
    ) -> Result<Vec<wire::ActionValue>, Unavailable> {
        let _board = self.boards.try_acquire().map_err(|_| Unavailable::Busy)?;
        let _permit = self
            .thinkers
            .acquire()
            .await
            .map_err(|_| Unavailable::Failed)?;
        let bot = Arc::clone(&self.bot);
        match tokio::task::spawn_blocking(move || bot.value_actions(&position)).await {
            Ok(values) => values.ok_or(Unavailable::Failed),
            Err(e) => {
                tracing::error!(error = %e, "the analysis thread failed");
                Err(Unavailable::Failed)
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

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::sync::Mutex;

    use futures_util::FutureExt;

    use super::*;

    /// A bot whose analysis waits until the test opens its gate.
    struct Gate(Mutex<mpsc::Receiver<()>>);

    impl Bot for Gate {
        fn choose(&self, _: &Position, _: Level, _: u64) -> Option<Action> {
            None
        }

        fn value_actions(&self, _: &Position) -> Option<Vec<wire::ActionValue>> {
            let _ = self.0.lock().ok()?.recv();
            Some(Vec::new())
        }
    }

    #[tokio::test]
    async fn analysis_board_requests_beyond_the_bound_are_refused_not_queued() {
        let (open, gate) = mpsc::channel();
        let computer = Computer::new(Arc::new(Gate(Mutex::new(gate))), 1);
        // Each request takes its place in flight at its first poll.
        let mut in_flight: Vec<_> = (0..BOARDS_PER_THINKER)
            .map(|_| Box::pin(computer.value_actions(Position::default())))
            .collect();
        for request in &mut in_flight {
            assert!(request.now_or_never().is_none(), "it thinks or waits");
        }
        let refused = computer.value_actions(Position::default()).now_or_never();
        assert_eq!(refused, Some(Err(Unavailable::Busy)));
        for _ in 0..BOARDS_PER_THINKER {
            open.send(()).unwrap();
        }
        for request in in_flight {
            assert_eq!(request.await, Ok(Vec::new()));
        }
        open.send(()).unwrap();
        assert_eq!(
            computer.value_actions(Position::default()).await,
            Ok(Vec::new())
        );
    }
}
