//! [`ActivitiesSettings`]: how long the leader keeps the activities it records, from
//! `yarn.resourcemanager.activities-manager.*`.

use std::time::Duration;

use yarn_conf::{ConfError, Configuration, keys};

use super::monitor_policies::positive_millis;

/// Hadoop's activities-manager keys.
///
/// Invariant: every duration is positive and `app_max_queue_length` at least 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ActivitiesSettings {
    /// `cleanup-interval-ms`: between two clean-ups of what expired.
    pub cleanup_interval: Duration,
    /// `scheduler-activities.ttl-ms`: how long a recorded pass is kept.
    pub scheduler_ttl: Duration,
    /// `app-activities.ttl-ms`: how long an application's activities are kept after the last.
    pub app_ttl: Duration,
    /// `app-activities.max-queue-length`: the most activities kept per application.
    pub app_max_queue_length: usize,
}

impl Default for ActivitiesSettings {
    fn default() -> Self {
        Self {
            cleanup_interval: Duration::from_millis(5_000),
            scheduler_ttl: Duration::from_millis(600_000),
            app_ttl: Duration::from_millis(600_000),
            app_max_queue_length: 100,
        }
    }
}

impl ActivitiesSettings {
    /// Reads the keys.
    ///
    /// # Errors
    ///
    /// A [`ConfError`] naming the key: a duration that is not a positive number of
    /// milliseconds, or a queue length below 1.
    pub fn from_conf(conf: &Configuration) -> Result<Self, ConfError> {
        let length_key = &keys::RM_ACTIVITIES_MANAGER_APP_ACTIVITIES_MAX_QUEUE_LENGTH;
        let length = conf.get_i32(length_key)?;
        let app_max_queue_length = match usize::try_from(length) {
            Ok(length) if length > 0 => length,
            _ => return Err(conf.invalid_value(length_key, length, "at least 1")),
        };
        Ok(Self {
            cleanup_interval: positive_millis(
                conf,
                &keys::RM_ACTIVITIES_MANAGER_CLEANUP_INTERVAL_MS,
            )?,
            scheduler_ttl: positive_millis(
                conf,
                &keys::RM_ACTIVITIES_MANAGER_SCHEDULER_ACTIVITIES_TTL_MS,
            )?,
            app_ttl: positive_millis(conf, &keys::RM_ACTIVITIES_MANAGER_APP_ACTIVITIES_TTL_MS)?,
            app_max_queue_length,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(pairs: &[(&str, &str)]) -> Result<ActivitiesSettings, ConfError> {
        let mut conf = Configuration::new();
        for (key, value) in pairs {
            conf.set(key, value);
        }
        ActivitiesSettings::from_conf(&conf)
    }

    #[test]
    fn hadoops_defaults_the_values_set_and_bad_ones_refused_by_name() {
        assert_eq!(read(&[]).unwrap(), ActivitiesSettings::default());
        let set = read(&[
            (
                "yarn.resourcemanager.activities-manager.cleanup-interval-ms",
                "100",
            ),
            (
                "yarn.resourcemanager.activities-manager.app-activities.max-queue-length",
                "7",
            ),
        ])
        .unwrap();
        assert_eq!(set.cleanup_interval, Duration::from_millis(100));
        assert_eq!(set.app_max_queue_length, 7);
        for (key, value) in [
            (
                "yarn.resourcemanager.activities-manager.cleanup-interval-ms",
                "0",
            ),
            (
                "yarn.resourcemanager.activities-manager.scheduler-activities.ttl-ms",
                "-1",
            ),
            (
                "yarn.resourcemanager.activities-manager.app-activities.ttl-ms",
                "soon",
            ),
            (
                "yarn.resourcemanager.activities-manager.app-activities.max-queue-length",
                "0",
            ),
        ] {
            let message = read(&[(key, value)]).unwrap_err().to_string();
            assert!(
                message.contains(key) && message.contains(value),
                "{message}"
            );
        }
    }
}
