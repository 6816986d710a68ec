//! Parsing of trimmed, substituted values into the types the getters return.
//!
//! Each function returns `None` when the text does not parse; the caller turns that into a
//! positioned [`crate::ConfError::InvalidValue`]. The integer and boolean forms follow Hadoop's
//! `getInt`/`getLong`/`getBoolean` (decimal or `0x` hex, `true`/`false` in any case), except that
//! Hadoop returns the default for an unparsable boolean while we reject it.

/// `true` or `false`, case-insensitive.
pub(crate) fn parse_bool(text: &str) -> Option<bool> {
    if text.eq_ignore_ascii_case("true") {
        Some(true)
    } else if text.eq_ignore_ascii_case("false") {
        Some(false)
    } else {
        None
    }
}

/// A decimal or `0x`-prefixed hexadecimal integer with an optional sign, in the range of `T`.
pub(crate) fn parse_integer<T: TryFrom<i128>>(text: &str) -> Option<T> {
    let (negative, unsigned) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let (digits, radix) = match unsigned
        .strip_prefix("0x")
        .or_else(|| unsigned.strip_prefix("0X"))
    {
        Some(hex) => (hex, 16),
        None => (unsigned, 10),
    };
    // from_str_radix accepts its own sign; only the one stripped above is allowed.
    if !digits.bytes().next().is_some_and(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let magnitude = i128::from_str_radix(digits, radix).ok()?;
    T::try_from(if negative { -magnitude } else { magnitude }).ok()
}

/// A finite floating-point number.
pub(crate) fn parse_float(text: &str) -> Option<f64> {
    text.parse::<f64>().ok().filter(|value| value.is_finite())
}

/// Comma-separated items, each trimmed, empty ones dropped.
pub(crate) fn parse_list(text: &str) -> Vec<String> {
    text.split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn booleans_are_true_or_false_in_any_case() {
        assert_eq!(parse_bool("TRUE"), Some(true));
        assert_eq!(parse_bool("False"), Some(false));
        for text in ["yes", "1", "on", "", "truee"] {
            assert_eq!(parse_bool(text), None, "{text:?}");
        }
    }

    #[test]
    fn integers_accept_sign_and_hex_and_check_range() {
        assert_eq!(parse_integer::<i32>("42"), Some(42));
        assert_eq!(parse_integer::<i32>("-0x10"), Some(-16));
        assert_eq!(parse_integer::<i32>("+7"), Some(7));
        assert_eq!(parse_integer::<i64>("0XfF"), Some(255));
        assert_eq!(parse_integer::<i32>("2147483648"), None);
        assert_eq!(parse_integer::<u32>("-1"), None);
        assert_eq!(parse_integer::<u64>("18446744073709551615"), Some(u64::MAX));
        for text in ["ten", "", "-", "0x", "--1", "-+1", "1.0", "1 000", "0xg"] {
            assert_eq!(parse_integer::<i64>(text), None, "{text:?}");
        }
        // Hex digits are only valid after 0x.
        assert_eq!(parse_integer::<i32>("ff"), None);
    }

    #[test]
    fn floats_must_be_finite() {
        assert_eq!(parse_float("0.75"), Some(0.75));
        assert_eq!(parse_float("1e3"), Some(1000.0));
        for text in ["NaN", "inf", "-infinity", "x"] {
            assert_eq!(parse_float(text), None, "{text:?}");
        }
    }

    #[test]
    fn lists_trim_and_drop_empty_items() {
        assert_eq!(parse_list(" rm1, rm2 ,,rm3,\n "), vec!["rm1", "rm2", "rm3"]);
        assert!(parse_list(" , ").is_empty());
    }
}
