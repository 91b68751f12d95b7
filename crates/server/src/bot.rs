//! The computer's seats: a small trait over the engine, asked off the async
//! runtime on a blocking pool of bounded size.

use std::sync::Arc;

use baghchal_engine::chance::goats_percent;
use baghchal_engine::{Engine, Level, Source, Value};
use baghchal_protocol as wire;
use baghchal_rules::{Action, Game, Position, Side};
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

    /// Every legal action of the last position of `game` (whose earlier
    /// positions show what its repetition record holds) with its value
    /// for the side to move, best first; `None` when this bot cannot
    /// analyse.
    fn value_actions(&self, game: &Game) -> Option<Vec<wire::ActionValue>> {
        let _ = game;
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
                before: evaluation(a.before, a.before_source, a.before_solved, a.side),
                after: evaluation(a.after, a.after_source, a.after_solved, a.side),
                best: a.best.to_string(),
                lost: a.lost(),
            })
            .collect();
        Some(reviews)
    }

    fn value_actions(&self, game: &Game) -> Option<Vec<wire::ActionValue>> {
        let side = game.position().side_to_move();
        let values = Engine::value_line(self, game, ANALYSIS_BOARD_NODES)
            .into_iter()
            .map(|v| wire::ActionValue {
                action: v.action.to_string(),
                evaluation: evaluation(v.value, v.source, v.solved, side),
            })
            .collect();
        Some(values)
    }
}

/// A result and its distance on the wire; `None` for a score.
fn result_of(value: Value) -> Option<(wire::Outcome, u16)> {
    match value {
        Value::Win { plies } => Some((wire::Outcome::Win, plies)),
        Value::Loss { plies } => Some((wire::Outcome::Loss, plies)),
        Value::Draw => Some((wire::Outcome::Draw, 0)),
        Value::Score(_) => None,
    }
}

/// A value for `side` on the wire, naming its kind, with the tablebase's
/// value `solved` where a proved value differs from it.
fn evaluation(value: Value, source: Source, solved: Option<Value>, side: Side) -> wire::Evaluation {
    let (result, plies) = match value {
        Value::Win { plies } => (wire::Outcome::Win, plies),
        Value::Loss { plies } => (wire::Outcome::Loss, plies),
        Value::Draw => (wire::Outcome::Draw, 0),
        Value::Score(score) => {
            let goats = match side {
                Side::Goat => score,
                Side::Tiger => -score,
            };
            return wire::Evaluation::Estimate {
                goats_percent: goats_percent(goats),
                score,
            };
        }
    };
    match source {
        Source::Rules => wire::Evaluation::Over { result },
        Source::Solved => wire::Evaluation::Solved { result, plies },
        // A search's value is a score; a proved draw is not made.
        Source::Proved | Source::Search => wire::Evaluation::Proved {
            result,
            plies,
            solved: solved
                .and_then(result_of)
                .map(|(result, plies)| wire::SolvedValue { result, plies }),
        },
    }
}

/// The computer players of every table, and its analyses: the bot, the
/// bound on how many positions it thinks about at once for moves, and
/// apart from those the analyses' own threads. Cheap to clone.
///
/// A computer's move at a table in play never waits for an analysis: the
/// moves have their `threads` thinkers to themselves, and the analyses (a
/// finished game's review, the analysis board) run on their own `threads`
/// threads at nice [`ANALYSIS_NICE`], so that where the two share a core
/// the kernel gives the move's thread about ten times the analysis
/// thread's time.
#[derive(Clone)]
pub struct Computer {
    bot: Arc<dyn Bot>,
    thinkers: Arc<Semaphore>,
    /// The analyses' threads.
    analysts: Arc<Analysts>,
    /// The bots tables' threads, the lowest of all.
    shows: Arc<Analysts>,
    /// Analysis-board requests in flight (thinking or waiting for a
    /// thinker), [`BOARDS_PER_THINKER`] a thinker: one more is refused
    /// rather than queued.
    boards: Arc<Semaphore>,
}

/// Analysis-board requests in flight per thinker: a person stepping
/// quickly through a line waits a few of them, a flood is refused.
pub const BOARDS_PER_THINKER: usize = 8;

/// The nice value of the analyses' threads: a thread at nice 10 weighs
/// about a tenth of one at 0 in the kernel's fair share (110 against
/// 1024).
pub const ANALYSIS_NICE: i32 = 10;

/// The nice value of the bots tables' threads, the lowest priority there
/// is: a thread at nice 19 weighs 15 against an analysis thread's 110
/// and a move's 1024.
pub const SHOW_NICE: i32 = 19;

/// The analyses' own threads, at a lower priority than the moves' (or
/// the bots tables', lower still).
struct Analysts {
    /// At most as many analyses at once as there are threads.
    slots: Semaphore,
    /// `None` where the pool could not start: analyses then share the
    /// runtime's blocking threads.
    pool: Option<rayon::ThreadPool>,
}

impl Analysts {
    fn new(threads: usize, name: &'static str, nice: i32) -> Analysts {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(move |i| format!("{name}-{i}"))
            .start_handler(move |_| lower_priority(nice))
            .panic_handler(|_| tracing::error!("an analysis thread panicked"))
            .build();
        let pool = match pool {
            Ok(pool) => Some(pool),
            Err(e) => {
                tracing::warn!(error = %e, "no threads of their own for analyses");
                None
            }
        };
        Analysts {
            slots: Semaphore::new(threads),
            pool,
        }
    }

    /// Runs `job` on an analysis thread once one is free; `None` when the
    /// job failed.
    async fn run<T: Send + 'static>(&self, job: impl FnOnce() -> T + Send + 'static) -> Option<T> {
        let _slot = self.slots.acquire().await.ok()?;
        match &self.pool {
            Some(pool) => {
                let (done, result) = tokio::sync::oneshot::channel();
                pool.spawn(move || {
                    let _ = done.send(job());
                });
                result.await.ok()
            }
            None => tokio::task::spawn_blocking(job).await.ok(),
        }
    }
}

/// Lowers the calling thread's priority to `nice` (Linux: the nice value
/// is the thread's own).
fn lower_priority(nice: i32) {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: gettid and setpriority only read their arguments and
        // change the calling thread's nice value.
        let niced = unsafe {
            let tid = libc::gettid();
            libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, nice) == 0
        };
        if !niced {
            tracing::warn!(
                error = %std::io::Error::last_os_error(),
                "cannot lower an analysis thread's priority"
            );
        }
    }
}

/// A place among the analysis-board requests in flight, given back on
/// drop.
pub struct BoardSlot(#[allow(dead_code)] tokio::sync::OwnedSemaphorePermit);

/// Why the computer did not value a position.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Unavailable {
    /// As many analysis-board requests as it takes are being served.
    Busy,
    /// The bot cannot analyse, or its thread failed.
    Failed,
}

impl Computer {
    /// At most `threads` positions are thought about at once for moves,
    /// and `threads` analyses at once beside them.
    pub fn new(bot: Arc<dyn Bot>, threads: usize) -> Computer {
        let threads = threads.max(1);
        Computer {
            bot,
            thinkers: Arc::new(Semaphore::new(threads)),
            analysts: Arc::new(Analysts::new(threads, "analysis", ANALYSIS_NICE)),
            shows: Arc::new(Analysts::new(threads, "show", SHOW_NICE)),
            boards: Arc::new(Semaphore::new(threads * BOARDS_PER_THINKER)),
        }
    }

    /// Reviews every action of `game` on an analysis thread; `None` when
    /// the bot cannot analyse or its thread failed.
    pub async fn analyse(&self, game: Game) -> Option<Vec<wire::ActionReview>> {
        let bot = Arc::clone(&self.bot);
        let reviews = self.analysts.run(move || bot.analyse(&game)).await;
        if reviews.is_none() {
            tracing::error!("the analysis thread failed");
        }
        reviews.flatten()
    }

    /// Values every legal action of the last position of `game` on an
    /// analysis thread, or says why not. A request beyond
    /// [`BOARDS_PER_THINKER`] a thinker in flight is refused at once.
    pub async fn value_actions(&self, game: Game) -> Result<Vec<wire::ActionValue>, Unavailable> {
        let slot = self.board_slot()?;
        self.value_actions_in(&slot, game).await
    }

    /// [`Computer::value_actions`] in a place already taken.
    pub async fn value_actions_in(
        &self,
        _slot: &BoardSlot,
        game: Game,
    ) -> Result<Vec<wire::ActionValue>, Unavailable> {
        let bot = Arc::clone(&self.bot);
        match self.analysts.run(move || bot.value_actions(&game)).await {
            Some(values) => values.ok_or(Unavailable::Failed),
            None => {
                tracing::error!("the analysis thread failed");
                Err(Unavailable::Failed)
            }
        }
    }

    /// A place among the analysis-board requests in flight, or `Busy`.
    pub fn board_slot(&self) -> Result<BoardSlot, Unavailable> {
        Arc::clone(&self.boards)
            .try_acquire_owned()
            .map(BoardSlot)
            .map_err(|_| Unavailable::Busy)
    }

    /// Chooses a move at a bots table, played for its spectators: on
    /// threads of its own at nice [`SHOW_NICE`], the lowest priority,
    /// never on the thinkers of the moves at tables in play nor the
    /// analyses', so that a show delays neither a game nor an analysis.
    /// `None` when the bot has none or its thread failed.
    pub async fn choose_for_show(
        &self,
        position: Position,
        level: Level,
        seed: u64,
    ) -> Option<Action> {
        let bot = Arc::clone(&self.bot);
        let started = std::time::Instant::now();
        let chosen = self
            .shows
            .run(move || bot.choose(&position, level, seed))
            .await;
        crate::stats::thought(level.get(), started.elapsed());
        if chosen.is_none() {
            tracing::error!("the analysis thread failed");
        }
        chosen.flatten()
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

        fn value_actions(&self, _: &Game) -> Option<Vec<wire::ActionValue>> {
            let _ = self.0.lock().ok()?.recv();
            Some(Vec::new())
        }
    }

    /// A bot whose post-game analysis waits until the test opens its gate,
    /// and that moves at once.
    struct SlowReview(Mutex<mpsc::Receiver<()>>);

    impl Bot for SlowReview {
        fn choose(&self, position: &Position, _: Level, _: u64) -> Option<Action> {
            position.legal_actions().into_iter().next()
        }

        fn analyse(&self, _: &Game) -> Option<Vec<wire::ActionReview>> {
            let _ = self.0.lock().ok()?.recv();
            Some(Vec::new())
        }
    }

    #[tokio::test]
    async fn a_computer_move_does_not_wait_for_an_analysis() {
        let (open, gate) = mpsc::channel();
        let computer = Computer::new(Arc::new(SlowReview(Mutex::new(gate))), 1);
        let review = tokio::spawn({
            let computer = computer.clone();
            async move { computer.analyse(Game::new(Default::default())).await }
        });
        // The one thinker's worth of analysis is busy until the gate
        // opens; the move is chosen meanwhile (a guard, not a timing).
        let chosen = tokio::time::timeout(
            std::time::Duration::from_secs(30),
            computer.choose(Position::default(), Level::MIN, 1),
        )
        .await
        .expect("the move did not wait for the analysis");
        assert!(chosen.is_some());
        assert!(!review.is_finished());
        open.send(()).unwrap();
        assert_eq!(review.await.unwrap(), Some(Vec::new()));
    }

    /// A bot that notes the nice value of the thread each move is chosen
    /// on.
    struct NiceProbe(Mutex<Vec<i32>>);

    impl Bot for NiceProbe {
        fn choose(&self, position: &Position, _: Level, _: u64) -> Option<Action> {
            // SAFETY: gettid and getpriority only read their arguments.
            let nice =
                unsafe { libc::getpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t) };
            self.0.lock().ok()?.push(nice);
            position.legal_actions().into_iter().next()
        }
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn a_bots_tables_move_is_thought_about_at_the_lowest_priority() {
        let probe = Arc::new(NiceProbe(Mutex::new(Vec::new())));
        let computer = Computer::new(probe.clone(), 1);
        let position = Position::default();
        assert!(computer
            .choose_for_show(position.clone(), Level::MIN, 1)
            .await
            .is_some());
        assert!(computer.choose(position, Level::MIN, 1).await.is_some());
        let seen = probe.0.lock().unwrap().clone();
        assert_eq!(seen.len(), 2);
        assert_eq!(seen[0], SHOW_NICE, "a show's move");
        assert!(
            seen[1] < SHOW_NICE,
            "a move at a table in play: {}",
            seen[1]
        );
    }

    #[tokio::test]
    async fn analysis_board_requests_beyond_the_bound_are_refused_not_queued() {
        let (open, gate) = mpsc::channel();
        let computer = Computer::new(Arc::new(Gate(Mutex::new(gate))), 1);
        // Each request takes its place in flight at its first poll.
        let mut in_flight: Vec<_> = (0..BOARDS_PER_THINKER)
            .map(|_| Box::pin(computer.value_actions(Game::new(Default::default()))))
            .collect();
        for request in &mut in_flight {
            assert!(request.now_or_never().is_none(), "it thinks or waits");
        }
        let refused = computer
            .value_actions(Game::new(Default::default()))
            .now_or_never();
        assert_eq!(refused, Some(Err(Unavailable::Busy)));
        for _ in 0..BOARDS_PER_THINKER {
            open.send(()).unwrap();
        }
        for request in in_flight {
            assert_eq!(request.await, Ok(Vec::new()));
        }
        open.send(()).unwrap();
        assert_eq!(
            computer.value_actions(Game::new(Default::default())).await,
            Ok(Vec::new())
        );
    }
}
