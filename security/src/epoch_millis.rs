//! Display of a millisecond timestamp for error messages.

use std::fmt;

use time::OffsetDateTime;

/// Shows milliseconds since the Unix epoch both raw and as a UTC date, e.g.
/// `1700000000000 ms (2023-11-14T22:13:20.000Z)`, so an operator can compare times across hosts.
/// Timestamps outside the calendar range print raw only.
pub(crate) struct EpochMillis(pub(crate) i64);

impl fmt::Display for EpochMillis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ms", self.0)?;
        let nanos = i128::from(self.0) * 1_000_000;
        if let Ok(at) = OffsetDateTime::from_unix_timestamp_nanos(nanos) {
            write!(
                f,
                " ({:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z)",
                at.year(),
                u8::from(at.month()),
                at.day(),
                at.hour(),
                at.minute(),
                at.second(),
                at.millisecond()
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shows_raw_and_utc_forms() {
        assert_eq!(
            EpochMillis(1_700_000_000_123).to_string(),
            "1700000000123 ms (2023-11-14T22:13:20.123Z)"
        );
        assert_eq!(
            EpochMillis(0).to_string(),
            "0 ms (1970-01-01T00:00:00.000Z)"
        );
    }

    #[test]
    fn out_of_range_shows_raw_only() {
        assert_eq!(
            EpochMillis(i64::MAX).to_string(),
            format!("{} ms", i64::MAX)
        );
    }
}
