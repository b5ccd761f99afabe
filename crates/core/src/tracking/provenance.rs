//! Where each value of a container came from: the source, the report (its observation key,
//! which names its raw event), when it was reported and how precisely.
//!
//! Milestone times come from their records ([`super::milestones`]): the deciding source and
//! the report that stated the time. Every other attribute remembers the report that last
//! wrote it ([`ContainerState::provenance`], kept by the merge).

use serde::{Deserialize, Serialize};

use super::milestones::{Record, Report};
use super::precedence::Precision;
use super::{ContainerState, DataSource, Fact, Observation, observation_key};

/// The report behind an attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Provenance {
    /// Who said it.
    pub source: DataSource,
    /// How finely it states its times.
    #[serde(default, skip_serializing_if = "Precision::is_second")]
    pub precision: Precision,
    /// When the source produced it.
    pub observed_us: i64,
    /// Its observation key (the raw event's).
    pub key: i64,
}

impl Provenance {
    /// The provenance of an observation.
    pub fn of(o: &Observation) -> Provenance {
        Provenance {
            source: o.source,
            precision: o.precision,
            observed_us: o.observed_us,
            key: observation_key(o),
        }
    }

    fn of_report(r: &Report) -> Provenance {
        Provenance::of(&Observation {
            observed_us: r.observed_us,
            source: r.source,
            fact: Fact::Event(r.fact.clone()),
            precision: r.precision,
            upstream_id: None,
        })
    }
}

/// Where one attribute's value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldSource {
    /// The attribute of the container resource (`pod_discharged_at`, `holds_at_pod_terminal`).
    pub attribute: &'static str,
    /// Whose word decided it.
    pub source: DataSource,
    /// The report that stated it (for a milestone time: the one whose time is shown, which a
    /// finer source may have stated for the deciding one).
    pub report: Provenance,
    /// The other sources' latest reports that stand behind the value too: for
    /// `holds_at_pod_terminal`, every other source's latest hold list (a hold one source lifted
    /// stays while another still reports it), oldest first. Empty for the other attributes.
    pub also: Vec<Provenance>,
}

/// Where every attribute of the container that a source set came from, by attribute name.
/// `rail_lfd`: whether the account may see the rail carrier's LFD (without it,
/// `pickup_lfd_rail` is left out, as it is everywhere else).
pub fn field_sources(c: &ContainerState, rail_lfd: bool) -> Vec<FieldSource> {
    let mut out: Vec<FieldSource> = Vec::new();
    // milestone times: the latest occurrence of each
    let mut latest: Vec<(&'static str, i64, FieldSource)> = Vec::new();
    for record in &c.milestones.0 {
        let Some(d) = record.decided() else { continue };
        let Some(attribute) = super::merge::time_attribute(d.fact.milestone, d.fact.place) else {
            continue;
        };
        let Some(timed) = stated_by(record, &d) else {
            continue;
        };
        let at = d.fact.at_us.unwrap_or(i64::MIN);
        let source = FieldSource {
            attribute,
            source: d.source,
            report: timed,
            also: vec![],
        };
        match latest.iter_mut().find(|(a, _, _)| *a == attribute) {
            Some(slot) if slot.1 < at => *slot = (attribute, at, source),
            Some(_) => {}
            None => latest.push((attribute, at, source)),
        }
    }
    out.extend(latest.into_iter().map(|(_, _, s)| s));
    for (key, p) in &c.provenance {
        for attribute in key.attributes() {
            if *attribute == "pickup_lfd_rail" && !rail_lfd {
                continue;
            }
            let also = if *key == super::versions::VersionKey::Holds {
                other_hold_lists(c, p)
            } else {
                vec![]
            };
            out.push(FieldSource {
                attribute,
                source: p.source,
                report: *p,
                also,
            });
        }
    }
    out.sort_by_key(|s| s.attribute);
    out
}

/// Every source's latest hold list but the one `shown` names, oldest first.
fn other_hold_lists(c: &ContainerState, shown: &Provenance) -> Vec<Provenance> {
    let mut lists: Vec<Provenance> = super::release::hold_lists(c)
        .into_iter()
        .filter(|l| !(l.source == shown.source && l.observed_us == shown.observed_us))
        .map(|l| Provenance {
            source: l.source,
            precision: Precision::Second,
            observed_us: l.observed_us,
            key: l.key,
        })
        .collect();
    lists.sort_by_key(|p| p.observed_us);
    lists
}

/// The report of a record whose time the decision shows.
fn stated_by(record: &Record, d: &super::milestones::Decided) -> Option<Provenance> {
    record
        .reports
        .iter()
        .find(|r| {
            r.source == d.time_source
                && r.precision == d.precision
                && r.observed_us == d.observed_us
        })
        .map(Provenance::of_report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tracking::merge::{View, merge};
    use crate::tracking::{EventFact, Hold, Milestone, Place, ShipmentState};

    fn departed(at: i64) -> Fact {
        Fact::Event(EventFact {
            milestone: Milestone::VesselDeparted,
            estimated: false,
            at_us: Some(at),
            place: Place::Origin,
            locode: Some("TWKHH".into()),
            timezone: None,
            terminal: None,
            vessel_name: Some("APL TEMASEK".into()),
            vessel_imo: None,
            voyage: Some("175E".into()),
        })
    }

    #[test]
    fn each_value_names_the_report_it_came_from() {
        let dcsa = Observation {
            observed_us: 10,
            source: DataSource::ShippingLine,
            fact: departed(1_000_000_033_000_000),
            precision: Precision::Second,
            upstream_id: None,
        };
        let x12 = Observation {
            observed_us: 20,
            source: DataSource::ShippingLine,
            fact: departed(1_000_000_000_000_000),
            precision: Precision::Minute,
            upstream_id: None,
        };
        let holds = Observation {
            observed_us: 30,
            source: DataSource::Terminal,
            fact: Fact::Holds {
                holds: vec![Hold {
                    name: "customs".into(),
                    status: "hold".into(),
                    description: None,
                }],
            },
            precision: Precision::Second,
            upstream_id: None,
        };
        let m = merge(
            &ContainerState::default(),
            &ShipmentState::default(),
            &[x12, dcsa.clone(), holds.clone()],
            View::default(),
        );
        let sources = field_sources(&m.container, false);
        let by = |a: &str| sources.iter().find(|s| s.attribute == a).cloned();
        // the line's later word (X12) decides; its DCSA report states the time to the second
        let departed = by("pol_vessel_departed_at").expect("the departure's source");
        assert_eq!(departed.source, DataSource::ShippingLine);
        assert_eq!(departed.report.key, observation_key(&dcsa));
        assert_eq!(departed.report.precision, Precision::Second);
        let held = by("holds_at_pod_terminal").expect("the holds' source");
        assert_eq!(held.source, DataSource::Terminal);
        assert_eq!(held.report.key, observation_key(&holds));
        assert_eq!(held.report.observed_us, 30);
        assert!(by("fees_at_pod_terminal").is_none(), "never reported");
    }

    fn hold_list(source: DataSource, observed_us: i64, names: &[&str]) -> Observation {
        Observation {
            observed_us,
            source,
            fact: Fact::Holds {
                holds: names
                    .iter()
                    .map(|n| Hold {
                        name: (*n).into(),
                        status: "hold".into(),
                        description: None,
                    })
                    .collect(),
            },
            precision: Precision::Second,
            upstream_id: None,
        }
    }

    #[test]
    fn a_hold_one_source_lifted_names_the_source_that_still_reports_it() {
        let rail = hold_list(DataSource::Rail, 10, &["customs"]);
        let terminal = hold_list(DataSource::Terminal, 20, &[]);
        let m = merge(
            &ContainerState::default(),
            &ShipmentState::default(),
            &[rail.clone(), terminal.clone()],
            View::default(),
        );
        assert_eq!(m.container.holds.len(), 1, "the rail's hold stays");
        let sources = field_sources(&m.container, false);
        let held = sources
            .iter()
            .find(|s| s.attribute == "holds_at_pod_terminal")
            .expect("the holds' source");
        assert_eq!(held.source, DataSource::Terminal, "the newest list");
        assert_eq!(held.report.key, observation_key(&terminal));
        assert_eq!(held.also.len(), 1, "{:?}", held.also);
        assert_eq!(held.also[0].source, DataSource::Rail);
        assert_eq!(held.also[0].observed_us, 10);
        assert_eq!(held.also[0].key, observation_key(&rail));
        assert!(
            sources
                .iter()
                .filter(|s| s.attribute != "holds_at_pod_terminal")
                .all(|s| s.also.is_empty())
        );
    }
}
