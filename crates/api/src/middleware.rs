//! Middleware of the whole router.

use std::convert::Infallible;
use std::time::Instant;

use axum::extract::{MatchedPath, Request};
use axum::http::{HeaderName, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use tower::ServiceExt;

use crate::state::AppState;
use boxtrack_http::access::{self, AccessLine, AccessNote, note_route};
use boxtrack_http::dbgate;
use boxtrack_http::error::ApiError;

/// The process-wide work on every request, as one service around the router (a layer of
/// its own costs a clone of the service and a future wrapped around the next per request,
/// and a layer of the `Router` is laid on every route, BENCHMARKS.md): credentials marked
/// sensitive, the request id (the client's `x-request-id`, or a new UUID; sent back on the
/// response, and kept for the lines logged while the request is handled,
/// [`boxtrack_http::access::in_request`]), and from the outside in [`track`] (times and counts the
/// request and writes its access line), [`gate`] (refuses it at once while the database is
/// known to be away) and [`deadline`] (abandons it past the request timeout, answers a
/// panic).
#[derive(Clone)]
pub(crate) struct EdgeLayer(pub(crate) AppState);

impl<S> tower::Layer<S> for EdgeLayer {
    type Service = Edge<S>;
    fn layer(&self, inner: S) -> Edge<S> {
        Edge {
            inner,
            state: self.0.clone(),
        }
    }
}

/// See [`EdgeLayer`].
#[derive(Clone)]
pub struct Edge<S> {
    inner: S,
    state: AppState,
}

/// The future of an [`Edge`]'s answer.
pub type EdgeFuture =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<Response, Infallible>> + Send>>;

const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

impl<S> tower::Service<Request> for Edge<S>
where
    S: tower::Service<Request, Response = Response, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send,
{
    type Response = Response;
    type Error = Infallible;
    type Future = EdgeFuture;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut req: Request) -> Self::Future {
        // the service that was made ready answers; a clone waits for the next request
        let ready = self.inner.clone();
        let inner = std::mem::replace(&mut self.inner, ready);
        let state = self.state.clone();
        let headers = req.headers_mut();
        for name in [header::AUTHORIZATION, header::COOKIE] {
            if let header::Entry::Occupied(mut values) = headers.entry(name) {
                values.iter_mut().for_each(|v| v.set_sensitive(true));
            }
        }
        let id = match headers.get(REQUEST_ID) {
            Some(id) => id.clone(),
            None => {
                let id = new_request_id();
                headers.insert(REQUEST_ID, id.clone());
                id
            }
        };
        // a line written while the request is handled names it by its id alone; the
        // request's access line (same id) gives its method, route, status and account
        let scope = id.clone();
        Box::pin(access::in_request(scope, async move {
            let s = &state;
            let mut res = track(s, &id, req, move |req| async move {
                gate(s, req, move |req| deadline(s, inner.oneshot(req))).await
            })
            .await;
            res.headers_mut().entry(REQUEST_ID).or_insert(id);
            Ok(res)
        }))
    }
}

/// A new request id: a random UUID, written without a heap string in between.
fn new_request_id() -> HeaderValue {
    let mut buf = uuid::Uuid::encode_buffer();
    let text = uuid::Uuid::new_v4().hyphenated().encode_lower(&mut buf);
    HeaderValue::from_str(text).unwrap_or_else(|_| HeaderValue::from_static("unknown"))
}

/// A request that takes longer than the request timeout is abandoned (its transactions roll
/// back) and answered the JSON:API 503 `request_timeout`; the time counts from when its head
/// arrived, so a body sent slowly counts too. A handler that panics is answered a 500 (the
/// process goes on).
async fn deadline(
    state: &AppState,
    answer: impl std::future::Future<Output = Result<Response, Infallible>>,
) -> Response {
    use std::task::Poll;
    let mut answer = std::pin::pin!(answer);
    // polled no more once it panicked: the panic is the answer
    let caught = std::future::poll_fn(move |cx| {
        let polled =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| answer.as_mut().poll(cx)));
        match polled {
            Ok(Poll::Ready(Ok(answer))) => Poll::Ready(answer),
            Ok(Poll::Ready(Err(never))) => match never {},
            Ok(Poll::Pending) => Poll::Pending,
            Err(panic) => Poll::Ready(panic_response(panic)),
        }
    });
    match tokio::time::timeout(state.config.request_timeout, caught).await {
        Ok(answer) => answer,
        Err(_) => ApiError::timed_out().into_response(),
    }
}

/// The answer to a request whose handler panicked (the process goes on).
fn panic_response(_: Box<dyn std::any::Any + Send + 'static>) -> Response {
    tracing::error!("a request handler panicked");
    ApiError::internal().into_response()
}

/// Whether a request needs the database: REST (`/v2/…`, but the OpenAPI document), MCP
/// (`/mcp`) and the console's pages (`/console…`, but its static assets).
fn needs_database(path: &str) -> bool {
    (path.starts_with("/v2/") && path != "/v2/openapi.json")
        || path == "/mcp"
        || path.starts_with("/mcp/")
        || (path.starts_with("/console") && !path.starts_with("/console/assets/"))
}

/// While the database is known to be unreachable, requests that need it (REST, MCP, the
/// console) are answered the 503 `database_unavailable` at once; the server finds out by
/// itself when it is back (see [`boxtrack_http::dbgate`]). A request the deadline ends still tells
/// the gate what it found.
async fn gate<F, Fut>(state: &AppState, req: Request, inner: F) -> Response
where
    F: FnOnce(Request) -> Fut,
    Fut: std::future::Future<Output = Response>,
{
    use boxtrack_http::dbgate::{Admission, Unreachable};
    if !needs_database(req.uri().path()) {
        return inner(req).await;
    }
    let admission = state.db_gate.admit();
    if admission == Admission::Refuse {
        return ApiError::database_known_unreachable().into_response();
    }
    let res = inner(req).await;
    let unreachable = res.extensions().get::<Unreachable>().is_some();
    if unreachable && let Some(replicas) = &state.ctx.replicas {
        // the database away may have been a replica: while the primary answers, the gate
        // stays open and the replicas are checked at once (one found away is taken out)
        replicas.check_soon();
        let primary = tokio::time::timeout(dbgate::PROBE_TIMEOUT, state.ctx.db.ping()).await;
        if matches!(primary, Ok(Ok(()))) {
            return res;
        }
    }
    state.db_gate.ended(admission, unreachable, &state.ctx.db);
    res
}

/// Times every request, counts it by matched route and status, and writes the access log
/// line (target `boxtrack::access`, [`boxtrack_http::access`]): method, route template (never the
/// query, so no token in a query string reaches the log), status, latency, account and
/// request id. Outside the panic, timeout and gate answers, so that their 500 and 503 are
/// counted and logged like any other.
async fn track<F, Fut>(
    state: &AppState,
    request_id: &HeaderValue,
    mut req: Request,
    inner: F,
) -> Response
where
    F: FnOnce(Request) -> Fut,
    Fut: std::future::Future<Output = Response>,
{
    // reference-counted clones: nothing here allocates per request
    let method = req.method().clone();
    let request_id = request_id.to_str().unwrap_or_default();
    let writes = !req.method().is_safe();
    let api = req.uri().path().starts_with("/v2/");
    let note = AccessNote::default();
    req.extensions_mut().insert(note.clone());
    let started = Instant::now();
    let mut res = inner(req).await;
    // the router, inside, matched the request and noted its route
    let route = note.route().map_or("unmatched", MatchedPath::as_str);
    let status = res.status().as_u16();
    if api && status >= 400 {
        res = plain_error_as_jsonapi(res).await;
    }
    if writes && status < 400 {
        read_your_writes(state, &note, route).await;
    }
    let elapsed = started.elapsed();
    let method = method.as_str();
    state
        .metrics
        .record_request(method, route, status, elapsed.as_secs_f64());
    let latency_ms = (elapsed.as_secs_f64() * 1000.0 * 10.0).round() / 10.0;
    if status >= 500 {
        tracing::error!(status, latency_ms, "response failed");
    }
    access::log(
        state.access_sink.as_deref(),
        &AccessLine {
            method,
            route,
            status,
            latency_ms,
            account: note.account(),
            request_id,
        },
    );
    res
}

/// An error answer of the REST API that the HTTP layer wrote as plain text (axum's own
/// rejections: a body over its limit, an unreadable body) as the JSON:API error every client
/// of `/v2` expects, with the same status and the text as its detail.
async fn plain_error_as_jsonapi(res: Response) -> Response {
    let plain = res
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("text/plain"));
    if !plain {
        return res;
    }
    let status = res.status();
    let text = axum::body::to_bytes(res.into_body(), 16 * 1024)
        .await
        .map(|b| String::from_utf8_lossy(&b).trim().to_string())
        .unwrap_or_default();
    let mut error = ApiError::new(
        status,
        if status == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
            format!(
                "The request body is larger than this operation accepts (its limit is in the API's OpenAPI document); nothing was read or stored. ({text})"
            )
        } else if text.is_empty() {
            status.canonical_reason().unwrap_or("error").to_string()
        } else {
            text
        },
    );
    if status == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
        error = error.with_code("payload_too_large");
    }
    error.into_response()
}

/// After a write that succeeded, with read replicas: the account's reads stay on the primary
/// until a replica has replayed it (see `boxtrack_store::replicas`). A console form's account
/// is not known here, so its write holds every account's reads until then (forms are few).
async fn read_your_writes(state: &AppState, note: &AccessNote, route: &str) {
    let Some(replicas) = &state.ctx.replicas else {
        return;
    };
    match note.account() {
        Some(a) => replicas.wrote(Some(a)).await,
        None if route.starts_with("/console") => replicas.wrote(None).await,
        None => {}
    }
}

/// Middleware on every route: notes the route matched ([`note_route`]), then checks the
/// request's query and JSON body against the served document ([`unknown_query`], then
/// [`body_shape`]), in one layer. A tower service of its own rather than `from_fn`: a request
/// with no JSON body (most) goes on to its route with no future boxed and nothing cloned.
#[derive(Clone)]
pub(crate) struct RequestShapeLayer(pub(crate) AppState);

impl<S> tower::Layer<S> for RequestShapeLayer {
    type Service = RequestShape<S>;
    fn layer(&self, inner: S) -> RequestShape<S> {
        RequestShape {
            inner,
            state: self.0.clone(),
        }
    }
}

/// See [`RequestShapeLayer`].
#[derive(Clone)]
pub(crate) struct RequestShape<S> {
    inner: S,
    state: AppState,
}

/// The answer of a [`RequestShape`]: its route's, or (a refusal, or a JSON body's check and
/// then its route's) a boxed future.
pub(crate) enum ShapeFuture<F> {
    /// The route answers.
    Route(F),
    /// Refused, or the body checked before the route answers.
    Boxed(std::pin::Pin<Box<dyn std::future::Future<Output = Response> + Send>>),
}

impl<F> std::future::Future for ShapeFuture<F>
where
    F: std::future::Future<Output = Result<Response, Infallible>> + Unpin,
{
    type Output = Result<Response, Infallible>;

    fn poll(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Self::Output> {
        match self.get_mut() {
            ShapeFuture::Route(f) => std::pin::Pin::new(f).poll(cx),
            ShapeFuture::Boxed(f) => f.as_mut().poll(cx).map(Ok),
        }
    }
}

impl<S> tower::Service<Request> for RequestShape<S>
where
    S: tower::Service<Request, Response = Response, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send + Unpin,
{
    type Response = Response;
    type Error = Infallible;
    type Future = ShapeFuture<S::Future>;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request) -> Self::Future {
        note_route(req.extensions());
        if let Some(refused) = unknown_query(&self.state, &req) {
            return ShapeFuture::Boxed(Box::pin(std::future::ready(refused)));
        }
        match json_body_schema(&self.state, &req) {
            None => ShapeFuture::Route(self.inner.call(req)),
            Some(validator) => {
                // the service that was made ready answers; a clone waits for the next request
                let ready = self.inner.clone();
                let inner = std::mem::replace(&mut self.inner, ready);
                ShapeFuture::Boxed(Box::pin(body_shape(validator, req, inner)))
            }
        }
    }
}

/// A query parameter a `/v2` operation does not document is a 400 naming it,
/// rather than ignored (a mistyped filter would otherwise answer everything). The served
/// document is the list of what each operation takes. The OAuth endpoints are left alone:
/// an authorization server ignores parameters it does not know (RFC 6749 §3.1).
fn unknown_query(state: &AppState, req: &Request) -> Option<Response> {
    if let (Some(path), Some(query)) = (req.extensions().get::<MatchedPath>(), req.uri().query())
        && path.as_str().starts_with("/v2/")
        && let Some(known) = state
            .query_names
            .known(path.as_str(), req.method().as_str())
    {
        for (name, _) in url::form_urlencoded::parse(query.as_bytes()) {
            if !known.iter().any(|k| *k == name) {
                let takes = if known.is_empty() {
                    "takes no query parameters".to_string()
                } else {
                    format!("takes {}", known.join(", "))
                };
                return Some(
                    ApiError::bad_parameter(
                        &name,
                        format!(
                            "unknown query parameter {name:?}: {} {} {takes}",
                            req.method(),
                            path.as_str()
                        ),
                    )
                    .into_response(),
                );
            }
        }
    }
    None
}

/// The largest JSON request body read (axum's default limit, which the JSON endpoints keep).
const JSON_BODY_LIMIT: usize = 2 * 1024 * 1024;

/// The compiled request-body schemas of the served document, by method, path and media type
/// (`None`: the operation declares no JSON body).
type BodySchemas = std::sync::Mutex<
    std::collections::HashMap<(String, String), Option<std::sync::Arc<jsonschema::Validator>>>,
>;

static BODY_SCHEMAS: std::sync::LazyLock<BodySchemas> = std::sync::LazyLock::new(Default::default);

/// Whether a `Content-Type` value is JSON (`application/json`, `application/vnd.api+json`,
/// with or without parameters).
fn is_json(content_type: &str) -> bool {
    let essence = content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    essence == "application/json" || essence == "application/vnd.api+json"
}

/// The validator of an operation's JSON request body, compiled once per process.
fn body_schema(
    doc: &serde_json::Value,
    method: &str,
    path: &str,
) -> Option<std::sync::Arc<jsonschema::Validator>> {
    let key = (method.to_string(), path.to_string());
    if let Ok(cache) = BODY_SCHEMAS.lock()
        && let Some(found) = cache.get(&key)
    {
        return found.clone();
    }
    let content = &doc["paths"][path][method]["requestBody"]["content"];
    let compiled = ["application/vnd.api+json", "application/json"]
        .iter()
        .find_map(|m| content.get(*m).map(|c| c["schema"].clone()))
        .and_then(|mut schema| {
            // component references resolve against the schema's own root
            if let (Some(o), Some(c)) = (schema.as_object_mut(), doc.get("components")) {
                o.insert("components".into(), c.clone());
            }
            match jsonschema::draft202012::options().build(&schema) {
                Ok(v) => Some(std::sync::Arc::new(v)),
                Err(e) => {
                    tracing::error!(%method, %path, error = %e, "a request body schema of the document does not compile");
                    None
                }
            }
        });
    if let Ok(mut cache) = BODY_SCHEMAS.lock() {
        cache.insert(key, compiled.clone());
    }
    compiled
}

/// The schema a request's JSON body is checked against: `None` for a request without a JSON
/// body (most: they pass before anything is looked up), for upstream payloads (ingest: kept
/// even when malformed, as rejected payloads with their reason, their handlers read them
/// whole) and for operations that declare no JSON body.
fn json_body_schema(
    state: &AppState,
    req: &Request,
) -> Option<std::sync::Arc<jsonschema::Validator>> {
    let json = req
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(is_json);
    if !json {
        return None;
    }
    let path = req.extensions().get::<MatchedPath>()?.as_str();
    if !(path.starts_with("/v2/") || path.starts_with("/rails/")) || path.starts_with("/v2/ingest/")
    {
        return None;
    }
    let method = req.method().as_str().to_ascii_lowercase();
    body_schema(&state.openapi, &method, path)
}

/// A JSON request body whose shape breaks the served document (an array where
/// it says object, a number where it says string, ...) is a 400 naming each place, before
/// any handler reads it; `null` where it says a value is the 422 of a missing value. Only the JSON types are checked here: required members, enums,
/// patterns and ranges stay with the handlers, whose 422s say what the reference says.
async fn body_shape<S>(
    validator: std::sync::Arc<jsonschema::Validator>,
    req: Request,
    route: S,
) -> Response
where
    S: tower::Service<Request, Response = Response, Error = Infallible>,
{
    let (parts, body) = req.into_parts();
    let bytes = match axum::body::to_bytes(body, JSON_BODY_LIMIT).await {
        Ok(b) => b,
        Err(_) => {
            return ApiError::new(
                axum::http::StatusCode::PAYLOAD_TOO_LARGE,
                format!("The request body is larger than {JSON_BODY_LIMIT} bytes; nothing was read or stored."),
            )
            .with_code("payload_too_large")
            .into_response();
        }
    };
    // a body that is not JSON at all is the handler's to refuse, in its words
    if let Ok(value) = serde_json::from_slice::<serde_json::Value>(&bytes) {
        use jsonschema::error::ValidationErrorKind as Kind;
        let mut wrong: Vec<(String, String)> = Vec::new();
        for e in validator.iter_errors(&value) {
            let pointer = e.instance_path().as_str().to_string();
            match e.kind() {
                // `null` where the document says a value: a missing value, the 422 a
                // handler gives one ("can't be blank"), not a body of the wrong shape
                Kind::Type { .. } if e.instance().is_null() && !pointer.is_empty() => {
                    let member = pointer.rsplit('/').next().unwrap_or_default();
                    return ApiError::unprocessable(
                        &pointer,
                        "blank",
                        format!("{member} can't be null: give a value or leave it out"),
                    )
                    .into_response();
                }
                Kind::Type { .. } => {
                    let pointer = if pointer.is_empty() {
                        "/".to_string()
                    } else {
                        pointer
                    };
                    wrong.push((pointer.clone(), format!("invalid value at {pointer}: {e}")));
                }
                // a resource object of another type: the 422 the handlers give
                Kind::Constant { expected_value } if pointer.ends_with("/type") => {
                    return ApiError::unprocessable(
                        &pointer,
                        "invalid_type",
                        format!("type must be {expected_value}"),
                    )
                    .into_response();
                }
                _ => {}
            }
        }
        if let Some(e) = ApiError::bad_bodies(wrong) {
            return e.into_response();
        }
    }
    let req = Request::from_parts(parts, axum::body::Body::from(bytes));
    match route.oneshot(req).await {
        Ok(answer) => answer,
        Err(never) => match never {},
    }
}
