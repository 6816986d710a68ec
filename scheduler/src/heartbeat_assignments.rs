//! [`HeartbeatAssignments`]: how many containers a node takes between two of its heartbeats
//! when scheduling is driven by heartbeats, as Hadoop's `CapacityScheduler.canAllocateMore`
//! decides.

use std::collections::BTreeMap;

use crate::error::SchedulerError;
use crate::property_reader::PropertyReader;

/// `yarn.scheduler.capacity.schedule-asynchronously.enable`: whether the scheduler places
/// containers on its own loop rather than on node heartbeats.
pub const SCHEDULE_ASYNCHRONOUSLY_KEY: &str =
    "yarn.scheduler.capacity.schedule-asynchronously.enable";
/// `yarn.scheduler.capacity.per-node-heartbeat.multiple-assignments-enabled`.
pub const MULTIPLE_ASSIGNMENTS_KEY: &str =
    "yarn.scheduler.capacity.per-node-heartbeat.multiple-assignments-enabled";
/// `yarn.scheduler.capacity.per-node-heartbeat.maximum-container-assignments`.
pub const MAXIMUM_CONTAINER_ASSIGNMENTS_KEY: &str =
    "yarn.scheduler.capacity.per-node-heartbeat.maximum-container-assignments";
/// `yarn.scheduler.capacity.per-node-heartbeat.maximum-offswitch-assignments`.
pub const MAXIMUM_OFFSWITCH_ASSIGNMENTS_KEY: &str =
    "yarn.scheduler.capacity.per-node-heartbeat.maximum-offswitch-assignments";

/// The limits of heartbeat-driven scheduling, without effect when it is asynchronous.
const PER_NODE_HEARTBEAT_KEYS: [&str; 3] = [
    MULTIPLE_ASSIGNMENTS_KEY,
    MAXIMUM_CONTAINER_ASSIGNMENTS_KEY,
    MAXIMUM_OFFSWITCH_ASSIGNMENTS_KEY,
];

/// Every key this module reads.
pub(crate) const HEARTBEAT_ASSIGNMENT_KEYS: [&str; 4] = [
    SCHEDULE_ASYNCHRONOUSLY_KEY,
    PER_NODE_HEARTBEAT_KEYS[0],
    PER_NODE_HEARTBEAT_KEYS[1],
    PER_NODE_HEARTBEAT_KEYS[2],
];

const LIMIT: &str = "a whole number of containers (-1: no limit)";

/// The per-heartbeat limits of heartbeat-driven scheduling.
///
/// yarn-ha's leader schedules on its own loop, as Hadoop does with
/// `schedule-asynchronously.enable=true`, where Hadoop applies no per-heartbeat limit; that is
/// yarn-ha's default, unlike Hadoop's. With `schedule-asynchronously.enable=false` a node takes,
/// between two of its heartbeats, what Hadoop's heartbeat would give it: one container, and
/// more only while `multiple-assignments-enabled` holds, fewer than
/// `maximum-container-assignments` were placed (-1: no limit) and fewer than
/// `maximum-offswitch-assignments` of them were off-switch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeartbeatAssignments {
    /// `multiple-assignments-enabled`: true.
    pub multiple: bool,
    /// `maximum-container-assignments`: 100; `None` for -1.
    pub maximum_containers: Option<u32>,
    /// `maximum-offswitch-assignments`: 1.
    pub maximum_off_switch: u32,
}

impl Default for HeartbeatAssignments {
    fn default() -> Self {
        Self {
            multiple: true,
            maximum_containers: Some(100),
            maximum_off_switch: 1,
        }
    }
}

impl HeartbeatAssignments {
    /// The limits in force: `None` when scheduling is asynchronous (the default). As Hadoop, a
    /// negative container limit other than -1 allows one container per heartbeat, and an
    /// off-switch limit below 1 is taken as 1, with a warning in `warnings`.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::InvalidValue`] naming the key for a value that is not a boolean or a
    /// whole number.
    pub(crate) fn from_reader(
        reader: &PropertyReader<'_>,
        warnings: &mut Vec<String>,
    ) -> Result<Option<Self>, SchedulerError> {
        if reader.boolean(SCHEDULE_ASYNCHRONOUSLY_KEY)?.unwrap_or(true) {
            return Ok(None);
        }
        let defaults = Self::default();
        let multiple = reader
            .boolean(MULTIPLE_ASSIGNMENTS_KEY)?
            .unwrap_or(defaults.multiple);
        let maximum_containers =
            match reader.parse::<i64>(MAXIMUM_CONTAINER_ASSIGNMENTS_KEY, LIMIT)? {
                None => defaults.maximum_containers,
                Some(-1) => None,
                Some(value) => Some(u32::try_from(value.max(0)).unwrap_or(u32::MAX)),
            };
        let maximum_off_switch =
            match reader.parse::<i64>(MAXIMUM_OFFSWITCH_ASSIGNMENTS_KEY, LIMIT)? {
                None => defaults.maximum_off_switch,
                Some(value) if value < 1 => {
                    warnings.push(format!(
                        "{MAXIMUM_OFFSWITCH_ASSIGNMENTS_KEY} is {value}; taken as 1, as Hadoop does"
                    ));
                    1
                }
                Some(value) => u32::try_from(value).unwrap_or(u32::MAX),
            };
        Ok(Some(Self {
            multiple,
            maximum_containers,
            maximum_off_switch,
        }))
    }

    /// Whether a node that took `assigned` containers since its last heartbeat, `off_switch` of
    /// them off-switch, may take another: the first always, more only within the limits.
    pub fn allows_another(&self, assigned: u32, off_switch: u32) -> bool {
        assigned == 0
            || (self.multiple
                && self
                    .maximum_containers
                    .is_none_or(|maximum| assigned < maximum)
                && off_switch < self.maximum_off_switch)
    }
}

/// The warning, by key, for each per-node-heartbeat key `properties` (a `capacity-scheduler.xml`)
/// sets while scheduling is asynchronous, where it has no effect (in Hadoop too).
pub fn heartbeat_key_warnings(properties: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    let reader = PropertyReader::new(properties);
    if matches!(reader.boolean(SCHEDULE_ASYNCHRONOUSLY_KEY), Ok(Some(false))) {
        return BTreeMap::new();
    }
    PER_NODE_HEARTBEAT_KEYS
        .iter()
        .filter(|key| reader.get(key).is_some())
        .map(|key| {
            let warning = format!(
                "{key} is not honoured: it limits heartbeat-driven scheduling, which yarn-ha does \
                 only with {SCHEDULE_ASYNCHRONOUSLY_KEY}=false (Hadoop ignores it too when \
                 scheduling asynchronously)"
            );
            ((*key).to_owned(), warning)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn properties(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    fn read(
        pairs: &[(&str, &str)],
    ) -> (
        Result<Option<HeartbeatAssignments>, SchedulerError>,
        Vec<String>,
    ) {
        let map = properties(pairs);
        let mut warnings = Vec::new();
        let read = HeartbeatAssignments::from_reader(&PropertyReader::new(&map), &mut warnings);
        (read, warnings)
    }

    #[test]
    fn asynchronous_by_default_and_per_heartbeat_keys_then_warned() {
        let set = [(MAXIMUM_OFFSWITCH_ASSIGNMENTS_KEY, "3")];
        assert_eq!(read(&set).0.unwrap(), None);
        let warnings = heartbeat_key_warnings(&properties(&set));
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[MAXIMUM_OFFSWITCH_ASSIGNMENTS_KEY]
                .starts_with(MAXIMUM_OFFSWITCH_ASSIGNMENTS_KEY)
        );
        let driven = [(SCHEDULE_ASYNCHRONOUSLY_KEY, "FALSE"), set[0]];
        assert!(heartbeat_key_warnings(&properties(&driven)).is_empty());
        assert_eq!(
            read(&driven).0.unwrap(),
            Some(HeartbeatAssignments {
                maximum_off_switch: 3,
                ..HeartbeatAssignments::default()
            })
        );
    }

    #[test]
    fn limits_follow_can_allocate_more() {
        let hadoop = HeartbeatAssignments::default();
        assert!(hadoop.allows_another(0, 0));
        assert!(hadoop.allows_another(5, 0), "node-local ones up to 100");
        assert!(!hadoop.allows_another(100, 0));
        assert!(
            !hadoop.allows_another(1, 1),
            "one off-switch ends the heartbeat"
        );
        let single = HeartbeatAssignments {
            multiple: false,
            ..hadoop
        };
        assert!(single.allows_another(0, 0));
        assert!(!single.allows_another(1, 0));
        let unlimited = HeartbeatAssignments {
            maximum_containers: None,
            maximum_off_switch: 3,
            ..hadoop
        };
        assert!(unlimited.allows_another(10_000, 2));
        assert!(!unlimited.allows_another(10_000, 3));
    }

    #[test]
    fn out_of_range_limits_are_read_as_hadoop_reads_them_and_garbage_is_refused() {
        let (limits, warnings) = read(&[
            (SCHEDULE_ASYNCHRONOUSLY_KEY, "false"),
            (MAXIMUM_CONTAINER_ASSIGNMENTS_KEY, "-2"),
            (MAXIMUM_OFFSWITCH_ASSIGNMENTS_KEY, "0"),
        ]);
        assert_eq!(
            limits.unwrap(),
            Some(HeartbeatAssignments {
                multiple: true,
                maximum_containers: Some(0),
                maximum_off_switch: 1,
            })
        );
        assert!(warnings[0].contains("taken as 1"), "{warnings:?}");
        for (key, value) in [
            (SCHEDULE_ASYNCHRONOUSLY_KEY, "sometimes"),
            (MAXIMUM_CONTAINER_ASSIGNMENTS_KEY, "many"),
        ] {
            let pairs = [(SCHEDULE_ASYNCHRONOUSLY_KEY, "false"), (key, value)];
            let message = read(&pairs).0.unwrap_err().to_string();
            assert!(
                message.contains(key) && message.contains(value),
                "{message}"
            );
        }
    }
}
