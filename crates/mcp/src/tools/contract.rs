//! What every tool answer tells the model besides the answer itself: its response contract
//! (what the answer is for, what it can and cannot answer, which fields matter, how to show
//! it, what to call next) in `structuredContent._response_contract`, and the same steering
//! as an assistant-only content block. Each tool states its standing [`Guide`]; list tools
//! add what is computed from the answer (an empty list, an unscoped list, a total that is
//! only a lower bound).

use schemars::JsonSchema;
use serde::Serialize;

use crate::protocol::{Annotations, Content, Role};

/// The resource that describes every column of the list tools' rows (the resources module
/// serves it at this URI; a test there keeps the two equal).
pub const COLUMN_CATALOG: &str = "boxtrack://docs/list-display-columns";

/// Guidance for the model that comes with an answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, JsonSchema)]
pub struct ResponseContract {
    /// What the answer is for.
    pub purpose: String,
    /// Questions this answer can settle.
    pub can_answer: Vec<String>,
    /// What this answer cannot settle without another call.
    pub requires_more_data: Vec<String>,
    /// The fields that carry the answer.
    pub relevant_fields: Vec<String>,
    /// How to present it to the user.
    pub presentation_guidance: String,
    /// What the user may want to ask next.
    pub suggested_follow_ups: Vec<String>,
    /// Tools that go further from here.
    pub suggested_tools: Vec<String>,
    /// How to lay out a list (list tools only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub display: Option<Display>,
    /// Filters the call asked for that the answer does not reflect (list tools; never
    /// silently: each is named).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dropped_filters: Vec<String>,
    /// Whether `meta.total` is an exact count of the matching rows (list tools).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_is_reliable: Option<bool>,
}

/// How a list answer is best laid out.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Display {
    /// `table` or `list`.
    pub preferred_format: &'static str,
    /// From how many rows a table reads better than a list.
    pub table_when_rows_gte: u32,
    /// Rows worth showing at once.
    pub max_rows: u32,
    /// The columns to show unless the user asks for others (keys of the rows).
    pub default_columns: Vec<&'static str>,
    /// What to say when there are no rows.
    pub empty_state: String,
    /// Where every column is described (read it once).
    pub column_catalog_resource: &'static str,
}

/// A tool's standing guidance: what its answers are for and where to go next.
#[derive(Debug, Clone, Copy)]
pub struct Guide {
    /// What the answer is for.
    pub purpose: &'static str,
    /// Questions it can settle.
    pub can_answer: &'static [&'static str],
    /// What it cannot settle alone.
    pub requires_more_data: &'static [&'static str],
    /// The fields that carry the answer.
    pub relevant_fields: &'static [&'static str],
    /// How to present it.
    pub presentation: &'static str,
    /// What the user may ask next.
    pub follow_ups: &'static [&'static str],
    /// Tools that go further.
    pub tools: &'static [&'static str],
}

/// Words as owned strings.
fn owned(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| (*w).to_string()).collect()
}

impl Guide {
    /// The contract of an answer this guide covers, as it stands.
    pub fn contract(&self) -> ResponseContract {
        ResponseContract {
            purpose: self.purpose.into(),
            can_answer: owned(self.can_answer),
            requires_more_data: owned(self.requires_more_data),
            relevant_fields: owned(self.relevant_fields),
            presentation_guidance: self.presentation.into(),
            suggested_follow_ups: owned(self.follow_ups),
            suggested_tools: owned(self.tools),
            ..ResponseContract::default()
        }
    }
}

/// What is known of a list answer, for its contract.
#[derive(Debug, Clone, Copy)]
pub struct ListFacts<'a> {
    /// Rows on this page.
    pub rows: usize,
    /// Rows matching in all.
    pub total: u64,
    /// Whether `total` is exact.
    pub total_is_exact: bool,
    /// Whether the call narrowed the list (a filter besides the defaults).
    pub filtered: bool,
    /// Whether another page follows.
    pub has_more: bool,
    /// What the rows are (`containers`, `shipments`, `tracking requests`).
    pub what: &'a str,
    /// The columns to show by default.
    pub columns: &'static [&'static str],
}

/// The contract of a list answer: the guide's, with what this answer says of itself.
pub fn list_contract(guide: &Guide, facts: ListFacts<'_>) -> ResponseContract {
    let mut c = guide.contract();
    let what = facts.what;
    let mut notes = vec![c.presentation_guidance.clone()];
    if facts.rows == 0 {
        notes.push(format!(
            "No {what} match. Say so plainly; do not invent rows. Suggest widening the filters (another status, a longer date range, without `actively_tracked`), or search_container for one number."
        ));
    } else if facts.rows == 1 {
        notes.push("One row: summarize it in a sentence rather than a table.".into());
    } else {
        notes.push(format!(
            "Several rows: a markdown table of the default columns, at most {} rows.",
            facts.rows.min(25)
        ));
    }
    if !facts.filtered {
        notes.push(format!(
            "The call named no filter: these are the account's {what} in general, not a worklist the user asked for; say the list is unscoped."
        ));
    }
    if facts.has_more {
        let total = if facts.total_is_exact {
            facts.total.to_string()
        } else {
            format!("at least {}", facts.total)
        };
        notes.push(format!(
            "This is one page of {total} {what}; `meta.total` counts the whole list, not the rows shown. Ask for the next page (`_metadata.next_page`) before describing all of them."
        ));
    }
    c.presentation_guidance = notes.join(" ");
    c.display = Some(Display {
        preferred_format: if facts.rows > 1 { "table" } else { "list" },
        table_when_rows_gte: 2,
        max_rows: 25,
        default_columns: facts.columns.to_vec(),
        empty_state: format!("No {what} match these filters."),
        column_catalog_resource: COLUMN_CATALOG,
    });
    c.total_is_reliable = Some(facts.total_is_exact);
    c
}

/// The assistant-only block that repeats the contract's steering for clients that show
/// `content` only: compact JSON marked `_agent_steering`.
pub fn steering(contract: &ResponseContract) -> Content {
    #[derive(Serialize)]
    struct Steering<'a> {
        _agent_steering: bool,
        purpose: &'a str,
        presentation_guidance: &'a str,
        suggested_follow_ups: &'a [String],
        suggested_tools: &'a [String],
    }
    let text = serde_json::to_string(&Steering {
        _agent_steering: true,
        purpose: &contract.purpose,
        presentation_guidance: &contract.presentation_guidance,
        suggested_follow_ups: &contract.suggested_follow_ups,
        suggested_tools: &contract.suggested_tools,
    })
    .unwrap_or_default();
    Content::Text {
        text,
        annotations: Some(Annotations {
            audience: vec![Role::Assistant],
            priority: None,
        }),
    }
}

/// A link to a container's resource (`boxtrack://container/{id}`), which `resources/read`
/// answers with a compact summary.
pub fn container_link(id: &uuid::Uuid, number: &str) -> Content {
    Content::ResourceLink {
        uri: format!("boxtrack://container/{id}"),
        name: format!("Container {number}"),
        description: Some(
            "A compact summary of the container (status, milestones, holds, last free day): read it with resources/read.".into(),
        ),
        mime_type: Some("text/markdown".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GUIDE: Guide = Guide {
        purpose: "p",
        can_answer: &["a"],
        requires_more_data: &[],
        relevant_fields: &["items"],
        presentation: "Show it.",
        follow_ups: &["next"],
        tools: &["get_container"],
    };

    fn facts(rows: usize, filtered: bool, has_more: bool) -> ListFacts<'static> {
        ListFacts {
            rows,
            total: 40,
            total_is_exact: true,
            filtered,
            has_more,
            what: "containers",
            columns: &["number"],
        }
    }

    #[test]
    fn an_empty_list_says_what_to_try_instead() {
        let c = list_contract(&GUIDE, facts(0, true, false));
        assert!(c.presentation_guidance.contains("No containers match"));
        assert!(c.presentation_guidance.contains("search_container"));
        assert_eq!(c.total_is_reliable, Some(true));
    }

    #[test]
    fn an_unfiltered_list_says_it_is_unscoped_and_a_page_is_not_the_total() {
        let c = list_contract(&GUIDE, facts(30, false, true));
        assert!(c.presentation_guidance.contains("unscoped"));
        assert!(c.presentation_guidance.contains("one page of 40"));
        let narrowed = list_contract(&GUIDE, facts(3, true, false));
        assert!(!narrowed.presentation_guidance.contains("unscoped"));
        assert!(!narrowed.presentation_guidance.contains("one page"));
    }

    #[test]
    fn the_steering_block_is_for_the_assistant_and_names_the_next_tools() {
        let Content::Text { text, annotations } = steering(&GUIDE.contract()) else {
            panic!("not text");
        };
        let v: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
        assert_eq!(v["_agent_steering"], true);
        assert_eq!(v["suggested_tools"][0], "get_container");
        assert_eq!(annotations.map(|a| a.audience), Some(vec![Role::Assistant]));
    }
}
