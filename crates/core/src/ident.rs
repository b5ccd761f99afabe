//! Identifiers: ISO 6346 container numbers, SCACs and tracking numbers.

/// Normalises a number as users type it: trimmed, upper-cased, without spaces or dashes.
pub fn normalize(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .flat_map(char::to_uppercase)
        .collect()
}

/// Why a string is not a valid ISO 6346 container number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ContainerNumberError {
    /// Not 11 characters.
    #[error("a container number has 11 characters (4 letters, 7 digits)")]
    Length,
    /// The first three characters are not letters.
    #[error("the owner code (characters 1-3) must be letters")]
    OwnerCode,
    /// The fourth character is not U, J or Z.
    #[error("the equipment category (character 4) must be U, J or Z")]
    Category,
    /// Characters 5-11 are not digits.
    #[error("the serial number and check digit (characters 5-11) must be digits")]
    Serial,
    /// The check digit does not match.
    #[error("invalid check digit: expected {expected}, got {got}")]
    CheckDigit {
        /// The digit the first ten characters call for.
        expected: u8,
        /// The digit given.
        got: u8,
    },
}

fn letter_value(c: u8) -> Option<u32> {
    if !c.is_ascii_uppercase() {
        return None;
    }
    // A=10, then skip every multiple of 11 (11, 22, 33).
    let mut v = 10u32;
    for _ in b'A'..c {
        v += 1;
        if v.is_multiple_of(11) {
            v += 1;
        }
    }
    Some(v)
}

/// The ISO 6346 check digit for the first ten characters (owner code, category, serial).
pub fn check_digit(first_ten: &str) -> Option<u8> {
    let b = first_ten.as_bytes();
    if b.len() != 10 {
        return None;
    }
    let mut sum = 0u32;
    for (i, &c) in b.iter().enumerate() {
        let v = if i < 4 {
            letter_value(c)?
        } else if c.is_ascii_digit() {
            u32::from(c - b'0')
        } else {
            return None;
        };
        sum += v << i;
    }
    Some(((sum % 11) % 10) as u8)
}

/// Validates a (normalised) ISO 6346 container number.
pub fn validate_container(s: &str) -> Result<(), ContainerNumberError> {
    let b = s.as_bytes();
    if b.len() != 11 || !s.is_ascii() {
        return Err(ContainerNumberError::Length);
    }
    if !b[..3].iter().all(u8::is_ascii_uppercase) {
        return Err(ContainerNumberError::OwnerCode);
    }
    if !matches!(b[3], b'U' | b'J' | b'Z') {
        return Err(ContainerNumberError::Category);
    }
    if !b[4..].iter().all(u8::is_ascii_digit) {
        return Err(ContainerNumberError::Serial);
    }
    let expected = check_digit(&s[..10]).ok_or(ContainerNumberError::Serial)?;
    let got = b[10] - b'0';
    if expected != got {
        return Err(ContainerNumberError::CheckDigit { expected, got });
    }
    Ok(())
}

/// Whether a string is shaped like a container number (ignoring the check digit).
pub fn looks_like_container(s: &str) -> bool {
    matches!(
        validate_container(s),
        Ok(()) | Err(ContainerNumberError::CheckDigit { .. })
    )
}

/// Whether a string has the shape of a SCAC: 2 to 4 upper-case letters.
pub fn is_scac_shape(s: &str) -> bool {
    (2..=4).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_uppercase())
}

/// Whether a bill of lading or booking number has an acceptable shape: 4 to 40 letters and
/// digits after normalisation.
pub fn is_reference_shape(s: &str) -> bool {
    (4..=40).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// What an ISO 6346 size-type code (`45G1`, `22R1`, `L5G1`) says: length in feet, height
/// (`standard` or `high_cube`) and type (`dry`, `reefer`, `open top`, `flat rack`, `tank`,
/// `bulk`). Unknown positions are `None`.
pub fn size_type(code: &str) -> (Option<i64>, Option<&'static str>, Option<&'static str>) {
    let b = code.trim().as_bytes();
    if b.len() != 4 {
        return (None, None, None);
    }
    let length = match b[0] {
        b'1' => Some(10),
        b'2' => Some(20),
        b'3' => Some(30),
        b'4' => Some(40),
        b'L' | b'l' => Some(45),
        _ => None,
    };
    let height = match b[1] {
        b'0' | b'2' => Some("standard"),
        b'5' | b'E' | b'e' => Some("high_cube"),
        _ => None,
    };
    let kind = match b[2].to_ascii_uppercase() {
        b'G' | b'V' => Some("dry"),
        b'R' | b'H' => Some("reefer"),
        b'U' => Some("open top"),
        b'P' => Some("flat rack"),
        b'T' => Some("tank"),
        b'B' => Some("bulk"),
        _ => None,
    };
    (length, height, kind)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn published_examples() {
        assert_eq!(check_digit("CSQU305438"), Some(3));
        for ok in [
            "CSQU3054383",
            "APZU4812090",
            "MRSU4371639",
            "TCKU7248999",
            "SUDU1910806",
            "MSCU1234566",
            "MSKU7654328",
            "HLXU3141597",
            "CMAU2718286",
        ] {
            assert_eq!(validate_container(ok), Ok(()), "{ok}");
        }
        for bad in ["GMCU6094137", "TRHU4561222"] {
            assert!(
                matches!(
                    validate_container(bad),
                    Err(ContainerNumberError::CheckDigit { .. })
                ),
                "{bad}"
            );
        }
    }

    #[test]
    fn shapes_are_named() {
        assert_eq!(
            validate_container("MSCU123"),
            Err(ContainerNumberError::Length)
        );
        assert_eq!(
            validate_container("M1CU1234566"),
            Err(ContainerNumberError::OwnerCode)
        );
        assert_eq!(
            validate_container("MSCX1234566"),
            Err(ContainerNumberError::Category)
        );
        assert_eq!(
            validate_container("MSCU12A4566"),
            Err(ContainerNumberError::Serial)
        );
        assert_eq!(normalize(" mscu-123 4566 "), "MSCU1234566");
        assert!(is_scac_shape("MAEU") && !is_scac_shape("MAEU1") && !is_scac_shape("maeu"));
    }

    #[test]
    fn letter_values_skip_multiples_of_eleven() {
        let vals: Vec<u32> = (b'A'..=b'Z').map(|c| letter_value(c).unwrap()).collect();
        assert_eq!(vals[0], 10);
        assert_eq!((vals[10], vals[11]), (21, 23)); // K=21, L=23
        assert_eq!(vals[25], 38);
        assert!(vals.iter().all(|v| v % 11 != 0));
    }

    proptest! {
        /// Appending the computed check digit always yields a valid number, and changing any
        /// single serial digit breaks it (or maps to the r=10→0 collision).
        #[test]
        fn computed_digits_validate(owner in "[A-Z]{3}", cat in "[UJZ]", serial in "[0-9]{6}") {
            let first = format!("{owner}{cat}{serial}");
            let d = check_digit(&first).unwrap();
            let full = format!("{first}{d}");
            prop_assert_eq!(validate_container(&full), Ok(()));
            let wrong = format!("{first}{}", (d + 1) % 10);
            prop_assert!(validate_container(&wrong).is_err());
        }
    }
}

#[cfg(test)]
mod size_type_tests {
    use super::size_type;

    #[test]
    fn reads_common_codes() {
        assert_eq!(
            size_type("45G1"),
            (Some(40), Some("high_cube"), Some("dry"))
        );
        assert_eq!(
            size_type("22R1"),
            (Some(20), Some("standard"), Some("reefer"))
        );
        assert_eq!(
            size_type("L5G1"),
            (Some(45), Some("high_cube"), Some("dry"))
        );
        assert_eq!(size_type("451G"), (Some(40), Some("high_cube"), None));
        assert_eq!(size_type("x"), (None, None, None));
    }
}
