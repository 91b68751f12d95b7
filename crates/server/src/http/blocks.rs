//! Blocking over HTTP: the players the current player blocks (`GET
//! /api/blocks`), and blocking or unblocking one (`PUT`/`DELETE
//! /api/players/{id}/block`). Changes come from the site's own pages and
//! share the player's budget of lobby actions.

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::Json;
use baghchal_protocol::BlockList;

use super::account::identity_of;
use super::error::HttpError;
use super::lobby::actor;
use crate::state::AppState;

/// The longest player id the server looks up; longer ones are unknown.
const MAX_ID_BYTES: usize = 64;

/// `GET /api/blocks`.
pub async fn list(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Json<BlockList>, HttpError> {
    let identity = identity_of(&state, &headers).await?;
    Ok(Json(state.lobby.blocks(&identity.player.id).await?))
}

/// `PUT /api/players/{id}/block`: `204`, the block stored.
pub async fn block(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<StatusCode, HttpError> {
    let identity = actor(&state, &headers).await?;
    if id.len() > MAX_ID_BYTES {
        return Err(HttpError::Unknown("player"));
    }
    state.lobby.block(&identity.player.id, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `DELETE /api/players/{id}/block`: `204`, whether or not the player was
/// blocked.
pub async fn unblock(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<StatusCode, HttpError> {
    let identity = actor(&state, &headers).await?;
    if id.len() <= MAX_ID_BYTES {
        state.lobby.unblock(&identity.player.id, &id).await?;
    }
    Ok(StatusCode::NO_CONTENT)
}
