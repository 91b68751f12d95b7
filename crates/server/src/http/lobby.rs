//! The lobby over HTTP: its state, its live channel (server-sent events),
//! challenges and pools. Every request but the state needs a session;
//! those that change something come from the site's own pages (an allowed
//! `Origin`, and the session cookie, which `SameSite=Lax` keeps off other
//! sites' requests) and are budgeted per player.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{ConnectInfo, Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::Json;
use baghchal_protocol::{
    Challenge, CreateChallenge, LiveGames, LobbyState, Paired, PoolJoined, MAX_FRAME_BYTES,
};
use futures_util::Stream;

use super::account::identity_of;
use super::error::HttpError;
use super::request::read_json_post;
use crate::client_limit::client_address;
use crate::identity::Identity;
use crate::lobby::{LobbyError, Terms};
use crate::state::AppState;

impl From<LobbyError> for HttpError {
    fn from(e: LobbyError) -> HttpError {
        match e {
            LobbyError::Storage(e) => HttpError::storage(e),
            LobbyError::Field { field, message } => HttpError::InvalidField {
                field: field.to_owned(),
                message,
            },
            LobbyError::AccountNeeded => HttpError::AccountNeeded,
            LobbyError::Taken => HttpError::Taken,
            LobbyError::Busy => HttpError::PlayerBusy,
            LobbyError::Blocked => HttpError::Blocked,
            LobbyError::UnknownPlayer => HttpError::Unknown("player"),
            LobbyError::TooManyBlocks => HttpError::TooManyBlocks,
            LobbyError::TooManyChallenges => HttpError::TooManyChallenges,
            LobbyError::NotFound => HttpError::NotFound,
            LobbyError::Random => HttpError::Storage("no random bytes".into()),
        }
    }
}

/// The request's player, from the site's own pages, within their budget
/// of lobby actions.
pub(super) async fn actor(state: &AppState, headers: &HeaderMap) -> Result<Identity, HttpError> {
    if !state.origins.admits(headers) {
        return Err(HttpError::ForbiddenOrigin);
    }
    let identity = identity_of(state, headers).await?;
    state
        .lobby_actions
        .check(&identity.player.id)
        .map_err(HttpError::TooManyAttempts)?;
    Ok(identity)
}

/// `GET /api/lobby`: the open challenges, the pools and the counts; with
/// a session, without the challenges of players where either blocks the
/// other.
pub async fn lobby_state(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Json<LobbyState>, HttpError> {
    let identity = crate::identity::identify(&state.storage, &headers)
        .await
        .map_err(HttpError::storage)?;
    let lobby = match identity {
        Some(identity) => state.lobby.state_for(&identity.player.id).await,
        None => state.lobby.state().await,
    };
    Ok(Json(lobby.map_err(HttpError::storage)?))
}

/// `GET /api/live`: the lobby games in progress, to watch.
pub async fn live_games(State(state): State<AppState>) -> Result<Json<LiveGames>, HttpError> {
    Ok(Json(state.lobby.live().await.map_err(HttpError::storage)?))
}

/// `GET /api/lobby/events`: the live channel. The lobby's state first and
/// whenever it changes, `paired` when the lobby seats the player at a new
/// table. Closing it takes the player's challenges and pool place away.
pub async fn lobby_events(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, HttpError> {
    let identity = identity_of(&state, &headers).await?;
    let address = client_address(peer, &headers, &state.trusted_proxies);
    let pass = state
        .lobby_channels
        .enter(Some(address))
        .map_err(HttpError::TooManySockets)?;
    let channel = state.lobby.open(&identity.player.id);
    let shutdown = state.shutdown.clone();
    let stream = futures_util::stream::unfold(
        (channel, pass, shutdown),
        |(mut channel, pass, shutdown)| async move {
            let event = tokio::select! {
                () = shutdown.cancelled() => None,
                event = channel.events.recv() => event,
            }?;
            let data = serde_json::to_string(&event).ok()?;
            Some((Ok(Event::default().data(data)), (channel, pass, shutdown)))
        },
    );
    Ok(Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))))
}

/// `POST /api/challenges`.
pub async fn create_challenge(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<(StatusCode, Json<Challenge>), HttpError> {
    let raw: CreateChallenge = read_json_post(&state.origins, &headers, body, MAX_FRAME_BYTES)?;
    let terms = Terms::parse(&raw)?;
    let identity = actor(&state, &headers).await?;
    let challenge = state
        .lobby
        .challenge(&identity.player.id, identity.has_account(), &terms)
        .await?;
    Ok((StatusCode::CREATED, Json(challenge)))
}

/// `DELETE /api/challenges/{id}`.
pub async fn withdraw_challenge(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<StatusCode, HttpError> {
    let identity = actor(&state, &headers).await?;
    state.lobby.withdraw(&identity.player.id, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `POST /api/challenges/{id}/accept`.
pub async fn accept_challenge(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<(StatusCode, Json<Paired>), HttpError> {
    let identity = actor(&state, &headers).await?;
    let paired = state
        .lobby
        .accept(&identity.player.id, identity.has_account(), &id)
        .await?;
    Ok((StatusCode::CREATED, Json(paired)))
}

/// `POST /api/pools/{pool}`.
pub async fn join_pool(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(pool): Path<String>,
) -> Result<Json<PoolJoined>, HttpError> {
    let identity = actor(&state, &headers).await?;
    let joined = state
        .lobby
        .join_pool(&identity.player.id, identity.has_account(), &pool)
        .await?;
    Ok(Json(joined))
}

/// `DELETE /api/pools/{pool}`.
pub async fn leave_pool(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(pool): Path<String>,
) -> Result<StatusCode, HttpError> {
    let identity = actor(&state, &headers).await?;
    state.lobby.leave_pool(&identity.player.id, &pool).await?;
    Ok(StatusCode::NO_CONTENT)
}
