//! The lobby's rows: open challenges, the pools' waiting players, and the
//! pairing transaction that seats two players at a new table. The
//! database is the truth every node shares: a challenge is taken once, a
//! pool entry paired once, and a player is in at most one lobby game at a
//! time (`players.lobby_table`, set only where it is null), so that no
//! race — two takers, two nodes' waves, a player in a pool who accepts a
//! challenge — ever seats a player twice.

use sqlx::Row;

use super::rows::{ClockColumns, RowLike};
use super::{insert_table, now_millis, BeginWrite, Pool, Storage, StorageError, TableRow};

/// An open challenge, with its maker's name.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ChallengeRow {
    /// The challenge's id.
    pub id: String,
    /// Its maker.
    pub player: String,
    /// The maker's name, if they have an account.
    pub name: Option<String>,
    /// `goats`, `tigers` or `random`.
    pub side: String,
    /// The time control's columns.
    pub clock: ClockColumns,
    /// Whether the game counts for ratings.
    pub rated: bool,
    /// The maker's rating in the game's class when they made it.
    pub rating: i64,
    /// Whether that rating was provisional.
    pub provisional: bool,
    /// The lowest rating that may accept.
    pub min_rating: Option<i64>,
    /// The highest.
    pub max_rating: Option<i64>,
    /// When it was made, in milliseconds since the epoch.
    pub created_at: i64,
}

/// A player waiting in a pool.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct PoolEntry {
    /// The player.
    pub player: String,
    /// The pool's id.
    pub pool: String,
    /// Whether the player plays rated (has an account).
    pub rated: bool,
    /// The player's rating in the pool's class.
    pub rating: i64,
    /// The side the player had in their last game, if any.
    pub last_side: Option<String>,
    /// Lobby games the player let abort.
    pub aborts: i64,
    /// When the player joined, in milliseconds since the epoch.
    pub joined_at: i64,
}

/// What a pairing consumes: the challenge taken, or two pool entries.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Consumes {
    /// The challenge with this id.
    Challenge(String),
    /// These two players' entries in this pool.
    Pool {
        /// The pool's id.
        pool: String,
    },
}

/// How a pairing went.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Pairing {
    /// The table is stored with both players seated.
    Paired,
    /// The challenge or an entry is gone: taken, withdrawn or paired.
    Taken,
    /// A player is already in a lobby game.
    Busy,
    /// One of the two blocks the other.
    Blocked,
}

/// The most open challenges a player may have.
pub const MAX_CHALLENGES_PER_PLAYER: i64 = 3;

const CHALLENGE_COLUMNS: &str = "SELECT c.id, c.player_id, p.name, c.side, c.clock_initial_ms, \
     c.clock_increment_ms, c.clock_days, c.rated, c.rating, c.provisional, c.min_rating, \
     c.max_rating, \
     c.created_at FROM challenges c JOIN players p ON p.id = c.player_id";

fn challenge_of(row: &impl RowLike) -> Result<ChallengeRow, StorageError> {
    Ok(ChallengeRow {
        id: row.text("id")?,
        player: row.text("player_id")?,
        name: row.maybe_text("name")?,
        side: row.text("side")?,
        clock: ClockColumns {
            initial_ms: row.maybe_number("clock_initial_ms")?,
            increment_ms: row.maybe_number("clock_increment_ms")?,
            days: row.maybe_number("clock_days")?,
        },
        rated: row.number("rated")? != 0,
        rating: row.number("rating")?,
        provisional: row.number("provisional")? != 0,
        min_rating: row.maybe_number("min_rating")?,
        max_rating: row.maybe_number("max_rating")?,
        created_at: row.number("created_at")?,
    })
}

impl Storage {
    /// Stores an open challenge, unless its maker has
    /// [`MAX_CHALLENGES_PER_PLAYER`] already (`false`).
    pub async fn create_challenge(&self, c: &ChallengeRow) -> Result<bool, StorageError> {
        let now = now_millis();
        on_pool!(&self.pool, pool => {
            let mut tx = pool.begin_write().await?;
            let open: i64 =
                sqlx::query_scalar("SELECT COUNT(*) FROM challenges WHERE player_id = $1")
                    .bind(&c.player)
                    .fetch_one(&mut *tx)
                    .await?;
            if open >= MAX_CHALLENGES_PER_PLAYER {
                return Ok(false);
            }
            sqlx::query(
                "INSERT INTO challenges (id, player_id, side, clock_initial_ms, \
                 clock_increment_ms, clock_days, rated, rating, provisional, min_rating, \
                 max_rating, created_at, seen_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12)",
            )
            .bind(&c.id)
            .bind(&c.player)
            .bind(&c.side)
            .bind(c.clock.initial_ms)
            .bind(c.clock.increment_ms)
            .bind(c.clock.days)
            .bind(i64::from(c.rated))
            .bind(c.rating)
            .bind(i64::from(c.provisional))
            .bind(c.min_rating)
            .bind(c.max_rating)
            .bind(now)
            .execute(&mut *tx)
            .await?;
            tx.commit().await?;
            Ok(true)
        })
    }

    /// The open challenges, newest first, at most `limit`.
    pub async fn open_challenges(&self, limit: i64) -> Result<Vec<ChallengeRow>, StorageError> {
        let query = format!("{CHALLENGE_COLUMNS} ORDER BY c.created_at DESC LIMIT $1");
        on_pool!(&self.pool, pool => {
            sqlx::query(&query)
                .bind(limit)
                .fetch_all(pool)
                .await?
                .iter()
                .map(challenge_of)
                .collect()
        })
    }

    /// An open challenge.
    pub async fn challenge(&self, id: &str) -> Result<Option<ChallengeRow>, StorageError> {
        let query = format!("{CHALLENGE_COLUMNS} WHERE c.id = $1");
        on_pool!(&self.pool, pool => {
            sqlx::query(&query)
                .bind(id)
                .fetch_optional(pool)
                .await?
                .map(|row| challenge_of(&row))
                .transpose()
        })
    }

    /// Withdraws `player`'s challenge `id`; `false` when there was none.
    pub async fn withdraw_challenge(&self, id: &str, player: &str) -> Result<bool, StorageError> {
        let done = on_pool!(&self.pool, pool => {
            sqlx::query("DELETE FROM challenges WHERE id = $1 AND player_id = $2")
                .bind(id)
                .bind(player)
                .execute(pool)
                .await?
                .rows_affected()
        });
        Ok(done == 1)
    }

    /// Puts `player` in a pool (out of any other: one pool at a time).
    pub async fn join_pool(&self, entry: &PoolEntry) -> Result<(), StorageError> {
        let now = now_millis();
        on_pool!(&self.pool, pool => {
            sqlx::query(
                "INSERT INTO pool_entries (player_id, pool, rated, rating, last_side, joined_at, \
                 seen_at) VALUES ($1, $2, $3, $4, $5, $6, $6) ON CONFLICT (player_id) DO UPDATE \
                 SET pool = excluded.pool, rated = excluded.rated, rating = excluded.rating, \
                 last_side = excluded.last_side, joined_at = excluded.joined_at, \
                 seen_at = excluded.seen_at",
            )
            .bind(&entry.player)
            .bind(&entry.pool)
            .bind(i64::from(entry.rated))
            .bind(entry.rating)
            .bind(entry.last_side.as_deref())
            .bind(now)
            .execute(pool)
            .await?;
        });
        Ok(())
    }

    /// Takes `player` out of pool `pool`; `false` when they were not in it.
    pub async fn leave_pool(&self, player: &str, pool_id: &str) -> Result<bool, StorageError> {
        let done = on_pool!(&self.pool, pool => {
            sqlx::query("DELETE FROM pool_entries WHERE player_id = $1 AND pool = $2")
                .bind(player)
                .bind(pool_id)
                .execute(pool)
                .await?
                .rows_affected()
        });
        Ok(done == 1)
    }

    /// `player` left the lobby: their challenges and pool place go.
    pub async fn leave_lobby(&self, player: &str) -> Result<(), StorageError> {
        on_pool!(&self.pool, pool => {
            let mut tx = pool.begin_write().await?;
            for statement in [
                "DELETE FROM challenges WHERE player_id = $1",
                "DELETE FROM pool_entries WHERE player_id = $1",
            ] {
                sqlx::query(statement).bind(player).execute(&mut *tx).await?;
            }
            tx.commit().await?;
        });
        Ok(())
    }

    /// The players waiting in `pool_id`, longest waiting first, with their
    /// aborted lobby games.
    pub async fn pool_entries(&self, pool_id: &str) -> Result<Vec<PoolEntry>, StorageError> {
        on_pool!(&self.pool, pool => {
            let rows = sqlx::query(
                "SELECT e.player_id, e.pool, e.rated, e.rating, e.last_side, e.joined_at, \
                 p.aborts FROM pool_entries e JOIN players p ON p.id = e.player_id \
                 WHERE e.pool = $1 ORDER BY e.joined_at",
            )
            .bind(pool_id)
            .fetch_all(pool)
            .await?;
            rows.iter()
                .map(|row| -> Result<PoolEntry, StorageError> {
                    Ok(PoolEntry {
                        player: row.try_get("player_id")?,
                        pool: row.try_get("pool")?,
                        rated: row.try_get::<i64, _>("rated")? != 0,
                        rating: row.try_get("rating")?,
                        last_side: row.try_get("last_side")?,
                        aborts: row.try_get("aborts")?,
                        joined_at: row.try_get("joined_at")?,
                    })
                })
                .collect()
        })
    }

    /// How many wait in each pool that has anyone.
    pub async fn pool_counts(&self) -> Result<Vec<(String, i64)>, StorageError> {
        let counts = on_pool!(&self.pool, pool => {
            sqlx::query_as("SELECT pool, COUNT(*) FROM pool_entries GROUP BY pool")
                .fetch_all(pool)
                .await?
        });
        Ok(counts)
    }

    /// Players seen in the lobby since `since` (ms), and games in
    /// progress between people.
    pub async fn lobby_counts(&self, since: i64) -> Result<(i64, i64), StorageError> {
        on_pool!(&self.pool, pool => {
            let online: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM players WHERE seen_at >= $1")
                .bind(since)
                .fetch_one(pool)
                .await?;
            let games: i64 = sqlx::query_scalar(
                "SELECT COUNT(*) FROM tables WHERE active = 1 AND opponent = 'friend' \
                 AND (lobby = 1 OR guest_secret IS NOT NULL)",
            )
            .fetch_one(pool)
            .await?;
            Ok((online, games))
        })
    }

    /// Marks `players` present in the lobby now: them, their challenges
    /// and their pool places.
    pub async fn refresh_lobby(&self, players: &[String]) -> Result<(), StorageError> {
        if players.is_empty() {
            return Ok(());
        }
        let now = now_millis();
        on_pool!(&self.pool, pool => {
            let mut tx = pool.begin_write().await?;
            for table in ["players", "challenges", "pool_entries"] {
                let column = if table == "players" { "id" } else { "player_id" };
                let mut query =
                    sqlx::QueryBuilder::new(format!("UPDATE {table} SET seen_at = "));
                query.push_bind(now).push(format!(" WHERE {column} IN ("));
                let mut list = query.separated(", ");
                for player in players {
                    list.push_bind(player.as_str());
                }
                list.push_unseparated(")");
                query.build().execute(&mut *tx).await?;
            }
            tx.commit().await?;
        });
        Ok(())
    }

    /// Drops the challenges and pool places not refreshed since `before`
    /// (ms): their makers left without saying so (a node died).
    pub async fn sweep_lobby(&self, before: i64) -> Result<u64, StorageError> {
        let dropped = on_pool!(&self.pool, pool => {
            let mut dropped = 0;
            for statement in [
                "DELETE FROM challenges WHERE seen_at < $1",
                "DELETE FROM pool_entries WHERE seen_at < $1",
            ] {
                dropped += sqlx::query(statement)
                    .bind(before)
                    .execute(pool)
                    .await?
                    .rows_affected();
            }
            dropped
        });
        Ok(dropped)
    }

    /// The lobby table each of `players` is in, for those in one.
    pub async fn lobby_tables(
        &self,
        players: &[String],
    ) -> Result<Vec<(String, String)>, StorageError> {
        if players.is_empty() {
            return Ok(Vec::new());
        }
        let found = on_pool!(&self.pool, pool => {
            let mut query = sqlx::QueryBuilder::new(
                "SELECT id, lobby_table FROM players WHERE lobby_table IS NOT NULL AND id IN (",
            );
            let mut list = query.separated(", ");
            for player in players {
                list.push_bind(player.as_str());
            }
            list.push_unseparated(")");
            query.build_query_as().fetch_all(pool).await?
        });
        Ok(found)
    }

    /// The side `player` had in their last finished game with another
    /// player, if any.
    pub async fn last_side(&self, player: &str) -> Result<Option<String>, StorageError> {
        let row: Option<(String, String)> = on_pool!(&self.pool, pool => {
            sqlx::query_as(
                "SELECT host_side, CASE WHEN host_player = $1 THEN 'host' ELSE 'guest' END \
                 FROM games WHERE host_player = $1 OR guest_player = $1 \
                 ORDER BY ended_at DESC LIMIT 1",
            )
            .bind(player)
            .fetch_optional(pool)
            .await?
        });
        Ok(row.map(|(host_side, seat)| {
            let host_goats = host_side == "goats";
            let goats = (seat == "host") == host_goats;
            if goats { "goats" } else { "tigers" }.to_owned()
        }))
    }

    /// Seats `players` (host first) at `table` in one transaction that
    /// consumes what paired them (a challenge, or both pool entries),
    /// checks that neither blocks the other, marks both players in a lobby
    /// game (only where neither is), drops their other challenges and pool
    /// places and stores the table. Any step that finds the world changed
    /// undoes it all.
    pub async fn pair(
        &self,
        table: &TableRow,
        players: [&str; 2],
        consumes: &Consumes,
    ) -> Result<Pairing, StorageError> {
        on_pool!(&self.pool, pool => {
            let mut tx = pool.begin_write().await?;
            let consumed = match consumes {
                Consumes::Challenge(id) => {
                    sqlx::query("DELETE FROM challenges WHERE id = $1")
                        .bind(id)
                        .execute(&mut *tx)
                        .await?
                        .rows_affected()
                        == 1
                }
                Consumes::Pool { pool } => {
                    sqlx::query(
                        "DELETE FROM pool_entries WHERE pool = $1 AND player_id IN ($2, $3)",
                    )
                    .bind(pool)
                    .bind(players[0])
                    .bind(players[1])
                    .execute(&mut *tx)
                    .await?
                    .rows_affected()
                        == 2
                }
            };
            if !consumed {
                return Ok(Pairing::Taken);
            }
            let blocked: i64 = sqlx::query_scalar(
                "SELECT COUNT(*) FROM blocks WHERE (blocker_id = $1 AND blocked_id = $2) \
                 OR (blocker_id = $2 AND blocked_id = $1)",
            )
            .bind(players[0])
            .bind(players[1])
            .fetch_one(&mut *tx)
            .await?;
            if blocked > 0 {
                return Ok(Pairing::Blocked);
            }
            // One player at a time, in the order of their ids: two
            // pairings that share a player lock in the same order.
            let mut ordered = players;
            ordered.sort_unstable();
            for player in ordered {
                let free = sqlx::query(
                    "UPDATE players SET lobby_table = $1 WHERE id = $2 AND lobby_table IS NULL",
                )
                .bind(&table.id)
                .bind(player)
                .execute(&mut *tx)
                .await?
                .rows_affected()
                    == 1;
                if !free {
                    return Ok(Pairing::Busy);
                }
            }
            for statement in [
                "DELETE FROM challenges WHERE player_id IN ($1, $2)",
                "DELETE FROM pool_entries WHERE player_id IN ($1, $2)",
            ] {
                sqlx::query(statement)
                    .bind(players[0])
                    .bind(players[1])
                    .execute(&mut *tx)
                    .await?;
            }
            insert_table(&mut *tx, table).await?;
            tx.commit().await?;
            Ok(Pairing::Paired)
        })
    }
}

/// A lobby table in progress, with its players' names.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct LiveTable {
    /// The table's row.
    pub table: String,
    /// The host's side in the first game: `goats` or `tigers`.
    pub host_side: String,
    /// The time control's columns.
    pub clock: ClockColumns,
    /// Rated.
    pub rated: bool,
    /// The host's and the guest's ids and names.
    pub players: [(String, Option<String>); 2],
}

impl Storage {
    /// The lobby tables in progress, newest first, at most `limit`.
    pub async fn live_tables(&self, limit: i64) -> Result<Vec<LiveTable>, StorageError> {
        on_pool!(&self.pool, pool => {
            let rows = sqlx::query(
                "SELECT t.id, t.host_side, t.clock_initial_ms, t.clock_increment_ms, t.clock_days, \
                 t.rated, t.host_player, h.name AS host_name, t.guest_player, \
                 g.name AS guest_name FROM tables t \
                 JOIN players h ON h.id = t.host_player JOIN players g ON g.id = t.guest_player \
                 WHERE t.lobby = 1 AND t.active = 1 ORDER BY t.created_at DESC LIMIT $1",
            )
            .bind(limit)
            .fetch_all(pool)
            .await?;
            rows.iter()
                .map(|row| -> Result<LiveTable, StorageError> {
                    Ok(LiveTable {
                        table: row.text("id")?,
                        host_side: row.text("host_side")?,
                        clock: ClockColumns {
                            initial_ms: row.maybe_number("clock_initial_ms")?,
                            increment_ms: row.maybe_number("clock_increment_ms")?,
                            days: row.maybe_number("clock_days")?,
                        },
                        rated: row.number("rated")? != 0,
                        players: [
                            (row.text("host_player")?, row.maybe_text("host_name")?),
                            (row.text("guest_player")?, row.maybe_text("guest_name")?),
                        ],
                    })
                })
                .collect()
        })
    }
}
