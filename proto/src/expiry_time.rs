//! The expiry times of application timeouts as Hadoop writes them in
//! `ApplicationTimeoutProto`, `UpdateApplicationTimeoutsRequestProto` and the REST API: ISO
//! 8601 with milliseconds and a zone offset, Java's `yyyy-MM-dd'T'HH:mm:ss.SSSZ`
//! (`2026-11-30T07:10:00.000+0000`).

use time::format_description::FormatItem;
use time::macros::format_description;
use time::{OffsetDateTime, PrimitiveDateTime, UtcOffset};

use crate::ProtoError;

/// What a report says of a timeout that is not set.
pub const UNLIMITED: &str = "UNLIMITED";

/// Hadoop's pattern, named in refusals.
pub const EXPIRY_TIME_PATTERN: &str = "yyyy-MM-dd'T'HH:mm:ss.SSSZ";

const DATE_TIME: &[FormatItem<'static>] =
    format_description!("[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]");

/// `epoch_ms` (milliseconds since the Unix epoch) in Hadoop's form, in UTC; times beyond
/// year 9999 print as that year's last millisecond.
pub fn format_expiry_time(epoch_ms: i64) -> String {
    const LATEST_MS: i64 = 253_402_300_799_999;
    let clamped = epoch_ms.clamp(0, LATEST_MS);
    let time = OffsetDateTime::from_unix_timestamp_nanos(i128::from(clamped) * 1_000_000)
        .unwrap_or(OffsetDateTime::UNIX_EPOCH);
    let date_time = time.format(DATE_TIME).unwrap_or_default();
    format!("{date_time}+0000")
}

/// Reads an expiry time in Hadoop's form into milliseconds since the Unix epoch. The zone
/// offset is `+hhmm` or `-hhmm` as Java writes it; `+hh:mm` and `Z` are read too.
///
/// # Errors
///
/// [`ProtoError::InvalidExpiryTime`], saying Hadoop's pattern, for anything else.
pub fn parse_expiry_time(text: &str) -> Result<i64, ProtoError> {
    let invalid = || ProtoError::InvalidExpiryTime {
        value: text.to_owned(),
    };
    let trimmed = text.trim();
    // The date and time are 23 characters; the offset follows.
    let (date_time, offset) = trimmed.split_at_checked(23).ok_or_else(invalid)?;
    let date_time = PrimitiveDateTime::parse(date_time, DATE_TIME).map_err(|_| invalid())?;
    let offset = parse_offset(offset).ok_or_else(invalid)?;
    let at = date_time.assume_offset(offset);
    i64::try_from(at.unix_timestamp_nanos() / 1_000_000).map_err(|_| invalid())
}

/// `Z`, `±hhmm` or `±hh:mm`.
fn parse_offset(text: &str) -> Option<UtcOffset> {
    if text == "Z" {
        return Some(UtcOffset::UTC);
    }
    let (sign, digits) = match text.split_at_checked(1)? {
        ("+", rest) => (1, rest),
        ("-", rest) => (-1, rest),
        _ => return None,
    };
    let digits = match digits.len() {
        4 => digits.to_owned(),
        5 if digits.as_bytes()[2] == b':' => digits.replacen(':', "", 1),
        _ => return None,
    };
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let hours: i8 = digits[..2].parse().ok()?;
    let minutes: i8 = digits[2..].parse().ok()?;
    if hours > 23 || minutes > 59 {
        return None;
    }
    UtcOffset::from_hms(sign * hours, sign * minutes, 0).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_print_in_hadoops_form_and_read_back() {
        let ms = 1_796_022_600_123;
        let text = format_expiry_time(ms);
        assert_eq!(text, "2026-11-30T07:10:00.123+0000");
        assert_eq!(parse_expiry_time(&text), Ok(ms));
        assert_eq!(format_expiry_time(0), "1970-01-01T00:00:00.000+0000");
    }

    #[test]
    fn every_offset_form_reads_as_the_same_instant() {
        let utc = parse_expiry_time("2026-11-30T07:10:00.000+0000").unwrap();
        for text in [
            "2026-11-30T07:10:00.000Z",
            "2026-11-30T08:10:00.000+0100",
            "2026-11-30T08:10:00.000+01:00",
            "2026-11-30T02:10:00.000-0500",
            " 2026-11-30T07:10:00.000+0000 ",
        ] {
            assert_eq!(parse_expiry_time(text), Ok(utc), "{text}");
        }
    }

    #[test]
    fn other_forms_are_refused_naming_hadoops_pattern() {
        for text in [
            "",
            "2026-11-30",
            "2026-11-30T07:10:00+0000",
            "2026-11-30 07:10:00.000+0000",
            "2026-13-30T07:10:00.000+0000",
            "2026-11-30T07:10:00.000+2500",
            "2026-11-30T07:10:00.000 UTC",
            "tomorrow",
        ] {
            let err = parse_expiry_time(text).unwrap_err();
            assert!(
                err.to_string().contains(EXPIRY_TIME_PATTERN),
                "{text}: {err}"
            );
        }
    }
}
