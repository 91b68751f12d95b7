//! The lobby on the HTTP API: open challenges, quick-pairing pools, and
//! the live channel that tells a player the lobby's state and their
//! pairing.

use serde::{Deserialize, Serialize};

use crate::TimeControl;

/// The side a challenger wants.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SideChoice {
    /// The goats.
    Goats,
    /// The tigers.
    Tigers,
    /// Either, drawn when the challenge is accepted.
    #[default]
    Random,
}

/// The body of `POST /api/challenges`.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateChallenge {
    /// The side the challenger wants; default `random`.
    #[serde(default)]
    pub side: SideChoice,
    /// The time control, as for a table; absent or `null`: no clock.
    #[serde(default)]
    pub clock: Option<TimeControl>,
    /// Whether the game counts for ratings (accounts only); default
    /// `false`.
    #[serde(default)]
    pub rated: bool,
    /// The lowest rating of an opponent who may accept (in the game's
    /// speed class); absent: any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_rating: Option<u32>,
    /// The highest; absent: any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_rating: Option<u32>,
}

/// A player as the lobby shows them.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct LobbyPlayer {
    /// The player's id.
    pub id: String,
    /// The account's name; `null` for an anonymous player.
    pub name: Option<String>,
    /// The rating in the speed class at stake, rounded.
    pub rating: u32,
    /// Whether that rating is provisional.
    pub provisional: bool,
}

/// An open challenge.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Challenge {
    /// The challenge's id.
    pub id: String,
    /// Who made it.
    pub player: LobbyPlayer,
    /// The side its maker wants.
    pub side: SideChoice,
    /// The time control; `null`: no clock.
    pub clock: Option<TimeControl>,
    /// The speed class of its game.
    pub speed: String,
    /// Whether the game counts for ratings.
    pub rated: bool,
    /// The lowest rating that may accept, if any.
    pub min_rating: Option<u32>,
    /// The highest, if any.
    pub max_rating: Option<u32>,
}

/// A quick-pairing pool and how many wait in it.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct PoolView {
    /// The pool's id: `1+1`, `3+2`, `5+3`, `10+5`, `15+10` or `1d`.
    pub id: String,
    /// Its speed class.
    pub speed: String,
    /// Players waiting in it now.
    pub waiting: u32,
}

/// The lobby's state: what `GET /api/lobby` answers and the live
/// channel's `state` event carries.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct LobbyState {
    /// The open challenges, newest first (at most 100).
    pub challenges: Vec<Challenge>,
    /// The pools.
    pub pools: Vec<PoolView>,
    /// Players with the lobby open now, on every node.
    pub players_online: u32,
    /// Games in progress between people.
    pub games_in_play: u32,
}

/// A new table the lobby seated the player at: the answer to accepting a
/// challenge, and the live channel's `paired` event.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Paired {
    /// The table id.
    pub table: String,
    /// The table's page; the player's session opens their seat there.
    pub url: String,
}

/// The answer to `POST /api/pools/{pool}`.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct PoolJoined {
    /// The pool.
    pub pool: String,
    /// Whether its games will be rated (the player has an account).
    pub rated: bool,
}

/// An event of the live channel `GET /api/lobby/events` (server-sent
/// events; each `data:` line is one of these).
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LobbyEvent {
    /// The lobby changed (and once at the start).
    State(LobbyState),
    /// The lobby seated this player at a new table.
    Paired(Paired),
}

/// A lobby game in progress, as the list of live games shows it.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct LiveGame {
    /// The table id.
    pub table: String,
    /// The table's page: anyone may watch there, without a link.
    pub url: String,
    /// The speed class.
    pub speed: String,
    /// The time control; `null`: no clock.
    pub clock: Option<TimeControl>,
    /// Whether its games are rated.
    pub rated: bool,
    /// Who has the goats in the table's first game.
    pub goats: LobbyPlayer,
    /// Who has the tigers.
    pub tigers: LobbyPlayer,
}

/// `GET /api/live`: the lobby games in progress, the best-rated first (by
/// the higher of the two ratings), at most 50.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct LiveGames {
    /// The games.
    pub games: Vec<LiveGame>,
}
