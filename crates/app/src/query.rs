//! A use case's input from a query string: JSON:API's bracketed names (`filter[pickup_lfd][start]`)
//! become nested fields (`filter.pickup_lfd.start`), and an error names the parameter as the
//! query wrote it.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::AppError;

/// The name's parts: `filter[pickup_lfd][start]` is `filter`, `pickup_lfd`, `start`; a name
/// that is not of that form is one part, whole.
fn parts(name: &str) -> Vec<&str> {
    let Some(open) = name.find('[') else {
        return vec![name];
    };
    let mut out = vec![&name[..open]];
    let mut rest = &name[open..];
    while let Some(inner) = rest.strip_prefix('[') {
        let Some(close) = inner.find(']') else {
            return vec![name];
        };
        out.push(&inner[..close]);
        rest = &inner[close + 1..];
    }
    if !rest.is_empty() || out.iter().any(|p| p.is_empty()) {
        return vec![name];
    }
    out
}

/// The query's pairs as one JSON object of texts, nested by the names' brackets. A value given
/// empty (`filter[port]=`) is as if it were not given, as forms and generated clients send
/// them; of a parameter given twice the last counts.
pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Value {
    let mut root = Map::new();
    'pairs: for (name, value) in pairs {
        if value.is_empty() {
            continue;
        }
        let parts = parts(name);
        let Some((last, path)) = parts.split_last() else {
            continue;
        };
        let mut at = &mut root;
        for p in path {
            let slot = at
                .entry((*p).to_string())
                .or_insert_with(|| Value::Object(Map::new()));
            if !slot.is_object() {
                *slot = Value::Object(Map::new());
            }
            // (an object: made one above)
            let Value::Object(next) = slot else {
                continue 'pairs;
            };
            at = next;
        }
        at.insert((*last).to_string(), Value::String(value.to_string()));
    }
    Value::Object(root)
}

/// The parameter a deserialization path names, as the query writes it
/// (`filter.pickup_lfd.start` is `filter[pickup_lfd][start]`).
fn param_of(path: &serde_path_to_error::Path) -> String {
    let mut out = String::new();
    for (i, seg) in path.iter().enumerate() {
        let s = match seg {
            serde_path_to_error::Segment::Map { key } => key.clone(),
            serde_path_to_error::Segment::Seq { index } => index.to_string(),
            serde_path_to_error::Segment::Enum { variant } => variant.clone(),
            serde_path_to_error::Segment::Unknown => "?".into(),
        };
        if i == 0 {
            out = s;
        } else {
            out.push_str(&format!("[{s}]"));
        }
    }
    out
}

/// Reads an input from a JSON value ([`from_pairs`], an MCP tool's arguments, a console
/// form's fields); an invalid value is [`AppError::Invalid`] naming its parameter.
pub fn parse<T: DeserializeOwned>(v: Value) -> Result<T, AppError> {
    serde_path_to_error::deserialize(v).map_err(|e| {
        let param = param_of(e.path());
        AppError::invalid(param, &e.inner().to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fields::Range;
    use serde_json::json;

    #[test]
    fn bracketed_names_nest_and_empty_values_are_not_given() {
        let v = from_pairs([
            ("q", "MSKU"),
            ("filter[pickup_lfd][start]", "2026-01-01T00:00:00Z"),
            ("filter[port]", ""),
            ("filter[carrier]", "maeu"),
            ("filter[carrier]", "CMDU"),
            ("page[size]", "3"),
            ("odd[", "x"),
            ("a[]", "y"),
        ]);
        assert_eq!(
            v,
            json!({
                "q": "MSKU",
                "filter": {"pickup_lfd": {"start": "2026-01-01T00:00:00Z"}, "carrier": "CMDU"},
                "page": {"size": "3"},
                "odd[": "x",
                "a[]": "y"
            })
        );
        // a name given both whole and with parts keeps the later
        assert_eq!(
            from_pairs([("f", "1"), ("f[a]", "2")]),
            json!({"f": {"a": "2"}})
        );
    }

    #[test]
    fn an_invalid_value_names_its_parameter_as_the_query_wrote_it() {
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct In {
            filter: Inner,
        }
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Inner {
            range: Range,
        }
        let e = parse::<In>(from_pairs([("filter[range][end]", "soon")]));
        match e {
            Err(AppError::Invalid { param, detail }) => {
                assert_eq!(param, "filter[range][end]");
                assert!(detail.starts_with("filter[range][end] must be an ISO 8601"));
            }
            other => panic!("{other:?}"),
        }
    }
}
