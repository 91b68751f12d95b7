//! The puzzles: `GET /api/puzzles/next` hands out a puzzle of the shipped
//! set (`baghchal_engine::puzzle`) near the player's rating, and `POST
//! /api/puzzles/{id}/moves` checks a move against its line and answers
//! with the tablebase's reply. Nothing is stored: until players have an
//! identity the page keeps the streak and its rating.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, Query, State};
use axum::http::HeaderMap;
use axum::Json;
use baghchal_engine::puzzle::{self, Puzzle, START_DEVIATION};
use baghchal_protocol::{PuzzleAnswer, PuzzleMoves, PuzzleVerdict, PuzzleView, MAX_PUZZLE_MOVES};
use baghchal_rules::{Action, Position};
use baghchal_table::names::side_to_wire;
use serde::Deserialize;

use super::error::HttpError;
use super::request::read_json_post;
use crate::state::AppState;

/// The largest puzzle move body, in bytes.
pub const MAX_PUZZLE_BODY: usize = 1024;

/// How many puzzles nearest the rating asked for are chosen among.
const NEAREST: usize = 24;

/// The query of `GET /api/puzzles/next`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct NextQuery {
    /// The player's puzzle rating (default 1200).
    rating: Option<u16>,
    /// The puzzle just played, not to be handed out again at once.
    after: Option<String>,
    /// Only puzzles of this theme.
    theme: Option<String>,
}

/// The puzzle after `after` for a player of `rating`: among the
/// [`NEAREST`] of `set` (of the theme, when one is asked) closest to it,
/// the one a step past `after` in their order, so that a player walks
/// through them rather than meet one again.
fn choose<'a>(set: &'a [Puzzle], query: &NextQuery) -> Option<&'a Puzzle> {
    let rating = i32::from(query.rating.unwrap_or(1200).min(3000));
    let theme = match &query.theme {
        Some(name) => Some(name.parse::<puzzle::Theme>().ok()?),
        None => None,
    };
    let mut near: Vec<&Puzzle> = set
        .iter()
        .filter(|p| theme.is_none_or(|t| p.themes.contains(&t)))
        .collect();
    near.sort_by_key(|p| ((i32::from(p.rating) - rating).abs(), p.id.clone()));
    near.truncate(NEAREST);
    let next = query
        .after
        .as_deref()
        .and_then(|after| near.iter().position(|p| p.id == after))
        .map_or(0, |i| i + 1);
    near.get(next % near.len().max(1)).copied()
}

fn view(puzzle: &Puzzle) -> PuzzleView {
    PuzzleView {
        id: puzzle.id.clone(),
        position: puzzle.start.to_string(),
        side_to_move: side_to_wire(puzzle.solver()),
        themes: puzzle.themes.iter().map(|t| t.name().to_owned()).collect(),
        rating: puzzle.rating,
        rating_deviation: START_DEVIATION,
        plays: 0,
        solution: puzzle.solution.iter().map(Action::to_string).collect(),
        legal: legal(&puzzle.start),
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
pub async fn next(Query(query): Query<NextQuery>) -> Result<Json<PuzzleView>, HttpError> {
    choose(puzzle::shipped(), &query)
        .map(|p| Json(view(p)))
        .ok_or(HttpError::NotFound)
}

/// `POST /api/puzzles/{id}/moves`.
pub async fn moves(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<PuzzleAnswer>, HttpError> {
    let request: PuzzleMoves = read_json_post(&state.origins, &headers, body, MAX_PUZZLE_BODY)?;
    let puzzle = puzzle::shipped()
        .iter()
        .find(|p| p.id == id)
        .ok_or(HttpError::NotFound)?;
    answer(puzzle, &request.moves).map(Json)
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
        });
    }
    let Some(&reply) = puzzle.solution.get(played.len()) else {
        return Ok(PuzzleAnswer {
            verdict: PuzzleVerdict::Solved,
            reply: None,
            position: position.to_string(),
            legal: Vec::new(),
            solution: line(),
        });
    };
    position.play_unchecked(reply);
    Ok(PuzzleAnswer {
        verdict: PuzzleVerdict::Correct,
        reply: Some(reply.to_string()),
        legal: legal(&position),
        position: position.to_string(),
        solution: None,
    })
}

#[cfg(test)]
mod tests {
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
        let puzzle = puzzle::shipped()
            .iter()
            .find(|p| p.id == shown.id)
            .expect("the documented puzzle is shipped");
        assert_eq!(view(puzzle), shown);
        let moves: PuzzleMoves = fixture("http.puzzle_moves");
        let correct: PuzzleAnswer = fixture("http.puzzle_answer.correct");
        assert_eq!(answer(puzzle, &moves.moves).unwrap(), correct);
        let wrong: PuzzleAnswer = fixture("http.puzzle_answer.wrong");
        assert_eq!(answer(puzzle, &["d5-c5".to_owned()]).unwrap(), wrong);
    }

    #[test]
    fn the_next_puzzle_is_near_the_rating_and_not_the_one_just_played() {
        let set = puzzle::shipped();
        let first = choose(set, &NextQuery::default()).unwrap();
        let second = choose(
            set,
            &NextQuery {
                after: Some(first.id.clone()),
                ..NextQuery::default()
            },
        )
        .unwrap();
        assert_ne!(first.id, second.id);
        let hard = choose(
            set,
            &NextQuery {
                rating: Some(2500),
                ..NextQuery::default()
            },
        )
        .unwrap();
        let max = set.iter().map(|p| p.rating).max().unwrap();
        assert!(max - hard.rating <= 200, "{} of {max}", hard.rating);
        let trap = choose(
            set,
            &NextQuery {
                theme: Some("trap".into()),
                ..NextQuery::default()
            },
        )
        .unwrap();
        assert!(trap.themes.contains(&puzzle::Theme::Trap));
        assert!(choose(
            set,
            &NextQuery {
                theme: Some("nonsense".into()),
                ..NextQuery::default()
            }
        )
        .is_none());
    }
}
