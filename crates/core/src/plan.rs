//! Account plans and entitlements.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The commercial plan of an account.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Plan {
    /// At most [`FREE_ACTIVE_CONTAINER_LIMIT`] actively tracked containers.
    Free,
    /// No container limit.
    Standard,
}

/// How many containers a free account may track at once.
pub const FREE_ACTIVE_CONTAINER_LIMIT: u32 = 10;

impl Plan {
    /// Every plan, in display order.
    pub const ALL: [Plan; 2] = [Plan::Free, Plan::Standard];

    /// The wire and storage spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Plan::Free => "free",
            Plan::Standard => "standard",
        }
    }

    /// The most containers an account on this plan may track at once, if limited.
    pub fn active_container_limit(self) -> Option<u32> {
        match self {
            Plan::Free => Some(FREE_ACTIVE_CONTAINER_LIMIT),
            Plan::Standard => None,
        }
    }
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A word that names no plan or entitlement.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {kind} {value:?}; expected one of: {expected}")]
pub struct UnknownName {
    /// What was being parsed ("plan" or "entitlement").
    pub kind: &'static str,
    /// The rejected input.
    pub value: String,
    /// The accepted spellings, comma separated.
    pub expected: String,
}

impl FromStr for Plan {
    type Err = UnknownName;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Plan::ALL
            .into_iter()
            .find(|p| p.as_str() == s.trim())
            .ok_or_else(|| UnknownName {
                kind: "plan",
                value: s.to_string(),
                expected: Plan::ALL.map(Plan::as_str).join(", "),
            })
    }
}

/// A feature that must be enabled on an account before it can be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Entitlement {
    /// Container route maps and vessel positions.
    Routing,
    /// Rail last free day and its change event.
    RailLfd,
    /// On-demand container refresh.
    ContainerRefresh,
    /// The embeddable map and widget.
    Widget,
}

impl Entitlement {
    /// Every entitlement, in display order.
    pub const ALL: [Entitlement; 4] = [
        Entitlement::Routing,
        Entitlement::RailLfd,
        Entitlement::ContainerRefresh,
        Entitlement::Widget,
    ];

    /// The wire and storage spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Entitlement::Routing => "routing",
            Entitlement::RailLfd => "rail_lfd",
            Entitlement::ContainerRefresh => "container_refresh",
            Entitlement::Widget => "widget",
        }
    }

    /// A human title, used in error messages.
    pub fn title(self) -> &'static str {
        match self {
            Entitlement::Routing => "Routing Data",
            Entitlement::RailLfd => "Rail LFD",
            Entitlement::ContainerRefresh => "Container Refresh",
            Entitlement::Widget => "Embeddable Map and Widget",
        }
    }

    /// Parses a comma separated list; blanks are skipped, duplicates removed, order normalised.
    pub fn parse_list(s: &str) -> Result<Vec<Entitlement>, UnknownName> {
        let mut out: Vec<Entitlement> = s
            .split(',')
            .map(str::trim)
            .filter(|w| !w.is_empty())
            .map(str::parse)
            .collect::<Result<_, _>>()?;
        out.sort();
        out.dedup();
        Ok(out)
    }
}

impl fmt::Display for Entitlement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Entitlement {
    type Err = UnknownName;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Entitlement::ALL
            .into_iter()
            .find(|e| e.as_str() == s.trim())
            .ok_or_else(|| UnknownName {
                kind: "entitlement",
                value: s.to_string(),
                expected: Entitlement::ALL.map(Entitlement::as_str).join(", "),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_round_trip() {
        for p in Plan::ALL {
            assert_eq!(p.as_str().parse::<Plan>(), Ok(p));
        }
        let err = "gold".parse::<Plan>().unwrap_err();
        assert!(err.to_string().contains("free, standard"), "{err}");
    }

    #[test]
    fn free_plan_is_limited() {
        assert_eq!(Plan::Free.active_container_limit(), Some(10));
        assert_eq!(Plan::Standard.active_container_limit(), None);
    }

    #[test]
    fn entitlement_lists_are_normalised() {
        let list = Entitlement::parse_list(" widget,routing,, routing").unwrap();
        assert_eq!(list, vec![Entitlement::Routing, Entitlement::Widget]);
        assert!(Entitlement::parse_list("").unwrap().is_empty());
        let err = Entitlement::parse_list("routing,teleport").unwrap_err();
        assert_eq!(err.value, "teleport");
    }
}
