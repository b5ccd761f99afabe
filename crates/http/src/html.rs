//! What the service's HTML pages share (the OAuth sign-in page, the web console): security
//! headers and reading a cookie. The pages themselves are maud templates, which escape what
//! they are given.

use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::Response;

/// Marks `resp` as an HTML page that may not be framed, sniffed, cached or followed by a
/// referrer, under the content security policy `csp`.
pub fn secure_html(resp: &mut Response, csp: &str) {
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    if let Ok(v) = HeaderValue::from_str(csp) {
        h.insert(header::CONTENT_SECURITY_POLICY, v);
    }
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
}

/// The value of the cookie `name` the request carries, if any.
pub fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_cookies() {
        let mut h = HeaderMap::new();
        h.insert(
            header::COOKIE,
            HeaderValue::from_static("a=1; btk=two; c=3"),
        );
        assert_eq!(cookie(&h, "btk").as_deref(), Some("two"));
        assert_eq!(cookie(&h, "d"), None);
    }
}
