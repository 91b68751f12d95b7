//! Which web pages may create tables and open sockets: the `Origin` a
//! browser sends is checked against the public URL's origin and the
//! operator's list, so that no other site can make a visitor's browser
//! act on this server.

use std::collections::BTreeSet;

use axum::http::{header, HeaderMap};
use url::Url;

/// The origins allowed to use the API from a browser.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origins(BTreeSet<String>);

/// A text that is not an origin (`scheme://host[:port]`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not an http or https origin such as https://baghchal.example")]
pub struct BadOrigin(pub String);

impl Origins {
    /// The public URL's origin and each of `extra`.
    ///
    /// ```
    /// use baghchal_server::origin::Origins;
    /// let origins = Origins::new("https://baghchal.example/", &["http://localhost:8080"]).unwrap();
    /// assert!(origins.allows("https://baghchal.example"));
    /// assert!(origins.allows("http://localhost:8080"));
    /// assert!(!origins.allows("https://evil.example"));
    /// ```
    pub fn new(public_url: &str, extra: &[impl AsRef<str>]) -> Result<Origins, BadOrigin> {
        let mut set = BTreeSet::new();
        for text in std::iter::once(public_url).chain(extra.iter().map(AsRef::as_ref)) {
            set.insert(origin_of(text).ok_or_else(|| BadOrigin(text.to_owned()))?);
        }
        Ok(Origins(set))
    }

    /// Whether a browser page of this origin may use the API.
    pub fn allows(&self, origin: &str) -> bool {
        origin_of(origin).is_some_and(|o| self.0.contains(&o))
    }

    /// Whether a request may go on: it carries no `Origin` (it does not
    /// come from a browser page, which always sends one on these
    /// requests) or an allowed one.
    pub fn admits(&self, headers: &HeaderMap) -> bool {
        match headers.get(header::ORIGIN) {
            None => true,
            Some(value) => value.to_str().is_ok_and(|o| self.allows(o)),
        }
    }

    /// The allowed origins, serialized.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(String::as_str)
    }
}

/// The serialized origin of an http(s) URL (default ports left out), or
/// `None` (for `null`, other schemes and junk).
fn origin_of(text: &str) -> Option<String> {
    let url = Url::parse(text.trim()).ok()?;
    if !matches!(url.scheme(), "http" | "https") {
        return None;
    }
    let origin = url.origin();
    origin.is_tuple().then(|| origin.ascii_serialization())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_compare_by_scheme_host_and_port_only() {
        let origins = Origins::new("http://127.0.0.1:8080/base/", &[] as &[&str]).unwrap();
        assert!(origins.allows("http://127.0.0.1:8080"));
        assert!(origins.allows("HTTP://127.0.0.1:8080/"));
        assert!(!origins.allows("http://127.0.0.1:8081"));
        assert!(!origins.allows("https://127.0.0.1:8080"));
        assert!(!origins.allows("http://localhost:8080"));
        assert!(!origins.allows("null"));
        assert!(!origins.allows(""));
        let https = Origins::new("https://baghchal.example:443", &[] as &[&str]).unwrap();
        assert!(https.allows("https://baghchal.example"));
    }

    #[test]
    fn a_request_without_an_origin_is_admitted_and_one_with_another_is_not() {
        let origins = Origins::new("https://baghchal.example", &[] as &[&str]).unwrap();
        let mut headers = HeaderMap::new();
        assert!(origins.admits(&headers));
        headers.insert(header::ORIGIN, "https://evil.example".parse().unwrap());
        assert!(!origins.admits(&headers));
        headers.insert(header::ORIGIN, "https://baghchal.example".parse().unwrap());
        assert!(origins.admits(&headers));
    }

    #[test]
    fn an_allowed_origin_must_be_an_http_origin() {
        assert!(Origins::new("https://a.example", &["ftp://b.example"]).is_err());
        assert!(Origins::new("not a url", &[] as &[&str]).is_err());
    }
}
