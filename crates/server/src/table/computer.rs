//! The computer at a table: its pace, its thoughts on a thinker's thread,
//! retries of a failed commit, and the next game of a bots table.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use baghchal_rules::Action;
use tokio::time::Instant;

use baghchal_table::boards::Board;
use baghchal_table::options::Opponent;
use baghchal_table::play::{Event, Intent};

use super::{Table, RETRIES, RETRY_FIRST};

/// A thought in progress: the computer's choice, computed on a thinker's
/// thread. Dropping it abandons the thought.
pub(super) type Thought = Pin<Box<dyn Future<Output = Option<Action>> + Send>>;

/// The computer to move at one ply of one game.
pub(super) struct ComputerTurn {
    /// The game and the ply.
    pub(super) key: (u32, u16),
    /// Waiting for its pace or a retry, thinking, or its action chosen
    /// and waiting to be committed again.
    pub(super) stage: Stage,
    /// When the wait ends.
    pub(super) due: Instant,
    /// Failed commits so far.
    pub(super) failures: u32,
}

pub(super) enum Stage {
    /// Waiting until `due` to start thinking.
    Pacing,
    /// Thinking.
    Thinking(Thought),
    /// Chosen; its commit failed and is tried again at `due`.
    Chosen(Action),
}

/// Something the table does by itself at `due`.
pub(super) struct Timer {
    /// Which game it was scheduled for.
    pub(super) game: u32,
    /// When.
    pub(super) due: Instant,
    /// Failed commits so far.
    pub(super) failures: u32,
}

/// The pause before retry `failures` (from 1), or `None` once the retries
/// are spent.
pub(super) fn backoff(failures: u32) -> Option<Duration> {
    (failures <= RETRIES).then(|| RETRY_FIRST * 2u32.saturating_pow(failures - 1))
}

/// Completes with `thought`'s choice; never while there is none.
pub(super) async fn think(stage: Option<&mut Stage>) -> Option<Action> {
    match stage {
        Some(Stage::Thinking(thought)) => thought.await,
        _ => std::future::pending().await,
    }
}

/// Completes with the first choice of the computer's thoughts on either
/// board, and the board.
pub(super) async fn think_any(turns: &mut [Option<ComputerTurn>; 2]) -> (Board, Option<Action>) {
    let [first, second] = turns;
    tokio::select! {
        action = think(first.as_mut().map(|t| &mut t.stage)) => (1, action),
        action = think(second.as_mut().map(|t| &mut t.stage)) => (2, action),
    }
}

/// The board index of `board` in per-board arrays.
pub(super) fn board_index(board: Board) -> usize {
    usize::from(board.clamp(1, 2)) - 1
}

impl Table {
    /// The computer's pace, or a retry's pause, is over on `board`.
    pub(super) async fn computer_due(&mut self, board: Board) {
        let Some(play) = self.boards.get(board) else {
            return;
        };
        let position = play.game().position().clone();
        let slot = &mut self.computers[board_index(board)];
        let Some(turn) = slot.as_mut() else {
            return;
        };
        let show = self.options.opponent == Opponent::Bots;
        match std::mem::replace(&mut turn.stage, Stage::Pacing) {
            Stage::Pacing => {
                let Some(level) = self.options.level else {
                    *slot = None;
                    return;
                };
                if show && self.spectators.is_empty() {
                    // The gallery emptied: the show pauses until someone
                    // watches again.
                    *slot = None;
                    return;
                }
                let computer = self.context.computer.clone();
                turn.stage = Stage::Thinking(Box::pin(async move {
                    if show {
                        computer.choose_for_show(position, level, seed()).await
                    } else {
                        computer.choose(position, level, seed()).await
                    }
                }));
            }
            Stage::Chosen(action) => self.computer_chose(board, Some(action)).await,
            Stage::Thinking(thought) => turn.stage = Stage::Thinking(thought),
        }
    }

    /// The computer chose `action` for the current turn on `board`:
    /// commits it, or schedules a retry after a pause, or gives up once the
    /// retries are spent.
    pub(super) async fn computer_chose(&mut self, board: Board, action: Option<Action>) {
        self.context.activity.record();
        let slot = board_index(board);
        let (Some(turn), Some(play)) = (&self.computers[slot], self.boards.get(board)) else {
            return;
        };
        let key = turn.key;
        if key != (play.game_number(), play.game().position().ply()) || play.game().is_finished() {
            self.computers[slot] = None;
            self.schedule_computer();
            return;
        }
        let side = play.game().position().side_to_move();
        let Some(action) = action else {
            tracing::error!("the computer found no action in an unfinished game");
            self.computers[slot] = None;
            return;
        };
        let now = self.now();
        let event = match play.decide(side, Intent::Play(action), now) {
            Ok(event) => event,
            Err(refusal) => {
                tracing::error!(action = %action, refusal = ?refusal, "the computer chose an illegal action");
                self.computers[slot] = None;
                return;
            }
        };
        if self.commit(board, event, now).await {
            return;
        }
        // Try again after a pause rather than stall the game; give up after
        // a few (someone joining starts it again).
        let Some(turn) = self.computers[slot].as_mut().filter(|t| t.key == key) else {
            return;
        };
        turn.failures += 1;
        match backoff(turn.failures) {
            Some(pause) => {
                turn.stage = Stage::Chosen(action);
                turn.due = Instant::now() + pause;
            }
            None => {
                tracing::error!(
                    failures = turn.failures,
                    "the computer's action could not be stored; giving up for now"
                );
                self.computers[slot] = None;
            }
        }
    }

    /// The pause between two bots games is over: starts the next one, or
    /// tries again later.
    pub(super) async fn next_bots_game(&mut self) {
        let Some(timer) = self.next_game.take() else {
            return;
        };
        let play = self.boards.first();
        if timer.game != play.game_number()
            || !play.game().is_finished()
            || self.spectators.is_empty()
        {
            return;
        }
        if self.commit(1, Event::RematchStarted, self.now()).await {
            return;
        }
        let failures = timer.failures + 1;
        match backoff(failures) {
            Some(pause) => {
                self.next_game = Some(Timer {
                    game: timer.game,
                    due: Instant::now() + pause,
                    failures,
                })
            }
            None => tracing::error!(
                failures,
                "the next bots game could not be stored; giving up for now"
            ),
        }
    }

    /// Starts the computer's turn on each board where it is to move (after
    /// its pace), and forgets a turn that is over.
    pub(super) fn schedule_computer(&mut self) {
        for board in 1..=self.boards.count() {
            self.schedule_computer_on(board);
        }
    }

    pub(super) fn schedule_computer_on(&mut self, board: Board) {
        let slot = board_index(board);
        let Some(play) = self.boards.get(board) else {
            return;
        };
        let game = play.game();
        let position = game.position();
        // A bots table plays only while someone watches it.
        let unwatched_show = self.options.opponent == Opponent::Bots && self.spectators.is_empty();
        if game.is_finished()
            || !play.is_computer(position.side_to_move())
            || self.options.level.is_none()
            || unwatched_show
        {
            self.computers[slot] = None;
            return;
        }
        let key = (play.game_number(), position.ply());
        if self.computers[slot].as_ref().is_some_and(|t| t.key == key) {
            return;
        }
        let pace = if self.options.opponent == Opponent::Bots {
            self.context.pace.bots_move
        } else {
            self.context.pace.computer_move
        };
        let pause = match play.clocks() {
            Some(clocks) => clocks.pace_within(position.side_to_move(), pace),
            None => pace,
        };
        self.computers[slot] = Some(ComputerTurn {
            key,
            stage: Stage::Pacing,
            due: Instant::now() + pause,
            failures: 0,
        });
    }

    /// At a bots table with someone watching, starts the next game after a
    /// pause once the current one is over.
    pub(super) fn schedule_next_bots_game(&mut self) {
        let play = self.boards.first();
        if self.options.opponent != Opponent::Bots
            || !play.game().is_finished()
            || self.spectators.is_empty()
        {
            self.next_game = None;
            return;
        }
        let game = play.game_number();
        if self.next_game.as_ref().is_some_and(|t| t.game == game) {
            return;
        }
        self.next_game = Some(Timer {
            game,
            due: Instant::now() + self.context.pace.bots_next_game,
            failures: 0,
        });
    }
}

/// A seed for the computer's randomness.
fn seed() -> u64 {
    let mut bytes = [0u8; 8];
    if getrandom::fill(&mut bytes).is_err() {
        return 0x5eed;
    }
    u64::from_le_bytes(bytes)
}
