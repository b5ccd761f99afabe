//! What a container's resource shows of its merged state, written beside the state by the
//! merge that writes the state, so that a read shows it without parsing the state again.
//!
//! The text is made by the front end's renderer (`boxtrack_views`, which this crate cannot
//! name: it depends on this one), installed once per process with [`install`]. A process
//! without one writes no text, and a read finds none; a text written by another renderer (an
//! older or newer build) is not current for this one. Either way the read parses the state
//! and renders it as before: the text is a shortcut, never the only copy of anything.

use std::sync::OnceLock;

use boxtrack_core::tracking::ContainerState;

/// How a container's merged state becomes the text stored beside it.
#[derive(Debug, Clone, Copy)]
pub struct Renderer {
    /// The text of the state, its derived status and readiness.
    pub render: fn(&ContainerState, &str, bool) -> String,
    /// Whether a stored text is this renderer's (its version and shape).
    pub current: fn(&str) -> bool,
}

static RENDERER: OnceLock<Renderer> = OnceLock::new();

/// Makes `renderer` this process's (the first installed stays: every caller installs the
/// same one).
pub fn install(renderer: Renderer) {
    let _ = RENDERER.set(renderer);
}

/// The text to store beside `state`, when a renderer is installed.
pub(crate) fn container(state: &ContainerState, status: &str, ready: bool) -> Option<String> {
    RENDERER.get().map(|r| (r.render)(state, status, ready))
}

/// Whether `stored` was written by this process's renderer: a read may show it as it is.
pub(crate) fn is_current(stored: &str) -> bool {
    RENDERER.get().is_some_and(|r| (r.current)(stored))
}
