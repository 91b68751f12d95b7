//! Puzzle ratings as stored (`docs/puzzles.md`): each player's puzzle
//! rating, each puzzle's rating and plays, and each player's first tries.
//!
//! A try's end changes all three in one transaction. The try's row comes
//! first: a second try of the same puzzle by the same player finds it and
//! changes nothing, also when both arrive at once (the second insert waits
//! for the first's commit). Then the player's row and the puzzle's are
//! read for update, in that order in every transaction, so that tries of
//! one puzzle by many players, or of many puzzles by one player, rate one
//! after the other and lose no update. SQLite takes its write lock at the
//! start instead.

use baghchal_rating::puzzle::{rate_try, RatedTry};
use baghchal_rating::Rating;
use sqlx::Row;

use super::{BeginWrite, Pool, Storage, StorageError};

/// How many first tries a player keeps: older ones are removed, and such
/// a puzzle may come again (and be rated again).
pub const MAX_TRIES_KEPT: i64 = 2_000;

/// How many tries a day of one player may move puzzles' ratings
/// (lichess's limit); later ones still rate the player.
pub const MAX_PUZZLE_MOVES_A_DAY: i64 = 300;

/// Milliseconds in a day.
const DAY_MS: i64 = 86_400_000;

/// A puzzle of the shipped set as the database first takes it.
#[derive(Clone, Debug, PartialEq)]
pub struct PuzzleSeed {
    /// Its id.
    pub id: String,
    /// Its themes' names.
    pub themes: Vec<&'static str>,
    /// Its starting rating.
    pub rating: f64,
    /// Its starting deviation.
    pub deviation: f64,
}

impl PuzzleSeed {
    /// The `themes` column: the names with a space on each side.
    fn themes_column(&self) -> String {
        format!(" {} ", self.themes.join(" "))
    }
}

/// A puzzle's rating and plays as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredPuzzle {
    /// Its id.
    pub id: String,
    /// Its rating.
    pub rating: Rating,
    /// First tries of it.
    pub plays: i64,
}

/// A player's puzzle rating as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredPuzzleRating {
    /// The rating.
    pub rating: Rating,
    /// Puzzles tried (first tries).
    pub tries: i64,
    /// When it last changed, in milliseconds since the epoch.
    pub rated_at: i64,
}

/// A try's end, to be rated.
#[derive(Clone, Debug)]
pub struct PuzzleTry<'a> {
    /// The player.
    pub player: &'a str,
    /// The puzzle, as the set has it (its row is made if missing).
    pub puzzle: &'a PuzzleSeed,
    /// Whether the player solved it.
    pub solved: bool,
    /// Whether this player may move puzzles' ratings at all.
    pub moves_puzzle: bool,
    /// When, in milliseconds since the epoch.
    pub now: i64,
}

/// What a first try changed.
#[derive(Clone, Debug, PartialEq)]
pub struct FinishedTry {
    /// Both ratings before and after.
    pub rated: RatedTry,
    /// The player's first tries, this one included.
    pub tries: i64,
}

const INSERT_TRY: &str =
    "INSERT INTO puzzle_tries (player_id, puzzle_id, solved, moved_puzzle, tried_at) \
     VALUES ($1, $2, $3, 0, $4) ON CONFLICT (player_id, puzzle_id) DO NOTHING";

const NEW_PLAYER: &str = "INSERT INTO puzzle_ratings \
     (player_id, rating, deviation, volatility, tries, solved, rated_at) \
     VALUES ($1, $2, $3, $4, 0, 0, $5) ON CONFLICT (player_id) DO NOTHING";

const READ_PLAYER: &str = "SELECT rating, deviation, volatility, tries, rated_at \
     FROM puzzle_ratings WHERE player_id = $1";

const NEW_PUZZLE: &str =
    "INSERT INTO puzzles (id, themes, rating, deviation, volatility, plays, solves) \
     VALUES ($1, $2, $3, $4, $5, 0, 0) ON CONFLICT (id) DO NOTHING";

const READ_PUZZLE: &str = "SELECT rating, deviation, volatility, plays FROM puzzles WHERE id = $1";

const MOVED_TODAY: &str = "SELECT COUNT(*) AS n FROM puzzle_tries \
     WHERE player_id = $1 AND moved_puzzle = 1 AND tried_at > $2";

const WRITE_PLAYER: &str =
    "UPDATE puzzle_ratings SET rating = $1, deviation = $2, volatility = $3, \
     tries = tries + 1, solved = solved + $4, rated_at = $5 WHERE player_id = $6";

const WRITE_PUZZLE: &str = "UPDATE puzzles SET rating = $1, deviation = $2, volatility = $3, \
     plays = plays + 1, solves = solves + $4 WHERE id = $5";

const MARK_MOVED: &str =
    "UPDATE puzzle_tries SET moved_puzzle = 1 WHERE player_id = $1 AND puzzle_id = $2";

const TRIM_TRIES: &str = "DELETE FROM puzzle_tries WHERE player_id = $1 AND tried_at < \
     (SELECT tried_at FROM puzzle_tries WHERE player_id = $1 \
     ORDER BY tried_at DESC LIMIT 1 OFFSET $2)";

const SEED_BATCH: usize = 100;

/// The statement that writes `rows` puzzles of the set: a new one at its
/// starting rating, an old one only where its themes changed.
fn seed_statement(rows: usize) -> String {
    let values: Vec<String> = (0..rows)
        .map(|i| {
            let n = 5 * i;
            format!(
                "(${}, ${}, ${}, ${}, ${}, 0, 0)",
                n + 1,
                n + 2,
                n + 3,
                n + 4,
                n + 5
            )
        })
        .collect();
    format!(
        "INSERT INTO puzzles (id, themes, rating, deviation, volatility, plays, solves) \
         VALUES {} ON CONFLICT (id) DO UPDATE SET themes = excluded.themes \
         WHERE puzzles.themes <> excluded.themes",
        values.join(", ")
    )
}

/// A rating from a row's `rating`, `deviation` and `volatility`.
macro_rules! rating_of {
    ($row:expr) => {
        Rating {
            rating: $row.try_get("rating")?,
            deviation: $row.try_get("deviation")?,
            volatility: $row.try_get("volatility")?,
        }
    };
}

impl Storage {
    /// Writes the shipped set's puzzles: a new one at its starting
    /// rating, an old one keeps its rating and plays and takes the set's
    /// themes. Every node does it at its start; they agree.
    pub async fn seed_puzzles(&self, set: &[PuzzleSeed]) -> Result<(), StorageError> {
        on_pool!(&self.pool, pool => {
            let mut tx = pool.begin_write().await?;
            for batch in set.chunks(SEED_BATCH) {
                let sql = seed_statement(batch.len());
                let mut query = sqlx::query(&sql);
                for seed in batch {
                    query = query
                        .bind(seed.id.as_str())
                        .bind(seed.themes_column())
                        .bind(seed.rating)
                        .bind(seed.deviation)
                        .bind(baghchal_rating::START_VOLATILITY);
                }
                query.execute(&mut *tx).await?;
            }
            tx.commit().await?;
        });
        Ok(())
    }

    /// The records of the newest `limit` finished games that were not
    /// aborted, newest first: what `baghchal puzzles build` reads from a
    /// site's database.
    pub async fn finished_records(&self, limit: i64) -> Result<Vec<String>, StorageError> {
        on_pool!(&self.pool, pool => {
            let rows = sqlx::query(
                "SELECT record FROM games WHERE reason <> 'aborted' \
                 ORDER BY ended_at DESC, table_id, game, board LIMIT $1",
            )
            .bind(limit)
            .fetch_all(pool)
            .await?;
            rows.iter()
                .map(|row| Ok(row.try_get("record")?))
                .collect()
        })
    }

    /// `player`'s puzzle rating, if they have tried a puzzle.
    pub async fn puzzle_rating(
        &self,
        player: &str,
    ) -> Result<Option<StoredPuzzleRating>, StorageError> {
        on_pool!(&self.pool, pool => {
            let row = sqlx::query(READ_PLAYER).bind(player).fetch_optional(pool).await?;
            match row {
                Some(row) => Ok(Some(StoredPuzzleRating {
                    rating: rating_of!(row),
                    tries: row.try_get("tries")?,
                    rated_at: row.try_get("rated_at")?,
                })),
                None => Ok(None),
            }
        })
    }

    /// Up to `limit` puzzles nearest `rating`, nearest first: of `theme`
    /// when one is given, never `after`, and none `player` has tried.
    pub async fn puzzles_near(
        &self,
        rating: f64,
        theme: Option<&str>,
        after: Option<&str>,
        player: Option<&str>,
        limit: i64,
    ) -> Result<Vec<StoredPuzzle>, StorageError> {
        let mut sql = String::from(
            "SELECT id, rating, deviation, volatility, plays FROM puzzles p WHERE 1 = 1",
        );
        let mut n = 0;
        let mut next = || {
            n += 1;
            n
        };
        if theme.is_some() {
            sql.push_str(&format!(" AND themes LIKE ${}", next()));
        }
        if after.is_some() {
            sql.push_str(&format!(" AND id <> ${}", next()));
        }
        if player.is_some() {
            sql.push_str(&format!(
                " AND NOT EXISTS (SELECT 1 FROM puzzle_tries t \
                 WHERE t.player_id = ${} AND t.puzzle_id = p.id)",
                next()
            ));
        }
        sql.push_str(&format!(
            " ORDER BY abs(rating - ${}), id LIMIT ${}",
            next(),
            next()
        ));
        let theme = theme.map(|t| format!("% {t} %"));
        on_pool!(&self.pool, pool => {
            let mut query = sqlx::query(&sql);
            if let Some(theme) = &theme {
                query = query.bind(theme.as_str());
            }
            if let Some(after) = after {
                query = query.bind(after);
            }
            if let Some(player) = player {
                query = query.bind(player);
            }
            let rows = query.bind(rating).bind(limit).fetch_all(pool).await?;
            rows.iter()
                .map(|row| -> Result<StoredPuzzle, StorageError> {
                    Ok(StoredPuzzle {
                        id: row.try_get("id")?,
                        rating: rating_of!(row),
                        plays: row.try_get("plays")?,
                    })
                })
                .collect()
        })
    }

    /// Rates the end of a try, if it is the player's first of this
    /// puzzle (`None` for a later one, which changes nothing): the try's
    /// row, the player's puzzle rating and the puzzle's rating and plays,
    /// in one transaction.
    pub async fn finish_puzzle(
        &self,
        attempt: &PuzzleTry<'_>,
    ) -> Result<Option<FinishedTry>, StorageError> {
        let lock = if self.is_postgres() {
            " FOR UPDATE"
        } else {
            ""
        };
        let solved = i64::from(attempt.solved);
        let seed = attempt.puzzle;
        on_pool!(&self.pool, pool => {
            let mut tx = pool.begin_write().await?;
            let first = sqlx::query(INSERT_TRY)
                .bind(attempt.player)
                .bind(seed.id.as_str())
                .bind(solved)
                .bind(attempt.now)
                .execute(&mut *tx)
                .await?
                .rows_affected()
                == 1;
            if !first {
                tx.rollback().await?;
                return Ok(None);
            }
            let start = Rating::default();
            sqlx::query(NEW_PLAYER)
                .bind(attempt.player)
                .bind(start.rating)
                .bind(start.deviation)
                .bind(start.volatility)
                .bind(attempt.now)
                .execute(&mut *tx)
                .await?;
            let row = sqlx::query(&format!("{READ_PLAYER}{lock}"))
                .bind(attempt.player)
                .fetch_one(&mut *tx)
                .await?;
            let player = StoredPuzzleRating {
                rating: rating_of!(row),
                tries: row.try_get("tries")?,
                rated_at: row.try_get("rated_at")?,
            };
            sqlx::query(NEW_PUZZLE)
                .bind(seed.id.as_str())
                .bind(seed.themes_column())
                .bind(seed.rating)
                .bind(seed.deviation)
                .bind(baghchal_rating::START_VOLATILITY)
                .execute(&mut *tx)
                .await?;
            let row = sqlx::query(&format!("{READ_PUZZLE}{lock}"))
                .bind(seed.id.as_str())
                .fetch_one(&mut *tx)
                .await?;
            let puzzle: Rating = rating_of!(row);
            let moved_today: i64 = sqlx::query(MOVED_TODAY)
                .bind(attempt.player)
                .bind(attempt.now - DAY_MS)
                .fetch_one(&mut *tx)
                .await?
                .try_get("n")?;
            let rated = rate(&player, puzzle, attempt, moved_today);
            sqlx::query(WRITE_PLAYER)
                .bind(rated.player.rating)
                .bind(rated.player.deviation)
                .bind(rated.player.volatility)
                .bind(solved)
                .bind(attempt.now)
                .bind(attempt.player)
                .execute(&mut *tx)
                .await?;
            let puzzle_after = rated.puzzle.unwrap_or(rated.puzzle_before);
            sqlx::query(WRITE_PUZZLE)
                .bind(puzzle_after.rating)
                .bind(puzzle_after.deviation)
                .bind(puzzle_after.volatility)
                .bind(solved)
                .bind(seed.id.as_str())
                .execute(&mut *tx)
                .await?;
            if rated.puzzle.is_some() {
                sqlx::query(MARK_MOVED)
                    .bind(attempt.player)
                    .bind(seed.id.as_str())
                    .execute(&mut *tx)
                    .await?;
            }
            sqlx::query(TRIM_TRIES)
                .bind(attempt.player)
                .bind(MAX_TRIES_KEPT - 1)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            Ok(Some(FinishedTry {
                rated,
                tries: player.tries + 1,
            }))
        })
    }
}

/// The try rated: the player's rating first widened for the days since
/// their last rated try, the puzzle moved only by a player allowed to who
/// has not yet moved [`MAX_PUZZLE_MOVES_A_DAY`] puzzles in the last day.
fn rate(
    player: &StoredPuzzleRating,
    puzzle: Rating,
    attempt: &PuzzleTry<'_>,
    moved_today: i64,
) -> RatedTry {
    let idle_days = (attempt.now - player.rated_at).max(0) as f64 / DAY_MS as f64;
    let before = if player.tries > 0 {
        player.rating.after_idle(idle_days)
    } else {
        player.rating
    };
    let moves_puzzle = attempt.moves_puzzle && moved_today < MAX_PUZZLE_MOVES_A_DAY;
    rate_try(before, puzzle, attempt.solved, moves_puzzle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seed() -> PuzzleSeed {
        PuzzleSeed {
            id: "p".into(),
            themes: vec!["capture", "endgame"],
            rating: 1300.0,
            deviation: 350.0,
        }
    }

    fn attempt(seed: &PuzzleSeed, now: i64) -> PuzzleTry<'_> {
        PuzzleTry {
            player: "alice",
            puzzle: seed,
            solved: true,
            moves_puzzle: true,
            now,
        }
    }

    fn established(rated_at: i64) -> StoredPuzzleRating {
        StoredPuzzleRating {
            rating: Rating {
                rating: 1500.0,
                deviation: 60.0,
                volatility: 0.06,
            },
            tries: 50,
            rated_at,
        }
    }

    #[test]
    fn the_themes_column_finds_one_theme_with_like() {
        assert_eq!(seed().themes_column(), " capture endgame ");
    }

    #[test]
    fn a_player_away_for_long_is_less_certain_and_moves_further() {
        let seed = seed();
        let puzzle = Rating {
            rating: 1500.0,
            deviation: 80.0,
            volatility: 0.09,
        };
        let fresh = rate(&established(0), puzzle, &attempt(&seed, DAY_MS), 0);
        let idle = rate(&established(0), puzzle, &attempt(&seed, 300 * DAY_MS), 0);
        assert!(idle.player_before.deviation > fresh.player_before.deviation);
        assert!(idle.player.rating > fresh.player.rating);
    }

    #[test]
    fn a_player_who_moved_many_puzzles_today_moves_no_more() {
        let seed = seed();
        let puzzle = Rating {
            rating: 1500.0,
            deviation: 80.0,
            volatility: 0.09,
        };
        let now = attempt(&seed, DAY_MS);
        assert!(rate(&established(0), puzzle, &now, 0).puzzle.is_some());
        let tired = rate(&established(0), puzzle, &now, MAX_PUZZLE_MOVES_A_DAY);
        assert_eq!(tired.puzzle, None);
        assert!(tired.player.rating > 1500.0);
    }
}
