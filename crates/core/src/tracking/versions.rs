//! The keys of the `versions` of a container's and a shipment's state (when each attribute was
//! last written, so that an older report never wins) and of a container's `provenance`. Typed,
//! so that a misspelt key does not compile; stored as the strings they always were
//! (`availability`, `lfd.Line`, `pod_original_eta`), so stored states read back the same.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::LfdKind;

/// What a version (or a provenance) is kept for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum VersionKey {
    /// The terminal's availability (`available_for_pickup`, `availability_known`).
    Availability,
    /// The holds at the POD terminal.
    Holds,
    /// The fees at the POD terminal.
    Fees,
    /// A last free day, by whose.
    Lfd(LfdKind),
    /// The pickup appointment.
    Appointment,
    /// The location in the terminal's yard.
    Yard,
    /// The POD terminal.
    PodTerminal,
    /// Equipment details.
    Equipment,
    /// The rail carrier at the POD.
    PodRailCarrier,
    /// The rail carrier inland.
    IndRailCarrier,
    /// The chassis at full-out.
    Chassis,
    /// The shipment's first ETA at the POD.
    PodOriginalEta,
    /// The shipment's first ETD from the port of lading.
    PolOriginalEtd,
    /// The shipment's first ETA at the inland destination.
    DestinationOriginalEta,
    /// How surely the shipment's POD vessel is the one that brings the box (a rank, not a
    /// time).
    PodVesselRank,
    /// The shipment's POD vessel.
    PodVesselName,
}

impl VersionKey {
    /// Every key.
    pub const ALL: [VersionKey; 19] = [
        VersionKey::Availability,
        VersionKey::Holds,
        VersionKey::Fees,
        VersionKey::Lfd(LfdKind::Line),
        VersionKey::Lfd(LfdKind::Terminal),
        VersionKey::Lfd(LfdKind::Rail),
        VersionKey::Lfd(LfdKind::User),
        VersionKey::Appointment,
        VersionKey::Yard,
        VersionKey::PodTerminal,
        VersionKey::Equipment,
        VersionKey::PodRailCarrier,
        VersionKey::IndRailCarrier,
        VersionKey::Chassis,
        VersionKey::PodOriginalEta,
        VersionKey::PolOriginalEtd,
        VersionKey::DestinationOriginalEta,
        VersionKey::PodVesselRank,
        VersionKey::PodVesselName,
    ];

    /// The stored name.
    pub fn name(self) -> &'static str {
        match self {
            VersionKey::Availability => "availability",
            VersionKey::Holds => "holds",
            VersionKey::Fees => "fees",
            VersionKey::Lfd(LfdKind::Line) => "lfd.Line",
            VersionKey::Lfd(LfdKind::Terminal) => "lfd.Terminal",
            VersionKey::Lfd(LfdKind::Rail) => "lfd.Rail",
            VersionKey::Lfd(LfdKind::User) => "lfd.User",
            VersionKey::Appointment => "appointment",
            VersionKey::Yard => "yard",
            VersionKey::PodTerminal => "pod_terminal",
            VersionKey::Equipment => "equipment",
            VersionKey::PodRailCarrier => "pod_rail_carrier",
            VersionKey::IndRailCarrier => "ind_rail_carrier",
            VersionKey::Chassis => "chassis",
            VersionKey::PodOriginalEta => "pod_original_eta",
            VersionKey::PolOriginalEtd => "pol_original_etd",
            VersionKey::DestinationOriginalEta => "destination_original_eta",
            VersionKey::PodVesselRank => "pod_vessel_rank",
            VersionKey::PodVesselName => "pod_vessel_name",
        }
    }

    /// The key of a stored name.
    pub fn parse(name: &str) -> Option<VersionKey> {
        VersionKey::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The container attributes a report of this key sets.
    pub fn attributes(self) -> &'static [&'static str] {
        match self {
            VersionKey::Availability => &["available_for_pickup", "availability_known"],
            VersionKey::Holds => &["holds_at_pod_terminal"],
            VersionKey::Fees => &["fees_at_pod_terminal"],
            VersionKey::Lfd(LfdKind::Line) => &["pickup_lfd_line"],
            VersionKey::Lfd(LfdKind::Terminal) => &["pickup_lfd_terminal"],
            VersionKey::Lfd(LfdKind::Rail) => &["pickup_lfd_rail"],
            VersionKey::Lfd(LfdKind::User) => &["pickup_lfd"],
            VersionKey::Appointment => &["pickup_appointment_at"],
            VersionKey::Yard => &["location_at_pod_terminal"],
            VersionKey::PodTerminal => &["pod_terminal"],
            VersionKey::Equipment => &[
                "equipment_type",
                "equipment_length",
                "equipment_height",
                "seal_number",
            ],
            VersionKey::PodRailCarrier => &["pod_rail_carrier_scac"],
            VersionKey::IndRailCarrier => &["ind_rail_carrier_scac"],
            VersionKey::Chassis => &["pod_full_out_chassis_number"],
            VersionKey::PodOriginalEta
            | VersionKey::PolOriginalEtd
            | VersionKey::DestinationOriginalEta
            | VersionKey::PodVesselRank
            | VersionKey::PodVesselName => &[],
        }
    }
}

impl std::fmt::Display for VersionKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for VersionKey {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for VersionKey {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<VersionKey, D::Error> {
        let name = String::deserialize(d)?;
        VersionKey::parse(&name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown version key {name:?}")))
    }
}

/// Reads a stored map keyed by version keys, leaving out a key this version does not know (a
/// state written by another version stays readable).
pub fn lenient<'de, D: Deserializer<'de>, V: Deserialize<'de>>(
    d: D,
) -> Result<std::collections::BTreeMap<VersionKey, V>, D::Error> {
    lenient_map(d, VersionKey::parse)
}

/// Reads a map whose keys `parse` reads from their stored names, each name read in place (no
/// string made of it) and a name `parse` does not know skipped with its value.
pub(super) fn lenient_map<'de, D, K, V>(
    d: D,
    parse: fn(&str) -> Option<K>,
) -> Result<std::collections::BTreeMap<K, V>, D::Error>
where
    D: Deserializer<'de>,
    K: Ord,
    V: Deserialize<'de>,
{
    d.deserialize_map(LenientMap {
        parse,
        value: std::marker::PhantomData,
    })
}

/// The visitor of [`lenient_map`].
struct LenientMap<K, V> {
    parse: fn(&str) -> Option<K>,
    value: std::marker::PhantomData<V>,
}

impl<'de, K: Ord, V: Deserialize<'de>> serde::de::Visitor<'de> for LenientMap<K, V> {
    type Value = std::collections::BTreeMap<K, V>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a map of named keys")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = std::collections::BTreeMap::new();
        while let Some(key) = map.next_key_seed(KeyName(self.parse))? {
            match key {
                Some(k) => {
                    out.insert(k, map.next_value()?);
                }
                None => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
        }
        Ok(out)
    }
}

/// A key read by its name, `None` for a name not known.
struct KeyName<K>(fn(&str) -> Option<K>);

impl<'de, K> serde::de::DeserializeSeed<'de> for KeyName<K> {
    type Value = Option<K>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<K>, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de, K> serde::de::Visitor<'de> for KeyName<K> {
    type Value = Option<K>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a key's name")
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Option<K>, E> {
        Ok((self.0)(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_map_keeps_the_keys_this_version_knows_and_skips_the_rest() {
        let state: crate::tracking::ContainerState = serde_json::from_str(
            r#"{"times": {"pod_arrived_at": 5, "someday_at": 6, "estimated.vessel_arrived.Pod": 7},
                "versions": {"\u0061vailability": 1, "holds": 2, "lfd.Moon": 3, "later": {"a": [1]}}}"#,
        )
        .unwrap_or_else(|e| panic!("a state with unknown keys reads: {e}"));
        assert_eq!(
            state.versions.into_iter().collect::<Vec<_>>(),
            vec![(VersionKey::Availability, 1), (VersionKey::Holds, 2)]
        );
        assert_eq!(state.times.len(), 2, "{:?}", state.times);
        let bad: Result<crate::tracking::ContainerState, _> =
            serde_json::from_str(r#"{"versions": {"holds": "soon"}}"#);
        assert!(bad.is_err(), "a known key's value is still checked");
    }

    #[test]
    fn every_key_reads_back_as_it_was_stored() {
        for k in VersionKey::ALL {
            assert_eq!(VersionKey::parse(k.name()), Some(k));
        }
        // the strings states were stored with before the keys were typed (`lfd.{which:?}`)
        assert_eq!(
            VersionKey::parse(&format!("lfd.{:?}", LfdKind::Terminal)),
            Some(VersionKey::Lfd(LfdKind::Terminal))
        );
        let c: crate::tracking::ContainerState = serde_json::from_str(
            r#"{"versions":{"availability":5,"lfd.Rail":6,"some_future_key":1}}"#,
        )
        .unwrap();
        assert_eq!(c.versions.len(), 2);
        assert_eq!(
            serde_json::to_value(&c.versions).unwrap(),
            serde_json::json!({"availability": 5, "lfd.Rail": 6})
        );
    }
}
