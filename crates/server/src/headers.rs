//! The security headers every answer carries: a strict content security
//! policy (the page's own origin only, no inline script or style), no
//! sniffing, no framing, no referrer, no powerful features, and HSTS when
//! the public URL is https.

use axum::http::{header, HeaderName, HeaderValue};
use axum::Router;
use tower_http::set_header::SetResponseHeaderLayer;
use url::Url;

/// The headers for a server whose links start with `public_url`.
pub fn security_headers(public_url: &str) -> Vec<(HeaderName, HeaderValue)> {
    let url = Url::parse(public_url).ok();
    let https = url.as_ref().is_some_and(|u| u.scheme() == "https");
    // 'self' covers the page's own websocket in current browsers; the
    // public origin's ws(s) form is named too, for the others.
    let socket = url
        .as_ref()
        .map(|u| {
            let origin = u.origin().ascii_serialization();
            let scheme = if https { "wss" } else { "ws" };
            origin.replacen(u.scheme(), scheme, 1)
        })
        .filter(|s| s.starts_with("ws"))
        .unwrap_or_default();
    let csp = format!(
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
         font-src 'self'; connect-src 'self' {socket}; media-src 'self'; manifest-src 'self'; \
         base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    );
    let mut headers = vec![
        (header::CONTENT_SECURITY_POLICY, csp),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff".into()),
        (header::X_FRAME_OPTIONS, "DENY".into()),
        (header::REFERRER_POLICY, "no-referrer".into()),
        (
            HeaderName::from_static("permissions-policy"),
            "camera=(), microphone=(), geolocation=(), payment=(), usb=()".into(),
        ),
        (
            HeaderName::from_static("cross-origin-opener-policy"),
            "same-origin".into(),
        ),
    ];
    if https {
        headers.push((
            header::STRICT_TRANSPORT_SECURITY,
            "max-age=31536000; includeSubDomains".into(),
        ));
    }
    headers
        .into_iter()
        .filter_map(|(name, value)| Some((name, HeaderValue::from_str(&value).ok()?)))
        .collect()
}

/// `router` with every answer carrying the security headers (unless a
/// handler set one itself).
pub fn with_security_headers<S: Clone + Send + Sync + 'static>(
    router: Router<S>,
    public_url: &str,
) -> Router<S> {
    security_headers(public_url)
        .into_iter()
        .fold(router, |router, (name, value)| {
            router.layer(SetResponseHeaderLayer::if_not_present(name, value))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(headers: &[(HeaderName, HeaderValue)], name: &HeaderName) -> Option<String> {
        headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.to_str().unwrap().to_owned())
    }

    #[test]
    fn the_policy_allows_no_inline_script_and_no_other_origin() {
        let headers = security_headers("http://127.0.0.1:8080");
        let csp = value(&headers, &header::CONTENT_SECURITY_POLICY).unwrap();
        assert!(csp.contains("script-src 'self';"), "{csp}");
        assert!(!csp.contains("unsafe-inline") && !csp.contains("unsafe-eval"));
        assert!(
            csp.contains("connect-src 'self' ws://127.0.0.1:8080;"),
            "{csp}"
        );
        assert!(csp.contains("frame-ancestors 'none'"));
        assert_eq!(value(&headers, &header::STRICT_TRANSPORT_SECURITY), None);
    }

    #[test]
    fn an_https_public_url_adds_hsts_and_a_wss_socket() {
        let headers = security_headers("https://baghchal.example");
        assert!(value(&headers, &header::STRICT_TRANSPORT_SECURITY).is_some());
        let csp = value(&headers, &header::CONTENT_SECURITY_POLICY).unwrap();
        assert!(csp.contains("wss://baghchal.example;"), "{csp}");
    }
}
