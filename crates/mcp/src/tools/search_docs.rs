//! `search_docs`: boxtrack's own documentation (the README and `docs/`), compiled into the
//! binary and searched section by section, so an agent can answer how-to and definition
//! questions (webhook signatures, rate limits, the last free day, the console, the MCP
//! server itself) from the documents of the version it talks to, offline.

use super::error::ToolError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::tool::{Cx, Tool};

/// `search_docs`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DocsInput {
    /// A short documentation query, e.g. "webhook signature"
    #[schemars(length(min = 1, max = 256))]
    pub query: String,
    /// Most sections to return, 1 to 10 (default 5)
    #[schemars(range(min = 1))]
    pub limit: Option<u64>,
}

/// `search_docs`.
pub struct SearchDocs;

impl Tool for SearchDocs {
    const GUIDE: super::contract::Guide = super::guides::SEARCH_DOCS;
    type Input = DocsInput;
    type Output = DocsAnswer;
    const NAME: &'static str = "search_docs";
    const TITLE: &'static str = "Search boxtrack Docs";
    const DESCRIPTION: &'static str = "Search boxtrack's own documentation (the README and docs/ of the version answering): the API guide, webhooks and their signatures, rate limits and errors, the last free day and polling rules, the console and embeds, this MCP server. Returns matching sections with their title, place and text. Use it for how-to and definition questions, not for account data, and cite the places in the answer.";

    async fn call(_: &Cx<'_>, input: DocsInput) -> Result<DocsAnswer, ToolError> {
        let limit = input
            .limit
            .map_or(DEFAULT_LIMIT, |n| usize::try_from(n).unwrap_or(MAX_LIMIT));
        Ok(search(&input.query, limit))
    }
}

/// The documents: their path in the repository and their text.
const DOCS: &[(&str, &str)] = &[
    ("README.md", include_str!("../../../../README.md")),
    (
        "docs/api-guide.md",
        include_str!("../../../../docs/api-guide.md"),
    ),
    ("docs/mcp.md", include_str!("../../../../docs/mcp.md")),
    (
        "docs/console.md",
        include_str!("../../../../docs/console.md"),
    ),
    (
        "docs/embedding.md",
        include_str!("../../../../docs/embedding.md"),
    ),
    (
        "docs/polling.md",
        include_str!("../../../../docs/polling.md"),
    ),
    (
        "docs/compatibility.md",
        include_str!("../../../../docs/compatibility.md"),
    ),
    (
        "docs/webhook-delivery.md",
        include_str!("../../../../docs/webhook-delivery.md"),
    ),
    (
        "docs/terminal-feed.md",
        include_str!("../../../../docs/terminal-feed.md"),
    ),
    (
        "docs/scaling.md",
        include_str!("../../../../docs/scaling.md"),
    ),
    (
        "docs/architecture.md",
        include_str!("../../../../docs/architecture.md"),
    ),
];

/// The most characters of a section an answer carries.
const EXCERPT: usize = 1200;
/// Results unless `limit` says otherwise.
pub const DEFAULT_LIMIT: usize = 5;
/// The most results.
pub const MAX_LIMIT: usize = 10;

/// One matching section.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DocHit {
    /// The section's heading.
    pub title: String,
    /// Where it is: the document's path and the heading's anchor.
    pub url: String,
    /// The document.
    pub page: String,
    /// The section's text (its first 1,200 characters).
    pub content: String,
}

/// `search_docs`'s answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct DocsAnswer {
    /// The query.
    pub query: String,
    /// How many sections are returned.
    pub total_results: usize,
    /// The best matching sections, best first.
    pub results: Vec<DocHit>,
}

/// A heading's anchor as GitHub writes it: lower case, punctuation dropped, spaces as `-`.
pub fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// A document's sections: (heading, text), each starting at a `#` heading (the text before
/// the first heading is the document's own section, titled by its path).
fn sections<'a>(page: &'a str, text: &'a str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = vec![(page.to_string(), String::new())];
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if !fenced && line.starts_with('#') {
            let title = line.trim_start_matches('#').trim().to_string();
            out.push((title, String::new()));
            continue;
        }
        if let Some((_, body)) = out.last_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    out.retain(|(_, body)| !body.trim().is_empty());
    out
}

/// The query's words (two characters or more), lower case.
fn words(query: &str) -> Vec<String> {
    query
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|w| w.chars().count() >= 2)
        .map(str::to_lowercase)
        .collect()
}

/// How well a section matches: each word found in the heading counts 3, in the text 1 (plus
/// a little for how often, at most 3); a section must contain every word.
fn score(title: &str, body: &str, words: &[String]) -> u32 {
    let (t, b) = (title.to_lowercase(), body.to_lowercase());
    let mut total = 0;
    for w in words {
        let in_title = t.contains(w.as_str());
        let times = b.matches(w.as_str()).count() as u32;
        if !in_title && times == 0 {
            return 0;
        }
        total += if in_title { 3 } else { 0 } + times.min(3);
    }
    total
}

/// The best `limit` sections for `query`, best first (ties in document order).
pub fn search(query: &str, limit: usize) -> DocsAnswer {
    let ws = words(query);
    let mut hits: Vec<(u32, usize, DocHit)> = Vec::new();
    let mut order = 0;
    for (page, text) in DOCS {
        for (title, body) in sections(page, text) {
            order += 1;
            let s = if ws.is_empty() {
                0
            } else {
                score(&title, &body, &ws)
            };
            if s == 0 {
                continue;
            }
            let mut content: String = body.trim().chars().take(EXCERPT).collect();
            if body.trim().chars().count() > EXCERPT {
                content.push('…');
            }
            let url = if title == *page {
                (*page).to_string()
            } else {
                format!("{page}#{}", anchor(&title))
            };
            hits.push((
                s,
                order,
                DocHit {
                    title,
                    url,
                    page: (*page).to_string(),
                    content,
                },
            ));
        }
    }
    hits.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let results: Vec<DocHit> = hits
        .into_iter()
        .take(limit.clamp(1, MAX_LIMIT))
        .map(|(_, _, h)| h)
        .collect();
    DocsAnswer {
        query: query.to_string(),
        total_results: results.len(),
        results,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_are_github_s() {
        assert_eq!(anchor("Webhook signatures"), "webhook-signatures");
        assert_eq!(anchor("Rate limits & errors"), "rate-limits--errors");
        assert_eq!(anchor("`GET /v2/sources`"), "get-v2sources");
    }

    #[test]
    fn the_docs_answer_what_people_ask() {
        let sig = search("webhook signature", 5);
        assert!(!sig.results.is_empty());
        assert!(
            sig.results
                .iter()
                .any(|r| r.content.to_lowercase().contains("signature")),
            "{:?}",
            sig.results
        );
        let mcp = search("outputSchema", 3);
        assert!(
            mcp.results.iter().any(|r| r.page == "docs/mcp.md"),
            "{:?}",
            mcp.results
        );
        assert!(mcp.total_results <= 3);
        assert_eq!(search("zzzqqqxxy", 5).total_results, 0);
        assert_eq!(search("", 5).total_results, 0);
        for r in search("rate limits", 10).results {
            assert!(r.content.chars().count() <= EXCERPT + 1);
            assert!(r.url.starts_with(&r.page));
        }
    }
}
