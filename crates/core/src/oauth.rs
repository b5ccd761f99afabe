//! The pure parts of boxtrack's OAuth 2.1 authorization server: PKCE (S256 only), opaque
//! tokens and their digests, redirect-URI and resource rules.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rand::RngCore;
use sha2::{Digest, Sha256};

/// A fresh opaque secret (authorization code, access or refresh token, CSRF token): 32 random
/// bytes, URL-safe base64.
pub fn new_secret() -> String {
    let mut b = [0u8; 32];
    rand::rng().fill_bytes(&mut b);
    URL_SAFE_NO_PAD.encode(b)
}

/// What is stored of a secret: its SHA-256, hex.
pub fn digest(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

/// Whether a PKCE verifier matches an S256 challenge (RFC 7636 §4.6). The verifier must be
/// 43–128 characters of the unreserved set.
pub fn pkce_s256_matches(verifier: &str, challenge: &str) -> bool {
    let ok_len = (43..=128).contains(&verifier.len());
    let ok_chars = verifier
        .bytes()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_' | b'~'));
    if !(ok_len && ok_chars) {
        return false;
    }
    let computed = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
    // constant-time comparison
    computed.len() == challenge.len()
        && computed
            .bytes()
            .zip(challenge.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
}

/// Whether a client may register this redirect URI: `https://`, or `http://` on a loopback
/// host (native clients), without a fragment.
pub fn redirect_uri_allowed(uri: &str) -> bool {
    if !redirect_uri_shape(uri) {
        return false;
    }
    let Ok(u) = url::Url::parse(uri) else {
        return false;
    };
    if u.fragment().is_some() {
        return false;
    }
    match u.scheme() {
        "https" => u.host_str().is_some(),
        "http" => matches!(u.host_str(), Some("localhost" | "127.0.0.1" | "[::1]")),
        _ => false,
    }
}

/// The written shape a redirect URI must have (what the registration endpoint documents):
/// `https://` and a host name whose last label starts with a letter, or `http://` and a
/// loopback host; an optional port (0 to 65535, digits only); a path or query without spaces
/// or fragment.
fn redirect_uri_shape(uri: &str) -> bool {
    let (host_ok, rest) = if let Some(rest) = uri.strip_prefix("https://") {
        let end = rest.find([':', '/', '?']).unwrap_or(rest.len());
        let host = &rest[..end];
        let labels_ok = !host.is_empty()
            && host.split('.').all(|l| {
                !l.is_empty() && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            });
        let last_ok = host
            .rsplit('.')
            .next()
            .and_then(|l| l.bytes().next())
            .is_some_and(|b| b.is_ascii_alphabetic());
        (labels_ok && last_ok, &rest[end..])
    } else if let Some(rest) = uri.strip_prefix("http://") {
        match ["localhost", "127.0.0.1", "[::1]"]
            .iter()
            .find_map(|h| rest.strip_prefix(h))
        {
            Some(after) => (true, after),
            None => (false, rest),
        }
    } else {
        (false, uri)
    };
    let rest = match rest.strip_prefix(':') {
        Some(p) => {
            let end = p.find(['/', '?']).unwrap_or(p.len());
            if end == 0 || end > 5 || p[..end].parse::<u16>().is_err() {
                return false;
            }
            &p[end..]
        }
        None => rest,
    };
    host_ok
        && (rest.is_empty() || rest.starts_with(['/', '?']))
        && !rest.contains('#')
        && !rest.chars().any(char::is_whitespace)
}

/// The canonical form of a resource indicator (RFC 8707 / MCP): lowercase scheme and host,
/// no fragment, no trailing slash.
pub fn canonical_resource(uri: &str) -> Option<String> {
    let u = url::Url::parse(uri.trim()).ok()?;
    if u.fragment().is_some() || !matches!(u.scheme(), "http" | "https") {
        return None;
    }
    let s = u.to_string();
    Some(s.trim_end_matches('/').to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pkce_rfc7636_appendix_b() {
        // the RFC's example verifier and challenge
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
        assert!(pkce_s256_matches(verifier, challenge));
        assert!(!pkce_s256_matches(
            verifier,
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cN"
        ));
        assert!(!pkce_s256_matches("short", challenge));
    }

    #[test]
    fn redirect_uris() {
        assert!(redirect_uri_allowed("https://app.example.com/callback"));
        assert!(redirect_uri_allowed("http://127.0.0.1:33418/callback"));
        assert!(redirect_uri_allowed("http://localhost/cb"));
        assert!(!redirect_uri_allowed("http://app.example.com/callback"));
        assert!(!redirect_uri_allowed("https://app.example.com/cb#frag"));
        assert!(!redirect_uri_allowed("javascript:alert(1)"));
        // only the documented shape
        for bad in [
            "https://-.example*",
            "https://app.example.com:65536/cb",
            "https://app.example.com:+80/cb",
            "https://app.1/cb",
            "https://app.example.com/a b",
            "HTTPS://app.example.com/cb",
        ] {
            assert!(!redirect_uri_allowed(bad), "{bad}");
        }
        assert!(redirect_uri_allowed("https://app.example.com:8443?x=1"));
    }

    #[test]
    fn resources_are_canonical() {
        assert_eq!(
            canonical_resource("HTTPS://Track.Example.com/mcp/").as_deref(),
            Some("https://track.example.com/mcp")
        );
        assert_eq!(
            canonical_resource("http://127.0.0.1:8080/mcp").as_deref(),
            Some("http://127.0.0.1:8080/mcp")
        );
        assert!(canonical_resource("https://x/mcp#a").is_none());
    }

    #[test]
    fn secrets_are_fresh_and_digests_fixed() {
        assert_ne!(new_secret(), new_secret());
        assert_eq!(new_secret().len(), 43);
        assert_eq!(
            digest("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}

/// Hashes a password with Argon2id (PHC string with a random salt).
pub fn hash_password(password: &str) -> Result<String, String> {
    use argon2::password_hash::{PasswordHasher, SaltString};
    let mut bytes = [0u8; 16];
    rand::rng().fill_bytes(&mut bytes);
    let salt = SaltString::encode_b64(&bytes).map_err(|e| e.to_string())?;
    argon2::Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| e.to_string())
}

/// Whether a password matches a stored Argon2 PHC string.
pub fn verify_password(password: &str, stored: &str) -> bool {
    use argon2::password_hash::{PasswordHash, PasswordVerifier};
    PasswordHash::new(stored).is_ok_and(|h| {
        argon2::Argon2::default()
            .verify_password(password.as_bytes(), &h)
            .is_ok()
    })
}

#[cfg(test)]
mod password_tests {
    #[test]
    fn passwords_round_trip_and_differ_by_salt() {
        let a = super::hash_password("correct horse battery staple").unwrap();
        let b = super::hash_password("correct horse battery staple").unwrap();
        assert_ne!(a, b);
        assert!(a.starts_with("$argon2id$"));
        assert!(super::verify_password("correct horse battery staple", &a));
        assert!(!super::verify_password("wrong", &a));
        assert!(!super::verify_password("x", "not a hash"));
    }
}
