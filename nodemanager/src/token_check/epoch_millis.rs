//! Display of a millisecond timestamp in refusal messages.

use std::fmt;

use time::OffsetDateTime;

/// Shows milliseconds since the Unix epoch raw, as Hadoop prints them, followed by the UTC date,
/// e.g. `1700000000123 (2023-11-14T22:13:20.123Z)`, so an operator comparing the two times of an
/// expiry refusal sees at once how far apart they are. Values outside the calendar's range print
/// raw only.
pub(crate) struct EpochMillis(pub(crate) i64);

impl fmt::Display for EpochMillis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)?;
        let Ok(at) = OffsetDateTime::from_unix_timestamp_nanos(i128::from(self.0) * 1_000_000)
        else {
            return Ok(());
        };
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
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_raw_millis_then_the_utc_date() {
        assert_eq!(
            EpochMillis(1_700_000_000_123).to_string(),
            "1700000000123 (2023-11-14T22:13:20.123Z)"
        );
        assert_eq!(EpochMillis(-1).to_string(), "-1 (1969-12-31T23:59:59.999Z)");
    }

    #[test]
    fn prints_raw_only_outside_the_calendar() {
        assert_eq!(EpochMillis(i64::MIN).to_string(), i64::MIN.to_string());
    }
}
