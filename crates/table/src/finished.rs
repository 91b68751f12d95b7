//! A finished game as a stored fact: one row of `games`, written in the
//! same transaction as the event that ended it, so that history is read
//! from there and never by replaying a table.

use baghchal_protocol as wire;
use baghchal_rules::{Outcome, Record, Side};

use crate::boards::Board;
use crate::clock::TimeControl;
use crate::names::{result_to_wire, side_to_wire};
use crate::options::{variant_of, Format, Opponent, TableOptions};
use crate::play::GameEnded;
use crate::time::Timestamp;

/// Who sat in a seat: a person through a link (later, also a signed-in
/// player), or the computer.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SeatKind {
    /// Whoever held the seat's link.
    Link,
    /// The computer.
    Computer,
}

impl SeatKind {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            SeatKind::Link => "link",
            SeatKind::Computer => "computer",
        }
    }

    /// The seats of a table of `opponent`: host, guest.
    pub fn of(opponent: Opponent) -> [SeatKind; 2] {
        match opponent {
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
    /// `board` of table `table`.
    pub fn new(
        table: &str,
        options: &TableOptions,
        board: Board,
        version: u64,
        ended: GameEnded,
    ) -> FinishedGame {
        FinishedGame {
            table: table.to_owned(),
            game: ended.game,
            board,
            version,
            seats: SeatKind::of(options.opponent),
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
        }
    }
}
