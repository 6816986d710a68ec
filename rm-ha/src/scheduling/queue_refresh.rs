//! [`QueueRefresh`]: what `rmadmin -refreshQueues` commits, decided from the replicated state.

use std::collections::BTreeMap;

use yarn_scheduler::{CapacitySchedulerConfiguration, validate_refresh};

use super::QueueConfigSource;
use super::queue_config_source::{LoadedQueues, QueueFile};
use super::reservation_queues::reservation_queue_sizes;
use crate::Error;
use crate::state_machine::{ApplicationState, CommandV1, RmState};

/// A validated change of the queue configuration, ready to propose.
#[derive(Debug, Clone, PartialEq)]
pub struct QueueRefresh {
    /// The version the change is based on: the proposal fails if another refresh commits
    /// first.
    pub expected: u64,
    /// The new properties.
    pub properties: BTreeMap<String, String>,
    /// How many replaced configurations the state keeps
    /// (`yarn.scheduler.configuration.max.version` of the leader's settings).
    pub keep: u32,
}

/// What a refresh found: the change to propose, if any, and the keys the new configuration
/// ignores.
#[derive(Debug, Clone, PartialEq)]
pub struct RefreshPlan {
    /// `None` when the file holds the configuration in force, so a repeated refresh proposes
    /// nothing.
    pub refresh: Option<QueueRefresh>,
    /// The file's ignored keys, each named, as [`LoadedQueues::warnings`] lists them.
    pub warnings: Vec<String>,
}

impl QueueRefresh {
    /// Decides whether the properties of `file` (freshly read by the leader) may replace the
    /// configuration in `state`.
    ///
    /// The new configuration is validated in full, then against the one in force and the
    /// applications not yet finished, counted under the leaf queue each was submitted to.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidQueueConfiguration`] with the scheduler's precise reason, located at the
    /// line of the key it names; nothing is proposed and the configuration in force keeps
    /// running.
    pub fn plan(
        state: &RmState,
        source: &QueueConfigSource,
        file: &QueueFile,
    ) -> Result<RefreshPlan, Error> {
        let new = LoadedQueues {
            config: source
                .parse(file.properties.clone())
                .map_err(|err| file.locate(err))?,
            warnings: file.warnings.clone(),
        };
        let warnings = new.warnings().map(str::to_owned).collect();
        let new = new.config;
        if state.queue_config_version > 0 && file.properties == state.queue_config {
            return Ok(RefreshPlan {
                refresh: None,
                warnings,
            });
        }
        if state.queue_config_version > 0 && source.settings.node_labels_enabled {
            // The first commit is let through: labels are added once the cluster runs.
            new.check_labels_exist(&state.node_labels).map_err(|err| {
                file.locate(Error::InvalidQueueConfiguration {
                    file: source.describe(),
                    source: Box::new(err),
                })
            })?;
        }
        if state.queue_config_version > 0 {
            // The configuration in force was valid when committed; if the local yarn-site.xml
            // changed since so that it no longer is, only the new one can be checked.
            if let Ok(old) = source.parse_committed(state) {
                // Both with the reservation queues of the state, which a refresh keeps.
                // The queues submissions created stay, under the parents that still create
                // queues.
                let new = if state.dynamic_queues.is_empty() {
                    new.clone()
                } else {
                    new.with_dynamic_queues(state.dynamic_queues.clone())
                        .map_err(|source_err| Error::InvalidQueueConfiguration {
                            file: source.describe(),
                            source: Box::new(source_err),
                        })?
                };
                let old = old.with_reservation_queues(&reservation_queue_sizes(state, &old));
                let new = new.with_reservation_queues(&reservation_queue_sizes(state, &new));
                let applications = applications_per_leaf(state, &old);
                validate_refresh(&old, &new, &applications).map_err(|source_err| {
                    Error::InvalidQueueConfiguration {
                        file: source.describe(),
                        source: Box::new(source_err),
                    }
                })?;
            }
        }
        Ok(RefreshPlan {
            refresh: Some(Self {
                expected: state.queue_config_version,
                properties: new.properties().clone(),
                keep: source.settings.configuration_max_versions,
            }),
            warnings,
        })
    }

    /// The command that commits this refresh, keeping the configuration it replaces.
    pub fn command(self) -> CommandV1 {
        CommandV1::SetQueueConfigurationKeeping {
            expected: self.expected,
            properties: self.properties,
            keep: self.keep,
        }
    }
}

/// Applications not in a final state, per the leaf queue path they resolve to under `config`.
fn applications_per_leaf(
    state: &RmState,
    config: &CapacitySchedulerConfiguration,
) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for application in state.applications.values() {
        let live = !matches!(
            application.state,
            ApplicationState::Finished | ApplicationState::Failed | ApplicationState::Killed
        );
        if let (true, Ok(queue)) = (live, config.resolve(&application.queue)) {
            *counts.entry(queue.path.clone()).or_insert(0) += 1;
        }
    }
    counts
}

#[cfg(test)]
mod tests {
    use yarn_scheduler::SchedulerSettings;

    use super::*;
    use crate::scheduling::capacity_properties as properties;
    use crate::state_machine::ApplicationRecord;

    fn source() -> QueueConfigSource {
        QueueConfigSource {
            file: None,
            settings: SchedulerSettings::default(),
            groups: yarn_security::Groups::fixed(Default::default()),
        }
    }

    fn plan(state: &RmState, properties: BTreeMap<String, String>) -> Result<RefreshPlan, Error> {
        QueueRefresh::plan(state, &source(), &QueueFile::from(properties))
    }

    fn two_queues(b_state: &str) -> BTreeMap<String, String> {
        properties(&[
            ("root.queues", "a,b"),
            ("root.a.capacity", "50"),
            ("root.b.capacity", "50"),
            ("root.b.state", b_state),
        ])
    }

    fn state_with(config: BTreeMap<String, String>, queue_of_live_app: Option<&str>) -> RmState {
        let mut state = RmState {
            queue_config_version: 4,
            queue_config: config,
            ..RmState::default()
        };
        if let Some(queue) = queue_of_live_app {
            let record = ApplicationRecord {
                sequence: 1,
                user: "alice".to_owned(),
                name: "job".to_owned(),
                queue: queue.to_owned(),
                application_type: "YARN".to_owned(),
                tags: Vec::new(),
                submit_time_ms: 0,
                state: ApplicationState::Running,
                submission_context: Vec::new(),
                priority: 0,
                current_attempt: 0,
                diagnostics: String::new(),
                ..ApplicationRecord::default()
            };
            state.applications.insert(1, record);
        }
        state
    }

    #[test]
    fn a_valid_change_is_based_on_the_version_in_force_and_a_repeat_is_a_no_op() {
        let state = state_with(two_queues("RUNNING"), Some("a"));
        let change = properties(&[
            ("root.queues", "a,b"),
            ("root.a.capacity", "70"),
            ("root.b.capacity", "30"),
        ]);
        let refresh = plan(&state, change.clone()).unwrap().refresh.unwrap();
        assert_eq!(refresh.expected, 4);
        assert_eq!(refresh.properties, change);
        assert_eq!(plan(&state, two_queues("RUNNING")).unwrap().refresh, None);
    }

    #[test]
    fn removing_a_running_queue_or_one_with_applications_is_refused() {
        let only_a = properties(&[("root.queues", "a"), ("root.a.capacity", "100")]);
        let running = state_with(two_queues("RUNNING"), None);
        let message = plan(&running, only_a.clone()).unwrap_err().to_string();
        assert!(message.contains("root.b"), "{message}");

        let busy = state_with(two_queues("STOPPED"), Some("b"));
        let message = plan(&busy, only_a.clone()).unwrap_err().to_string();
        assert!(message.contains("root.b"), "{message}");

        let idle = state_with(two_queues("STOPPED"), None);
        assert!(plan(&idle, only_a).is_ok());
    }

    #[test]
    fn an_application_in_a_reservation_queue_keeps_it_across_a_refresh() {
        let reservable = |a_capacity: &str, b_capacity: &str| {
            properties(&[
                ("root.queues", "a,b"),
                ("root.a.capacity", a_capacity),
                ("root.b.capacity", b_capacity),
                ("root.a.reservable", "true"),
            ])
        };
        // The reservation has ended: the application is still in its queue, about to move.
        let state = state_with(reservable("50", "50"), Some("root.a.reservation_0_0001"));
        assert!(plan(&state, reservable("60", "40")).is_ok());
        let not_reservable = two_queues("RUNNING");
        let message = plan(&state, not_reservable).unwrap_err().to_string();
        assert!(message.contains("root.a"), "{message}");
    }

    #[test]
    fn an_invalid_configuration_is_refused_before_anything_else() {
        let state = state_with(two_queues("RUNNING"), None);
        let bad = properties(&[
            ("root.queues", "a,b"),
            ("root.a.capacity", "60"),
            ("root.b.capacity", "50"),
        ]);
        let message = plan(&state, bad).unwrap_err().to_string();
        assert!(message.contains("invalid queue configuration"), "{message}");
    }

    #[test]
    fn a_refresh_naming_a_label_the_cluster_lacks_is_refused_naming_its_key() {
        let labelled = source();
        let labelled = QueueConfigSource {
            settings: SchedulerSettings {
                node_labels_enabled: true,
                ..labelled.settings
            },
            ..labelled
        };
        let mut state = state_with(two_queues("RUNNING"), None);
        let mut with_gpu = two_queues("RUNNING");
        with_gpu.insert(
            "yarn.scheduler.capacity.root.a.accessible-node-labels".to_owned(),
            "gpu".to_owned(),
        );
        let file = QueueFile::from(with_gpu);
        let message = QueueRefresh::plan(&state, &labelled, &file)
            .unwrap_err()
            .to_string();
        assert!(
            message.contains("yarn.scheduler.capacity.root.a.accessible-node-labels")
                && message.contains("gpu"),
            "{message}"
        );
        state
            .node_labels
            .add(&[yarn_scheduler::NodeLabel {
                name: "gpu".to_owned(),
                exclusive: true,
            }])
            .unwrap();
        assert!(
            QueueRefresh::plan(&state, &labelled, &file)
                .unwrap()
                .refresh
                .is_some()
        );
    }

    #[test]
    fn a_refresh_reports_the_keys_it_ignores_even_when_nothing_changed() {
        let state = state_with(two_queues("RUNNING"), None);
        let mut file = QueueFile::from(two_queues("RUNNING"));
        file.properties.insert(
            "yarn.scheduler.capacity.per-node-heartbeat.maximum-offswitch-assignments".to_owned(),
            "1".to_owned(),
        );
        file.warnings
            .push("stray is set in capacity-scheduler.xml".to_owned());
        let plan = QueueRefresh::plan(&state, &source(), &file).unwrap();
        assert!(plan.refresh.is_some());
        assert_eq!(plan.warnings.len(), 2, "{:?}", plan.warnings);
        assert!(plan.warnings[1].starts_with(
            "yarn.scheduler.capacity.per-node-heartbeat.maximum-offswitch-assignments "
        ));

        let unchanged = QueueFile {
            warnings: vec!["stray is set in capacity-scheduler.xml".to_owned()],
            ..QueueFile::from(two_queues("RUNNING"))
        };
        let plan = QueueRefresh::plan(&state, &source(), &unchanged).unwrap();
        assert_eq!(plan.refresh, None);
        assert_eq!(plan.warnings, unchanged.warnings);
    }
}
