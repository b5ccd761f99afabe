//! Money exact to the cent: an amount in minor units, read from and written as a decimal
//! string with at most two decimals ("150", "150.5", "150.00").

use std::fmt;

/// An amount in minor units (cents); never negative where a rate or a charge holds it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Money(pub i64);

/// Why a text is not an amount.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoneyError {
    /// Not digits with an optional point and one or two decimals.
    #[error("must be a decimal number with at most 2 decimals, such as \"150.00\"")]
    Shape,
    /// Too large to hold.
    #[error("is too large")]
    TooLarge,
}

impl Money {
    /// Zero.
    pub const ZERO: Money = Money(0);

    /// Reads `"150"`, `"150.5"` or `"150.00"` (no sign, no exponent, at most two decimals).
    pub fn parse(text: &str) -> Result<Money, MoneyError> {
        let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if !digits(whole) || (text.contains('.') && !digits(frac)) || frac.len() > 2 {
            return Err(MoneyError::Shape);
        }
        let units: i64 = whole.parse().map_err(|_| MoneyError::TooLarge)?;
        let cents: i64 = format!("{frac:0<2}")
            .parse()
            .map_err(|_| MoneyError::Shape)?;
        units
            .checked_mul(100)
            .and_then(|u| u.checked_add(cents))
            .map(Money)
            .ok_or(MoneyError::TooLarge)
    }

    /// The sum, saturating (a charge never wraps).
    pub fn plus(self, other: Money) -> Money {
        Money(self.0.saturating_add(other.0))
    }
}

impl fmt::Display for Money {
    /// Two decimals: `"960.00"`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let abs = self.0.unsigned_abs();
        write!(f, "{sign}{}.{:02}", abs / 100, abs % 100)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn amounts_read_and_print_exactly() {
        assert_eq!(Money::parse("150").unwrap(), Money(15_000));
        assert_eq!(Money::parse("150.5").unwrap(), Money(15_050));
        assert_eq!(Money::parse("0.07").unwrap(), Money(7));
        assert_eq!(Money(96_000).to_string(), "960.00");
        assert_eq!(Money(7).to_string(), "0.07");
        for bad in [
            "", ".5", "1.", "1.234", "-1", "+1", "1e3", "1,00", " 1", "abc",
        ] {
            assert_eq!(Money::parse(bad), Err(MoneyError::Shape), "{bad:?}");
        }
        assert_eq!(
            Money::parse("99999999999999999999"),
            Err(MoneyError::TooLarge)
        );
    }

    proptest! {
        #[test]
        fn printing_then_reading_gives_the_amount(cents in 0i64..10_000_000_000) {
            prop_assert_eq!(Money::parse(&Money(cents).to_string()), Ok(Money(cents)));
        }
    }
}
