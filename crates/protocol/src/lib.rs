//! The wire types of the Bagh-Chal table server: the HTTP API's bodies and
//! the websocket messages, one serde-tagged enum per direction.
//!
//! Actions travel as text in the rules' notation (`c3`, `b2-c3`,
//! `a1xc3`), positions as position text (`T...T/...../...../...../T...T g
//! 20 0 0`). `docs/protocol.md` describes the exchanges with an example of
//! every message; the golden-JSON tests pin the format.
//!
//! ```
//! use baghchal_protocol::ClientMessage;
//! let msg: ClientMessage = serde_json::from_str(r#"{"type":"action","id":"7","action":"c3"}"#).unwrap();
//! assert_eq!(msg, ClientMessage::Action { id: "7".into(), action: "c3".into(), board: None });
//! ```

mod decode;
mod event_json;
mod lobby;
mod players;
mod profiles;
pub use event_json::write_ack_json;
pub use lobby::*;
pub use players::*;
pub use profiles::*;

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

/// The version of this protocol; `welcome` carries it.
pub const PROTOCOL_VERSION: u32 = 1;

/// The largest websocket frame the server reads, in bytes.
pub const MAX_FRAME_BYTES: usize = 16 * 1024;

/// The longest client action id, in bytes.
pub const MAX_ACTION_ID_BYTES: usize = 64;

/// A side of the board.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// The goats.
    Goats,
    /// The tigers.
    Tigers,
}

/// Who holds a table's second seat.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Opponent {
    /// A person, who joins through the opponent link.
    Friend,
    /// The computer.
    Computer,
    /// The computer on both seats: a table to watch.
    Bots,
}

/// The two players of a table: the one who created it and the one who
/// joined (or the computer). Sides swap between games; players do not.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Player {
    /// The creator of the table.
    Host,
    /// The opponent: a friend or the computer.
    Guest,
}

/// What a connection may do at a table.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// A player: may act on its side's turn.
    Player,
    /// A spectator: watches, never acts.
    Spectator,
}

/// Where the game stands in its phases.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Goats are still in hand.
    Placement,
    /// All goats placed: goats step.
    Movement,
}

/// The repetition rule of a table.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Repetition {
    /// An action that would recreate a recorded movement-phase position is
    /// illegal (the house rule).
    #[default]
    Forbid,
    /// The third occurrence of a movement-phase position draws.
    ThreefoldDraw,
}

/// The rules variant of a table. Every field may be left out of a request
/// and takes the house default.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Variant {
    /// Goats the tigers must capture to win, 3..=7 (default 5, or 4 in the
    /// three-tiger game).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub goats_to_win: Option<u8>,
    /// Who moves first (default goats).
    pub first: Side,
    /// Successive capture jumps in one turn.
    pub multi_jump: bool,
    /// Three tigers (a1, a5, e5) and sixteen goats.
    pub three_tigers: bool,
    /// The repetition rule.
    pub repetition: Repetition,
    /// Plies after which a game with no winner is drawn (default 400).
    pub ply_limit: u16,
}

impl Default for Variant {
    fn default() -> Variant {
        Variant {
            goats_to_win: None,
            first: Side::Goats,
            multi_jump: false,
            three_tigers: false,
            repetition: Repetition::Forbid,
            ply_limit: 400,
        }
    }
}

/// A time control, as a table is created with it: either `initial` and
/// `increment` (a clock of initial time plus an increment per action, in
/// seconds) or `days_per_action` (a correspondence pace). Exactly one of
/// the two forms; the server checks the bounds.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeControl {
    /// Initial time of each side, in seconds (5..=10800).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial: Option<u32>,
    /// Seconds added after each of a side's actions (0..=180).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub increment: Option<u32>,
    /// Days for each action (1..=3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub days_per_action: Option<u8>,
}

/// How a table's games are arranged: the `format` of a table request.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// One game at a time; a rematch swaps sides (the default).
    #[default]
    Single,
    /// Two boards at once with the sides crossed: the creator holds
    /// `side` on board 1 and the other side on board 2.
    TwoBoards,
    /// A series of `series_games` games, sides swapped after each.
    Series,
}

impl Format {
    /// Whether this is the single-game format (left out of messages).
    pub fn is_single(&self) -> bool {
        *self == Format::Single
    }
}

/// `POST /api/tables`: the options of a new table.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateTable {
    /// A friend, the computer, or the computer on both seats.
    pub opponent: Opponent,
    /// The creator's side (default goats; ignored for bots tables).
    #[serde(default = "default_side")]
    pub side: Side,
    /// The computer's level, 400..=2400 in steps of 100 (default 1200).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<u16>,
    /// Reserved spectator seats, 0..=12 (default 0).
    #[serde(default)]
    pub spectators: u8,
    /// The rules variant (default: the house rules).
    #[serde(default)]
    pub variant: Variant,
    /// The time control; absent or `null`: no clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<TimeControl>,
    /// How the games are arranged (default `single`).
    #[serde(default, skip_serializing_if = "Format::is_single")]
    pub format: Format,
    /// The games of a series: 2, 4 or 6 (only with `format: series`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub series_games: Option<u8>,
}

fn default_side() -> Side {
    Side::Goats
}

/// The answer to `POST /api/tables`: the creator's own seat and the links
/// to hand out. Every secret here is for the creator alone.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct TableCreated {
    /// The table's id (public).
    pub table: String,
    /// The creator's seat secret; `None` at a bots table, which has no
    /// seat for people.
    pub secret: Option<String>,
    /// The creator's side in the first game (`None` at a bots table).
    pub side: Option<Side>,
    /// The page address of the creator's seat.
    pub seat_link: Option<String>,
    /// The opponent link (friend tables).
    pub opponent_link: Option<String>,
    /// The spectator link (when spectator seats are reserved).
    pub spectator_link: Option<String>,
}

/// Why the HTTP API refused a request (`ApiError::error`); each code has
/// one status.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApiErrorCode {
    /// 400: the body is not one JSON object.
    InvalidJson,
    /// 403: the request came from a page of another origin.
    ForbiddenOrigin,
    /// 404: no such table or game.
    NotFound,
    /// 409: the game is still being played.
    GameNotOver,
    /// 413: the body is over 16 KiB.
    TooLarge,
    /// 415: the body is not sent as `application/json`.
    UnsupportedMediaType,
    /// 422: a field is missing, unknown, mistyped or out of range.
    InvalidField,
    /// 422: an action of an analysis request's line is illegal.
    IllegalAction,
    /// 422: a pasted or exported game is not (or cannot be) in that
    /// notation.
    InvalidNotation,
    /// 429: too many tables created from one address; see `Retry-After`.
    RateLimited,
    /// 503: the server is full, or failed; try again.
    Unavailable,
    /// 401: the request needs a session (the cookie) and came without one.
    NotSignedIn,
    /// 401: the name or the password is wrong.
    WrongPassword,
    /// 409: another account has this name (without regard to case).
    NameTaken,
    /// 409: the player already has an account.
    AlreadyAccount,
    /// 403: only accounts may do this (rated play, changing a password).
    AccountNeeded,
    /// 409: the challenge was taken (or withdrawn) already.
    Taken,
    /// 409: the player is already in a game the lobby made.
    Busy,
    /// 403: one of the two players blocks the other.
    Blocked,
}

impl ApiErrorCode {
    /// The code as it travels, e.g. `invalid_field`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ApiErrorCode::InvalidJson => "invalid_json",
            ApiErrorCode::ForbiddenOrigin => "forbidden_origin",
            ApiErrorCode::NotFound => "not_found",
            ApiErrorCode::GameNotOver => "game_not_over",
            ApiErrorCode::TooLarge => "too_large",
            ApiErrorCode::UnsupportedMediaType => "unsupported_media_type",
            ApiErrorCode::InvalidField => "invalid_field",
            ApiErrorCode::IllegalAction => "illegal_action",
            ApiErrorCode::InvalidNotation => "invalid_notation",
            ApiErrorCode::RateLimited => "rate_limited",
            ApiErrorCode::Unavailable => "unavailable",
            ApiErrorCode::NotSignedIn => "not_signed_in",
            ApiErrorCode::WrongPassword => "wrong_password",
            ApiErrorCode::NameTaken => "name_taken",
            ApiErrorCode::AlreadyAccount => "already_account",
            ApiErrorCode::AccountNeeded => "account_needed",
            ApiErrorCode::Taken => "taken",
            ApiErrorCode::Busy => "busy",
            ApiErrorCode::Blocked => "blocked",
        }
    }

    /// The HTTP status that carries this code.
    ///
    /// ```
    /// assert_eq!(baghchal_protocol::ApiErrorCode::InvalidField.status(), 422);
    /// ```
    pub const fn status(self) -> u16 {
        match self {
            ApiErrorCode::InvalidJson => 400,
            ApiErrorCode::ForbiddenOrigin => 403,
            ApiErrorCode::NotFound => 404,
            ApiErrorCode::GameNotOver => 409,
            ApiErrorCode::TooLarge => 413,
            ApiErrorCode::UnsupportedMediaType => 415,
            ApiErrorCode::InvalidField
            | ApiErrorCode::IllegalAction
            | ApiErrorCode::InvalidNotation => 422,
            ApiErrorCode::RateLimited => 429,
            ApiErrorCode::Unavailable => 503,
            ApiErrorCode::NotSignedIn | ApiErrorCode::WrongPassword => 401,
            ApiErrorCode::AccountNeeded | ApiErrorCode::Blocked => 403,
            ApiErrorCode::NameTaken
            | ApiErrorCode::AlreadyAccount
            | ApiErrorCode::Taken
            | ApiErrorCode::Busy => 409,
        }
    }
}

/// An HTTP error body: a code, the offending field if any, and a sentence.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct ApiError {
    /// A stable code, e.g. `invalid_field`, `not_found`.
    pub error: ApiErrorCode,
    /// The request field at fault, if one is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// A sentence for people.
    pub message: String,
}

/// `GET /api/tables/{table}/games/{game}`: one game of a table, as
/// played so far.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct GameRecord {
    /// The table id.
    pub table: String,
    /// The game's number at this table, from 1.
    pub game: u32,
    /// The board, at a two-board table (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board: Option<u8>,
    /// The rules variant.
    pub variant: Variant,
    /// The host's side in this game.
    pub host_side: Side,
    /// The actions in notation, in order.
    pub moves: Vec<String>,
    /// The result, once the game is over.
    pub result: Option<GameResult>,
    /// The game in the rules' text record format (`rules`, `actions`,
    /// `result` lines).
    pub record: String,
    /// A rated game's rating changes, once it is over (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratings: Option<GameRatings>,
}

/// The shape of [`GameAnalysis`] this server writes. A review stored in an
/// earlier shape (before 2: values as `win`, `loss`, `draw` or `score`
/// with a separate source) is computed again rather than served.
pub const ANALYSIS_VERSION: u32 = 2;

/// `GET /api/tables/{table}/games/{game}/analysis`: every action of a
/// finished game with what it was worth, so that a page can show where the
/// game turned.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct GameAnalysis {
    /// The shape of this review: [`ANALYSIS_VERSION`].
    pub version: u32,
    /// The table id.
    pub table: String,
    /// The game's number at this table, from 1.
    pub game: u32,
    /// One review per action, in order.
    pub actions: Vec<ActionReview>,
}

/// What one action of a game was worth to the side that played it.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct ActionReview {
    /// The ply before the action (0 for the first).
    pub ply: u16,
    /// The side that played it.
    pub side: Side,
    /// The action in notation.
    pub action: String,
    /// The position's value for the mover before the action.
    pub before: Evaluation,
    /// The value for the mover after it.
    pub after: Evaluation,
    /// The engine's preferred action before it (may be the one played).
    pub best: String,
    /// What the action gave away, in percentage points of the mover's
    /// share of the game (a win 100, a draw 50, a loss 0, an estimate
    /// its winning chance): 0 for the best action, 50 for a win turned
    /// into a draw or a draw into a loss.
    pub lost: u8,
}

/// A result for one side.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The side wins.
    Win,
    /// Neither side wins.
    Draw,
    /// The side loses.
    Loss,
}

/// A value for one side, naming its kind.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Evaluation {
    /// The game is over: the rules' result.
    Over {
        /// The result for the side.
        result: Outcome,
    },
    /// Solved: the movement-phase tablebase's result for the board and the
    /// side to move, which ignores the repetition record and the ply
    /// limit (so the house rules can make the game go otherwise).
    Solved {
        /// The result for the side with best play.
        result: Outcome,
        /// Plies to a win or a loss with best play (0 for a draw).
        plies: u16,
    },
    /// Proved under the house rules (the repetition record and the ply
    /// limit included): a win or a loss that comes within `plies`
    /// whatever the loser does.
    Proved {
        /// The result for the side: a win or a loss (a draw only where
        /// every action reaches the ply limit).
        result: Outcome,
        /// The most plies the result takes.
        plies: u16,
        /// The tablebase's result for the board, where it differs from
        /// the proved one (the repetition rule makes a loss come sooner,
        /// or makes the winner go round a recorded position); absent
        /// otherwise.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        solved: Option<SolvedValue>,
    },
    /// A search's estimate, where nothing is solved or proved.
    Estimate {
        /// The goats' winning chance, 0 to 100: their expected share of
        /// the game (a win 1, a draw ½), from a logistic curve of the
        /// search's score fitted to recorded games (`docs/review.md`).
        goats_percent: u8,
        /// The search's score for the side, in thousandths of a goat
        /// (a captured goat is 1000).
        score: i32,
    },
}

/// The tablebase's result for a board and its side to move, beside a
/// proved value that differs from it.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct SolvedValue {
    /// The result for the side with best play, ignoring the repetition
    /// record.
    pub result: Outcome,
    /// Plies to the result with best play (0 for a draw).
    pub plies: u16,
}

/// A game notation the server reads and writes (see `docs/notation.md`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NotationFormat {
    /// This project's game record (`rules`, `start`, `actions`, `result`
    /// lines).
    Record,
    /// The PyPI `baghchal` package's PGN-like move list (`1. G33 B1122`),
    /// or its FEN-like position (`B3B/5/5/5/B3B G 0`).
    Pypi,
    /// OBX 2.0 (baghchal.net): one position a line, each with the move
    /// that led to it.
    Obx,
}

/// A game pasted into the analysis board, in one of the notations.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PastedGame {
    /// The notation of `text`; left out, the server tells it from the
    /// text (see `docs/notation.md`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<NotationFormat>,
    /// The game.
    pub text: String,
}

/// The longest line the analysis board plays, in actions.
pub const MAX_ANALYSIS_ACTIONS: usize = 1000;

/// `POST /api/analysis`: a position to analyse, given as a start and the
/// line played from it, or as a pasted game. Every field may be left out:
/// the empty request is the house start.
#[derive(Clone, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AnalysisRequest {
    /// The rules variant (default: the house rules). A pasted record names
    /// its own rules and the PyPI notation implies the package's, so a
    /// variant given with those is not used.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<Variant>,
    /// The start, as position text (default: the variant's start).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
    /// The line played from the start, in notation (at most
    /// [`MAX_ANALYSIS_ACTIONS`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<String>,
    /// A pasted game, instead of `start` and `actions`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub game: Option<PastedGame>,
}

/// One legal action of the analysis board with its value.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct ActionValue {
    /// The action in notation.
    pub action: String,
    /// What playing it is worth to the side to move, naming its kind.
    pub evaluation: Evaluation,
}

/// The answer to `POST /api/analysis`: the position after the line, every
/// legal action of the side to move with its value, and the best one.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct AnalysisBoard {
    /// The rules the line was played under.
    pub variant: Variant,
    /// The start, as position text.
    pub start: String,
    /// The line as played, in this project's notation.
    pub actions: Vec<String>,
    /// The position after the line, as position text.
    pub position: String,
    /// The side to move.
    pub side_to_move: Side,
    /// The goats' phase.
    pub phase: Phase,
    /// Goats in hand.
    pub in_hand: u8,
    /// Goats captured.
    pub eaten: u8,
    /// The capture target.
    pub goats_to_win: u8,
    /// Half moves played (the start's count included).
    pub ply: u16,
    /// The ply limit.
    pub ply_limit: u16,
    /// The result, when the line ends the game.
    pub result: Option<GameResult>,
    /// Every legal action of the side to move (the repetition rule
    /// applied along the line), best first, with its value for the mover;
    /// empty when the game is over.
    pub legal: Vec<ActionValue>,
    /// The best action, `None` when the game is over.
    pub best: Option<String>,
    /// The notation a pasted game was read in (the one the request named,
    /// or the one the server told from the text); `None` without a pasted
    /// game.
    pub game_format: Option<NotationFormat>,
}

/// `GET /api/puzzles/next`: a puzzle, with its solution line (as lichess
/// sends it to its page; the server still checks each move).
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct PuzzleView {
    /// The puzzle's id.
    pub id: String,
    /// The start, as position text.
    pub position: String,
    /// The side that solves it (the side to move).
    pub side_to_move: Side,
    /// What it is about: `capture`, `trap`, `last_tiger`, `hold_draw`,
    /// `block`, `endgame`, `placement`.
    pub themes: Vec<String>,
    /// The puzzle's rating (Glicko-2 scale).
    pub rating: u16,
    /// The rating's deviation: 350 until players have tried it.
    pub rating_deviation: u16,
    /// How many times players have tried it (first tries only).
    pub plays: u32,
    /// The line: the solver's move, the reply, ..., the solver's last.
    pub solution: Vec<String>,
    /// Every legal action of the start.
    pub legal: Vec<String>,
    /// The asking player's puzzle rating; `None` for a request without a
    /// session.
    pub player: Option<PuzzleRating>,
}

/// A player's puzzle rating (Glicko-2), as players read it.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct PuzzleRating {
    /// The rating, rounded.
    pub rating: u32,
    /// Its deviation, rounded.
    pub deviation: u32,
    /// Whether it is still provisional (a deviation of 110 or more).
    pub provisional: bool,
    /// The puzzles the player has tried, each counted once.
    pub tries: u32,
}

/// What a player's first try of a puzzle changed.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct PuzzleRated {
    /// The player's puzzle rating after the try.
    pub player: PuzzleRating,
    /// The change of the shown rating: after less before (`+12`, `-12`).
    pub change: i32,
    /// The puzzle's rating after the try (it moves for established
    /// accounts only: `docs/puzzles.md`).
    pub puzzle_rating: u32,
}

/// The longest line a puzzle move request carries, in actions.
pub const MAX_PUZZLE_MOVES: usize = 16;

/// `POST /api/puzzles/{id}/moves`: the actions played so far from the
/// puzzle's start (the solver's and the replies), the last one the
/// solver's new move.
#[derive(Clone, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PuzzleMoves {
    /// The actions, in notation (at most [`MAX_PUZZLE_MOVES`]).
    pub moves: Vec<String>,
}

/// How a puzzle move went.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PuzzleVerdict {
    /// The move is the solution's; the reply follows.
    Correct,
    /// The move is the solution's last: solved.
    Solved,
    /// Another move: the solution was another.
    Wrong,
}

/// The answer to `POST /api/puzzles/{id}/moves`.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct PuzzleAnswer {
    /// How the move went.
    pub verdict: PuzzleVerdict,
    /// The tablebase's reply (its best defence), after a correct move.
    pub reply: Option<String>,
    /// The position after the move and the reply, as position text.
    pub position: String,
    /// Every legal action of the solver there (empty unless `correct`).
    pub legal: Vec<String>,
    /// The whole line, once solved or wrong.
    pub solution: Option<Vec<String>>,
    /// What the try changed, on a player's first try of the puzzle once
    /// it is solved or wrong; `None` for a move that does not end the try,
    /// a later try, or a request without a session.
    pub rated: Option<PuzzleRated>,
}

/// A message from a client to the server.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMessage {
    /// The first message on a socket: which table, with which token (a seat
    /// secret, the opponent link's token or the spectator link's token),
    /// and the last version this client saw, if any.
    Hello {
        /// The table id.
        table: String,
        /// The capability token of a link. Absent, the socket's session
        /// (its cookie) is the key: its player's own seat, or the gallery
        /// of a table that is open to anyone.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        token: Option<String>,
        /// The last table version seen; the server sends what came after
        /// it, or a snapshot.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        since: Option<u64>,
    },
    /// Play an action in notation. `id` is chosen by the client; a resent
    /// id is acknowledged again and not applied twice.
    Action {
        /// The client's id for this action (1 to 64 bytes).
        id: String,
        /// The action in notation.
        action: String,
        /// The board, at a two-board table (1 or 2; required there).
        /// Elsewhere absent, or 1.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        board: Option<u8>,
    },
    /// Resign the current game.
    Resign {
        /// An optional client id: acknowledged once stored, like an
        /// action's.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// The board, at a two-board table (1 or 2; required there).
        /// Elsewhere absent, or 1.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        board: Option<u8>,
    },
    /// Offer a draw (tables between two people only).
    OfferDraw {
        /// An optional client id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// The board, at a two-board table (1 or 2; required there).
        /// Elsewhere absent, or 1.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        board: Option<u8>,
    },
    /// Accept the opponent's draw offer.
    AcceptDraw {
        /// An optional client id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// The board, at a two-board table (1 or 2; required there).
        /// Elsewhere absent, or 1.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        board: Option<u8>,
    },
    /// Decline the opponent's draw offer.
    DeclineDraw {
        /// An optional client id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// The board, at a two-board table (1 or 2; required there).
        /// Elsewhere absent, or 1.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        board: Option<u8>,
    },
    /// After a game: ask for (or accept) a rematch with sides swapped. At
    /// a computer table the rematch starts at once. At a two-board table
    /// it is the match's: once both boards are over, a new pair of games
    /// with the same sides.
    Rematch {
        /// An optional client id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
    },
    /// After a game: decline the opponent's rematch request.
    DeclineRematch {
        /// An optional client id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
    },
    /// Call the game off while each side has yet to make its first
    /// action: no result. At a table whose guest never arrived, the host's
    /// abort cancels the table.
    Abort {
        /// An optional client id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// The board, at a two-board table (1 or 2; required there).
        /// Elsewhere absent, or 1.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        board: Option<u8>,
    },
    /// The present player claims the win against an absent opponent, once
    /// the presence's `claimable_at` has passed.
    ClaimVictory {
        /// An optional client id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// The board, at a two-board table (1 or 2; required there).
        /// Elsewhere absent, or 1.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        board: Option<u8>,
    },
    /// The present player calls the game a draw against an absent
    /// opponent, once the presence's `claimable_at` has passed.
    ClaimDraw {
        /// An optional client id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// The board, at a two-board table (1 or 2; required there).
        /// Elsewhere absent, or 1.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        board: Option<u8>,
    },
    /// Keep-alive; answered with `pong`.
    Ping,
}

/// The computer's or a person's seat, as everyone sees it.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct SeatView {
    /// Which player holds this side in the current game.
    pub player: Player,
    /// Whether the computer holds it.
    pub computer: bool,
    /// The computer's level, for a computer seat.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level: Option<u16>,
    /// Whether the seat's player is connected (always true for the
    /// computer).
    pub connected: bool,
}

/// A player who has no socket open in a game in progress.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Absence {
    /// The absent player's side (on `board`, at a two-board table).
    pub side: Side,
    /// At a two-board table, the board of the game that may be claimed
    /// (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board: Option<u8>,
    /// When the player's last socket closed (RFC 3339, UTC, milliseconds).
    pub since: String,
    /// From when the present player may claim the game.
    pub claimable_at: String,
    /// The server's time when this was sent.
    pub now: String,
}

/// Both seats and the gallery.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Presence {
    /// The goats' seat.
    pub goats: SeatView,
    /// The tigers' seat.
    pub tigers: SeatView,
    /// Spectators watching now.
    pub spectators: u32,
    /// Spectator seats reserved.
    pub spectator_seats: u8,
    /// The player who is away from a game in progress between two people,
    /// if one is.
    pub absent: Option<Absence>,
}

/// Why a game ended.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// The tigers captured their target number of goats (tigers win).
    CaptureTarget,
    /// The tigers had no legal action on their turn (goats win).
    TigersTrapped,
    /// The goats had no legal action on their turn (tigers win).
    GoatsBlocked,
    /// The ply limit was reached (draw).
    PlyLimit,
    /// A movement-phase position came for the third time (draw; threefold
    /// variant only).
    Threefold,
    /// A player resigned (the other side wins).
    Resignation,
    /// Both players agreed a draw.
    Agreement,
    /// A side's time ran out (it loses; a draw if the other side could not
    /// possibly win).
    Timeout,
    /// The present player claimed the game of an absent one: a win, or a
    /// draw if a draw was claimed.
    Abandoned,
    /// The game was aborted before each side had played: no result, not
    /// counted in the tally (`winner` is `null`).
    Aborted,
}

/// A finished game's result.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct GameResult {
    /// The winner; `null` for a draw.
    pub winner: Option<Side>,
    /// Why the game ended.
    pub reason: EndReason,
}

/// Games won by each player and drawn, over the table's life.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
pub struct Tally {
    /// Games won by the host.
    pub host: u32,
    /// Games won by the guest.
    pub guest: u32,
    /// Games drawn.
    pub draws: u32,
}

/// The clocks of a game with a time control.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct ClockState {
    /// The goats' remaining time at the turn's start, in milliseconds
    /// (for a correspondence pace: the time for the current action, or the
    /// full allowance when it is not their turn).
    pub goats_ms: u64,
    /// The tigers' remaining time, likewise.
    pub tigers_ms: u64,
    /// The side whose time is running; `null` until each side has made
    /// its first action, and once the game is over.
    pub running: Option<Side>,
    /// When the running side's turn started (RFC 3339, UTC, milliseconds).
    pub turn_started_at: Option<String>,
    /// The server's time when this state was sent.
    pub now: String,
}

/// The public state of the current game: the same for players and
/// spectators.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct GameState {
    /// The game's number at this table, from 1.
    pub game: u32,
    /// The position text.
    pub position: String,
    /// The side to move.
    pub side_to_move: Side,
    /// The goats' phase.
    pub phase: Phase,
    /// Goats in hand.
    pub in_hand: u8,
    /// Goats captured.
    pub eaten: u8,
    /// The capture target.
    pub goats_to_win: u8,
    /// Tigers with no legal action now.
    pub trapped_tigers: u8,
    /// Tigers in the game (4, or 3).
    pub tigers: u8,
    /// Half moves played.
    pub ply: u16,
    /// The ply limit.
    pub ply_limit: u16,
    /// Every legal action of the side to move, in notation (empty once
    /// the game is over). A name is borrowed when the server has it as a
    /// static string (every placement, step and single jump), so that the
    /// state sent after each action allocates none.
    pub legal: Vec<Cow<'static, str>>,
    /// The last action played, if any.
    pub last_action: Option<Cow<'static, str>>,
    /// The result, once the game is over.
    pub result: Option<GameResult>,
    /// The side whose draw offer is pending.
    pub draw_offer: Option<Side>,
    /// The side whose rematch request is pending.
    pub rematch_offer: Option<Side>,
    /// The host's side in this game.
    pub host_side: Side,
    /// Games won and drawn so far.
    pub tally: Tally,
    /// The clocks, at a table with a time control.
    pub clock: Option<ClockState>,
    /// Whether the game may still be aborted: it is in progress and each
    /// side has yet to make its first action.
    pub abortable: bool,
    /// The series this game belongs to, at a series table (absent
    /// otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub series: Option<SeriesState>,
    /// The board this state is of, at a two-board table (absent
    /// otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board: Option<u8>,
    /// The match this game belongs to, at a two-board table (absent
    /// otherwise): the same on both boards.
    #[serde(default, rename = "match", skip_serializing_if = "Option::is_none")]
    pub match_state: Option<MatchState>,
}

/// Where a two-board match stands: its pair of games, the score so far
/// (a win 1, a draw ½ for each player; an aborted board counts for
/// nobody) and, once both boards are over, its result.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct MatchState {
    /// Which match at this table, from 1 (a rematch starts the next).
    pub number: u32,
    /// Boards of this match won by the host.
    pub host_wins: u8,
    /// Boards of this match won by the guest.
    pub guest_wins: u8,
    /// Boards of this match drawn.
    pub draws: u8,
    /// The result, once both boards are over.
    pub result: Option<MatchResult>,
}

/// A decided match.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct MatchResult {
    /// The player with the higher score; `null` for a tied match.
    pub winner: Option<Player>,
}

/// One board of a two-board table in a snapshot.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct BoardSnapshot {
    /// The board's current game's actions in notation.
    pub moves: Vec<String>,
    /// The board's game state.
    pub state: GameState,
}

/// Where a series stands: its games so far and, once decided, its result.
/// A win scores 1 and a draw ½ for each player; an aborted game does not
/// count and is played again with the same sides.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct SeriesState {
    /// Which series at this table, from 1 (a rematch starts the next).
    pub number: u32,
    /// The games the series has at most: 2, 4 or 6.
    pub games: u8,
    /// The current game's place in the series, from 1.
    pub game: u8,
    /// Games of this series won by the host.
    pub host_wins: u8,
    /// Games of this series won by the guest.
    pub guest_wins: u8,
    /// Games of this series drawn.
    pub draws: u8,
    /// The result, once the series is decided: after its last game, or
    /// as soon as one player can no longer be caught.
    pub result: Option<SeriesResult>,
}

/// A decided series.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct SeriesResult {
    /// The player with the higher score; `null` for a tied series.
    pub winner: Option<Player>,
}

/// The table itself: what does not change from game to game.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct TableInfo {
    /// The table id.
    pub id: String,
    /// A friend, the computer or bots.
    pub opponent: Opponent,
    /// The computer's level, if a computer plays.
    pub level: Option<u16>,
    /// The rules variant.
    pub variant: Variant,
    /// The time control, or `null` for none.
    pub clock: Option<TimeControl>,
    /// How the games are arranged (absent: `single`).
    #[serde(default, skip_serializing_if = "Format::is_single")]
    pub format: Format,
    /// The games of a series (series tables only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub series_games: Option<u8>,
}

/// What a claim against an absent player asked for.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClaimResult {
    /// The win.
    Win,
    /// A draw.
    Draw,
}

/// Something that happened at a table. Each carries a version in the
/// `event` message that wraps it.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TableEvent {
    /// An action was played.
    Played {
        /// The side that played it.
        side: Side,
        /// The action in notation.
        action: String,
    },
    /// A side resigned.
    Resigned {
        /// Who resigned.
        side: Side,
    },
    /// A side offered a draw.
    DrawOffered {
        /// Who offered.
        side: Side,
    },
    /// A side declined the pending draw offer.
    DrawDeclined {
        /// Who declined.
        side: Side,
    },
    /// The draw offer was accepted: the game is drawn.
    DrawAgreed,
    /// A side asked for a rematch.
    RematchOffered {
        /// Who asked.
        side: Side,
    },
    /// A new game started with sides swapped; the move list starts empty.
    /// In a series this also starts each next game (an aborted game of a
    /// series is played again with the same sides), and a rematch after a
    /// decided series starts a new series.
    RematchStarted {
        /// The new game's number.
        game: u32,
    },
    /// The side's time ran out: the game is over.
    Flagged {
        /// Whose time ran out.
        side: Side,
    },
    /// The present player claimed the game of an absent one.
    Claimed {
        /// Who claimed.
        side: Side,
        /// What they claimed.
        result: ClaimResult,
    },
    /// A player aborted the game: no result.
    Aborted {
        /// Who aborted.
        side: Side,
    },
    /// A side declined the pending rematch request.
    RematchDeclined {
        /// Who declined.
        side: Side,
    },
    /// The rematch request lapsed because its maker left.
    RematchWithdrawn {
        /// Who had asked.
        side: Side,
    },
    /// The draw offer lapsed because its maker left.
    DrawWithdrawn {
        /// Who had offered.
        side: Side,
    },
    /// The game had no event for long (a day; 30 days at a correspondence
    /// table) with `side` to move: `side` left it and loses (reason
    /// `abandoned`).
    Abandoned {
        /// Who left it on their turn.
        side: Side,
    },
    /// The server is stopping (a single server's restart) with `side`'s
    /// clock running: the clock stops until the server is back.
    ClockPaused {
        /// Whose clock.
        side: Side,
    },
    /// The server is back: `side`'s clock runs again, charged only what
    /// of the downtime passed 5 minutes.
    ClockResumed {
        /// Whose clock.
        side: Side,
    },
}

/// Why the server refused a message.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// Not a JSON message of this protocol (or a binary frame).
    InvalidMessage,
    /// A frame over the size limit.
    TooLarge,
    /// A message other than `hello` before a successful `hello`.
    NotJoined,
    /// A second `hello` on a socket that already joined a table.
    AlreadyJoined,
    /// No such table.
    UnknownTable,
    /// The token grants nothing at this table.
    InvalidToken,
    /// The opponent link's seat is already taken.
    SeatTaken,
    /// Every reserved spectator seat is in use.
    GalleryFull,
    /// Spectators never act.
    Spectator,
    /// It is the other side's turn.
    NotYourTurn,
    /// The action is malformed or illegal; `reason` says which rule.
    IllegalAction,
    /// The game is over.
    GameOver,
    /// The game is not over (rematch too early).
    GameNotOver,
    /// No draw offers at a table with the computer.
    NoDrawOffers,
    /// There is no pending offer to accept or decline, or the offer is
    /// one's own.
    NoOffer,
    /// Nobody is absent, or the grace period is not over yet.
    NotClaimable,
    /// The game can no longer be aborted (each side has moved, or it is
    /// over).
    NotAbortable,
    /// Too many draw or rematch offers: at most 3 a game, one per 10
    /// seconds.
    TooManyOffers,
    /// Too many messages: sent just before the socket is closed.
    RateLimited,
    /// The action id is empty or longer than 64 bytes.
    InvalidId,
    /// No such board at this table: a two-board table's commands name
    /// board 1 or 2, other tables' name none (or 1).
    UnknownBoard,
    /// Something failed on the server; nothing changed.
    Internal,
}

/// Why an action is illegal (`reason` of an `illegal_action` error): the
/// rules' reasons, and two of the server's own.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IllegalReason {
    /// Goats are in hand: the goats' only action is a placement.
    MustPlace,
    /// A placement by the tigers, or by goats with none in hand.
    CannotPlace,
    /// No piece of the side to move stands on the starting point.
    NotYourPiece,
    /// No line of the board joins the points that way.
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
    /// Well formed, but not among the legal actions.
    NotLegal,
    /// The text is not an action in notation.
    Notation,
}

/// Why the server closed a websocket: the code and reason text of its
/// close frame. The page keeps the same numbers in `static/close-codes.js`
/// (a test checks that they agree).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum CloseCode {
    /// 1001: the server is shutting down.
    ShuttingDown,
    /// 1008: too many messages (after `rate_limited`).
    RateLimited,
    /// 1009: a message over 16 KiB (after `too_large`).
    TooLarge,
    /// 1012: the table moved to another node of the cluster; reconnect.
    Moved,
    /// 4000: the same seat connected again; the newer socket plays.
    Replaced,
    /// 4001: the client did not read its messages fast enough.
    TooSlow,
    /// 4002: the client answered nothing, not even pings, for too long.
    Unresponsive,
    /// 4003: the socket joined no table within 10 seconds of opening.
    NoHello,
}

impl CloseCode {
    /// Every close code, in order.
    pub const ALL: [CloseCode; 8] = [
        CloseCode::ShuttingDown,
        CloseCode::RateLimited,
        CloseCode::TooLarge,
        CloseCode::Moved,
        CloseCode::Replaced,
        CloseCode::TooSlow,
        CloseCode::Unresponsive,
        CloseCode::NoHello,
    ];

    /// The close frame's code.
    ///
    /// ```
    /// assert_eq!(baghchal_protocol::CloseCode::Replaced.code(), 4000);
    /// ```
    pub const fn code(self) -> u16 {
        match self {
            CloseCode::ShuttingDown => 1001,
            CloseCode::RateLimited => 1008,
            CloseCode::TooLarge => 1009,
            CloseCode::Moved => 1012,
            CloseCode::Replaced => 4000,
            CloseCode::TooSlow => 4001,
            CloseCode::Unresponsive => 4002,
            CloseCode::NoHello => 4003,
        }
    }

    /// The close frame's reason text.
    pub const fn reason(self) -> &'static str {
        match self {
            CloseCode::ShuttingDown => "server shutting down",
            CloseCode::RateLimited => "rate limited",
            CloseCode::TooLarge => "message too big",
            CloseCode::Moved => "the table moved to another node; reconnect",
            CloseCode::Replaced => "replaced by a newer connection",
            CloseCode::TooSlow => "too slow",
            CloseCode::Unresponsive => "no answer to pings",
            CloseCode::NoHello => "no hello in time",
        }
    }

    /// The name the page gives it in `static/close-codes.js`.
    pub const fn name(self) -> &'static str {
        match self {
            CloseCode::ShuttingDown => "SHUTTING_DOWN",
            CloseCode::RateLimited => "RATE_LIMITED",
            CloseCode::TooLarge => "TOO_LARGE",
            CloseCode::Moved => "MOVED",
            CloseCode::Replaced => "REPLACED",
            CloseCode::TooSlow => "TOO_SLOW",
            CloseCode::Unresponsive => "UNRESPONSIVE",
            CloseCode::NoHello => "NO_HELLO",
        }
    }
}

/// A message from the server to a client.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMessage {
    /// The answer to `hello`: the table, this connection's role and player.
    Welcome {
        /// The protocol version.
        protocol: u32,
        /// The table.
        table: TableInfo,
        /// Player or spectator.
        role: Role,
        /// Which player, for a player.
        #[serde(skip_serializing_if = "Option::is_none")]
        player: Option<Player>,
        /// A new seat secret, sent once to the client that claimed the
        /// seat through the opponent link: it reconnects with it.
        #[serde(skip_serializing_if = "Option::is_none")]
        secret: Option<String>,
    },
    /// The whole current game at `version`.
    Snapshot {
        /// The table version this snapshot is at.
        version: u64,
        /// The current game's actions in notation (board 1's at a
        /// two-board table).
        moves: Vec<String>,
        /// The game state (board 1's at a two-board table).
        state: GameState,
        /// At a two-board table, both boards, board 1 first (absent
        /// otherwise).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        boards: Vec<BoardSnapshot>,
    },
    /// One table event, and the state after it.
    Event {
        /// The table version after this event (one more than the last).
        version: u64,
        /// The board it happened on, at a two-board table (absent
        /// otherwise).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        board: Option<u8>,
        /// What happened.
        event: TableEvent,
        /// The game state after it (of that board).
        state: GameState,
    },
    /// Who is connected, and how many watch.
    Presence(Presence),
    /// The action with this id was accepted and stored.
    Ack {
        /// The client's id.
        id: String,
    },
    /// A refused message; nothing changed.
    Error {
        /// The action id, when an action was refused.
        #[serde(skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// A stable code.
        code: ErrorCode,
        /// For `illegal_action`: the rules' reason, e.g. `occupied`,
        /// `repetition`, `must_place`.
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<IllegalReason>,
        /// A sentence for people.
        message: String,
    },
    /// The answer to `ping`.
    Pong,
}
