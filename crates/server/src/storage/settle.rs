//! What a game's end changes besides its row, in the same transaction:
//! its players are free for the lobby again, and a rated game moves both
//! players' ratings (Glicko-2 with the tigers' advantage, see
//! `docs/ratings.md`), the ratings before and after kept on the row.

use baghchal_rating::{rate, Outcome, Rating, SideAdvantage, Speed};
use rusqlite::OptionalExtension;
use sqlx::Row;

use super::games::GameColumns;
use super::StorageError;

const READ_RATING: &str = "SELECT rating, deviation, volatility, games, rated_at FROM ratings \
     WHERE player_id = $1 AND speed = $2";

const WRITE_RATING: &str = "INSERT INTO ratings \
     (player_id, speed, rating, deviation, volatility, games, rated_at) \
     VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (player_id, speed) DO UPDATE SET \
     rating = excluded.rating, deviation = excluded.deviation, \
     volatility = excluded.volatility, games = excluded.games, rated_at = excluded.rated_at";

const WRITE_GAME: &str = "UPDATE games SET host_rating_before = $1, host_rating_after = $2, \
     guest_rating_before = $3, guest_rating_after = $4 \
     WHERE table_id = $5 AND game = $6 AND board = $7";

/// A player's row, locked so that two settlements of one player run one
/// after the other even before the player has a rating row to lock.
const LOCK_PLAYER: &str = "SELECT id FROM players WHERE id = $1 FOR UPDATE";

const FREE_PLAYERS: &str = "UPDATE players SET lobby_table = NULL WHERE lobby_table = $1";

const COUNT_ABORT: &str = "UPDATE players SET aborts = aborts + 1 WHERE id = $1";

/// A player's rating in a class as stored: the rating, its games, when
/// it last changed.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Held {
    rating: Rating,
    games: i64,
    rated_at: i64,
}

/// A rated game's change: each player's new rating (host first), and the
/// ratings shown before and after for the row.
#[derive(Clone, Debug, PartialEq)]
struct Settlement {
    speed: &'static str,
    players: [(String, Held); 2],
    before: [f64; 2],
}

/// Milliseconds in a day.
const DAY_MS: f64 = 86_400_000.0;

/// The players of a rated game, and its speed class, if it is rated.
fn rated_players(game: &GameColumns) -> Option<([&str; 2], &'static str)> {
    if game.rated == 0 || game.reason == "aborted" {
        return None;
    }
    let players = [game.host_player.as_deref()?, game.guest_player.as_deref()?];
    let ms = |n: Option<i64>| n.and_then(|n| u64::try_from(n).ok());
    let speed = Speed::of(
        ms(game.clock.initial_ms),
        ms(game.clock.increment_ms),
        ms(game.clock.days),
    );
    Some((players, speed.name()))
}

/// The new ratings of a rated game's players, from theirs before (`None`:
/// a player's first rated game in the class). A player's deviation first
/// grows with the days since their last rated game.
fn settle(game: &GameColumns, held: [Option<Held>; 2]) -> Option<Settlement> {
    let (players, speed) = rated_players(game)?;
    let now = game.ended_at;
    let before = held.map(|held| match held {
        Some(h) => Held {
            rating: h
                .rating
                .after_idle(((now - h.rated_at) as f64 / DAY_MS).max(0.0)),
            ..h
        },
        None => Held {
            rating: Rating::default(),
            games: 0,
            rated_at: now,
        },
    });
    let host_goats = game.host_side == "goats";
    let outcome = match game.winner {
        Some("goats") => Outcome::GoatsWin,
        Some(_) => Outcome::TigersWin,
        None => Outcome::Draw,
    };
    let (goats, tigers) = if host_goats { (0, 1) } else { (1, 0) };
    let rated = rate(
        before[goats].rating,
        before[tigers].rating,
        outcome,
        SideAdvantage::default(),
    );
    let mut after = before;
    after[goats].rating = rated.goats;
    after[tigers].rating = rated.tigers;
    for held in &mut after {
        held.games += 1;
        held.rated_at = now;
    }
    Some(Settlement {
        speed,
        players: [
            (players[0].to_owned(), after[0]),
            (players[1].to_owned(), after[1]),
        ],
        before: [before[0].rating.rating, before[1].rating.rating],
    })
}

/// Settles `game`, whose row this transaction has just written, on the
/// SQLite writer's connection.
pub(super) fn settle_sqlite(
    tx: &rusqlite::Connection,
    game: &GameColumns,
) -> Result<(), StorageError> {
    tx.prepare_cached(FREE_PLAYERS)?
        .execute(rusqlite::params![game.table_id])?;
    if let Some(aborter) = &game.aborter {
        tx.prepare_cached(COUNT_ABORT)?
            .execute(rusqlite::params![aborter])?;
    }
    let Some((players, speed)) = rated_players(game) else {
        return Ok(());
    };
    let mut read = tx.prepare_cached(READ_RATING)?;
    let mut held = [None, None];
    for (slot, player) in held.iter_mut().zip(players) {
        *slot = read
            .query_row(rusqlite::params![player, speed], |row| {
                Ok(Held {
                    rating: Rating {
                        rating: row.get(0)?,
                        deviation: row.get(1)?,
                        volatility: row.get(2)?,
                    },
                    games: row.get(3)?,
                    rated_at: row.get(4)?,
                })
            })
            .optional()?;
    }
    let Some(settled) = settle(game, held) else {
        return Ok(());
    };
    let mut write = tx.prepare_cached(WRITE_RATING)?;
    for (player, held) in &settled.players {
        write.execute(rusqlite::params![
            player,
            settled.speed,
            held.rating.rating,
            held.rating.deviation,
            held.rating.volatility,
            held.games,
            held.rated_at,
        ])?;
    }
    tx.prepare_cached(WRITE_GAME)?.execute(rusqlite::params![
        settled.before[0],
        settled.players[0].1.rating.rating,
        settled.before[1],
        settled.players[1].1.rating.rating,
        game.table_id,
        game.game,
        game.board,
    ])?;
    Ok(())
}

/// Settles `game`, whose row this transaction has just written, on
/// PostgreSQL. The players' rows are locked, in the order of their ids,
/// before their ratings are read, so that two games of one player ending
/// at once settle one after the other (a rating row that does not exist
/// yet could not be locked itself).
pub(super) async fn settle_postgres(
    tx: &mut sqlx::PgConnection,
    game: &GameColumns,
) -> Result<(), StorageError> {
    sqlx::query(FREE_PLAYERS)
        .bind(&game.table_id)
        .execute(&mut *tx)
        .await?;
    if let Some(aborter) = &game.aborter {
        sqlx::query(COUNT_ABORT)
            .bind(aborter)
            .execute(&mut *tx)
            .await?;
    }
    let Some((players, speed)) = rated_players(game) else {
        return Ok(());
    };
    let mut order = [0, 1];
    order.sort_by_key(|&i| players[i]);
    let mut held = [None, None];
    for i in order {
        sqlx::query(LOCK_PLAYER)
            .bind(players[i])
            .fetch_optional(&mut *tx)
            .await?;
        let row = sqlx::query(READ_RATING)
            .bind(players[i])
            .bind(speed)
            .fetch_optional(&mut *tx)
            .await?;
        held[i] = match row {
            Some(row) => Some(Held {
                rating: Rating {
                    rating: row.try_get("rating")?,
                    deviation: row.try_get("deviation")?,
                    volatility: row.try_get("volatility")?,
                },
                games: row.try_get("games")?,
                rated_at: row.try_get("rated_at")?,
            }),
            None => None,
        };
    }
    let Some(settled) = settle(game, held) else {
        return Ok(());
    };
    for (player, held) in &settled.players {
        sqlx::query(WRITE_RATING)
            .bind(player)
            .bind(settled.speed)
            .bind(held.rating.rating)
            .bind(held.rating.deviation)
            .bind(held.rating.volatility)
            .bind(held.games)
            .bind(held.rated_at)
            .execute(&mut *tx)
            .await?;
    }
    sqlx::query(WRITE_GAME)
        .bind(settled.before[0])
        .bind(settled.players[0].1.rating.rating)
        .bind(settled.before[1])
        .bind(settled.players[1].1.rating.rating)
        .bind(&game.table_id)
        .bind(game.game)
        .bind(game.board)
        .execute(&mut *tx)
        .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::rows::ClockColumns;

    fn game(rated: bool, winner: Option<&'static str>, reason: &'static str) -> GameColumns {
        GameColumns {
            table_id: "t".into(),
            game: 1,
            board: 1,
            version: 10,
            host_seat: "player",
            guest_seat: "player",
            host_side: "goats",
            winner,
            reason,
            plies: 40,
            started_at: 0,
            ended_at: 1_000,
            clock: ClockColumns {
                initial_ms: Some(180_000),
                increment_ms: Some(2_000),
                days: None,
            },
            format: "single",
            series_games: None,
            record: String::new(),
            host_player: Some("alice".into()),
            guest_player: Some("bob".into()),
            rated: i64::from(rated),
            aborter: None,
        }
    }

    #[test]
    fn a_rated_win_moves_both_ratings_in_the_games_class() {
        let settled = settle(&game(true, Some("goats"), "trapped"), [None, None]).unwrap();
        assert_eq!(settled.speed, "blitz");
        let [(alice, a), (bob, b)] = &settled.players;
        assert_eq!((alice.as_str(), bob.as_str()), ("alice", "bob"));
        assert!(a.rating.rating > 1500.0 && b.rating.rating < 1500.0);
        assert_eq!((a.games, b.games), (1, 1));
        assert_eq!(settled.before, [1500.0, 1500.0]);
    }

    #[test]
    fn a_casual_or_aborted_game_or_one_without_two_players_is_not_rated() {
        assert_eq!(
            settle(&game(false, Some("goats"), "trapped"), [None, None]),
            None
        );
        assert_eq!(settle(&game(true, None, "aborted"), [None, None]), None);
        let mut anonymous = game(true, Some("tigers"), "captured");
        anonymous.guest_player = None;
        assert_eq!(settle(&anonymous, [None, None]), None);
    }

    #[test]
    fn the_deviation_grows_with_the_days_since_the_last_rated_game() {
        let settled_rating = Held {
            rating: Rating {
                rating: 1700.0,
                deviation: 60.0,
                volatility: 0.06,
            },
            games: 40,
            rated_at: 0,
        };
        let mut late = game(true, None, "plies");
        late.ended_at = 200 * 86_400_000;
        let fresh = settle(&game(true, None, "plies"), [Some(settled_rating), None]).unwrap();
        let idle = settle(&late, [Some(settled_rating), None]).unwrap();
        assert!(idle.players[0].1.rating.deviation > fresh.players[0].1.rating.deviation);
        assert_eq!(idle.players[0].1.games, 41);
    }
}
