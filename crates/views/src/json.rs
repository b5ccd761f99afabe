//! Compact JSON text of response parts, byte for byte what `serde_json::to_string` writes,
//! with a string escaper that looks at eight bytes at a time.
//!
//! A rendered container with its shipment writes some 220 strings (keys included); serde_json
//! escapes each a byte at a time, which was 15% of all the instructions such a request cost.
//! Most of those strings need no escape at all: here a word of eight bytes is checked at
//! once for a quote, a backslash or a control character, and a clean string is copied whole
//! (one with escapes goes byte by byte, its runs between escapes copied whole).
//! Numbers use `itoa` (integers) and serde_json itself (floats, rare in responses), so the
//! text is the same as serde_json's; the property tests below hold it so.

use std::fmt;

use serde::Serialize;
use serde::ser::{self, Impossible};

/// Why a value could not be written (a map key that is not a string or a number, a
/// serializer's own error, or a type written only by serde_json, such as its raw values).
#[derive(Debug)]
pub struct Error(String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error(msg.to_string())
    }
}

/// `value` as compact JSON text.
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> Result<String, Error> {
    let mut w = Writer {
        out: Vec::with_capacity(256),
    };
    value.serialize(&mut w)?;
    // only whole UTF-8 strings and ASCII punctuation were written
    String::from_utf8(w.out).map_err(|e| Error(e.to_string()))
}

/// Where the text goes.
struct Writer {
    out: Vec<u8>,
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Whether any byte of `w` is a control character (below 0x20), `"` or `\`: the exact
/// zero-byte and less-than tests on a word (a byte of 0x80 or above is never taken).
#[inline]
fn needs_escape(w: u64) -> bool {
    let control = w.wrapping_sub(ONES * 0x20) & !w & HIGHS;
    control | bytes_equal(w, b'"') | bytes_equal(w, b'\\') != 0
}

/// Whether any byte of `bytes` needs an escape: a word at a time, the last word ending at
/// the string's end (overlapping the one before it); a string shorter than a word byte by
/// byte.
#[inline]
fn any_escape(bytes: &[u8]) -> bool {
    let n = bytes.len();
    if n < 8 {
        return bytes.iter().any(|&b| escaped(b));
    }
    let word = |at: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&bytes[at..at + 8]);
        u64::from_le_bytes(w)
    };
    let mut at = 0;
    while at + 8 < n {
        if needs_escape(word(at)) {
            return true;
        }
        at += 8;
    }
    needs_escape(word(n - 8))
}

/// The bytes of `w` equal to `b`, each marked by its high bit: exact for the first (lowest)
/// such byte (a byte above it may be marked falsely), so whether there is one and where the
/// first is are exact, which is all [`needs_escape`] and [`quote_or_backslash`] take of it.
#[inline]
fn bytes_equal(w: u64, b: u8) -> u64 {
    let x = w ^ (ONES * u64::from(b));
    x.wrapping_sub(ONES) & !x & HIGHS
}

/// Where the first `"` or `\` of `bytes` at or after `from` is: a word at a time (the
/// strings of a stored text are short, too short for a vectorised search to pay off).
pub(crate) fn quote_or_backslash(bytes: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    while let Some(chunk) = bytes.get(at..at + 8) {
        let mut w = [0u8; 8];
        w.copy_from_slice(chunk);
        let w = u64::from_le_bytes(w);
        let hits = bytes_equal(w, b'"') | bytes_equal(w, b'\\');
        if hits != 0 {
            return Some(at + hits.trailing_zeros() as usize / 8);
        }
        at += 8;
    }
    let rest = bytes.get(at..)?;
    rest.iter()
        .position(|&b| b == b'"' || b == b'\\')
        .map(|p| at + p)
}

/// Whether JSON text writes `b` escaped.
#[inline]
fn escaped(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

const HEX: &[u8; 16] = b"0123456789abcdef";

impl Writer {
    /// `s` as a JSON string, escaped as serde_json escapes it.
    fn string(&mut self, s: &str) {
        let bytes = s.as_bytes();
        self.out.reserve(bytes.len() + 2);
        self.out.push(b'"');
        if any_escape(bytes) {
            self.write_escaped(bytes);
        } else {
            self.out.extend_from_slice(bytes);
        }
        self.out.push(b'"');
    }

    /// The string's bytes, the runs between escapes copied whole.
    fn write_escaped(&mut self, bytes: &[u8]) {
        let mut run = 0;
        for (i, &b) in bytes.iter().enumerate() {
            if !escaped(b) {
                continue;
            }
            self.out.extend_from_slice(&bytes[run..i]);
            run = i + 1;
            match b {
                b'"' => self.out.extend_from_slice(b"\\\""),
                b'\\' => self.out.extend_from_slice(b"\\\\"),
                b'\n' => self.out.extend_from_slice(b"\\n"),
                b'\r' => self.out.extend_from_slice(b"\\r"),
                b'\t' => self.out.extend_from_slice(b"\\t"),
                0x08 => self.out.extend_from_slice(b"\\b"),
                0x0c => self.out.extend_from_slice(b"\\f"),
                _ => self.out.extend_from_slice(&[
                    b'\\',
                    b'u',
                    b'0',
                    b'0',
                    HEX[usize::from(b >> 4)],
                    HEX[usize::from(b & 0xf)],
                ]),
            }
        }
        self.out.extend_from_slice(&bytes[run..]);
    }

    fn integer(&mut self, n: impl itoa::Integer) {
        self.out
            .extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
    }

    fn number(&mut self, n: impl itoa::Integer) -> Result<(), Error> {
        self.integer(n);
        Ok(())
    }

    /// A value only serde_json writes (floats): its text, appended.
    fn by_serde_json<T: Serialize>(&mut self, v: T) -> Result<(), Error> {
        serde_json::to_writer(&mut self.out, &v).map_err(|e| Error(e.to_string()))
    }
}

/// A sequence, map or struct being written; `close` ends it (`]`, `}`, or `]}` / `}}` for
/// an enum variant's).
struct Compound<'a> {
    w: &'a mut Writer,
    first: bool,
    close: &'static [u8],
}

impl Compound<'_> {
    fn comma(&mut self) {
        if self.first {
            self.first = false;
        } else {
            self.w.out.push(b',');
        }
    }

    fn finish(self) {
        self.w.out.extend_from_slice(self.close);
    }

    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.comma();
        value.serialize(&mut *self.w)
    }

    fn field<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<(), Error> {
        self.comma();
        self.w.string(key);
        self.w.out.push(b':');
        value.serialize(&mut *self.w)
    }
}

/// The serializer methods of the integer types, each a call of `$via` with the value.
macro_rules! integers {
    ($via:ident) => {
        integers!($via: serialize_i8 i8, serialize_i16 i16, serialize_i32 i32, serialize_i64 i64,
            serialize_i128 i128, serialize_u8 u8, serialize_u16 u16, serialize_u32 u32,
            serialize_u64 u64, serialize_u128 u128);
    };
    ($via:ident: $($method:ident $t:ty),*) => {
        $(fn $method(self, v: $t) -> Result<(), Error> {
            self.$via(v)
        })*
    };
}

impl<'a> ser::Serializer for &'a mut Writer {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'a>;
    type SerializeTuple = Compound<'a>;
    type SerializeTupleStruct = Compound<'a>;
    type SerializeTupleVariant = Compound<'a>;
    type SerializeMap = Compound<'a>;
    type SerializeStruct = Compound<'a>;
    type SerializeStructVariant = Compound<'a>;

    integers!(number);

    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        self.out
            .extend_from_slice(if v { b"true" } else { b"false" });
        Ok(())
    }
    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        self.by_serde_json(v)
    }
    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        self.by_serde_json(v)
    }
    fn serialize_char(self, v: char) -> Result<(), Error> {
        self.string(v.encode_utf8(&mut [0u8; 4]));
        Ok(())
    }
    fn serialize_str(self, v: &str) -> Result<(), Error> {
        self.string(v);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Error> {
        use ser::SerializeSeq;
        let mut seq = self.serialize_seq(Some(v.len()))?;
        for b in v {
            seq.serialize_element(b)?;
        }
        seq.end()
    }
    fn serialize_none(self) -> Result<(), Error> {
        self.out.extend_from_slice(b"null");
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Error> {
        self.serialize_none()
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Error> {
        self.serialize_none()
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        self.string(variant);
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.out.push(b'{');
        self.string(variant);
        self.out.push(b':');
        value.serialize(&mut *self)?;
        self.out.push(b'}');
        Ok(())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Compound<'a>, Error> {
        self.out.push(b'[');
        Ok(Compound {
            w: self,
            first: true,
            close: b"]",
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<Compound<'a>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<Compound<'a>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a>, Error> {
        self.out.push(b'{');
        self.string(variant);
        self.out.extend_from_slice(b":[");
        Ok(Compound {
            w: self,
            first: true,
            close: b"]}",
        })
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Compound<'a>, Error> {
        self.out.push(b'{');
        Ok(Compound {
            w: self,
            first: true,
            close: b"}",
        })
    }
    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Compound<'a>, Error> {
        if name.starts_with("$serde_json::") {
            // serde_json's private tokens (its raw values, arbitrary-precision numbers)
            return Err(Error(format!("{name} is written by serde_json only")));
        }
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a>, Error> {
        self.out.push(b'{');
        self.string(variant);
        self.out.extend_from_slice(b":{");
        Ok(Compound {
            w: self,
            first: true,
            close: b"}}",
        })
    }
}

/// The serde traits of the sequences (an element at a time) and of the structs (a named
/// field at a time) a [`Compound`] writes.
macro_rules! compound {
    ($($trait:ident: $method:ident),*) => {$(
        impl ser::$trait for Compound<'_> {
            type Ok = ();
            type Error = Error;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
                self.element(value)
            }
            fn end(self) -> Result<(), Error> {
                self.finish();
                Ok(())
            }
        }
    )*};
    ($($trait:ident),* ; named) => {$(
        impl ser::$trait for Compound<'_> {
            type Ok = ();
            type Error = Error;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<(), Error> {
                self.field(key, value)
            }
            fn end(self) -> Result<(), Error> {
                self.finish();
                Ok(())
            }
        }
    )*};
}

compound!(
    SerializeSeq: serialize_element,
    SerializeTuple: serialize_element,
    SerializeTupleStruct: serialize_field,
    SerializeTupleVariant: serialize_field
);
compound!(SerializeStruct, SerializeStructVariant; named);

impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.comma();
        key.serialize(KeyWriter(&mut *self.w))?;
        self.w.out.push(b':');
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        value.serialize(&mut *self.w)
    }
    fn end(self) -> Result<(), Error> {
        self.finish();
        Ok(())
    }
}

/// A map key: JSON keys are strings, so strings and unit variants are written as they are
/// and integers, booleans and characters quoted, as serde_json does; anything else is an
/// error.
struct KeyWriter<'a>(&'a mut Writer);

fn key_error() -> Error {
    Error("a map key must be a string, a number or a unit variant".into())
}

impl KeyWriter<'_> {
    fn quoted(self, n: impl itoa::Integer) -> Result<(), Error> {
        self.0.out.push(b'"');
        self.0.integer(n);
        self.0.out.push(b'"');
        Ok(())
    }
}

impl ser::Serializer for KeyWriter<'_> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    integers!(quoted);

    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        self.0
            .out
            .extend_from_slice(if v { b"\"true\"" } else { b"\"false\"" });
        Ok(())
    }
    fn serialize_f32(self, _v: f32) -> Result<(), Error> {
        Err(key_error())
    }
    fn serialize_f64(self, _v: f64) -> Result<(), Error> {
        Err(key_error())
    }
    fn serialize_char(self, v: char) -> Result<(), Error> {
        self.0.string(v.encode_utf8(&mut [0u8; 4]));
        Ok(())
    }
    fn serialize_str(self, v: &str) -> Result<(), Error> {
        self.0.string(v);
        Ok(())
    }
    fn serialize_bytes(self, _v: &[u8]) -> Result<(), Error> {
        Err(key_error())
    }
    fn serialize_none(self) -> Result<(), Error> {
        Err(key_error())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _value: &T) -> Result<(), Error> {
        Err(key_error())
    }
    fn serialize_unit(self) -> Result<(), Error> {
        Err(key_error())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Error> {
        Err(key_error())
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        self.0.string(variant);
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<(), Error> {
        Err(key_error())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        Err(key_error())
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, Error> {
        Err(key_error())
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct, Error> {
        Err(key_error())
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(key_error())
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, Error> {
        Err(key_error())
    }
    fn serialize_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStruct, Error> {
        Err(key_error())
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(key_error())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::{Value, json};
    use std::collections::BTreeMap;

    proptest! {
        #[test]
        fn the_first_quote_or_backslash_is_found(text in "[a-z\"\\\\é]{0,40}", from in 0usize..44) {
            let bytes = text.as_bytes();
            let naive = bytes
                .iter()
                .enumerate()
                .skip(from)
                .find(|(_, b)| **b == b'"' || **b == b'\\')
                .map(|(i, _)| i);
            prop_assert_eq!(quote_or_backslash(bytes, from), naive);
        }
    }

    fn same<T: Serialize + ?Sized>(v: &T) {
        let ours = to_string(v).unwrap_or_else(|e| panic!("ours failed: {e}"));
        let theirs = serde_json::to_string(v).unwrap_or_else(|e| panic!("serde_json failed: {e}"));
        assert_eq!(ours, theirs);
    }

    #[test]
    fn every_escape_is_written_as_serde_json_writes_it() {
        let all: String = (0u8..0x80).map(char::from).collect();
        same(&all);
        same("a\"b\\c\nd\re\tf\u{8}g\u{c}h\u{1f}i\u{7f}j");
        same("no escapes but longer than a word of eight bytes, twice over");
        same("ünïcødé, 漢字 and 🚢 beside \"quotes\"");
        same("");
        same("\"");
        same("12345678\"");
        same("1234567\\");
    }

    #[derive(Serialize)]
    enum Kind {
        Unit,
        Newtype(u8),
        Tuple(i32, String),
        Struct { a: Option<bool>, b: f64 },
    }

    #[derive(Serialize)]
    struct Typed {
        #[serde(rename = "type")]
        kind: &'static str,
        kinds: Vec<Kind>,
        #[serde(skip_serializing_if = "Option::is_none")]
        skipped: Option<u8>,
        by_number: BTreeMap<u32, char>,
        by_flag: BTreeMap<bool, ()>,
        unit: (),
        tuple: (i128, u128, f32),
        bytes: &'static [u8],
    }

    #[test]
    fn every_shape_serde_can_describe_is_written_alike() {
        same(&Typed {
            kind: "containers",
            kinds: vec![
                Kind::Unit,
                Kind::Newtype(7),
                Kind::Tuple(-3, "x".into()),
                Kind::Struct { a: None, b: 1.5 },
                Kind::Struct {
                    a: Some(true),
                    b: f64::NAN,
                },
            ],
            skipped: None,
            by_number: [(1, 'a'), (20, '"')].into_iter().collect(),
            by_flag: [(false, ()), (true, ())].into_iter().collect(),
            unit: (),
            tuple: (i128::MIN, u128::MAX, 0.1),
            bytes: b"ab",
        });
        same(&json!({"a": [1, -2, 3.25, 1e300, null, true, {"b": {}}], "c": []}));
    }

    /// A type serialized as serde_json's private tokens are (its raw values and
    /// arbitrary-precision numbers).
    struct Private;

    impl Serialize for Private {
        fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            use ser::SerializeStruct;
            let mut st = s.serialize_struct("$serde_json::private::RawValue", 1)?;
            st.serialize_field("$serde_json::private::RawValue", "{}")?;
            st.end()
        }
    }

    #[test]
    fn what_only_serde_json_writes_is_an_error_not_wrong_text() {
        assert!(to_string(&Private).is_err());
        assert!(
            to_string(&[((), 1)].into_iter().collect::<BTreeMap<(), u8>>()).is_err(),
            "a key that is not a string"
        );
    }

    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            any::<String>().prop_map(Value::String),
            "[\\x00-\\x7f]{0,40}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 64, 8, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
                prop::collection::btree_map(any::<String>(), inner, 0..8)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn any_value_is_written_as_serde_json_writes_it(v in value()) {
            let ours = to_string(&v).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(ours, serde_json::to_string(&v).map_err(|e| TestCaseError::fail(e.to_string()))?);
        }

        #[test]
        fn a_word_needs_an_escape_exactly_when_one_of_its_bytes_does(w in any::<[u8; 8]>()) {
            prop_assert_eq!(needs_escape(u64::from_le_bytes(w)), w.iter().any(|&b| escaped(b)));
        }

        #[test]
        fn any_string_is_escaped_as_serde_json_escapes_it(s in any::<String>(), t in "[\\x00-\\x7f]{0,64}") {
            prop_assert_eq!(to_string(&s).ok(), serde_json::to_string(&s).ok());
            prop_assert_eq!(to_string(&t).ok(), serde_json::to_string(&t).ok());
        }
    }
}
