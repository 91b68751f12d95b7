//! Profiles, read from the `players`, `ratings` and `games` rows: a
//! player, their record by side, their rating history, their finished
//! games page by page, and a speed class's leaderboard.

use sqlx::Row;

use super::{Pool, Storage, StorageError};

/// A player as a profile shows them.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ProfileRow {
    /// The player's id.
    pub id: String,
    /// The account's name; `None` while anonymous and once closed.
    pub name: Option<String>,
    /// When the player first came, in milliseconds since the epoch.
    pub created_at: i64,
    /// Whether the account was closed.
    pub closed: bool,
}

/// How many games a player won, drew and lost with one side.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct SideCounts {
    /// Won.
    pub won: i64,
    /// Drawn.
    pub drawn: i64,
    /// Lost.
    pub lost: i64,
}

/// A player's games counted by the side they had: the goats, the tigers.
pub type RecordBySide = [SideCounts; 2];

/// The rating a player had after one rated game.
#[derive(Clone, PartialEq, Debug)]
pub struct RatedPoint {
    /// When the game ended, in milliseconds since the epoch.
    pub ended_at: i64,
    /// Its clock columns (initial, increment, days), which name its speed.
    pub clock: [Option<i64>; 3],
    /// The player's rating after it.
    pub rating: f64,
}

/// One finished game of a player's, with what a list shows of it.
#[derive(Clone, PartialEq, Debug)]
pub struct PlayedGame {
    /// The table id.
    pub table: String,
    /// The game's number.
    pub game: i64,
    /// Its board.
    pub board: i64,
    /// Whether the table played two boards.
    pub two_boards: bool,
    /// The player's side, `goats` or `tigers`.
    pub side: String,
    /// The winning side, if any.
    pub winner: Option<String>,
    /// Why it ended.
    pub reason: String,
    /// Plies played.
    pub plies: i64,
    /// When it ended, in milliseconds since the epoch.
    pub ended_at: i64,
    /// Its clock columns (initial, increment, days).
    pub clock: [Option<i64>; 3],
    /// Whether it was rated.
    pub rated: bool,
    /// The player's rating before and after it (rated games).
    pub rating: Option<(f64, f64)>,
    /// The other seat's kind: `link`, `computer` or `player`.
    pub opponent_seat: String,
    /// The other seat's player, if one is known.
    pub opponent: Option<String>,
    /// That player's name, if they have one.
    pub opponent_name: Option<String>,
    /// The computer's level at a table against the computer.
    pub level: Option<i64>,
}

/// Where a page of a player's games starts: strictly older than this
/// game (`ended_at`, table, game, board), in the list's order.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct GamesCursor {
    /// When the game ended.
    pub ended_at: i64,
    /// Its table.
    pub table: String,
    /// Its number.
    pub game: i64,
    /// Its board.
    pub board: i64,
}

impl GamesCursor {
    /// Before every game.
    pub fn start() -> GamesCursor {
        GamesCursor {
            ended_at: i64::MAX,
            table: String::new(),
            game: 0,
            board: 0,
        }
    }
}

/// A player on a leaderboard.
#[derive(Clone, PartialEq, Debug)]
pub struct LeaderRow {
    /// The player's id.
    pub id: String,
    /// Their name.
    pub name: String,
    /// The rating.
    pub rating: f64,
    /// Its deviation.
    pub deviation: f64,
    /// Rated games in the class.
    pub games: i64,
}

const PROFILE_COLUMNS: &str = "SELECT id, name, created_at, closed_at FROM players";

/// A player's games with their side, whichever seat they had.
const MY_SIDE: &str = "CASE WHEN g.host_player = $1 THEN g.host_side \
     WHEN g.host_side = 'goats' THEN 'tigers' ELSE 'goats' END";

impl Storage {
    /// The player `id`, whatever they are (anonymous, an account, closed).
    pub async fn profile(&self, id: &str) -> Result<Option<ProfileRow>, StorageError> {
        self.profile_where("id = $1", id).await
    }

    /// The open account whose name is `key` without regard to case (`key`
    /// is the name in lower case).
    pub async fn profile_by_name(&self, key: &str) -> Result<Option<ProfileRow>, StorageError> {
        self.profile_where("name_key = $1 AND closed_at IS NULL", key)
            .await
    }

    async fn profile_where(
        &self,
        clause: &str,
        value: &str,
    ) -> Result<Option<ProfileRow>, StorageError> {
        let sql = format!("{PROFILE_COLUMNS} WHERE {clause}");
        on_pool!(&self.pool, pool => {
            let Some(row) = sqlx::query(&sql).bind(value).fetch_optional(pool).await? else {
                return Ok(None);
            };
            Ok(Some(ProfileRow {
                id: row.try_get("id")?,
                name: row.try_get("name")?,
                created_at: row.try_get("created_at")?,
                closed: row.try_get::<Option<i64>, _>("closed_at")?.is_some(),
            }))
        })
    }

    /// `player`'s finished games won, drawn and lost by side, aborted
    /// games left out.
    pub async fn record_by_side(&self, player: &str) -> Result<RecordBySide, StorageError> {
        let sql = format!(
            "SELECT side, winner, COUNT(*) AS n FROM (SELECT {MY_SIDE} AS side, winner \
             FROM games g WHERE (g.host_player = $1 OR g.guest_player = $1) \
             AND g.reason <> 'aborted') AS mine GROUP BY side, winner"
        );
        let mut record = RecordBySide::default();
        on_pool!(&self.pool, pool => {
            let rows = sqlx::query(&sql).bind(player).fetch_all(pool).await?;
            for row in &rows {
                let side: String = row.try_get("side")?;
                let winner: Option<String> = row.try_get("winner")?;
                let n: i64 = row.try_get("n")?;
                let counts = &mut record[usize::from(side == "tigers")];
                match winner {
                    None => counts.drawn += n,
                    Some(w) if w == side => counts.won += n,
                    Some(_) => counts.lost += n,
                }
            }
        });
        Ok(record)
    }

    /// `player`'s rating after each of their latest `limit` rated games,
    /// newest first.
    pub async fn rating_points(
        &self,
        player: &str,
        limit: usize,
    ) -> Result<Vec<RatedPoint>, StorageError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        on_pool!(&self.pool, pool => {
            let rows = sqlx::query(
                "SELECT ended_at, clock_initial_ms, clock_increment_ms, clock_days, \
                 CASE WHEN host_player = $1 THEN host_rating_after ELSE guest_rating_after END \
                 AS rating FROM games WHERE (host_player = $1 OR guest_player = $1) \
                 AND rated = 1 ORDER BY ended_at DESC LIMIT $2",
            )
            .bind(player)
            .bind(limit)
            .fetch_all(pool)
            .await?;
            let mut points = Vec::with_capacity(rows.len());
            for row in &rows {
                let Some(rating) = row.try_get::<Option<f64>, _>("rating")? else {
                    continue;
                };
                points.push(RatedPoint {
                    ended_at: row.try_get("ended_at")?,
                    clock: [
                        row.try_get("clock_initial_ms")?,
                        row.try_get("clock_increment_ms")?,
                        row.try_get("clock_days")?,
                    ],
                    rating,
                });
            }
            Ok(points)
        })
    }

    /// At most `limit` of `player`'s finished games older than `before`,
    /// newest first.
    pub async fn played_games(
        &self,
        player: &str,
        before: &GamesCursor,
        limit: usize,
    ) -> Result<Vec<PlayedGame>, StorageError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let sql = format!(
            "SELECT g.table_id, g.game, g.board, g.format, {MY_SIDE} AS side, g.winner, \
             g.reason, g.plies, g.ended_at, g.clock_initial_ms, g.clock_increment_ms, \
             g.clock_days, g.rated, \
             CASE WHEN g.host_player = $1 THEN g.host_rating_before ELSE g.guest_rating_before END \
             AS rating_before, \
             CASE WHEN g.host_player = $1 THEN g.host_rating_after ELSE g.guest_rating_after END \
             AS rating_after, \
             CASE WHEN g.host_player = $1 THEN g.guest_seat ELSE g.host_seat END AS opponent_seat, \
             CASE WHEN g.host_player = $1 THEN g.guest_player ELSE g.host_player END AS opponent, \
             t.level FROM games g JOIN tables t ON t.id = g.table_id \
             WHERE (g.host_player = $1 OR g.guest_player = $1) \
             AND (g.ended_at, g.table_id, g.game, g.board) < ($2, $3, $4, $5) \
             ORDER BY g.ended_at DESC, g.table_id DESC, g.game DESC, g.board DESC LIMIT $6"
        );
        let mut games = on_pool!(&self.pool, pool => {
            let rows = sqlx::query(&sql)
                .bind(player)
                .bind(before.ended_at)
                .bind(&before.table)
                .bind(before.game)
                .bind(before.board)
                .bind(limit)
                .fetch_all(pool)
                .await?;
            let mut games = Vec::with_capacity(rows.len());
            for row in &rows {
                let before: Option<f64> = row.try_get("rating_before")?;
                let after: Option<f64> = row.try_get("rating_after")?;
                games.push(PlayedGame {
                    table: row.try_get("table_id")?,
                    game: row.try_get("game")?,
                    board: row.try_get("board")?,
                    two_boards: row.try_get::<String, _>("format")? == "two_boards",
                    side: row.try_get("side")?,
                    winner: row.try_get("winner")?,
                    reason: row.try_get("reason")?,
                    plies: row.try_get("plies")?,
                    ended_at: row.try_get("ended_at")?,
                    clock: [
                        row.try_get("clock_initial_ms")?,
                        row.try_get("clock_increment_ms")?,
                        row.try_get("clock_days")?,
                    ],
                    rated: row.try_get::<i64, _>("rated")? != 0,
                    rating: before.zip(after),
                    opponent_seat: row.try_get("opponent_seat")?,
                    opponent: row.try_get("opponent")?,
                    opponent_name: None,
                    level: row.try_get("level")?,
                });
            }
            games
        });
        // The opponents' names, in one statement for the page.
        let mut ids: Vec<&str> = games.iter().filter_map(|g| g.opponent.as_deref()).collect();
        ids.sort_unstable();
        ids.dedup();
        let names = self.names_of(&ids).await?;
        for game in &mut games {
            game.opponent_name = game
                .opponent
                .as_ref()
                .and_then(|id| names.iter().find(|(i, _)| i == id))
                .map(|(_, name)| name.clone());
        }
        Ok(games)
    }

    /// The names of those of `ids` that have one.
    async fn names_of(&self, ids: &[&str]) -> Result<Vec<(String, String)>, StorageError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let marks: Vec<String> = (1..=ids.len()).map(|i| format!("${i}")).collect();
        let sql = format!(
            "SELECT id, name FROM players WHERE name IS NOT NULL AND id IN ({})",
            marks.join(", ")
        );
        on_pool!(&self.pool, pool => {
            let mut query = sqlx::query(&sql);
            for id in ids {
                query = query.bind(*id);
            }
            let rows = query.fetch_all(pool).await?;
            rows.iter()
                .map(|row| Ok((row.try_get("id")?, row.try_get("name")?)))
                .collect()
        })
    }

    /// The best `limit` open accounts of `speed` whose deviation is under
    /// `provisional` (not provisional), best first.
    pub async fn leaders(
        &self,
        speed: &str,
        provisional: f64,
        limit: usize,
    ) -> Result<Vec<LeaderRow>, StorageError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        on_pool!(&self.pool, pool => {
            let rows = sqlx::query(
                "SELECT r.player_id, p.name, r.rating, r.deviation, r.games FROM ratings r \
                 JOIN players p ON p.id = r.player_id \
                 WHERE r.speed = $1 AND r.deviation < $2 AND p.name IS NOT NULL \
                 AND p.closed_at IS NULL \
                 ORDER BY r.rating DESC, r.player_id LIMIT $3",
            )
            .bind(speed)
            .bind(provisional)
            .bind(limit)
            .fetch_all(pool)
            .await?;
            rows.iter()
                .map(|row| {
                    Ok(LeaderRow {
                        id: row.try_get("player_id")?,
                        name: row.try_get("name")?,
                        rating: row.try_get("rating")?,
                        deviation: row.try_get("deviation")?,
                        games: row.try_get("games")?,
                    })
                })
                .collect()
        })
    }
}
