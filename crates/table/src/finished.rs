//! A finished game as a stored fact: one row of `games`, written in the
//! same transaction as the event that ended it, so that history is read
//! from there and never by replaying a table.

use baghchal_protocol as wire;
use baghchal_rules::{Outcome, Reason, Record, Side};

use crate::boards::Board;
use crate::clock::TimeControl;
use crate::names::{result_to_wire, side_to_wire};
use crate::options::{variant_of, Format, Opponent, TableOptions};
use crate::play::GameEnded;
use crate::seats::Seats;
use crate::time::Timestamp;

/// Who sat in a seat: a person through a link, a player seated by the
/// lobby, or the computer.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SeatKind {
    /// Whoever held the seat's link.
    Link,
    /// A player the lobby seated, by identity.
    Player,
    /// The computer.
    Computer,
}

impl SeatKind {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            SeatKind::Link => "link",
            SeatKind::Player => "player",
            SeatKind::Computer => "computer",
        }
    }

    /// The kind stored as `name`.
    pub fn parse(name: &str) -> Option<SeatKind> {
        match name {
            "link" => Some(SeatKind::Link),
            "player" => Some(SeatKind::Player),
            "computer" => Some(SeatKind::Computer),
            _ => None,
        }
    }

    /// The seats of a table of `opponent`, `lobby` when the lobby seated
    /// its players: host, guest.
    pub fn of(opponent: Opponent, lobby: bool) -> [SeatKind; 2] {
        match opponent {
            Opponent::Friend if lobby => [SeatKind::Player, SeatKind::Player],
            Opponent::Friend => [SeatKind::Link, SeatKind::Link],
            Opponent::Computer => [SeatKind::Link, SeatKind::Computer],
            Opponent::Bots => [SeatKind::Computer, SeatKind::Computer],
        }
    }
}

/// One finished game (aborted ones too), with its table's facts.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct FinishedGame {
    /// The table id.
    pub table: String,
    /// The game's number at its table (on its board), from 1.
    pub game: u32,
    /// Its board: 1, or 2 at a two-board table.
    pub board: Board,
    /// The table's version after the event that ended it.
    pub version: u64,
    /// The host's seat, the guest's.
    pub seats: [SeatKind; 2],
    /// The players the host's and the guest's seats belonged to, if any.
    pub players: [Option<String>; 2],
    /// Whether the game counts for the players' ratings.
    pub rated: bool,
    /// The side that aborted it, for an aborted game (never stored: the
    /// writer counts it against that side's player).
    pub aborted_by: Option<Side>,
    /// The host's side.
    pub host_side: Side,
    /// How it ended.
    pub outcome: Outcome,
    /// Half moves played.
    pub plies: u16,
    /// When it started: the time of its first event.
    pub started: Timestamp,
    /// When the event that ended it was accepted.
    pub ended: Timestamp,
    /// The time control, if any.
    pub clock: Option<TimeControl>,
    /// The table's format.
    pub format: Format,
    /// The game in the rules' record format (its rules line names the
    /// variant).
    pub record: Record,
}

impl FinishedGame {
    /// The row of `ended`, the game that the event of `version` ended on
    /// `board` of table `table`, whose seats are `seats`; a game that ends
    /// without being played (aborted) is never rated.
    pub fn new(
        table: &str,
        options: &TableOptions,
        seats: &Seats,
        rated: bool,
        board: Board,
        version: u64,
        ended: GameEnded,
    ) -> FinishedGame {
        FinishedGame {
            table: table.to_owned(),
            game: ended.game,
            board,
            version,
            seats: SeatKind::of(options.opponent, seats.open_gallery()),
            players: seats.players().clone(),
            rated: rated && ended.outcome.reason() != Reason::Aborted,
            aborted_by: ended.aborted_by,
            host_side: ended.host_side,
            outcome: ended.outcome,
            plies: ended.plies,
            started: ended.started,
            ended: ended.ended,
            clock: options.clock,
            format: options.format,
            record: ended.record,
        }
    }

    /// The game as `GET /api/tables/{table}/games/{game}` answers it.
    pub fn to_wire(&self) -> wire::GameRecord {
        wire::GameRecord {
            table: self.table.clone(),
            game: self.game,
            board: (self.format == Format::TwoBoards).then_some(self.board),
            variant: variant_of(&self.record.rules),
            host_side: side_to_wire(self.host_side),
            moves: self
                .record
                .actions
                .iter()
                .map(ToString::to_string)
                .collect(),
            result: Some(result_to_wire(self.outcome)),
            record: self.record.to_string(),
            ratings: None,
        }
    }
}
