//! [`QueueConfigSource`]: where the leader reads `capacity-scheduler.xml` from.

use std::collections::BTreeMap;
use std::path::PathBuf;

use yarn_conf::Configuration;
use yarn_scheduler::{CapacitySchedulerConfiguration, SchedulerSettings};
use yarn_security::Groups;

use crate::Error;

/// The prefix of every property the CapacityScheduler reads from `capacity-scheduler.xml`.
const PREFIX: &str = "yarn.scheduler.capacity.";

/// The file name Hadoop reads the CapacityScheduler's configuration from, beside
/// `yarn-site.xml`.
pub const CAPACITY_SCHEDULER_XML: &str = "capacity-scheduler.xml";

/// The leader's local `capacity-scheduler.xml` and the `yarn-site.xml` settings it is
/// interpreted with.
///
/// Only the leader reads the file: the properties it finds travel through Raft, so every
/// replica schedules with the same queues whatever its own copy of the file says.
#[derive(Debug, Clone, PartialEq)]
pub struct QueueConfigSource {
    /// The file; `None`, or a file that does not exist, means Hadoop's shipped default: one
    /// queue, `root.default`, owning the whole cluster.
    pub file: Option<PathBuf>,
    /// Allocation limits, maximum priority and ACL switches from `yarn-site.xml`.
    pub settings: SchedulerSettings,
    /// Where the users named in ACL checks get their groups from (`hadoop.security.group*`).
    pub groups: Groups,
}

impl QueueConfigSource {
    /// Reads the file's `yarn.scheduler.capacity.*` properties, `${...}` references resolved.
    ///
    /// # Errors
    ///
    /// [`Error::ReadQueueConfiguration`] naming the file and what is wrong with it.
    pub fn read_properties(&self) -> Result<BTreeMap<String, String>, Error> {
        let Some(file) = self.file.as_ref().filter(|file| file.exists()) else {
            return Ok(default_properties());
        };
        let mut conf = Configuration::new();
        conf.add_resource_file(file)
            .map_err(|source| Error::ReadQueueConfiguration { source })?;
        let mut properties = BTreeMap::new();
        let names: Vec<String> = conf
            .names()
            .filter(|name| name.starts_with(PREFIX))
            .map(str::to_owned)
            .collect();
        for name in names {
            let value = conf
                .get(&name)
                .map_err(|source| Error::ReadQueueConfiguration { source })?;
            if let Some(value) = value {
                properties.insert(name, value);
            }
        }
        Ok(properties)
    }

    /// Builds and validates the configuration `properties` describe.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidQueueConfiguration`] with the scheduler's precise reason.
    pub fn parse(
        &self,
        properties: BTreeMap<String, String>,
    ) -> Result<CapacitySchedulerConfiguration, Error> {
        CapacitySchedulerConfiguration::new(properties, self.settings.clone()).map_err(|source| {
            Error::InvalidQueueConfiguration {
                file: self.describe(),
                source: Box::new(source),
            }
        })
    }

    /// Reads and validates the file.
    ///
    /// # Errors
    ///
    /// Those of [`read_properties`](Self::read_properties) and [`parse`](Self::parse).
    pub fn load(&self) -> Result<CapacitySchedulerConfiguration, Error> {
        self.parse(self.read_properties()?)
    }

    /// The file's path, or a note that the built-in default is in use.
    pub fn describe(&self) -> String {
        match &self.file {
            Some(file) if file.exists() => file.display().to_string(),
            Some(file) => format!("{} (absent: built-in default)", file.display()),
            None => format!("{CAPACITY_SCHEDULER_XML} (none configured: built-in default)"),
        }
    }
}

/// Hadoop's shipped `capacity-scheduler.xml` in short: `root.default` with all of the cluster.
fn default_properties() -> BTreeMap<String, String> {
    BTreeMap::from([
        (format!("{PREFIX}root.queues"), "default".to_owned()),
        (format!("{PREFIX}root.default.capacity"), "100".to_owned()),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(file: Option<PathBuf>) -> QueueConfigSource {
        QueueConfigSource {
            file,
            settings: SchedulerSettings::default(),
            groups: Groups::fixed(BTreeMap::new()),
        }
    }

    /// Writes `properties` as `capacity-scheduler.xml` in `dir` and returns its path.
    fn write_file(dir: &tempfile::TempDir, properties: &[(&str, &str)]) -> PathBuf {
        let file = dir.path().join(CAPACITY_SCHEDULER_XML);
        std::fs::write(
            &file,
            yarn_conf::writer::site_xml(properties.iter().copied()),
        )
        .unwrap();
        file
    }

    #[test]
    fn a_missing_file_means_one_default_queue() {
        let dir = tempfile::tempdir().unwrap();
        let config = source(Some(dir.path().join(CAPACITY_SCHEDULER_XML)))
            .load()
            .unwrap();
        let default = config.queue("root.default").expect("root.default");
        assert!((default.capacity.percent() - 100.0).abs() < 1e-9);
    }

    #[test]
    fn the_shipped_sample_describes_valid_queues() {
        let sample = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../conf/etc")
            .join(CAPACITY_SCHEDULER_XML);
        let config = source(Some(sample)).load().unwrap();
        let analytics = config.queue("root.analytics").expect("root.analytics");
        assert!((analytics.absolute_maximum_capacity - 50.0).abs() < 1e-9);
    }

    #[test]
    fn only_scheduler_properties_are_kept_and_references_are_resolved() {
        let dir = tempfile::tempdir().unwrap();
        let file = write_file(
            &dir,
            &[
                ("yarn.scheduler.capacity.root.queues", "a,b"),
                ("half", "50"),
                ("yarn.scheduler.capacity.root.a.capacity", "${half}"),
                ("yarn.scheduler.capacity.root.b.capacity", "50"),
            ],
        );
        let properties = source(Some(file)).read_properties().unwrap();
        assert_eq!(
            properties.keys().map(String::as_str).collect::<Vec<_>>(),
            [
                "yarn.scheduler.capacity.root.a.capacity",
                "yarn.scheduler.capacity.root.b.capacity",
                "yarn.scheduler.capacity.root.queues"
            ]
        );
        assert_eq!(properties["yarn.scheduler.capacity.root.a.capacity"], "50");
    }

    #[test]
    fn an_invalid_file_is_refused_naming_the_file_and_the_problem() {
        let dir = tempfile::tempdir().unwrap();
        let file = write_file(
            &dir,
            &[
                ("yarn.scheduler.capacity.root.queues", "a,b"),
                ("yarn.scheduler.capacity.root.a.capacity", "60"),
                ("yarn.scheduler.capacity.root.b.capacity", "50"),
            ],
        );
        let message = source(Some(file.clone())).load().unwrap_err().to_string();
        assert!(message.contains(&file.display().to_string()), "{message}");
        assert!(message.contains("root"), "{message}");
    }
}
