//! The current player and their account: `GET /api/me`, sign-up (`POST
//! /api/account`), log in and out (`POST`/`DELETE /api/session`), a new
//! password (`PUT /api/account/password`) and closing the account
//! (`DELETE /api/account`).
//!
//! Every request that changes something is authenticated by the session
//! cookie (`SameSite=Lax`) and must come from the site's own pages: a JSON
//! body (which a cross-site form cannot send without a preflight) and an
//! allowed `Origin`, as for every other state-changing request.

use std::net::SocketAddr;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{ConnectInfo, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use baghchal_protocol::{
    AccountClosing, AccountCredentials, Me, PasswordChange, PlayingGame, MAX_FRAME_BYTES,
};

use super::error::HttpError;
use super::request::read_json_post;
use crate::client_limit::client_address;
use crate::identity::names::AccountName;
use crate::identity::passwords::check_password;
use crate::identity::{self, Identity};
use crate::state::AppState;
use crate::storage::Naming;

/// The request's player, or `not_signed_in`.
pub(super) async fn identity_of(
    state: &AppState,
    headers: &HeaderMap,
) -> Result<Identity, HttpError> {
    identity::identify(&state.storage, headers)
        .await
        .map_err(HttpError::storage)?
        .ok_or(HttpError::NotSignedIn)
}

/// The player as `GET /api/me` describes them.
pub(super) async fn describe(state: &AppState, identity: &Identity) -> Result<Me, HttpError> {
    let player = &identity.player;
    let playing = state
        .storage
        .playing(&player.id)
        .await
        .map_err(HttpError::storage)?
        .into_iter()
        .map(|seat| PlayingGame {
            url: format!("{}/t/{}", state.public_url, seat.table),
            table: seat.table,
            lobby: seat.lobby,
        })
        .collect();
    let ratings = state
        .storage
        .ratings(&player.id)
        .await
        .map_err(HttpError::storage)?
        .iter()
        .map(|stored| stored.to_wire())
        .collect();
    Ok(Me {
        id: player.id.clone(),
        name: player.name.clone(),
        ratings,
        playing,
    })
}

/// `GET /api/me`: the current player. A browser without a session gets a
/// new anonymous player and its cookie (within its address's budget of
/// new players).
pub async fn me(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
) -> Result<Response, HttpError> {
    if let Some(identity) = identity::identify(&state.storage, &headers)
        .await
        .map_err(HttpError::storage)?
    {
        return Ok(Json(describe(&state, &identity).await?).into_response());
    }
    let client = client_address(peer, &headers, &state.trusted_proxies);
    state
        .accounts
        .newcomers
        .check(client)
        .map_err(HttpError::TooManyAttempts)?;
    let (identity, token) = identity::new_player(&state.storage)
        .await
        .map_err(HttpError::identity)?;
    tracing::info!(player_id = %identity.player.id, "new player");
    let me = describe(&state, &identity).await?;
    let mut response = Json(me).into_response();
    response.headers_mut().insert(
        header::SET_COOKIE,
        identity::session_cookie(&token, state.accounts.secure_cookies),
    );
    Ok(response)
}

/// `POST /api/account`: the current anonymous player takes a name and a
/// password, keeping every game and seat it has.
pub async fn sign_up(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Me>, HttpError> {
    let raw: AccountCredentials = read_json_post(&state.origins, &headers, body, MAX_FRAME_BYTES)?;
    let mut identity = identity_of(&state, &headers).await?;
    if identity.has_account() {
        return Err(HttpError::AlreadyAccount);
    }
    let name = AccountName::parse(&raw.name).map_err(|message| HttpError::InvalidField {
        field: "name".into(),
        message: message.into(),
    })?;
    check_password(&raw.password).map_err(|message| HttpError::InvalidField {
        field: "password".into(),
        message: message.into(),
    })?;
    let client = client_address(peer, &headers, &state.trusted_proxies);
    state
        .accounts
        .signups
        .check(client)
        .map_err(HttpError::TooManyAttempts)?;
    let hash = state
        .accounts
        .passwords
        .hash(raw.password)
        .await
        .map_err(HttpError::password)?;
    match state
        .storage
        .name_player(&identity.player.id, name.as_str(), name.key(), &hash)
        .await
        .map_err(HttpError::storage)?
    {
        Naming::Named => {}
        Naming::Taken => return Err(HttpError::NameTaken),
        Naming::NotAnonymous => return Err(HttpError::AlreadyAccount),
    }
    tracing::info!(player_id = %identity.player.id, "account created");
    identity.player.name = Some(name.as_str().to_owned());
    Ok(Json(describe(&state, &identity).await?))
}

/// `POST /api/session`: logs in; the browser's session becomes the
/// account's (an anonymous session it had is closed).
pub async fn log_in(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, HttpError> {
    let raw: AccountCredentials = read_json_post(&state.origins, &headers, body, MAX_FRAME_BYTES)?;
    let client = client_address(peer, &headers, &state.trusted_proxies);
    state
        .accounts
        .logins
        .check(client)
        .map_err(HttpError::TooManyAttempts)?;
    let key = raw.name.to_ascii_lowercase();
    state
        .accounts
        .login_names
        .check(&key)
        .map_err(HttpError::TooManyAttempts)?;
    let credentials = if raw.name.len() <= identity::names::MAX_NAME {
        state
            .storage
            .credentials(&key)
            .await
            .map_err(HttpError::storage)?
    } else {
        None
    };
    let hash = credentials.as_ref().map(|c| c.password_hash.clone());
    let password = raw.password.chars().take(512).collect();
    let right = state
        .accounts
        .passwords
        .verify(password, hash)
        .await
        .map_err(HttpError::password)?;
    let Some(credentials) = credentials.filter(|_| right) else {
        return Err(HttpError::WrongPassword);
    };
    if let Some(old) = identity::session_token(&headers) {
        state
            .storage
            .close_session(&crate::token::TokenHash::of(old))
            .await
            .map_err(HttpError::storage)?;
    }
    let token = crate::token::Token::generate()
        .map_err(|e| HttpError::identity(identity::IdentityError::Random(e)))?;
    state
        .storage
        .open_session(&credentials.player, &token.hash())
        .await
        .map_err(HttpError::storage)?;
    let identity = identity::identify_session(&state.storage, token.hash())
        .await
        .map_err(HttpError::storage)?
        .ok_or(HttpError::WrongPassword)?;
    tracing::info!(player_id = %identity.player.id, "logged in");
    let mut response = Json(describe(&state, &identity).await?).into_response();
    response.headers_mut().insert(
        header::SET_COOKIE,
        identity::session_cookie(&token, state.accounts.secure_cookies),
    );
    Ok(response)
}

/// `DELETE /api/session`: logs out. The browser forgets its cookie; its
/// next visit makes it a new anonymous player.
pub async fn log_out(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Response, HttpError> {
    if !state.origins.admits(&headers) {
        return Err(HttpError::ForbiddenOrigin);
    }
    if let Some(token) = identity::session_token(&headers) {
        state
            .storage
            .close_session(&crate::token::TokenHash::of(token))
            .await
            .map_err(HttpError::storage)?;
    }
    Ok(cleared(&state))
}

/// `PUT /api/account/password`: a new password, given the current one;
/// every other session of the account is closed.
pub async fn change_password(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<StatusCode, HttpError> {
    let raw: PasswordChange = read_json_post(&state.origins, &headers, body, MAX_FRAME_BYTES)?;
    let identity = account_of(&state, &headers).await?;
    check_password(&raw.new_password).map_err(|message| HttpError::InvalidField {
        field: "new_password".into(),
        message: message.into(),
    })?;
    confirm_password(&state, peer, &headers, &identity, raw.password).await?;
    let hash = state
        .accounts
        .passwords
        .hash(raw.new_password)
        .await
        .map_err(HttpError::password)?;
    state
        .storage
        .set_password(&identity.player.id, &hash, &identity.session)
        .await
        .map_err(HttpError::storage)?;
    tracing::info!(player_id = %identity.player.id, "password changed");
    Ok(StatusCode::NO_CONTENT)
}

/// `DELETE /api/account`: closes the account, given its password. Its
/// games stay, without its name; the name stays reserved.
pub async fn close_account(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, HttpError> {
    let raw: AccountClosing = read_json_post(&state.origins, &headers, body, MAX_FRAME_BYTES)?;
    let identity = account_of(&state, &headers).await?;
    confirm_password(&state, peer, &headers, &identity, raw.password).await?;
    state
        .storage
        .close_account(&identity.player.id)
        .await
        .map_err(HttpError::storage)?;
    tracing::info!(player_id = %identity.player.id, "account closed");
    Ok(cleared(&state))
}

/// The request's player, who must have an account.
async fn account_of(state: &AppState, headers: &HeaderMap) -> Result<Identity, HttpError> {
    let identity = identity_of(state, headers).await?;
    if identity.has_account() {
        Ok(identity)
    } else {
        Err(HttpError::AccountNeeded)
    }
}

/// Checks the account's current password, within the login budgets.
async fn confirm_password(
    state: &AppState,
    peer: SocketAddr,
    headers: &HeaderMap,
    identity: &Identity,
    password: String,
) -> Result<(), HttpError> {
    let client = client_address(peer, headers, &state.trusted_proxies);
    state
        .accounts
        .logins
        .check(client)
        .map_err(HttpError::TooManyAttempts)?;
    let hash = state
        .storage
        .password_hash(&identity.player.id)
        .await
        .map_err(HttpError::storage)?;
    let password = password.chars().take(512).collect();
    if state
        .accounts
        .passwords
        .verify(password, hash)
        .await
        .map_err(HttpError::password)?
    {
        Ok(())
    } else {
        Err(HttpError::WrongPassword)
    }
}

/// 204 with the cookie cleared.
fn cleared(state: &AppState) -> Response {
    (
        StatusCode::NO_CONTENT,
        [(
            header::SET_COOKIE,
            identity::cleared_cookie(state.accounts.secure_cookies),
        )],
    )
        .into_response()
}
