//! Query parameters of a request, JSON:API names (`page[size]`, `filter[…]`) kept whole.

use boxtrack_core::paging::{self, Page, RawPage};

use boxtrack_app::fields::either;
use serde::de::DeserializeOwned;

use crate::error::ApiError;

/// Query parameters as ordered pairs (JSON:API names like `page[size]` kept whole).
#[derive(Debug, Clone, Default)]
pub struct QueryParams(pub Vec<(String, String)>);

impl QueryParams {
    /// Parses a raw query string. A text parameter given with an empty value
    /// (`filter[port]=`) is as if it were not given, as forms and generated clients send
    /// them; a number must be a number ([`QueryParams::integer`], page numbers and sizes).
    pub fn parse(raw: Option<&str>) -> QueryParams {
        QueryParams(
            url::form_urlencoded::parse(raw.unwrap_or_default().as_bytes())
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect(),
        )
    }

    /// The last value given for a parameter, unless that is empty.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.given(name).filter(|v| !v.is_empty())
    }

    /// The last value given for a parameter, empty or not.
    pub fn given(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// A trimmed, non-empty parameter value.
    pub fn text(&self, name: &str) -> Option<String> {
        self.get(name)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    }

    /// An ISO 8601 instant parameter as Unix microseconds, as written (no spaces around);
    /// anything else is 400.
    pub fn time(&self, name: &str) -> Result<Option<i64>, ApiError> {
        match self.get(name) {
            None => Ok(None),
            Some(v) => Some(v)
                .filter(|v| v.trim() == *v)
                .and_then(boxtrack_core::time::parse_micros)
                .map(Some)
                .ok_or_else(|| {
                    ApiError::bad_parameter(
                        name,
                        format!("{name} must be an ISO 8601 time such as 2026-01-31T00:00:00Z"),
                    )
                }),
        }
    }

    /// The end of a time range: an ISO 8601 instant that includes its whole second, since
    /// the API shows times in whole seconds (`filter[pickup_lfd][end]` equal to the LFD a
    /// container shows includes that container, though it is stored with microseconds).
    pub fn time_end(&self, name: &str) -> Result<Option<i64>, ApiError> {
        Ok(self.time(name)?.map(boxtrack_core::time::end_of_second))
    }

    /// A `true` / `false` parameter; anything else is 400.
    pub fn boolean(&self, name: &str) -> Result<Option<bool>, ApiError> {
        match self.get(name) {
            None => Ok(None),
            Some("true") => Ok(Some(true)),
            Some("false") => Ok(Some(false)),
            Some(_) => Err(ApiError::bad_parameter(
                name,
                format!("{name} must be true or false"),
            )),
        }
    }

    /// A UUID parameter in its hyphenated form; anything else is 400.
    pub fn uuid(&self, name: &str) -> Result<Option<uuid::Uuid>, ApiError> {
        match self.get(name) {
            None => Ok(None),
            Some(v) => uuid::Uuid::try_parse(v)
                .ok()
                .filter(|_| v.len() == 36)
                .map(Some)
                .ok_or_else(|| ApiError::bad_parameter(name, format!("{name} must be a UUID"))),
        }
    }

    /// A parameter that must be one of `allowed` as written; anything else is 400 naming
    /// them.
    pub fn one_of(&self, name: &str, allowed: &[&str]) -> Result<Option<&str>, ApiError> {
        match self.get(name) {
            None => Ok(None),
            Some(v) if allowed.contains(&v) => Ok(Some(v)),
            Some(_) => Err(ApiError::bad_parameter(
                name,
                format!("{name} must be {}", either(allowed)),
            )),
        }
    }

    /// A whole number parameter within `min..=max`, digits as written (an optional minus,
    /// no plus, no spaces); anything else is 400.
    pub fn integer(&self, name: &str, min: i64, max: i64) -> Result<Option<i64>, ApiError> {
        match self.given(name) {
            None => Ok(None),
            Some(v) => {
                let digits = v.strip_prefix('-').unwrap_or(v);
                Some(v)
                    .filter(|_| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
                    .and_then(|v| v.parse::<i64>().ok())
                    .filter(|n| (min..=max).contains(n))
                    .map(Some)
                    .ok_or_else(|| {
                        ApiError::bad_parameter(
                            name,
                            format!("{name} must be a whole number from {min} to {max}"),
                        )
                    })
            }
        }
    }

    /// A use case's typed input ([`boxtrack_app`]) read from these parameters: JSON:API's
    /// bracketed names are its nested fields, and an invalid value is 400 naming its
    /// parameter.
    pub fn input<T: DeserializeOwned>(&self) -> Result<T, ApiError> {
        let pairs = self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()));
        Ok(boxtrack_app::query::parse(
            boxtrack_app::query::from_pairs(pairs),
        )?)
    }

    /// Validated paging parameters.
    pub fn page(&self) -> Result<Page, ApiError> {
        paging::parse(RawPage {
            // numbers: given empty is not a number
            number: self.given("page[number]"),
            size: self.given("page[size]"),
            after: self.get("page[after]"),
            before: self.get("page[before]"),
        })
        .map_err(|e| ApiError::bad_parameter(e.param(), e.to_string()))
    }

    /// The relations named in `include`, each checked against `allowed`.
    pub fn includes(&self, resource_type: &str, allowed: &[&str]) -> Result<Vec<String>, ApiError> {
        let Some(raw) = self.get("include") else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        // names as written, spaces around commas allowed; an empty name is refused
        for name in raw.split(',').map(|s| s.trim_matches(' ')) {
            if !allowed.contains(&name) {
                let hint = if allowed.is_empty() {
                    "it has no includable relationships".to_string()
                } else {
                    format!("includable: {}", allowed.join(", "))
                };
                return Err(ApiError::bad_parameter(
                    "include",
                    format!("{name} is not a relationship of {resource_type} ({hint})"),
                ));
            }
            if !out.iter().any(|n| n == name) {
                out.push(name.to_string());
            }
        }
        Ok(out)
    }
}
