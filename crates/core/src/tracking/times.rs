//! The keys of [`super::ContainerState::times`]: the time a milestone happened, as the
//! container attribute that shows it, or the latest estimate of a milestone at a place. Typed,
//! so that a misspelt key does not compile; stored as the strings they always were
//! (`pod_arrived_at`, `estimated.vessel_arrived.Pod`), so stored states read back the same.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{Milestone, Place};

/// A container attribute that holds the time a milestone happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TimeAttr {
    /// `empty_out_at`: empty picked up at origin.
    EmptyOut,
    /// `pol_full_in_at`: full in at the port of lading.
    PolFullIn,
    /// `pol_vessel_loaded_at`.
    PolVesselLoaded,
    /// `pol_vessel_departed_at`.
    PolVesselDeparted,
    /// `pod_arrived_at`.
    PodArrived,
    /// `pod_discharged_at`.
    PodDischarged,
    /// `pod_full_out_at`.
    PodFullOut,
    /// `pod_rail_loaded_at`.
    PodRailLoaded,
    /// `pod_rail_departed_at`.
    PodRailDeparted,
    /// `ind_eta_at`: the rail ETA at the inland destination.
    IndEta,
    /// `ind_ata_at`: arrived at the inland destination.
    IndAta,
    /// `ind_rail_unloaded_at`.
    IndRailUnloaded,
    /// `final_destination_full_out_at`.
    FinalFullOut,
    /// `empty_terminated_at`: empty returned.
    EmptyTerminated,
    /// `delivered_at`.
    Delivered,
}

impl TimeAttr {
    /// Every attribute.
    pub const ALL: [TimeAttr; 15] = [
        TimeAttr::EmptyOut,
        TimeAttr::PolFullIn,
        TimeAttr::PolVesselLoaded,
        TimeAttr::PolVesselDeparted,
        TimeAttr::PodArrived,
        TimeAttr::PodDischarged,
        TimeAttr::PodFullOut,
        TimeAttr::PodRailLoaded,
        TimeAttr::PodRailDeparted,
        TimeAttr::IndEta,
        TimeAttr::IndAta,
        TimeAttr::IndRailUnloaded,
        TimeAttr::FinalFullOut,
        TimeAttr::EmptyTerminated,
        TimeAttr::Delivered,
    ];

    /// The attribute's name, as the API shows it and the state stores it.
    pub fn name(self) -> &'static str {
        match self {
            TimeAttr::EmptyOut => "empty_out_at",
            TimeAttr::PolFullIn => "pol_full_in_at",
            TimeAttr::PolVesselLoaded => "pol_vessel_loaded_at",
            TimeAttr::PolVesselDeparted => "pol_vessel_departed_at",
            TimeAttr::PodArrived => "pod_arrived_at",
            TimeAttr::PodDischarged => "pod_discharged_at",
            TimeAttr::PodFullOut => "pod_full_out_at",
            TimeAttr::PodRailLoaded => "pod_rail_loaded_at",
            TimeAttr::PodRailDeparted => "pod_rail_departed_at",
            TimeAttr::IndEta => "ind_eta_at",
            TimeAttr::IndAta => "ind_ata_at",
            TimeAttr::IndRailUnloaded => "ind_rail_unloaded_at",
            TimeAttr::FinalFullOut => "final_destination_full_out_at",
            TimeAttr::EmptyTerminated => "empty_terminated_at",
            TimeAttr::Delivered => "delivered_at",
        }
    }

    /// The attribute of a name.
    pub fn parse(name: &str) -> Option<TimeAttr> {
        TimeAttr::ALL.into_iter().find(|a| a.name() == name)
    }
}

/// A key of [`super::ContainerState::times`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TimeKey {
    /// When a milestone happened, as the attribute that shows it.
    At(TimeAttr),
    /// The latest estimate of a milestone at a place.
    Estimated(Milestone, Place),
}

impl From<TimeAttr> for TimeKey {
    fn from(a: TimeAttr) -> TimeKey {
        TimeKey::At(a)
    }
}

fn place_name(p: Place) -> &'static str {
    match p {
        Place::Origin => "Origin",
        Place::Transshipment => "Transshipment",
        Place::Pod => "Pod",
        Place::Inland => "Inland",
    }
}

fn place_of(name: &str) -> Option<Place> {
    [
        Place::Origin,
        Place::Transshipment,
        Place::Pod,
        Place::Inland,
    ]
    .into_iter()
    .find(|p| place_name(*p) == name)
}

impl TimeKey {
    /// The stored name: the attribute's, or `estimated.<milestone>.<Place>`.
    pub fn name(&self) -> String {
        match self {
            TimeKey::At(a) => a.name().to_string(),
            TimeKey::Estimated(m, p) => format!("estimated.{}.{}", m.name(), place_name(*p)),
        }
    }

    /// The key a stored name stands for.
    pub fn parse(name: &str) -> Option<TimeKey> {
        if let Some(rest) = name.strip_prefix("estimated.") {
            let (m, p) = rest.rsplit_once('.')?;
            let m = Milestone::ALL.into_iter().find(|x| x.name() == m)?;
            return Some(TimeKey::Estimated(m, place_of(p)?));
        }
        TimeAttr::parse(name).map(TimeKey::At)
    }
}

impl std::fmt::Display for TimeKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

impl Serialize for TimeKey {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.name())
    }
}

impl<'de> Deserialize<'de> for TimeKey {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<TimeKey, D::Error> {
        let name = String::deserialize(d)?;
        TimeKey::parse(&name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown time key {name:?}")))
    }
}

/// Reads a stored `times` map, leaving out a key this version does not know (a state written
/// by another version stays readable; the key's value was derived and is derived again).
pub fn lenient<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<std::collections::BTreeMap<TimeKey, i64>, D::Error> {
    super::versions::lenient_map(d, TimeKey::parse)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_reads_back_as_it_was_stored() {
        let mut keys: Vec<TimeKey> = TimeAttr::ALL.into_iter().map(TimeKey::At).collect();
        for m in Milestone::ALL {
            for p in [
                Place::Origin,
                Place::Transshipment,
                Place::Pod,
                Place::Inland,
            ] {
                keys.push(TimeKey::Estimated(m, p));
            }
        }
        for k in keys {
            assert_eq!(TimeKey::parse(&k.name()), Some(k), "{}", k.name());
        }
        // the strings states were stored with before the keys were typed
        assert_eq!(
            TimeKey::parse("estimated.vessel_arrived.Pod"),
            Some(TimeKey::Estimated(Milestone::VesselArrived, Place::Pod))
        );
        assert_eq!(
            TimeKey::parse("pod_discharged_at"),
            Some(TimeKey::At(TimeAttr::PodDischarged))
        );
        assert_eq!(TimeKey::parse("pod_discharged"), None);
        let stored = r#"{"pod_arrived_at":5,"estimated.arrived_at_inland_destination.Inland":7}"#;
        let map: std::collections::BTreeMap<TimeKey, i64> = serde_json::from_str(stored).unwrap();
        assert_eq!(serde_json::to_string(&map).unwrap(), stored);
        // a state with a key this version does not know still reads
        let c: crate::tracking::ContainerState =
            serde_json::from_str(r#"{"times":{"pod_arrived_at":5,"some_future_key":1}}"#).unwrap();
        assert_eq!(c.times.len(), 1);
    }
}
