//! Why an HTTP request failed, and the error body every endpoint answers
//! with.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use baghchal_protocol::{ApiError, ApiErrorCode};

use crate::tables::TablesError;

/// Why a request failed. Internal causes are logged; clients get a
/// generic sentence.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    /// The body is not one JSON object.
    #[error("the body is not a JSON object: {0}")]
    InvalidJson(String),
    /// The body is over the route's limit, in bytes.
    #[error("the body is too large")]
    TooLarge(usize),
    /// The request comes from a page of another origin.
    #[error("forbidden origin")]
    ForbiddenOrigin,
    /// The client created too many tables; it may try again after this.
    #[error("too many tables")]
    TooManyTables(std::time::Duration),
    /// The client had too many games analysed; it may try again after
    /// this.
    #[error("too many analyses")]
    TooManyAnalyses(std::time::Duration),
    /// The client made too many API reads; it may try again after this.
    #[error("too many requests")]
    TooManyReads(std::time::Duration),
    /// The request does not say its body is JSON.
    #[error("the body is not declared as JSON")]
    NotJson,
    /// A field is missing, unknown, mistyped or out of range.
    #[error("{message}")]
    InvalidField {
        /// The field's dotted path.
        field: String,
        /// A sentence.
        message: String,
    },
    /// No such table or game.
    #[error("not found")]
    NotFound,
    /// No such player or speed class: what was not found.
    #[error("no such {0}")]
    Unknown(&'static str),
    /// The game is still being played: it cannot be analysed yet.
    #[error("the game is not over")]
    GameNotOver,
    /// The computer could not analyse the game.
    #[error("analysis failed")]
    AnalysisFailed,
    /// Too many websockets are open, from this address or in all.
    #[error("too many sockets")]
    TooManySockets(crate::connections::Refusal),
    /// The server cannot take it now.
    #[error(transparent)]
    Unavailable(#[from] TablesError),
    /// The request needs a session and has none.
    #[error("not signed in")]
    NotSignedIn,
    /// The name or the password is wrong.
    #[error("wrong name or password")]
    WrongPassword,
    /// Another account has the name.
    #[error("name taken")]
    NameTaken,
    /// The player already has an account.
    #[error("already an account")]
    AlreadyAccount,
    /// Only an account may do this.
    #[error("an account is needed")]
    AccountNeeded,
    /// An identity budget ran out (new players, sign-ups, logins).
    #[error("too many attempts")]
    TooManyAttempts(std::time::Duration),
    /// The database failed (logged; the client gets a generic answer).
    #[error("storage: {0}")]
    Storage(String),
    /// The password pool is full.
    #[error("busy")]
    Busy,
    /// The challenge is gone.
    #[error("taken")]
    Taken,
    /// The player is in a lobby game already.
    #[error("the player is busy")]
    PlayerBusy,
    /// The player has the most open challenges.
    #[error("too many challenges")]
    TooManyChallenges,
    /// One of two players blocks the other.
    #[error("blocked")]
    Blocked,
    /// The player blocks the most players already.
    #[error("too many blocks")]
    TooManyBlocks,
}

impl HttpError {
    /// A database failure, logged where it is answered (503).
    pub fn storage(e: crate::storage::StorageError) -> HttpError {
        HttpError::Storage(e.to_string())
    }

    /// A failure to make an identity.
    pub fn identity(e: crate::identity::IdentityError) -> HttpError {
        HttpError::Storage(e.to_string())
    }

    /// A failure of the password pool.
    pub fn password(e: crate::identity::passwords::PasswordError) -> HttpError {
        match e {
            crate::identity::passwords::PasswordError::Busy => HttpError::Busy,
            crate::identity::passwords::PasswordError::Failed(e) => HttpError::Storage(e),
        }
    }

    /// The wire code, the field at fault and a sentence for people.
    fn parts(self) -> (ApiErrorCode, Option<String>, String) {
        match self {
            HttpError::InvalidJson(message) => (
                ApiErrorCode::InvalidJson,
                None,
                format!("the body is not a JSON object: {message}"),
            ),
            HttpError::TooLarge(limit) => (
                ApiErrorCode::TooLarge,
                None,
                format!("the body is limited to {} KiB", limit / 1024),
            ),
            HttpError::ForbiddenOrigin => (
                ApiErrorCode::ForbiddenOrigin,
                None,
                "pages of other sites cannot use this server".into(),
            ),
            HttpError::TooManyTables(wait) => (
                ApiErrorCode::RateLimited,
                None,
                format!(
                    "too many tables from this address; try again in {} s",
                    retry_after(wait)
                ),
            ),
            HttpError::TooManyAnalyses(wait) => (
                ApiErrorCode::RateLimited,
                None,
                format!(
                    "too many analyses from this address; try again in {} s",
                    retry_after(wait)
                ),
            ),
            HttpError::TooManyReads(wait) => (
                ApiErrorCode::RateLimited,
                None,
                format!(
                    "too many requests from this address; try again in {} s",
                    retry_after(wait)
                ),
            ),
            HttpError::NotJson => (
                ApiErrorCode::UnsupportedMediaType,
                None,
                "send the body as Content-Type: application/json".into(),
            ),
            HttpError::InvalidField { field, message } => {
                (ApiErrorCode::InvalidField, Some(field), message)
            }
            HttpError::Unknown(what) => (
                ApiErrorCode::NotFound,
                None,
                format!("there is no such {what}"),
            ),
            HttpError::NotFound => (
                ApiErrorCode::NotFound,
                None,
                "there is no such table or game".into(),
            ),
            HttpError::GameNotOver => (
                ApiErrorCode::GameNotOver,
                None,
                "the game is still being played; it can be analysed once it is over".into(),
            ),
            HttpError::AnalysisFailed => (
                ApiErrorCode::Unavailable,
                None,
                "the analysis failed; try again".into(),
            ),
            HttpError::TooManySockets(crate::connections::Refusal::AddressFull) => (
                ApiErrorCode::RateLimited,
                None,
                "too many sockets from this address; close some first".into(),
            ),
            HttpError::TooManySockets(crate::connections::Refusal::Full) => (
                ApiErrorCode::Unavailable,
                None,
                "the server holds all the sockets it can; try again later".into(),
            ),
            HttpError::Unavailable(e) => {
                if matches!(e, TablesError::Full(_) | TablesError::BotsFull(_)) {
                    // A refusal for load, not a fault.
                    tracing::warn!(error = %e, "request refused");
                } else {
                    tracing::error!(error = %e, "request failed");
                }
                let message = match e {
                    TablesError::Full(_) => "the server is full; try again later",
                    TablesError::BotsFull(_) => {
                        "the server has as many computer-against-computer tables open as it allows; \
                         watch one of them, or try again later"
                    }
                    _ => "the server failed; try again",
                };
                (ApiErrorCode::Unavailable, None, message.into())
            }
            HttpError::NotSignedIn => (
                ApiErrorCode::NotSignedIn,
                None,
                "this needs a session: load the site's page first".into(),
            ),
            HttpError::WrongPassword => (
                ApiErrorCode::WrongPassword,
                None,
                "the name or the password is wrong".into(),
            ),
            HttpError::NameTaken => (
                ApiErrorCode::NameTaken,
                Some("name".into()),
                "another player has this name".into(),
            ),
            HttpError::AlreadyAccount => (
                ApiErrorCode::AlreadyAccount,
                None,
                "this player already has an account".into(),
            ),
            HttpError::AccountNeeded => (
                ApiErrorCode::AccountNeeded,
                None,
                "only a player with an account can do this: sign up first".into(),
            ),
            HttpError::TooManyAttempts(wait) => (
                ApiErrorCode::RateLimited,
                None,
                format!("too many attempts; try again in {} s", retry_after(wait)),
            ),
            HttpError::Storage(e) => {
                tracing::error!(error = %e, "request failed");
                (
                    ApiErrorCode::Unavailable,
                    None,
                    "the server failed; try again".into(),
                )
            }
            HttpError::Busy => (
                ApiErrorCode::Unavailable,
                None,
                "the server is busy; try again in a moment".into(),
            ),
            HttpError::Taken => (
                ApiErrorCode::Taken,
                None,
                "this challenge was taken or withdrawn".into(),
            ),
            HttpError::PlayerBusy => (
                ApiErrorCode::Busy,
                None,
                "a game the lobby made for you is still going on: finish it first".into(),
            ),
            HttpError::TooManyChallenges => (
                ApiErrorCode::RateLimited,
                None,
                "at most 3 open challenges: withdraw one first".into(),
            ),
            HttpError::Blocked => (
                ApiErrorCode::Blocked,
                None,
                "you cannot play this player: one of you blocks the other".into(),
            ),
            HttpError::TooManyBlocks => (
                ApiErrorCode::RateLimited,
                None,
                format!(
                    "at most {} blocked players: unblock one first",
                    crate::storage::MAX_BLOCKS
                ),
            ),
        }
    }
}

impl IntoResponse for HttpError {
    fn into_response(self) -> Response {
        let wait = match &self {
            HttpError::TooManyTables(wait)
            | HttpError::TooManyAnalyses(wait)
            | HttpError::TooManyReads(wait)
            | HttpError::TooManyAttempts(wait) => Some(retry_after(*wait)),
            _ => None,
        };
        let (error, field, message) = self.parts();
        let mut response = api_error(error, field, message);
        if let Some(seconds) = wait {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }
}

/// How the request log reports a failed response: a 503 is the server
/// refusing for load (a busy analysis board, the table or socket cap), a
/// client's flood can make thousands a second, and its cause, when it is
/// a fault, is logged where it happens; it is logged at DEBUG. Other
/// failures are logged at ERROR, as tower-http does by default.
pub fn log_failure(
    class: tower_http::classify::ServerErrorsFailureClass,
    latency: std::time::Duration,
    _span: &tracing::Span,
) {
    use tower_http::classify::ServerErrorsFailureClass;
    let latency_ms = latency.as_millis() as u64;
    match class {
        ServerErrorsFailureClass::StatusCode(StatusCode::SERVICE_UNAVAILABLE) => {
            tracing::debug!(latency_ms, "refused for load (503)");
        }
        class => tracing::error!(classification = %class, latency_ms, "response failed"),
    }
}

/// Whole seconds to wait, at least one.
fn retry_after(wait: std::time::Duration) -> u64 {
    wait.as_secs() + u64::from(wait.subsec_nanos() > 0)
}

/// An `ApiError` body with its code's status.
pub fn api_error(error: ApiErrorCode, field: Option<String>, message: String) -> Response {
    let status = StatusCode::from_u16(error.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (
        status,
        Json(ApiError {
            error,
            field,
            message,
        }),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    use tower_http::classify::ServerErrorsFailureClass;
    use tracing_subscriber::layer::SubscriberExt;

    use super::*;

    /// Counts the ERROR events.
    struct Errors(Arc<AtomicUsize>);

    impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Errors {
        fn on_event(
            &self,
            event: &tracing::Event<'_>,
            _: tracing_subscriber::layer::Context<'_, S>,
        ) {
            if *event.metadata().level() == tracing::Level::ERROR {
                self.0.fetch_add(1, Ordering::SeqCst);
            }
        }
    }

    #[test]
    fn a_refusal_for_load_is_not_logged_as_an_error_and_a_fault_is() {
        let errors = Arc::new(AtomicUsize::new(0));
        let subscriber = tracing_subscriber::registry().with(Errors(errors.clone()));
        tracing::subscriber::with_default(subscriber, || {
            let span = tracing::Span::none();
            let ms = std::time::Duration::from_millis(1);
            for _ in 0..100 {
                log_failure(
                    ServerErrorsFailureClass::StatusCode(StatusCode::SERVICE_UNAVAILABLE),
                    ms,
                    &span,
                );
            }
            assert_eq!(errors.load(Ordering::SeqCst), 0);
            log_failure(
                ServerErrorsFailureClass::StatusCode(StatusCode::INTERNAL_SERVER_ERROR),
                ms,
                &span,
            );
            assert_eq!(errors.load(Ordering::SeqCst), 1);
        });
        let full = HttpError::Unavailable(TablesError::Full(1));
        let errors_before = errors.load(Ordering::SeqCst);
        let subscriber = tracing_subscriber::registry().with(Errors(errors.clone()));
        tracing::subscriber::with_default(subscriber, || {
            let _ = full.into_response();
        });
        assert_eq!(errors.load(Ordering::SeqCst), errors_before);
    }
}
