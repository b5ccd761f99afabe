//! The console's release gates: a badge per gate with the deciding source's wording, the
//! container page's section with every source's word, and what "Next step" says of the gate
//! that holds the box (`docs/precedence.md`, "Release gates").

use boxtrack_core::tracking::release::{self, Gate, GateStatus, GateView};
use boxtrack_core::tracking::rules::ContainerStatus;
use boxtrack_core::tracking::{ContainerState, source_name};
use maud::{Markup, html};

use crate::look::{Badge, Tone};

/// The gates of a box of status `status` (`current_status`).
pub(crate) fn gates_of(st: &ContainerState, status: &str) -> [GateView; 3] {
    release::gates(st, release::left_by_status(status))
}

/// A gate's name as a person reads it.
fn label(gate: Gate) -> &'static str {
    match gate {
        Gate::Customs => "Customs",
        Gate::Line => "Line",
        Gate::Terminal => "Terminal",
    }
}

/// A gate's badge: `Customs: held (PA U.S. Customs Hold, …)`.
pub(crate) fn badge(g: &GateView) -> Badge {
    let tone = match g.status {
        GateStatus::Released => Tone::Good,
        GateStatus::Held => Tone::Bad,
        GateStatus::Pending => Tone::Warn,
        GateStatus::Unknown => Tone::Neutral,
    };
    let mut text = format!("{}: {}", label(g.gate), g.status.name());
    if let Some(w) = &g.wording {
        text = format!("{text} ({w})");
    }
    Badge { label: text, tone }
}

/// What to do about the gate that keeps the box, in one sentence: a held gate before a
/// pending one, customs first. `None` while none does.
pub(crate) fn next_step(gates: &[GateView]) -> Option<String> {
    let g = release::holding(gates)?;
    let words = g
        .wording
        .as_deref()
        .map(|w| format!(" ({w})"))
        .unwrap_or_default();
    Some(match (g.gate, g.status) {
        (Gate::Customs, GateStatus::Held) => {
            format!("Customs holds the box{words}: ask your customs broker to clear it.")
        }
        (Gate::Line, GateStatus::Held) => format!(
            "The line holds the box{words}: pay the freight and surrender the bill of lading."
        ),
        (Gate::Terminal, GateStatus::Held) => {
            format!("The terminal holds the box{words}: pay its fees or clear its hold.")
        }
        (gate, _) => format!(
            "Wait for the {} to release the box{words}.",
            match gate {
                Gate::Customs => "customs",
                Gate::Line => "line",
                Gate::Terminal => "terminal",
            }
        ),
    })
}

/// The next step for a box of status `status` when a gate keeps it: a gate that holds the box
/// is the next step wherever the box is; one that waits, once it is at the terminal.
pub(crate) fn step_for(status: ContainerStatus, gates: &[GateView]) -> Option<String> {
    let at_terminal = matches!(
        status,
        ContainerStatus::Grounded | ContainerStatus::NotAvailable
    );
    next_step(gates).filter(|_| at_terminal || gates.iter().any(|g| g.status == GateStatus::Held))
}

/// Each gate's badge, one after another.
pub(crate) fn badges(gates: &[GateView]) -> Markup {
    let badges: Vec<Badge> = gates.iter().map(badge).collect();
    crate::look::badges_html(&badges)
}

/// The container page's section: each gate, who decides it and when, and every source's
/// latest word.
pub(crate) fn section(gates: &[GateView], when: impl Fn(i64) -> String) -> Markup {
    html! {
        table {
            caption { "Who must let the box go, as each source says it" }
            thead { tr { th scope="col" { "Gate" } th scope="col" { "Status" } th scope="col" { "Said by" } th scope="col" { "When" } th scope="col" { "Their words" } } }
            tbody {
                @for g in gates {
                    tr {
                        th scope="row" { (label(g.gate)) }
                        td { (badge_status(g)) }
                        td {
                            @match (g.source, g.inferred) {
                                (_, true) => { "inferred: the box left the terminal" }
                                (Some(s), _) => { (source_name(s)) }
                                (None, _) => { "no source yet" }
                            }
                        }
                        td { (g.at_us.map(&when).unwrap_or_default()) }
                        td { (g.wording.as_deref().unwrap_or("")) }
                    }
                    @for w in g.words.iter().filter(|w| Some(w.source) != g.source || g.inferred) {
                        tr class="muted" {
                            td {}
                            td { (w.status.name()) }
                            td { (source_name(w.source)) }
                            td { (when(w.at_us.unwrap_or(w.observed_us))) }
                            td { (w.wording.as_deref().unwrap_or("")) }
                        }
                    }
                }
            }
        }
    }
}

fn badge_status(g: &GateView) -> Markup {
    let mut b = badge(g);
    b.label = g.status.name().to_string();
    b.html()
}

#[cfg(test)]
mod tests {
    use super::*;
    use boxtrack_core::tracking::DataSource;
    use boxtrack_core::tracking::release::GateReport;

    fn held_by_terminal() -> ContainerState {
        ContainerState {
            release_reports: vec![GateReport {
                gate: Gate::Line,
                source: DataSource::Terminal,
                status: GateStatus::Held,
                wording: Some("FREIGHT UNPAID".into()),
                at_us: None,
                observed_us: 5,
            }],
            ..Default::default()
        }
    }

    #[test]
    fn the_next_step_names_the_gate_that_holds_the_box() {
        let gates = gates_of(&held_by_terminal(), "not_available");
        assert_eq!(
            next_step(&gates).as_deref(),
            Some(
                "The line holds the box (FREIGHT UNPAID): pay the freight and surrender the bill of lading."
            )
        );
        assert_eq!(badge(&gates[1]).label, "Line: held (FREIGHT UNPAID)");
        assert_eq!(badge(&gates[1]).tone, Tone::Bad);
        // once it left, nothing holds it
        assert_eq!(next_step(&gates_of(&held_by_terminal(), "picked_up")), None);
        assert_eq!(
            next_step(&gates_of(&ContainerState::default(), "grounded")),
            None
        );
    }

    #[test]
    fn the_section_shows_every_word_escaped() {
        let mut st = held_by_terminal();
        st.release_reports[0].wording = Some("<b>x</b>".into());
        let html = section(&gates_of(&st, "grounded"), |t| t.to_string()).into_string();
        assert!(html.contains("&lt;b&gt;x&lt;/b&gt;"), "{html}");
        assert!(html.contains("terminal"));
    }
}
