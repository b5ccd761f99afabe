//! boxtrack's own OAuth 2.1 authorization server, for MCP clients: protected resource
//! metadata (RFC 9728, root and path-suffixed), authorization server metadata (RFC 8414),
//! dynamic client registration (RFC 7591), a sign-in and consent page (no JavaScript, CSRF
//! protected, security headers), authorization codes with PKCE S256 only (single use, one
//! minute), access tokens bound to the MCP resource (one hour) and refresh tokens rotated with
//! reuse detection (30 days).

use std::collections::HashMap;

use axum::Json;
use axum::extract::{Form, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use boxtrack_core::oauth as core;
use boxtrack_store::oauth as store;
use serde_json::{Value, json};

use boxtrack_api::state::AppState;

const CODE_TTL_US: i64 = 60_000_000;
const ACCESS_TTL_US: i64 = 3_600_000_000;
const REFRESH_TTL_US: i64 = 30 * 86_400_000_000;

/// The service's base URL for this request (the configured public URL, or `http://Host`).
pub fn base_url(state: &AppState, headers: &HeaderMap) -> String {
    state.config.public_url.clone().unwrap_or_else(|| {
        let host = headers
            .get(header::HOST)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("localhost");
        format!("http://{host}")
    })
}

/// The canonical resource identifier of the MCP endpoint.
pub fn mcp_resource(state: &AppState, headers: &HeaderMap) -> String {
    let raw = format!("{}/mcp", base_url(state, headers));
    core::canonical_resource(&raw).unwrap_or(raw)
}

/// `GET /.well-known/oauth-protected-resource[/mcp]`.
pub async fn protected_resource(State(state): State<AppState>, headers: HeaderMap) -> Json<Value> {
    let base = base_url(&state, &headers);
    Json(json!({
        "resource": mcp_resource(&state, &headers),
        "authorization_servers": [base],
        "bearer_methods_supported": ["header"],
        "scopes_supported": ["mcp"],
        "resource_name": "boxtrack MCP server"
    }))
}

/// `GET /.well-known/oauth-authorization-server`.
pub async fn authorization_server(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Json<Value> {
    let base = base_url(&state, &headers);
    Json(json!({
        "issuer": base,
        "authorization_endpoint": format!("{base}/oauth/authorize"),
        "token_endpoint": format!("{base}/oauth/token"),
        "registration_endpoint": format!("{base}/oauth/register"),
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none"],
        "scopes_supported": ["mcp"]
    }))
}

fn oauth_error(status: StatusCode, error: &str, description: &str) -> Response {
    let mut r = (
        status,
        Json(json!({"error": error, "error_description": description})),
    )
        .into_response();
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

/// `POST /oauth/register` (RFC 7591), public clients only.
pub async fn register(State(state): State<AppState>, body: axum::body::Bytes) -> Response {
    let Ok(req) = serde_json::from_slice::<Value>(&body) else {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_client_metadata",
            "the body must be a JSON object",
        );
    };
    let uris: Vec<String> = req["redirect_uris"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|u| u.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    if uris.is_empty() {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_redirect_uri",
            "redirect_uris is required",
        );
    }
    if let Some(bad) = uris.iter().find(|u| !core::redirect_uri_allowed(u)) {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_redirect_uri",
            &format!("{bad} is neither https:// nor a loopback http:// address"),
        );
    }
    let method = req["token_endpoint_auth_method"].as_str().unwrap_or("none");
    if method != "none" {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_client_metadata",
            "only public clients (token_endpoint_auth_method none, with PKCE) are registered",
        );
    }
    let name = req["client_name"]
        .as_str()
        .unwrap_or("MCP client")
        .chars()
        .take(100)
        .collect::<String>();
    let client_id = format!("btc_{}", uuid::Uuid::now_v7().simple());
    if let Err(e) = store::register_client(&state.db, &client_id, &name, &uris).await {
        return boxtrack_api::error::ApiError::from(e).into_response();
    }
    let mut r = (
        StatusCode::CREATED,
        Json(json!({
            "client_id": client_id,
            "client_id_issued_at": boxtrack_store::now_us() / 1_000_000,
            "client_name": name,
            "redirect_uris": uris,
            "token_endpoint_auth_method": "none",
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"]
        })),
    )
        .into_response();
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

/// Headers every OAuth HTML page carries: no framing, no sniffing, no referrer, no caching,
/// and the given content security policy.
fn secure_html(resp: &mut Response, csp: &str) {
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

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// What the authorize page carries from request to form.
#[derive(Debug, Clone, Default)]
struct AuthzRequest {
    client_id: String,
    redirect_uri: String,
    state: String,
    code_challenge: String,
    resource: String,
}

fn page(
    title: &str,
    client_name: &str,
    r: &AuthzRequest,
    csrf: &str,
    email: &str,
    errors: &HashMap<&str, String>,
    redirect_origin: Option<String>,
) -> Response {
    let field_error = |f: &str| {
        errors.get(f).map_or(String::new(), |m| {
            format!(
                r#"<p class="error" id="{f}-error" role="alert">{}</p>"#,
                esc(m)
            )
        })
    };
    let invalid = |f: &str| {
        if errors.contains_key(f) {
            format!(r#" aria-invalid="true" aria-describedby="{f}-error""#)
        } else {
            String::new()
        }
    };
    let general = field_error("form");
    let hidden = format!(
        r#"<input type="hidden" name="csrf" value="{}"><input type="hidden" name="client_id" value="{}"><input type="hidden" name="redirect_uri" value="{}"><input type="hidden" name="state" value="{}"><input type="hidden" name="code_challenge" value="{}"><input type="hidden" name="resource" value="{}">"#,
        esc(csrf),
        esc(&r.client_id),
        esc(&r.redirect_uri),
        esc(&r.state),
        esc(&r.code_challenge),
        esc(&r.resource)
    );
    let html = format!(
        r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} · boxtrack</title>
<style>body{{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a}}
label{{display:block;margin-top:1rem;font-weight:600}}input[type=email],input[type=password]{{width:100%;padding:.5rem;font-size:1rem;box-sizing:border-box}}
.error{{color:#b00020;margin:.25rem 0 0}}button{{margin-top:1.25rem;margin-right:.5rem;padding:.6rem 1.2rem;font-size:1rem}}
.note{{color:#444}}</style></head>
<body><main>
<h1>Sign in to boxtrack</h1>
<p class="note"><strong>{client}</strong> asks to use your boxtrack account through the MCP server: read your shipments and containers, start and stop tracking, refresh containers and manage webhooks.</p>
{general}
<form method="post" action="/oauth/authorize">
{hidden}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="{email}"{inv_email}>
{err_email}
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required{inv_password}>
{err_password}
<div><button type="submit" name="decision" value="allow">Sign in and allow</button>
<button type="submit" name="decision" value="deny">Deny</button></div>
</form></main></body></html>"#,
        title = esc(title),
        client = esc(client_name),
        email = esc(email),
        inv_email = invalid("email"),
        err_email = field_error("email"),
        inv_password = invalid("password"),
        err_password = field_error("password"),
    );
    let status = if errors.is_empty() {
        StatusCode::OK
    } else {
        StatusCode::BAD_REQUEST
    };
    let mut resp = (status, html).into_response();
    let form_action = match redirect_origin {
        Some(o) => format!("'self' {o}"),
        None => "'self'".into(),
    };
    secure_html(
        &mut resp,
        &format!(
            "default-src 'none'; style-src 'unsafe-inline'; form-action {form_action}; frame-ancestors 'none'; base-uri 'none'"
        ),
    );
    let h = resp.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&format!(
        "btk_csrf={csrf}; Path=/oauth; HttpOnly; SameSite=Strict"
    )) {
        h.insert(header::SET_COOKIE, v);
    }
    resp
}

fn plain_page(status: StatusCode, message: &str) -> Response {
    let html = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>boxtrack sign-in</title></head><body><main><h1>Cannot sign in</h1><p role=\"alert\">{}</p></main></body></html>",
        esc(message)
    );
    let mut r = (status, html).into_response();
    secure_html(&mut r, "default-src 'none'; frame-ancestors 'none'");
    r
}

fn origin_of(uri: &str) -> Option<String> {
    url::Url::parse(uri)
        .ok()
        .map(|u| u.origin().ascii_serialization())
}

/// Checks the client and redirect URI (errors here are shown, never redirected) and the
/// PKCE and resource parameters.
async fn check_request(
    state: &AppState,
    headers: &HeaderMap,
    q: &HashMap<String, String>,
) -> Result<(AuthzRequest, String), Response> {
    let get = |k: &str| q.get(k).cloned().unwrap_or_default();
    let client = match store::get_client(&state.db, &get("client_id")).await {
        Ok(Some(c)) => c,
        Ok(None) => {
            return Err(plain_page(
                StatusCode::BAD_REQUEST,
                "Unknown client_id: register the client first (POST /oauth/register).",
            ));
        }
        Err(e) => return Err(boxtrack_api::error::ApiError::from(e).into_response()),
    };
    let redirect_uri = get("redirect_uri");
    if !client.allows(&redirect_uri) {
        return Err(plain_page(
            StatusCode::BAD_REQUEST,
            "redirect_uri is not one the client registered.",
        ));
    }
    let resource = q
        .get("resource")
        .and_then(|r| core::canonical_resource(r))
        .unwrap_or_else(|| mcp_resource(state, headers));
    if resource != mcp_resource(state, headers) {
        return Err(plain_page(
            StatusCode::BAD_REQUEST,
            &format!("resource must be {}", mcp_resource(state, headers)),
        ));
    }
    Ok((
        AuthzRequest {
            client_id: client.client_id,
            redirect_uri,
            state: get("state"),
            code_challenge: get("code_challenge"),
            resource,
        },
        client.name,
    ))
}

fn redirect(to: &str, params: &[(&str, &str)]) -> Response {
    let Ok(mut u) = url::Url::parse(to) else {
        return plain_page(StatusCode::BAD_REQUEST, "invalid redirect_uri");
    };
    {
        let mut qp = u.query_pairs_mut();
        for (k, v) in params {
            if !v.is_empty() {
                qp.append_pair(k, v);
            }
        }
    }
    let mut r = StatusCode::SEE_OTHER.into_response();
    if let Ok(v) = HeaderValue::from_str(u.as_str()) {
        r.headers_mut().insert(header::LOCATION, v);
    }
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

/// `GET /oauth/authorize`: the sign-in and consent page.
pub async fn authorize_page(
    State(state): State<AppState>,
    headers: HeaderMap,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let (r, client_name) = match check_request(&state, &headers, &q).await {
        Ok(x) => x,
        Err(resp) => return resp,
    };
    // from here on, errors go back to the client's redirect URI
    if q.get("response_type").map(String::as_str) != Some("code") {
        return redirect(
            &r.redirect_uri,
            &[("error", "unsupported_response_type"), ("state", &r.state)],
        );
    }
    match q.get("code_challenge_method").map(String::as_str) {
        Some("S256") if !r.code_challenge.is_empty() => {}
        _ => {
            return redirect(
                &r.redirect_uri,
                &[
                    ("error", "invalid_request"),
                    (
                        "error_description",
                        "PKCE with code_challenge_method=S256 is required (plain is refused)",
                    ),
                    ("state", &r.state),
                ],
            );
        }
    }
    let csrf = core::new_secret();
    page(
        "Sign in",
        &client_name,
        &r,
        &csrf,
        "",
        &HashMap::new(),
        origin_of(&r.redirect_uri),
    )
}

fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.to_string())
}

/// `POST /oauth/authorize`: checks the CSRF token and the credentials, then redirects back with
/// a code (or `access_denied`). Wrong credentials show the page again with the error next to
/// the field.
pub async fn authorize_submit(
    State(state): State<AppState>,
    headers: HeaderMap,
    Form(f): Form<HashMap<String, String>>,
) -> Response {
    let (r, client_name) = match check_request(&state, &headers, &f).await {
        Ok(x) => x,
        Err(resp) => return resp,
    };
    let sent = f.get("csrf").cloned().unwrap_or_default();
    let expected = cookie(&headers, "btk_csrf").unwrap_or_default();
    if sent.is_empty() || expected.is_empty() || core::digest(&sent) != core::digest(&expected) {
        return plain_page(
            StatusCode::FORBIDDEN,
            "The form expired or did not come from this page; start the sign-in again from your application.",
        );
    }
    if r.code_challenge.is_empty() {
        return redirect(
            &r.redirect_uri,
            &[("error", "invalid_request"), ("state", &r.state)],
        );
    }
    if f.get("decision").map(String::as_str) == Some("deny") {
        return redirect(
            &r.redirect_uri,
            &[("error", "access_denied"), ("state", &r.state)],
        );
    }
    let email = f.get("email").cloned().unwrap_or_default();
    let password = f.get("password").cloned().unwrap_or_default();
    let mut errors = HashMap::new();
    if email.trim().is_empty() {
        errors.insert("email", "Enter your email address.".to_string());
    }
    if password.is_empty() {
        errors.insert("password", "Enter your password.".to_string());
    }
    let user = if errors.is_empty() {
        match store::get_user(&state.db, &email).await {
            Ok(Some(u)) if core::verify_password(&password, &u.password_hash) => Some(u),
            Ok(_) => {
                errors.insert(
                    "password",
                    "The email or password is not right.".to_string(),
                );
                None
            }
            Err(e) => return boxtrack_api::error::ApiError::from(e).into_response(),
        }
    } else {
        None
    };
    let Some(user) = user else {
        let csrf = core::new_secret();
        return page(
            "Sign in",
            &client_name,
            &r,
            &csrf,
            &email,
            &errors,
            origin_of(&r.redirect_uri),
        );
    };
    let code = core::new_secret();
    let stored = store::store_code(
        &state.db,
        &core::digest(&code),
        &store::Code {
            client_id: r.client_id.clone(),
            user_id: user.id,
            account_id: user.account_id,
            redirect_uri: r.redirect_uri.clone(),
            code_challenge: r.code_challenge.clone(),
            resource: r.resource.clone(),
            expires_us: boxtrack_store::now_us() + CODE_TTL_US,
        },
    )
    .await;
    if let Err(e) = stored {
        return boxtrack_api::error::ApiError::from(e).into_response();
    }
    redirect(&r.redirect_uri, &[("code", &code), ("state", &r.state)])
}

async fn issue(
    state: &AppState,
    client_id: &str,
    user_id: uuid::Uuid,
    account_id: uuid::Uuid,
    resource: &str,
    family: uuid::Uuid,
) -> Response {
    let access = core::new_secret();
    let refresh = core::new_secret();
    let now = boxtrack_store::now_us();
    let stored = store::store_pair(
        &state.db,
        &core::digest(&access),
        &core::digest(&refresh),
        &store::Token {
            kind: String::new(),
            client_id: client_id.to_string(),
            user_id,
            account_id,
            resource: resource.to_string(),
            family,
            expires_us: 0,
            used_us: None,
            revoked_us: None,
        },
        now + ACCESS_TTL_US,
        now + REFRESH_TTL_US,
    )
    .await;
    if let Err(e) = stored {
        return boxtrack_api::error::ApiError::from(e).into_response();
    }
    let mut r = Json(json!({
        "access_token": access,
        "token_type": "Bearer",
        "expires_in": ACCESS_TTL_US / 1_000_000,
        "refresh_token": refresh,
        "scope": "mcp"
    }))
    .into_response();
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

/// `POST /oauth/token`: `authorization_code` (with the PKCE verifier) and `refresh_token`.
pub async fn token(
    State(state): State<AppState>,
    headers: HeaderMap,
    Form(f): Form<HashMap<String, String>>,
) -> Response {
    let get = |k: &str| f.get(k).cloned().unwrap_or_default();
    let now = boxtrack_store::now_us();
    match get("grant_type").as_str() {
        "authorization_code" => {
            let code = match store::take_code(&state.db, &core::digest(&get("code")), now).await {
                Ok(Some(c)) => c,
                Ok(None) => {
                    return oauth_error(
                        StatusCode::BAD_REQUEST,
                        "invalid_grant",
                        "the code is unknown or was used already",
                    );
                }
                Err(e) => return boxtrack_api::error::ApiError::from(e).into_response(),
            };
            if code.expires_us < now {
                return oauth_error(StatusCode::BAD_REQUEST, "invalid_grant", "the code expired");
            }
            if code.client_id != get("client_id") || code.redirect_uri != get("redirect_uri") {
                return oauth_error(
                    StatusCode::BAD_REQUEST,
                    "invalid_grant",
                    "client_id or redirect_uri differs from the authorization request",
                );
            }
            if !core::pkce_s256_matches(&get("code_verifier"), &code.code_challenge) {
                return oauth_error(
                    StatusCode::BAD_REQUEST,
                    "invalid_grant",
                    "the PKCE code_verifier does not match",
                );
            }
            if let Some(r) = f.get("resource")
                && core::canonical_resource(r).as_deref() != Some(code.resource.as_str())
            {
                return oauth_error(
                    StatusCode::BAD_REQUEST,
                    "invalid_target",
                    "resource differs from the authorization request",
                );
            }
            let _ = &headers;
            issue(
                &state,
                &code.client_id,
                code.user_id,
                code.account_id,
                &code.resource,
                uuid::Uuid::now_v7(),
            )
            .await
        }
        "refresh_token" => {
            let hash = core::digest(&get("refresh_token"));
            let t = match store::get_token(&state.db, &hash).await {
                Ok(Some(t)) if t.kind == "refresh" => t,
                Ok(_) => {
                    return oauth_error(
                        StatusCode::BAD_REQUEST,
                        "invalid_grant",
                        "unknown refresh token",
                    );
                }
                Err(e) => return boxtrack_api::error::ApiError::from(e).into_response(),
            };
            if t.client_id != get("client_id") {
                return oauth_error(
                    StatusCode::BAD_REQUEST,
                    "invalid_grant",
                    "the refresh token belongs to another client",
                );
            }
            if t.revoked_us.is_some() || t.expires_us < now {
                return oauth_error(
                    StatusCode::BAD_REQUEST,
                    "invalid_grant",
                    "the refresh token expired or was revoked",
                );
            }
            match store::use_refresh(&state.db, &hash, now).await {
                Ok(true) => {
                    issue(
                        &state,
                        &t.client_id,
                        t.user_id,
                        t.account_id,
                        &t.resource,
                        t.family,
                    )
                    .await
                }
                Ok(false) => {
                    // reuse of a rotated token: revoke everything issued from this grant
                    if let Err(e) = store::revoke_family(&state.db, t.family, now).await {
                        return boxtrack_api::error::ApiError::from(e).into_response();
                    }
                    tracing::warn!(client = %t.client_id, "refresh token reused; its token family is revoked");
                    oauth_error(
                        StatusCode::BAD_REQUEST,
                        "invalid_grant",
                        "the refresh token was used already; every token of this grant is revoked",
                    )
                }
                Err(e) => boxtrack_api::error::ApiError::from(e).into_response(),
            }
        }
        other => oauth_error(
            StatusCode::BAD_REQUEST,
            "unsupported_grant_type",
            &format!("grant_type {other:?} is not supported"),
        ),
    }
}

/// The account an OAuth access token stands for, when it is valid for `resource`.
pub async fn account_for_bearer(
    state: &AppState,
    token: &str,
    resource: &str,
) -> Result<Option<boxtrack_store::accounts::Account>, boxtrack_store::StoreError> {
    let Some(t) = store::get_token(&state.db, &core::digest(token)).await? else {
        return Ok(None);
    };
    let now = boxtrack_store::now_us();
    if t.kind != "access" || t.revoked_us.is_some() || t.expires_us < now || t.resource != resource
    {
        return Ok(None);
    }
    boxtrack_store::accounts::get(&state.db, t.account_id).await
}

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
    // RFC 6749 §5.2 error bodies, and what axum says of a form that is not one
    let oauth_err = |d: &str| json!({"description": d, "content": {"application/json": {"schema": {"type": "object", "required": ["error"], "properties": {"error": {"type": "string"}, "error_description": {"type": "string"}}}}}});
    let not_form = json!({"description": "The body is not application/x-www-form-urlencoded", "content": {"text/plain": {"schema": {"type": "string"}}}});
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
        vec![(
            "400",
            oauth_err("`invalid_client_metadata` or `invalid_redirect_uri`"),
        )],
    );
    register["requestBody"] = json!({"required": true, "content": {"application/json": {"schema": {"type": "object", "required": ["redirect_uris"], "properties": {"redirect_uris": {"type": "array", "items": {"type": "string"}}, "client_name": {"type": "string"}}}}}});
    let mut submit = public(operation(
        "OAuth",
        "Sign in and consent",
        "The sign-in form's target: CSRF token (cookie and field), email and password, `decision` allow or deny. Redirects (303) to the client with `code` and `state`, or `error=access_denied`; wrong credentials show the page again (400) with the error next to the field.",
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
        ],
    );
    token["requestBody"] = form(
        json!({"grant_type": {"type": "string"}, "code": {"type": "string"}, "redirect_uri": {"type": "string"}, "client_id": {"type": "string"}, "code_verifier": {"type": "string"}, "refresh_token": {"type": "string"}, "resource": {"type": "string"}}),
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
                        q("response_type", true),
                        q("client_id", true),
                        q("redirect_uri", true),
                        q("code_challenge", true),
                        q("code_challenge_method", true),
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
