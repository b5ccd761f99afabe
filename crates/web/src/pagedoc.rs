//! Helpers that console pages document their routes with (each page module's `docs()`; the
//! crate's `operations` collects them).

use boxtrack_api::doc::{Doc, schema_of};
use serde_json::{Value, json};

/// An HTML answer.
pub(crate) fn html(d: &str) -> Value {
    json!({"description": d, "content": {"text/html": {"schema": {"type": "string"}}}})
}

/// A redirect.
pub(crate) fn see_other(d: &str) -> Value {
    json!({"description": d, "headers": {"Location": {"schema": {"type": "string"}}}})
}

/// A form body with these properties, these required.
pub(crate) fn form(props: Value, required: Value) -> Value {
    json!({"required": true, "content": {"application/x-www-form-urlencoded": {"schema": {"type": "object", "properties": props, "required": required}}}})
}

/// The answer to a body that is not a form.
pub(crate) fn not_form() -> Value {
    json!({"description": "The body is not application/x-www-form-urlencoded", "content": {"text/plain": {"schema": {"type": "string"}}}})
}

/// A console page's operation: no API key, its answer `ok`, `extra` answers and a body.
pub(crate) fn page(
    summary: &str,
    description: &str,
    ok: (&str, Value),
    extra: Vec<(&str, Value)>,
    body: Option<Value>,
) -> Value {
    let doc = extra.into_iter().fold(
        Doc::new("Console", summary)
            .about(description)
            .answer(ok.0, ok.1)
            .no_key(),
        |d, (status, r)| d.answer(status, r),
    );
    match body {
        Some(b) => doc.with("requestBody", b),
        None => doc,
    }
    .into_value()
}

/// The form token's property.
pub(crate) fn csrf() -> Value {
    json!({"csrf": {"type": "string", "description": "The form token of the page the form came from"}})
}

/// `base`'s properties with `more`'s.
pub(crate) fn with(mut base: Value, more: Value) -> Value {
    if let (Some(b), Some(m)) = (base.as_object_mut(), more.as_object()) {
        for (k, v) in m {
            b.insert(k.clone(), v.clone());
        }
    }
    base
}

/// The answer when the database could not be reached.
pub(crate) fn unavailable() -> Value {
    html("The database could not be reached")
}

/// The answer to a form without this session's token.
pub(crate) fn expired() -> Value {
    html("The form token is missing or is not this session's (CSRF)")
}

/// A file compiled into the binary.
pub(crate) fn asset(summary: &str, media: &str) -> Value {
    Doc::new("Console", summary)
        .about("Compiled into the binary; nothing is fetched from elsewhere.")
        .answer(
            "200",
            Doc::media_answer(summary, media, schema_of::<String>()),
        )
        .no_key()
        .into_value()
}

/// Optional query parameters of these names and JSON types.
pub(crate) fn query(params: &[(&str, &str)]) -> Value {
    params
        .iter()
        .map(|(name, kind)| json!({"name": name, "in": "query", "required": false, "schema": {"type": kind}}))
        .collect()
}

/// A CSV file answer.
pub(crate) fn csv_file() -> Value {
    json!({"description": "The CSV file", "content": {"text/csv": {"schema": {"type": "string"}}}})
}
