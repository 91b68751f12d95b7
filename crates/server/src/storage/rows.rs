//! A table's row: its options, time control and token hashes, as the
//! `tables` columns hold them.

use std::time::Duration;

use sqlx::Row;

use crate::token::TokenHash;
use baghchal_table::clock::TimeControl;
use baghchal_table::names::{repetition_from_name, side_from_name};
use baghchal_table::options::{Format, Opponent, TableOptions};

use super::{StorageError, TableRow};

pub(super) const TABLE_COLUMNS: &str =
    "SELECT id, opponent, level, host_side, spectator_seats, goats_to_win, \
     first_side, multi_jump, three_tigers, repetition, ply_limit, host_secret, guest_secret, \
     invite_token, watch_token, clock_initial_ms, clock_increment_ms, clock_days, format, \
     series_games, host_player, guest_player, lobby, rated FROM tables WHERE id = $1";

/// A time control as its columns hold it: the initial time and increment
/// in milliseconds, or the days per action; all null for none.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ClockColumns {
    /// The initial time, in milliseconds.
    pub initial_ms: Option<i64>,
    /// The increment, in milliseconds.
    pub increment_ms: Option<i64>,
    /// The days per action.
    pub days: Option<i64>,
}

impl ClockColumns {
    /// The columns of `clock`.
    pub fn encode(clock: Option<TimeControl>) -> ClockColumns {
        let ms = |d: Duration| i64::try_from(d.as_millis()).unwrap_or(i64::MAX);
        match clock {
            None => ClockColumns {
                initial_ms: None,
                increment_ms: None,
                days: None,
            },
            Some(TimeControl::Fischer { initial, increment }) => ClockColumns {
                initial_ms: Some(ms(initial)),
                increment_ms: Some(ms(increment)),
                days: None,
            },
            Some(TimeControl::DaysPerAction(days)) => ClockColumns {
                initial_ms: None,
                increment_ms: None,
                days: Some(i64::from(days)),
            },
        }
    }

    /// The time control the columns hold; `None` when they hold none
    /// that is valid.
    pub fn decode(self) -> Option<Option<TimeControl>> {
        let ms = |n: i64| u64::try_from(n).ok().map(Duration::from_millis);
        match (self.initial_ms, self.increment_ms, self.days) {
            (None, None, None) => Some(None),
            (Some(initial), Some(increment), None) => Some(Some(TimeControl::Fischer {
                initial: ms(initial)?,
                increment: ms(increment)?,
            })),
            (None, None, Some(days)) => {
                Some(Some(TimeControl::DaysPerAction(u8::try_from(days).ok()?)))
            }
            _ => None,
        }
    }
}

/// A table row as the database returns it.
pub(super) struct RawTable {
    pub(super) id: String,
    pub(super) opponent: String,
    pub(super) level: Option<i64>,
    pub(super) host_side: String,
    pub(super) spectator_seats: i64,
    pub(super) goats_to_win: i64,
    pub(super) first_side: String,
    pub(super) multi_jump: i64,
    pub(super) three_tigers: i64,
    pub(super) repetition: String,
    pub(super) ply_limit: i64,
    pub(super) host_secret: Option<String>,
    pub(super) guest_secret: Option<String>,
    pub(super) invite_token: Option<String>,
    pub(super) watch_token: Option<String>,
    pub(super) clock: ClockColumns,
    pub(super) format: String,
    pub(super) series_games: Option<i64>,
    pub(super) host_player: Option<String>,
    pub(super) guest_player: Option<String>,
    pub(super) lobby: i64,
    pub(super) rated: i64,
}

impl RawTable {
    pub(super) fn parse(self) -> Result<TableRow, StorageError> {
        use baghchal_rules::RulesOptions;
        let corrupt = |what: &str| StorageError::Corrupt {
            table: self.id.clone(),
            what: what.to_owned(),
        };
        let side = |text: &str| side_from_name(text).ok_or_else(|| corrupt("side"));
        let opponent = Opponent::parse(&self.opponent).ok_or_else(|| corrupt("opponent"))?;
        let level = match self.level {
            Some(n) => Some(
                u16::try_from(n)
                    .ok()
                    .and_then(baghchal_engine::Level::new)
                    .ok_or_else(|| corrupt("level"))?,
            ),
            None => None,
        };
        let rules = baghchal_rules::Rules::new(RulesOptions {
            goats_to_win: Some(u8::try_from(self.goats_to_win).map_err(|_| corrupt("target"))?),
            first: side(&self.first_side)?,
            multi_jump: self.multi_jump != 0,
            three_tigers: self.three_tigers != 0,
            repetition: repetition_from_name(&self.repetition)
                .ok_or_else(|| corrupt("repetition"))?,
            ply_limit: u16::try_from(self.ply_limit).map_err(|_| corrupt("ply limit"))?,
        })
        .map_err(|e| corrupt(&e.to_string()))?;
        let options = TableOptions {
            opponent,
            host_side: side(&self.host_side)?,
            level,
            spectator_seats: u8::try_from(self.spectator_seats)
                .map_err(|_| corrupt("spectator seats"))?,
            rules,
            clock: self.clock.decode().ok_or_else(|| corrupt("clock"))?,
            format: Format::from_stored(
                &self.format,
                match self.series_games {
                    Some(n) => Some(u8::try_from(n).map_err(|_| corrupt("series games"))?),
                    None => None,
                },
            )
            .ok_or_else(|| corrupt("format"))?,
        };
        Ok(TableRow {
            options,
            host_secret: self.host_secret.map(TokenHash::from_stored),
            guest_secret: self.guest_secret.map(TokenHash::from_stored),
            invite_token: self.invite_token.map(TokenHash::from_stored),
            watch_token: self.watch_token.map(TokenHash::from_stored),
            players: [self.host_player, self.guest_player],
            lobby: self.lobby != 0,
            rated: self.rated != 0,
            id: self.id,
        })
    }
}

/// The columns the storage reads by name, from either database's rows.
pub(super) trait RowLike {
    fn text(&self, name: &str) -> Result<String, StorageError>;
    fn maybe_text(&self, name: &str) -> Result<Option<String>, StorageError>;
    fn number(&self, name: &str) -> Result<i64, StorageError>;
    fn maybe_number(&self, name: &str) -> Result<Option<i64>, StorageError>;
    fn maybe_real(&self, name: &str) -> Result<Option<f64>, StorageError>;
}

macro_rules! row_like {
    ($row:ty) => {
        impl RowLike for $row {
            fn text(&self, name: &str) -> Result<String, StorageError> {
                Ok(self.try_get(name)?)
            }
            fn maybe_text(&self, name: &str) -> Result<Option<String>, StorageError> {
                Ok(self.try_get(name)?)
            }
            fn number(&self, name: &str) -> Result<i64, StorageError> {
                Ok(self.try_get(name)?)
            }
            fn maybe_number(&self, name: &str) -> Result<Option<i64>, StorageError> {
                Ok(self.try_get(name)?)
            }
            fn maybe_real(&self, name: &str) -> Result<Option<f64>, StorageError> {
                Ok(self.try_get(name)?)
            }
        }
    };
}
row_like!(sqlx::sqlite::SqliteRow);
row_like!(sqlx::postgres::PgRow);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_time_control_reads_back_from_its_columns() {
        for clock in [
            None,
            Some(TimeControl::Fischer {
                initial: Duration::from_secs(5),
                increment: Duration::ZERO,
            }),
            Some(TimeControl::Fischer {
                initial: Duration::from_secs(10_800),
                increment: Duration::from_secs(180),
            }),
            Some(TimeControl::DaysPerAction(3)),
        ] {
            assert_eq!(ClockColumns::encode(clock).decode(), Some(clock));
        }
        let half = ClockColumns {
            initial_ms: Some(60_000),
            increment_ms: None,
            days: None,
        };
        assert_eq!(half.decode(), None);
    }
}
