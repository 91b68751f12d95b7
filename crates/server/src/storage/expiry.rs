//! Tables nobody played at, and games nobody plays on: after a while they
//! are no longer kept active, so that a start does not load them again
//! and no node takes them over.

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

    /// Marks inactive every active table whose last stored event is older
    /// than `idle`, or `idle_correspondence` at a correspondence table
    /// (days per action), bots tables apart; returns how many. Its game
    /// stays as it stands: a player who comes back loads it (a clock that
    /// ran out then falls), and their next action makes it active again.
    pub async fn expire_idle(
        &self,
        idle: Duration,
        idle_correspondence: Duration,
    ) -> Result<u64, StorageError> {
        let cutoff = |age: Duration| {
            now_millis().saturating_sub(i64::try_from(age.as_millis()).unwrap_or(i64::MAX))
        };
        let expired = on_pool!(&self.pool, pool => {
            sqlx::query(
                "UPDATE tables SET active = 0 \
                 WHERE active = 1 AND opponent <> 'bots' \
                 AND (SELECT MAX(events.created_at) FROM events WHERE events.table_id = tables.id) \
                     < CASE WHEN clock_days IS NULL THEN $1 ELSE $2 END",
            )
            .bind(cutoff(idle))
            .bind(cutoff(idle_correspondence))
            .execute(pool)
            .await?
            .rows_affected()
        });
        Ok(expired)
    }
}
