//! The typed values of use case inputs, each read as written from a query string (where every
//! value is text) or from JSON (where a flag is a boolean): `true` is a flag whether it came as
//! `true` or `"true"`, and `" true"` is refused in both. Their schemas are what JSON takes; the
//! REST API's document turns them into query parameters.

use std::borrow::Cow;
use std::marker::PhantomData;

use boxtrack_core::tracking::release::Gate;
use boxtrack_core::tracking::rules::ContainerStatus;
use boxtrack_core::{datebounds, time};
use boxtrack_store::reads::Filter;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::Error as _;
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use crate::model::{DateCond, TextCond};

/// `true` or `false`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flag(pub bool);

impl<'de> Deserialize<'de> for Flag {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Value::deserialize(d)? {
            Value::Bool(b) => Ok(Flag(b)),
            Value::String(s) if s == "true" => Ok(Flag(true)),
            Value::String(s) if s == "false" => Ok(Flag(false)),
            _ => Err(D::Error::custom("must be true or false")),
        }
    }
}

impl JsonSchema for Flag {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "Flag".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "boolean"})
    }
}

/// An ISO 8601 instant with its offset (`2026-01-31T00:00:00Z`), as Unix microseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Instant(pub i64);

impl<'de> Deserialize<'de> for Instant {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d).map_err(|_| D::Error::custom(INSTANT))?;
        Some(s.as_str())
            .filter(|v| v.trim() == *v)
            .and_then(time::parse_micros)
            .map(Instant)
            .ok_or_else(|| D::Error::custom(INSTANT))
    }
}

const INSTANT: &str = "must be an ISO 8601 time such as 2026-01-31T00:00:00Z";

impl JsonSchema for Instant {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "Instant".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "string", "format": "date-time"})
    }
}

/// A range of instants, both ends included; the end includes its whole second, since times
/// are shown in whole seconds (an end equal to a time a resource shows includes that resource,
/// though it is stored with microseconds).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
pub struct Range {
    /// At or after (ISO 8601).
    pub start: Option<Instant>,
    /// At or before (ISO 8601).
    pub end: Option<Instant>,
}

impl Range {
    /// The first microsecond included, if bounded.
    pub fn start_us(&self) -> Option<i64> {
        self.start.map(|i| i.0)
    }

    /// The last microsecond included, if bounded.
    pub fn end_us(&self) -> Option<i64> {
        self.end.map(|i| time::end_of_second(i.0))
    }
}

/// A UUID in its hyphenated form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Id(pub uuid::Uuid);

impl<'de> Deserialize<'de> for Id {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d).map_err(|_| D::Error::custom("must be a UUID"))?;
        uuid::Uuid::try_parse(&s)
            .ok()
            .filter(|_| s.len() == 36)
            .map(Id)
            .ok_or_else(|| D::Error::custom("must be a UUID"))
    }
}

impl JsonSchema for Id {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "Id".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "string", "format": "uuid"})
    }
}

/// Text as a person types it: spaces around it do not count, and nothing is as if the value
/// were not given ([`Text::given`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct Text(pub String);

impl Text {
    /// The trimmed text, unless that is empty.
    pub fn given(&self) -> Option<String> {
        Some(self.0.trim())
            .filter(|t| !t.is_empty())
            .map(str::to_string)
    }
}

/// The given text of an optional [`Text`].
pub fn given(t: &Option<Text>) -> Option<String> {
    t.as_ref().and_then(Text::given)
}

/// A closed vocabulary: the words a parameter takes, each meaning one value.
pub trait Word: Copy + Sized + 'static {
    /// Every value, in the order messages and documents list them.
    const ALL: &'static [Self];
    /// Its word.
    fn word(self) -> &'static str;
    /// The value of a word, exactly as written.
    fn of(w: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|v| v.word() == w)
    }
    /// `a, b or c`.
    fn listed() -> String {
        let words: Vec<&str> = Self::ALL.iter().map(|v| v.word()).collect();
        either(&words)
    }
}

/// `a`, `a or b`, `a, b or c`: the words of a message naming what is allowed.
pub fn either(words: &[&str]) -> String {
    match words {
        [] => String::new(),
        [one] => (*one).to_string(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// One word of a [`Word`] vocabulary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct One<W>(pub W);

impl<'de, W: Word> Deserialize<'de> for One<W> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let bad = || D::Error::custom(format!("must be {}", W::listed()));
        let s = String::deserialize(d).map_err(|_| bad())?;
        W::of(&s).map(One).ok_or_else(bad)
    }
}

impl<W: Word> JsonSchema for One<W> {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "One".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let words: Vec<&str> = W::ALL.iter().map(|v| v.word()).collect();
        json_schema!({"type": "string", "enum": words})
    }
}

/// Any of several words of a vocabulary: separated by commas in one text (`a,b`), or a JSON
/// list of words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnyOf<W>(pub Vec<W>, PhantomData<W>);

impl<W> AnyOf<W> {
    /// These values.
    pub fn of(values: Vec<W>) -> AnyOf<W> {
        AnyOf(values, PhantomData)
    }
}

impl<'de, W: Word> Deserialize<'de> for AnyOf<W> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let bad = || {
            D::Error::custom(format!(
                "must be {} (several separated by commas)",
                W::listed()
            ))
        };
        let words: Vec<String> = match Value::deserialize(d)? {
            Value::String(s) => s.split(',').map(str::to_string).collect(),
            Value::Array(a) => a
                .into_iter()
                .map(|v| v.as_str().map(str::to_string).ok_or_else(bad))
                .collect::<Result<_, _>>()?,
            _ => return Err(bad()),
        };
        let mut out: Vec<W> = Vec::new();
        for w in &words {
            let v = W::of(w).ok_or_else(bad)?;
            if !out.iter().any(|o| o.word() == v.word()) {
                out.push(v);
            }
        }
        Ok(AnyOf::of(out))
    }
}

impl<W: Word> JsonSchema for AnyOf<W> {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "AnyOf".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let one = W::ALL
            .iter()
            .map(|v| v.word().replace('.', "[.]"))
            .collect::<Vec<_>>()
            .join("|");
        json_schema!({"type": "string", "pattern": format!("^(({one})(,({one}))*)?$")})
    }
}

impl Word for Gate {
    const ALL: &'static [Self] = &Gate::ALL;
    fn word(self) -> &'static str {
        self.name()
    }
}

impl Word for ContainerStatus {
    const ALL: &'static [Self] = &ContainerStatus::ALL;
    fn word(self) -> &'static str {
        self.as_str()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use boxtrack_core::tracking::rules::ContainerStatus;
    use serde_json::json;

    #[test]
    fn values_are_read_as_written_from_text_or_json() {
        let flag = |v: Value| serde_json::from_value::<Flag>(v).ok();
        assert_eq!(flag(json!(true)), Some(Flag(true)));
        assert_eq!(flag(json!("false")), Some(Flag(false)));
        assert_eq!(flag(json!(" true")), None);
        assert_eq!(flag(json!(1)), None);
        let instant = |v: Value| serde_json::from_value::<Instant>(v).ok();
        assert!(instant(json!("2026-01-31T00:00:00Z")).is_some());
        assert_eq!(instant(json!("2026-01-31T00:00:00Z ")), None);
        let id = |v: Value| serde_json::from_value::<Id>(v).ok();
        assert!(id(json!("0193a2b4-c5d6-e7f8-091a-2b3c4d5e6f70")).is_some());
        assert_eq!(id(json!("0193a2b4c5d6e7f8091a2b3c4d5e6f70")), None);
    }

    #[test]
    fn any_of_takes_words_separated_by_commas_or_a_list_once_each() {
        let any = |v: Value| serde_json::from_value::<AnyOf<ContainerStatus>>(v).map(|a| a.0);
        assert_eq!(
            any(json!("available,on_ship,available")).ok(),
            Some(vec![ContainerStatus::Available, ContainerStatus::OnShip])
        );
        assert_eq!(
            any(json!(["available"])).ok(),
            Some(vec![ContainerStatus::Available])
        );
        let e = any(json!("AVAILABLE")).err().map(|e| e.to_string());
        assert!(e.is_some_and(|e| e.starts_with("must be new, ")));
        assert!(any(json!("available,")).is_err());
    }
}

/// Conditions a list takes that no query parameter names: the reference MCP's further filters
/// (milestone dates, voyage texts, tags, presence tests, custom fields by name, day-based
/// bounds). A list input carries them in a field the query string never fills and the API's
/// document does not show, so REST's parameters stay the reference's while MCP asks the same
/// use case.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Further {
    /// With a last free day, or without one (containers).
    pub lfd_known: Option<bool>,
    /// Last free day bounds, both included, to the microsecond (containers).
    pub lfd: datebounds::Range,
    /// Last-updated bounds, both included, to the microsecond.
    pub updated: datebounds::Range,
    /// Whether the tracking request names a customer, or names none.
    pub customer_known: Option<bool>,
    /// Date bounds and presence tests on milestone and voyage dates (all hold).
    pub dates: Vec<DateCond>,
    /// Exact values of the voyage's texts, or whether they are known (all hold).
    pub texts: Vec<TextCond>,
    /// Shipment tags: any of them (or all with `tags_all`), exact.
    pub tags: Vec<String>,
    /// Every tag of `tags`, not any.
    pub tags_all: bool,
    /// With terminal fees, or with none (containers).
    pub has_fees: Option<bool>,
    /// With terminal fees or an active hold, or with neither (containers).
    pub has_fees_or_holds: Option<bool>,
    /// Custom field conditions by a field's display name or key (containers; see
    /// [`crate::custom_fields::conditions`]).
    pub custom_fields: std::collections::BTreeMap<String, String>,
    /// Only these containers (the console's "accruing charges" picks them so).
    pub ids: Option<Vec<uuid::Uuid>>,
}

/// The later of two optional instants (the start of two ranges that both hold).
pub fn latest(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (x, y) => x.or(y),
    }
}

/// The earlier of two optional instants (the end of two ranges that both hold).
pub fn earliest(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    }
}

impl Further {
    /// Adds these conditions to the store's filter `f` (a range both sets bound holds both).
    pub(crate) fn add_to(&self, f: &mut Filter) {
        f.lfd_known = self.lfd_known.or(f.lfd_known);
        f.lfd_start_us = latest(f.lfd_start_us, self.lfd.start_us);
        f.lfd_end_us = earliest(f.lfd_end_us, self.lfd.end_us);
        f.updated_start_us = latest(f.updated_start_us, self.updated.start_us);
        f.updated_end_us = earliest(f.updated_end_us, self.updated.end_us);
        f.customer_known = self.customer_known.or(f.customer_known);
        f.dates.extend(self.dates.iter().cloned());
        f.texts.extend(self.texts.iter().cloned());
        f.tags.extend(self.tags.iter().cloned());
        f.tags_all |= self.tags_all;
        f.has_fees = self.has_fees.or(f.has_fees);
        f.has_fees_or_holds = self.has_fees_or_holds.or(f.has_fees_or_holds);
        if let Some(ids) = &self.ids {
            f.ids = Some(ids.clone());
        }
    }
}
