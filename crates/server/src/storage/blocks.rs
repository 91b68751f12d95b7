//! Blocks between players: who blocks whom, bounded per player, and the
//! reads the lobby filters its pairings and its challenges with.

use sqlx::Row;

use super::{now_millis, BeginWrite, Pool, Storage, StorageError};

/// The most players one player may block.
pub const MAX_BLOCKS: i64 = 500;

/// Players bound in one statement of [`Storage::blocks_among`] (twice,
/// with the makers: well under SQLite's 32,766 variables).
const PLAYERS_PER_STATEMENT: usize = 4_000;

/// A player someone blocks.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct BlockedRow {
    /// The player blocked.
    pub id: String,
    /// Their name, if they have an open account.
    pub name: Option<String>,
}

/// How adding a block went.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Blocking {
    /// The block is stored (or was already).
    Blocked,
    /// No such player.
    Unknown,
    /// The blocker has [`MAX_BLOCKS`] already.
    Full,
}

impl Storage {
    /// `blocker` blocks `blocked`. Adding a block that exists changes
    /// nothing and answers [`Blocking::Blocked`].
    pub async fn block(&self, blocker: &str, blocked: &str) -> Result<Blocking, StorageError> {
        let now = now_millis();
        on_pool!(&self.pool, pool => {
            let mut tx = pool.begin_write().await?;
            // The blocker's row is locked first: two blocks added at once
            // by one player are counted one after the other.
            let locked = sqlx::query("UPDATE players SET seen_at = seen_at WHERE id = $1")
                .bind(blocker)
                .execute(&mut *tx)
                .await?
                .rows_affected();
            let exists: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM players WHERE id = $1")
                .bind(blocked)
                .fetch_one(&mut *tx)
                .await?;
            if locked != 1 || exists != 1 {
                return Ok(Blocking::Unknown);
            }
            let already: i64 = sqlx::query_scalar(
                "SELECT COUNT(*) FROM blocks WHERE blocker_id = $1 AND blocked_id = $2",
            )
            .bind(blocker)
            .bind(blocked)
            .fetch_one(&mut *tx)
            .await?;
            if already == 1 {
                return Ok(Blocking::Blocked);
            }
            let count: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM blocks WHERE blocker_id = $1")
                .bind(blocker)
                .fetch_one(&mut *tx)
                .await?;
            if count >= MAX_BLOCKS {
                return Ok(Blocking::Full);
            }
            sqlx::query(
                "INSERT INTO blocks (blocker_id, blocked_id, created_at) VALUES ($1, $2, $3)",
            )
            .bind(blocker)
            .bind(blocked)
            .bind(now)
            .execute(&mut *tx)
            .await?;
            tx.commit().await?;
            Ok(Blocking::Blocked)
        })
    }

    /// `blocker` no longer blocks `blocked`; `false` when they did not.
    pub async fn unblock(&self, blocker: &str, blocked: &str) -> Result<bool, StorageError> {
        let done = on_pool!(&self.pool, pool => {
            sqlx::query("DELETE FROM blocks WHERE blocker_id = $1 AND blocked_id = $2")
                .bind(blocker)
                .bind(blocked)
                .execute(pool)
                .await?
                .rows_affected()
        });
        Ok(done == 1)
    }

    /// The players `blocker` blocks, the latest first (at most
    /// [`MAX_BLOCKS`]).
    pub async fn blocked_by(&self, blocker: &str) -> Result<Vec<BlockedRow>, StorageError> {
        on_pool!(&self.pool, pool => {
            let rows = sqlx::query(
                "SELECT b.blocked_id, CASE WHEN p.closed_at IS NULL THEN p.name END AS name \
                 FROM blocks b JOIN players p ON p.id = b.blocked_id \
                 WHERE b.blocker_id = $1 ORDER BY b.created_at DESC, b.blocked_id LIMIT $2",
            )
            .bind(blocker)
            .bind(MAX_BLOCKS)
            .fetch_all(pool)
            .await?;
            rows.iter()
                .map(|row| -> Result<BlockedRow, StorageError> {
                    Ok(BlockedRow {
                        id: row.try_get("blocked_id")?,
                        name: row.try_get("name")?,
                    })
                })
                .collect()
        })
    }

    /// Whether either of two players blocks the other.
    pub async fn blocked_between(&self, a: &str, b: &str) -> Result<bool, StorageError> {
        let found: i64 = on_pool!(&self.pool, pool => {
            sqlx::query_scalar(
                "SELECT COUNT(*) FROM blocks WHERE (blocker_id = $1 AND blocked_id = $2) \
                 OR (blocker_id = $2 AND blocked_id = $1)",
            )
            .bind(a)
            .bind(b)
            .fetch_one(pool)
            .await?
        });
        Ok(found > 0)
    }

    /// The blocks between two players who both wait in pool `pool_id`, as
    /// (blocker, blocked).
    pub async fn blocks_in_pool(
        &self,
        pool_id: &str,
    ) -> Result<Vec<(String, String)>, StorageError> {
        let found = on_pool!(&self.pool, pool => {
            sqlx::query_as(
                "SELECT b.blocker_id, b.blocked_id FROM blocks b \
                 JOIN pool_entries x ON x.player_id = b.blocker_id \
                 JOIN pool_entries y ON y.player_id = b.blocked_id \
                 WHERE x.pool = $1 AND y.pool = $1",
            )
            .bind(pool_id)
            .fetch_all(pool)
            .await?
        });
        Ok(found)
    }

    /// The blocks, either way, between one of `makers` and one of
    /// `players`, as (blocker, blocked). The players go in slices, so that
    /// no statement binds more than SQLite takes.
    pub async fn blocks_among(
        &self,
        makers: &[String],
        players: &[String],
    ) -> Result<Vec<(String, String)>, StorageError> {
        let mut found = Vec::new();
        if makers.is_empty() {
            return Ok(found);
        }
        for slice in players.chunks(PLAYERS_PER_STATEMENT) {
            let mut part: Vec<(String, String)> = on_pool!(&self.pool, pool => {
                let mut query =
                    sqlx::QueryBuilder::new("SELECT blocker_id, blocked_id FROM blocks WHERE ");
                for (k, (left, right)) in [(makers, slice), (slice, makers)].into_iter().enumerate()
                {
                    if k > 0 {
                        query.push(" OR ");
                    }
                    query.push("(blocker_id IN (");
                    let mut list = query.separated(", ");
                    for id in left {
                        list.push_bind(id.as_str());
                    }
                    list.push_unseparated(") AND blocked_id IN (");
                    let mut list = query.separated(", ");
                    for id in right {
                        list.push_bind(id.as_str());
                    }
                    list.push_unseparated("))");
                }
                query.build_query_as().fetch_all(pool).await?
            });
            found.append(&mut part);
        }
        Ok(found)
    }
}
