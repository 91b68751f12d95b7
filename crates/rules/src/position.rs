//! Positions: an unchecked [`Setup`], and the [`Position`] it becomes once
//! validated, with legal actions, play and the endings.

use std::fmt;
use std::str::FromStr;

use crate::board;
use crate::{Action, Bitboard, Jump, Outcome, Reason, Repetition, Rules, Side, Square};

/// The placement or the movement phase, from the goats' point of view.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Phase {
    /// Goats are still in hand: every goat action is a placement.
    Placement,
    /// Every goat has been placed: goats step.
    Movement,
}

/// A position as text says it, unchecked: every field is public. It
/// becomes a [`Position`] through [`Position::from_setup`].
///
/// Its text form is `BOARD SIDE IN_HAND EATEN PLY`: the rows from 5 down to
/// 1 separated by `/`, five characters each (`T` tiger, `G` goat, `.`
/// empty), then `g` or `t`, then three numbers.
///
/// ```
/// use baghchal_rules::Setup;
/// let start = "T...T/...../...../...../T...T g 20 0 0";
/// let setup: Setup = start.parse().unwrap();
/// assert_eq!(setup.in_hand, 20);
/// assert_eq!(setup.to_string(), start);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Setup {
    /// Where the tigers stand.
    pub tigers: Bitboard,
    /// Where the goats stand.
    pub goats: Bitboard,
    /// The side to move.
    pub side: Side,
    /// Goats not yet placed.
    pub in_hand: u8,
    /// Goats captured.
    pub eaten: u8,
    /// Half moves played so far.
    pub ply: u16,
}

impl Setup {
    /// The starting setup of `rules`.
    pub fn start(rules: &Rules) -> Setup {
        Setup {
            tigers: rules.tiger_start(),
            goats: Bitboard::EMPTY,
            side: rules.first(),
            in_hand: rules.total_goats(),
            eaten: 0,
            ply: 0,
        }
    }
}

impl Default for Setup {
    fn default() -> Setup {
        Setup::start(&Rules::default())
    }
}

impl fmt::Display for Setup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in (0..5).rev() {
            for column in 0..5 {
                let sq = Square::from_coords(column, row).expect("on the board");
                let c = if self.tigers.contains(sq) {
                    'T'
                } else if self.goats.contains(sq) {
                    'G'
                } else {
                    '.'
                };
                write!(f, "{c}")?;
            }
            if row > 0 {
                write!(f, "/")?;
            }
        }
        write!(
            f,
            " {} {} {} {}",
            self.side.char(),
            self.in_hand,
            self.eaten,
            self.ply
        )
    }
}

/// Why a text is not a position text. Each variant names the field.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ParseSetupError {
    /// Not exactly five fields separated by spaces.
    Fields,
    /// The board is not five rows separated by `/`.
    Rows,
    /// A row (counted from the top, 0..5) is not five characters long.
    RowLength {
        /// Row index from the top.
        row: usize,
    },
    /// A board character other than `T`, `G` and `.`.
    Piece {
        /// Row index from the top.
        row: usize,
        /// Column index from the left.
        column: usize,
    },
    /// The side is not `g` or `t`.
    Side,
    /// Goats in hand is not a number 0..=255.
    InHand,
    /// Goats eaten is not a number 0..=255.
    Eaten,
    /// The ply count is not a number 0..=65535.
    Ply,
}

impl fmt::Display for ParseSetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseSetupError::Fields => {
                f.write_str("a position text has five fields: BOARD SIDE IN_HAND EATEN PLY")
            }
            ParseSetupError::Rows => f.write_str("the board has five rows separated by '/'"),
            ParseSetupError::RowLength { row } => {
                write!(f, "row {} of the board is not five points long", 5 - row)
            }
            ParseSetupError::Piece { row, column } => write!(
                f,
                "unknown piece at {}{}: use T, G or .",
                (b'a' + *column as u8) as char,
                5 - row
            ),
            ParseSetupError::Side => f.write_str("the side to move is 'g' or 't'"),
            ParseSetupError::InHand => f.write_str("goats in hand is not a number"),
            ParseSetupError::Eaten => f.write_str("goats eaten is not a number"),
            ParseSetupError::Ply => f.write_str("the ply count is not a number"),
        }
    }
}

impl std::error::Error for ParseSetupError {}

impl FromStr for Setup {
    type Err = ParseSetupError;

    fn from_str(s: &str) -> Result<Setup, ParseSetupError> {
        let fields: Vec<&str> = s.split(' ').collect();
        let [board, side, in_hand, eaten, ply] = fields[..] else {
            return Err(ParseSetupError::Fields);
        };
        let rows: Vec<&str> = board.split('/').collect();
        if rows.len() != 5 {
            return Err(ParseSetupError::Rows);
        }
        let mut tigers = Bitboard::EMPTY;
        let mut goats = Bitboard::EMPTY;
        for (i, row) in rows.iter().enumerate() {
            if row.len() != 5 || !row.is_ascii() {
                return Err(ParseSetupError::RowLength { row: i });
            }
            for (column, c) in row.bytes().enumerate() {
                let sq = Square::from_coords(column as u8, 4 - i as u8).expect("on the board");
                match c {
                    b'T' => tigers = tigers.with(sq),
                    b'G' => goats = goats.with(sq),
                    b'.' => {}
                    _ => return Err(ParseSetupError::Piece { row: i, column }),
                }
            }
        }
        let side = match side {
            "g" => Side::Goat,
            "t" => Side::Tiger,
            _ => return Err(ParseSetupError::Side),
        };
        let number = |t: &str| t.bytes().all(|b| b.is_ascii_digit()) && !t.is_empty();
        let in_hand = Some(in_hand)
            .filter(|t| number(t))
            .and_then(|t| t.parse().ok())
            .ok_or(ParseSetupError::InHand)?;
        let eaten = Some(eaten)
            .filter(|t| number(t))
            .and_then(|t| t.parse().ok())
            .ok_or(ParseSetupError::Eaten)?;
        let ply = Some(ply)
            .filter(|t| number(t))
            .and_then(|t| t.parse().ok())
            .ok_or(ParseSetupError::Ply)?;
        Ok(Setup {
            tigers,
            goats,
            side,
            in_hand,
            eaten,
            ply,
        })
    }
}

/// Why a setup is not a position of the given rules.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PositionError {
    /// A bit above the 25 points is set.
    OffBoard,
    /// A point holds a tiger and a goat.
    Overlap,
    /// The number of tigers is not the rules' (4, or 3).
    TigerCount {
        /// What the rules want.
        expected: u8,
        /// What the setup has.
        found: u8,
    },
    /// Goats on the board + in hand + eaten is not the rules' total.
    GoatCount {
        /// What the rules want.
        expected: u8,
        /// What the setup adds up to.
        found: u16,
    },
    /// More goats eaten than the capture target.
    Eaten {
        /// The capture target.
        target: u8,
        /// Goats eaten in the setup.
        found: u8,
    },
    /// A ply count above the rules' limit.
    Ply {
        /// The ply limit.
        limit: u16,
        /// The setup's ply count.
        found: u16,
    },
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            PositionError::OffBoard => f.write_str("a piece stands off the board"),
            PositionError::Overlap => f.write_str("a point holds both a tiger and a goat"),
            PositionError::TigerCount { expected, found } => {
                write!(f, "expected {expected} tigers, found {found}")
            }
            PositionError::GoatCount { expected, found } => write!(
                f,
                "goats on the board, in hand and eaten add up to {found}, not {expected}"
            ),
            PositionError::Eaten { target, found } => write!(
                f,
                "{found} goats eaten is more than the capture target of {target}"
            ),
            PositionError::Ply { limit, found } => {
                write!(f, "ply {found} is beyond the ply limit of {limit}")
            }
        }
    }
}

impl std::error::Error for PositionError {}

/// Why a position text could not be read as a position.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TextError {
    /// The text is malformed.
    Parse(ParseSetupError),
    /// The text is well formed but not a position of the rules.
    Invalid(PositionError),
}

impl fmt::Display for TextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TextError::Parse(e) => e.fmt(f),
            TextError::Invalid(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for TextError {}

/// Why an action cannot be played in a position. The position is left
/// as it was.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum IllegalAction {
    /// The game has finished.
    GameOver,
    /// Goats are in hand: the goats' only action is a placement.
    MustPlace,
    /// A placement by the tigers, or by goats with none in hand.
    CannotPlace,
    /// No piece of the side to move stands on the starting point.
    NotYourPiece,
    /// No line of the board joins the points that way: a step between
    /// points that are not neighbours, or a jump that is not two points
    /// along one line.
    NotALine,
    /// The destination is occupied.
    Occupied,
    /// Goats never jump.
    GoatsCannotJump,
    /// The jumped point does not hold a goat.
    NothingToCapture,
    /// More than one jump without the multi-jump variant.
    ChainNotAllowed,
    /// A chain that goes on after the capture target is reached.
    ChainPastTarget,
    /// The action would recreate a recorded movement-phase position.
    Repetition,
}

impl IllegalAction {
    /// A stable snake_case code for the wire.
    pub const fn code(self) -> &'static str {
        match self {
            IllegalAction::GameOver => "game_over",
            IllegalAction::MustPlace => "must_place",
            IllegalAction::CannotPlace => "cannot_place",
            IllegalAction::NotYourPiece => "not_your_piece",
            IllegalAction::NotALine => "not_a_line",
            IllegalAction::Occupied => "occupied",
            IllegalAction::GoatsCannotJump => "goats_cannot_jump",
            IllegalAction::NothingToCapture => "nothing_to_capture",
            IllegalAction::ChainNotAllowed => "chain_not_allowed",
            IllegalAction::ChainPastTarget => "chain_past_target",
            IllegalAction::Repetition => "repetition",
        }
    }
}

impl fmt::Display for IllegalAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            IllegalAction::GameOver => "the game is over",
            IllegalAction::MustPlace => "goats must be placed while any are in hand",
            IllegalAction::CannotPlace => "no goat can be placed now",
            IllegalAction::NotYourPiece => "no piece of the side to move stands there",
            IllegalAction::NotALine => "no line of the board joins those points that way",
            IllegalAction::Occupied => "that point is occupied",
            IllegalAction::GoatsCannotJump => "goats never jump",
            IllegalAction::NothingToCapture => "a jump must pass over a goat",
            IllegalAction::ChainNotAllowed => "only one capture per turn in these rules",
            IllegalAction::ChainPastTarget => "the capture target is reached: the chain ends",
            IllegalAction::Repetition => "that would repeat an earlier position",
        })
    }
}

impl std::error::Error for IllegalAction {}

/// An action refused by [`Position::play`], with the untouched position.
#[derive(Clone, Debug)]
pub struct PlayError {
    /// Why the action is illegal.
    pub reason: IllegalAction,
    /// The position, as it was.
    pub position: Position,
}

impl fmt::Display for PlayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.reason.fmt(f)
    }
}

impl std::error::Error for PlayError {}

/// The legal actions of the side to move, grouped as a board shows them:
/// the points where a goat can be placed, and each movable piece with its
/// actions.
///
/// ```
/// use baghchal_rules::Position;
/// let dests = Position::default().destinations();
/// assert_eq!(dests.placements().count(), 21);
/// assert!(dests.pieces().next().is_none());
/// ```
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Destinations {
    placements: Bitboard,
    pieces: Vec<(Square, Vec<Action>)>,
}

impl Destinations {
    /// The empty points where a goat can be placed.
    pub fn placements(&self) -> Bitboard {
        self.placements
    }

    /// Each piece that can move, with its legal actions.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, &[Action])> {
        self.pieces.iter().map(|(sq, a)| (*sq, a.as_slice()))
    }

    /// The points the piece on `from` can end on.
    pub fn targets(&self, from: Square) -> Bitboard {
        self.pieces
            .iter()
            .filter(|(sq, _)| *sq == from)
            .flat_map(|(_, actions)| actions.iter().map(Action::to))
            .fold(Bitboard::EMPTY, Bitboard::with)
    }

    /// Whether there is no legal action at all.
    pub fn is_empty(&self) -> bool {
        self.placements.is_empty() && self.pieces.is_empty()
    }
}

/// The compact state that move generation works on.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct State {
    pub tigers: u32,
    pub goats: u32,
    pub side: Side,
    pub in_hand: u8,
    pub eaten: u8,
    pub ply: u16,
}

impl State {
    #[inline]
    pub fn key(&self) -> u64 {
        key_of(self.tigers, self.goats, self.side)
    }

    #[inline]
    pub fn empty(&self) -> u32 {
        !(self.tigers | self.goats) & Bitboard::FULL.0
    }

    /// Plays `action`, assumed legal. Returns whether it captured.
    #[inline]
    pub fn apply(&mut self, action: &Action) -> bool {
        let captured = match *action {
            Action::Place(to) => {
                self.goats |= 1 << to.index();
                self.in_hand -= 1;
                false
            }
            Action::Step { from, to } => {
                let mv = (1 << from.index()) | (1 << to.index());
                match self.side {
                    Side::Goat => self.goats ^= mv,
                    Side::Tiger => self.tigers ^= mv,
                }
                false
            }
            Action::Jump(ref j) => {
                // Not a toggle: a chain may end where it started.
                self.tigers = (self.tigers & !(1 << j.from().index())) | (1 << j.to().index());
                for sq in j.captures() {
                    self.goats &= !(1 << sq.index());
                    self.eaten += 1;
                }
                true
            }
        };
        self.side = self.side.other();
        self.ply += 1;
        captured
    }
}

#[inline]
pub(crate) fn key_of(tigers: u32, goats: u32, side: Side) -> u64 {
    tigers as u64 | (goats as u64) << 25 | ((side == Side::Tiger) as u64) << 50
}

#[inline]
fn side_of_key(key: u64) -> Side {
    if key >> 50 & 1 == 1 {
        Side::Tiger
    } else {
        Side::Goat
    }
}

/// Whether the repetition rule forbids recreating `key` from `record`.
#[inline]
fn forbidden(rules: &Rules, record: &[u64], key: u64) -> bool {
    rules.repetition() == Repetition::Forbid && record.contains(&key)
}

/// Calls `f` with `start` and every longer chain that goes on from it. The
/// tiger of the chain stands on `at` (and in `tigers`), the goats it has
/// captured are gone from `goats`, and `room` counts the last jump of
/// `start` and every further one the action may still hold.
fn for_each_chain(
    tigers: u32,
    goats: u32,
    start: Jump,
    at: Square,
    room: usize,
    f: &mut impl FnMut(&Jump),
) {
    f(&start);
    if room <= 1 {
        return;
    }
    let empty = !(tigers | goats) & Bitboard::FULL.0;
    for line in board::jump_lines(at) {
        if goats & (1 << line.over.index()) != 0 && empty & (1 << line.land.index()) != 0 {
            if let Some(next) = start.extended(line.land) {
                // The tiger leaves `at` for the landing point.
                for_each_chain(
                    (tigers & !(1 << at.index())) | (1 << line.land.index()),
                    goats & !(1 << line.over.index()),
                    next,
                    line.land,
                    room - 1,
                    f,
                );
            }
        }
    }
}

/// Calls `f` with every jump action (single, or chains under the
/// multi-jump variant) of the tiger on `from`.
#[inline]
pub(crate) fn for_each_jump(s: &State, rules: &Rules, from: Square, f: &mut impl FnMut(&Jump)) {
    let empty = s.empty();
    let room = if rules.multi_jump() {
        rules.goats_to_win().saturating_sub(s.eaten) as usize
    } else {
        1
    };
    for line in board::jump_lines(from) {
        if s.goats & (1 << line.over.index()) != 0 && empty & (1 << line.land.index()) != 0 {
            let jump = Jump::single(from, line.land);
            if room <= 1 {
                f(&jump);
            } else {
                // The tiger has left `from`: it is empty for the rest of the chain.
                let tigers = (s.tigers & !(1 << from.index())) | (1 << line.land.index());
                let goats = s.goats & !(1 << line.over.index());
                for_each_chain(tigers, goats, jump, line.land, room, f);
            }
        }
    }
}

/// Calls `f` with every legal action of `s` (which is assumed unfinished
/// apart from possibly having none).
pub(crate) fn for_each_legal(s: &State, rules: &Rules, record: &[u64], f: &mut impl FnMut(Action)) {
    let empty = s.empty();
    let check = rules.repetition() == Repetition::Forbid && s.in_hand == 0 && !record.is_empty();
    match s.side {
        Side::Goat if s.in_hand > 0 => {
            for to in Bitboard(empty) {
                f(Action::Place(to));
            }
        }
        side => {
            let mine = if side == Side::Goat {
                s.goats
            } else {
                s.tigers
            };
            for from in Bitboard(mine) {
                for to in board::neighbours(from) & Bitboard(empty) {
                    if check {
                        let mv = from.bitboard().0 | to.bitboard().0;
                        let key = match side {
                            Side::Goat => key_of(s.tigers, s.goats ^ mv, side.other()),
                            Side::Tiger => key_of(s.tigers ^ mv, s.goats, side.other()),
                        };
                        if forbidden(rules, record, key) {
                            continue;
                        }
                    }
                    f(Action::Step { from, to });
                }
                if side == Side::Tiger {
                    for_each_jump(s, rules, from, &mut |j| f(Action::Jump(*j)));
                }
            }
        }
    }
}

/// The number of legal actions of `s`, without listing them: whole sets
/// of points at a time, one direction after another.
#[inline]
pub(crate) fn count_legal(s: &State, rules: &Rules, record: &[u64]) -> u64 {
    let empty = s.empty();
    if s.side == Side::Goat && s.in_hand > 0 {
        return u64::from(empty.count_ones());
    }
    let mine = match s.side {
        Side::Goat => s.goats,
        Side::Tiger => s.tigers,
    };
    let mut n = 0u32;
    for ray in board::RAYS {
        n += (board::shifted(mine & ray.step_from, ray.shift) & empty).count_ones();
    }
    if s.side == Side::Tiger {
        if rules.multi_jump() {
            for from in Bitboard(mine) {
                for_each_jump(s, rules, from, &mut |_| n += 1);
            }
        } else {
            for ray in board::RAYS {
                let over = board::shifted(mine & ray.jump_from, ray.shift) & s.goats;
                n += (board::shifted(over, ray.shift) & empty).count_ones();
            }
        }
    }
    let mut n = u64::from(n);
    if rules.repetition() == Repetition::Forbid && s.in_hand == 0 && !record.is_empty() {
        n -= repeated_steps(s, record);
    }
    n
}

/// How many of the steps of `s` lead to a recorded position. A capture
/// clears the record, so only steps can repeat, and every recorded entry is
/// distinct under the forbid rule.
#[inline]
fn repeated_steps(s: &State, record: &[u64]) -> u64 {
    let next = s.side.other();
    let empty = s.empty();
    let mut hits = 0;
    for &key in record {
        if side_of_key(key) != next {
            continue;
        }
        let tigers = (key & 0x1ff_ffff) as u32;
        let goats = (key >> 25 & 0x1ff_ffff) as u32;
        let (mine, theirs, other_mine, other_theirs) = match s.side {
            Side::Goat => (s.goats, goats, s.tigers, tigers),
            Side::Tiger => (s.tigers, tigers, s.goats, goats),
        };
        if other_mine != other_theirs {
            continue;
        }
        let diff = mine ^ theirs;
        if diff.count_ones() != 2 {
            continue;
        }
        let from = diff & mine;
        let to = diff & empty;
        if from.count_ones() == 1 && to.count_ones() == 1 {
            let from = Square::ALL[from.trailing_zeros() as usize];
            if board::neighbours(from).0 & to != 0 {
                hits += 1;
            }
        }
    }
    hits
}

/// The outcome that the rules give `s`, checked in the house order.
pub(crate) fn evaluate(s: &State, rules: &Rules, record: &[u64]) -> Option<Outcome> {
    if s.eaten >= rules.goats_to_win() {
        return Some(Outcome::win(Side::Tiger, Reason::CaptureTarget));
    }
    ending_after_target(s, rules, record, count_legal(s, rules, record))
}

/// The endings checked after the capture target, in the house order, given
/// that `s` has `legal` legal actions.
#[inline]
pub(crate) fn ending_after_target(
    s: &State,
    rules: &Rules,
    record: &[u64],
    legal: u64,
) -> Option<Outcome> {
    if legal == 0 {
        let reason = match s.side {
            Side::Tiger => Reason::TigersTrapped,
            Side::Goat => Reason::GoatsBlocked,
        };
        return Some(Outcome::win(s.side.other(), reason));
    }
    if rules.repetition() == Repetition::ThreefoldDraw && s.in_hand == 0 {
        let key = s.key();
        if record.iter().filter(|&&k| k == key).count() >= 3 {
            return Some(Outcome::draw(Reason::Threefold));
        }
    }
    if s.ply >= rules.ply_limit() {
        return Some(Outcome::draw(Reason::PlyLimit));
    }
    None
}

/// Updates the movement-phase record after an action that led to `s`.
#[inline]
pub(crate) fn record_after(record: &mut Vec<u64>, s: &State, captured: bool) {
    if s.in_hand == 0 {
        if captured {
            // No earlier position can come back: it had more goats.
            record.clear();
        }
        record.push(s.key());
    }
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
    /// counters): the tigers' bits, the goats' bits shifted by 25, and bit
    /// 50 set when the tigers are to move. This is what the repetition
    /// rule compares.
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
        let mut actions = Vec::new();
        if self.outcome.is_none() {
            for_each_legal(&self.state, &self.rules, &self.record, &mut |a| {
                actions.push(a)
            });
        }
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
        let mut dests = Destinations::default();
        for action in self.legal_actions() {
            match action {
                Action::Place(to) => dests.placements = dests.placements.with(to),
                _ => {
                    let from = action.from().expect("a move has an origin");
                    match dests.pieces.last_mut() {
                        Some((sq, list)) if *sq == from => list.push(action),
                        _ => dests.pieces.push((from, vec![action])),
                    }
                }
            }
        }
        dests
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
