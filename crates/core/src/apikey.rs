//! API keys: their shape, generation and the digest that is stored instead of the key.
//!
//! A key looks like `btk_` followed by 48 lowercase hex digits (24 random bytes). Only the
//! SHA-256 digest of the whole key is stored; a lookup is one indexed equality. A short hint
//! (the prefix and the first 6 random digits) is kept so users can tell keys apart.

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
    #[error("API keys start with {PREFIX}")]
    Prefix,
    /// Wrong length or characters after the prefix.
    #[error("API keys are {PREFIX} followed by 48 hexadecimal digits")]
    Body,
}

impl ApiKey {
    /// A fresh random key from the operating system's generator.
    pub fn generate() -> ApiKey {
        let mut bytes = [0u8; RANDOM_HEX_LEN / 2];
        rand::rng().fill_bytes(&mut bytes);
        ApiKey(format!("{PREFIX}{}", hex::encode(bytes)))
    }

    /// Checks the shape of a presented key (no lookup).
    pub fn parse(s: &str) -> Result<ApiKey, MalformedKey> {
        let body = s.strip_prefix(PREFIX).ok_or(MalformedKey::Prefix)?;
        if body.len() != RANDOM_HEX_LEN
            || !body
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        {
            return Err(MalformedKey::Body);
        }
        Ok(ApiKey(s.to_string()))
    }

    /// The plaintext; show it once, never log it.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// The stored digest: lowercase hex SHA-256 of the whole key.
    pub fn digest(&self) -> String {
        hex::encode(Sha256::digest(self.0.as_bytes()))
    }

    /// A short, non-secret hint such as `btk_3fa9c1…`.
    pub fn hint(&self) -> String {
        let end = (PREFIX.len() + 6).min(self.0.len());
        format!("{}…", &self.0[..end])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(ApiKey::parse("abc"), Err(MalformedKey::Prefix));
        assert_eq!(ApiKey::parse("btk_123"), Err(MalformedKey::Body));
        let upper = format!("btk_{}", "A".repeat(48));
        assert_eq!(ApiKey::parse(&upper), Err(MalformedKey::Body));
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
