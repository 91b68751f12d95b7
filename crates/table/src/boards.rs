//! The boards of a table: one, or two played at once with the sides
//! crossed (a two-board match), and what they share: one version stream,
//! the tally and the match score. Like [`Play`], without I/O.

use std::time::Duration;

use baghchal_protocol as wire;
use baghchal_rules::Reason;

use crate::options::{Format, TableOptions};
use crate::play::{Event, GameEnded, Intent, Logged, Play, Refusal};
use crate::seat::Player;
use crate::time::Timestamp;

/// A board's number: 1, or 2 at a two-board table.
pub type Board = u8;

/// A game a stored event ended: its board, the event's version and the
/// game.
pub type Ended = (Board, u64, GameEnded);

/// Where a command goes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Target {
    /// One board.
    One(Board),
    /// Every board at once: a two-board match's rematch, one event on
    /// each board, stored together.
    All,
}

/// Why a command names no board of this table.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct UnknownBoard;

impl UnknownBoard {
    /// A sentence for people, at a table of `count` boards.
    pub fn message(count: u8) -> String {
        if count == 1 {
            "this table has one board: name none, or board 1".into()
        } else {
            "this table has two boards: name board 1 or 2".into()
        }
    }
}

/// The games of every board of one table.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Boards {
    boards: Vec<Play>,
    /// When the table's last event was accepted, if it had one.
    last_event: Option<Timestamp>,
}

impl Boards {
    /// A table before its first event: board 2 of a two-board match has
    /// the host on the other side.
    pub fn new(options: TableOptions) -> Boards {
        let mut boards = vec![Play::new(options)];
        if options.format == Format::TwoBoards {
            boards.push(Play::new(TableOptions {
                host_side: options.host_side.other(),
                ..options
            }));
        }
        Boards {
            boards,
            last_event: None,
        }
    }

    /// A table as its stored events left it, with the games they ended
    /// (each with its board and the version of the event that ended it).
    /// An event out of sequence, on no board or that does not apply is
    /// refused with its version and why.
    pub fn replay(
        options: TableOptions,
        events: &[Logged],
    ) -> Result<(Boards, Vec<Ended>), (u64, String)> {
        let mut boards = Boards::new(options);
        let mut ended = Vec::new();
        for logged in events {
            let refused = |what: String| (logged.version, what);
            if logged.version != boards.version() + 1 {
                return Err(refused("version out of sequence".into()));
            }
            if boards.get(logged.board).is_none() {
                return Err(refused("no such board".into()));
            }
            let game = boards
                .apply(logged.board, logged.event, logged.at)
                .map_err(|refusal| refused(refusal.message()))?;
            if let Some(game) = game {
                ended.push((logged.board, logged.version, game));
            }
        }
        Ok((boards, ended))
    }

    /// How many boards: 1 or 2.
    pub fn count(&self) -> u8 {
        u8::try_from(self.boards.len()).unwrap_or(u8::MAX)
    }

    /// Whether this is a two-board match.
    pub fn is_match(&self) -> bool {
        self.boards.len() > 1
    }

    /// The table's version: the events of every board, in one stream.
    pub fn version(&self) -> u64 {
        self.boards.iter().map(Play::version).sum()
    }

    /// Board `board`, if there is one.
    pub fn get(&self, board: Board) -> Option<&Play> {
        self.boards.get(usize::from(board).checked_sub(1)?)
    }

    /// Board 1: the only one, or the first of a match.
    pub fn first(&self) -> &Play {
        &self.boards[0]
    }

    /// Every board with its number.
    pub fn iter(&self) -> impl Iterator<Item = (Board, &Play)> {
        (1..).zip(&self.boards)
    }

    /// Where a command that names `board` (or none) goes: a match's
    /// rematch goes to both boards whatever it names; at a two-board table
    /// every other command must name its board.
    pub fn target(&self, board: Option<Board>, intent: &Intent) -> Result<Target, UnknownBoard> {
        let whole_match = matches!(intent, Intent::Rematch | Intent::DeclineRematch);
        match board {
            _ if whole_match && self.is_match() => Ok(Target::All),
            None if !self.is_match() => Ok(Target::One(1)),
            Some(b) if self.get(b).is_some() => Ok(Target::One(b)),
            _ => Err(UnknownBoard),
        }
    }

    /// The events `player` asks for at `now` on `target`, each with its
    /// board, or why not (the first board's refusal). Changes nothing.
    pub fn decide(
        &self,
        player: Player,
        target: Target,
        intent: Intent,
        now: Timestamp,
    ) -> Result<Vec<(Board, Event)>, Refusal> {
        let mut events = Vec::with_capacity(self.boards.len());
        for (board, play) in self.iter() {
            if target == Target::All || target == Target::One(board) {
                events.push((board, play.decide(play.side_of(player), intent, now)?));
            }
        }
        Ok(events)
    }

    /// Applies `event` on `board`, as [`Play::apply`] does.
    pub fn apply(
        &mut self,
        board: Board,
        event: Event,
        at: Timestamp,
    ) -> Result<Option<GameEnded>, Refusal> {
        let i = usize::from(board)
            .checked_sub(1)
            .filter(|&i| i < self.boards.len())
            .ok_or(Refusal::NotLegal)?;
        let ended = self.boards[i].apply(event, at)?;
        self.last_event = Some(at);
        Ok(ended)
    }

    /// When the table's last event was accepted, if it had one.
    pub fn last_event(&self) -> Option<Timestamp> {
        self.last_event
    }

    /// When the running side's flag falls on `board`, if a clock runs
    /// there: not before `not_before` (a grace after loading a table whose
    /// clock ran meanwhile).
    pub fn flag_due_on(&self, board: Board, not_before: Timestamp) -> Option<Timestamp> {
        let (_, deadline) = self.get(board)?.clocks()?.deadline()?;
        Some(deadline.max(not_before))
    }

    /// When the first flag falls on any board (see [`Boards::flag_due_on`]).
    pub fn next_flag(&self, not_before: Timestamp) -> Option<Timestamp> {
        (1..=self.count())
            .filter_map(|board| self.flag_due_on(board, not_before))
            .min()
    }

    /// The flags due at `now`: each board's running side whose time is
    /// out, as the event that ends its game.
    pub fn flags_due(&self, now: Timestamp, not_before: Timestamp) -> Vec<(Board, Event)> {
        self.iter()
            .filter(|&(board, _)| {
                self.flag_due_on(board, not_before)
                    .is_some_and(|due| now >= due)
            })
            .filter_map(|(board, play)| {
                let (side, _) = play.clocks()?.running()?;
                Some((board, Event::Flagged { side }))
            })
            .collect()
    }

    /// When the first-move timer next ends a game on any board (see
    /// [`Play::first_move_due`]), not before `not_before`.
    pub fn next_first_move(
        &self,
        grace: Duration,
        opened: Timestamp,
        not_before: Timestamp,
    ) -> Option<Timestamp> {
        self.iter()
            .filter_map(|(_, play)| play.first_move_due(grace, opened))
            .map(|(_, due)| due.max(not_before))
            .min()
    }

    /// The games the first-move timer ends at `now`: on each board whose
    /// side to move let `grace` pass without its first action, that side's
    /// abort.
    pub fn first_moves_due(
        &self,
        now: Timestamp,
        grace: Duration,
        opened: Timestamp,
        not_before: Timestamp,
    ) -> Vec<(Board, Event)> {
        self.iter()
            .filter_map(|(board, play)| {
                let (side, due) = play.first_move_due(grace, opened)?;
                (now >= due.max(not_before)).then_some((board, Event::Aborted { side }))
            })
            .collect()
    }

    /// Which of `events` end their board's game (see
    /// [`Play::ends_game`]), by their index; empty, and not allocated, in
    /// the common case.
    pub fn ending(&self, events: &[(Board, Event)]) -> Vec<usize> {
        events
            .iter()
            .enumerate()
            .filter(|(_, (board, event))| {
                self.get(*board).is_some_and(|play| play.ends_game(event))
            })
            .map(|(i, _)| i)
            .collect()
    }

    /// Whether the table still has a game in progress once `events` are
    /// applied, given which of them end their game ([`Boards::ending`]):
    /// the table resumes at start-up while it has.
    pub fn active_after(&self, events: &[(Board, Event)], ending: &[usize]) -> bool {
        self.iter().any(
            |(board, play)| match events.iter().rposition(|(b, _)| *b == board) {
                Some(last) => !ending.contains(&last),
                None => !play.game().is_finished(),
            },
        )
    }

    /// The public state of `board`'s current game, with what the boards
    /// share: the table's tally and, at a match, the board and the score.
    pub fn state(&self, board: Board, now: Timestamp) -> Option<wire::GameState> {
        let mut state = self.get(board)?.state(now);
        if self.is_match() {
            state.tally = self.tally();
            state.board = Some(board);
            state.match_state = Some(self.match_state());
        }
        Some(state)
    }

    /// Games won and drawn over the table's life, on every board.
    fn tally(&self) -> wire::Tally {
        self.boards
            .iter()
            .map(Play::tally)
            .fold(wire::Tally::default(), |sum, t| wire::Tally {
                host: sum.host + t.host,
                guest: sum.guest + t.guest,
                draws: sum.draws + t.draws,
            })
    }

    /// The current match: its number and the score of its finished
    /// boards; its result once every board is over. An aborted board
    /// counts for nobody, and a board not yet on this match (board 2,
    /// between the two events of a rematch) is still being played.
    pub fn match_state(&self) -> wire::MatchState {
        let mut state = wire::MatchState {
            number: self.first().game_number(),
            host_wins: 0,
            guest_wins: 0,
            draws: 0,
            result: None,
        };
        let mut over = true;
        for play in &self.boards {
            if play.game_number() != state.number {
                over = false;
                continue;
            }
            let Some(outcome) = play.game().outcome() else {
                over = false;
                continue;
            };
            if outcome.reason() == Reason::Aborted {
                continue;
            }
            match outcome.winner().map(|side| play.player_of(side)) {
                Some(Player::Host) => state.host_wins += 1,
                Some(Player::Guest) => state.guest_wins += 1,
                None => state.draws += 1,
            }
        }
        if over {
            let winner = match state.host_wins.cmp(&state.guest_wins) {
                std::cmp::Ordering::Greater => Some(wire::Player::Host),
                std::cmp::Ordering::Less => Some(wire::Player::Guest),
                std::cmp::Ordering::Equal => None,
            };
            state.result = Some(wire::MatchResult { winner });
        }
        state
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::Opponent;
    use baghchal_rules::{Rules, Side};

    fn two_boards(opponent: Opponent) -> Boards {
        Boards::new(TableOptions {
            opponent,
            ..two_boards_options()
        })
    }

    fn at(ms: i64) -> Timestamp {
        Timestamp::from_millis(1_796_160_000_000 + ms)
    }

    /// Applies what `player` asks for on `target`, or panics.
    fn act(boards: &mut Boards, player: Player, target: Target, intent: Intent, ms: i64) {
        for (board, event) in boards.decide(player, target, intent, at(ms)).unwrap() {
            boards.apply(board, event, at(ms)).unwrap();
        }
    }

    #[test]
    fn the_sides_are_crossed_and_each_board_has_its_own_turn() {
        let mut boards = two_boards(Opponent::Friend);
        assert_eq!(boards.count(), 2);
        assert_eq!(boards.get(1).unwrap().side_of(Player::Host), Side::Goat);
        assert_eq!(boards.get(2).unwrap().side_of(Player::Host), Side::Tiger);
        // The host places a goat on board 1; on board 2 the goats are the
        // guest's to move.
        act(
            &mut boards,
            Player::Host,
            Target::One(1),
            Intent::Play("c3".parse().unwrap()),
            0,
        );
        assert_eq!(
            boards.decide(
                Player::Host,
                Target::One(2),
                Intent::Play("c3".parse().unwrap()),
                at(1)
            ),
            Err(Refusal::NotYourTurn)
        );
        act(
            &mut boards,
            Player::Guest,
            Target::One(2),
            Intent::Play("c3".parse().unwrap()),
            2,
        );
        assert_eq!(boards.version(), 2);
        let state = boards.state(2, at(3)).unwrap();
        assert_eq!((state.board, state.ply), (Some(2), 1));
        assert_eq!(state.host_side, wire::Side::Tigers);
    }

    #[test]
    fn a_match_names_its_boards_and_its_rematch_goes_to_both() {
        let boards = two_boards(Opponent::Friend);
        let play = Intent::Play("c3".parse().unwrap());
        assert_eq!(boards.target(None, &play), Err(UnknownBoard));
        assert_eq!(boards.target(Some(3), &play), Err(UnknownBoard));
        assert_eq!(boards.target(Some(2), &play), Ok(Target::One(2)));
        assert_eq!(boards.target(None, &Intent::Rematch), Ok(Target::All));
        assert_eq!(
            boards.target(Some(1), &Intent::DeclineRematch),
            Ok(Target::All)
        );
        let single = Boards::new(TableOptions {
            format: Format::Single,
            ..two_boards_options()
        });
        assert_eq!(single.target(None, &play), Ok(Target::One(1)));
        assert_eq!(single.target(Some(1), &Intent::Rematch), Ok(Target::One(1)));
        assert_eq!(single.target(Some(2), &play), Err(UnknownBoard));
    }

    fn two_boards_options() -> TableOptions {
        TableOptions {
            opponent: Opponent::Friend,
            host_side: Side::Goat,
            level: None,
            spectator_seats: 0,
            rules: Rules::default(),
            clock: None,
            format: Format::TwoBoards,
        }
    }

    #[test]
    fn the_match_is_scored_per_board_and_decided_once_both_are_over() {
        let mut boards = two_boards(Opponent::Friend);
        // The guest resigns board 1: a host win.
        act(
            &mut boards,
            Player::Guest,
            Target::One(1),
            Intent::Resign,
            0,
        );
        let state = boards.match_state();
        assert_eq!(
            (state.host_wins, state.guest_wins, state.result),
            (1, 0, None)
        );
        // The host resigns board 2: one all, a tied match.
        act(&mut boards, Player::Host, Target::One(2), Intent::Resign, 1);
        let state = boards.match_state();
        assert_eq!((state.host_wins, state.guest_wins), (1, 1));
        assert_eq!(state.result, Some(wire::MatchResult { winner: None }));
        assert!(!boards.active_after(&[], &[]));
        // A rematch is asked for and agreed on both boards at once, and
        // keeps the sides.
        act(
            &mut boards,
            Player::Host,
            Target::All,
            Intent::Rematch,
            20_000,
        );
        assert_eq!(
            boards.get(2).unwrap().state(at(0)).rematch_offer,
            Some(wire::Side::Tigers)
        );
        let agreed = boards
            .decide(Player::Guest, Target::All, Intent::Rematch, at(21_000))
            .unwrap();
        assert_eq!(
            agreed,
            vec![(1, Event::RematchStarted), (2, Event::RematchStarted)]
        );
        assert!(boards.active_after(&agreed, &boards.ending(&agreed)));
        let [first, second] = agreed[..] else {
            unreachable!()
        };
        boards.apply(first.0, first.1, at(21_000)).unwrap();
        // Between the two events, the old board 2 is not the new match's.
        let between = boards.match_state();
        assert_eq!(
            (between.number, between.host_wins, between.guest_wins),
            (2, 0, 0)
        );
        assert_eq!(between.result, None);
        boards.apply(second.0, second.1, at(21_000)).unwrap();
        let state = boards.match_state();
        assert_eq!((state.number, state.host_wins, state.result), (2, 0, None));
        assert_eq!(boards.get(1).unwrap().side_of(Player::Host), Side::Goat);
        assert_eq!(boards.get(2).unwrap().side_of(Player::Host), Side::Tiger);
        assert_eq!(boards.state(1, at(0)).unwrap().tally.host, 1);
        assert_eq!(boards.state(1, at(0)).unwrap().tally.guest, 1);
    }

    #[test]
    fn a_rematch_waits_for_both_boards() {
        let mut boards = two_boards(Opponent::Computer);
        act(&mut boards, Player::Host, Target::One(1), Intent::Resign, 0);
        assert_eq!(
            boards.decide(Player::Host, Target::All, Intent::Rematch, at(1)),
            Err(Refusal::GameNotOver)
        );
        act(&mut boards, Player::Host, Target::One(2), Intent::Resign, 2);
        let state = boards.match_state();
        assert_eq!(
            state.result,
            Some(wire::MatchResult {
                winner: Some(wire::Player::Guest)
            })
        );
        let events = boards
            .decide(Player::Host, Target::All, Intent::Rematch, at(3))
            .unwrap();
        assert_eq!(events.len(), 2);
    }

    #[test]
    fn an_aborted_board_counts_for_nobody() {
        let mut boards = two_boards(Opponent::Friend);
        act(&mut boards, Player::Host, Target::One(1), Intent::Abort, 0);
        act(&mut boards, Player::Host, Target::One(2), Intent::Resign, 1);
        let state = boards.match_state();
        assert_eq!((state.host_wins, state.guest_wins, state.draws), (0, 1, 0));
        assert_eq!(
            state.result,
            Some(wire::MatchResult {
                winner: Some(wire::Player::Guest)
            })
        );
    }
}
