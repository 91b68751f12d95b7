//! A table's options, checked: the type boundary between a request and a
//! table.

use baghchal_engine::Level;
use baghchal_protocol as wire;
use baghchal_rules::{Rules, RulesError, RulesOptions, Side};

use std::time::Duration;

use crate::clock::{TimeControl, DAYS_PER_ACTION, INCREMENT_SECONDS, INITIAL_SECONDS};
use crate::names::{repetition_from_wire, repetition_to_wire, side_from_wire, side_to_wire};

/// The most spectator seats a table can reserve.
pub const MAX_SPECTATOR_SEATS: u8 = 12;

/// The fewest spectator seats of a bots table: its creator and a few more
/// watch it.
pub const BOTS_SPECTATOR_SEATS: u8 = 4;

/// The computer's level when a request names none.
pub const DEFAULT_LEVEL: u16 = 1200;

/// Who holds the second seat.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Opponent {
    /// A person, through the opponent link.
    Friend,
    /// The computer.
    Computer,
    /// The computer on both seats.
    Bots,
}

impl Opponent {
    /// The stored name (also the name in logs).
    pub fn as_str(self) -> &'static str {
        match self {
            Opponent::Friend => "friend",
            Opponent::Computer => "computer",
            Opponent::Bots => "bots",
        }
    }

    /// The opponent with this stored name.
    pub fn parse(name: &str) -> Option<Opponent> {
        match name {
            "friend" => Some(Opponent::Friend),
            "computer" => Some(Opponent::Computer),
            "bots" => Some(Opponent::Bots),
            _ => None,
        }
    }

    /// On the wire.
    pub fn to_wire(self) -> wire::Opponent {
        match self {
            Opponent::Friend => wire::Opponent::Friend,
            Opponent::Computer => wire::Opponent::Computer,
            Opponent::Bots => wire::Opponent::Bots,
        }
    }

    /// From the wire.
    pub fn from_wire(opponent: wire::Opponent) -> Opponent {
        match opponent {
            wire::Opponent::Friend => Opponent::Friend,
            wire::Opponent::Computer => Opponent::Computer,
            wire::Opponent::Bots => Opponent::Bots,
        }
    }
}

/// The games a series may have.
pub const SERIES_GAMES: [u8; 3] = [2, 4, 6];

/// How a table's games are arranged.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum Format {
    /// One game at a time; a rematch swaps sides.
    #[default]
    Single,
    /// A series of this many games (one of [`SERIES_GAMES`]), sides
    /// swapped after each.
    Series(u8),
    /// Two boards at once with the sides crossed: the host holds
    /// `host_side` on board 1 and the other side on board 2.
    TwoBoards,
}

impl Format {
    /// The name stored in the `format` column.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Single => "single",
            Format::Series(_) => "series",
            Format::TwoBoards => "two_boards",
        }
    }

    /// The games of a series, if this is one.
    pub fn series_games(self) -> Option<u8> {
        match self {
            Format::Single | Format::TwoBoards => None,
            Format::Series(n) => Some(n),
        }
    }

    /// The boards played at once: 2 for a two-board match, else 1.
    pub fn boards(self) -> u8 {
        match self {
            Format::TwoBoards => 2,
            Format::Single | Format::Series(_) => 1,
        }
    }

    /// Reads a stored format back: its name and its games.
    pub fn from_stored(name: &str, games: Option<u8>) -> Option<Format> {
        match (name, games) {
            ("single", None) => Some(Format::Single),
            ("series", Some(n)) if SERIES_GAMES.contains(&n) => Some(Format::Series(n)),
            ("two_boards", None) => Some(Format::TwoBoards),
            _ => None,
        }
    }

    /// Checks the `format` and `series_games` of a request.
    fn parse(format: wire::Format, games: Option<u8>) -> Result<Format, FieldError> {
        match (format, games) {
            (wire::Format::Single, None) => Ok(Format::Single),
            (wire::Format::Single, Some(_)) => Err(FieldError {
                field: "series_games",
                message: "series_games is only for a table with format \"series\"".into(),
            }),
            (wire::Format::TwoBoards, None) => Ok(Format::TwoBoards),
            (wire::Format::TwoBoards, Some(_)) => Err(FieldError {
                field: "series_games",
                message: "series_games is only for a table with format \"series\"".into(),
            }),
            (wire::Format::Series, Some(n)) if SERIES_GAMES.contains(&n) => Ok(Format::Series(n)),
            (wire::Format::Series, Some(n)) => Err(FieldError {
                field: "series_games",
                message: format!("series_games must be 2, 4 or 6, not {n}"),
            }),
            (wire::Format::Series, None) => Err(FieldError {
                field: "series_games",
                message: "a series needs series_games: 2, 4 or 6".into(),
            }),
        }
    }

    /// The format on the wire.
    pub fn to_wire(self) -> wire::Format {
        match self {
            Format::Single => wire::Format::Single,
            Format::Series(_) => wire::Format::Series,
            Format::TwoBoards => wire::Format::TwoBoards,
        }
    }
}

/// A table's options, every one in range.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct TableOptions {
    /// Who plays the guest seat.
    pub opponent: Opponent,
    /// The host's side in the first game.
    pub host_side: Side,
    /// The computer's level (computer and bots tables).
    pub level: Option<Level>,
    /// Spectator seats reserved.
    pub spectator_seats: u8,
    /// The rules.
    pub rules: Rules,
    /// The time control, if any.
    pub clock: Option<TimeControl>,
    /// How the games are arranged.
    pub format: Format,
}

/// A request field out of range.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[error("{message}")]
pub struct FieldError {
    /// The field, as a dotted path.
    pub field: &'static str,
    /// A sentence for people.
    pub message: String,
}

impl TableOptions {
    /// Checks a request.
    ///
    /// ```
    /// use baghchal_protocol::{CreateTable, Format, Opponent, Side, Variant};
    /// use baghchal_table::options::TableOptions;
    /// let raw = CreateTable { opponent: Opponent::Computer, side: Side::Goats, level: Some(1250),
    ///                         spectators: 0, variant: Variant::default(), clock: None,
    ///                         format: Format::Single, series_games: None };
    /// assert_eq!(TableOptions::parse(&raw).unwrap_err().field, "level");
    /// ```
    pub fn parse(raw: &wire::CreateTable) -> Result<TableOptions, FieldError> {
        let opponent = Opponent::from_wire(raw.opponent);
        let level = match opponent {
            Opponent::Friend => None,
            Opponent::Computer | Opponent::Bots => {
                let label = raw.level.unwrap_or(DEFAULT_LEVEL);
                Some(Level::new(label).ok_or_else(|| FieldError {
                    field: "level",
                    message: format!("level must be 400 to 2400 in steps of 100, not {label}"),
                })?)
            }
        };
        if raw.spectators > MAX_SPECTATOR_SEATS {
            return Err(FieldError {
                field: "spectators",
                message: format!(
                    "spectators must be 0 to {MAX_SPECTATOR_SEATS}, not {}",
                    raw.spectators
                ),
            });
        }
        let spectator_seats = match opponent {
            Opponent::Bots => raw.spectators.max(BOTS_SPECTATOR_SEATS),
            _ => raw.spectators,
        };
        let rules = rules_from_variant(&raw.variant)?;
        let clock = raw.clock.as_ref().map(parse_clock).transpose()?;
        let format = Format::parse(raw.format, raw.series_games)?;
        if format == Format::TwoBoards && opponent == Opponent::Bots {
            return Err(FieldError {
                field: "format",
                message: "a two-board match is for a friend or the computer, not bots".into(),
            });
        }
        Ok(TableOptions {
            opponent,
            host_side: side_from_wire(raw.side),
            level,
            spectator_seats,
            rules,
            clock,
            format,
        })
    }

    /// The time control on the wire.
    pub fn clock_to_wire(&self) -> Option<wire::TimeControl> {
        self.clock.map(TimeControl::to_wire)
    }

    /// The rules variant on the wire.
    pub fn variant(&self) -> wire::Variant {
        variant_of(&self.rules)
    }
}

/// Checks a wire variant: the rules it names, or the field out of range.
pub fn rules_from_variant(v: &wire::Variant) -> Result<Rules, FieldError> {
    Rules::new(RulesOptions {
        goats_to_win: v.goats_to_win,
        first: side_from_wire(v.first),
        multi_jump: v.multi_jump,
        three_tigers: v.three_tigers,
        repetition: repetition_from_wire(v.repetition),
        ply_limit: v.ply_limit,
    })
    .map_err(|e| FieldError {
        field: match e {
            RulesError::GoatsToWin(_) => "variant.goats_to_win",
            RulesError::PlyLimit(_) => "variant.ply_limit",
        },
        message: e.to_string(),
    })
}

/// Rules as a wire variant, the capture target spelled out.
pub fn variant_of(rules: &Rules) -> wire::Variant {
    let o = rules.options();
    wire::Variant {
        goats_to_win: Some(rules.goats_to_win()),
        first: side_to_wire(o.first),
        multi_jump: o.multi_jump,
        three_tigers: o.three_tigers,
        repetition: repetition_to_wire(o.repetition),
        ply_limit: o.ply_limit,
    }
}

/// Checks a requested time control: `initial` (and `increment`, default
/// 0), or `days_per_action`, each in bounds.
fn parse_clock(raw: &wire::TimeControl) -> Result<TimeControl, FieldError> {
    let bounded = |field: &'static str, value: u32, range: &std::ops::RangeInclusive<u32>| {
        if range.contains(&value) {
            Ok(Duration::from_secs(u64::from(value)))
        } else {
            Err(FieldError {
                field,
                message: format!(
                    "{field} must be {} to {} seconds, not {value}",
                    range.start(),
                    range.end()
                ),
            })
        }
    };
    match (raw.initial, raw.increment, raw.days_per_action) {
        (Some(initial), increment, None) => Ok(TimeControl::Fischer {
            initial: bounded("clock.initial", initial, &INITIAL_SECONDS)?,
            increment: bounded(
                "clock.increment",
                increment.unwrap_or(0),
                &INCREMENT_SECONDS,
            )?,
        }),
        (None, None, Some(days)) => {
            if DAYS_PER_ACTION.contains(&days) {
                Ok(TimeControl::DaysPerAction(days))
            } else {
                Err(FieldError {
                    field: "clock.days_per_action",
                    message: format!(
                        "clock.days_per_action must be {} to {}, not {days}",
                        DAYS_PER_ACTION.start(),
                        DAYS_PER_ACTION.end()
                    ),
                })
            }
        }
        _ => Err(FieldError {
            field: "clock",
            message: "a clock is either an initial time and an increment, or days per action"
                .into(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(opponent: wire::Opponent) -> wire::CreateTable {
        wire::CreateTable {
            opponent,
            side: wire::Side::Tigers,
            level: None,
            spectators: 0,
            variant: wire::Variant::default(),
            clock: None,
            format: wire::Format::Single,
            series_games: None,
        }
    }

    #[test]
    fn defaults_fill_a_minimal_computer_request() {
        let options = TableOptions::parse(&request(wire::Opponent::Computer)).unwrap();
        assert_eq!(options.level, Level::new(DEFAULT_LEVEL));
        assert_eq!(options.host_side, Side::Tiger);
        assert_eq!(options.rules, Rules::default());
    }

    #[test]
    fn a_friend_table_has_no_level_and_a_bots_table_a_spectator_seat() {
        let mut raw = request(wire::Opponent::Friend);
        raw.level = Some(9999);
        assert_eq!(TableOptions::parse(&raw).unwrap().level, None);
        let bots = TableOptions::parse(&request(wire::Opponent::Bots)).unwrap();
        assert_eq!(bots.spectator_seats, BOTS_SPECTATOR_SEATS);
        let mut raw = request(wire::Opponent::Bots);
        raw.spectators = 1;
        assert_eq!(
            TableOptions::parse(&raw).unwrap().spectator_seats,
            BOTS_SPECTATOR_SEATS
        );
    }

    #[test]
    fn each_out_of_range_option_names_its_field() {
        let mut raw = request(wire::Opponent::Computer);
        raw.level = Some(2500);
        assert_eq!(TableOptions::parse(&raw).unwrap_err().field, "level");
        let mut raw = request(wire::Opponent::Friend);
        raw.spectators = 13;
        assert_eq!(TableOptions::parse(&raw).unwrap_err().field, "spectators");
        let mut raw = request(wire::Opponent::Friend);
        raw.variant.goats_to_win = Some(8);
        assert_eq!(
            TableOptions::parse(&raw).unwrap_err().field,
            "variant.goats_to_win"
        );
        let mut raw = request(wire::Opponent::Friend);
        raw.variant.ply_limit = 0;
        assert_eq!(
            TableOptions::parse(&raw).unwrap_err().field,
            "variant.ply_limit"
        );
    }

    #[test]
    fn a_clock_is_an_initial_time_and_increment_or_days_per_action_in_bounds() {
        let with = |clock: wire::TimeControl| {
            let mut raw = request(wire::Opponent::Friend);
            raw.clock = Some(clock);
            TableOptions::parse(&raw)
        };
        let blitz = with(wire::TimeControl {
            initial: Some(5),
            increment: None,
            days_per_action: None,
        })
        .unwrap();
        assert_eq!(
            blitz.clock,
            Some(TimeControl::Fischer {
                initial: Duration::from_secs(5),
                increment: Duration::ZERO
            })
        );
        assert_eq!(
            blitz.clock_to_wire().unwrap().increment,
            Some(0),
            "the default increment is said"
        );
        let days = with(wire::TimeControl {
            days_per_action: Some(3),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(days.clock, Some(TimeControl::DaysPerAction(3)));
        for (bad, field) in [
            ((Some(4), Some(0), None), "clock.initial"),
            ((Some(10_801), None, None), "clock.initial"),
            ((Some(60), Some(181), None), "clock.increment"),
            ((None, None, Some(0)), "clock.days_per_action"),
            ((None, None, Some(4)), "clock.days_per_action"),
            ((Some(60), None, Some(1)), "clock"),
            ((None, Some(2), None), "clock"),
            ((None, None, None), "clock"),
        ] {
            let (initial, increment, days_per_action) = bad;
            let refused = with(wire::TimeControl {
                initial,
                increment,
                days_per_action,
            })
            .unwrap_err();
            assert_eq!(refused.field, field, "{bad:?}");
        }
    }

    #[test]
    fn a_series_has_two_four_or_six_games_and_two_boards_none() {
        let with = |format: wire::Format, series_games: Option<u8>| {
            let mut raw = request(wire::Opponent::Friend);
            raw.format = format;
            raw.series_games = series_games;
            TableOptions::parse(&raw)
        };
        assert_eq!(
            with(wire::Format::Single, None).unwrap().format,
            Format::Single
        );
        for n in SERIES_GAMES {
            let options = with(wire::Format::Series, Some(n)).unwrap();
            assert_eq!(options.format, Format::Series(n));
            assert_eq!(
                Format::from_stored(options.format.as_str(), options.format.series_games()),
                Some(options.format)
            );
        }
        for (format, games, field) in [
            (wire::Format::Series, None, "series_games"),
            (wire::Format::Series, Some(0), "series_games"),
            (wire::Format::Series, Some(3), "series_games"),
            (wire::Format::Series, Some(8), "series_games"),
            (wire::Format::Single, Some(4), "series_games"),
            (wire::Format::TwoBoards, Some(2), "series_games"),
        ] {
            let refused = with(format, games).unwrap_err();
            assert_eq!(refused.field, field, "{format:?} {games:?}");
            assert!(refused.message.contains(field), "{}", refused.message);
        }
        assert_eq!(Format::from_stored("series", Some(5)), None);
        assert_eq!(Format::from_stored("single", Some(2)), None);
        let two = with(wire::Format::TwoBoards, None).unwrap();
        assert_eq!((two.format, two.format.boards()), (Format::TwoBoards, 2));
        assert_eq!(
            Format::from_stored("two_boards", None),
            Some(Format::TwoBoards)
        );
        assert_eq!(Format::from_stored("two_boards", Some(2)), None);
        let mut bots = request(wire::Opponent::Bots);
        bots.format = wire::Format::TwoBoards;
        assert_eq!(TableOptions::parse(&bots).unwrap_err().field, "format");
    }
}
