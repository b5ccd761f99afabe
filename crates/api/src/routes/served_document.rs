//! `GET /v2/openapi.json` and a human-readable page at `/docs` rendered from it (no scripts,
//! no outside assets: it works offline).

use std::fmt::Write as _;

use axum::extract::State;
use axum::http::header;
use axum::response::{Html, IntoResponse};
use serde_json::Value;

use crate::examples::{self, Examples};
use crate::state::AppState;
use crate::state::Routes;
use boxtrack_http::doc::{Doc, object, schema_of};

/// `GET /v2/openapi.json`: the served document, with examples taken from the sandbox
/// journeys that the webhook examples are made from ([`with_examples`]), rendered once per
/// process (without examples if the journeys cannot be played).
pub async fn openapi_json(State(state): State<AppState>) -> impl IntoResponse {
    static RENDERED: tokio::sync::OnceCell<String> = tokio::sync::OnceCell::const_new();
    let text = RENDERED
        .get_or_init(|| async {
            let mut doc = (*state.openapi).clone();
            match examples::examples(state.rest_router).await {
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
pub fn with_examples(doc: &mut Value, examples: &Examples) {
    let json_media = |content: &mut Value, example: &Value| {
        if let Some(media) = content.as_object_mut() {
            let example = trimmed(example);
            for (name, m) in media.iter_mut() {
                if name.ends_with("json") && m.is_object() {
                    m["example"] = example.clone();
                }
            }
        }
    };
    for ((method, path), rec) in &examples.by_operation {
        let shared = shared_response(
            doc,
            &doc["paths"][path.as_str()][method.as_str()]["responses"][rec.status.to_string()],
        );
        let op = &mut doc["paths"][path.as_str()][method.as_str()];
        if !op.is_object() {
            continue;
        }
        // an answer shared through components/responses gets a copy of its own to show
        if let Some(own) = shared {
            op["responses"][rec.status.to_string()] = own;
        }
        if let Some(answer) = &rec.response {
            json_media(
                &mut op["responses"][rec.status.to_string()]["content"],
                answer,
            );
        }
        // a request's example once, under JSON:API's media type (the plain JSON one takes the
        // same body)
        if let Some(request) = &rec.request {
            let content = &mut op["requestBody"]["content"];
            match content.get_mut("application/vnd.api+json") {
                Some(m) if m.is_object() => m["example"] = trimmed(request),
                _ => json_media(content, request),
            }
        }
    }
}

/// The answer a response object points at in `components/responses` (`$ref`), if it does.
fn shared_response(doc: &Value, response: &Value) -> Option<Value> {
    let r = response["$ref"].as_str()?;
    doc.pointer(r.trim_start_matches('#')).cloned()
}

/// The most items an example shows of any list: a vessel's positions a minute apart for a
/// month made one example 3 MB, and code generators and editors refuse documents that large.
pub const EXAMPLE_ITEMS: usize = 3;

/// `example` with every list cut to its first [`EXAMPLE_ITEMS`] items.
fn trimmed(example: &Value) -> Value {
    match example {
        Value::Array(items) => {
            Value::Array(items.iter().take(EXAMPLE_ITEMS).map(trimmed).collect())
        }
        Value::Object(members) => Value::Object(
            members
                .iter()
                .map(|(k, v)| (k.clone(), trimmed(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// One line of Markdown's inline text as HTML: `code`, **bold** and [links](url), the rest
/// escaped.
fn inline(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while !rest.is_empty() {
        let next = rest.find(['`', '*', '[']).unwrap_or(rest.len());
        out.push_str(&esc(&rest[..next]));
        rest = &rest[next..];
        let Some(c) = rest.chars().next() else { break };
        let closed = |open: &str, close: &str| {
            let body = rest.strip_prefix(open)?;
            let end = body.find(close)?;
            Some((&body[..end], &body[end + close.len()..]))
        };
        let link = || {
            let (label, after) = closed("[", "](")?;
            let end = after.find(')')?;
            Some((label, &after[..end], &after[end + 1..]))
        };
        match c {
            '`' if let Some((code, after)) = closed("`", "`") => {
                let _ = write!(out, "<code>{}</code>", esc(code));
                rest = after;
            }
            '*' if let Some((bold, after)) = closed("**", "**") => {
                let _ = write!(out, "<strong>{}</strong>", inline(bold));
                rest = after;
            }
            // the page works offline: a link out of it is shown, not followed
            '[' if let Some((label, url, after)) = link() => {
                if url.contains("://") {
                    let _ = write!(out, "{} ({})", inline(label), esc(url));
                } else {
                    let _ = write!(out, "<a href=\"{}\">{}</a>", esc(url), inline(label));
                }
                rest = after;
            }
            _ => {
                out.push_str(&esc(&rest[..c.len_utf8()]));
                rest = &rest[c.len_utf8()..];
            }
        }
    }
    out
}

/// The Markdown of the document's descriptions as HTML: headings, fenced code, lists and
/// paragraphs, with [`inline`] text; everything escaped.
pub fn markdown(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let t = line.trim_end();
        if t.starts_with("```") {
            let mut code = String::new();
            for l in lines.by_ref() {
                if l.trim_start().starts_with("```") {
                    break;
                }
                code.push_str(l);
                code.push('\n');
            }
            let _ = write!(out, "<pre><code>{}</code></pre>", esc(&code));
        } else if let Some((level, title)) = t
            .split_once(' ')
            .filter(|(h, _)| !h.is_empty() && h.len() <= 4 && h.chars().all(|c| c == '#'))
        {
            // the page's own headings are h1 and h2: the document's begin at h3
            let n = (level.len() + 2).min(6);
            let _ = write!(out, "<h{n}>{}</h{n}>", inline(title));
        } else if t.starts_with("- ") || t.starts_with("* ") {
            out.push_str("<ul>");
            let mut item = t[2..].to_string();
            while let Some(next) = lines.peek() {
                let n = next.trim_end();
                if n.starts_with("- ") || n.starts_with("* ") {
                    let _ = write!(out, "<li>{}</li>", inline(&item));
                    item = n[2..].to_string();
                } else if n.starts_with("  ") && !n.trim().is_empty() {
                    item.push(' ');
                    item.push_str(n.trim());
                } else {
                    break;
                }
                lines.next();
            }
            let _ = write!(out, "<li>{}</li></ul>", inline(&item));
        } else if !t.trim().is_empty() {
            let mut para = t.trim().to_string();
            while let Some(next) = lines.peek() {
                let n = next.trim();
                if n.is_empty() || n.starts_with("```") || n.starts_with('#') || n.starts_with("- ")
                {
                    break;
                }
                para.push(' ');
                para.push_str(n);
                lines.next();
            }
            let _ = write!(out, "<p>{}</p>", inline(&para));
        }
    }
    out
}

/// Whether a path is an operation a reader of the reference looks for: not a file the
/// console's pages load.
fn shown_on_page(path: &str) -> bool {
    !path.starts_with("/console/assets/")
}

fn anchor(method: &str, path: &str) -> String {
    format!("{method}-{}", path.replace(['/', '{', '}', '.'], "-"))
}

/// Renders the OpenAPI document as one self-contained HTML page.
pub fn render(doc: &Value) -> String {
    let mut ops: Vec<(String, String, String, &Value)> = Vec::new();
    if let Some(paths) = doc["paths"].as_object() {
        for (path, item) in paths.iter().filter(|(p, _)| shown_on_page(p)) {
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
            "<section id=\"{id}\"><h3><span class=\"m {method}\">{upper}</span> <code>{}</code></h3><p><strong>{}</strong></p>{}",
            esc(path),
            esc(op["summary"].as_str().unwrap_or_default()),
            markdown(op["description"].as_str().unwrap_or_default())
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
                    inline(p["description"].as_str().unwrap_or_default())
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
                let r = &shared_response(doc, r).unwrap_or_else(|| r.clone());
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
<main><h1>{title}</h1>{desc}{main}<h2>Schemas</h2><pre>{schemas}</pre></main></body></html>",
        title = esc(doc["info"]["title"].as_str().unwrap_or("API")),
        version = esc(doc["info"]["version"].as_str().unwrap_or_default()),
        desc = markdown(doc["info"]["description"].as_str().unwrap_or_default()),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_renders_headings_code_lists_and_paragraphs_escaped() {
        let html = markdown(
            "Intro with `code` and **bold**,\ncontinued.\n\n## Quickstart\n\n```sh\ncurl -H 'a<b'\n```\n\n- one [link](/docs)\n- two\n  wrapped\n",
        );
        assert_eq!(
            html,
            "<p>Intro with <code>code</code> and <strong>bold</strong>, continued.</p><h4>Quickstart</h4><pre><code>curl -H 'a&lt;b'\n</code></pre><ul><li>one <a href=\"/docs\">link</a></li><li>two wrapped</li></ul>"
        );
        // no raw Markdown or HTML gets through
        assert_eq!(inline("<script> `x"), "&lt;script&gt; `x");
        assert_eq!(inline("a * b [c"), "a * b [c");
        assert_eq!(
            inline("[Standard Webhooks](https://www.standardwebhooks.com/)"),
            "Standard Webhooks (https://www.standardwebhooks.com/)"
        );
    }

    #[test]
    fn examples_show_at_most_three_items_of_a_list() {
        let long =
            serde_json::json!({"data": {"positions": (0..1000).collect::<Vec<_>>()}, "n": [1, 2]});
        let t = trimmed(&long);
        assert_eq!(
            t["data"]["positions"].as_array().map(Vec::len),
            Some(EXAMPLE_ITEMS)
        );
        assert_eq!(t["n"], serde_json::json!([1, 2]));
    }

    #[test]
    fn the_page_leaves_out_the_console_s_files() {
        let doc = serde_json::json!({
            "info": {"title": "t", "description": "## Hi"},
            "paths": {
                "/console/assets/live.js": {"get": {"summary": "a script"}},
                "/v2/containers": {"get": {"summary": "List containers"}}
            },
            "components": {"schemas": {}}
        });
        let html = render(&doc);
        assert!(
            html.contains("List containers") && !html.contains("a script"),
            "{html}"
        );
        assert!(
            html.contains("<h4>Hi</h4>") && !html.contains("## Hi"),
            "{html}"
        );
    }
}
