//! The sandbox carrier (`scac: "TEST"`): documented test numbers with fixed outcomes, so an
//! integration can be built without any upstream.
//!
//! | number | outcome |
//! |---|---|
//! | `TEST-TR-SUCCEEDED` | created: a shipment Shanghai → Los Angeles with one container |
//! | `TEST-TR-FAILED` | failed, `not_found` |
//! | `TEST-TR-AWAITING-MANIFEST` | awaiting_manifest (rechecked daily, `expired` after 7 days) |
//! | `TEST-TR-UNREACHABLE` | pending with `is_retrying`, then failed `retries_exhausted` |
//! | `TEST-SCN-*` | a scripted journey (see [`crate::scenarios`]) |
//! | anything else | failed, `not_found` |

use boxtrack_core::carriers::SANDBOX_SCAC;
use boxtrack_core::ident::check_digit;
use boxtrack_core::tracking::{DataSource, Equipment, Fact, Observation, Route};
use boxtrack_store::tracking::NewContainer;

use crate::{BoxFuture, Lookup, LookupResult, Source, SourceError};

/// The documented sandbox numbers with what each does.
pub const TEST_NUMBERS: [(&str, &str); 4] = [
    (
        "TEST-TR-SUCCEEDED",
        "succeeds: a shipment Shanghai (CNSHA) to Los Angeles (USLAX) with one container",
    ),
    ("TEST-TR-FAILED", "fails with failed_reason not_found"),
    (
        "TEST-TR-AWAITING-MANIFEST",
        "awaits its manifest: rechecked daily, failed with expired after 7 days",
    ),
    (
        "TEST-TR-UNREACHABLE",
        "the carrier is unreachable: retried with backoff, then failed with retries_exhausted",
    ),
];

/// A valid ISO 6346 number with the sandbox owner code `BXTU`, derived from a seed.
pub fn container_number(seed: &str) -> String {
    let mut h: u64 = 1469598103934665603;
    for b in seed.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(1099511628211);
    }
    let first = format!("BXTU{:06}", h % 1_000_000);
    let digit = check_digit(&first).unwrap_or(0);
    format!("{first}{digit}")
}

/// Shanghai to Los Angeles.
pub fn transpacific() -> Route {
    Route {
        pol_locode: Some("CNSHA".into()),
        pol_name: Some("Shanghai".into()),
        pol_timezone: Some("Asia/Shanghai".into()),
        pod_locode: Some("USLAX".into()),
        pod_name: Some("Los Angeles".into()),
        pod_timezone: Some("America/Los_Angeles".into()),
        destination_locode: None,
        destination_name: None,
        destination_timezone: None,
    }
}

/// The sandbox carrier.
#[derive(Debug, Clone, Copy, Default)]
pub struct Sandbox;

impl Sandbox {
    fn answer(&self, q: &Lookup) -> Result<LookupResult, SourceError> {
        match q.number.as_str() {
            "TEST-TR-SUCCEEDED" => Ok(LookupResult::Found {
                bill_of_lading_number: q.number.clone(),
                route: Box::new(transpacific()),
                containers: vec![NewContainer {
                    number: container_number(&q.number),
                    observations: vec![Observation {
                        observed_us: 0,
                        source: DataSource::Sandbox,
                        fact: Fact::Equipment(Equipment {
                            equipment_type: Some("dry".into()),
                            equipment_length: Some(40),
                            equipment_height: Some("high_cube".into()),
                            weight_in_lbs: Some(28_660),
                            seal_number: Some("SB1234567".into()),
                        }),
                        precision: Default::default(),
                        upstream_id: None,
                    }],
                }],
                scenario: None,
            }),
            n if n.starts_with("TEST-SCN-") => match crate::scenarios::by_number(n) {
                Some(s) => Ok(LookupResult::Found {
                    bill_of_lading_number: s.number.to_string(),
                    route: Box::new(s.route.clone()),
                    containers: s
                        .containers
                        .iter()
                        .map(|number| NewContainer {
                            number: number.clone(),
                            observations: vec![],
                        })
                        .collect(),
                    scenario: Some(s.number.to_string()),
                }),
                None => Ok(LookupResult::Rejected("not_found")),
            },
            "TEST-TR-AWAITING-MANIFEST" => Ok(LookupResult::NotManifested),
            "TEST-TR-UNREACHABLE" => {
                Err(SourceError::Unreachable("sandbox carrier is down".into()))
            }
            _ => Ok(LookupResult::Rejected("not_found")),
        }
    }
}

impl Source for Sandbox {
    fn serves(&self, scac: &str) -> bool {
        scac == SANDBOX_SCAC
    }

    fn lookup<'a>(&'a self, q: &'a Lookup) -> BoxFuture<'a, Result<LookupResult, SourceError>> {
        Box::pin(async move { self.answer(q) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sandbox_container_numbers_are_valid_and_stable() {
        let a = container_number("TEST-TR-SUCCEEDED");
        assert_eq!(a, container_number("TEST-TR-SUCCEEDED"));
        assert!(boxtrack_core::ident::validate_container(&a).is_ok(), "{a}");
        assert_ne!(a, container_number("other"));
    }
}
