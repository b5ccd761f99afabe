//! The one mapping from failures to JSON:API error documents.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use boxtrack_store::StoreError;
use serde::Serialize;

use boxtrack_views::jsonapi::MEDIA_TYPE;

/// Where in the request an error is.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ErrorSource {
    /// A JSON pointer into the request document, e.g. `/data/attributes/scac`.
    Pointer(String),
    /// A query parameter, e.g. `page[size]`.
    Parameter(String),
}

/// One JSON:API error object.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct ErrorObject {
    /// HTTP status as a string.
    pub status: String,
    /// Short, fixed summary of the status.
    pub title: String,
    /// What went wrong, for a human.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// Machine-readable reason, e.g. `blank`, `duplicate`, `entitlement_required`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// Where the problem is: `{"pointer": ...}` or `{"parameter": ...}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<serde_json::Map<String, serde_json::Value>>,
    /// More about the error, e.g. the existing resource a duplicate collides with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub meta: Option<serde_json::Value>,
}

/// The error document `{"errors": [...]}`.
#[derive(Debug, Clone, Serialize)]
pub struct ErrorDocument {
    /// One or more errors.
    pub errors: Vec<ErrorObject>,
}

/// An error answered to an API client.
#[derive(Debug, Clone)]
pub struct ApiError {
    status: StatusCode,
    errors: Vec<ErrorObject>,
    retry_after: Option<u64>,
    /// The request found the database unreachable (closes [`crate::dbgate::DbGate`]).
    unreachable: bool,
}

fn title_of(status: StatusCode) -> &'static str {
    status.canonical_reason().unwrap_or("Error")
}

impl ApiError {
    /// An error with a detail message.
    pub fn new(status: StatusCode, detail: impl Into<String>) -> ApiError {
        ApiError {
            status,
            errors: vec![ErrorObject {
                status: status.as_u16().to_string(),
                title: title_of(status).to_string(),
                detail: Some(detail.into()),
                code: None,
                source: None,
                meta: None,
            }],
            retry_after: None,
            unreachable: false,
        }
    }

    /// 400 naming a query parameter.
    pub fn bad_parameter(param: &str, detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, detail)
            .with_source(ErrorSource::Parameter(param.to_string()))
    }

    /// 400 naming a place in the body.
    pub fn bad_body(pointer: &str, detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, detail)
            .with_source(ErrorSource::Pointer(pointer.to_string()))
    }

    /// 400 naming several places in the body (pointer, detail), one error object each;
    /// `None` when there are none.
    pub fn bad_bodies(wrong: Vec<(String, String)>) -> Option<ApiError> {
        let mut errors = wrong
            .into_iter()
            .map(|(pointer, detail)| ApiError::bad_body(&pointer, detail).errors);
        let mut first = ApiError::bad_body("/", String::new());
        first.errors = errors.next()?;
        for more in errors {
            first.errors.extend(more);
        }
        Some(first)
    }

    /// 422: well-formed but rejected content at `pointer`, with a machine `code`.
    pub fn unprocessable(pointer: &str, code: &str, detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, detail)
            .with_source(ErrorSource::Pointer(pointer.to_string()))
            .with_code(code)
    }

    /// 401 for a missing, malformed, unknown or revoked key.
    pub fn unauthorized(detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNAUTHORIZED, detail)
    }

    /// 403.
    pub fn forbidden(detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::FORBIDDEN, detail)
    }

    /// 404 for a resource that does not exist for this account.
    pub fn not_found(what: &str) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, format!("Couldn't find {what}"))
    }

    /// 429 with the seconds to wait.
    pub fn too_many_requests(retry_after_secs: u64, detail: impl Into<String>) -> ApiError {
        let mut e = ApiError::new(StatusCode::TOO_MANY_REQUESTS, detail);
        e.retry_after = Some(retry_after_secs);
        e
    }

    /// A generic 500; the cause must already have been logged.
    pub fn internal() -> ApiError {
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "The service failed to handle this request; it has been logged.",
        )
    }

    /// 503 for a database that cannot take the request now (logged here): `database_unavailable`
    /// with `Retry-After`, or `storage_full` (the operator must make room; nothing of the
    /// request was written).
    pub fn database_unavailable(
        condition: boxtrack_store::Unavailable,
        cause: &StoreError,
    ) -> ApiError {
        use boxtrack_store::Unavailable;
        match condition {
            Unavailable::Full => {
                tracing::error!(error = %cause, "the database cannot write: its storage is full or refuses writes until room is made");
                ApiError::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "The service's storage is full or refuses writes, so this request did not complete; the operator has been told. Try again later.",
                )
                .with_code("storage_full")
            }
            Unavailable::Unreachable | Unavailable::Busy => {
                tracing::warn!(error = %cause, "the database cannot be reached");
                let mut e = ApiError::unavailable(
                    "database_unavailable",
                    5,
                    "The service's database cannot be reached right now; this request did not complete. Try again shortly.",
                );
                e.unreachable = condition == Unavailable::Unreachable;
                e
            }
        }
    }

    /// 503 `database_unavailable` at once, without trying the database: a request has found
    /// it unreachable and none has got through since (see [`crate::dbgate`]).
    pub fn database_known_unreachable() -> ApiError {
        ApiError::unavailable(
            "database_unavailable",
            5,
            "The service's database cannot be reached right now, so requests are answered at once without waiting for it; this request did not complete. Try again shortly.",
        )
    }

    /// 503 for a request that took longer than the request timeout (`request_timeout`).
    pub fn timed_out() -> ApiError {
        ApiError::unavailable(
            "request_timeout",
            1,
            "The request took longer than the service's request timeout and was abandoned; try again.",
        )
    }

    /// A 503 with `code`, to be tried again after `retry_after_secs`.
    fn unavailable(code: &str, retry_after_secs: u64, detail: &str) -> ApiError {
        let mut e = ApiError::new(StatusCode::SERVICE_UNAVAILABLE, detail).with_code(code);
        e.retry_after = Some(retry_after_secs);
        e
    }

    /// Adds a source to every error object.
    pub fn with_source(mut self, source: ErrorSource) -> ApiError {
        let mut map = serde_json::Map::new();
        match source {
            ErrorSource::Pointer(p) => map.insert("pointer".into(), p.into()),
            ErrorSource::Parameter(p) => map.insert("parameter".into(), p.into()),
        };
        for e in &mut self.errors {
            e.source = Some(map.clone());
        }
        self
    }

    /// Adds a machine-readable code to every error object.
    pub fn with_code(mut self, code: &str) -> ApiError {
        for e in &mut self.errors {
            e.code = Some(code.to_string());
        }
        self
    }

    /// Replaces the title of every error object (where the reference names the case, as
    /// "Duplicate document").
    pub fn with_title(mut self, title: &str) -> ApiError {
        for e in &mut self.errors {
            e.title = title.to_string();
        }
        self
    }

    /// Adds `meta` to every error object.
    pub fn with_meta(mut self, meta: serde_json::Value) -> ApiError {
        for e in &mut self.errors {
            e.meta = Some(meta.clone());
        }
        self
    }

    /// Joins several errors of the same status into one document.
    pub fn merge(mut self, other: ApiError) -> ApiError {
        self.errors.extend(other.errors);
        self.unreachable |= other.unreachable;
        self
    }

    /// The HTTP status.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The error objects.
    pub fn errors(&self) -> &[ErrorObject] {
        &self.errors
    }
}

impl From<boxtrack_app::AppError> for ApiError {
    fn from(e: boxtrack_app::AppError) -> ApiError {
        match e {
            boxtrack_app::AppError::Invalid { param, detail } => {
                ApiError::bad_parameter(&param, detail)
            }
            boxtrack_app::AppError::Unprocessable {
                field,
                code,
                detail,
            } => ApiError::unprocessable(&format!("/data/attributes/{field}"), code, detail),
            boxtrack_app::AppError::NotFound(what) => ApiError::not_found(what),
            boxtrack_app::AppError::Rejected(problems) => problems
                .into_iter()
                .map(|(field, detail)| {
                    ApiError::unprocessable(&format!("/data/attributes{field}"), "invalid", detail)
                })
                .reduce(ApiError::merge)
                .unwrap_or_else(|| ApiError::unprocessable("/data", "invalid", "refused")),
            boxtrack_app::AppError::Refused { code, detail } => {
                ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, detail).with_code(code)
            }
            boxtrack_app::AppError::PlanLimit(limit) => ApiError::unprocessable(
                "/data",
                "plan_limit",
                format!("The free plan tracks at most {limit} active containers at once"),
            ),
            boxtrack_app::AppError::Upstream(detail) => {
                ApiError::new(StatusCode::BAD_GATEWAY, detail).with_code("upstream_failed")
            }
            boxtrack_app::AppError::Store(e) => e.into(),
        }
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> ApiError {
        match e {
            StoreError::NotFound(what) => ApiError::not_found(what),
            StoreError::Redis(e) => {
                tracing::error!(error = %e, "the rate-limit store (Redis) failed");
                ApiError::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "rate limits cannot be checked right now; try again shortly",
                )
                .with_meta(serde_json::to_value(Retry { retry: true }).unwrap_or_default())
            }
            other => match other.unavailable() {
                Some(condition) => ApiError::database_unavailable(condition, &other),
                None => {
                    tracing::error!(error = %other, "storage failure");
                    ApiError::internal()
                }
            },
        }
    }
}

/// The `meta` of an error worth retrying at once.
#[derive(Serialize)]
struct Retry {
    retry: bool,
}

impl ApiError {
    /// The error document's bytes.
    pub fn body(&self) -> Vec<u8> {
        serde_json::to_vec(&ErrorDocument {
            errors: self.errors.clone(),
        })
        .unwrap_or_else(|_| {
            br#"{"errors":[{"status":"500","title":"Internal Server Error"}]}"#.to_vec()
        })
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = self.body();
        let mut res = (self.status, body).into_response();
        res.headers_mut()
            .insert(header::CONTENT_TYPE, HeaderValue::from_static(MEDIA_TYPE));
        if let Some(s) = self.retry_after {
            res.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(s));
        }
        if self.unreachable {
            res.extensions_mut().insert(crate::dbgate::Unreachable);
        }
        res
    }
}

/// Result alias for handlers.
pub type ApiResult<T> = Result<T, ApiError>;
