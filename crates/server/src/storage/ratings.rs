//! Ratings as stored: one Glicko-2 rating per player and speed class.

use sqlx::Row;

use super::{Pool, Storage, StorageError};

/// A player's rating in one speed class.
#[derive(Clone, PartialEq, Debug)]
pub struct StoredRating {
    /// The speed class's name.
    pub speed: String,
    /// The rating.
    pub rating: f64,
    /// Its deviation.
    pub deviation: f64,
    /// Its volatility.
    pub volatility: f64,
    /// Rated games played in the class.
    pub games: i64,
    /// When it last changed, in milliseconds since the epoch.
    pub rated_at: i64,
}

impl StoredRating {
    /// As players read it.
    pub fn to_wire(&self) -> baghchal_protocol::RatingView {
        let round = |x: f64| x.round().clamp(0.0, f64::from(u32::MAX)) as u32;
        baghchal_protocol::RatingView {
            speed: self.speed.clone(),
            rating: round(self.rating),
            deviation: round(self.deviation),
            provisional: self.deviation >= baghchal_rating::PROVISIONAL_DEVIATION,
            games: u32::try_from(self.games).unwrap_or(u32::MAX),
        }
    }
}

impl Storage {
    /// `player`'s ratings, by speed class.
    pub async fn ratings(&self, player: &str) -> Result<Vec<StoredRating>, StorageError> {
        on_pool!(&self.pool, pool => {
            let rows = sqlx::query(
                "SELECT speed, rating, deviation, volatility, games, rated_at FROM ratings \
                 WHERE player_id = $1 ORDER BY speed",
            )
            .bind(player)
            .fetch_all(pool)
            .await?;
            rows.iter()
                .map(|row| -> Result<StoredRating, StorageError> {
                    Ok(StoredRating {
                        speed: row.try_get("speed")?,
                        rating: row.try_get("rating")?,
                        deviation: row.try_get("deviation")?,
                        volatility: row.try_get("volatility")?,
                        games: row.try_get("games")?,
                        rated_at: row.try_get("rated_at")?,
                    })
                })
                .collect()
        })
    }
}
