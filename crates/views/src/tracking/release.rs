//! boxtrack's release extension of the container resource: `release_gates` (customs, the
//! line, the terminal, each with the word that decides it and every source's word) and
//! `holds_by_source` (each hold in force with every source that reports it). The reference
//! has neither; `holds_at_pod_terminal` keeps its shape beside them.

use boxtrack_core::tracking::release::{self, GateReport, GateView, HoldBySource, HoldSource};
use boxtrack_core::tracking::{ContainerState, source_name};
use schemars::JsonSchema;
use serde::Serialize;

use crate::jsonapi::At;

/// The three release gates of a box.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ReleaseGates {
    /// Customs and the other agencies (USDA, FDA, a scan).
    pub customs: GateJson,
    /// The line: freight paid, the bill surrendered.
    pub line: GateJson,
    /// The terminal: its own holds and fees, the box available.
    pub terminal: GateJson,
}

/// One gate as decided (`docs/precedence.md`, "Release gates").
#[derive(Debug, Serialize, JsonSchema)]
pub struct GateJson {
    /// `unknown`, `pending`, `held` or `released`.
    #[schemars(extend("enum" = ["unknown", "pending", "held", "released"]))]
    pub status: String,
    /// The source whose word decides (null when unknown, or inferred from the journey).
    #[schemars(extend("enum" = ["shipping_line", "terminal", "rail", "ais", "sandbox", "user_input", null]))]
    pub source: Option<String>,
    /// When: the time the deciding source gives, else when it said it; for an inferred
    /// release, when the box left.
    pub at: Option<At>,
    /// The deciding source's own wording (its code and the code's name, a disposition).
    pub wording: Option<String>,
    /// The status is inferred from the journey (the box left the terminal), not said.
    pub inferred: bool,
    /// Every source's latest word on the gate, newest first.
    pub words: Vec<GateWordJson>,
}

/// One source's latest word on a gate.
#[derive(Debug, Serialize, JsonSchema)]
pub struct GateWordJson {
    /// Who said it.
    #[schemars(extend("enum" = ["shipping_line", "terminal", "rail", "ais", "sandbox", "user_input"]))]
    pub source: String,
    /// What it said: `pending`, `held` or `released`.
    #[schemars(extend("enum" = ["pending", "held", "released"]))]
    pub status: String,
    /// Its own wording.
    pub wording: Option<String>,
    /// When it happened, where the source says.
    pub at: Option<At>,
    /// When the source said it.
    pub observed_at: At,
}

/// A hold in force and every source that reports it.
#[derive(Debug, Serialize, JsonSchema)]
pub struct HoldBySourceJson {
    /// Its canonical name, as in `holds_at_pod_terminal`.
    pub name: String,
    /// `hold` where one source says so, else `pending`.
    #[schemars(extend("enum" = ["hold", "pending"]))]
    pub status: String,
    /// Each source whose latest list names it.
    pub sources: Vec<HoldSourceJson>,
}

/// One source's word on a hold.
#[derive(Debug, Serialize, JsonSchema)]
pub struct HoldSourceJson {
    /// Who.
    #[schemars(extend("enum" = ["shipping_line", "terminal", "rail", "ais", "sandbox", "user_input"]))]
    pub source: String,
    /// `hold` or `pending` there.
    #[schemars(extend("enum" = ["hold", "pending"]))]
    pub status: String,
    /// Its own words.
    pub description: Option<String>,
    /// When it sent the list.
    pub observed_at: At,
}

fn word(r: &GateReport) -> GateWordJson {
    GateWordJson {
        source: source_name(r.source).to_string(),
        status: r.status.name().to_string(),
        wording: r.wording.clone(),
        at: At::opt(r.at_us),
        observed_at: At(r.observed_us),
    }
}

/// A decided gate as shown.
pub fn gate_json(v: &GateView) -> GateJson {
    GateJson {
        status: v.status.name().to_string(),
        source: v.source.map(|s| source_name(s).to_string()),
        at: At::opt(v.at_us),
        wording: v.wording.clone(),
        inferred: v.inferred,
        words: v.words.iter().map(word).collect(),
    }
}

/// The gates of a box of status `status` (`current_status`, which says whether it left).
pub fn release_gates(st: &ContainerState, status: &str) -> ReleaseGates {
    let [customs, line, terminal] = release::gates(st, release::left_by_status(status));
    ReleaseGates {
        customs: gate_json(&customs),
        line: gate_json(&line),
        terminal: gate_json(&terminal),
    }
}

fn hold_source(s: &HoldSource) -> HoldSourceJson {
    HoldSourceJson {
        source: source_name(s.source).to_string(),
        status: s.status.clone(),
        description: s.description.clone(),
        observed_at: At(s.observed_us),
    }
}

/// The holds in force with their sources.
pub fn holds_by_source(st: &ContainerState) -> Vec<HoldBySourceJson> {
    release::holds_by_source(st)
        .iter()
        .map(|h: &HoldBySource| HoldBySourceJson {
            name: h.name.clone(),
            status: h.status.clone(),
            sources: h.sources.iter().map(hold_source).collect(),
        })
        .collect()
}
