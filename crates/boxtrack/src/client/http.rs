//! The server reached with a key: requests with the API's headers, 429s waited out, lists
//! followed page by page, and error answers turned into sentences.

use std::time::Duration;

use anyhow::{Context, anyhow, bail};
use serde::Deserialize;
use serde_json::{Value, json};

use super::args::Conn;

/// A server reached with a key.
pub(super) struct Api {
    http: reqwest::Client,
    base: String,
    key: String,
}

impl Api {
    /// The server `conn` names, with its key (an error says how to get one when there is
    /// none).
    pub(super) fn new(conn: &Conn) -> anyhow::Result<Api> {
        let Some(key) = conn.api_key.clone().filter(|k| !k.trim().is_empty()) else {
            bail!(
                "no API key: set BOXTRACK_API_KEY or pass --api-key (`boxtrack keys create --account ID` or the console's API keys page make one)"
            );
        };
        let base = conn.url.trim_end_matches('/').to_string();
        url::Url::parse(&base).with_context(|| format!("--url {base} is not an address"))?;
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(60))
            .user_agent(concat!("boxtrack-cli/", env!("CARGO_PKG_VERSION")))
            .build()?;
        Ok(Api { http, base, key })
    }

    /// Sends a request; waits out 429s as Retry-After says (up to five times); any other
    /// error status becomes an error that quotes the API's own words.
    pub(super) async fn send(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<&Value>,
    ) -> anyhow::Result<Value> {
        let url = if path.starts_with("http") {
            path.to_string()
        } else {
            format!("{}{path}", self.base)
        };
        for _ in 0..6 {
            let r = self.request(method.clone(), &url, body).send().await;
            let r = r.map_err(|e| reach_error(&self.base, &e))?;
            let status = r.status();
            if status == reqwest::StatusCode::TOO_MANY_REQUESTS {
                tokio::time::sleep(retry_after(&r)).await;
                continue;
            }
            let doc = answer_document(r.text().await.unwrap_or_default());
            if status.is_success() {
                return Ok(doc);
            }
            return Err(ApiFailure {
                status: status.as_u16(),
                message: error_text(&doc),
            }
            .into());
        }
        bail!("the server kept answering 429 (rate limited); try again later")
    }

    /// One request with the key and the JSON:API media type (and `body`, when there is one).
    fn request(
        &self,
        method: reqwest::Method,
        url: &str,
        body: Option<&Value>,
    ) -> reqwest::RequestBuilder {
        let req = self
            .http
            .request(method, url)
            .header("Authorization", format!("Token {}", self.key))
            .header("Accept", "application/vnd.api+json");
        match body {
            Some(b) => req
                .header("Content-Type", "application/vnd.api+json")
                .body(b.to_string()),
            None => req,
        }
    }

    /// GET `path`.
    pub(super) async fn get(&self, path: &str) -> anyhow::Result<Value> {
        self.send(reqwest::Method::GET, path, None).await
    }

    /// Reads a list, following `links.next` until `limit` rows; the included resources of
    /// every page are kept. The rows stay as the server wrote them (`--json` prints them).
    pub(super) async fn list(&self, path: &str, limit: usize) -> anyhow::Result<Value> {
        let mut data = Vec::new();
        let mut included = Vec::new();
        let mut next = Some(path.to_string());
        while let Some(p) = next.take() {
            let page: Page = Page::deserialize(&self.get(&p).await?)
                .context("the server's answer is not a page of a list")?;
            data.extend(page.data);
            included.extend(page.included);
            if data.len() >= limit {
                data.truncate(limit);
                break;
            }
            next = page.links.next;
        }
        Ok(json!({"data": data, "included": included}))
    }
}

/// One page of a list: its rows and included resources as written, and where the next is.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Page {
    data: Vec<Value>,
    included: Vec<Value>,
    links: PageLinks,
}

/// The `links` of a page.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct PageLinks {
    next: Option<String>,
}

/// How long a 429 asks to wait (Retry-After seconds; 5 when it does not say; 1 to 120).
fn retry_after(r: &reqwest::Response) -> Duration {
    let wait = r
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(5)
        .clamp(1, 120);
    Duration::from_secs(wait)
}

/// An answer's body: its JSON, the text itself when it is not JSON, null when empty.
fn answer_document(text: String) -> Value {
    if text.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&text).unwrap_or(Value::String(text))
    }
}

/// An error status from the API.
#[derive(Debug)]
pub(super) struct ApiFailure {
    /// The HTTP status.
    pub(super) status: u16,
    /// The API's words ([`error_text`]).
    pub(super) message: String,
}

impl std::fmt::Display for ApiFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.status {
            401 => write!(f, "the server refused the API key (401): {}", self.message),
            _ => write!(f, "the server answered {}: {}", self.status, self.message),
        }
    }
}

impl std::error::Error for ApiFailure {}

/// A request that got no answer, in words that say what to check.
fn reach_error(base: &str, e: &reqwest::Error) -> anyhow::Error {
    if e.is_connect() {
        anyhow!(
            "cannot reach {base}: is `boxtrack serve` running there? (set BOXTRACK_URL or --url)"
        )
    } else if e.is_timeout() {
        anyhow!("{base} did not answer in time")
    } else {
        anyhow!("request to {base} failed: {e}")
    }
}

/// A JSON:API error document: `{errors: [{title, detail}, …]}`.
#[derive(Debug, Default, Deserialize)]
struct ErrorDocument {
    #[serde(default)]
    errors: Vec<ErrorObject>,
}

/// One error of an error document.
#[derive(Debug, Default, Deserialize)]
struct ErrorObject {
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    detail: Option<String>,
}

impl ErrorObject {
    /// The title, and the detail after a colon when it says more.
    fn sentence(&self) -> String {
        let title = self.title.as_deref().unwrap_or("");
        match self.detail.as_deref() {
            Some(d) if !d.is_empty() && d != title => format!("{title}: {d}"),
            _ => title.to_string(),
        }
    }
}

/// The titles and details of a JSON:API error document, one sentence each (a body that is no
/// error document: its first 200 characters, when it is text).
fn error_text(doc: &Value) -> String {
    let errors = ErrorDocument::deserialize(doc).unwrap_or_default().errors;
    if errors.is_empty() {
        match doc {
            Value::String(s) => s.chars().take(200).collect(),
            _ => "no error document".to_string(),
        }
    } else {
        errors
            .iter()
            .map(ErrorObject::sentence)
            .collect::<Vec<_>>()
            .join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_errors_read_as_sentences() {
        let doc = json!({"errors": [{"title": "Unprocessable Entity", "detail": "Request number is invalid"}, {"title": "Bad"}]});
        assert_eq!(
            error_text(&doc),
            "Unprocessable Entity: Request number is invalid; Bad"
        );
        assert_eq!(error_text(&json!("plain")), "plain");
    }
}
