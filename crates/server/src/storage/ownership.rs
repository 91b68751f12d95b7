//! Ownership of tables in a cluster (PostgreSQL only): leases taken,
//! renewed and released under an epoch, and what a node finds to take
//! over.

use std::time::Duration;

use super::{Ownership, Pool, Storage, StorageError};

impl Storage {
    /// Takes the lease of `table` for `node` if nobody else holds a live
    /// one, raising its epoch (which fences every earlier owner, this node's
    /// earlier tenure included); `None` when another node holds it (or there
    /// is no such table). The database's clock decides.
    pub async fn acquire(
        &self,
        table: &str,
        node: &str,
        lease: Duration,
    ) -> Result<Option<u64>, StorageError> {
        let epoch: Option<i64> = sqlx::query_scalar(
            "UPDATE tables SET owner = $1, epoch = epoch + 1, \
             lease_until = now() + make_interval(secs => $2) \
             WHERE id = $3 \
             AND (owner IS NULL OR owner = $1 OR lease_until IS NULL OR lease_until < now()) \
             RETURNING epoch",
        )
        .bind(node)
        .bind(lease.as_secs_f64())
        .bind(table)
        .fetch_optional(self.postgres()?)
        .await?;
        Ok(epoch.and_then(|e| u64::try_from(e).ok()))
    }

    /// Renews the leases `node` still holds of `tables` and returns those
    /// tables with their epochs; a table missing from the answer is no
    /// longer ours (its lease ran out, or another node took it).
    pub async fn renew(
        &self,
        node: &str,
        lease: Duration,
        tables: &[String],
    ) -> Result<Vec<(String, u64)>, StorageError> {
        let rows: Vec<(String, i64)> = sqlx::query_as(
            "UPDATE tables SET lease_until = now() + make_interval(secs => $2) \
             WHERE id IN (SELECT id FROM tables WHERE owner = $1 AND id = ANY($3) \
             AND lease_until >= now() ORDER BY id FOR UPDATE) RETURNING id, epoch",
        )
        .bind(node)
        .bind(lease.as_secs_f64())
        .bind(tables)
        .fetch_all(self.postgres()?)
        .await?;
        Ok(rows
            .into_iter()
            .filter_map(|(id, epoch)| Some((id, u64::try_from(epoch).ok()?)))
            .collect())
    }

    /// Gives up the lease of `table` at `epoch`, so that another node can
    /// take it at once.
    pub async fn release(&self, table: &str, epoch: u64) -> Result<(), StorageError> {
        sqlx::query(
            "UPDATE tables SET owner = NULL, lease_until = NULL WHERE id = $1 AND epoch = $2",
        )
        .bind(table)
        .bind(i64::try_from(epoch).unwrap_or(i64::MAX))
        .execute(self.postgres()?)
        .await?;
        Ok(())
    }

    /// Gives up every lease `node` holds.
    pub async fn release_all(&self, node: &str) -> Result<(), StorageError> {
        sqlx::query("UPDATE tables SET owner = NULL, lease_until = NULL WHERE owner = $1")
            .bind(node)
            .execute(self.postgres()?)
            .await?;
        Ok(())
    }

    /// Who owns `table`: `None` if there is no such table, else the owner
    /// and how long its lease still runs (zero when it has run out).
    pub async fn owner(&self, table: &str) -> Result<Option<Ownership>, StorageError> {
        let row: Option<(Option<String>, Option<f64>)> = sqlx::query_as(
            "SELECT owner, EXTRACT(EPOCH FROM (lease_until - now()))::float8 \
             FROM tables WHERE id = $1",
        )
        .bind(table)
        .fetch_optional(self.postgres()?)
        .await?;
        Ok(row.map(|(owner, remaining)| Ownership {
            owner,
            remaining: Duration::from_secs_f64(remaining.unwrap_or(0.0).clamp(0.0, 3600.0)),
        }))
    }

    /// Up to `limit` active tables whose lease has run out or that have no
    /// owner: the tables a node should take over.
    pub async fn orphans(&self, limit: usize) -> Result<Vec<String>, StorageError> {
        let ids = sqlx::query_scalar(
            "SELECT id FROM tables WHERE active = 1 \
             AND (owner IS NULL OR lease_until IS NULL OR lease_until < now()) \
             ORDER BY created_at LIMIT $1",
        )
        .bind(i64::try_from(limit).unwrap_or(i64::MAX))
        .fetch_all(self.postgres()?)
        .await?;
        Ok(ids)
    }

    /// Every event of `table` with the epoch that wrote it, oldest first:
    /// for checking that a log is one line.
    pub async fn event_epochs(&self, table: &str) -> Result<Vec<(u64, u64)>, StorageError> {
        let rows: Vec<(i64, i64)> = sqlx::query_as(
            "SELECT version, epoch FROM events WHERE table_id = $1 ORDER BY version",
        )
        .bind(table)
        .fetch_all(self.postgres()?)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(v, e)| (v.max(0) as u64, e.max(0) as u64))
            .collect())
    }

    /// The ids of the tables to resume at start-up.
    pub async fn active_tables(&self) -> Result<Vec<String>, StorageError> {
        let ids = on_pool!(&self.pool, pool => {
            sqlx::query_scalar("SELECT id FROM tables WHERE active = 1 ORDER BY created_at")
                .fetch_all(pool)
                .await?
        });
        Ok(ids)
    }
}
