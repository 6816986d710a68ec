//! [`QueueCapacity`]: a queue's configured `capacity` or `maximum-capacity`, in the mode it was
//! written in, and [`CapacityEntry`], what it says about one resource type.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::Resource;
use crate::error::SchedulerError;
use crate::property_reader::invalid;

const CAPACITY: &str = "a percentage between 0 and 100 (40), a weight (0w to 10000w), an absolute resource \
                        ([memory=10240,vcores=12]) or, outside legacy queue mode, a capacity \
                        vector ([memory=50%,vcores=2w])";
const MAXIMUM: &str = "-1, a percentage between 0 and 100, an absolute resource \
                       ([memory=10240,vcores=12]) or, outside legacy queue mode, a capacity vector \
                       of percentages and amounts ([memory=50%,vcores=8])";
const ENTRIES: &str = "memory (MB) and vcores, each once, as [memory=10240,vcores=12]: yarn-ha \
                       schedules no other resource type";
/// Hadoop's range for a weight.
const MAXIMUM_WEIGHT: f64 = 10_000.0;

/// The resource types a capacity speaks of, in the order vectors print them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResourceType {
    /// Memory, in MB.
    Memory,
    /// Virtual cores.
    Vcores,
}

impl ResourceType {
    /// Both, memory first.
    pub const ALL: [Self; 2] = [Self::Memory, Self::Vcores];

    /// The amount of this type in `resource`.
    pub fn of(self, resource: Resource) -> u64 {
        match self {
            Self::Memory => resource.memory_mb,
            Self::Vcores => u64::from(resource.vcores),
        }
    }

    /// The name a capacity vector uses.
    pub fn name(self) -> &'static str {
        match self {
            Self::Memory => "memory",
            Self::Vcores => "vcores",
        }
    }
}

/// What a capacity says about one resource type.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum CapacityEntry {
    /// A share of what the parent has left after its children's absolute amounts, percent.
    Percentage(f64),
    /// A share of what the parent has left after its children's absolute amounts and
    /// percentages, in proportion to the siblings' weights.
    Weight(f64),
    /// An amount: MB of memory, or vcores.
    Absolute(u64),
}

impl fmt::Display for CapacityEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Percentage(percent) => write!(f, "{percent}%"),
            Self::Weight(weight) => write!(f, "{weight}w"),
            Self::Absolute(amount) => write!(f, "{amount}"),
        }
    }
}

/// A queue's `capacity` or `maximum-capacity` as configured, in the mode it was written in.
///
/// Invariants, kept by the parsers: percentages are within 0 to 100, weights are finite and not
/// negative, and a maximum is never a weight.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum QueueCapacity {
    /// `40`: a share of the parent, percent, for every resource type.
    Percentage(f64),
    /// `3w`: a share of the parent in proportion to the siblings' weights.
    Weight(f64),
    /// `[memory=10240,vcores=12]`: amounts; a type left out is 0.
    Absolute(Resource),
    /// `[memory=50%,vcores=2w]`: a mode per resource type (outside legacy queue mode).
    Vector {
        /// The memory entry.
        memory: CapacityEntry,
        /// The vcores entry.
        vcores: CapacityEntry,
    },
}

impl QueueCapacity {
    /// All of the parent: root's capacity, and a maximum capacity that is unset or `-1`.
    pub const FULL: Self = Self::Percentage(100.0);

    /// What this capacity says about `resource`.
    pub fn entry(&self, resource: ResourceType) -> CapacityEntry {
        match *self {
            Self::Percentage(percent) => CapacityEntry::Percentage(percent),
            Self::Weight(weight) => CapacityEntry::Weight(weight),
            Self::Absolute(amounts) => CapacityEntry::Absolute(resource.of(amounts)),
            Self::Vector { memory, vcores } => match resource {
                ResourceType::Memory => memory,
                ResourceType::Vcores => vcores,
            },
        }
    }

    /// Hadoop's name for the mode: `percentage`, `weight`, `absolute`, or `vector` for a
    /// capacity vector.
    pub fn mode(&self) -> &'static str {
        match self {
            Self::Percentage(_) => "percentage",
            Self::Weight(_) => "weight",
            Self::Absolute(_) => "absolute",
            Self::Vector { .. } => "vector",
        }
    }

    /// The weight, for a weight capacity.
    pub fn weight(&self) -> Option<f64> {
        match self {
            Self::Weight(weight) => Some(*weight),
            _ => None,
        }
    }

    /// Whether any resource type is given as an amount, so that the queue's share of the
    /// cluster depends on the cluster's size.
    pub fn has_absolute(&self) -> bool {
        ResourceType::ALL
            .iter()
            .any(|&resource| matches!(self.entry(resource), CapacityEntry::Absolute(_)))
    }

    /// Parses the trimmed `value` of the `capacity` key `key`; capacity vectors only when
    /// `legacy` (`yarn.scheduler.capacity.legacy-queue-mode.enabled`) is false.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::InvalidValue`] naming the key, the value and the forms accepted.
    pub(crate) fn parse(key: &str, value: &str, legacy: bool) -> Result<Self, SchedulerError> {
        let capacity = parse_any(key, value, CAPACITY)?;
        check_vector_allowed(key, value, &capacity, legacy)?;
        Ok(capacity)
    }

    /// Parses the trimmed `value` of the `maximum-capacity` key `key`, where `-1` means
    /// [`FULL`](Self::FULL); a weight, or a vector entry that is one, is refused, as Hadoop has
    /// no weight mode for maximum capacities.
    ///
    /// # Errors
    ///
    /// As [`parse`](Self::parse).
    pub(crate) fn parse_maximum(
        key: &str,
        value: &str,
        legacy: bool,
    ) -> Result<Self, SchedulerError> {
        if value.parse::<f64>() == Ok(-1.0) {
            return Ok(Self::FULL);
        }
        let maximum = parse_any(key, value, MAXIMUM)?;
        let weighted = ResourceType::ALL
            .iter()
            .any(|&resource| matches!(maximum.entry(resource), CapacityEntry::Weight(_)));
        if weighted {
            return Err(invalid(key, value, MAXIMUM));
        }
        check_vector_allowed(key, value, &maximum, legacy)?;
        Ok(maximum)
    }
}

/// Prints the value as it would be configured: `40`, `3w`, `[memory=10240,vcores=12]` or
/// `[memory=50%,vcores=2w]`.
impl fmt::Display for QueueCapacity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Percentage(percent) => write!(f, "{percent}"),
            Self::Weight(weight) => write!(f, "{weight}w"),
            Self::Absolute(amounts) => write!(
                f,
                "[memory={},vcores={}]",
                amounts.memory_mb, amounts.vcores
            ),
            Self::Vector { memory, vcores } => write!(f, "[memory={memory},vcores={vcores}]"),
        }
    }
}

fn check_vector_allowed(
    key: &str,
    value: &str,
    capacity: &QueueCapacity,
    legacy: bool,
) -> Result<(), SchedulerError> {
    if legacy && matches!(capacity, QueueCapacity::Vector { .. }) {
        return Err(SchedulerError::CapacityVectorInLegacyMode {
            key: key.to_string(),
            value: value.to_string(),
        });
    }
    Ok(())
}

/// A percentage, a weight or a bracketed list of entries.
fn parse_any(
    key: &str,
    value: &str,
    expected: &'static str,
) -> Result<QueueCapacity, SchedulerError> {
    let bad = || invalid(key, value, expected);
    if let Some(entries) = value
        .strip_prefix('[')
        .and_then(|rest| rest.strip_suffix(']'))
    {
        return parse_entries(key, value, entries);
    }
    if let Some(weight) = value.strip_suffix('w') {
        return parse_weight(weight)
            .map(QueueCapacity::Weight)
            .ok_or_else(bad);
    }
    match value.parse::<f64>() {
        // `+ 0.0` turns a written `-0` into 0, which prints as such.
        Ok(percent) if (0.0..=100.0).contains(&percent) => {
            Ok(QueueCapacity::Percentage(percent + 0.0))
        }
        _ => Err(bad()),
    }
}

/// `memory=...,vcores=...`: plain amounts make an absolute resource (a type left out is 0, as
/// in Hadoop); any `%` or `w` entry makes a vector, which must then name both types.
fn parse_entries(key: &str, value: &str, entries: &str) -> Result<QueueCapacity, SchedulerError> {
    let mut memory = None;
    let mut vcores = None;
    // Hadoop drops empty entries, as a trailing comma leaves.
    for entry in entries.split(',').filter(|entry| !entry.trim().is_empty()) {
        let (name, amount) = entry
            .split_once('=')
            .ok_or_else(|| invalid(key, value, ENTRIES))?;
        let (slot, resource) = match name.trim() {
            "memory" | "memory-mb" => (&mut memory, ResourceType::Memory),
            "vcores" => (&mut vcores, ResourceType::Vcores),
            _ => return Err(invalid(key, value, ENTRIES)),
        };
        if slot.is_some() {
            return Err(invalid(key, value, ENTRIES));
        }
        *slot = Some(parse_entry(key, value, resource, amount.trim())?);
    }
    let is_amount = |entry: Option<CapacityEntry>| {
        entry.is_none_or(|entry| matches!(entry, CapacityEntry::Absolute(_)))
    };
    if is_amount(memory) && is_amount(vcores) {
        let amount = |entry: Option<CapacityEntry>| match entry {
            Some(CapacityEntry::Absolute(amount)) => amount,
            _ => 0,
        };
        let vcores = u32::try_from(amount(vcores)).map_err(|_| invalid(key, value, ENTRIES))?;
        return Ok(QueueCapacity::Absolute(Resource::new(
            amount(memory),
            vcores,
        )));
    }
    match (memory, vcores) {
        (Some(memory), Some(vcores)) => Ok(QueueCapacity::Vector { memory, vcores }),
        _ => Err(invalid(
            key,
            value,
            "a capacity vector naming both memory and vcores, as [memory=50%,vcores=2w]",
        )),
    }
}

fn parse_entry(
    key: &str,
    value: &str,
    resource: ResourceType,
    amount: &str,
) -> Result<CapacityEntry, SchedulerError> {
    const ENTRY: &str = "each entry a percentage (50%), a weight (0w to 10000w) or a whole amount \
                         not below 0 (memory in MB, or in Mi, Gi or Ti)";
    let bad = || invalid(key, value, ENTRY);
    if let Some(percent) = amount.strip_suffix('%') {
        return match percent.trim().parse::<f64>() {
            Ok(percent) if (0.0..=100.0).contains(&percent) => {
                Ok(CapacityEntry::Percentage(percent + 0.0))
            }
            _ => Err(bad()),
        };
    }
    if let Some(weight) = amount.strip_suffix('w') {
        return parse_weight(weight)
            .map(CapacityEntry::Weight)
            .ok_or_else(bad);
    }
    parse_amount(amount, resource)
        .map(CapacityEntry::Absolute)
        .ok_or_else(bad)
}

/// A weight within Hadoop's range, 0 to 10000.
fn parse_weight(weight: &str) -> Option<f64> {
    weight
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|weight| (0.0..=MAXIMUM_WEIGHT).contains(weight))
        .map(|weight| weight + 0.0)
}

/// A whole amount; memory in MB, or with Hadoop's binary units `Mi`, `Gi` or `Ti`.
fn parse_amount(amount: &str, resource: ResourceType) -> Option<u64> {
    let (number, unit) = match resource {
        ResourceType::Memory => [("Ti", 1024 * 1024), ("Gi", 1024), ("Mi", 1)]
            .into_iter()
            .find_map(|(suffix, unit)| Some((amount.strip_suffix(suffix)?, unit)))
            .unwrap_or((amount, 1)),
        ResourceType::Vcores => (amount, 1),
    };
    let amount = number.parse::<u64>().ok()?.checked_mul(unit)?;
    // Vcores are counted in 32 bits.
    (resource == ResourceType::Memory || u32::try_from(amount).is_ok()).then_some(amount)
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "yarn.scheduler.capacity.root.a.capacity";

    fn parse(value: &str) -> Result<QueueCapacity, SchedulerError> {
        QueueCapacity::parse(KEY, value, false)
    }

    #[test]
    fn every_mode_parses_and_prints_as_configured() {
        for (value, capacity, printed) in [
            ("12.5", QueueCapacity::Percentage(12.5), "12.5"),
            ("3w", QueueCapacity::Weight(3.0), "3w"),
            ("1.5w", QueueCapacity::Weight(1.5), "1.5w"),
            (
                "[memory=10240,vcores=12]",
                QueueCapacity::Absolute(Resource::new(10240, 12)),
                "[memory=10240,vcores=12]",
            ),
            (
                "[memory-mb=2048]",
                QueueCapacity::Absolute(Resource::new(2048, 0)),
                "[memory=2048,vcores=0]",
            ),
            (
                "[memory=10Gi, vcores=12]",
                QueueCapacity::Absolute(Resource::new(10240, 12)),
                "[memory=10240,vcores=12]",
            ),
            (
                "[memory=1024,]",
                QueueCapacity::Absolute(Resource::new(1024, 0)),
                "[memory=1024,vcores=0]",
            ),
            ("-0", QueueCapacity::Percentage(0.0), "0"),
            ("-0w", QueueCapacity::Weight(0.0), "0w"),
            (
                "[memory=50%, vcores=2w]",
                QueueCapacity::Vector {
                    memory: CapacityEntry::Percentage(50.0),
                    vcores: CapacityEntry::Weight(2.0),
                },
                "[memory=50%,vcores=2w]",
            ),
            (
                "[memory=1w,vcores=4]",
                QueueCapacity::Vector {
                    memory: CapacityEntry::Weight(1.0),
                    vcores: CapacityEntry::Absolute(4),
                },
                "[memory=1w,vcores=4]",
            ),
        ] {
            let parsed = parse(value).unwrap_or_else(|err| panic!("{value}: {err}"));
            assert_eq!(parsed, capacity, "{value}");
            assert_eq!(parsed.to_string(), printed);
        }
        assert_eq!(
            QueueCapacity::parse_maximum(KEY, "-1", true).unwrap(),
            QueueCapacity::FULL
        );
    }

    #[test]
    fn malformed_values_are_refused_naming_the_key_the_value_and_the_forms() {
        for value in [
            "12x",
            "160",
            "-1",
            "NaN",
            "inf",
            "half",
            "w",
            "-2w",
            "10001w",
            "[memory=-1]",
            "[memory=10G,vcores=1]",
            "[memory=1024,vcores=2Gi]",
            "[memory=1024,gpu=1]",
            "[memory=1024,memory=2048]",
            "[memory=50%]",
            "[memory=150%,vcores=1w]",
            "[memory 1024]",
            "[vcores=99999999999]",
            "[memory=50%,vcores=99999999999]",
        ] {
            let err = parse(value).unwrap_err();
            let message = err.to_string();
            assert!(
                matches!(err, SchedulerError::InvalidValue { .. })
                    && message.starts_with(&format!("key {KEY}: value {value:?} is invalid")),
                "{value}: {message}"
            );
        }
        for value in ["2w", "[memory=50%,vcores=1w]", "-2", "101"] {
            let err = QueueCapacity::parse_maximum(KEY, value, false).unwrap_err();
            assert!(
                err.to_string().contains("-1, a percentage"),
                "{value}: {err}"
            );
        }
    }

    #[test]
    fn vectors_need_flexible_queue_mode() {
        let err = QueueCapacity::parse(KEY, "[memory=50%,vcores=2w]", true).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "key {KEY}: value \"[memory=50%,vcores=2w]\" is a capacity vector, which needs \
                 yarn.scheduler.capacity.legacy-queue-mode.enabled=false"
            )
        );
        assert!(QueueCapacity::parse(KEY, "[memory=1024,vcores=1]", true).is_ok());
        assert!(QueueCapacity::parse(KEY, "2w", true).is_ok());
    }
}
