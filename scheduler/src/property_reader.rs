//! [`PropertyReader`]: typed reads from the resolved `capacity-scheduler.xml` property map.

use std::collections::BTreeMap;
use std::str::FromStr;

use crate::error::SchedulerError;

/// The prefix of every CapacityScheduler key.
pub(crate) const PREFIX: &str = "yarn.scheduler.capacity.";

/// Reads typed values from the property map. Empty or whitespace-only values count as unset, as
/// Hadoop's typed getters treat them; every parse failure names the key, the value and what was
/// expected.
pub(crate) struct PropertyReader<'a> {
    properties: &'a BTreeMap<String, String>,
}

impl<'a> PropertyReader<'a> {
    pub(crate) fn new(properties: &'a BTreeMap<String, String>) -> Self {
        Self { properties }
    }

    /// The trimmed value of `key`, `None` when unset or blank.
    pub(crate) fn get(&self, key: &str) -> Option<&'a str> {
        self.properties
            .get(key)
            .map(|value| value.trim())
            .filter(|value| !value.is_empty())
    }

    /// Every key, in order.
    pub(crate) fn keys(&self) -> impl Iterator<Item = &'a str> {
        self.properties.keys().map(String::as_str)
    }

    /// The untrimmed value of `key`, for values where whitespace is meaningful (ACLs).
    pub(crate) fn get_untrimmed(&self, key: &str) -> Option<&'a str> {
        self.properties.get(key).map(String::as_str)
    }

    /// Parses `key` as `T`, failing with `expected` in the message.
    pub(crate) fn parse<T: FromStr>(
        &self,
        key: &str,
        expected: &'static str,
    ) -> Result<Option<T>, SchedulerError> {
        match self.get(key) {
            None => Ok(None),
            Some(value) => value
                .parse::<T>()
                .map(Some)
                .map_err(|_| invalid(key, value, expected)),
        }
    }

    /// Parses `key` as `true` or `false`, in any case.
    pub(crate) fn boolean(&self, key: &str) -> Result<Option<bool>, SchedulerError> {
        match self.get(key) {
            None => Ok(None),
            Some(value) if value.eq_ignore_ascii_case("true") => Ok(Some(true)),
            Some(value) if value.eq_ignore_ascii_case("false") => Ok(Some(false)),
            Some(value) => Err(invalid(key, value, "true or false")),
        }
    }

    /// Parses `key` as a finite float accepted by `valid`, failing with `expected`.
    pub(crate) fn float_in(
        &self,
        key: &str,
        expected: &'static str,
        valid: impl Fn(f64) -> bool,
    ) -> Result<Option<f64>, SchedulerError> {
        match self.parse::<f64>(key, expected)? {
            Some(value) if !value.is_finite() || !valid(value) => {
                Err(invalid(key, self.get(key).unwrap_or_default(), expected))
            }
            other => Ok(other),
        }
    }

    /// Every `(middle, value)` for keys of the form `<prefix><middle><suffix>` where `middle`
    /// is non-empty; it may hold dots, as user names such as `first.last` do.
    pub(crate) fn with_prefix_and_suffix(
        &self,
        prefix: &str,
        suffix: &str,
    ) -> Vec<(&'a str, &'a str)> {
        self.properties
            .range::<str, _>((
                std::ops::Bound::Included(prefix),
                std::ops::Bound::Unbounded,
            ))
            .take_while(|(key, _)| key.starts_with(prefix))
            .filter_map(|(key, value)| {
                let middle = key[prefix.len()..].strip_suffix(suffix)?;
                (!middle.is_empty()).then_some((middle, value.as_str()))
            })
            .collect()
    }
}

/// A bad value error for `key`.
pub(crate) fn invalid(key: &str, value: &str, expected: &'static str) -> SchedulerError {
    SchedulerError::InvalidValue {
        key: key.to_string(),
        value: value.to_string(),
        expected,
    }
}
