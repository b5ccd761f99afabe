//! Upstream sources. Each source answers a carrier lookup for a tracking request and turns what
//! it read into [`Observation`](boxtrack_core::tracking::Observation)s for the one merge path.

pub mod ais;
pub mod auth;
pub mod carrier;
pub mod cosco;
pub mod dcsa;
pub mod diagnosis;
pub mod edifact;
pub mod ingest;
pub mod poll;
pub mod profiles;
pub mod push;
pub mod release_codes;
pub mod sandbox;
pub mod scenarios;
pub mod simulated;
pub mod terminal;
pub mod upstream;
pub mod x12;

use std::future::Future;
use std::pin::Pin;

use boxtrack_core::requests::RequestType;
use boxtrack_core::tracking::Route;
use boxtrack_store::tracking::NewContainer;

/// What to look up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lookup {
    /// Carrier SCAC.
    pub scac: String,
    /// Normalised number.
    pub number: String,
    /// What the number is.
    pub request_type: RequestType,
}

/// What the carrier said.
#[derive(Debug, Clone)]
pub enum LookupResult {
    /// The shipment exists.
    Found {
        /// The bill of lading as the carrier knows it.
        bill_of_lading_number: String,
        /// Ports.
        route: Box<Route>,
        /// Every container on it, with what is known.
        containers: Vec<NewContainer>,
        /// A sandbox scenario whose journey plays on the virtual clock.
        scenario: Option<String>,
    },
    /// The carrier does not know the number (a container request fails at once; a bill of
    /// lading or booking waits for its manifest).
    NotFound,
    /// The carrier knows the number but has not manifested it yet.
    NotManifested,
    /// A permanent failure with its `failed_reason` (`not_found`, `invalid_number`,
    /// `booking_cancelled`, `data_unavailable`).
    Rejected(&'static str),
}

/// A transient failure: the request is retried later.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SourceError {
    /// Network trouble or no source configured for the carrier.
    #[error("shipping line unreachable: {0}")]
    Unreachable(String),
    /// The answer could not be understood.
    #[error("unrecognized response: {0}")]
    Unrecognized(String),
    /// No upstream is configured for the carrier: nothing can answer until the operator adds
    /// one (`[carriers.SCAC]`, or `--sim-url`).
    #[error("no source is configured for {0}")]
    NotConfigured(String),
}

impl SourceError {
    /// The temporary `failed_reason` shown while retrying.
    pub fn reason(&self) -> &'static str {
        match self {
            SourceError::Unreachable(_) => "shipping_line_unreachable",
            SourceError::Unrecognized(_) => "unrecognized_response",
            SourceError::NotConfigured(_) => "data_unavailable",
        }
    }
}

/// A boxed future, so sources can be trait objects.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A carrier data source.
pub trait Source: Send + Sync {
    /// Whether this source answers for the carrier.
    fn serves(&self, scac: &str) -> bool;
    /// Looks a number up.
    fn lookup<'a>(&'a self, q: &'a Lookup) -> BoxFuture<'a, Result<LookupResult, SourceError>>;
}
