//! Attributes kept rendered (`boxtrack_store::rendered`): the values of the attributes a
//! merged state alone decides, stored by the merge as one compact JSON array in the order of
//! this build's names (the names are not stored), and written back as members by a read.

/// The top-level elements of a compact JSON array, or members of an object, as written by
/// [`crate::json`] (no white space); `None` when `text` is neither.
pub(super) fn top_level(text: &str) -> Option<Vec<&str>> {
    let inner = text
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .or_else(|| text.strip_prefix('{').and_then(|t| t.strip_suffix('}')))?;
    let bytes = inner.as_bytes();
    let mut out = Vec::with_capacity(48);
    let (mut depth, mut start, mut i) = (0usize, 0, 0);
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                // to the string's closing quote, over its escapes
                i += 1;
                loop {
                    let at = crate::json::quote_or_backslash(bytes, i)?;
                    if bytes[at] == b'"' {
                        i = at;
                        break;
                    }
                    i = at + 2;
                }
            }
            b'[' | b'{' => depth += 1,
            b']' | b'}' => depth = depth.checked_sub(1)?,
            b',' if depth == 0 => {
                out.push(inner.get(start..i)?);
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    if depth != 0 {
        return None;
    }
    if !inner.is_empty() {
        out.push(inner.get(start..)?);
    }
    Some(out)
}

/// The names of the members of `object` (written by [`crate::json`]), in order.
pub(super) fn names_of(object: &str) -> Vec<String> {
    top_level(object)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|m| {
            m.strip_prefix('"')?
                .split_once("\":")
                .map(|(k, _)| k.to_owned())
        })
        .collect()
}

/// Appends the values of `object`'s members (written by [`crate::json`]) as an array.
pub(super) fn push_values(out: &mut String, object: &str) {
    out.push('[');
    // each member's value without its name: a name never needs an escape
    let members = top_level(object).unwrap_or_default();
    for (i, m) in members.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(m.split_once("\":").map_or(m, |(_, v)| v));
    }
    out.push(']');
}

/// The values of a stored array when it holds one for each of `names`.
pub(super) fn values_of<'a>(array: &'a str, names: &[String]) -> Option<Vec<&'a str>> {
    top_level(array).filter(|v| v.len() == names.len())
}

/// A stored value that is `null` or a JSON string without escapes, read without a JSON
/// parser: `Some(None)` for `null`, `Some(Some(text))` for a string; `None` for anything else
/// (an escape, a control character, another type), which the caller parses as JSON.
pub(super) fn plain_string(value: &str) -> Option<Option<String>> {
    if value == "null" {
        return Some(None);
    }
    let inner = value.strip_prefix('"')?.strip_suffix('"')?;
    let plain = inner.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\');
    plain.then(|| Some(inner.to_owned()))
}

/// Appends the members `values` stand for, without braces (`"name":value,…`).
pub(super) fn push_members(out: &mut String, names: &[String], values: &[&str]) {
    for (i, (k, v)) in names.iter().zip(values).enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push('"');
        out.push_str(k);
        out.push_str("\":");
        out.push_str(v);
    }
}

#[cfg(test)]
mod tests {
    use super::plain_string;
    use proptest::prelude::*;

    #[test]
    fn plain_strings_are_read_and_the_rest_left_to_json() {
        assert_eq!(plain_string("null"), Some(None));
        assert_eq!(plain_string("\"USLAX\""), Some(Some("USLAX".into())));
        assert_eq!(plain_string("\"\""), Some(Some(String::new())));
        // escapes, other types and stray text go to the JSON parser
        assert_eq!(plain_string(r#""a\"b""#), None);
        assert_eq!(plain_string(r#""a\u00e9""#), None);
        assert_eq!(plain_string("12"), None);
        assert_eq!(plain_string(" \"x\""), None);
        assert_eq!(plain_string("\"x"), None);
        assert_eq!(plain_string("\"a\tb\""), None);
    }

    proptest! {
        /// Whatever it reads, JSON reads the same; what JSON writes of a string or none it
        /// reads back or leaves to JSON.
        #[test]
        fn plain_string_agrees_with_json(s in any::<Option<String>>(), raw in ".{0,12}") {
            let written = serde_json::to_string(&s).unwrap();
            if let Some(read) = plain_string(&written) {
                prop_assert_eq!(read, s);
            }
            if let Some(read) = plain_string(&raw) {
                prop_assert_eq!(Some(read), serde_json::from_str::<Option<String>>(&raw).ok());
            }
        }
    }
}
