//! API keys: their shape, generation and the digest that is stored instead of the key.
//!
//! A key looks like `btk_` followed by 48 lowercase hex digits (24 random bytes). Only the
//! SHA-256 digest of the whole key is stored; a lookup is one indexed equality. A short hint
//! (the prefix and the first 6 random digits) is kept so users can tell keys apart.
//!
//! Publishable keys ([`PublishableKey`], `btp_…`) are a second kind with a prefix of their
//! own: they go into web pages for the embeddable map and widget, are stored in a table of
//! their own, and can never be mistaken for a secret key (their prefix fails
//! [`ApiKey::parse`]).

use rand::RngCore;
use sha2::{Digest, Sha256};

/// The fixed prefix of every key; lets secret scanners recognise leaked keys.
pub const PREFIX: &str = "btk_";
const RANDOM_HEX_LEN: usize = 48;

/// A plaintext API key, as shown once to its owner.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ApiKey({}…)", self.hint())
    }
}

/// Why a presented credential is not even shaped like a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum MalformedKey {
    /// The prefix is missing.
    #[error("keys of this kind start with {0}")]
    Prefix(&'static str),
    /// Wrong length or characters after the prefix.
    #[error("keys of this kind are {0} followed by 48 hexadecimal digits")]
    Body(&'static str),
}

/// `prefix` and 48 random lowercase hex digits.
fn generate_with(prefix: &str) -> String {
    let mut bytes = [0u8; RANDOM_HEX_LEN / 2];
    rand::rng().fill_bytes(&mut bytes);
    format!("{prefix}{}", hex::encode(bytes))
}

/// Checks that `s` is `prefix` and 48 lowercase hex digits.
fn check_shape(s: &str, prefix: &'static str) -> Result<(), MalformedKey> {
    let body = s.strip_prefix(prefix).ok_or(MalformedKey::Prefix(prefix))?;
    if body.len() != RANDOM_HEX_LEN
        || !body
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    {
        return Err(MalformedKey::Body(prefix));
    }
    Ok(())
}

/// Lowercase hex SHA-256 of `s`.
fn sha256_hex(s: &str) -> String {
    // every authenticated request digests its key: byte by byte from a table, not through
    // `hex::encode`'s iterator of chars (about a tenth of the instructions)
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let digest = Sha256::digest(s.as_bytes());
    let mut out = String::with_capacity(digest.len() * 2);
    for b in digest {
        out.push(char::from(HEX[usize::from(b >> 4)]));
        out.push(char::from(HEX[usize::from(b & 0x0f)]));
    }
    out
}

/// The prefix and the first 6 random digits, then an ellipsis.
fn hint_of(s: &str, prefix: &str) -> String {
    let end = (prefix.len() + 6).min(s.len());
    format!("{}…", &s[..end])
}

impl ApiKey {
    /// A fresh random key from the operating system's generator.
    pub fn generate() -> ApiKey {
        ApiKey(generate_with(PREFIX))
    }

    /// Checks the shape of a presented key (no lookup).
    pub fn parse(s: &str) -> Result<ApiKey, MalformedKey> {
        check_shape(s, PREFIX)?;
        Ok(ApiKey(s.to_string()))
    }

    /// The plaintext; show it once, never log it.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// The stored digest: lowercase hex SHA-256 of the whole key.
    pub fn digest(&self) -> String {
        sha256_hex(&self.0)
    }

    /// A short, non-secret hint such as `btk_3fa9c1…`.
    pub fn hint(&self) -> String {
        hint_of(&self.0, PREFIX)
    }
}

/// The prefix of every publishable key.
pub const PUBLISHABLE_PREFIX: &str = "btp_";

/// A publishable key: it goes into web pages for the embeddable map and widget, so it is not
/// a secret in the way an [`ApiKey`] is; what it can read is limited to those two endpoints,
/// the issuing account's data and (optionally) listed origins. Stored as a digest all the
/// same, so a database leak does not hand out working keys.
#[derive(Clone, PartialEq, Eq)]
pub struct PublishableKey(String);

impl std::fmt::Debug for PublishableKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PublishableKey({}…)", self.hint())
    }
}

impl PublishableKey {
    /// A fresh random key.
    pub fn generate() -> PublishableKey {
        PublishableKey(generate_with(PUBLISHABLE_PREFIX))
    }

    /// Checks the shape of a presented key (no lookup).
    pub fn parse(s: &str) -> Result<PublishableKey, MalformedKey> {
        check_shape(s, PUBLISHABLE_PREFIX)?;
        Ok(PublishableKey(s.to_string()))
    }

    /// The plaintext.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// The stored digest: lowercase hex SHA-256 of the whole key.
    pub fn digest(&self) -> String {
        sha256_hex(&self.0)
    }

    /// A short hint such as `btp_3fa9c1…`.
    pub fn hint(&self) -> String {
        hint_of(&self.0, PUBLISHABLE_PREFIX)
    }
}

/// Why an origin given for a publishable key is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{0:?} is not an origin: give a scheme, a host and an optional port, such as https://shop.example.com or http://localhost:8080, without a path"
)]
pub struct BadOrigin(pub String);

/// The most origins one publishable key lists.
pub const MAX_ORIGINS: usize = 20;

/// The allowed origins of a publishable key as given (each normalized, repeats dropped), or
/// why they cannot be: the first that is not an origin, or more than [`MAX_ORIGINS`].
pub fn normalize_origins<'a>(
    given: impl IntoIterator<Item = &'a str>,
) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = Vec::new();
    for part in given {
        let o = normalize_origin(part).map_err(|e| e.to_string())?;
        if !out.contains(&o) {
            out.push(o);
        }
    }
    if out.len() > MAX_ORIGINS {
        return Err(format!("At most {MAX_ORIGINS} origins per key."));
    }
    Ok(out)
}

/// Normalizes one allowed origin of a publishable key (`https://Example.com/` →
/// `https://example.com`): `http` or `https`, a host, an optional port, nothing else.
pub fn normalize_origin(s: &str) -> Result<String, BadOrigin> {
    let bad = || BadOrigin(s.to_string());
    let t = s.trim().trim_end_matches('/');
    let (scheme, rest) = t.split_once("://").ok_or_else(bad)?;
    let scheme = scheme.to_ascii_lowercase();
    if scheme != "http" && scheme != "https" {
        return Err(bad());
    }
    let rest = rest.to_ascii_lowercase();
    // hosts are names or IPv4 addresses (no IPv6 literals)
    let (host, port) = match rest.split_once(':') {
        Some((h, p)) => (h, Some(p)),
        None => (rest.as_str(), None),
    };
    let host_ok = !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-');
    let port_ok =
        port.is_none_or(|p| !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit()));
    if !host_ok || !port_ok {
        return Err(bad());
    }
    Ok(format!("{scheme}://{rest}"))
}

/// Whether a request's `Origin` header may use a key that lists `allowed` (an empty list
/// allows every origin). Origins compare after [`normalize_origin`].
pub fn origin_allowed(allowed: &[String], origin: Option<&str>) -> bool {
    if allowed.is_empty() {
        return true;
    }
    let Some(origin) = origin.and_then(|o| normalize_origin(o).ok()) else {
        return false;
    };
    allowed.contains(&origin)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_are_lowercase_hex_sha256() {
        // FIPS 180-2's example
        assert_eq!(
            sha256_hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        let key = ApiKey::generate();
        assert_eq!(
            key.digest(),
            hex::encode(Sha256::digest(key.expose().as_bytes()))
        );
    }

    #[test]
    fn generated_keys_parse_and_differ() {
        let a = ApiKey::generate();
        let b = ApiKey::generate();
        assert_ne!(a, b);
        assert_eq!(ApiKey::parse(a.expose()), Ok(a.clone()));
        assert_eq!(a.digest().len(), 64);
        assert_ne!(a.digest(), b.digest());
        assert!(a.hint().starts_with("btk_"));
        assert!(!format!("{a:?}").contains(&a.expose()[10..]));
    }

    #[test]
    fn malformed_keys_are_rejected() {
        assert_eq!(ApiKey::parse("abc"), Err(MalformedKey::Prefix(PREFIX)));
        assert_eq!(ApiKey::parse("btk_123"), Err(MalformedKey::Body(PREFIX)));
        let upper = format!("btk_{}", "A".repeat(48));
        assert_eq!(ApiKey::parse(&upper), Err(MalformedKey::Body(PREFIX)));
    }

    #[test]
    fn publishable_and_secret_keys_never_parse_as_each_other() {
        let p = PublishableKey::generate();
        assert!(p.expose().starts_with("btp_"));
        assert_eq!(PublishableKey::parse(p.expose()), Ok(p.clone()));
        assert!(ApiKey::parse(p.expose()).is_err());
        let k = ApiKey::generate();
        assert!(PublishableKey::parse(k.expose()).is_err());
        assert!(p.hint().starts_with("btp_") && p.hint().len() < 16);
        assert!(!format!("{p:?}").contains(&p.expose()[10..]));
        assert_eq!(p.digest().len(), 64);
    }

    #[test]
    fn origins_normalize_and_match() {
        assert_eq!(
            normalize_origin(" HTTPS://Shop.Example.com/ ").unwrap(),
            "https://shop.example.com"
        );
        assert_eq!(
            normalize_origin("http://localhost:8080").unwrap(),
            "http://localhost:8080"
        );
        for bad in [
            "shop.example.com",
            "ftp://x.com",
            "https://x.com/path",
            "https://",
            "https://x.com:",
            "https://x.com:123456",
            "https://a b.com",
            "https://x.com?q=1",
        ] {
            assert!(normalize_origin(bad).is_err(), "{bad}");
        }
        let allowed = vec!["https://shop.example.com".to_string()];
        assert!(origin_allowed(&allowed, Some("https://shop.example.com")));
        assert!(origin_allowed(&allowed, Some("https://SHOP.example.com")));
        assert!(!origin_allowed(&allowed, Some("https://evil.example.com")));
        assert!(!origin_allowed(&allowed, Some("http://shop.example.com")));
        assert!(!origin_allowed(&allowed, None));
        assert!(origin_allowed(&[], None));
        assert!(origin_allowed(&[], Some("https://any.example")));
    }

    #[test]
    fn digest_is_sha256_of_the_key() {
        let k = ApiKey::parse(&format!("btk_{}", "0".repeat(48))).unwrap();
        assert_eq!(
            k.digest(),
            hex::encode(Sha256::digest(format!("btk_{}", "0".repeat(48))))
        );
    }
}
