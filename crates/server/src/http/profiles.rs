//! Profiles: a player (`GET /api/players/{id}`, or by name `GET
//! /api/players/by-name/{name}`), their finished games page by page (`GET
//! /api/players/{id}/games?before=`) and the leaderboard of a speed class
//! (`GET /api/leaderboard/{speed}`). Everything here is public and reads
//! only; every list is bounded.

use axum::extract::{Path, Query, State};
use axum::Json;
use baghchal_protocol::{
    EndReason, GameOpponent, Leaderboard, LeaderboardEntry, PlayerGame, PlayerGames, PlayerResult,
    Profile, RatingHistory, RatingPoint, Side, SideRecord, LEADERBOARD_SIZE, MAX_HISTORY_POINTS,
    PLAYER_GAMES_PAGE,
};
use baghchal_rating::{Speed, PROVISIONAL_DEVIATION};

use super::error::HttpError;
use crate::identity::names::AccountName;
use crate::state::AppState;
use crate::storage::{GamesCursor, PlayedGame, ProfileRow, RatedPoint, SideCounts};

/// The longest player id the server looks up; longer ones are unknown.
const MAX_ID_BYTES: usize = 64;

/// `GET /api/players/{id}`.
pub async fn by_id(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Profile>, HttpError> {
    let row = if id.len() > MAX_ID_BYTES {
        None
    } else {
        state
            .storage
            .profile(&id)
            .await
            .map_err(HttpError::storage)?
    };
    profile(&state, row.ok_or(HttpError::Unknown("player"))?).await
}

/// `GET /api/players/by-name/{name}`: the open account of that name, in
/// any case.
pub async fn by_name(
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<Json<Profile>, HttpError> {
    let name = AccountName::parse(&name).map_err(|_| HttpError::Unknown("player"))?;
    let row = state
        .storage
        .profile_by_name(name.key())
        .await
        .map_err(HttpError::storage)?
        .ok_or(HttpError::Unknown("player"))?;
    profile(&state, row).await
}

async fn profile(state: &AppState, row: ProfileRow) -> Result<Json<Profile>, HttpError> {
    let storage = &state.storage;
    let ratings = storage
        .ratings(&row.id)
        .await
        .map_err(HttpError::storage)?
        .iter()
        .map(|stored| stored.to_wire())
        .collect();
    let [goats, tigers] = storage
        .record_by_side(&row.id)
        .await
        .map_err(HttpError::storage)?;
    let points = storage
        .rating_points(&row.id, MAX_HISTORY_POINTS * Speed::ALL.len())
        .await
        .map_err(HttpError::storage)?;
    Ok(Json(Profile {
        name: if row.closed { None } else { row.name },
        id: row.id,
        created: row.created_at,
        closed: row.closed,
        ratings,
        record: vec![
            side_record(Side::Goats, goats),
            side_record(Side::Tigers, tigers),
        ],
        history: history(&points),
    }))
}

fn count(n: i64) -> u32 {
    u32::try_from(n.max(0)).unwrap_or(u32::MAX)
}

fn side_record(side: Side, counts: SideCounts) -> SideRecord {
    SideRecord {
        side,
        won: count(counts.won),
        drawn: count(counts.drawn),
        lost: count(counts.lost),
    }
}

fn rounded(rating: f64) -> u32 {
    rating.round().clamp(0.0, f64::from(u32::MAX)) as u32
}

fn speed_of(clock: [Option<i64>; 3]) -> Speed {
    let [initial, increment, days] = clock.map(|c| c.and_then(|c| u64::try_from(c).ok()));
    Speed::of(initial, increment, days)
}

/// Each class's points, oldest first, at most [`MAX_HISTORY_POINTS`]
/// each, from `points` newest first; the classes fastest first.
fn history(points: &[RatedPoint]) -> Vec<RatingHistory> {
    Speed::ALL
        .iter()
        .filter_map(|speed| {
            let mut mine: Vec<RatingPoint> = points
                .iter()
                .filter(|p| speed_of(p.clock) == *speed)
                .take(MAX_HISTORY_POINTS)
                .map(|p| RatingPoint {
                    at: p.ended_at,
                    rating: rounded(p.rating),
                })
                .collect();
            mine.reverse();
            (!mine.is_empty()).then(|| RatingHistory {
                speed: speed.name().to_owned(),
                points: mine,
            })
        })
        .collect()
}

/// The query of `GET /api/players/{id}/games`.
#[derive(Debug, Default, serde::Deserialize)]
pub struct GamesQuery {
    /// The `next` of the page before.
    before: Option<String>,
}

/// Reads a page's cursor: `{ended}.{table}.{game}.{board}`, as `next`
/// gives it.
fn parse_cursor(text: &str) -> Option<GamesCursor> {
    let mut parts = text.splitn(4, '.');
    let ended_at = parts.next()?.parse().ok()?;
    let table = parts.next()?;
    let game = parts.next()?.parse().ok()?;
    let board = parts.next()?.parse().ok()?;
    let plain = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    (table.len() <= MAX_ID_BYTES && table.chars().all(plain)).then(|| GamesCursor {
        ended_at,
        table: table.to_owned(),
        game,
        board,
    })
}

fn cursor_text(game: &PlayedGame) -> String {
    format!(
        "{}.{}.{}.{}",
        game.ended_at, game.table, game.game, game.board
    )
}

/// `GET /api/players/{id}/games?before=`: the player's finished games,
/// newest first, [`PLAYER_GAMES_PAGE`] at a time.
pub async fn games(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(query): Query<GamesQuery>,
) -> Result<Json<PlayerGames>, HttpError> {
    if id.len() > MAX_ID_BYTES {
        return Err(HttpError::Unknown("player"));
    }
    let before = match &query.before {
        None => GamesCursor::start(),
        Some(text) => parse_cursor(text).ok_or_else(|| HttpError::InvalidField {
            field: "before".into(),
            message: "not a page of this list: use the `next` of the page before".into(),
        })?,
    };
    state
        .storage
        .profile(&id)
        .await
        .map_err(HttpError::storage)?
        .ok_or(HttpError::Unknown("player"))?;
    // One more than a page says whether another page follows.
    let mut rows = state
        .storage
        .played_games(&id, &before, PLAYER_GAMES_PAGE + 1)
        .await
        .map_err(HttpError::storage)?;
    let more = rows.len() > PLAYER_GAMES_PAGE;
    rows.truncate(PLAYER_GAMES_PAGE);
    let next = more.then(|| rows.last().map(cursor_text)).flatten();
    let games = rows
        .iter()
        .filter_map(|row| player_game(&state.public_url, row))
        .collect();
    Ok(Json(PlayerGames { games, next }))
}

fn side_of(name: &str) -> Option<Side> {
    match name {
        "goats" => Some(Side::Goats),
        "tigers" => Some(Side::Tigers),
        _ => None,
    }
}

/// A row as the list shows it; `None` for a row this server does not
/// write (logged).
fn player_game(public_url: &str, row: &PlayedGame) -> Option<PlayerGame> {
    let reason: Option<EndReason> =
        serde_json::from_value(serde_json::Value::String(row.reason.clone())).ok();
    let (Some(side), Some(reason)) = (side_of(&row.side), reason) else {
        tracing::warn!(table_id = %row.table, game = row.game, "unreadable game row");
        return None;
    };
    let result = match (&row.winner, reason) {
        (_, EndReason::Aborted) => PlayerResult::Aborted,
        (None, _) => PlayerResult::Drawn,
        (Some(w), _) if *w == row.side => PlayerResult::Won,
        (Some(_), _) => PlayerResult::Lost,
    };
    let opponent = match (row.opponent_seat.as_str(), &row.opponent) {
        ("computer", _) => GameOpponent::Computer {
            level: row.level.and_then(|l| u32::try_from(l).ok()),
        },
        (_, Some(id)) => GameOpponent::Player {
            id: id.clone(),
            name: row.opponent_name.clone(),
        },
        _ => GameOpponent::Link,
    };
    let rating = row.rating.filter(|_| row.rated);
    let query = if row.two_boards && row.board == 2 {
        "?board=2"
    } else {
        ""
    };
    Some(PlayerGame {
        table: row.table.clone(),
        game: u32::try_from(row.game).ok()?,
        board: if row.two_boards {
            Some(u8::try_from(row.board).ok()?)
        } else {
            None
        },
        side,
        opponent,
        result,
        reason,
        plies: count(row.plies),
        speed: speed_of(row.clock).name().to_owned(),
        rated: row.rated,
        rating: rating.map(|(_, after)| rounded(after)),
        rating_change: rating.map(|(before, after)| (after.round() - before.round()) as i32),
        ended: row.ended_at,
        url: format!("{public_url}/t/{}/games/{}{query}", row.table, row.game),
    })
}

/// `GET /api/leaderboard/{speed}`: the best [`LEADERBOARD_SIZE`]
/// non-provisional accounts of the class.
pub async fn leaderboard(
    State(state): State<AppState>,
    Path(speed): Path<String>,
) -> Result<Json<Leaderboard>, HttpError> {
    let speed: Speed = speed
        .parse()
        .map_err(|_| HttpError::Unknown("speed class"))?;
    let rows = state
        .storage
        .leaders(speed.name(), PROVISIONAL_DEVIATION, LEADERBOARD_SIZE)
        .await
        .map_err(HttpError::storage)?;
    let players = rows
        .into_iter()
        .zip(1..)
        .map(|(row, rank)| LeaderboardEntry {
            rank,
            id: row.id,
            name: row.name,
            rating: rounded(row.rating),
            deviation: rounded(row.deviation),
            games: count(row.games),
        })
        .collect();
    Ok(Json(Leaderboard {
        speed: speed.name().to_owned(),
        players,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_reads_back_what_next_wrote_and_nothing_else() {
        let cursor = parse_cursor("1796428900000.Pw2xN7kR4mTz9sLc1vBq8d.3.2").unwrap();
        assert_eq!(
            cursor,
            GamesCursor {
                ended_at: 1_796_428_900_000,
                table: "Pw2xN7kR4mTz9sLc1vBq8d".into(),
                game: 3,
                board: 2,
            }
        );
        for bad in ["", "12", "x.t.1.1", "1.t.1", "1.t'--.1.1", "1.t.1.x"] {
            assert_eq!(parse_cursor(bad), None, "{bad}");
        }
    }

    #[test]
    fn the_history_keeps_each_class_apart_oldest_first() {
        let point = |at, days: Option<i64>, rating| RatedPoint {
            ended_at: at,
            clock: [Some(180_000), Some(2_000), days],
            rating,
        };
        // Newest first, as stored reads give them.
        let points = [
            point(3, None, 1520.4),
            point(2, Some(1), 1490.0),
            point(1, None, 1510.0),
        ];
        let history = history(&points);
        assert_eq!(history.len(), 2);
        assert_eq!(history[0].speed, "blitz");
        assert_eq!(
            history[0].points,
            vec![
                RatingPoint {
                    at: 1,
                    rating: 1510
                },
                RatingPoint {
                    at: 3,
                    rating: 1520
                }
            ]
        );
        assert_eq!(history[1].speed, "correspondence");
    }
}
