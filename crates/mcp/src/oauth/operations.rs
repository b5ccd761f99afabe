//! The documentation of the authorization server's operations, one function per operation,
//! named in `crate::mount` with the operation's route.

use boxtrack_http::doc::{self, Doc, WithHeader, schema_of};
use boxtrack_http::schema::{Param, Schema};
use serde_json::Value;

use super::shapes::{
    AuthorizationServer, OAuthError, ProtectedResource, RegisteredClient, TokenForm, Tokens,
};

/// What a client may register as a redirect URI: https:// with a host name, or http:// on a
/// loopback host, without a fragment ([`boxtrack_core::oauth::redirect_uri_allowed`]).
const REDIRECT_URI_PATTERN: &str = "^(https://([A-Za-z0-9-]+[.])*[A-Za-z][A-Za-z0-9-]*|http://(localhost|127[.]0[.]0[.]1|\\[::1\\]))(:([0-9]{1,4}|[0-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?([/?][^\\s#]*)?$";

/// An OAuth operation: public (each checks its own credentials).
fn op(summary: &str, description: &str) -> Doc {
    Doc::new("OAuth", summary).about(description).no_key()
}

/// An HTML page answer.
fn html(description: &str) -> Value {
    Doc::media_answer(description, "text/html", schema_of::<String>())
}

/// An RFC 6749 §5.2 error body.
fn oauth_error(description: &str) -> Value {
    Doc::json_of::<OAuthError<'_>>(description)
}

/// What axum says of a form that is not one.
fn not_form() -> Value {
    Doc::media_answer(
        "The body is not application/x-www-form-urlencoded",
        "text/plain",
        schema_of::<String>(),
    )
}

/// A 429 that says when to try again.
fn retry_after(r: Value) -> Value {
    r.with_header("Retry-After", "Seconds until an attempt is admitted again")
}

/// A form body of these text fields.
fn form(fields: &[&str]) -> Schema {
    fields
        .iter()
        .fold(Schema::object(), |o, f| o.prop(f, Schema::string()))
}

/// A query parameter of text.
fn query(name: &str, required: bool) -> Param {
    let p = Param::query(name, Schema::string(), "");
    if required { p.required() } else { p }
}

/// A query parameter that takes one word.
fn one_of(name: &str, words: &[&str]) -> Param {
    Param::query(name, Schema::string().words(words), "").required()
}

/// `GET /.well-known/oauth-protected-resource`.
pub fn protected_resource() -> Doc {
    op(
        "Protected resource metadata",
        "RFC 9728 metadata of the MCP endpoint: its resource identifier and authorization server.",
    )
    .answer("200", Doc::json_of::<ProtectedResource>("Metadata"))
}

/// `GET /.well-known/oauth-protected-resource/mcp`.
pub fn protected_resource_mcp() -> Doc {
    op(
        "Protected resource metadata (path form)",
        "The same document at the path-suffixed location RFC 9728 defines for /mcp.",
    )
    .answer("200", Doc::json_of::<ProtectedResource>("Metadata"))
}

/// `GET /.well-known/oauth-authorization-server`.
pub fn authorization_server() -> Doc {
    op(
        "Authorization server metadata",
        "RFC 8414 metadata: endpoints, PKCE S256 only, public clients.",
    )
    .answer("200", Doc::json_of::<AuthorizationServer>("Metadata"))
}

/// `POST /oauth/register`.
pub fn register() -> Doc {
    op(
        "Register a client",
        "Dynamic client registration (RFC 7591) for public clients: `redirect_uris` (https://, or http:// on loopback), optional `client_name`; `token_endpoint_auth_method` must be `none` (PKCE).",
    )
    .body_media(
        &["application/json"],
        Schema::record(&[(
            "redirect_uris",
            Schema::array(Schema::string().pattern(REDIRECT_URI_PATTERN)).items_between(1, None),
        )])
        .prop("client_name", Schema::string())
        .prop("token_endpoint_auth_method", Schema::any().constant("none")),
    )
    .answer("201", Doc::json_of::<RegisteredClient>("The registered client"))
    .answer(
        "400",
        oauth_error("`invalid_client_metadata` or `invalid_redirect_uri`"),
    )
    .answer(
        "429",
        retry_after(oauth_error(
            "`temporarily_unavailable`: more than 10 registrations a minute from this address (behind a reverse proxy: from anywhere)",
        )),
    )
}

/// `GET /oauth/authorize`.
pub fn authorize_page() -> Doc {
    op(
        "Sign-in page",
        "The sign-in and consent page (HTML, no scripts, CSRF protected, CSP and frame denial). Needs `response_type=code`, a registered `client_id` and `redirect_uri`, `code_challenge` with `code_challenge_method=S256` (`plain` is refused), optional `state` and `resource`.",
    )
    .params([
        one_of("response_type", &["code"]),
        query("client_id", true),
        query("redirect_uri", true),
        query("code_challenge", true),
        one_of("code_challenge_method", &["S256"]),
        query("state", false),
        query("resource", false),
        query("scope", false),
    ])
    .answer("200", html("The page"))
    .answer(
        "303",
        Doc::empty_answer(
            "Back to the client's redirect URI with `error` (RFC 6749 §4.1.2.1): a `response_type` other than `code`, or no S256 `code_challenge`",
        ),
    )
    .answer(
        "400",
        html("The request cannot be signed in (unknown client, redirect URI or PKCE)"),
    )
}

/// `POST /oauth/authorize`.
pub fn authorize_submit() -> Doc {
    op(
        "Sign in and consent",
        "The sign-in form's target: CSRF token (cookie and field), email and password, `decision` allow or deny. Redirects (303) to the client with `code` and `state`, or `error=access_denied`; wrong credentials show the page again (400) with the error next to the field. At most 10 attempts a minute per email, shared with the console's sign-in, counted before the password is checked (429).",
    )
    .body_media(
        &["application/x-www-form-urlencoded"],
        form(&[
            "csrf",
            "email",
            "password",
            "client_id",
            "redirect_uri",
            "state",
            "code_challenge",
            "resource",
        ])
        .prop("decision", Schema::string().words(&["allow", "deny"])),
    )
    .answer("303", Doc::empty_answer("Back to the client"))
    .answer(
        "400",
        html("The page again, with the error next to the field"),
    )
    .answer("403", html("The CSRF token is missing or does not match"))
    .answer("415", not_form())
    .answer(
        "429",
        retry_after(html(
            "Too many sign-in attempts for this email this minute (shared with the console's sign-in): the page again, saying when to retry",
        )),
    )
}

/// `POST /oauth/token`.
pub fn token() -> Doc {
    op(
        "Token",
        "`grant_type=authorization_code` (`code`, `redirect_uri`, `client_id`, `code_verifier`, optional `resource`) or `grant_type=refresh_token` (`refresh_token`, `client_id`). Codes are single-use and live one minute; access tokens live one hour and are bound to the MCP resource; refresh tokens rotate, and reusing one revokes every token of the grant.",
    )
    .body_media(
        &["application/x-www-form-urlencoded"],
        doc::request_schema_of::<TokenForm>(),
    )
    .answer("200", Doc::json_of::<Tokens>("Tokens"))
    .answer(
        "400",
        oauth_error("`invalid_request`, `invalid_grant`, `unsupported_grant_type`"),
    )
    .answer("415", not_form())
    .answer(
        "429",
        retry_after(oauth_error(
            "`temporarily_unavailable`: more than 60 token requests a minute for this `client_id`",
        )),
    )
}
