//! [`QueueCapacity`]: a queue's configured `capacity` or `maximum-capacity`.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::error::SchedulerError;
use crate::property_reader::invalid;

const PERCENT: &str = "a percentage between 0 and 100";
const MAXIMUM_PERCENT: &str = "-1 or a percentage between 0 and 100";

/// A queue's `capacity` or `maximum-capacity` as configured, in the mode it was written in.
///
/// Only percentages of the parent are supported yet. YARN's other modes, weights (`2w`),
/// absolute resources (`[memory=1024,vcores=1]`) and capacity vectors
/// (`[memory=50%,vcores=2w]`), are refused when the configuration is built, with
/// [`SchedulerError::UnsupportedCapacityMode`]. Callers do their arithmetic through
/// [`percent`](Self::percent) and [`absolute`](Self::absolute), never on the variant, so a new
/// mode carries its resolved share in its variant and leaves them unchanged; other crates cannot
/// match exhaustively.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum QueueCapacity {
    /// A share of the parent queue, percent (0 to 100).
    Percentage(f64),
}

impl QueueCapacity {
    /// All of the parent: root's capacity, and a maximum capacity that is unset or `-1`.
    pub const FULL: Self = Self::Percentage(100.0);

    /// The share of the parent queue, percent (0 to 100).
    pub fn percent(&self) -> f64 {
        match self {
            Self::Percentage(percent) => *percent,
        }
    }

    /// The share of the whole cluster, percent, for a parent holding `parent_absolute` percent
    /// of the cluster.
    pub fn absolute(&self, parent_absolute: f64) -> f64 {
        parent_absolute * self.percent() / 100.0
    }

    /// Parses the trimmed `value` of the `capacity` key `key`.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::UnsupportedCapacityMode`] for a weight, absolute resource or capacity
    /// vector; [`SchedulerError::InvalidValue`] for anything else that is not a percentage
    /// between 0 and 100.
    pub(crate) fn parse(key: &str, value: &str) -> Result<Self, SchedulerError> {
        Self::parse_percentage(key, value, PERCENT)
    }

    /// Parses the trimmed `value` of the `maximum-capacity` key `key`, where `-1` means
    /// [`FULL`](Self::FULL).
    ///
    /// # Errors
    ///
    /// As [`parse`](Self::parse).
    pub(crate) fn parse_maximum(key: &str, value: &str) -> Result<Self, SchedulerError> {
        match value.parse::<f64>() {
            Ok(-1.0) => Ok(Self::FULL),
            _ => Self::parse_percentage(key, value, MAXIMUM_PERCENT),
        }
    }

    fn parse_percentage(
        key: &str,
        value: &str,
        expected: &'static str,
    ) -> Result<Self, SchedulerError> {
        match value.parse::<f64>() {
            Ok(percent) if (0.0..=100.0).contains(&percent) => Ok(Self::Percentage(percent)),
            Ok(_) => Err(invalid(key, value, expected)),
            Err(_) => match other_mode(value) {
                Some(mode) => Err(SchedulerError::UnsupportedCapacityMode {
                    key: key.to_string(),
                    value: value.to_string(),
                    mode,
                }),
                None => Err(invalid(key, value, expected)),
            },
        }
    }
}

/// Prints the value as it would be configured: `40` or `12.5`.
impl fmt::Display for QueueCapacity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Percentage(percent) => write!(f, "{percent}"),
        }
    }
}

/// The YARN capacity mode `value` is written in, when it is not a percentage: `2w` is a
/// weight; a bracketed list is an absolute resource when every entry is a plain amount, and a
/// capacity vector when an entry carries `%` or `w`.
fn other_mode(value: &str) -> Option<&'static str> {
    if let Some(entries) = value
        .strip_prefix('[')
        .and_then(|rest| rest.strip_suffix(']'))
    {
        let mixed = entries
            .split(',')
            .filter_map(|entry| entry.split_once('=').map(|(_, amount)| amount.trim()))
            .any(|amount| amount.ends_with('%') || amount.ends_with('w'));
        return Some(if mixed {
            "capacity vector"
        } else {
            "absolute resource"
        });
    }
    let weight = value.strip_suffix('w')?.trim();
    weight.parse::<f64>().is_ok().then_some("weight")
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "yarn.scheduler.capacity.root.a.capacity";

    #[test]
    fn percentages_parse_and_resolve_against_the_parent() {
        let capacity = QueueCapacity::parse(KEY, "12.5").unwrap();
        assert_eq!(capacity, QueueCapacity::Percentage(12.5));
        assert_eq!(capacity.percent(), 12.5);
        assert_eq!(capacity.absolute(40.0), 5.0);
        assert_eq!(capacity.to_string(), "12.5");
        assert_eq!(
            QueueCapacity::parse_maximum(KEY, "-1").unwrap(),
            QueueCapacity::FULL
        );
        assert_eq!(QueueCapacity::FULL.absolute(60.0), 60.0);
    }

    #[test]
    fn other_modes_are_named_and_refused() {
        for (value, mode) in [
            ("2w", "weight"),
            ("1.5w", "weight"),
            ("[memory=1024,vcores=1]", "absolute resource"),
            ("[memory=50%, vcores=2w, gpu=1]", "capacity vector"),
        ] {
            let err = QueueCapacity::parse(KEY, value).unwrap_err();
            let SchedulerError::UnsupportedCapacityMode { mode: found, .. } = &err else {
                panic!("{value}: {err:?}");
            };
            assert_eq!(*found, mode, "{value}");
            let message = err.to_string();
            assert!(
                message.contains(KEY) && message.contains(value),
                "{message}"
            );
            assert!(
                message.contains("only percentages (0 to 100) are supported yet"),
                "{message}"
            );
        }
    }

    #[test]
    fn out_of_range_and_malformed_values_are_invalid() {
        for value in ["160", "-1", "NaN", "inf", "half", "w"] {
            let err = QueueCapacity::parse(KEY, value).unwrap_err();
            assert!(
                matches!(err, SchedulerError::InvalidValue { .. }),
                "{value}: {err:?}"
            );
        }
        for value in ["-2", "101"] {
            let err = QueueCapacity::parse_maximum(KEY, value).unwrap_err();
            assert!(err.to_string().contains("-1 or a percentage"), "{err}");
        }
    }
}
