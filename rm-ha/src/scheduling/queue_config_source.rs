//! [`QueueConfigSource`]: where the leader reads `capacity-scheduler.xml` from.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use yarn_conf::unhonoured;
use yarn_conf::{ConfError, Configuration, Location, Verdict, keys};
use yarn_scheduler::{
    CapacitySchedulerConfiguration, CreatedQueues, MAPPING_RULE_FORMAT_KEY,
    MAPPING_RULE_JSON_FILE_KEY, MAPPING_RULE_JSON_KEY, SchedulerSettings,
};
use yarn_security::Groups;

use crate::Error;
use crate::state_machine::RmState;

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
    /// Reads the file's `yarn.scheduler.capacity.*` properties, `${...}` references resolved,
    /// with where each was set; every other key of the file is refused, warned about or, when
    /// its value keeps Hadoop's behaviour, passed over ([`judge_foreign_key`]). JSON placement
    /// rules named by `mapping-rule-json-file` are read too ([`inline_rules_file`]).
    ///
    /// # Errors
    ///
    /// [`Error::ReadQueueConfiguration`] naming the file and what is wrong with it, or the first
    /// key of `yarn-site.xml` refused here, with its line; or the rules file that cannot be
    /// read.
    pub fn read(&self) -> Result<QueueFile, Error> {
        let Some(file) = self.file.as_ref().filter(|file| file.exists()) else {
            return Ok(QueueFile::from(default_properties()));
        };
        let mut conf = Configuration::new();
        conf.add_resource_file(file)
            .map_err(|source| Error::ReadQueueConfiguration { source })?;
        let mut read = QueueFile::default();
        for name in conf.names() {
            if !name.starts_with(PREFIX) {
                if let Some(warning) = judge_foreign_key(&conf, name)? {
                    read.warnings.push(warning);
                }
                continue;
            }
            let value = conf
                .get(name)
                .map_err(|source| Error::ReadQueueConfiguration { source })?;
            if let Some(value) = value {
                read.properties.insert(name.to_owned(), value);
                if let Some(location) = conf.source(name) {
                    read.locations.insert(name.to_owned(), location.clone());
                }
            }
        }
        inline_rules_file(&mut read, file)?;
        Ok(read)
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

    /// Builds the configuration committed to `state`: its properties as
    /// [`parse`](Self::parse) does, but a key refused by this version is kept as a warning (an
    /// earlier version may have committed it), with the queues submissions created.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidQueueConfiguration`] with the scheduler's precise reason.
    pub fn parse_committed(
        &self,
        state: &RmState,
    ) -> Result<CapacitySchedulerConfiguration, Error> {
        let invalid = |source| Error::InvalidQueueConfiguration {
            file: "the committed queue configuration".to_owned(),
            source: Box::new(source),
        };
        let config = CapacitySchedulerConfiguration::committed(
            state.queue_config.clone(),
            self.settings.clone(),
        )
        .map_err(invalid)?;
        if state.dynamic_queues.is_empty() {
            return Ok(config);
        }
        match config.with_dynamic_queues(state.dynamic_queues.clone()) {
            Ok(grown) => Ok(grown),
            // A refresh committed while a submission created a queue was not checked against
            // it: the queues that still build are kept, parents first, so that the leader
            // keeps scheduling.
            Err(err) => {
                tracing::error!(
                    %err,
                    "the auto-created queues do not all build with the committed queue \
                     configuration; those that do not are left out"
                );
                let mut kept = CreatedQueues::new();
                for (path, kind) in &state.dynamic_queues {
                    let mut trial = kept.clone();
                    trial.insert(path.clone(), *kind);
                    if config.with_dynamic_queues(trial.clone()).is_ok() {
                        kept = trial;
                    }
                }
                config.with_dynamic_queues(kept).map_err(invalid)
            }
        }
    }

    /// Reads and validates the file, each error located at the key it names.
    ///
    /// # Errors
    ///
    /// Those of [`read`](Self::read) and [`parse`](Self::parse).
    pub fn load(&self) -> Result<LoadedQueues, Error> {
        let file = self.read()?;
        let config = self
            .parse(file.properties.clone())
            .map_err(|err| file.locate(err))?;
        Ok(LoadedQueues {
            config,
            warnings: file.warnings,
        })
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

/// Prefixes of the `yarn-site.xml` keys Hadoop's CapacityScheduler also reads from its own file
/// (allocation limits, the preemption monitor, the cluster's maximum priority).
const SCHEDULER_SITE_KEYS: [&str; 4] = [
    "yarn.scheduler.",
    "yarn.resourcemanager.monitor.",
    "yarn.resourcemanager.scheduler.",
    "yarn.cluster.max-application-priority",
];

/// The verdict on a key of `capacity-scheduler.xml` outside `yarn.scheduler.capacity.*`: a
/// `yarn-site.xml` key Hadoop's CapacityScheduler would read here is refused, another one is
/// warned about, a key yarn-ha does not honour is judged as anywhere, and any other is warned
/// about.
fn judge_foreign_key(conf: &Configuration, name: &str) -> Result<Option<String>, Error> {
    let value = conf.get_raw(name).unwrap_or_default().trim().to_owned();
    let refuse = |reason: String| {
        Err(Error::ReadQueueConfiguration {
            source: ConfError::Unhonoured {
                key: name.to_owned(),
                value: value.clone(),
                reason,
                location: conf.source(name).cloned(),
            },
        })
    };
    if keys::find(name).is_some() {
        if SCHEDULER_SITE_KEYS
            .iter()
            .any(|prefix| name.starts_with(prefix))
        {
            return refuse(format!(
                "yarn-ha reads it from yarn-site.xml only, where Hadoop reads it from \
                 {CAPACITY_SCHEDULER_XML} too: move it there"
            ));
        }
        return Ok(Some(format!(
            "{name} is a yarn-site.xml key, set in {CAPACITY_SCHEDULER_XML}, and is ignored"
        )));
    }
    match unhonoured::find(name).map(|entry| entry.judge(name, &value)) {
        Some(Verdict::Refused(reason)) => refuse(reason),
        Some(Verdict::Warned(warning)) => Ok(Some(warning)),
        Some(Verdict::Honoured) => Ok(None),
        None => Ok(Some(format!(
            "{name} is set in {CAPACITY_SCHEDULER_XML}, from which yarn-ha reads only {PREFIX}* \
             keys, and is ignored"
        ))),
    }
}

/// With `mapping-rule-format=json`, no inline `mapping-rule-json` and a
/// `mapping-rule-json-file`, reads that file (relative to the directory of
/// `capacity-scheduler.xml` when the path is relative) into `mapping-rule-json`, located at the
/// file, so the rules travel through Raft like every other property and every replica places
/// with the leader's rules. The inline rules win, as in Hadoop: a file beside them is warned
/// about and not read.
fn inline_rules_file(read: &mut QueueFile, xml: &Path) -> Result<(), Error> {
    let json = read
        .properties
        .get(MAPPING_RULE_FORMAT_KEY)
        .is_some_and(|format| format.trim().eq_ignore_ascii_case("json"));
    let inline = read
        .properties
        .get(MAPPING_RULE_JSON_KEY)
        .is_some_and(|rules| !rules.trim().is_empty());
    let Some(path) = read
        .properties
        .get(MAPPING_RULE_JSON_FILE_KEY)
        .map(|path| path.trim().to_owned())
        .filter(|path| json && !path.is_empty())
    else {
        return Ok(());
    };
    if inline {
        read.warnings.push(format!(
            "{MAPPING_RULE_JSON_FILE_KEY}={path} is not read: {MAPPING_RULE_JSON_KEY} is set \
             and wins"
        ));
        return Ok(());
    }
    let path = xml.parent().unwrap_or(Path::new("")).join(path);
    let rules = yarn_conf::loader::read_file(&path)
        .map_err(|source| Error::ReadQueueConfiguration { source })?;
    let location = Location {
        file: path.display().to_string(),
        line: 1,
        column: 1,
    };
    if rules.trim().is_empty() {
        return Err(Error::ReadQueueConfiguration {
            source: ConfError::Unhonoured {
                key: MAPPING_RULE_JSON_FILE_KEY.to_owned(),
                value: path.display().to_string(),
                reason: "the rules file is empty: write {\"rules\": []} for no rule".to_owned(),
                location: Some(location),
            },
        });
    }
    read.properties
        .insert(MAPPING_RULE_JSON_KEY.to_owned(), rules);
    read.locations
        .insert(MAPPING_RULE_JSON_KEY.to_owned(), location);
    Ok(())
}

/// What [`QueueConfigSource::read`] found in the file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QueueFile {
    /// The `yarn.scheduler.capacity.*` properties, references resolved.
    pub properties: BTreeMap<String, String>,
    /// Where each property was set; none for the built-in default.
    pub locations: BTreeMap<String, Location>,
    /// One line per key of the file outside `yarn.scheduler.capacity.*`, which is ignored.
    pub warnings: Vec<String>,
}

impl QueueFile {
    /// `err` pointing at the line of the key it names, when it names one set in this file:
    /// [`Error::InvalidQueueConfiguration`]'s file becomes `file:line:column`.
    pub fn locate(&self, err: Error) -> Error {
        match err {
            Error::InvalidQueueConfiguration { file, source } => {
                let located = source
                    .key()
                    .and_then(|key| self.locations.get(&key))
                    .map_or(file, ToString::to_string);
                Error::InvalidQueueConfiguration {
                    file: located,
                    source,
                }
            }
            other => other,
        }
    }
}

impl From<BTreeMap<String, String>> for QueueFile {
    fn from(properties: BTreeMap<String, String>) -> Self {
        Self {
            properties,
            ..Self::default()
        }
    }
}

/// A validated queue configuration as loaded from the file, with what was ignored.
#[derive(Debug, Clone)]
pub struct LoadedQueues {
    /// The configuration.
    pub config: CapacitySchedulerConfiguration,
    /// Keys of the file outside `yarn.scheduler.capacity.*`.
    pub warnings: Vec<String>,
}

impl LoadedQueues {
    /// Every warning: the file's keys outside the scheduler's prefix, then the scheduler's own.
    pub fn warnings(&self) -> impl Iterator<Item = &str> {
        self.warnings
            .iter()
            .chain(self.config.warnings())
            .map(String::as_str)
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
            .unwrap()
            .config;
        let default = config.queue("root.default").expect("root.default");
        assert_eq!(
            default.capacity,
            yarn_scheduler::QueueCapacity::Percentage(100.0)
        );
    }

    #[test]
    fn the_shipped_sample_describes_valid_queues() {
        let sample = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../conf/etc")
            .join(CAPACITY_SCHEDULER_XML);
        let loaded = source(Some(sample)).load().unwrap();
        assert_eq!(loaded.warnings().count(), 0, "{:?}", loaded.warnings);
        let config = loaded.config;
        let analytics = config.queue("root.analytics").expect("root.analytics");
        assert!((analytics.absolute_maximum_capacity - 50.0).abs() < 1e-9);
    }

    #[test]
    fn a_json_rules_file_is_read_into_the_properties_and_its_errors_point_at_it() {
        let dir = tempfile::tempdir().unwrap();
        let rules = r#"{"rules": [{"type": "user", "matches": "*", "policy": "defaultQueue"}]}"#;
        std::fs::write(dir.path().join("rules.json"), rules).unwrap();
        let properties = [
            (MAPPING_RULE_FORMAT_KEY, "json"),
            (MAPPING_RULE_JSON_FILE_KEY, "rules.json"),
        ];
        let read = source(Some(write_file(&dir, &properties))).read().unwrap();
        assert_eq!(read.properties[MAPPING_RULE_JSON_KEY], rules);
        // An inline document wins: the file is not read.
        let inline = r#"{"rules": []}"#;
        let both = [
            (MAPPING_RULE_FORMAT_KEY, "json"),
            (MAPPING_RULE_JSON_FILE_KEY, "absent.json"),
            (MAPPING_RULE_JSON_KEY, inline),
        ];
        let read = source(Some(write_file(&dir, &both))).read().unwrap();
        assert_eq!(read.properties[MAPPING_RULE_JSON_KEY], inline);
        assert!(
            read.warnings
                .iter()
                .any(|w| w.contains("absent.json is not read")),
            "{:?}",
            read.warnings
        );
        // So is a legacy format's file.
        let legacy = [(MAPPING_RULE_JSON_FILE_KEY, "absent.json")];
        let read = source(Some(write_file(&dir, &legacy))).read().unwrap();
        assert!(!read.properties.contains_key(MAPPING_RULE_JSON_KEY));
        // A file that cannot be read is named.
        let missing = [
            (MAPPING_RULE_FORMAT_KEY, "json"),
            (MAPPING_RULE_JSON_FILE_KEY, "absent.json"),
        ];
        let err = source(Some(write_file(&dir, &missing)))
            .read()
            .unwrap_err()
            .to_string();
        assert!(err.contains("absent.json"), "{err}");
        std::fs::write(dir.path().join("empty.json"), " \n").unwrap();
        let empty = [
            (MAPPING_RULE_FORMAT_KEY, "json"),
            (MAPPING_RULE_JSON_FILE_KEY, "empty.json"),
        ];
        let err = source(Some(write_file(&dir, &empty)))
            .read()
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("empty.json") && err.contains("is empty"),
            "{err}"
        );
        // A rule the queues cannot take is reported at the rules file.
        std::fs::write(
            dir.path().join("rules.json"),
            r#"{"rules": [{"type": "user", "matches": "*", "policy": "custom",
                "customPlacement": "root.nosuch"}]}"#,
        )
        .unwrap();
        let err = source(Some(write_file(&dir, &properties)))
            .load()
            .unwrap_err()
            .to_string();
        assert!(err.contains("rules.json:1:1"), "{err}");
        assert!(err.contains("'nosuch'"), "{err}");
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
        let read = source(Some(file)).read().unwrap();
        let properties = &read.properties;
        assert_eq!(
            properties.keys().map(String::as_str).collect::<Vec<_>>(),
            [
                "yarn.scheduler.capacity.root.a.capacity",
                "yarn.scheduler.capacity.root.b.capacity",
                "yarn.scheduler.capacity.root.queues"
            ]
        );
        assert_eq!(properties["yarn.scheduler.capacity.root.a.capacity"], "50");
        assert_eq!(
            read.warnings,
            [format!(
                "half is set in {CAPACITY_SCHEDULER_XML}, from which yarn-ha reads only \
                 yarn.scheduler.capacity.* keys, and is ignored"
            )]
        );
        // The third property's <value>, four lines to a property after two of preamble.
        assert_eq!(
            read.locations["yarn.scheduler.capacity.root.a.capacity"].line,
            13
        );
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

    #[test]
    fn a_bad_value_is_located_at_its_line() {
        let dir = tempfile::tempdir().unwrap();
        let file = write_file(
            &dir,
            &[
                ("yarn.scheduler.capacity.root.queues", "a,b"),
                ("yarn.scheduler.capacity.root.a.capacity", "50"),
                ("yarn.scheduler.capacity.root.b.capacity", "12x"),
            ],
        );
        let message = source(Some(file.clone())).load().unwrap_err().to_string();
        assert!(
            message.starts_with(&format!(
                "{}:13:5: invalid queue configuration: key \
                 yarn.scheduler.capacity.root.b.capacity: value \"12x\"",
                file.display()
            )),
            "{message}"
        );
    }

    #[test]
    fn a_yarn_site_key_or_a_refused_key_in_the_file_is_refused_at_its_line() {
        let dir = tempfile::tempdir().unwrap();
        for (key, value, says) in [
            (
                "yarn.scheduler.maximum-allocation-mb",
                "16384",
                "reads it from yarn-site.xml only",
            ),
            (
                "yarn.node-labels.configuration-type",
                "distributed",
                "centralized",
            ),
        ] {
            let file = write_file(
                &dir,
                &[
                    ("yarn.scheduler.capacity.root.queues", "default"),
                    (key, value),
                ],
            );
            let message = source(Some(file.clone())).read().unwrap_err().to_string();
            assert!(
                message.contains(&format!("{}:9:5: key {key}", file.display()))
                    && message.contains(says),
                "{message}"
            );
        }
        let file = write_file(
            &dir,
            &[
                ("yarn.scheduler.capacity.root.queues", "default"),
                ("yarn.resourcemanager.ha.rm-ids", "rm1,rm2"),
            ],
        );
        assert_eq!(
            source(Some(file)).read().unwrap().warnings,
            [
                "yarn.resourcemanager.ha.rm-ids is a yarn-site.xml key, set in \
              capacity-scheduler.xml, and is ignored"
            ]
        );
    }
}
