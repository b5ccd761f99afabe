//! `GET /v2/openapi.json` and a human-readable page at `/docs` rendered from it (no scripts,
//! no outside assets: it works offline).

use std::fmt::Write as _;

use axum::extract::State;
use axum::http::header;
use axum::response::{Html, IntoResponse};
use serde_json::Value;

use crate::doc::{Doc, Routes, object, schema_of};
use crate::state::AppState;

/// `GET /v2/openapi.json`: the served document, with examples taken from the sandbox
/// journeys that the webhook examples are made from ([`with_examples`]), rendered once per
/// process (without examples if the journeys cannot be played).
pub async fn openapi_json(State(state): State<AppState>) -> impl IntoResponse {
    static RENDERED: tokio::sync::OnceCell<String> = tokio::sync::OnceCell::const_new();
    let text = RENDERED
        .get_or_init(|| async {
            let mut doc = (*state.openapi).clone();
            match crate::examples::examples(state.rest_router).await {
                Ok(ex) => with_examples(&mut doc, ex),
                Err(e) => tracing::warn!(error = %e, "the document's examples could not be made"),
            }
            doc.to_string()
        })
        .await;
    ([(header::CONTENT_TYPE, "application/json")], text.clone())
}

/// Adds to `doc` the examples the tour of the sandbox journeys recorded
/// ([`crate::examples::tour`]): each operation's answer under its status, for every JSON
/// media type it declares, and the request body that asked for it.
pub fn with_examples(doc: &mut Value, examples: &crate::examples::Examples) {
    let json_media = |content: &mut Value, example: &Value| {
        if let Some(media) = content.as_object_mut() {
            for (name, m) in media.iter_mut() {
                if name.ends_with("json") && m.is_object() {
                    m["example"] = example.clone();
                }
            }
        }
    };
    for ((method, path), rec) in &examples.by_operation {
        let op = &mut doc["paths"][path.as_str()][method.as_str()];
        if !op.is_object() {
            continue;
        }
        if let Some(answer) = &rec.response {
            json_media(
                &mut op["responses"][rec.status.to_string()]["content"],
                answer,
            );
        }
        if let Some(request) = &rec.request {
            json_media(&mut op["requestBody"]["content"], request);
        }
    }
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn anchor(method: &str, path: &str) -> String {
    format!("{method}-{}", path.replace(['/', '{', '}', '.'], "-"))
}

/// Renders the OpenAPI document as one self-contained HTML page.
pub fn render(doc: &Value) -> String {
    let mut ops: Vec<(String, String, String, &Value)> = Vec::new();
    if let Some(paths) = doc["paths"].as_object() {
        for (path, item) in paths {
            if let Some(methods) = item.as_object() {
                for (method, op) in methods {
                    let tag = op["tags"][0].as_str().unwrap_or("Other").to_string();
                    ops.push((tag, path.clone(), method.clone(), op));
                }
            }
        }
    }
    ops.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut nav = String::new();
    let mut main = String::new();
    let mut last_tag = String::new();
    for (tag, path, method, op) in &ops {
        if *tag != last_tag {
            let _ = write!(nav, "<h3>{}</h3>", esc(tag));
            let _ = write!(main, "<h2>{}</h2>", esc(tag));
            last_tag.clone_from(tag);
        }
        let id = anchor(method, path);
        let upper = method.to_uppercase();
        let _ = write!(
            nav,
            "<a href=\"#{id}\"><code>{upper} {}</code></a>",
            esc(path)
        );
        let _ = write!(
            main,
            "<section id=\"{id}\"><h3><span class=\"m {method}\">{upper}</span> <code>{}</code></h3><p><strong>{}</strong></p><p>{}</p>",
            esc(path),
            esc(op["summary"].as_str().unwrap_or_default()),
            esc(op["description"].as_str().unwrap_or_default())
        );
        if op.get("security").is_some() {
            main.push_str(
                "<p class=\"auth\">Requires <code>Authorization: Token &lt;API key&gt;</code>.</p>",
            );
        }
        if let Some(params) = op["parameters"].as_array().filter(|p| !p.is_empty()) {
            main.push_str("<table><caption>Parameters</caption><tr><th scope=\"col\">Name</th><th scope=\"col\">In</th><th scope=\"col\">Description</th></tr>");
            for p in params {
                let _ = write!(
                    main,
                    "<tr><td><code>{}</code></td><td>{}</td><td>{}</td></tr>",
                    esc(p["name"].as_str().unwrap_or_default()),
                    esc(p["in"].as_str().unwrap_or_default()),
                    esc(p["description"].as_str().unwrap_or_default())
                );
            }
            main.push_str("</table>");
        }
        if let Some(schema) = op["requestBody"]["content"]["application/vnd.api+json"].get("schema")
        {
            let _ = write!(
                main,
                "<details><summary>Request body</summary><pre>{}</pre></details>",
                esc(&serde_json::to_string_pretty(schema).unwrap_or_default())
            );
        }
        if let Some(responses) = op["responses"].as_object() {
            main.push_str("<table><caption>Responses</caption><tr><th scope=\"col\">Status</th><th scope=\"col\">Meaning</th></tr>");
            let mut codes: Vec<_> = responses.iter().collect();
            codes.sort_by(|a, b| a.0.cmp(b.0));
            for (code, r) in codes {
                let _ = write!(
                    main,
                    "<tr><td>{}</td><td>{}</td></tr>",
                    esc(code),
                    esc(r["description"].as_str().unwrap_or_default())
                );
            }
            main.push_str("</table>");
        }
        main.push_str("</section>");
    }
    let schemas = serde_json::to_string_pretty(&doc["components"]["schemas"]).unwrap_or_default();
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{title} — API reference</title><style>\
body{{font:15px/1.5 system-ui,sans-serif;margin:0;display:flex;color:#1a1a1a}}nav{{width:18rem;padding:1rem;border-right:1px solid #ddd;height:100vh;overflow:auto;position:sticky;top:0}}\
nav a{{display:block;text-decoration:none;color:#0645ad;margin:.15rem 0;font-size:13px}}main{{padding:1rem 2rem;max-width:60rem}}section{{border-top:1px solid #eee;padding:.5rem 0}}\
.m{{font:bold 12px monospace;padding:2px 6px;border-radius:3px;color:#fff;background:#555}}.get{{background:#2f6f3e}}.post{{background:#1f5f9f}}.patch{{background:#8a5a00}}.delete{{background:#a32020}}\
table{{border-collapse:collapse;margin:.5rem 0}}td,th{{border:1px solid #ddd;padding:.25rem .5rem;text-align:left;vertical-align:top}}caption{{text-align:left;font-weight:600}}pre{{background:#f6f6f6;padding:.5rem;overflow:auto}}.auth{{color:#555}}\
</style></head><body><nav aria-label=\"Endpoints\"><p><strong>{title}</strong> {version}</p><p><a href=\"/v2/openapi.json\">openapi.json</a></p>{nav}</nav>\
<main><h1>{title}</h1><p>{desc}</p>{main}<h2>Schemas</h2><pre>{schemas}</pre></main></body></html>",
        title = esc(doc["info"]["title"].as_str().unwrap_or("API")),
        version = esc(doc["info"]["version"].as_str().unwrap_or_default()),
        desc = esc(doc["info"]["description"].as_str().unwrap_or_default()),
        schemas = esc(&schemas),
    )
}

/// `GET /docs`.
pub async fn page(State(state): State<AppState>) -> Html<String> {
    Html(render(&state.openapi))
}

/// This module's operations: the document and its page.
pub fn routes() -> Routes {
    Routes::default()
        .public_get("/v2/openapi.json", openapi_json, || {
            Doc::new("Documentation", "OpenAPI document")
                .about("This document (OpenAPI 3.1). No key needed.")
                .answer("200", Doc::json_answer("OpenAPI 3.1", object()))
        })
        .public_get("/docs", page, || {
            Doc::new("Documentation", "API reference page")
                .about("A readable page generated from the OpenAPI document; works offline.")
                .answer(
                    "200",
                    Doc::media_answer("HTML", "text/html", schema_of::<String>()),
                )
        })
}
