//! Players' profiles on the HTTP API: a player's ratings, record by side
//! and rating history (`GET /api/players/{id}`), their finished games,
//! paged (`GET /api/players/{id}/games`), and the leaderboard of a speed
//! class (`GET /api/leaderboard/{speed}`).

use serde::{Deserialize, Serialize};

use crate::{EndReason, RatingView, Side};

/// The most finished games one page of `GET /api/players/{id}/games`
/// holds.
pub const PLAYER_GAMES_PAGE: usize = 20;

/// The most points of one speed class's rating history a profile holds
/// (the latest ones).
pub const MAX_HISTORY_POINTS: usize = 200;

/// The most players a leaderboard lists.
pub const LEADERBOARD_SIZE: usize = 100;

/// `GET /api/players/{id}` (also `GET /api/players/by-name/{name}`): a
/// player's profile.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Profile {
    /// The player's id.
    pub id: String,
    /// The account's name; `null` while anonymous and once the account is
    /// closed.
    pub name: Option<String>,
    /// When the player first came, in milliseconds since the epoch.
    pub created: i64,
    /// Whether the account was closed.
    pub closed: bool,
    /// The player's ratings, one per speed class played rated.
    pub ratings: Vec<RatingView>,
    /// Games won, drawn and lost with each side (aborted games are not
    /// counted): the goats first, then the tigers.
    pub record: Vec<SideRecord>,
    /// The rating after each rated game, per speed class, oldest first
    /// (the latest [`MAX_HISTORY_POINTS`] of each class).
    pub history: Vec<RatingHistory>,
}

/// Games won, drawn and lost with one side.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct SideRecord {
    /// The side the player had.
    pub side: Side,
    /// Games won.
    pub won: u32,
    /// Games drawn.
    pub drawn: u32,
    /// Games lost.
    pub lost: u32,
}

/// A player's rating over time in one speed class.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct RatingHistory {
    /// The speed class.
    pub speed: String,
    /// One point per rated game, oldest first.
    pub points: Vec<RatingPoint>,
}

/// The rating after one rated game.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct RatingPoint {
    /// When the game ended, in milliseconds since the epoch.
    pub at: i64,
    /// The rating after it, rounded.
    pub rating: u32,
}

/// `GET /api/players/{id}/games`: one page of a player's finished games,
/// newest first.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct PlayerGames {
    /// At most [`PLAYER_GAMES_PAGE`] games.
    pub games: Vec<PlayerGame>,
    /// The `before` of the next (older) page; `null` on the last page.
    pub next: Option<String>,
}

/// One finished game, as its player sees it.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct PlayerGame {
    /// The table id.
    pub table: String,
    /// The game's number at this table, from 1.
    pub game: u32,
    /// The board, at a two-board table (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board: Option<u8>,
    /// The player's side in this game.
    pub side: Side,
    /// Who played the other side.
    pub opponent: GameOpponent,
    /// How the game went for the player.
    pub result: PlayerResult,
    /// Why it ended.
    pub reason: EndReason,
    /// Plies played.
    pub plies: u32,
    /// The speed class of its time control.
    pub speed: String,
    /// Whether it was rated.
    pub rated: bool,
    /// The player's rating after it, rounded (rated games only).
    pub rating: Option<u32>,
    /// The change of the player's rating, rounded (rated games only).
    pub rating_change: Option<i32>,
    /// When it ended, in milliseconds since the epoch.
    pub ended: i64,
    /// The game's page.
    pub url: String,
}

/// Who played the other side of a game.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum GameOpponent {
    /// A player known by identity.
    Player {
        /// Their id.
        id: String,
        /// Their name; `null` when anonymous or closed.
        name: Option<String>,
    },
    /// The computer, at its level.
    Computer {
        /// The level, 400 to 2400 (absent on tables that do not say).
        level: Option<u32>,
    },
    /// Someone who sat by a link without a session.
    Link,
}

/// How a game went for one player.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlayerResult {
    /// The player won.
    Won,
    /// A draw.
    Drawn,
    /// The player lost.
    Lost,
    /// The game was aborted: no result.
    Aborted,
}

/// `GET /api/leaderboard/{speed}`: the best non-provisional players of a
/// speed class, best first.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Leaderboard {
    /// The speed class.
    pub speed: String,
    /// At most [`LEADERBOARD_SIZE`] players.
    pub players: Vec<LeaderboardEntry>,
}

/// A player on a leaderboard.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct LeaderboardEntry {
    /// The place, from 1.
    pub rank: u32,
    /// The player's id.
    pub id: String,
    /// The account's name.
    pub name: String,
    /// The rating, rounded.
    pub rating: u32,
    /// Its deviation, rounded.
    pub deviation: u32,
    /// Rated games played in the class.
    pub games: u32,
}
