//! Players on the HTTP API: who the current player is, accounts and
//! sessions, ratings, and a player's profile.

use serde::{Deserialize, Serialize};

/// `GET /api/me`: the current player (every browser is one from its first
/// visit, anonymous until it takes a name).
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Me {
    /// The player's id: stable, public (profiles use it while anonymous).
    pub id: String,
    /// The account's name; `null` while anonymous.
    pub name: Option<String>,
    /// The player's ratings, one per speed class played rated.
    pub ratings: Vec<RatingView>,
    /// The games in progress at tables where the player has a seat, newest
    /// first (at most 50).
    pub playing: Vec<PlayingGame>,
}

/// A rating as players read it.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct RatingView {
    /// The speed class: `bullet`, `blitz`, `rapid`, `classical` or
    /// `correspondence`.
    pub speed: String,
    /// The rating, rounded.
    pub rating: u32,
    /// Its deviation, rounded.
    pub deviation: u32,
    /// Whether it is provisional (shown with a `?`): the deviation is 110
    /// or more.
    pub provisional: bool,
    /// Rated games played in this class.
    pub games: u32,
}

/// A table where the player has a seat and a game goes on.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct PlayingGame {
    /// The table id.
    pub table: String,
    /// The table's page; the player's session opens their own seat there.
    pub url: String,
    /// Whether the lobby made the table.
    pub lobby: bool,
}

/// A player's rating before and after a rated game.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct RatingChange {
    /// The rating before, rounded.
    pub before: u32,
    /// The rating after, rounded.
    pub after: u32,
    /// The change as shown (`after - before` of the unrounded ratings,
    /// rounded): `+12`, `-12`.
    pub change: i32,
}

/// Both players' rating changes in a rated game.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct GameRatings {
    /// The goats' player.
    pub goats: RatingChange,
    /// The tigers' player.
    pub tigers: RatingChange,
}

/// The body of `POST /api/account` (take a name and a password: the
/// current anonymous player becomes an account), `POST /api/session` (log
/// in).
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AccountCredentials {
    /// The name: 3 to 20 of the ASCII letters, digits, `_` and `-`,
    /// starting with a letter or a digit; unique without regard to case.
    pub name: String,
    /// The password: 8 characters to 128 bytes.
    pub password: String,
}

/// The body of `PUT /api/account/password`.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PasswordChange {
    /// The current password.
    pub password: String,
    /// The new one.
    pub new_password: String,
}

/// The body of `DELETE /api/account`.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AccountClosing {
    /// The current password.
    pub password: String,
}

/// `GET /api/blocks`: the players the current player blocks, the latest
/// first.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct BlockList {
    /// At most [`MAX_BLOCKS`].
    pub players: Vec<BlockedPlayer>,
}

/// A player someone blocks.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct BlockedPlayer {
    /// Their id.
    pub id: String,
    /// Their account's name; `null` while anonymous or once closed.
    pub name: Option<String>,
}

/// The most players one player may block.
pub const MAX_BLOCKS: usize = 500;
