//! The puzzles: `GET /api/puzzles/next` hands out a puzzle of the shipped
//! set (`baghchal_engine::puzzle`) near the player's puzzle rating, one
//! they have not tried, and `POST /api/puzzles/{id}/moves` checks a move
//! against its line and answers with the tablebase's reply. A player's
//! first try of a puzzle, once solved or wrong, is rated (Glicko-2 between
//! the player and the puzzle, `docs/puzzles.md`): the player's puzzle
//! rating for every player with a session, the puzzle's for accounts only.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, Query, State};
use axum::http::HeaderMap;
use axum::Json;
use baghchal_engine::puzzle::{self, Puzzle, START_DEVIATION};
use baghchal_protocol::{
    PuzzleAnswer, PuzzleMoves, PuzzleRated, PuzzleRating, PuzzleVerdict, PuzzleView,
    MAX_PUZZLE_MOVES,
};
use baghchal_rating::Rating;
use baghchal_rules::{Action, Position};
use baghchal_table::names::side_to_wire;
use serde::Deserialize;

use super::error::HttpError;
use super::request::read_json_post;
use crate::identity;
use crate::state::AppState;
use crate::storage::{FinishedTry, PuzzleSeed, PuzzleTry, Storage, StorageError, StoredPuzzle};

/// The largest puzzle move body, in bytes.
pub const MAX_PUZZLE_BODY: usize = 1024;

/// How many puzzles nearest the rating are chosen among.
const NEAREST: i64 = 24;

/// The query of `GET /api/puzzles/next`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct NextQuery {
    /// The rating to pick at for a request without a session (default
    /// 1500); a player's own puzzle rating takes its place.
    rating: Option<u16>,
    /// The puzzle just played, not to be handed out again at once.
    after: Option<String>,
    /// Only puzzles of this theme.
    theme: Option<String>,
}

/// A puzzle as the database first takes it.
fn seed_of(puzzle: &Puzzle) -> PuzzleSeed {
    PuzzleSeed {
        id: puzzle.id.clone(),
        themes: puzzle.themes.iter().map(|t| t.name()).collect(),
        rating: f64::from(puzzle.rating),
        deviation: f64::from(START_DEVIATION),
    }
}

/// Writes the shipped set's puzzles to the database (at the start).
pub async fn seed(storage: &Storage) -> Result<(), StorageError> {
    let set: Vec<PuzzleSeed> = puzzle::shipped().iter().map(seed_of).collect();
    storage.seed_puzzles(&set).await
}

/// A stable hash of a player and a puzzle (FNV-1a), the same on every node.
fn mix(player: &str, puzzle: &str) -> u64 {
    player
        .bytes()
        .chain([0])
        .chain(puzzle.bytes())
        .fold(0xcbf2_9ce4_8422_2325, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        })
}

/// For a player, the one of `near` (the nearest puzzles they have not
/// tried) that their hash with it puts first: the same until they try
/// it, and not every player's the same. Without a player, the one a step
/// past `after` in the order of `near`, so that a client walks through
/// them.
fn choose<'a>(
    near: &'a [StoredPuzzle],
    player: Option<&str>,
    after: Option<&str>,
) -> Option<(&'static Puzzle, &'a StoredPuzzle)> {
    let shipped: Vec<(&'static Puzzle, &StoredPuzzle)> = near
        .iter()
        .filter_map(|stored| puzzle::find(&stored.id).map(|p| (p, stored)))
        .collect();
    match player {
        Some(player) => shipped.into_iter().min_by_key(|(p, _)| mix(player, &p.id)),
        None => {
            let next = after
                .and_then(|after| shipped.iter().position(|(p, _)| p.id == after))
                .map_or(0, |i| i + 1);
            shipped.get(next % shipped.len().max(1)).copied()
        }
    }
}

fn round(x: f64) -> u32 {
    x.round().clamp(0.0, f64::from(u32::MAX)) as u32
}

/// A player's puzzle rating on the wire.
fn rating_view(rating: &Rating, tries: i64) -> PuzzleRating {
    PuzzleRating {
        rating: round(rating.rating),
        deviation: round(rating.deviation),
        provisional: rating.is_provisional(),
        tries: u32::try_from(tries).unwrap_or(u32::MAX),
    }
}

/// What a first try changed, on the wire.
fn rated_view(finished: &FinishedTry) -> PuzzleRated {
    let rated = &finished.rated;
    PuzzleRated {
        player: rating_view(&rated.player, finished.tries),
        change: rated.player.change_since(&rated.player_before).0,
        puzzle_rating: round(rated.puzzle.unwrap_or(rated.puzzle_before).rating),
    }
}

fn view(puzzle: &Puzzle, stored: &StoredPuzzle, player: Option<PuzzleRating>) -> PuzzleView {
    let narrow = |x: f64| u16::try_from(round(x)).unwrap_or(u16::MAX);
    PuzzleView {
        id: puzzle.id.clone(),
        position: puzzle.start.to_string(),
        side_to_move: side_to_wire(puzzle.solver()),
        themes: puzzle.themes.iter().map(|t| t.name().to_owned()).collect(),
        rating: narrow(stored.rating.rating),
        rating_deviation: narrow(stored.rating.deviation),
        plays: u32::try_from(stored.plays).unwrap_or(u32::MAX),
        solution: puzzle.solution.iter().map(Action::to_string).collect(),
        legal: legal(&puzzle.start),
        player,
    }
}

fn legal(position: &Position) -> Vec<String> {
    position
        .legal_actions()
        .iter()
        .map(Action::to_string)
        .collect()
}

/// `GET /api/puzzles/next[?rating=R][&after=ID][&theme=T]`.
pub async fn next(
    State(state): State<AppState>,
    headers: HeaderMap,
    Query(query): Query<NextQuery>,
) -> Result<Json<PuzzleView>, HttpError> {
    if let Some(theme) = &query.theme {
        theme
            .parse::<puzzle::Theme>()
            .map_err(|_| HttpError::NotFound)?;
    }
    let storage = &state.storage;
    let identity = identity::identify(storage, &headers)
        .await
        .map_err(HttpError::storage)?;
    let player = identity.as_ref().map(|i| i.player.id.as_str());
    let held = match player {
        Some(player) => storage
            .puzzle_rating(player)
            .await
            .map_err(HttpError::storage)?,
        None => None,
    };
    let rating = match (&held, player) {
        (Some(held), _) => held.rating.rating,
        (None, Some(_)) => baghchal_rating::START_RATING,
        (None, None) => query
            .rating
            .map_or(baghchal_rating::START_RATING, f64::from),
    };
    let theme = query.theme.as_deref();
    let after = query.after.as_deref();
    let near = match player {
        Some(_) => {
            let untried = storage
                .puzzles_near(rating, theme, after, player, NEAREST)
                .await
                .map_err(HttpError::storage)?;
            if untried.iter().any(|p| puzzle::find(&p.id).is_some()) {
                untried
            } else {
                // Every puzzle near was tried: a later try, unrated.
                storage
                    .puzzles_near(rating, theme, after, None, NEAREST)
                    .await
                    .map_err(HttpError::storage)?
            }
        }
        None => storage
            .puzzles_near(rating, theme, None, None, NEAREST)
            .await
            .map_err(HttpError::storage)?,
    };
    let (chosen, stored) = choose(&near, player, after).ok_or(HttpError::NotFound)?;
    let shown = player.map(|_| match &held {
        Some(held) => rating_view(&held.rating, held.tries),
        None => rating_view(&Rating::default(), 0),
    });
    Ok(Json(view(chosen, stored, shown)))
}

/// `POST /api/puzzles/{id}/moves`.
pub async fn moves(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<PuzzleAnswer>, HttpError> {
    let request: PuzzleMoves = read_json_post(&state.origins, &headers, body, MAX_PUZZLE_BODY)?;
    let puzzle = puzzle::find(&id).ok_or(HttpError::NotFound)?;
    let mut answer = answer(puzzle, &request.moves)?;
    if answer.verdict == PuzzleVerdict::Correct {
        return Ok(Json(answer));
    }
    let identity = identity::identify(&state.storage, &headers)
        .await
        .map_err(HttpError::storage)?;
    if let Some(identity) = identity {
        let seed = seed_of(puzzle);
        let finished = state
            .storage
            .finish_puzzle(&PuzzleTry {
                player: &identity.player.id,
                puzzle: &seed,
                solved: answer.verdict == PuzzleVerdict::Solved,
                moves_puzzle: identity.has_account(),
                now: crate::storage::now_millis(),
            })
            .await
            .map_err(HttpError::storage)?;
        answer.rated = finished.as_ref().map(rated_view);
    }
    Ok(Json(answer))
}

/// Checks `moves` against the puzzle's line.
fn answer(puzzle: &Puzzle, moves: &[String]) -> Result<PuzzleAnswer, HttpError> {
    let invalid = |message: String| HttpError::InvalidField {
        field: "moves".into(),
        message,
    };
    if moves.is_empty() || moves.len() > MAX_PUZZLE_MOVES || moves.len().is_multiple_of(2) {
        return Err(invalid(format!(
            "the moves are the solver's and the replies, ending with the solver's: \
             an odd number up to {MAX_PUZZLE_MOVES}, not {}",
            moves.len()
        )));
    }
    let mut position = puzzle.start.clone();
    let mut played = Vec::with_capacity(moves.len());
    for (i, text) in moves.iter().enumerate() {
        let illegal = |reason: String| invalid(format!("ply {}: {text}: {reason}", i + 1));
        let action: Action = text.parse().map_err(|e| illegal(format!("{e}")))?;
        if i + 1 < moves.len() && puzzle.solution.get(i) != Some(&action) {
            return Err(illegal("not the puzzle's line so far".into()));
        }
        position
            .play_mut(action)
            .map_err(|e| illegal(e.to_string()))?;
        played.push(action);
    }
    let line = || Some(puzzle.solution.iter().map(Action::to_string).collect());
    if !puzzle.follows(&played) {
        return Ok(PuzzleAnswer {
            verdict: PuzzleVerdict::Wrong,
            reply: None,
            position: position.to_string(),
            legal: Vec::new(),
            solution: line(),
            rated: None,
        });
    }
    let Some(&reply) = puzzle.solution.get(played.len()) else {
        return Ok(PuzzleAnswer {
            verdict: PuzzleVerdict::Solved,
            reply: None,
            position: position.to_string(),
            legal: Vec::new(),
            solution: line(),
            rated: None,
        });
    };
    position.play_unchecked(reply);
    Ok(PuzzleAnswer {
        verdict: PuzzleVerdict::Correct,
        reply: Some(reply.to_string()),
        legal: legal(&position),
        position: position.to_string(),
        solution: None,
        rated: None,
    })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    fn two_move_puzzle() -> &'static Puzzle {
        puzzle::shipped()
            .iter()
            .find(|p| p.solution.len() == 3)
            .expect("a shipped puzzle of two solver moves")
    }

    fn texts(actions: &[Action]) -> Vec<String> {
        actions.iter().map(Action::to_string).collect()
    }

    #[test]
    fn each_move_of_the_line_is_answered_with_the_reply_then_solved() {
        let puzzle = two_move_puzzle();
        let first = answer(puzzle, &texts(&puzzle.solution[..1])).unwrap();
        assert_eq!(first.verdict, PuzzleVerdict::Correct);
        assert_eq!(first.reply, Some(puzzle.solution[1].to_string()));
        assert!(first.legal.contains(&puzzle.solution[2].to_string()));
        let last = answer(puzzle, &texts(&puzzle.solution)).unwrap();
        assert_eq!(last.verdict, PuzzleVerdict::Solved);
        assert_eq!(last.solution, Some(texts(&puzzle.solution)));
    }

    #[test]
    fn another_legal_move_is_wrong_and_shows_the_solution() {
        let puzzle = two_move_puzzle();
        let other = puzzle
            .start
            .legal_actions()
            .into_iter()
            .find(|a| *a != puzzle.solution[0])
            .expect("another legal action");
        let wrong = answer(puzzle, &[other.to_string()]).unwrap();
        assert_eq!(wrong.verdict, PuzzleVerdict::Wrong);
        assert_eq!(wrong.solution, Some(texts(&puzzle.solution)));
    }

    #[test]
    fn an_illegal_or_malformed_line_is_refused_with_the_reason() {
        let puzzle = two_move_puzzle();
        for moves in [
            vec![],
            vec!["z9".to_owned()],
            vec!["c3".to_owned(), "c4".to_owned()],
            vec!["a1-a1".to_owned(), "a1-a1".to_owned(), "a1-a1".to_owned()],
        ] {
            assert!(
                matches!(answer(puzzle, &moves), Err(HttpError::InvalidField { .. })),
                "{moves:?}"
            );
        }
    }

    fn fixture<T: serde::de::DeserializeOwned>(name: &str) -> T {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/protocol")
            .join(format!("{name}.json"));
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    #[test]
    fn the_documented_puzzle_and_answers_are_the_servers() {
        let shown: PuzzleView = fixture("http.puzzle");
        let puzzle = puzzle::find(&shown.id).expect("the documented puzzle is shipped");
        let stored = StoredPuzzle {
            id: puzzle.id.clone(),
            rating: Rating {
                rating: f64::from(puzzle.rating),
                deviation: f64::from(START_DEVIATION),
                volatility: baghchal_rating::START_VOLATILITY,
            },
            plays: 0,
        };
        let new_player = rating_view(&Rating::default(), 0);
        assert_eq!(view(puzzle, &stored, Some(new_player)), shown);
        let moves: PuzzleMoves = fixture("http.puzzle_moves");
        let correct: PuzzleAnswer = fixture("http.puzzle_answer.correct");
        assert_eq!(answer(puzzle, &moves.moves).unwrap(), correct);
        let wrong: PuzzleAnswer = fixture("http.puzzle_answer.wrong");
        assert_eq!(answer(puzzle, &["d5-c5".to_owned()]).unwrap(), wrong);
        // A new player's first solve of it, as the solved answer shows.
        let solved: PuzzleAnswer = fixture("http.puzzle_answer.solved");
        let mut served = answer(puzzle, &texts(&puzzle.solution)).unwrap();
        let rated =
            baghchal_rating::puzzle::rate_try(Rating::default(), stored.rating, true, false);
        served.rated = Some(rated_view(&FinishedTry { rated, tries: 1 }));
        assert_eq!(served, solved);
    }

    fn stored(id: &str, rating: f64) -> StoredPuzzle {
        StoredPuzzle {
            id: id.to_owned(),
            rating: Rating {
                rating,
                ..Rating::default()
            },
            plays: 0,
        }
    }

    #[test]
    fn a_player_gets_one_of_the_nearest_by_their_own_order_and_a_client_walks_through_them() {
        let near: Vec<StoredPuzzle> = puzzle::shipped()
            .iter()
            .take(5)
            .map(|p| stored(&p.id, f64::from(p.rating)))
            .collect();
        let (alice, _) = choose(&near, Some("alice"), None).unwrap();
        assert_eq!(choose(&near, Some("alice"), None).unwrap().0, alice);
        let players: BTreeSet<&str> = (0..20)
            .map(|i| {
                choose(&near, Some(&format!("player{i}")), None)
                    .unwrap()
                    .0
                    .id
                    .as_str()
            })
            .collect();
        assert!(
            players.len() > 1,
            "players are not all given the same puzzle"
        );
        let first = choose(&near, None, None).unwrap().0;
        assert_eq!(first.id, near[0].id);
        let second = choose(&near, None, Some(&first.id)).unwrap().0;
        assert_eq!(second.id, near[1].id);
        let unknown = [stored("not-shipped", 1500.0)];
        assert!(choose(&unknown, Some("alice"), None).is_none());
    }
}
