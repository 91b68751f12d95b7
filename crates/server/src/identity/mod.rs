//! Who a request comes from: every browser is a player from its first
//! visit, known by a session cookie (`HttpOnly`, `SameSite=Lax`, `Secure`
//! behind https) whose token the database keeps only as a hash, so that
//! every node serves every session. Accounts add a name and a password
//! ([`names`], [`passwords`]).

pub mod budgets;
pub mod names;
pub mod passwords;

use axum::http::header::COOKIE;
use axum::http::{HeaderMap, HeaderValue};

use crate::storage::{PlayerRow, Storage, StorageError};
use crate::token::{self, Token, TokenHash};

/// The session cookie's name.
pub const SESSION_COOKIE: &str = "baghchal_session";

/// How long a browser keeps the cookie: a year from its last issue.
const COOKIE_MAX_AGE_S: u64 = 365 * 24 * 3600;

/// A request's player, found through its session.
#[derive(Clone, Debug)]
pub struct Identity {
    /// The player.
    pub player: PlayerRow,
    /// The hash of the session's token.
    pub session: TokenHash,
}

impl Identity {
    /// Whether the player has an account.
    pub fn has_account(&self) -> bool {
        self.player.name.is_some()
    }
}

/// The session token a request's cookies carry, if any (the first of that
/// name that could be a token).
pub fn session_token(headers: &HeaderMap) -> Option<&str> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|cookies| cookies.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, value)| *name == SESSION_COOKIE && token::is_token(value))
        .map(|(_, value)| value)
}

/// The player of the request's session, if it has an open one.
pub async fn identify(
    storage: &Storage,
    headers: &HeaderMap,
) -> Result<Option<Identity>, StorageError> {
    let Some(token) = session_token(headers) else {
        return Ok(None);
    };
    identify_session(storage, TokenHash::of(token)).await
}

/// The player of the open session whose token hashes to `session`.
pub async fn identify_session(
    storage: &Storage,
    session: TokenHash,
) -> Result<Option<Identity>, StorageError> {
    Ok(storage
        .session_player(&session)
        .await?
        .filter(|player| !player.closed)
        .map(|player| Identity { player, session }))
}

/// Why no identity could be made.
#[derive(Debug, thiserror::Error)]
pub enum IdentityError {
    /// The database failed.
    #[error(transparent)]
    Storage(#[from] StorageError),
    /// The system's random source failed.
    #[error("no random bytes: {0}")]
    Random(#[from] getrandom::Error),
}

/// A new anonymous player with a session: its identity and the token for
/// the cookie.
pub async fn new_player(storage: &Storage) -> Result<(Identity, Token), IdentityError> {
    let id = token::table_id()?;
    let token = Token::generate()?;
    let session = token.hash();
    storage.create_player(&id, &session).await?;
    let player = storage
        .player(&id)
        .await?
        .ok_or_else(|| StorageError::Corrupt {
            table: String::new(),
            what: format!("player {id} not found after its creation"),
        })?;
    Ok((Identity { player, session }, token))
}

/// The `Set-Cookie` value that hands `token` to the browser.
pub fn session_cookie(token: &Token, secure: bool) -> HeaderValue {
    cookie(token.as_str(), COOKIE_MAX_AGE_S, secure)
}

/// The `Set-Cookie` value that makes the browser forget its session.
pub fn cleared_cookie(secure: bool) -> HeaderValue {
    cookie("", 0, secure)
}

fn cookie(value: &str, max_age: u64, secure: bool) -> HeaderValue {
    let secure = if secure { "; Secure" } else { "" };
    let text = format!(
        "{SESSION_COOKIE}={value}; Path=/; Max-Age={max_age}; HttpOnly; SameSite=Lax{secure}"
    );
    // The token is base64url and the rest is fixed text: always a valid
    // header value.
    HeaderValue::from_str(&text).unwrap_or_else(|_| HeaderValue::from_static(""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_session_token_is_found_among_other_cookies() {
        let token = Token::generate().unwrap();
        let mut headers = HeaderMap::new();
        headers.append(COOKIE, HeaderValue::from_static("theme=dark; lang=ne"));
        headers.append(
            COOKIE,
            HeaderValue::from_str(&format!("a=1; {SESSION_COOKIE}={}", token.as_str())).unwrap(),
        );
        assert_eq!(session_token(&headers), Some(token.as_str()));
    }

    #[test]
    fn a_cookie_that_is_not_a_token_is_no_session() {
        let mut headers = HeaderMap::new();
        headers.insert(
            COOKIE,
            HeaderValue::from_str(&format!("{SESSION_COOKIE}=' OR 1=1 --")).unwrap(),
        );
        assert_eq!(session_token(&headers), None);
        assert_eq!(session_token(&HeaderMap::new()), None);
    }

    #[test]
    fn the_cookie_is_http_only_same_site_lax_and_secure_behind_https() {
        let token = Token::generate().unwrap();
        let plain = session_cookie(&token, false);
        let plain = plain.to_str().unwrap();
        assert!(plain.contains("HttpOnly") && plain.contains("SameSite=Lax"));
        assert!(!plain.contains("Secure"));
        assert!(session_cookie(&token, true)
            .to_str()
            .unwrap()
            .ends_with("; Secure"));
        assert!(cleared_cookie(false)
            .to_str()
            .unwrap()
            .contains("Max-Age=0"));
    }
}
