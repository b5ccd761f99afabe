//! Typed OpenAPI fragments for what no Rust type of ours describes: the query-string form of
//! a filter, a console form, a page cursor, a link, a media type's body. A [`Schema`] or a
//! [`Param`] is written with builder calls, so a misspelt keyword does not compile, and is
//! turned into the document's JSON at the edge (`Value::from`). Bodies and answers that *are*
//! Rust types take their schema from the type instead ([`schema_of`], [`request_schema_of`]).

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

/// The schema of a request body type as it is read (what deserializing it accepts), inline:
/// request documents describe themselves with the struct the handler deserializes.
pub fn request_schema_of<T: schemars::JsonSchema>() -> Value {
    let mut s = schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .for_deserialize()
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    if let Some(o) = s.as_object_mut() {
        o.remove("title");
    }
    s
}

/// The schema of a response type as it is serialized, inline (no references): the documents
/// that are not resources (search results, source health, reports) describe themselves with
/// the same struct the handler serializes.
pub fn schema_of<T: schemars::JsonSchema>() -> Value {
    let mut s = schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    if let Some(o) = s.as_object_mut() {
        o.remove("title");
    }
    s
}

/// A JSON Schema type name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Type {
    /// Text.
    String,
    /// A whole number.
    Integer,
    /// Any number.
    Number,
    /// `true` or `false`.
    Boolean,
    /// A JSON object.
    Object,
    /// A JSON array.
    Array,
    /// `null`.
    Null,
}

/// One type, or a list of types any of which is admitted.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
enum Types {
    One(Type),
    Many(Vec<Type>),
}

/// A JSON Schema (the subset the document uses), built with the methods below.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Schema {
    #[serde(rename = "$ref", skip_serializing_if = "Option::is_none")]
    reference: Option<String>,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    kind: Option<Types>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    format: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pattern: Option<String>,
    #[serde(rename = "enum", skip_serializing_if = "Option::is_none")]
    words: Option<Vec<Value>>,
    #[serde(rename = "const", skip_serializing_if = "Option::is_none")]
    constant: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    minimum: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    maximum: Option<Value>,
    #[serde(rename = "minLength", skip_serializing_if = "Option::is_none")]
    min_length: Option<u64>,
    #[serde(rename = "maxLength", skip_serializing_if = "Option::is_none")]
    max_length: Option<u64>,
    #[serde(rename = "minItems", skip_serializing_if = "Option::is_none")]
    min_items: Option<u64>,
    #[serde(rename = "maxItems", skip_serializing_if = "Option::is_none")]
    max_items: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    default: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    items: Option<Box<Schema>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    required: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    properties: Option<BTreeMap<String, Schema>>,
    #[serde(rename = "anyOf", skip_serializing_if = "Option::is_none")]
    any_of: Option<Vec<Schema>>,
    #[serde(rename = "oneOf", skip_serializing_if = "Option::is_none")]
    one_of: Option<Vec<Schema>>,
    #[serde(
        rename = "additionalProperties",
        skip_serializing_if = "Option::is_none"
    )]
    additional_properties: Option<bool>,
    /// A Rust type's derived schema ([`Schema::of_type`]).
    #[serde(flatten)]
    derived: serde_json::Map<String, Value>,
}

impl Schema {
    /// Anything (the empty schema).
    pub fn any() -> Schema {
        Schema::default()
    }

    /// A value of this type.
    pub fn of(kind: Type) -> Schema {
        Schema {
            kind: Some(Types::One(kind)),
            ..Schema::default()
        }
    }

    /// The schema of a Rust type as it is serialized ([`schema_of`]).
    pub fn of_type<T: schemars::JsonSchema>() -> Schema {
        Schema::from_value(schema_of::<T>())
    }

    /// A schema written elsewhere as JSON (a document shape the doc module makes).
    pub fn from_value(schema: Value) -> Schema {
        match schema {
            Value::Object(derived) => Schema {
                derived,
                ..Schema::default()
            },
            _ => Schema::default(),
        }
    }

    /// A value of any of these types.
    pub fn of_any(kinds: &[Type]) -> Schema {
        Schema {
            kind: Some(Types::Many(kinds.to_vec())),
            ..Schema::default()
        }
    }

    /// Text.
    pub fn string() -> Schema {
        Schema::of(Type::String)
    }

    /// A whole number.
    pub fn integer() -> Schema {
        Schema::of(Type::Integer)
    }

    /// Any number.
    pub fn number() -> Schema {
        Schema::of(Type::Number)
    }

    /// `true` or `false`.
    pub fn boolean() -> Schema {
        Schema::of(Type::Boolean)
    }

    /// A JSON object (of any members until [`Schema::prop`] names some).
    pub fn object() -> Schema {
        Schema::of(Type::Object)
    }

    /// An array of `items`.
    pub fn array(items: Schema) -> Schema {
        Schema {
            items: Some(Box::new(items)),
            ..Schema::of(Type::Array)
        }
    }

    /// A reference to the document's component schema `name`.
    pub fn component(name: &str) -> Schema {
        Schema {
            reference: Some(format!("#/components/schemas/{name}")),
            ..Schema::default()
        }
    }

    /// A reference to any place in the document (`#/components/schemas/X/properties/y`).
    pub fn at(pointer: &str) -> Schema {
        Schema {
            reference: Some(pointer.into()),
            ..Schema::default()
        }
    }

    /// Text that is exactly `word`.
    pub fn exactly(word: &str) -> Schema {
        Schema::string().constant(word)
    }

    /// An object that has all the members of one of these lists at least
    /// (`anyOf: [{required: […]}, …]`).
    pub fn any_of_required(mut self, lists: &[&[&str]]) -> Schema {
        self.any_of = Some(
            lists
                .iter()
                .map(|names| Schema::any().required(names))
                .collect(),
        );
        self
    }

    /// Any of these schemas.
    pub fn any_of(list: Vec<Schema>) -> Schema {
        Schema {
            any_of: Some(list),
            ..Schema::default()
        }
    }

    /// Exactly one of these schemas.
    pub fn one_of(list: Vec<Schema>) -> Schema {
        Schema {
            one_of: Some(list),
            ..Schema::default()
        }
    }

    /// With this type added to an untyped schema (`{"type": "string", "anyOf": […]}`).
    pub fn typed(mut self, kind: Type) -> Schema {
        self.kind = Some(Types::One(kind));
        self
    }

    /// With a description.
    pub fn describe(mut self, text: impl Into<String>) -> Schema {
        self.description = Some(text.into());
        self
    }

    /// With a format (`uuid`, `date-time`, `uri`, `binary`, …).
    pub fn format(mut self, format: &str) -> Schema {
        self.format = Some(format.into());
        self
    }

    /// Matching a regular expression.
    pub fn pattern(mut self, pattern: impl Into<String>) -> Schema {
        self.pattern = Some(pattern.into());
        self
    }

    /// One of these words.
    pub fn words<W: AsRef<str>>(mut self, words: &[W]) -> Schema {
        self.words = Some(words.iter().map(|w| w.as_ref().into()).collect());
        self
    }

    /// Exactly this value.
    pub fn constant(mut self, value: impl Into<Value>) -> Schema {
        self.constant = Some(value.into());
        self
    }

    /// Between these bounds (inclusive).
    pub fn range(mut self, min: impl Into<Value>, max: impl Into<Value>) -> Schema {
        self.minimum = Some(min.into());
        self.maximum = Some(max.into());
        self
    }

    /// At least this many characters.
    pub fn min_length(mut self, n: u64) -> Schema {
        self.min_length = Some(n);
        self
    }

    /// Between these many items (inclusive; `None`: no upper bound).
    pub fn items_between(mut self, min: u64, max: Option<u64>) -> Schema {
        self.min_items = Some(min);
        self.max_items = max;
        self
    }

    /// At most this many characters.
    pub fn max_length(mut self, n: u64) -> Schema {
        self.max_length = Some(n);
        self
    }

    /// Taken as this value when not given.
    pub fn default_value(mut self, value: impl Into<Value>) -> Schema {
        self.default = Some(value.into());
        self
    }

    /// With a member `name` of schema `s`.
    pub fn prop(mut self, name: &str, s: Schema) -> Schema {
        self.properties
            .get_or_insert_with(BTreeMap::new)
            .insert(name.into(), s);
        self
    }

    /// Saying outright that members other than those named are allowed.
    pub fn open(mut self) -> Schema {
        self.additional_properties = Some(true);
        self
    }

    /// With these members required.
    pub fn required(mut self, names: &[&str]) -> Schema {
        self.required = Some(names.iter().map(|n| (*n).into()).collect());
        self
    }

    /// An object with these members, all required.
    pub fn record(members: &[(&str, Schema)]) -> Schema {
        let names: Vec<&str> = members.iter().map(|(n, _)| *n).collect();
        members
            .iter()
            .fold(Schema::object(), |o, (n, s)| o.prop(n, s.clone()))
            .required(&names)
    }
}

impl From<Schema> for Value {
    fn from(s: Schema) -> Value {
        serde_json::to_value(s).unwrap_or(Value::Null)
    }
}

/// Where a parameter is read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum In {
    /// The query string.
    Query,
    /// A `{name}` segment of the path.
    Path,
    /// A request header.
    Header,
}

/// An operation's parameter.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Param {
    name: String,
    #[serde(rename = "in")]
    at: In,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    required: bool,
    schema: Schema,
    #[serde(skip_serializing_if = "String::is_empty")]
    description: String,
}

impl Param {
    /// An optional query parameter.
    pub fn query(name: impl Into<String>, schema: Schema, description: impl Into<String>) -> Param {
        Param {
            name: name.into(),
            at: In::Query,
            required: false,
            schema,
            description: description.into(),
        }
    }

    /// A path segment (always required).
    pub fn path(name: impl Into<String>, schema: Schema, description: impl Into<String>) -> Param {
        Param {
            name: name.into(),
            at: In::Path,
            required: true,
            schema,
            description: description.into(),
        }
    }

    /// The same parameter, required.
    pub fn required(mut self) -> Param {
        self.required = true;
        self
    }

    /// A request header of text.
    pub fn header(name: &str, required: bool, description: &str) -> Param {
        Param {
            name: name.into(),
            at: In::Header,
            required,
            schema: Schema::string(),
            description: description.into(),
        }
    }
}

impl From<Param> for Value {
    fn from(p: Param) -> Value {
        serde_json::to_value(p).unwrap_or(Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_schema_writes_the_keywords_it_was_given_and_no_others() {
        let s = Schema::record(&[("id", Schema::string().format("uuid"))])
            .prop("n", Schema::integer().range(1, 100).default_value(30));
        assert_eq!(
            Value::from(s),
            json!({"type": "object", "required": ["id"], "properties": {
                "id": {"type": "string", "format": "uuid"},
                "n": {"type": "integer", "minimum": 1, "maximum": 100, "default": 30}}})
        );
        assert_eq!(
            Value::from(Schema::component("Errors")),
            json!({"$ref": "#/components/schemas/Errors"})
        );
        assert_eq!(
            Value::from(Schema::of_any(&[Type::String, Type::Integer])),
            json!({"type": ["string", "integer"]})
        );
    }

    #[test]
    fn a_path_parameter_is_required_and_a_query_parameter_is_not() {
        assert_eq!(
            Value::from(Param::path("id", Schema::string(), "")),
            json!({"name": "id", "in": "path", "required": true, "schema": {"type": "string"}})
        );
        assert_eq!(
            Value::from(Param::query("q", Schema::string(), "what")),
            json!({"name": "q", "in": "query", "schema": {"type": "string"}, "description": "what"})
        );
    }
}
