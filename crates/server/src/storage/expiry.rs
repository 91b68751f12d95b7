//! Tables nobody played at, and games nobody plays on: after a while the
//! first are no longer kept active, so that a start does not load them
//! again and no node takes them over; the second are found, so that their
//! tables load and end them as abandoned.

use std::time::Duration;

use super::{now_millis, Pool, Storage, StorageError};

impl Storage {
    /// Marks inactive every active table created more than `age` ago at
    /// which no player has acted (no stored event names a player), bots
    /// tables apart; returns how many. Such a table is still there: a
    /// player who comes back loads it, and its first action makes it
    /// active again.
    pub async fn expire_unplayed(&self, age: Duration) -> Result<u64, StorageError> {
        let age = i64::try_from(age.as_millis()).unwrap_or(i64::MAX);
        let cutoff = now_millis().saturating_sub(age);
        self.folded(None).await?;
        let expired = on_pool!(&self.pool, pool => {
            sqlx::query(
                "UPDATE tables SET active = 0 \
                 WHERE active = 1 AND opponent <> 'bots' AND created_at < $1 \
                 AND NOT EXISTS (SELECT 1 FROM events \
                                 WHERE events.table_id = tables.id AND events.player IS NOT NULL)",
            )
            .bind(cutoff)
            .execute(pool)
            .await?
            .rows_affected()
        });
        Ok(expired)
    }

    /// Up to `limit` active tables, bots tables apart, whose last stored
    /// event is older than `idle`, or `idle_correspondence` at a
    /// correspondence table (days per action), at `now` (milliseconds
    /// since the epoch): those whose game may have been abandoned
    /// (`baghchal_table::abandon`). Loading one ends its game.
    pub async fn idle_tables(
        &self,
        now: i64,
        idle: Duration,
        idle_correspondence: Duration,
        limit: usize,
    ) -> Result<Vec<String>, StorageError> {
        let cutoff =
            |age: Duration| now.saturating_sub(i64::try_from(age.as_millis()).unwrap_or(i64::MAX));
        self.folded(None).await?;
        let ids = on_pool!(&self.pool, pool => {
            sqlx::query_scalar(
                "SELECT id FROM tables \
                 WHERE active = 1 AND opponent <> 'bots' \
                 AND (SELECT MAX(events.created_at) FROM events WHERE events.table_id = tables.id) \
                     < CASE WHEN clock_days IS NULL THEN $1 ELSE $2 END \
                 ORDER BY created_at LIMIT $3",
            )
            .bind(cutoff(idle))
            .bind(cutoff(idle_correspondence))
            .bind(i64::try_from(limit).unwrap_or(i64::MAX))
            .fetch_all(pool)
            .await?
        });
        Ok(ids)
    }
}
