//! `POST /api/analysis`: the analysis board. A start and a line played
//! from it, or a pasted game, become a position under its rules (the
//! repetition rule applied along the line); every legal action of the
//! side to move is valued by the computer, off the async threads, at a
//! bounded cost.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use std::net::SocketAddr;

use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use baghchal_protocol::{self as wire, AnalysisBoard, AnalysisRequest, ApiError, ApiErrorCode};
use baghchal_rules::notation::{self, Format, NotationError};
use baghchal_rules::{Action, Game, Position, Rules};

use super::error::HttpError;
use super::request::read_json_post;
use crate::bot::Unavailable;
use crate::client_limit::client_address;
use crate::state::AppState;
use baghchal_table::names::{
    format_from_wire, format_to_wire, phase_to_wire, result_to_wire, side_to_wire,
};
use baghchal_table::options::{rules_from_variant, variant_of};

/// The largest analysis request body, in bytes: a pasted game of OBX
/// lines is about 45 bytes a ply.
pub const MAX_ANALYSIS_BODY: usize = 64 * 1024;

/// The most words (runs of non-space) of a pasted game, counted before
/// it is read: a game of [`wire::MAX_ANALYSIS_ACTIONS`] actions takes at
/// most about 5 a ply (OBX, a position a line), 1.5 (the PyPI move list)
/// or 1 (a record), with a few lines of headers.
pub const MAX_PASTED_WORDS: usize = 6 * wire::MAX_ANALYSIS_ACTIONS + 100;

/// Why an analysis request failed.
#[derive(Debug, thiserror::Error)]
pub enum AnalysisError {
    /// A failure every endpoint has.
    #[error(transparent)]
    Http(#[from] HttpError),
    /// An action of the line is malformed or illegal where it stands.
    #[error("{message}")]
    IllegalAction {
        /// `actions` or `game`.
        field: &'static str,
        /// `ply N: ACTION: REASON`.
        message: String,
    },
    /// As many analysis-board requests as the computer has thinkers are
    /// being served.
    #[error("the analysis board is busy")]
    Busy,
    /// This client address has as many requests in flight as it may.
    #[error("too many analysis-board requests from this address")]
    AddressBusy,
    /// A pasted text does not parse in its notation.
    #[error("{message}")]
    InvalidNotation {
        /// `game` (or `format` for an export).
        field: &'static str,
        /// Where and what.
        message: String,
    },
}

impl IntoResponse for AnalysisError {
    fn into_response(self) -> Response {
        let (error, field, message) = match self {
            AnalysisError::Http(e) => return e.into_response(),
            AnalysisError::Busy => {
                let body = ApiError {
                    error: ApiErrorCode::Unavailable,
                    field: None,
                    message: "the analysis board is busy; try again in a moment".into(),
                };
                return (StatusCode::SERVICE_UNAVAILABLE, Json(body)).into_response();
            }
            AnalysisError::AddressBusy => {
                let body = ApiError {
                    error: ApiErrorCode::RateLimited,
                    field: None,
                    message: "too many analysis-board requests from this address at once; \
                              wait for their answers"
                        .into(),
                };
                return (StatusCode::TOO_MANY_REQUESTS, Json(body)).into_response();
            }
            AnalysisError::IllegalAction { field, message } => {
                (ApiErrorCode::IllegalAction, field, message)
            }
            AnalysisError::InvalidNotation { field, message } => {
                (ApiErrorCode::InvalidNotation, field, message)
            }
        };
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            Json(ApiError {
                error,
                field: Some(field.into()),
                message,
            }),
        )
            .into_response()
    }
}

fn invalid_field(field: impl Into<String>, message: impl Into<String>) -> AnalysisError {
    AnalysisError::Http(HttpError::InvalidField {
        field: field.into(),
        message: message.into(),
    })
}

/// Whether a stored review is in the shape this server writes
/// ([`wire::ANALYSIS_VERSION`]); one of an earlier shape is computed
/// again, so that a page never meets values it cannot read.
pub fn is_current(stored: &str) -> bool {
    #[derive(serde::Deserialize)]
    struct Version {
        version: Option<u32>,
    }
    serde_json::from_str::<Version>(stored).is_ok_and(|v| v.version == Some(wire::ANALYSIS_VERSION))
}

/// The game a request describes: its start and line, played and checked,
/// with the notation a pasted game was read in.
pub fn game_of(request: &AnalysisRequest) -> Result<(Game, Option<Format>), AnalysisError> {
    let rules = match &request.variant {
        Some(v) => rules_from_variant(v).map_err(|e| invalid_field(e.field, e.message))?,
        None => Rules::default(),
    };
    if let Some(pasted) = &request.game {
        if request.start.is_some() || !request.actions.is_empty() {
            return Err(invalid_field(
                "game",
                "give either a game or a start and actions, not both",
            ));
        }
        // Bounded before anything is read: no notation needs this many
        // words for a game within the action cap.
        let words = pasted.text.split_whitespace().count();
        if words > MAX_PASTED_WORDS {
            return Err(invalid_field(
                "game",
                format!(
                    "a pasted game has at most {MAX_PASTED_WORDS} words here, not {words} \
                     (at most {} actions)",
                    wire::MAX_ANALYSIS_ACTIONS
                ),
            ));
        }
        let format = match pasted.format {
            Some(format) => format_from_wire(format),
            None => notation::detect(&pasted.text).map_err(|e| AnalysisError::InvalidNotation {
                field: "game",
                message: e.to_string(),
            })?,
        };
        let game = notation::read(format, &pasted.text, rules).map_err(|e| {
            let message = format!("{format}: {e}");
            match e {
                NotationError::Illegal { .. } => AnalysisError::IllegalAction {
                    field: "game",
                    message,
                },
                _ => AnalysisError::InvalidNotation {
                    field: "game",
                    message,
                },
            }
        })?;
        if game.actions().len() > wire::MAX_ANALYSIS_ACTIONS {
            return Err(invalid_field(
                "game",
                format!(
                    "a game has at most {} actions here, not {}",
                    wire::MAX_ANALYSIS_ACTIONS,
                    game.actions().len()
                ),
            ));
        }
        return Ok((game, Some(format)));
    }
    let start = match &request.start {
        Some(text) => {
            let start = Position::from_text(text, rules)
                .map_err(|e| invalid_field("start", format!("{text:?}: {e}")))?;
            start
                .check_turn()
                .map_err(|e| invalid_field("start", format!("{text:?}: {e}")))?;
            start
        }
        None => Position::new(rules),
    };
    if request.actions.len() > wire::MAX_ANALYSIS_ACTIONS {
        return Err(invalid_field(
            "actions",
            format!(
                "a line has at most {} actions, not {}",
                wire::MAX_ANALYSIS_ACTIONS,
                request.actions.len()
            ),
        ));
    }
    let mut game = Game::from_position(start);
    for text in &request.actions {
        let ply = u32::from(game.position().ply()) + 1;
        let illegal = |reason: String| AnalysisError::IllegalAction {
            field: "actions",
            message: format!("ply {ply}: {text}: {reason}"),
        };
        let action: Action = text.parse().map_err(|e| illegal(format!("{e}")))?;
        game.play(action).map_err(|e| illegal(e.to_string()))?;
    }
    Ok((game, None))
}

/// `POST /api/analysis`.
pub async fn analyse(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<AnalysisBoard>, AnalysisError> {
    let request: AnalysisRequest =
        read_json_post(&state.origins, &headers, body, MAX_ANALYSIS_BODY)?;
    // One address holds only its share of the places in flight.
    let client = client_address(peer, &headers, &state.trusted_proxies);
    let _share = state.boards_by_address.enter(Some(client)).map_err(|_| {
        crate::stats::analysis_board_refused("address");
        AnalysisError::AddressBusy
    })?;
    // The place in flight is taken before the line is read, and the line
    // (a pasted game is a replay) is read off the async threads.
    let slot = state
        .computer
        .board_slot()
        .map_err(|_| AnalysisError::Busy)?;
    let (game, format) = tokio::task::spawn_blocking(move || game_of(&request))
        .await
        .map_err(|e| {
            tracing::error!(error = %e, "reading an analysis request failed");
            AnalysisError::Http(HttpError::AnalysisFailed)
        })??;
    let position = game.position().clone();
    let legal = if position.is_finished() {
        Vec::new()
    } else {
        state
            .computer
            .value_actions_in(&slot, game.clone())
            .await
            .map_err(|e| match e {
                Unavailable::Busy => {
                    crate::stats::analysis_board_refused("busy");
                    AnalysisError::Busy
                }
                Unavailable::Failed => AnalysisError::Http(HttpError::AnalysisFailed),
            })?
    };
    let rules = position.rules();
    Ok(Json(AnalysisBoard {
        variant: variant_of(rules),
        start: game.start().to_string(),
        actions: game.actions().iter().map(Action::to_string).collect(),
        position: position.to_string(),
        side_to_move: side_to_wire(position.side_to_move()),
        phase: phase_to_wire(position.phase()),
        in_hand: position.in_hand(),
        eaten: position.eaten(),
        goats_to_win: rules.goats_to_win(),
        ply: position.ply(),
        ply_limit: rules.ply_limit(),
        result: position.outcome().map(result_to_wire),
        best: legal.first().map(|v| v.action.clone()),
        legal,
        game_format: format.map(format_to_wire),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::request::read_object;

    fn message(request: &str) -> (String, String) {
        let parsed = read_object(request.as_bytes())
            .map_err(AnalysisError::from)
            .and_then(|r| game_of(&r).map(|(game, _)| game));
        match parsed {
            Err(AnalysisError::IllegalAction { field, message }) => (field.into(), message),
            Err(AnalysisError::InvalidNotation { field, message }) => (field.into(), message),
            Err(AnalysisError::Http(HttpError::InvalidField { field, message })) => {
                (field, message)
            }
            other => panic!("expected a request error, got {other:?}"),
        }
    }

    #[test]
    fn a_review_stored_in_the_earlier_shape_is_not_current() {
        let old = r#"{"actions":[{"action":"c3","after":{"kind":"score","score":-310},"after_source":"search","before":{"kind":"score","score":-250},"before_source":"search","best":"a3","cost":60,"ply":0,"side":"goats"}],"game":1,"table":"t"}"#;
        assert!(!is_current(old));
        assert!(!is_current("not json"));
        let current = wire::GameAnalysis {
            version: wire::ANALYSIS_VERSION,
            table: "t".into(),
            game: 1,
            actions: Vec::new(),
        };
        assert!(is_current(&serde_json::to_string(&current).unwrap()));
    }

    #[test]
    fn a_busy_board_is_told_to_try_again() {
        let response = AnalysisError::Busy.into_response();
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        let response = AnalysisError::Http(HttpError::TooLarge(MAX_ANALYSIS_BODY)).into_response();
        assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
    }

    #[test]
    fn each_bad_request_names_its_field() {
        assert_eq!(message(r#"{"moves":[]}"#).0, "moves");
        assert_eq!(message(r#"{"variant":{"tigers":3}}"#).0, "variant.tigers");
        assert_eq!(
            message(r#"{"variant":{"goats_to_win":9}}"#).0,
            "variant.goats_to_win"
        );
        assert_eq!(message(r#"{"start":"T...T g 20 0 0"}"#).0, "start");
        assert_eq!(
            message(r#"{"game":{"format":"record","text":""},"actions":["c3"]}"#).0,
            "game"
        );
        let long = format!(r#"{{"actions":[{}]}}"#, vec!["\"c3\""; 1001].join(","));
        assert_eq!(message(&long).0, "actions");
    }

    #[test]
    fn a_pasted_game_of_too_many_words_is_refused_before_it_is_read() {
        // Read, it would be refused at its second action (c3 is taken).
        let text = format!("actions {}", vec!["c3"; MAX_PASTED_WORDS].join(" "));
        let request = format!(r#"{{"game":{{"format":"record","text":"{text}"}}}}"#);
        let (field, said) = message(&request);
        assert_eq!(field, "game");
        assert!(said.contains("words"), "{said}");
        // Within the bound, the same text is read (and refused for its
        // second action).
        let text = "actions c3 c3";
        let request = format!(r#"{{"game":{{"format":"record","text":"{text}"}}}}"#);
        assert!(!message(&request).1.contains("words"));
    }

    #[test]
    fn an_illegal_line_is_refused_with_the_ply_and_the_reason() {
        assert_eq!(
            message(r#"{"actions":["c3","a1-b2","b2"]}"#),
            ("actions".into(), "ply 3: b2: that point is occupied".into())
        );
        assert_eq!(
            message(r#"{"actions":["c3","a1-z9"]}"#).1,
            "ply 2: a1-z9: invalid point at offset 3: invalid point: expected a column a-e and a row 1-5, like c3"
        );
        assert_eq!(
            message(r#"{"start":"T...T/...../...../...../T...T g 20 0 6","actions":["c3","a1-b2","b2-c3"]}"#).1,
            "ply 9: b2-c3: goats must be placed while any are in hand"
        );
        assert_eq!(
            message(r#"{"game":{"format":"pypi","text":"1. G33 B5142 2. G42"}}"#),
            (
                "game".into(),
                "pypi: line 1, ply 3: G42: that point is occupied".into()
            )
        );
        assert_eq!(
            message(r#"{"game":{"format":"obx","text":"TXXXT/XXXXX/XXXXX/XXXXX/TXXXT q c0 - 0"}}"#),
            (
                "game".into(),
                "obx: line 1: the turn is g or t, not q".into()
            )
        );
        assert_eq!(
            message(
                r#"{"game":{"text":"TGXXT/XXXXX/XXXXX/XXXXX/TXXXT t c0 mB1 #g1\nXXTXT/XXXXX/XXGXX/XXXXX/TXXXX g c1 mA1C3(B1) #t1"}}"#
            ),
            (
                "game".into(),
                "obx: line 2, ply 2: mA1C3(B1): the jump from A1 to C3 passes over B2, not B1"
                    .into()
            )
        );
    }

    #[test]
    fn a_start_no_game_reaches_is_refused() {
        assert_eq!(
            message(r#"{"start":"T...T/...../...../...../T...T t 20 0 0"}"#),
            (
                "start".into(),
                "\"T...T/...../...../...../T...T t 20 0 0\": at ply 0 it is the goats' turn, \
                 not the tigers': the goats move first, at the even plies"
                    .into()
            )
        );
        assert_eq!(
            message(r#"{"game":{"text":"TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t c0 - #t1"}}"#).1,
            "obx: line 1: start: the move number counts the tigers' moves, so the goats' turn \
             comes next, not the tigers'"
        );
    }

    #[test]
    fn the_repetition_rule_applies_along_the_line() {
        let request = AnalysisRequest {
            start: Some("T...T/GGGGG/GG.GG/GGGGG/TG.GT t 0 4 101".into()),
            actions: vec!["a5-b5".into(), "c4-c3".into(), "b5-a5".into()],
            ..AnalysisRequest::default()
        };
        let (game, _) = game_of(&request).unwrap();
        assert!(!game.position().is_legal(&"c3-c4".parse().unwrap()));
        let request = AnalysisRequest {
            actions: [&request.actions[..], &["c3-c4".to_owned()]].concat(),
            ..request
        };
        assert_eq!(
            message(&serde_json::to_string(&request).unwrap()).1,
            "ply 105: c3-c4: that would repeat an earlier position"
        );
    }
}
