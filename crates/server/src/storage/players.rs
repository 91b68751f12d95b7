//! Players and their sessions: the anonymous player every browser gets,
//! accounts (a name and a password hash), and what a player is playing.

use sqlx::Row;

use super::{now_millis, BeginWrite, Pool, Storage, StorageError};
use crate::token::TokenHash;

/// A session's player.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct PlayerRow {
    /// The player's id.
    pub id: String,
    /// The account's name; `None` while anonymous (and once closed).
    pub name: Option<String>,
    /// When the player first came, in milliseconds since the epoch.
    pub created_at: i64,
    /// Whether the account was closed.
    pub closed: bool,
}

/// An account's credentials, as stored.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Credentials {
    /// The account's player id.
    pub player: String,
    /// Its password hash, a PHC string.
    pub password_hash: String,
}

/// Why a name could not be taken.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Naming {
    /// The player now has the name.
    Named,
    /// Another player has it (without regard to case).
    Taken,
    /// The player already has a name, or was closed.
    NotAnonymous,
}

/// A table a player has a seat at whose game goes on.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Seat {
    /// The table id.
    pub table: String,
    /// Whether the lobby made it.
    pub lobby: bool,
    /// When it was created, in milliseconds since the epoch.
    pub created_at: i64,
}

/// How long a session's `seen_at` may lag before a visit refreshes it.
const SEEN_EVERY_MS: i64 = 3_600_000;

/// The most games in progress `playing` lists.
pub const MAX_PLAYING: i64 = 50;

fn is_unique_violation(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(db) if db.is_unique_violation())
}

impl Storage {
    /// Creates an anonymous player, `id`, with a session whose token hashes
    /// to `session`.
    pub async fn create_player(&self, id: &str, session: &TokenHash) -> Result<(), StorageError> {
        let now = now_millis();
        on_pool!(&self.pool, pool => {
            let mut tx = pool.begin_write().await?;
            sqlx::query("INSERT INTO players (id, created_at, seen_at) VALUES ($1, $2, $2)")
                .bind(id)
                .bind(now)
                .execute(&mut *tx)
                .await?;
            sqlx::query(
                "INSERT INTO sessions (token_hash, player_id, created_at, seen_at) \
                 VALUES ($1, $2, $3, $3)",
            )
            .bind(session.as_str())
            .bind(id)
            .bind(now)
            .execute(&mut *tx)
            .await?;
            tx.commit().await?;
        });
        Ok(())
    }

    /// The player of the session whose token hashes to `session`, if it is
    /// open. Marks the session seen (at most once an hour).
    pub async fn session_player(
        &self,
        session: &TokenHash,
    ) -> Result<Option<PlayerRow>, StorageError> {
        let now = now_millis();
        on_pool!(&self.pool, pool => {
            let Some(row) = sqlx::query(
                "SELECT p.id, p.name, p.created_at, p.closed_at, s.seen_at FROM sessions s \
                 JOIN players p ON p.id = s.player_id WHERE s.token_hash = $1",
            )
            .bind(session.as_str())
            .fetch_optional(pool)
            .await?
            else {
                return Ok(None);
            };
            let seen: i64 = row.try_get("seen_at")?;
            let player = PlayerRow {
                id: row.try_get("id")?,
                name: row.try_get("name")?,
                created_at: row.try_get("created_at")?,
                closed: row.try_get::<Option<i64>, _>("closed_at")?.is_some(),
            };
            if now - seen > SEEN_EVERY_MS {
                sqlx::query("UPDATE sessions SET seen_at = $1 WHERE token_hash = $2")
                    .bind(now)
                    .bind(session.as_str())
                    .execute(pool)
                    .await?;
                sqlx::query("UPDATE players SET seen_at = $1 WHERE id = $2")
                    .bind(now)
                    .bind(&player.id)
                    .execute(pool)
                    .await?;
            }
            Ok(Some(player))
        })
    }

    /// A player by id.
    pub async fn player(&self, id: &str) -> Result<Option<PlayerRow>, StorageError> {
        on_pool!(&self.pool, pool => {
            let row = sqlx::query("SELECT id, name, created_at, closed_at FROM players WHERE id = $1")
                .bind(id)
                .fetch_optional(pool)
                .await?;
            row.map(|row| -> Result<PlayerRow, StorageError> {
                Ok(PlayerRow {
                    id: row.try_get("id")?,
                    name: row.try_get("name")?,
                    created_at: row.try_get("created_at")?,
                    closed: row.try_get::<Option<i64>, _>("closed_at")?.is_some(),
                })
            })
            .transpose()
        })
    }

    /// The id of the account named `key` (a name in lower case), if any.
    pub async fn player_named(&self, key: &str) -> Result<Option<String>, StorageError> {
        let id = on_pool!(&self.pool, pool => {
            sqlx::query_scalar("SELECT id FROM players WHERE name_key = $1 AND closed_at IS NULL")
                .bind(key)
                .fetch_optional(pool)
                .await?
        });
        Ok(id)
    }

    /// Gives the anonymous player `id` a name and a password: it becomes an
    /// account, keeping everything it had.
    pub async fn name_player(
        &self,
        id: &str,
        name: &str,
        key: &str,
        password_hash: &str,
    ) -> Result<Naming, StorageError> {
        let updated = on_pool!(&self.pool, pool => {
            sqlx::query(
                "UPDATE players SET name = $1, name_key = $2, password_hash = $3 \
                 WHERE id = $4 AND name IS NULL AND closed_at IS NULL",
            )
            .bind(name)
            .bind(key)
            .bind(password_hash)
            .bind(id)
            .execute(pool)
            .await
            .map(|done| done.rows_affected())
        });
        match updated {
            Ok(1) => Ok(Naming::Named),
            Ok(_) => Ok(Naming::NotAnonymous),
            Err(e) if is_unique_violation(&e) => Ok(Naming::Taken),
            Err(e) => Err(e.into()),
        }
    }

    /// The credentials of the open account named `key` (lower case).
    pub async fn credentials(&self, key: &str) -> Result<Option<Credentials>, StorageError> {
        on_pool!(&self.pool, pool => {
            let row = sqlx::query(
                "SELECT id, password_hash FROM players \
                 WHERE name_key = $1 AND closed_at IS NULL AND password_hash IS NOT NULL",
            )
            .bind(key)
            .fetch_optional(pool)
            .await?;
            row.map(|row| -> Result<Credentials, StorageError> {
                Ok(Credentials {
                    player: row.try_get("id")?,
                    password_hash: row.try_get("password_hash")?,
                })
            })
            .transpose()
        })
    }

    /// The password hash of the open account `id`.
    pub async fn password_hash(&self, id: &str) -> Result<Option<String>, StorageError> {
        let hash = on_pool!(&self.pool, pool => {
            sqlx::query_scalar(
                "SELECT password_hash FROM players WHERE id = $1 AND closed_at IS NULL",
            )
            .bind(id)
            .fetch_optional(pool)
            .await?
        });
        Ok(hash.flatten())
    }

    /// Opens a session of `player` whose token hashes to `session`.
    pub async fn open_session(
        &self,
        player: &str,
        session: &TokenHash,
    ) -> Result<(), StorageError> {
        let now = now_millis();
        on_pool!(&self.pool, pool => {
            sqlx::query(
                "INSERT INTO sessions (token_hash, player_id, created_at, seen_at) \
                 VALUES ($1, $2, $3, $3)",
            )
            .bind(session.as_str())
            .bind(player)
            .bind(now)
            .execute(pool)
            .await?;
        });
        Ok(())
    }

    /// Closes the session whose token hashes to `session`.
    pub async fn close_session(&self, session: &TokenHash) -> Result<(), StorageError> {
        on_pool!(&self.pool, pool => {
            sqlx::query("DELETE FROM sessions WHERE token_hash = $1")
                .bind(session.as_str())
                .execute(pool)
                .await?;
        });
        Ok(())
    }

    /// Sets the password of account `id`, and closes its sessions but
    /// `keep` (the one that changed it).
    pub async fn set_password(
        &self,
        id: &str,
        password_hash: &str,
        keep: &TokenHash,
    ) -> Result<(), StorageError> {
        on_pool!(&self.pool, pool => {
            let mut tx = pool.begin_write().await?;
            sqlx::query("UPDATE players SET password_hash = $1 WHERE id = $2")
                .bind(password_hash)
                .bind(id)
                .execute(&mut *tx)
                .await?;
            sqlx::query("DELETE FROM sessions WHERE player_id = $1 AND token_hash <> $2")
                .bind(id)
                .bind(keep.as_str())
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
        });
        Ok(())
    }

    /// Closes account `id`: its name and password are forgotten (the name
    /// stays reserved), its sessions closed, its challenges and pool place
    /// dropped; its games stay, under its id.
    pub async fn close_account(&self, id: &str) -> Result<(), StorageError> {
        let now = now_millis();
        on_pool!(&self.pool, pool => {
            let mut tx = pool.begin_write().await?;
            sqlx::query(
                "UPDATE players SET name = NULL, password_hash = NULL, closed_at = $1 WHERE id = $2",
            )
            .bind(now)
            .bind(id)
            .execute(&mut *tx)
            .await?;
            for statement in [
                "DELETE FROM sessions WHERE player_id = $1",
                "DELETE FROM challenges WHERE player_id = $1",
                "DELETE FROM pool_entries WHERE player_id = $1",
            ] {
                sqlx::query(statement).bind(id).execute(&mut *tx).await?;
            }
            tx.commit().await?;
        });
        Ok(())
    }

    /// The tables where `player` has a seat and a game goes on, newest
    /// first, at most [`MAX_PLAYING`].
    pub async fn playing(&self, player: &str) -> Result<Vec<Seat>, StorageError> {
        on_pool!(&self.pool, pool => {
            let rows = sqlx::query(
                "SELECT id, lobby, created_at FROM tables WHERE active = 1 AND opponent <> 'bots' \
                 AND (host_player = $1 OR guest_player = $1) ORDER BY created_at DESC LIMIT $2",
            )
            .bind(player)
            .bind(MAX_PLAYING)
            .fetch_all(pool)
            .await?;
            rows.iter()
                .map(|row| -> Result<Seat, StorageError> {
                    Ok(Seat {
                        table: row.try_get("id")?,
                        lobby: row.try_get::<i64, _>("lobby")? != 0,
                        created_at: row.try_get("created_at")?,
                    })
                })
                .collect()
        })
    }
}
