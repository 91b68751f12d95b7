//! The [`Position`]: a validated [`Setup`] with its repetition record,
//! its legal actions, play and the endings.

use std::fmt;

use crate::board;
use crate::movegen::{count_legal, evaluate, for_each_legal, record_after, State};
use crate::{
    Action, Bitboard, Destinations, IllegalAction, Outcome, PlayError, PositionError, Rules, Setup,
    Side, Square, TextError,
};

/// The legal actions a list has room for before it grows: more than a
/// side has in most positions (21 placements at the first move).
const LEGAL_ROOM: usize = 32;

/// The placement or the movement phase, from the goats' point of view.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Phase {
    /// Goats are still in hand: every goat action is a placement.
    Placement,
    /// Every goat has been placed: goats step.
    Movement,
}
/// A legal position with its movement-phase record: the board, the side to
/// move, the counters, and the rules it is played under.
///
/// `Default` is the start of the house rules.
///
/// ```
/// use baghchal_rules::{Action, Position, Side, Square};
/// let pos = Position::default();
/// assert_eq!(pos.side_to_move(), Side::Goat);
/// assert_eq!(pos.legal_actions().len(), 21);
/// let pos = pos.play(Action::Place(Square::C3)).unwrap();
/// assert_eq!(pos.side_to_move(), Side::Tiger);
/// assert_eq!(pos.in_hand(), 19);
/// ```
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Position {
    rules: Rules,
    state: State,
    record: Vec<u64>,
    outcome: Option<Outcome>,
}

impl Default for Position {
    fn default() -> Position {
        Position::new(Rules::default())
    }
}

impl Position {
    /// The start position of `rules`.
    pub fn new(rules: Rules) -> Position {
        Position::from_setup(Setup::start(&rules), rules).expect("the start is a legal position")
    }

    /// Validates a setup under `rules`. A movement-phase position records
    /// itself; otherwise the repetition record starts empty.
    ///
    /// ```
    /// use baghchal_rules::{Position, PositionError, Rules, Setup};
    /// let setup: Setup = "TT..T/...../...../...../T...T g 20 0 0".parse().unwrap();
    /// assert_eq!(
    ///     Position::from_setup(setup, Rules::default()).unwrap_err(),
    ///     PositionError::TigerCount { expected: 4, found: 5 },
    /// );
    /// ```
    pub fn from_setup(setup: Setup, rules: Rules) -> Result<Position, PositionError> {
        if (setup.tigers | setup.goats).0 & !Bitboard::FULL.0 != 0 {
            return Err(PositionError::OffBoard);
        }
        if !(setup.tigers & setup.goats).is_empty() {
            return Err(PositionError::Overlap);
        }
        let found = setup.tigers.count() as u8;
        if found != rules.tigers() {
            return Err(PositionError::TigerCount {
                expected: rules.tigers(),
                found,
            });
        }
        let goats = setup.goats.count() as u16 + setup.in_hand as u16 + setup.eaten as u16;
        if goats != rules.total_goats() as u16 {
            return Err(PositionError::GoatCount {
                expected: rules.total_goats(),
                found: goats,
            });
        }
        if setup.eaten > rules.goats_to_win() {
            return Err(PositionError::Eaten {
                target: rules.goats_to_win(),
                found: setup.eaten,
            });
        }
        if setup.ply > rules.ply_limit() {
            return Err(PositionError::Ply {
                limit: rules.ply_limit(),
                found: setup.ply,
            });
        }
        let state = State {
            tigers: setup.tigers.0,
            goats: setup.goats.0,
            side: setup.side,
            in_hand: setup.in_hand,
            eaten: setup.eaten,
            ply: setup.ply,
        };
        let mut record = Vec::new();
        record_after(&mut record, &state, false);
        let outcome = evaluate(&state, &rules, &record);
        Ok(Position {
            rules,
            state,
            record,
            outcome,
        })
    }

    /// Reads a position text (see [`Setup`]) under `rules`.
    ///
    /// ```
    /// use baghchal_rules::{Position, Rules};
    /// let pos = Position::from_text("T...T/...../...../...../T...T g 20 0 0", Rules::default()).unwrap();
    /// assert_eq!(pos, Position::default());
    /// ```
    pub fn from_text(text: &str, rules: Rules) -> Result<Position, TextError> {
        let setup = text.parse().map_err(TextError::Parse)?;
        Position::from_setup(setup, rules).map_err(TextError::Invalid)
    }

    /// Whether a game can reach this position's ply count with its side to
    /// move: turns alternate strictly from the rules' first side, so that
    /// side moves at the even plies. A position made from any setup may
    /// break this (the tablebase and the engine only look at the board and
    /// the counters); a game's start must not.
    ///
    /// ```
    /// use baghchal_rules::{Position, Rules};
    /// let rules = Rules::default();
    /// assert!(Position::from_text("T...T/...../..G../...../T...T t 19 0 1", rules).unwrap().check_turn().is_ok());
    /// let odd = Position::from_text("T...T/...../..G../...../T...T g 19 0 1", rules).unwrap();
    /// assert_eq!(
    ///     odd.check_turn().unwrap_err().to_string(),
    ///     "at ply 1 it is the tigers' turn, not the goats': the goats move first, at the even plies",
    /// );
    /// ```
    pub fn check_turn(&self) -> Result<(), crate::TurnError> {
        let first = self.rules.first();
        let due = if self.state.ply.is_multiple_of(2) {
            first
        } else {
            first.other()
        };
        if due == self.state.side {
            Ok(())
        } else {
            Err(crate::TurnError {
                ply: self.state.ply,
                side: self.state.side,
                first,
            })
        }
    }

    /// The setup of this position (its text form, without the record).
    pub fn setup(&self) -> Setup {
        Setup {
            tigers: Bitboard(self.state.tigers),
            goats: Bitboard(self.state.goats),
            side: self.state.side,
            in_hand: self.state.in_hand,
            eaten: self.state.eaten,
            ply: self.state.ply,
        }
    }

    pub(crate) fn state(&self) -> &State {
        &self.state
    }

    /// The rules this position is played under.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The side to move.
    pub fn side_to_move(&self) -> Side {
        self.state.side
    }

    /// Where the tigers stand.
    pub fn tigers(&self) -> Bitboard {
        Bitboard(self.state.tigers)
    }

    /// Where the goats stand.
    pub fn goats(&self) -> Bitboard {
        Bitboard(self.state.goats)
    }

    /// The empty points.
    pub fn empty(&self) -> Bitboard {
        Bitboard(self.state.empty())
    }

    /// What stands on `square`.
    pub fn piece_at(&self, square: Square) -> Option<Side> {
        if self.tigers().contains(square) {
            Some(Side::Tiger)
        } else if self.goats().contains(square) {
            Some(Side::Goat)
        } else {
            None
        }
    }

    /// Goats not yet placed.
    pub fn in_hand(&self) -> u8 {
        self.state.in_hand
    }

    /// Goats captured.
    pub fn eaten(&self) -> u8 {
        self.state.eaten
    }

    /// Half moves played.
    pub fn ply(&self) -> u16 {
        self.state.ply
    }

    /// The placement phase while goats are in hand, then the movement phase.
    pub fn phase(&self) -> Phase {
        if self.state.in_hand > 0 {
            Phase::Placement
        } else {
            Phase::Movement
        }
    }

    /// A number that identifies the board and the side to move (not the
    /// counters), laid out as [`key`](crate::key) says: the tigers' bits,
    /// the goats' bits shifted by 25, and bit 50 set when the tigers are to
    /// move. This is what the repetition rule compares.
    pub fn key(&self) -> u64 {
        self.state.key()
    }

    /// The recorded movement-phase positions that still matter (since the
    /// last capture), as keys (see [`Position::key`]), oldest first.
    pub fn repetition_record(&self) -> &[u64] {
        &self.record
    }

    /// The result the rules give this position, if the game is over.
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    /// Whether the game is over.
    pub fn is_finished(&self) -> bool {
        self.outcome.is_some()
    }

    /// Every legal action of the side to move; none once the game is over.
    pub fn legal_actions(&self) -> Vec<Action> {
        if self.outcome.is_some() {
            return Vec::new();
        }
        // Room for the most a side usually has, so that the list is not
        // grown step by step from empty.
        let mut actions = Vec::with_capacity(LEGAL_ROOM);
        for_each_legal(&self.state, &self.rules, &self.record, &mut |a| {
            actions.push(a)
        });
        actions
    }

    /// The number of legal actions, without listing them.
    pub fn count_legal(&self) -> usize {
        if self.outcome.is_some() {
            0
        } else {
            count_legal(&self.state, &self.rules, &self.record) as usize
        }
    }

    /// The legal actions grouped for drawing: placements, and each piece
    /// with its actions.
    pub fn destinations(&self) -> Destinations {
        Destinations::from_actions(self.legal_actions())
    }

    /// How many tigers have no legal action of their own right now (the
    /// "tigers trapped n/4" reading).
    pub fn trapped_tigers(&self) -> u8 {
        let s = State {
            side: Side::Tiger,
            ..self.state
        };
        let record = if self.state.side == Side::Tiger {
            &self.record[..]
        } else {
            &[]
        };
        let mut free = Bitboard::EMPTY;
        for_each_legal(&s, &self.rules, record, &mut |a| {
            if let Some(from) = a.from() {
                free = free.with(from);
            }
        });
        (self.tigers().count() - free.count()) as u8
    }

    /// Whether `action` is legal here.
    pub fn is_legal(&self, action: &Action) -> bool {
        self.check(action).is_ok()
    }

    /// Why `action` is illegal here, or `Ok` if it is legal.
    pub fn check(&self, action: &Action) -> Result<(), IllegalAction> {
        if self.outcome.is_some() {
            return Err(IllegalAction::GameOver);
        }
        let mut legal = false;
        for_each_legal(&self.state, &self.rules, &self.record, &mut |a| {
            legal |= a == *action
        });
        if legal {
            Ok(())
        } else {
            Err(self.diagnose(action))
        }
    }

    /// The reason an action that is not in the legal list is illegal.
    fn diagnose(&self, action: &Action) -> IllegalAction {
        let s = &self.state;
        let empty = self.empty();
        let mine = match s.side {
            Side::Goat => self.goats(),
            Side::Tiger => self.tigers(),
        };
        match action {
            Action::Place(to) => {
                if s.side == Side::Tiger || s.in_hand == 0 {
                    IllegalAction::CannotPlace
                } else if !empty.contains(*to) {
                    IllegalAction::Occupied
                } else {
                    IllegalAction::CannotPlace
                }
            }
            _ if s.side == Side::Goat && s.in_hand > 0 => IllegalAction::MustPlace,
            Action::Step { from, to } => {
                if !mine.contains(*from) {
                    IllegalAction::NotYourPiece
                } else if !board::is_line(*from, *to) {
                    IllegalAction::NotALine
                } else if !empty.contains(*to) {
                    IllegalAction::Occupied
                } else {
                    IllegalAction::Repetition
                }
            }
            Action::Jump(j) => {
                if s.side == Side::Goat {
                    return if mine.contains(j.from()) {
                        IllegalAction::GoatsCannotJump
                    } else {
                        IllegalAction::NotYourPiece
                    };
                }
                if !mine.contains(j.from()) {
                    return IllegalAction::NotYourPiece;
                }
                let mut at = j.from();
                for &land in j.landings() {
                    if board::jump_over(at, land).is_none() {
                        return IllegalAction::NotALine;
                    }
                    at = land;
                }
                if j.len() > 1 && !self.rules.multi_jump() {
                    return IllegalAction::ChainNotAllowed;
                }
                if s.eaten as usize + j.len() > self.rules.goats_to_win() as usize {
                    return IllegalAction::ChainPastTarget;
                }
                // Walk the chain to find the first leg that fails.
                let mut goats = self.goats();
                let others = self.tigers().without(j.from());
                for (over, land) in j.captures().zip(j.landings().iter().copied()) {
                    if (others | goats).contains(land) {
                        return IllegalAction::Occupied;
                    }
                    if !goats.contains(over) {
                        return IllegalAction::NothingToCapture;
                    }
                    goats = goats.without(over);
                }
                IllegalAction::NothingToCapture
            }
        }
    }

    /// Plays `action`, or gives the position back untouched with the reason
    /// it is illegal.
    ///
    /// ```
    /// use baghchal_rules::{Action, IllegalAction, Position, Square};
    /// let pos = Position::default();
    /// let err = pos.play(Action::Step { from: Square::A1, to: Square::A2 }).unwrap_err();
    /// assert_eq!(err.reason, IllegalAction::MustPlace);
    /// assert_eq!(err.position, Position::default());
    /// ```
    pub fn play(mut self, action: Action) -> Result<Position, PlayError> {
        match self.play_mut(action) {
            Ok(()) => Ok(self),
            Err(reason) => Err(PlayError {
                reason,
                position: self,
            }),
        }
    }

    /// Plays `action` in place; on error the position is unchanged.
    pub fn play_mut(&mut self, action: Action) -> Result<(), IllegalAction> {
        self.check(&action)?;
        self.play_unchecked(action);
        Ok(())
    }

    /// Plays `action` without checking it.
    ///
    /// The action must be legal in this position (one of
    /// [`Position::legal_actions`]); otherwise the position that results is
    /// unspecified (it may break the invariants that `from_setup` checks).
    pub fn play_unchecked(&mut self, action: Action) {
        let captured = self.state.apply(&action);
        record_after(&mut self.record, &self.state, captured);
        self.outcome = evaluate(&self.state, &self.rules, &self.record);
    }
}

impl fmt::Display for Position {
    /// The position text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.setup().fmt(f)
    }
}
