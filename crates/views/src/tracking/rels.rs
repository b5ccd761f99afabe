//! Relationships to reference records, shared by the tracking resources.

use crate::jsonapi::ToOne;

/// The relationship to the port with this UN/LOCODE (null when unknown).
pub fn port_rel(locode: Option<&str>) -> ToOne {
    ToOne::new(
        "port",
        locode
            .and_then(boxtrack_core::reference::port)
            .map(|p| crate::reference::port_id(&p.locode)),
    )
}

/// The relationship to the terminal with this FIRMS code (null when unknown).
pub fn terminal_rel(firms: Option<&str>) -> ToOne {
    ToOne::new(
        "terminal",
        firms
            .and_then(boxtrack_core::reference::terminal)
            .map(|t| crate::reference::terminal_id(&t.firms_code)),
    )
}
