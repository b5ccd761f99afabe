//! Helpers that console pages document their routes with (each page module's `routes()`
//! declares its operations with them). Schemas are typed fragments
//! ([`boxtrack_http::schema`]) or derived from the answer types ([`Version`], [`Problem`]).

use boxtrack_http::doc::{Doc, WithHeader, schema_of};
use boxtrack_http::schema::{Param, Schema, Type};
use serde::Serialize;
use serde_json::Value;

/// A page's `version`: it changes when the page would; the page asks for it every few
/// seconds and reloads when it changed.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub(crate) struct Version {
    /// The version.
    pub version: String,
}

/// Why a JSON answer of the console is not the one asked for (`signed out`, the database
/// away, …).
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub(crate) struct Problem {
    /// What is wrong.
    pub error: String,
}

impl Problem {
    /// A problem saying this.
    pub(crate) fn says(error: impl Into<String>) -> axum::Json<Problem> {
        axum::Json(Problem {
            error: error.into(),
        })
    }
}

/// The answer of a version: [`Version`].
pub(crate) fn version_answer() -> Value {
    Doc::json_of::<Version>("The version")
}

/// A JSON [`Problem`] answer.
pub(crate) fn problem(d: &str) -> Value {
    Doc::json_of::<Problem>(d)
}

/// An HTML answer.
pub(crate) fn html(d: &str) -> Value {
    Doc::media_answer(d, "text/html", Schema::string())
}

/// A redirect.
pub(crate) fn see_other(d: &str) -> Value {
    Doc::empty_answer(d).with_header("Location", "Where to go")
}

/// The form token's field.
pub(crate) fn csrf() -> Schema {
    Schema::string().describe("The form token of the page the form came from")
}

/// A form body: the form token (required) and these fields, these required too.
pub(crate) fn form(fields: &[(&str, Schema)], required: &[&str]) -> Value {
    let mut names = vec!["csrf"];
    names.extend_from_slice(required);
    let schema = fields
        .iter()
        .fold(Schema::object().prop("csrf", csrf()), |o, (n, s)| {
            o.prop(n, s.clone())
        })
        .required(&names);
    Doc::new("", "")
        .body_media(&["application/x-www-form-urlencoded"], schema)
        .into_value()["requestBody"]
        .take()
}

/// The answer to a body that is not a form.
pub(crate) fn not_form() -> Value {
    Doc::media_answer(
        "The body is not application/x-www-form-urlencoded",
        "text/plain",
        Schema::string(),
    )
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

/// Path parameters of these names (ids as the page's links write them).
pub(crate) fn path_ids(names: &[&str]) -> Value {
    Value::Array(
        names
            .iter()
            .map(|n| Param::path(*n, Schema::string(), "").into())
            .collect(),
    )
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

/// Optional query parameters of these names, each `string` or `integer`. A page reads its
/// query as a form sends it, leniently: a value that means nothing (an empty field, a word
/// where a number goes) is left out rather than refused, so every parameter is text in the
/// document and an `integer` one says what it should hold.
pub(crate) fn query(params: &[(&str, &str)]) -> Value {
    let about = |k: &str| match k {
        "integer" => {
            "A whole number; any other value is left out (the page shows its unfiltered answer)."
        }
        _ => "",
    };
    Value::Array(
        params
            .iter()
            .map(|(name, k)| Param::query(*name, Schema::of(Type::String), about(k)).into())
            .collect(),
    )
}

/// A CSV file answer.
pub(crate) fn csv_file() -> Value {
    Doc::media_answer("The CSV file", "text/csv", Schema::string())
}
