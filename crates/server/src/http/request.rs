//! Reading the JSON body of a `POST` a browser page may send
//! (`POST /api/tables`, `POST /api/analysis`): the same checks, in the same
//! order, with the same refusals for every such endpoint.
//!
//! 1. an `Origin` that is not allowed: `403 forbidden_origin`;
//! 2. a `Content-Type` that is not `application/json`: `415`;
//! 3. a body over the route's limit: `413 too_large`;
//! 4. anything but one JSON object (a syntax error, trailing bytes, an
//!    array, a string, `null`): `400 invalid_json`;
//! 5. an object that is not the request (a field missing, unknown, of the
//!    wrong type, `null` included): `422 invalid_field` naming the field.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::http::{header, HeaderMap};
use serde::de::DeserializeOwned;

use super::error::HttpError;
use crate::origin::Origins;

/// Checks a browser-callable `POST` and reads its body as a `T`.
///
/// `body` is the body as axum buffered it under the route's
/// `DefaultBodyLimit`; `limit` is that limit in bytes, told to a client
/// whose body is over it.
pub fn read_json_post<T: DeserializeOwned>(
    origins: &Origins,
    headers: &HeaderMap,
    body: Result<Bytes, BytesRejection>,
    limit: usize,
) -> Result<T, HttpError> {
    if !origins.admits(headers) {
        return Err(HttpError::ForbiddenOrigin);
    }
    if !is_json(headers) {
        return Err(HttpError::NotJson);
    }
    let body = body.map_err(|_| HttpError::TooLarge(limit))?;
    read_object(&body)
}

/// Reads a body as one JSON object and then as a `T`, naming the field at
/// fault when it is not one.
///
/// The body is first read whole as JSON, so that anything that is not one
/// JSON object is `invalid_json`; only then is the object read as a `T`,
/// so that every field of the wrong type (`null` included) is
/// `invalid_field` naming it.
pub fn read_object<T: DeserializeOwned>(body: &[u8]) -> Result<T, HttpError> {
    let value: serde_json::Value =
        serde_json::from_slice(body).map_err(|e| HttpError::InvalidJson(e.to_string()))?;
    if !value.is_object() {
        return Err(HttpError::InvalidJson(
            "the body must be a JSON object".into(),
        ));
    }
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let message = e.into_inner().to_string();
        // serde names a missing or unknown field in its message, at the
        // path of the object that holds it.
        let named = ["missing field `", "unknown field `"]
            .iter()
            .find_map(|prefix| message.strip_prefix(prefix))
            .and_then(|rest| rest.split('`').next());
        let field = match (named, path.as_str()) {
            (Some(name), ".") => name.to_owned(),
            (Some(name), path) if path == name || path.ends_with(&format!(".{name}")) => {
                path.to_owned()
            }
            (Some(name), parent) => format!("{parent}.{name}"),
            (None, path) => path.to_owned(),
        };
        HttpError::InvalidField { field, message }
    })
}

/// Whether a request says its body is JSON (`application/json`, with or
/// without parameters such as `charset`).
fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|mime| mime.trim().eq_ignore_ascii_case("application/json"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Request {
        name: String,
        #[serde(default)]
        inner: Option<Inner>,
    }

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Inner {
        count: u8,
    }

    fn field_of(body: &str) -> String {
        match read_object::<Request>(body.as_bytes()) {
            Err(HttpError::InvalidField { field, .. }) => field,
            other => panic!("expected a field error, got {other:?}"),
        }
    }

    #[test]
    fn the_field_at_fault_is_named_by_its_dotted_path() {
        assert_eq!(field_of("{}"), "name");
        assert_eq!(field_of(r#"{"name":null}"#), "name");
        assert_eq!(field_of(r#"{"name":"a","extra":1}"#), "extra");
        assert_eq!(field_of(r#"{"name":"a","inner":{}}"#), "inner.count");
        assert_eq!(
            field_of(r#"{"name":"a","inner":{"count":300}}"#),
            "inner.count"
        );
        assert_eq!(
            field_of(r#"{"name":"a","inner":{"count":1,"more":2}}"#),
            "inner.more"
        );
    }

    #[test]
    fn anything_but_one_json_object_is_invalid_json() {
        for body in [
            &br#"{"name":"a"} trailing"#[..],
            br#"{"name":"a"}{}"#,
            b"[1,2]",
            br#""a""#,
            b"null",
            b"",
            b"{",
        ] {
            assert!(
                matches!(read_object::<Request>(body), Err(HttpError::InvalidJson(_))),
                "{}",
                String::from_utf8_lossy(body)
            );
        }
        assert!(read_object::<Request>(br#" {"name":"a"} "#).is_ok());
    }

    #[test]
    fn only_a_json_content_type_is_taken_for_json() {
        let with = |value: &'static str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::CONTENT_TYPE, value.parse().unwrap());
            is_json(&headers)
        };
        assert!(with("application/json"));
        assert!(with("Application/JSON; charset=utf-8"));
        assert!(!with("text/plain"));
        assert!(!with("application/x-www-form-urlencoded"));
        assert!(!is_json(&HeaderMap::new()));
    }

    #[test]
    fn the_origin_is_checked_before_the_content_type_and_the_body() {
        let origins = Origins::new("https://baghchal.example", &[] as &[&str]).unwrap();
        let body = || Ok(Bytes::from_static(br#"{"name":"a"}"#));
        let mut headers = HeaderMap::new();
        headers.insert(header::ORIGIN, "https://evil.example".parse().unwrap());
        let read = read_json_post::<Request>(&origins, &headers, body(), 1024);
        assert!(matches!(read, Err(HttpError::ForbiddenOrigin)), "{read:?}");
        headers.insert(header::ORIGIN, "https://baghchal.example".parse().unwrap());
        let read = read_json_post::<Request>(&origins, &headers, body(), 1024);
        assert!(matches!(read, Err(HttpError::NotJson)), "{read:?}");
        headers.insert(header::CONTENT_TYPE, "application/json".parse().unwrap());
        let read = read_json_post::<Request>(&origins, &headers, body(), 1024);
        assert_eq!(read.unwrap().name, "a");
    }
}
