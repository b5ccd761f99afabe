//! Webhooks: the event catalog, subscription URL rules, secrets and signatures.

use std::net::IpAddr;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, Mac};
use rand::RngCore;
use sha2::Sha256;

/// Every event a webhook can subscribe to (the reference's 43 names).
pub const EVENTS: [&str; 43] = [
    "tracking_request.succeeded",
    "tracking_request.failed",
    "tracking_request.awaiting_manifest",
    "tracking_request.tracking_stopped",
    "container.transport.empty_out",
    "container.transport.full_in",
    "container.transport.vessel_loaded",
    "container.transport.vessel_departed",
    "container.transport.transshipment_arrived",
    "container.transport.transshipment_discharged",
    "container.transport.transshipment_loaded",
    "container.transport.transshipment_departed",
    "container.transport.feeder_arrived",
    "container.transport.feeder_discharged",
    "container.transport.feeder_loaded",
    "container.transport.feeder_departed",
    "container.transport.vessel_arrived",
    "container.transport.vessel_berthed",
    "container.transport.vessel_discharged",
    "container.transport.available",
    "container.transport.not_available",
    "container.transport.full_out",
    "container.transport.delivered",
    "container.transport.empty_in",
    "container.transport.rail_loaded",
    "container.transport.rail_departed",
    "container.transport.rail_arrived",
    "container.transport.rail_unloaded",
    "container.transport.arrived_at_inland_destination",
    "container.transport.estimated.vessel_departed",
    "container.transport.estimated.vessel_arrived",
    "container.transport.estimated.arrived_at_inland_destination",
    "shipment.estimated.arrival",
    "container.created",
    "container.updated",
    "container.pod_terminal_changed",
    "container.pickup_lfd.changed",
    "container.pickup_lfd_line.changed",
    "container.pickup_lfd_terminal.changed",
    "container.pickup_lfd_rail.changed",
    "container.pickup_appointment.changed",
    "document.extracted",
    "document.extraction_failed",
];

/// boxtrack's own events (its extension): sent only to the webhooks that name them, never to
/// one subscribed by default.
pub const EXTENSION_EVENTS: [&str; 3] = [
    "container.charges.free_time_ending",
    "container.charges.accruing",
    "container.release.changed",
];

/// Whether `event` is one a webhook can subscribe to: the reference's or boxtrack's own.
pub fn is_event(event: &str) -> bool {
    EVENTS.contains(&event) || EXTENSION_EVENTS.contains(&event)
}

/// Every event a webhook can name: the reference's, then boxtrack's own.
pub fn all_events() -> impl Iterator<Item = &'static str> {
    EVENTS.iter().chain(EXTENSION_EVENTS.iter()).copied()
}

/// The categories of the event catalog, in order: id, name, and whether an event belongs.
pub const CATEGORIES: [(&str, &str); 6] = [
    ("tracking-request-events", "Tracking Request Events"),
    ("container-transport-events", "Container Transport Events"),
    ("container-estimate-events", "Estimate Events"),
    ("container-events", "Container Events"),
    ("shipment-events", "Shipment Events"),
    ("document-events", "Document Events"),
];

/// The id of the catalog category an event is listed under.
pub fn category(event: &str) -> &'static str {
    if event.starts_with("tracking_request.") {
        "tracking-request-events"
    } else if event.starts_with("container.transport.estimated.") {
        "container-estimate-events"
    } else if event.starts_with("container.transport.") {
        "container-transport-events"
    } else if event.starts_with("container.") {
        "container-events"
    } else if event.starts_with("shipment.") {
        "shipment-events"
    } else {
        "document-events"
    }
}

/// What an event announces, in a sentence.
pub fn describe(event: &str) -> &'static str {
    match event {
        "tracking_request.succeeded" => "Shipment created and linked to the tracking request.",
        "tracking_request.failed" => "The tracking request failed; failed_reason says why.",
        "tracking_request.awaiting_manifest" => {
            "The carrier knows the number but has no containers on it yet; it is checked again daily."
        }
        "tracking_request.tracking_stopped" => "Tracking of the request's shipment stopped.",
        "container.transport.empty_out" => "Empty container picked up at origin.",
        "container.transport.full_in" => "Container gated in full at the port of lading.",
        "container.transport.vessel_loaded" => {
            "Container loaded on the vessel at the port of lading."
        }
        "container.transport.vessel_departed" => "Vessel departed the port of lading.",
        "container.transport.transshipment_arrived" => "Container arrived at a transshipment port.",
        "container.transport.transshipment_discharged" => {
            "Container discharged at a transshipment port."
        }
        "container.transport.transshipment_loaded" => "Container loaded at a transshipment port.",
        "container.transport.transshipment_departed" => "Container departed a transshipment port.",
        "container.transport.feeder_arrived" => "Feeder vessel arrived.",
        "container.transport.feeder_discharged" => "Container discharged from a feeder vessel.",
        "container.transport.feeder_loaded" => "Container loaded on a feeder vessel.",
        "container.transport.feeder_departed" => "Feeder vessel departed.",
        "container.transport.vessel_arrived" => "Vessel arrived at the port of discharge.",
        "container.transport.vessel_berthed" => "Vessel berthed at the port of discharge.",
        "container.transport.vessel_discharged" => "Container discharged at the port of discharge.",
        "container.transport.available" => "Container available for pickup at the terminal.",
        "container.transport.not_available" => "Container no longer available for pickup.",
        "container.transport.full_out" => "Container picked up full.",
        "container.transport.delivered" => "Container delivered.",
        "container.transport.empty_in" => "Empty container returned.",
        "container.transport.rail_loaded" => "Container loaded on rail.",
        "container.transport.rail_departed" => "Train departed with the container.",
        "container.transport.rail_arrived" => "Train arrived with the container.",
        "container.transport.rail_unloaded" => "Container unloaded from rail.",
        "container.transport.arrived_at_inland_destination" => {
            "Container arrived at its inland destination."
        }
        "container.transport.estimated.vessel_departed" => {
            "New estimate of the vessel's departure from the port of lading."
        }
        "container.transport.estimated.vessel_arrived" => {
            "New estimate of the vessel's arrival at the port of discharge."
        }
        "container.transport.estimated.arrived_at_inland_destination" => {
            "New estimate of the arrival at the inland destination."
        }
        "shipment.estimated.arrival" => "The shipment's estimated arrival changed.",
        "container.created" => "A container was added to a tracked shipment.",
        "container.updated" => {
            "Container attributes changed (availability, holds, fees, last free day...); the changeset says which."
        }
        "container.pod_terminal_changed" => {
            "The container's terminal at the port of discharge changed."
        }
        "container.pickup_lfd.changed" => "The last free day that applies changed.",
        "container.pickup_lfd_line.changed" => "The shipping line's last free day changed.",
        "container.pickup_lfd_terminal.changed" => "The terminal's last free day changed.",
        "container.pickup_lfd_rail.changed" => "The rail carrier's last free day changed.",
        "container.pickup_appointment.changed" => "The pickup appointment changed.",
        "document.extracted" => "A document's data was extracted.",
        "document.extraction_failed" => "A document's data could not be extracted.",
        "container.charges.free_time_ending" => {
            "A running free time (demurrage, storage, detention or combined) ends tomorrow by the calculated last free day; once per container and kind, only to webhooks that name it (boxtrack's extension)."
        }
        "container.charges.accruing" => {
            "A container's charge of one kind began to accrue (its first chargeable day came while the box stayed); once per container and kind, only to webhooks that name it (boxtrack's extension)."
        }
        _ => "",
    }
}

/// Checks a subscription's event list; the error names the first unknown event.
pub fn validate_events(events: &[String]) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = Vec::new();
    for e in events {
        let e = e.trim();
        if !is_event(e) {
            return Err(e.to_string());
        }
        if !out.iter().any(|o| o == e) {
            out.push(e.to_string());
        }
    }
    Ok(out)
}

/// Why a webhook URL is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlError {
    /// Not a URL with a host.
    #[error("url must be an absolute https:// address")]
    Malformed,
    /// Not https.
    #[error("url must use https://")]
    NotHttps,
    /// Points at a loopback, private, link-local or otherwise internal address.
    #[error("url must not point at a loopback, private or link-local address")]
    Internal,
}

/// Whether an address is one a webhook must never reach (unless the operator allows it).
pub fn is_internal(ip: IpAddr) -> bool {
    let ip = match ip {
        IpAddr::V6(v6) => v6
            .to_ipv4_mapped()
            .map(IpAddr::V4)
            .unwrap_or(IpAddr::V6(v6)),
        v4 => v4,
    };
    match ip {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                || v4.is_documentation()
                || o[0] == 0
                || (o[0] == 100 && (64..128).contains(&o[1])) // CGNAT
                || (o[0] == 198 && (o[1] == 18 || o[1] == 19)) // benchmarking
                || (o[0] == 192 && o[1] == 0 && o[2] == 0)
                || o[0] >= 240
        }
        IpAddr::V6(v6) => {
            let s = v6.segments();
            v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (s[0] & 0xfe00) == 0xfc00 // unique local
                || (s[0] & 0xffc0) == 0xfe80 // link local
                || s[0] == 0x2002 // 6to4
                || (s[0] == 0x64 && s[1] == 0xff9b) // NAT64
                || (s[0] == 0x2001 && s[1] == 0x0db8) // documentation
        }
    }
}

/// Checks a webhook URL as given, in the shape the API documents (a host name or IPv4
/// address; IPv6 literals are refused) (literal addresses and `localhost` are checked here; names
/// are checked again when they are resolved at delivery time). `allow_private` is the
/// operator's switch for tests and local receivers: it allows `http://` and internal hosts.
pub fn check_url(raw: &str, allow_private: bool) -> Result<(), UrlError> {
    // exactly the shape the API documents: a lowercase scheme, a host name (or an address in
    // brackets), an optional port of digits, then a path, query or fragment; no user info,
    // no spaces anywhere
    let (scheme, rest) = raw.split_once("://").ok_or(UrlError::Malformed)?;
    if scheme != "https" && !(allow_private && scheme == "http") {
        return Err(if scheme.eq_ignore_ascii_case("http") {
            UrlError::NotHttps
        } else {
            UrlError::Malformed
        });
    }
    if raw.chars().any(char::is_whitespace) {
        return Err(UrlError::Malformed);
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    // a host name or an IPv4 address (an IPv6 literal is refused: name the receiver)
    let (host, port) = match authority.split_once(':') {
        Some((h, p)) => (h, Some(p)),
        None => (authority, None),
    };
    let host_ok = host
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphanumeric())
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-');
    if !host_ok {
        return Err(UrlError::Malformed);
    }
    if let Some(p) = port
        && (p.is_empty() || p.len() > 5 || !p.bytes().all(|b| b.is_ascii_digit()))
    {
        return Err(UrlError::Malformed);
    }
    if allow_private {
        return Ok(());
    }
    let lower = host.to_ascii_lowercase();
    if lower == "localhost" || lower.ends_with(".localhost") {
        return Err(UrlError::Internal);
    }
    match lower.parse::<IpAddr>() {
        Ok(ip) if is_internal(ip) => Err(UrlError::Internal),
        _ => Ok(()),
    }
}

/// A new secret: `whsec_` and the base64 of 32 random bytes.
pub fn generate_secret() -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    format!("whsec_{}", STANDARD.encode(bytes))
}

/// The reference service's signature: lowercase hex HMAC-SHA256 of the body, keyed with the
/// whole secret string as given to the user.
pub fn sign_hex(secret: &str, body: &[u8]) -> String {
    match <Hmac<Sha256> as Mac>::new_from_slice(secret.as_bytes()) {
        Ok(mut mac) => {
            mac.update(body);
            hex::encode(mac.finalize().into_bytes())
        }
        // HMAC accepts keys of any length, so this arm is never taken.
        Err(_) => String::new(),
    }
}

/// The Standard Webhooks signing key: the base64-decoded part of the secret after `whsec_`;
/// `None` if the secret is not of that form.
pub fn standard_key(secret: &str) -> Option<Vec<u8>> {
    STANDARD.decode(secret.strip_prefix("whsec_")?).ok()
}

/// The Standard Webhooks signature `v1,<base64>` over `id.timestamp.body` with a key from
/// [`standard_key`] (decoded once per subscription rather than once per delivery).
pub fn sign_standard_with(key: &[u8], id: &str, timestamp: i64, body: &[u8]) -> String {
    match <Hmac<Sha256> as Mac>::new_from_slice(key) {
        Ok(mut mac) => {
            mac.update(id.as_bytes());
            mac.update(b".");
            mac.update(timestamp.to_string().as_bytes());
            mac.update(b".");
            mac.update(body);
            format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()))
        }
        // HMAC accepts keys of any length, so this arm is never taken.
        Err(_) => String::new(),
    }
}

/// The Standard Webhooks signature `v1,<base64>` over `id.timestamp.body`, keyed with the
/// base64-decoded part of the secret after `whsec_`; `None` if the secret is not of that form.
pub fn sign_standard(secret: &str, id: &str, timestamp: i64, body: &[u8]) -> Option<String> {
    Some(sign_standard_with(
        &standard_key(secret)?,
        id,
        timestamp,
        body,
    ))
}

/// Headers boxtrack sets on every delivery itself, which a webhook's own headers cannot
/// replace.
pub const RESERVED_HEADERS: [&str; 8] = [
    "content-type",
    "content-length",
    "host",
    "user-agent",
    "webhook-id",
    "webhook-timestamp",
    "webhook-signature",
    "x-boxtrack-webhook-signature",
];

/// The most headers a webhook sends of its own.
pub const MAX_HEADERS: usize = 20;

/// Why a webhook's own headers are refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HeaderError {
    /// More than [`MAX_HEADERS`].
    #[error("at most 20 headers")]
    TooMany,
    /// A name that is not an HTTP token, or a value with a control or non-ASCII character.
    #[error("header {0:?} is not a valid HTTP header")]
    Invalid(String),
    /// One of [`RESERVED_HEADERS`].
    #[error("header {0:?} is set by boxtrack and cannot be overridden")]
    Reserved(String),
}

/// Checks a webhook's own headers: at most [`MAX_HEADERS`], each name an HTTP token
/// (RFC 9110), each value visible ASCII, spaces and tabs, none of [`RESERVED_HEADERS`].
pub fn check_headers<'a>(
    headers: impl ExactSizeIterator<Item = (&'a str, &'a str)>,
) -> Result<(), HeaderError> {
    if headers.len() > MAX_HEADERS {
        return Err(HeaderError::TooMany);
    }
    let token = |c: u8| c.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&c);
    for (name, value) in headers {
        let name_ok = !name.is_empty() && name.bytes().all(token);
        let value_ok = value
            .bytes()
            .all(|b| b == b'\t' || (0x20..0x7f).contains(&b));
        if !name_ok || !value_ok {
            return Err(HeaderError::Invalid(name.to_string()));
        }
        if RESERVED_HEADERS.contains(&name.to_ascii_lowercase().as_str()) {
            return Err(HeaderError::Reserved(name.to_string()));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_event_is_described_and_in_a_category() {
        for e in EVENTS {
            assert!(!describe(e).is_empty(), "{e} has no description");
            assert!(CATEGORIES.iter().any(|(id, _)| *id == category(e)), "{e}");
        }
        assert_eq!(
            category("container.transport.estimated.vessel_arrived"),
            "container-estimate-events"
        );
        assert_eq!(category("container.pickup_lfd.changed"), "container-events");
    }

    use super::*;

    #[test]
    fn the_catalog_has_43_distinct_events() {
        let mut v = EVENTS.to_vec();
        v.sort_unstable();
        v.dedup();
        assert_eq!(v.len(), 43);
        assert_eq!(
            validate_events(&["container.updated".into(), "container.updated".into()]),
            Ok(vec!["container.updated".into()])
        );
        assert_eq!(
            validate_events(&["container.teleported".into()]),
            Err("container.teleported".into())
        );
    }

    #[test]
    fn urls_must_be_https_and_external() {
        assert_eq!(
            check_url("https://hooks.example.com/boxtrack", false),
            Ok(())
        );
        assert_eq!(
            check_url("http://hooks.example.com", false),
            Err(UrlError::NotHttps)
        );
        assert_eq!(
            check_url("https://127.0.0.1:9000/x", false),
            Err(UrlError::Internal)
        );
        assert_eq!(
            check_url("https://10.1.2.3/x", false),
            Err(UrlError::Internal)
        );
        assert_eq!(
            check_url("https://169.254.169.254/latest", false),
            Err(UrlError::Internal)
        );
        assert_eq!(
            check_url("https://[::1]/x", false),
            Err(UrlError::Malformed)
        );
        assert_eq!(
            check_url("https://[::ffff:192.168.0.1]/x", true),
            Err(UrlError::Malformed)
        );
        assert_eq!(
            check_url("https://localhost/x", false),
            Err(UrlError::Internal)
        );
        assert_eq!(
            check_url("ftp://example.com", false),
            Err(UrlError::Malformed)
        );
        assert_eq!(check_url("https://", false), Err(UrlError::Malformed));
        assert_eq!(check_url("http://127.0.0.1:9000/x", true), Ok(()));
        // only the documented shape: no user info, no odd ports or hosts, no spaces, a
        // lowercase scheme
        for bad in [
            "https://user@hooks.example.com/x",
            "https://qo:6*",
            "https://hooks.example.com:/x",
            "https://hooks.example.com:123456/x",
            "https://-hooks.example.com/x",
            " https://hooks.example.com/x",
            "HTTPS://hooks.example.com/x",
            "https://[zz]/x",
        ] {
            assert_eq!(check_url(bad, true), Err(UrlError::Malformed), "{bad}");
        }
        assert_eq!(
            check_url("https://hooks.example.com:8443/x?y#z", true),
            Ok(())
        );
        assert_eq!(check_url("https://hooks.example.com:443", false), Ok(()));
    }

    #[test]
    fn secrets_and_signatures() {
        let s = generate_secret();
        assert!(s.starts_with("whsec_"));
        assert_eq!(STANDARD.decode(&s[6..]).unwrap().len(), 32);
        // the Standard Webhooks reference vector
        let sig = sign_standard(
            "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD",
            "msg_27UH4WbU6Z5A5EzD8u03UvzRbpk",
            1649367553,
            br#"{"email":"test@example.com","username":"test_user"}"#,
        );
        assert_eq!(
            sig.as_deref(),
            Some("v1,tZ1I4/hDygAJgO5TYxiSd6Sd0kDW6hPenDe+bTa3Kkw=")
        );
        // hex HMAC of the body keyed with the whole secret (RFC 4231 test case 2 shape)
        assert_eq!(
            sign_hex("Jefe", b"what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        assert_eq!(sign_standard("nope", "a", 1, b""), None);
    }

    /// The test vector docs/api-guide.md gives next to its verification examples (computed
    /// with Python's `hmac`), so the guide and the signer agree.
    #[test]
    fn the_guide_s_signature_example_is_what_deliveries_carry() {
        assert_eq!(
            super::sign_hex("whsec_test", br#"{"a":1}"#),
            "51426af50a41dd7ff2cd3f116594734766d4018d15d6fb07169aee5d2959adf5"
        );
    }

    #[test]
    fn a_webhook_s_own_headers_are_tokens_with_visible_values_and_not_ours() {
        let check = |h: &[(&str, &str)]| check_headers(h.iter().copied());
        assert_eq!(check(&[("X-Team", "ops 1"), ("x_a.b~", "a\tb")]), Ok(()));
        assert_eq!(
            check(&[("X Team", "ops")]),
            Err(HeaderError::Invalid("X Team".into()))
        );
        assert_eq!(
            check(&[("X-Team", "caf\u{e9}")]),
            Err(HeaderError::Invalid("X-Team".into()))
        );
        assert_eq!(
            check(&[("X-Team", "a\nb")]),
            Err(HeaderError::Invalid("X-Team".into()))
        );
        assert_eq!(check(&[("", "x")]), Err(HeaderError::Invalid("".into())));
        assert_eq!(
            check(&[("Webhook-Signature", "x")]),
            Err(HeaderError::Reserved("Webhook-Signature".into()))
        );
        let many: Vec<(String, String)> = (0..21).map(|i| (format!("x-{i}"), "v".into())).collect();
        assert_eq!(
            check_headers(many.iter().map(|(a, b)| (a.as_str(), b.as_str()))),
            Err(HeaderError::TooMany)
        );
    }
}
