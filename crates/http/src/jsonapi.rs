//! JSON:API documents: resource objects, list links and meta, request bodies, query parameters.

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::{StatusCode, header};
use serde::de::DeserializeOwned;

use crate::error::ApiError;

mod document;
mod lists;
mod query;

pub use document::*;
pub use lists::*;
pub use query::*;

pub use boxtrack_views::jsonapi::{MEDIA_TYPE, resource, to_one};

pub use boxtrack_app::fields::either;

/// Whether a `Content-Type` is acceptable for a request body: the JSON:API media type
/// (optionally with `ext` / `profile` parameters) or plain `application/json`.
pub fn acceptable_content_type(value: &str) -> bool {
    let mut parts = value.split(';').map(str::trim);
    let essence = parts.next().unwrap_or_default().to_ascii_lowercase();
    let params: Vec<String> = parts
        .filter(|p| !p.is_empty())
        .map(|p| p.to_ascii_lowercase())
        .collect();
    match essence.as_str() {
        MEDIA_TYPE => params
            .iter()
            .all(|p| p.starts_with("ext=") || p.starts_with("profile=")),
        "application/json" => params.iter().all(|p| p.starts_with("charset=")),
        _ => false,
    }
}

/// A JSON request body, checked for media type and parsed; failures name the problem.
pub struct Body<T>(pub T);

impl<S, T> FromRequest<S> for Body<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let ct = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        match ct {
            Some(ct) if acceptable_content_type(&ct) => {}
            Some(ct) => {
                return Err(ApiError::new(
                    StatusCode::UNSUPPORTED_MEDIA_TYPE,
                    format!(
                        "Content-Type {ct:?} is not supported; send {MEDIA_TYPE} or application/json"
                    ),
                ));
            }
            None => {
                return Err(ApiError::new(
                    StatusCode::UNSUPPORTED_MEDIA_TYPE,
                    format!("a request body needs Content-Type: {MEDIA_TYPE}"),
                ));
            }
        }
        let bytes = Bytes::from_request(req, state)
            .await
            .map_err(|e| ApiError::new(e.status(), e.body_text()))?;
        parse_body(&bytes).map(Body)
    }
}

/// Parses a JSON body into `T`, reporting the JSON pointer of the first problem.
pub fn parse_body<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    // `1995.0` is the integer 1995 in JSON (and in the document's schemas), which serde
    // would refuse for an integer field: whole numbers are made integers first
    if let Ok(mut v) = serde_json::from_slice::<serde_json::Value>(bytes)
        && whole_numbers(&mut v)
    {
        return serde_path_to_error::deserialize::<_, T>(v).map_err(|err| {
            let pointer = pointer_of(err.path());
            let pointer = if pointer.is_empty() {
                "/".to_string()
            } else {
                pointer
            };
            let inner = err.into_inner();
            ApiError::bad_body(&pointer, format!("invalid value at {pointer}: {inner}"))
        });
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = match serde_path_to_error::deserialize::<_, T>(&mut de) {
        Ok(v) => v,
        Err(err) => {
            let pointer = pointer_of(err.path());
            let inner = err.into_inner();
            let syntax = inner.is_syntax() || inner.is_eof();
            let pointer = if pointer.is_empty() || syntax {
                "/".to_string()
            } else {
                pointer
            };
            let detail = if syntax {
                format!("the request body is not valid JSON: {inner}")
            } else {
                format!("invalid value at {pointer}: {inner}")
            };
            return Err(ApiError::bad_body(&pointer, detail));
        }
    };
    de.end()
        .map_err(|e| ApiError::bad_body("/", format!("the request body is not valid JSON: {e}")))?;
    Ok(value)
}

/// Makes every number with a fraction of zero that fits an integer one; whether any was.
fn whole_numbers(v: &mut serde_json::Value) -> bool {
    use serde_json::Value;
    match v {
        Value::Number(n) if n.is_f64() => {
            match n.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15) {
                Some(f) => {
                    *v = Value::from(f as i64);
                    true
                }
                None => false,
            }
        }
        // every member is visited (no short cut): each may need changing
        Value::Array(a) => a.iter_mut().map(whole_numbers).filter(|c| *c).count() > 0,
        Value::Object(o) => o.values_mut().map(whole_numbers).filter(|c| *c).count() > 0,
        _ => false,
    }
}

fn pointer_of(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for seg in path.iter() {
        match seg {
            Segment::Seq { index } => out.push_str(&format!("/{index}")),
            Segment::Map { key } => {
                out.push_str(&format!("/{}", key.replace('~', "~0").replace('/', "~1")))
            }
            Segment::Enum { variant } => out.push_str(&format!("/{variant}")),
            Segment::Unknown => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn empty_query_values_are_as_if_not_given() {
        let q = QueryParams::parse(Some("filter[port]=&page[size]=5&include="));
        assert_eq!(q.get("filter[port]"), None);
        assert_eq!(q.get("include"), None);
        assert_eq!(q.get("page[size]"), Some("5"));
    }

    /// Found by schemathesis: `page[number]=4294967295` with a cursor and more rows to
    /// come overflowed the next page's number (a panic in debug builds).
    #[test]
    fn the_largest_page_number_has_a_next_page_without_overflow() {
        let q = QueryParams::parse(Some("page[number]=4294967295&page[size]=1"));
        let key = boxtrack_core::paging::Key {
            sort_us: 5,
            id: [1; 16],
        };
        let list = || ListDoc {
            base: "http://h",
            path: "/v2/webhooks",
            query: &q,
            page: q.page().unwrap(),
            total: 3,
            total_exact: false,
            has_next: true,
            edge_keys: Some((key, key)),
        };
        let doc = list().render(vec![json!({"id": "x"})], vec![]);
        assert_eq!(
            doc.clone().tree_mut()["meta"]["pagination"]["next"],
            u32::MAX
        );
        let written = list().written(&[json!({"id": "x"}).to_string()], &[]);
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&written.into_text()).unwrap(),
            serde_json::from_str::<serde_json::Value>(&doc.into_text()).unwrap(),
            "a list written out is the list built as a tree"
        );
    }

    #[test]
    fn whole_numbers_written_with_a_fraction_are_integers() {
        #[derive(serde::Deserialize)]
        struct T {
            n: i64,
            list: Vec<u32>,
            x: f64,
        }
        let t: T = parse_body(br#"{"n": 1995.0, "list": [1, 2.0], "x": 3.0}"#).unwrap();
        assert_eq!((t.n, t.list, t.x), (1995, vec![1, 2], 3.0));
        assert!(parse_body::<T>(br#"{"n": 1995.5, "list": [], "x": 1}"#).is_err());
    }

    #[test]
    fn content_types() {
        assert!(acceptable_content_type("application/vnd.api+json"));
        assert!(acceptable_content_type("application/json; charset=utf-8"));
        assert!(!acceptable_content_type(
            "application/vnd.api+json; charset=utf-8"
        ));
        assert!(!acceptable_content_type("text/plain"));
    }

    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Doc {
        data: Inner,
    }
    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Inner {
        attributes: Attrs,
    }
    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Attrs {
        name: String,
    }

    #[test]
    fn body_errors_point_at_the_field() {
        let e = parse_body::<Doc>(br#"{"data":{"attributes":{"name":5}}}"#).unwrap_err();
        assert_eq!(e.status(), StatusCode::BAD_REQUEST);
        let src = e.errors()[0].source.clone().unwrap();
        assert_eq!(src["pointer"], "/data/attributes/name");
        let e = parse_body::<Doc>(br#"{"data":"#).unwrap_err();
        assert!(
            e.errors()[0]
                .detail
                .as_deref()
                .unwrap()
                .contains("not valid JSON")
        );
        let e = parse_body::<Doc>(br#"{"data":{"attributes":{"name":"x"}}} trailing"#).unwrap_err();
        assert_eq!(e.status(), StatusCode::BAD_REQUEST);
    }

    #[test]
    fn includes_are_checked() {
        let q = QueryParams::parse(Some("include=account,bogus"));
        let e = q.includes("api_key", &["account"]).unwrap_err();
        assert_eq!(
            e.errors()[0].source.clone().unwrap()["parameter"],
            "include"
        );
        let q = QueryParams::parse(Some("include=account,account"));
        assert_eq!(
            q.includes("api_key", &["account"]).unwrap(),
            vec!["account"]
        );
    }
}
