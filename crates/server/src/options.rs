//! A table's options, checked: the type boundary between a request and a
//! table.

use baghchal_engine::Level;
use baghchal_protocol as wire;
use baghchal_rules::{Rules, RulesError, RulesOptions, Side};

use crate::names::{repetition_from_wire, repetition_to_wire, side_from_wire, side_to_wire};

/// The most spectator seats a table can reserve.
pub const MAX_SPECTATOR_SEATS: u8 = 12;

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
    /// use baghchal_protocol::{CreateTable, Opponent, Side, Variant};
    /// use baghchal_server::options::TableOptions;
    /// let raw = CreateTable { opponent: Opponent::Computer, side: Side::Goats, level: Some(1250),
    ///                         spectators: 0, variant: Variant::default() };
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
            Opponent::Bots => raw.spectators.max(1),
            _ => raw.spectators,
        };
        let rules = rules_from_variant(&raw.variant)?;
        Ok(TableOptions {
            opponent,
            host_side: side_from_wire(raw.side),
            level,
            spectator_seats,
            rules,
        })
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
        assert_eq!(bots.spectator_seats, 1);
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
}
