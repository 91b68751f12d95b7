//! `GET /api/tables/{table}/games/{game}/notation/{format}`: one game of a
//! table as text in a notation (the rules crate's `notation` module).

use axum::extract::{Path, Query, State};
use axum::http::header;
use axum::response::IntoResponse;
use baghchal_rules::notation::{self, Format};
use baghchal_rules::Record;

use super::analysis::AnalysisError;
use super::error::HttpError;
use super::{find_record, BoardQuery};
use crate::state::AppState;

/// `GET /api/tables/{table}/games/{game}/notation/{format}`: the game as
/// `text/plain`; 404 for an unknown table, game or format, 422 when the
/// notation cannot express the game.
pub async fn export(
    State(state): State<AppState>,
    Path((table, game, format)): Path<(String, String, String)>,
    Query(board): Query<BoardQuery>,
) -> Result<impl IntoResponse, AnalysisError> {
    let format: Format = format.parse().map_err(|_| HttpError::NotFound)?;
    let record = find_record(&state, &table, &game, &board).await?;
    let replayed = record
        .record
        .parse::<Record>()
        .ok()
        .and_then(|r| r.replay().ok());
    let Some(replayed) = replayed else {
        tracing::error!(table = %record.table, game = record.game, "a stored game does not replay");
        return Err(HttpError::AnalysisFailed.into());
    };
    let text = notation::write(format, &replayed).map_err(|e| AnalysisError::InvalidNotation {
        field: "format",
        message: e.to_string(),
    })?;
    Ok(([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], text))
}
