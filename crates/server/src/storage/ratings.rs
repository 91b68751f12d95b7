//! Ratings as stored: one Glicko-2 rating per player and speed class.

use super::{Pool, Storage, StorageError};

/// A player's rating in one speed class.
#[derive(Clone, PartialEq, Debug, sqlx::FromRow)]
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
        let ratings = on_pool!(&self.pool, pool => {
            sqlx::query_as(&format!("{RATING_COLUMNS} WHERE player_id = $1 ORDER BY speed"))
                .bind(player)
                .fetch_all(pool)
                .await?
        });
        Ok(ratings)
    }

    /// The ratings of `players`, every class, in one read: (player,
    /// rating).
    pub async fn ratings_of(
        &self,
        players: &[String],
    ) -> Result<Vec<(String, StoredRating)>, StorageError> {
        if players.is_empty() {
            return Ok(Vec::new());
        }
        let rows: Vec<RatingOf> = on_pool!(&self.pool, pool => {
            let mut query = sqlx::QueryBuilder::new(RATING_COLUMNS);
            query.push(" WHERE player_id IN (");
            let mut list = query.separated(", ");
            for player in players {
                list.push_bind(player.as_str());
            }
            list.push_unseparated(")");
            query.build_query_as().fetch_all(pool).await?
        });
        Ok(rows
            .into_iter()
            .map(|row| (row.player_id, row.rating))
            .collect())
    }
}

/// The columns of a [`StoredRating`], and its player's id.
const RATING_COLUMNS: &str =
    "SELECT player_id, speed, rating, deviation, volatility, games, rated_at FROM ratings";

/// A rating with its player's id, as [`Storage::ratings_of`] reads it.
#[derive(sqlx::FromRow)]
struct RatingOf {
    player_id: String,
    #[sqlx(flatten)]
    rating: StoredRating,
}
