//! Custom fields: an account defines its own fields (a definition per entity type: its
//! `api_slug`, `data_type`, options for enums) and sets values on its shipments, containers
//! and tracking requests. Pure: which definitions and values are valid, and how a value reads.

use serde_json::{Value, json};

/// What a definition applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EntityType {
    /// Shipments.
    Shipment,
    /// Containers.
    Container,
    /// Tracking requests.
    TrackingRequest,
}

impl EntityType {
    /// Every entity type.
    pub const ALL: [EntityType; 3] = [
        EntityType::Shipment,
        EntityType::Container,
        EntityType::TrackingRequest,
    ];

    /// The name in a definition (`Shipment`).
    pub fn as_str(self) -> &'static str {
        match self {
            EntityType::Shipment => "Shipment",
            EntityType::Container => "Container",
            EntityType::TrackingRequest => "TrackingRequest",
        }
    }

    /// The JSON:API resource type (`shipment`).
    pub fn resource_type(self) -> &'static str {
        match self {
            EntityType::Shipment => "shipment",
            EntityType::Container => "container",
            EntityType::TrackingRequest => "tracking_request",
        }
    }

    /// Parses either spelling (`Shipment` or `shipment`, `TrackingRequest` or
    /// `tracking_request`).
    pub fn parse(s: &str) -> Option<EntityType> {
        EntityType::ALL
            .into_iter()
            .find(|e| e.as_str() == s || e.resource_type() == s)
    }
}

/// The type of a field's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DataType {
    /// Text up to 1 000 characters (or `validation.max_length`).
    ShortText,
    /// A finite number (within `validation.min` / `validation.max`).
    Number,
    /// A calendar date, `YYYY-MM-DD`.
    Date,
    /// An instant, RFC 3339; stored in UTC.
    Datetime,
    /// `true` or `false`.
    Boolean,
    /// One option's value.
    Enum,
    /// Several options' values.
    EnumMulti,
    /// A resource of the account: `{"type": …, "id": …}`.
    Reference,
}

impl DataType {
    /// Every data type.
    pub const ALL: [DataType; 8] = [
        DataType::ShortText,
        DataType::Number,
        DataType::Date,
        DataType::Datetime,
        DataType::Boolean,
        DataType::Enum,
        DataType::EnumMulti,
        DataType::Reference,
    ];

    /// The name (`short_text`).
    pub fn as_str(self) -> &'static str {
        match self {
            DataType::ShortText => "short_text",
            DataType::Number => "number",
            DataType::Date => "date",
            DataType::Datetime => "datetime",
            DataType::Boolean => "boolean",
            DataType::Enum => "enum",
            DataType::EnumMulti => "enum_multi",
            DataType::Reference => "reference",
        }
    }

    /// Parses a name.
    pub fn parse(s: &str) -> Option<DataType> {
        DataType::ALL.into_iter().find(|d| d.as_str() == s)
    }

    /// Whether values come from the definition's options.
    pub fn has_options(self) -> bool {
        matches!(self, DataType::Enum | DataType::EnumMulti)
    }
}

/// Resource types a `reference` field may point at.
pub const REFERENCE_TYPES: &[&str] = &["shipment", "container", "tracking_request", "party"];

/// Whether `slug` is a valid `api_slug`: a lower-case letter, then lower-case letters, digits
/// and underscores, 64 characters at most.
pub fn valid_slug(slug: &str) -> bool {
    let mut chars = slug.chars();
    slug.len() <= 64
        && chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// Checks a definition's `validation` object for its data type; `null` means none.
pub fn check_validation(data_type: DataType, v: &Value) -> Result<(), String> {
    let Some(obj) = v.as_object() else {
        return if v.is_null() {
            Ok(())
        } else {
            Err("validation must be an object or null".into())
        };
    };
    for (k, val) in obj {
        let ok = match (data_type, k.as_str()) {
            (DataType::ShortText, "max_length") => {
                val.as_u64().is_some_and(|n| (1..=10_000).contains(&n))
            }
            (DataType::Number, "min" | "max") => val.as_f64().is_some_and(f64::is_finite),
            (_, "required") => val.is_boolean(),
            _ => false,
        };
        if !ok {
            return Err(format!(
                "validation.{k} is not a rule for {} fields (short_text: max_length; number: min, max; any: required)",
                data_type.as_str()
            ));
        }
    }
    Ok(())
}

/// What a value is checked against: the definition's type, validation and option values.
#[derive(Debug, Clone, PartialEq)]
pub struct Rules<'a> {
    /// Data type.
    pub data_type: DataType,
    /// The `validation` object (or null).
    pub validation: &'a Value,
    /// Option values (enums).
    pub options: &'a [String],
    /// For references: the resource type they must point at, when restricted.
    pub reference_type: Option<&'a str>,
}

/// Checks a value and returns it as stored (`datetime` in UTC, `enum_multi` without
/// repeats). `null` is accepted unless `validation.required` is true.
pub fn check_value(rules: &Rules<'_>, value: &Value) -> Result<Value, String> {
    if value.is_null() {
        return if rules.validation["required"] == json!(true) {
            Err("value is required".into())
        } else {
            Ok(Value::Null)
        };
    }
    let t = rules.data_type.as_str();
    let wrong = || format!("value must be a {t} value");
    match rules.data_type {
        DataType::ShortText => {
            let s = value.as_str().ok_or_else(wrong)?;
            let max = rules.validation["max_length"].as_u64().unwrap_or(1000);
            if s.chars().count() as u64 > max {
                return Err(format!("value must be at most {max} characters"));
            }
            Ok(json!(s))
        }
        DataType::Number => {
            let n = value.as_f64().filter(|n| n.is_finite()).ok_or_else(wrong)?;
            if let Some(min) = rules.validation["min"].as_f64()
                && n < min
            {
                return Err(format!("value must be at least {min}"));
            }
            if let Some(max) = rules.validation["max"].as_f64()
                && n > max
            {
                return Err(format!("value must be at most {max}"));
            }
            Ok(value.clone())
        }
        DataType::Date => {
            let s = value.as_str().ok_or_else(wrong)?;
            let d: jiff::civil::Date = s
                .parse()
                .map_err(|_| format!("value must be a date as YYYY-MM-DD, not {s:?}"))?;
            Ok(json!(d.to_string()))
        }
        DataType::Datetime => {
            let s = value.as_str().ok_or_else(wrong)?;
            let ts: jiff::Timestamp = s.parse().map_err(|_| {
                format!("value must be an RFC 3339 date and time with an offset, not {s:?}")
            })?;
            Ok(json!(ts.to_string()))
        }
        DataType::Boolean => value.as_bool().map(Value::Bool).ok_or_else(wrong),
        DataType::Enum => {
            let s = value.as_str().ok_or_else(wrong)?;
            if rules.options.iter().any(|o| o == s) {
                Ok(json!(s))
            } else {
                Err(format!(
                    "value {s:?} is not one of the options ({})",
                    rules.options.join(", ")
                ))
            }
        }
        DataType::EnumMulti => {
            let items = value
                .as_array()
                .ok_or_else(|| "value must be an array of option values".to_string())?;
            let mut out: Vec<String> = Vec::new();
            for i in items {
                let s = i
                    .as_str()
                    .ok_or_else(|| "value must be an array of option values".to_string())?;
                if !rules.options.iter().any(|o| o == s) {
                    return Err(format!(
                        "value {s:?} is not one of the options ({})",
                        rules.options.join(", ")
                    ));
                }
                if !out.iter().any(|o| o == s) {
                    out.push(s.to_string());
                }
            }
            Ok(json!(out))
        }
        DataType::Reference => {
            let kind = value["type"].as_str().unwrap_or_default();
            let id = value["id"].as_str().unwrap_or_default();
            if !REFERENCE_TYPES.contains(&kind) || uuid_shaped(id).is_none() {
                return Err(format!(
                    "value must be {{\"type\": one of {}, \"id\": a UUID}}",
                    REFERENCE_TYPES.join(", ")
                ));
            }
            if let Some(want) = rules.reference_type
                && want != kind
            {
                return Err(format!("value must reference a {want}"));
            }
            Ok(json!({"type": kind, "id": uuid_shaped(id)}))
        }
    }
}

/// `s` lower-cased if it has the shape of a UUID (8-4-4-4-12 hex digits).
fn uuid_shaped(s: &str) -> Option<String> {
    let parts: Vec<&str> = s.split('-').collect();
    let lens = [8, 4, 4, 4, 12];
    (parts.len() == 5
        && parts
            .iter()
            .zip(lens)
            .all(|(p, n)| p.len() == n && p.bytes().all(|b| b.is_ascii_hexdigit())))
    .then(|| s.to_ascii_lowercase())
}

/// The value as a person reads it: an option's label for enums (labels joined by ", " for
/// several), Yes/No, the number or text itself; `None` for no value.
pub fn display_value(
    data_type: DataType,
    value: &Value,
    options: &[(String, String)],
) -> Option<String> {
    let label = |v: &str| {
        options
            .iter()
            .find(|(value, _)| value == v)
            .map_or_else(|| v.to_string(), |(_, l)| l.clone())
    };
    match (data_type, value) {
        (_, Value::Null) => None,
        (DataType::Boolean, Value::Bool(b)) => Some(if *b { "Yes" } else { "No" }.into()),
        (DataType::Enum, Value::String(s)) => Some(label(s)),
        (DataType::EnumMulti, Value::Array(items)) => Some(
            items
                .iter()
                .filter_map(Value::as_str)
                .map(label)
                .collect::<Vec<_>>()
                .join(", "),
        ),
        (DataType::Reference, v) => Some(format!(
            "{} {}",
            v["type"].as_str().unwrap_or_default(),
            v["id"].as_str().unwrap_or_default()
        )),
        (_, Value::String(s)) => Some(s.clone()),
        (_, v) => Some(v.to_string()),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use proptest::prelude::*;

    fn rules(
        data_type: DataType,
        validation: &Value,
        options: &'static [String],
    ) -> Rules<'static> {
        Rules {
            data_type,
            validation: Box::leak(Box::new(validation.clone())),
            options,
            reference_type: None,
        }
    }

    #[test]
    fn names_parse_both_ways() {
        for e in EntityType::ALL {
            assert_eq!(EntityType::parse(e.as_str()), Some(e));
            assert_eq!(EntityType::parse(e.resource_type()), Some(e));
        }
        for d in DataType::ALL {
            assert_eq!(DataType::parse(d.as_str()), Some(d));
        }
        assert!(EntityType::parse("Vessel").is_none() && DataType::parse("text").is_none());
        assert!(
            valid_slug("po_number_2") && !valid_slug("PO") && !valid_slug("2x") && !valid_slug("")
        );
    }

    #[test]
    fn values_are_checked_and_normalised_per_type() {
        let none = Value::Null;
        let r = |d| rules(d, &none, &[]);
        assert_eq!(
            check_value(&r(DataType::ShortText), &json!("abc")),
            Ok(json!("abc"))
        );
        assert!(check_value(&r(DataType::ShortText), &json!(5)).is_err());
        assert_eq!(
            check_value(&r(DataType::Number), &json!(2.5)),
            Ok(json!(2.5))
        );
        assert!(check_value(&r(DataType::Number), &json!("2.5")).is_err());
        assert_eq!(
            check_value(&r(DataType::Date), &json!("2026-02-28")),
            Ok(json!("2026-02-28"))
        );
        assert!(check_value(&r(DataType::Date), &json!("2026-02-30")).is_err());
        assert_eq!(
            check_value(&r(DataType::Datetime), &json!("2026-03-01T10:00:00+02:00")),
            Ok(json!("2026-03-01T08:00:00Z"))
        );
        assert!(check_value(&r(DataType::Datetime), &json!("2026-03-01 10:00")).is_err());
        assert_eq!(
            check_value(&r(DataType::Boolean), &json!(true)),
            Ok(json!(true))
        );
        assert_eq!(
            check_value(&r(DataType::Boolean), &Value::Null),
            Ok(Value::Null)
        );
        let id = "6F9619FF-8B86-D011-B42D-00C04FC964FF";
        assert_eq!(
            check_value(&r(DataType::Reference), &json!({"type": "party", "id": id})),
            Ok(json!({"type": "party", "id": id.to_lowercase()}))
        );
        let only_shipments = Rules {
            reference_type: Some("shipment"),
            ..r(DataType::Reference)
        };
        assert!(check_value(&only_shipments, &json!({"type": "party", "id": id})).is_err());
        assert!(
            check_value(
                &r(DataType::Reference),
                &json!({"type": "party", "id": "x"})
            )
            .is_err()
        );
    }

    #[test]
    fn enums_take_option_values_and_read_as_labels() {
        static OPTS: std::sync::LazyLock<Vec<String>> =
            std::sync::LazyLock::new(|| vec!["hot".into(), "cold".into()]);
        let none = Value::Null;
        let one = rules(DataType::Enum, &none, &OPTS);
        assert_eq!(check_value(&one, &json!("hot")), Ok(json!("hot")));
        assert!(check_value(&one, &json!("warm")).is_err());
        let many = rules(DataType::EnumMulti, &none, &OPTS);
        assert_eq!(
            check_value(&many, &json!(["cold", "hot", "cold"])),
            Ok(json!(["cold", "hot"]))
        );
        assert!(check_value(&many, &json!("hot")).is_err());
        let labels = vec![
            ("hot".to_string(), "Hot".to_string()),
            ("cold".to_string(), "Cold".to_string()),
        ];
        assert_eq!(
            display_value(DataType::EnumMulti, &json!(["cold", "hot"]), &labels).unwrap(),
            "Cold, Hot"
        );
        assert_eq!(
            display_value(DataType::Boolean, &json!(false), &[]).unwrap(),
            "No"
        );
        assert_eq!(
            display_value(DataType::Number, &json!(3), &[]).unwrap(),
            "3"
        );
        assert_eq!(display_value(DataType::ShortText, &Value::Null, &[]), None);
    }

    #[test]
    fn validation_rules_apply() {
        let v = json!({"max_length": 3, "required": true});
        assert_eq!(check_validation(DataType::ShortText, &v), Ok(()));
        let r = rules(DataType::ShortText, &v, &[]);
        assert!(check_value(&r, &json!("abcd")).is_err());
        assert!(check_value(&r, &Value::Null).is_err());
        let n = json!({"min": 0, "max": 10});
        let r = rules(DataType::Number, &n, &[]);
        assert!(check_value(&r, &json!(-1)).is_err() && check_value(&r, &json!(11)).is_err());
        assert!(check_validation(DataType::Number, &json!({"max_length": 3})).is_err());
        assert!(check_validation(DataType::Date, &json!([])).is_err());
    }

    proptest! {
        #[test]
        fn checked_values_check_again_unchanged(s in ".{0,40}", n in -1e9f64..1e9, b: bool) {
            let none = Value::Null;
            for (d, v) in [(DataType::ShortText, json!(s)), (DataType::Number, json!(n)), (DataType::Boolean, json!(b))] {
                let r = rules(d, &none, &[]);
                let once = check_value(&r, &v).unwrap();
                prop_assert_eq!(check_value(&r, &once).unwrap(), once);
            }
        }
    }
}
