//! The OpenAPI operations of the authorization server.

use serde_json::{Value, json};

/// What a client may register as a redirect URI: https:// with a host name, or http:// on a
/// loopback host, without a fragment ([`boxtrack_core::oauth::redirect_uri_allowed`]).
const REDIRECT_URI_PATTERN: &str = "^(https://([A-Za-z0-9-]+[.])*[A-Za-z][A-Za-z0-9-]*|http://(localhost|127[.]0[.]0[.]1|\\[::1\\]))(:([0-9]{1,4}|[0-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?([/?][^\\s#]*)?$";

/// Documented operations of the authorization server.
pub fn operations() -> Vec<boxtrack_api::doc::Op> {
    use boxtrack_api::doc::{Op, operation};
    let j = |d: &str| json!({"description": d, "content": {"application/json": {"schema": {"type": "object"}}}});
    let html = |d: &str| json!({"description": d, "content": {"text/html": {"schema": {"type": "string"}}}});
    let form = |props: Value| json!({"required": true, "content": {"application/x-www-form-urlencoded": {"schema": {"type": "object", "properties": props}}}});
    let public = |mut op: Value| {
        op["security"] = json!([]);
        op
    };
    let q = |n: &str, req: bool| json!({"name": n, "in": "query", "required": req, "schema": {"type": "string"}});
    let one_of = |n: &str, values: &[&str]| json!({"name": n, "in": "query", "required": true, "schema": {"type": "string", "enum": values}});
    // RFC 6749 §5.2 error bodies, and what axum says of a form that is not one
    let oauth_err = |d: &str| json!({"description": d, "content": {"application/json": {"schema": {"type": "object", "required": ["error"], "properties": {"error": {"type": "string"}, "error_description": {"type": "string"}}}}}});
    let not_form = json!({"description": "The body is not application/x-www-form-urlencoded", "content": {"text/plain": {"schema": {"type": "string"}}}});
    let retry_after = json!({"Retry-After": {"description": "Seconds until an attempt is admitted again", "schema": {"type": "integer", "minimum": 1}}});
    let too_many = |d: &str| {
        let mut r = oauth_err(d);
        r["headers"] = retry_after.clone();
        r
    };
    let mut too_many_sign_ins = html(
        "Too many sign-in attempts for this email this minute (shared with the console's sign-in): the page again, saying when to retry",
    );
    too_many_sign_ins["headers"] = retry_after.clone();
    let with = |mut op: Value, extra: Vec<(&str, Value)>| {
        for (status, r) in extra {
            op["responses"][status] = r;
        }
        op
    };
    let mut register = public(operation(
        "OAuth",
        "Register a client",
        "Dynamic client registration (RFC 7591) for public clients: `redirect_uris` (https://, or http:// on loopback), optional `client_name`; `token_endpoint_auth_method` must be `none` (PKCE).",
        vec![],
        None,
        Default::default(),
        ("201", j("The registered client")),
    ));
    register = with(
        register,
        vec![
            (
                "400",
                oauth_err("`invalid_client_metadata` or `invalid_redirect_uri`"),
            ),
            (
                "429",
                too_many(
                    "`temporarily_unavailable`: more than 10 registrations a minute from this address (behind a reverse proxy: from anywhere)",
                ),
            ),
        ],
    );
    register["requestBody"] = json!({"required": true, "content": {"application/json": {"schema": {"type": "object", "required": ["redirect_uris"], "properties": {"redirect_uris": {"type": "array", "minItems": 1, "items": {"type": "string", "pattern": REDIRECT_URI_PATTERN}}, "client_name": {"type": "string"}, "token_endpoint_auth_method": {"const": "none"}}}}}});
    let mut submit = public(operation(
        "OAuth",
        "Sign in and consent",
        "The sign-in form's target: CSRF token (cookie and field), email and password, `decision` allow or deny. Redirects (303) to the client with `code` and `state`, or `error=access_denied`; wrong credentials show the page again (400) with the error next to the field. At most 10 attempts a minute per email, shared with the console's sign-in, counted before the password is checked (429).",
        vec![],
        None,
        Default::default(),
        ("303", json!({"description": "Back to the client"})),
    ));
    submit = with(
        submit,
        vec![
            (
                "400",
                html("The page again, with the error next to the field"),
            ),
            ("403", html("The CSRF token is missing or does not match")),
            ("415", not_form.clone()),
            ("429", too_many_sign_ins),
        ],
    );
    submit["requestBody"] = form(
        json!({"csrf": {"type": "string"}, "email": {"type": "string"}, "password": {"type": "string"}, "decision": {"type": "string", "enum": ["allow", "deny"]}, "client_id": {"type": "string"}, "redirect_uri": {"type": "string"}, "state": {"type": "string"}, "code_challenge": {"type": "string"}, "resource": {"type": "string"}}),
    );
    let mut token = public(operation(
        "OAuth",
        "Token",
        "`grant_type=authorization_code` (`code`, `redirect_uri`, `client_id`, `code_verifier`, optional `resource`) or `grant_type=refresh_token` (`refresh_token`, `client_id`). Codes are single-use and live one minute; access tokens live one hour and are bound to the MCP resource; refresh tokens rotate, and reusing one revokes every token of the grant.",
        vec![],
        None,
        Default::default(),
        ("200", j("Tokens")),
    ));
    token = with(
        token,
        vec![
            (
                "400",
                oauth_err("`invalid_request`, `invalid_grant`, `unsupported_grant_type`"),
            ),
            ("415", not_form),
            (
                "429",
                too_many(
                    "`temporarily_unavailable`: more than 60 token requests a minute for this `client_id`",
                ),
            ),
        ],
    );
    token["requestBody"] = form(
        json!({"grant_type": {"type": "string", "enum": ["authorization_code", "refresh_token"]}, "code": {"type": "string"}, "redirect_uri": {"type": "string"}, "client_id": {"type": "string"}, "code_verifier": {"type": "string"}, "refresh_token": {"type": "string"}, "resource": {"type": "string"}}),
    );
    vec![
        Op {
            method: "get",
            path: "/.well-known/oauth-protected-resource",
            op: public(operation(
                "OAuth",
                "Protected resource metadata",
                "RFC 9728 metadata of the MCP endpoint: its resource identifier and authorization server.",
                vec![],
                None,
                Default::default(),
                ("200", j("Metadata")),
            )),
        },
        Op {
            method: "get",
            path: "/.well-known/oauth-protected-resource/mcp",
            op: public(operation(
                "OAuth",
                "Protected resource metadata (path form)",
                "The same document at the path-suffixed location RFC 9728 defines for /mcp.",
                vec![],
                None,
                Default::default(),
                ("200", j("Metadata")),
            )),
        },
        Op {
            method: "get",
            path: "/.well-known/oauth-authorization-server",
            op: public(operation(
                "OAuth",
                "Authorization server metadata",
                "RFC 8414 metadata: endpoints, PKCE S256 only, public clients.",
                vec![],
                None,
                Default::default(),
                ("200", j("Metadata")),
            )),
        },
        Op {
            method: "post",
            path: "/oauth/register",
            op: register,
        },
        Op {
            method: "get",
            path: "/oauth/authorize",
            op: with(
                public(operation(
                    "OAuth",
                    "Sign-in page",
                    "The sign-in and consent page (HTML, no scripts, CSRF protected, CSP and frame denial). Needs `response_type=code`, a registered `client_id` and `redirect_uri`, `code_challenge` with `code_challenge_method=S256` (`plain` is refused), optional `state` and `resource`.",
                    vec![
                        one_of("response_type", &["code"]),
                        q("client_id", true),
                        q("redirect_uri", true),
                        q("code_challenge", true),
                        one_of("code_challenge_method", &["S256"]),
                        q("state", false),
                        q("resource", false),
                        q("scope", false),
                    ],
                    None,
                    Default::default(),
                    ("200", html("The page")),
                )),
                vec![(
                    "400",
                    html("The request cannot be signed in (unknown client, redirect URI or PKCE)"),
                )],
            ),
        },
        Op {
            method: "post",
            path: "/oauth/authorize",
            op: submit,
        },
        Op {
            method: "post",
            path: "/oauth/token",
            op: token,
        },
    ]
}
