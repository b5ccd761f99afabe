//! The REST API in process as the caller: each tool call is one or more requests through
//! the REST routes with the caller's account, and what the tools make of the documents.

use axum::body::Body;
use axum::http::{Method, Request};
use serde_json::{Value, json};
use tower::ServiceExt;

use boxtrack_api::state::AppState;

pub(super) struct Rest<'a> {
    pub(super) state: &'a AppState,
    pub(super) account: &'a boxtrack_store::accounts::Account,
}

impl Rest<'_> {
    pub(super) async fn call(
        &self,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> (u16, Value) {
        let router = boxtrack_api::rest::router(self.state).with_state(self.state.clone());
        let mut req = Request::builder()
            .method(method)
            .uri(path)
            .extension(boxtrack_api::auth::Internal(self.account.clone()))
            .header("Host", "localhost");
        let body = match body {
            Some(b) => {
                req = req.header("Content-Type", "application/vnd.api+json");
                Body::from(b.to_string())
            }
            None => Body::empty(),
        };
        let Ok(req) = req.body(body) else {
            return (500, Value::Null);
        };
        let Ok(resp) = router.oneshot(req).await;
        let status = resp.status().as_u16();
        let bytes = axum::body::to_bytes(resp.into_body(), 16 * 1024 * 1024)
            .await
            .unwrap_or_default();
        (
            status,
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        )
    }

    pub(super) async fn get(&self, path: &str) -> Result<Value, String> {
        match self.call(Method::GET, path, None).await {
            (200, v) => Ok(v),
            (_, v) => Err(error_text(&v)),
        }
    }
}

pub(super) fn error_text(v: &Value) -> String {
    v["errors"][0]["detail"]
        .as_str()
        .or(v["errors"][0]["title"].as_str())
        .unwrap_or("the request failed")
        .to_string()
}

pub(super) fn list_result(doc: Value) -> Value {
    let items: Vec<Value> = doc["data"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .map(|r| {
            let mut a = r["attributes"].clone();
            a["id"] = r["id"].clone();
            a
        })
        .collect();
    json!({"items": items, "meta": doc["meta"], "links": doc["links"]})
}

pub(super) fn flat(resource: &Value) -> Value {
    let mut a = resource["attributes"].clone();
    a["id"] = resource["id"].clone();
    a
}
