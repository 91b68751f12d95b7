//! Finished games: their rows, written by the event writers in the
//! transaction of the event that ended each game, read back for history,
//! with the review once it is computed; and the backfill of the games that
//! ended before the rows existed.

use baghchal_rules::{Outcome, Record};

use super::rows::{ClockColumns, RowLike};
use super::{Pool, Storage, StorageError};
use baghchal_table::finished::{FinishedGame, SeatKind};
use baghchal_table::names::{side_from_name, side_name};
use baghchal_table::options::Format;
use baghchal_table::time::Timestamp;

/// The insert of one game's row, in the dialect both databases share. A
/// row already there (the backfill and the writer meeting) is kept.
pub(super) const INSERT_GAME: &str = "INSERT INTO games (table_id, game, board, version, \
     host_seat, guest_seat, host_side, winner, reason, plies, started_at, ended_at, \
     clock_initial_ms, clock_increment_ms, clock_days, format, series_games, record, \
     host_player, guest_player, rated) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, \
     $19, $20, $21) \
     ON CONFLICT (table_id, game, board) DO NOTHING";

const GAME_COLUMNS: &str = "SELECT table_id, game, board, version, host_seat, guest_seat, \
     host_side, winner, reason, plies, started_at, ended_at, clock_initial_ms, \
     clock_increment_ms, clock_days, format, series_games, record, analysis, host_player, \
     guest_player, rated, host_rating_before, host_rating_after, guest_rating_before, \
     guest_rating_after FROM games";

/// A finished game as its columns hold it, in [`INSERT_GAME`]'s order.
#[derive(Clone, Debug)]
pub(super) struct GameColumns {
    pub table_id: String,
    pub game: i64,
    pub board: i64,
    pub version: i64,
    pub host_seat: &'static str,
    pub guest_seat: &'static str,
    pub host_side: &'static str,
    pub winner: Option<&'static str>,
    pub reason: &'static str,
    pub plies: i64,
    pub started_at: i64,
    pub ended_at: i64,
    pub clock: ClockColumns,
    pub format: &'static str,
    pub series_games: Option<i64>,
    pub record: String,
    pub host_player: Option<String>,
    pub guest_player: Option<String>,
    pub rated: i64,
    /// The player who aborted the game, at a lobby table (not a column:
    /// the game's end counts it against them).
    pub aborter: Option<String>,
}

impl GameColumns {
    pub(super) fn encode(game: &FinishedGame) -> Result<GameColumns, StorageError> {
        Ok(GameColumns {
            table_id: game.table.clone(),
            game: i64::from(game.game),
            board: i64::from(game.board),
            version: i64::try_from(game.version).map_err(|_| StorageError::Corrupt {
                table: game.table.clone(),
                what: format!("version {} out of range", game.version),
            })?,
            host_seat: game.seats[0].as_str(),
            guest_seat: game.seats[1].as_str(),
            host_side: side_name(game.host_side),
            winner: game.outcome.winner().map(side_name),
            reason: game.outcome.reason().as_str(),
            plies: i64::from(game.plies),
            started_at: game.started.as_millis(),
            ended_at: game.ended.as_millis(),
            clock: ClockColumns::encode(game.clock),
            format: game.format.as_str(),
            series_games: game.format.series_games().map(i64::from),
            record: game.record.to_string(),
            host_player: game.players[0].clone(),
            guest_player: game.players[1].clone(),
            rated: i64::from(game.rated),
            aborter: game
                .aborted_by
                .filter(|_| game.seats == [SeatKind::Player; 2])
                .and_then(|side| {
                    let seat = usize::from(side != game.host_side);
                    game.players[seat].clone()
                }),
        })
    }
}

/// A finished game read back, with its review if one was stored.
#[derive(Clone, Debug)]
pub struct StoredGame {
    /// The game.
    pub game: FinishedGame,
    /// Its review as stored (the JSON of `GET
    /// /api/tables/{table}/games/{game}/analysis`), once computed.
    pub analysis: Option<String>,
    /// A rated game's ratings, host then guest, each before and after.
    pub ratings: Option<[(f64, f64); 2]>,
}

impl StoredGame {
    /// The game as `GET /api/tables/{table}/games/{game}` answers it, its
    /// rating changes included.
    pub fn to_wire(&self) -> baghchal_protocol::GameRecord {
        let mut record = self.game.to_wire();
        record.ratings = self.ratings.map(|[host, guest]| {
            let change = |(before, after): (f64, f64)| baghchal_protocol::RatingChange {
                before: before.round().max(0.0) as u32,
                after: after.round().max(0.0) as u32,
                change: (after - before).round() as i32,
            };
            let (goats, tigers) = if self.game.host_side == baghchal_rules::Side::Goat {
                (host, guest)
            } else {
                (guest, host)
            };
            baghchal_protocol::GameRatings {
                goats: change(goats),
                tigers: change(tigers),
            }
        });
        record
    }
}

fn decode(row: &impl RowLike) -> Result<StoredGame, StorageError> {
    let table: String = row.text("table_id")?;
    let corrupt = |what: &str| StorageError::Corrupt {
        table: table.clone(),
        what: format!("game row: {what}"),
    };
    let seat = |name: &str| SeatKind::parse(name).ok_or_else(|| corrupt("seat"));
    let side = |name: &str| side_from_name(name).ok_or_else(|| corrupt("side"));
    let reason = row.text("reason")?.parse().map_err(|_| corrupt("reason"))?;
    let outcome = match row.maybe_text("winner")? {
        Some(winner) => Outcome::win(side(&winner)?, reason),
        None => Outcome::draw(reason),
    };
    let record: Record = row
        .text("record")?
        .parse()
        .map_err(|e| corrupt(&format!("record: {e}")))?;
    let number = |name: &str| row.number(name);
    let small = |name: &str| -> Result<u16, StorageError> {
        u16::try_from(number(name)?).map_err(|_| corrupt(name))
    };
    let series_games = match row.maybe_number("series_games")? {
        Some(n) => Some(u8::try_from(n).map_err(|_| corrupt("series games"))?),
        None => None,
    };
    let game = FinishedGame {
        game: u32::try_from(number("game")?).map_err(|_| corrupt("game"))?,
        board: u8::try_from(number("board")?).map_err(|_| corrupt("board"))?,
        version: u64::try_from(number("version")?).map_err(|_| corrupt("version"))?,
        seats: [
            seat(&row.text("host_seat")?)?,
            seat(&row.text("guest_seat")?)?,
        ],
        host_side: side(&row.text("host_side")?)?,
        outcome,
        plies: small("plies")?,
        started: Timestamp::from_millis(number("started_at")?),
        ended: Timestamp::from_millis(number("ended_at")?),
        clock: ClockColumns {
            initial_ms: row.maybe_number("clock_initial_ms")?,
            increment_ms: row.maybe_number("clock_increment_ms")?,
            days: row.maybe_number("clock_days")?,
        }
        .decode()
        .ok_or_else(|| corrupt("clock"))?,
        format: Format::from_stored(&row.text("format")?, series_games)
            .ok_or_else(|| corrupt("format"))?,
        record,
        players: [
            row.maybe_text("host_player")?,
            row.maybe_text("guest_player")?,
        ],
        rated: row.number("rated")? != 0,
        aborted_by: None,
        table: table.clone(),
    };
    let rating = |name: &str| row.maybe_real(name);
    let ratings = match (
        rating("host_rating_before")?,
        rating("host_rating_after")?,
        rating("guest_rating_before")?,
        rating("guest_rating_after")?,
    ) {
        (Some(hb), Some(ha), Some(gb), Some(ga)) => Some([(hb, ha), (gb, ga)]),
        _ => None,
    };
    Ok(StoredGame {
        game,
        analysis: row.maybe_text("analysis")?,
        ratings,
    })
}

impl Storage {
    /// Game `game` of `table` on `board`, once it is over.
    pub async fn finished_game(
        &self,
        table: &str,
        game: u32,
        board: u8,
    ) -> Result<Option<StoredGame>, StorageError> {
        let query = format!("{GAME_COLUMNS} WHERE table_id = $1 AND game = $2 AND board = $3");
        on_pool!(&self.pool, pool => {
            sqlx::query(&query)
                .bind(table)
                .bind(i64::from(game))
                .bind(i64::from(board))
                .fetch_optional(pool)
                .await?
                .map(|row| decode(&row))
                .transpose()
        })
    }

    /// Every finished game of `table`, in the order they ended.
    pub async fn finished_games(&self, table: &str) -> Result<Vec<StoredGame>, StorageError> {
        let query = format!("{GAME_COLUMNS} WHERE table_id = $1 ORDER BY version");
        on_pool!(&self.pool, pool => {
            sqlx::query(&query)
                .bind(table)
                .fetch_all(pool)
                .await?
                .iter()
                .map(decode)
                .collect()
        })
    }

    /// Keeps the review of a finished game with it.
    pub async fn store_analysis(
        &self,
        table: &str,
        game: u32,
        board: u8,
        analysis: &str,
    ) -> Result<(), StorageError> {
        on_pool!(&self.pool, pool => {
            sqlx::query(
                "UPDATE games SET analysis = $1 WHERE table_id = $2 AND game = $3 AND board = $4",
            )
            .bind(analysis)
            .bind(table)
            .bind(i64::from(game))
            .bind(i64::from(board))
            .execute(pool)
            .await?;
        });
        Ok(())
    }

    /// Up to `limit` tables whose finished games still need their rows:
    /// those created before the rows existed.
    pub async fn tables_to_backfill(&self, limit: usize) -> Result<Vec<String>, StorageError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let ids = on_pool!(&self.pool, pool => {
            sqlx::query_scalar("SELECT table_id FROM games_backfill ORDER BY table_id LIMIT $1")
                .bind(limit)
                .fetch_all(pool)
                .await?
        });
        Ok(ids)
    }

    /// Writes the rows of `table`'s finished games, found by replaying its
    /// events, and takes the table off the backfill's list, in one
    /// transaction.
    pub async fn backfill(&self, table: &str, games: &[FinishedGame]) -> Result<(), StorageError> {
        let columns = games
            .iter()
            .map(GameColumns::encode)
            .collect::<Result<Vec<_>, _>>()?;
        on_pool!(&self.pool, pool => {
            let mut tx = pool.begin().await?;
            for game in &columns {
                bind_game(sqlx::query(INSERT_GAME), game)
                    .execute(&mut *tx)
                    .await?;
            }
            sqlx::query("DELETE FROM games_backfill WHERE table_id = $1")
                .bind(table)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
        });
        Ok(())
    }
}

/// Binds a game's columns to [`INSERT_GAME`], on either database.
pub(super) fn bind_game<'q, DB>(
    query: sqlx::query::Query<'q, DB, <DB as sqlx::Database>::Arguments<'q>>,
    game: &'q GameColumns,
) -> sqlx::query::Query<'q, DB, <DB as sqlx::Database>::Arguments<'q>>
where
    DB: sqlx::Database,
    &'q str: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    i64: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    Option<i64>: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    Option<&'q str>: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
{
    query
        .bind(game.table_id.as_str())
        .bind(game.game)
        .bind(game.board)
        .bind(game.version)
        .bind(game.host_seat)
        .bind(game.guest_seat)
        .bind(game.host_side)
        .bind(game.winner)
        .bind(game.reason)
        .bind(game.plies)
        .bind(game.started_at)
        .bind(game.ended_at)
        .bind(game.clock.initial_ms)
        .bind(game.clock.increment_ms)
        .bind(game.clock.days)
        .bind(game.format)
        .bind(game.series_games)
        .bind(game.record.as_str())
        .bind(game.host_player.as_deref())
        .bind(game.guest_player.as_deref())
        .bind(game.rated)
}
