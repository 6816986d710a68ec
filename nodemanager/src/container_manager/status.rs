//! How a [`ContainerEntry`] is reported: to an application master
//! (`ContainerStatusProto`), to the ResourceManager on registration (`NMContainerStatusProto`)
//! and to the web view ([`ContainerReport`]).

use std::path::Path;

use yarn_proto::pb;

use super::{ContainerEntry, ContainerReport, EntryState};

impl ContainerEntry {
    /// The state and sub-state YARN reports: `SCHEDULED` while queued or about to launch,
    /// `RUNNING` once launched (sub-state `COMPLETING` once told to die), `COMPLETE` with
    /// sub-state `DONE` once ended.
    pub(super) fn states(&self) -> (pb::ContainerStateProto, pb::ContainerSubStateProto) {
        use pb::{ContainerStateProto as State, ContainerSubStateProto as SubState};
        match &self.state {
            EntryState::Scheduled | EntryState::Launching => {
                (State::CScheduled, SubState::CssScheduled)
            }
            EntryState::Running { .. } if self.kill.is_some() => {
                (State::CRunning, SubState::CssCompleting)
            }
            EntryState::Running { .. } => (State::CRunning, SubState::CssRunning),
            EntryState::Completed { .. } => (State::CComplete, SubState::CssDone),
        }
    }

    /// The exit status and diagnostics, once completed.
    fn exit(&self) -> (Option<i32>, &str) {
        match &self.state {
            EntryState::Completed {
                exit_code,
                diagnostics,
            } => (Some(*exit_code), diagnostics),
            EntryState::Scheduled | EntryState::Launching | EntryState::Running { .. } => {
                (None, "")
            }
        }
    }

    /// The status an application master and the heartbeat see.
    pub(super) fn status(&self) -> pb::ContainerStatusProto {
        let (state, sub_state) = self.states();
        let (exit_status, diagnostics) = self.exit();
        let execution_type = pb::ExecutionTypeProto::from(self.record.execution_type);
        pb::ContainerStatusProto {
            container_id: Some(self.record.container_id.into()),
            state: state.into(),
            diagnostics: diagnostics.to_owned(),
            exit_status,
            capability: Some(self.record.resources.into()),
            execution_type: execution_type.into(),
            container_sub_state: sub_state.into(),
            ..Default::default()
        }
    }

    /// The status a (re-)registering node reports, from which the ResourceManager recovers
    /// the container.
    pub(super) fn nm_status(&self) -> pb::NmContainerStatusProto {
        let (state, _) = self.states();
        let (container_exit_status, diagnostics) = self.exit();
        let execution_type = pb::ExecutionTypeProto::from(self.record.execution_type);
        pb::NmContainerStatusProto {
            container_id: Some(self.record.container_id.into()),
            container_state: state.into(),
            resource: Some(self.record.resources.into()),
            priority: self.identifier.priority,
            diagnostics: diagnostics.to_owned(),
            container_exit_status,
            creation_time: self.identifier.creation_time,
            version: self.record.token_version,
            execution_type: execution_type.into(),
            allocation_request_id: Some(self.identifier.allocation_request_id),
            ..Default::default()
        }
    }

    /// The web view's report; `log_root` is the first of `yarn.nodemanager.log-dirs`.
    pub(super) fn report(&self, log_root: &Path) -> ContainerReport {
        let container_id = self.record.container_id;
        let (state, _) = self.states();
        let (exit_code, diagnostics) = self.exit();
        ContainerReport {
            container_id,
            user: self.record.user.clone(),
            state,
            pid: self.handle().and_then(|handle| handle.pid()),
            exit_code,
            diagnostics: diagnostics.to_owned(),
            memory_mb: self.record.resources.memory_mb,
            vcores: self.record.resources.vcores,
            execution_type: self.record.execution_type,
            log_dir: log_root
                .join(container_id.application_id().to_string())
                .join(container_id.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::path::PathBuf;

    use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, ContainerId};

    use super::*;
    use crate::container_scheduler::{ExecutionType, Resources};
    use crate::executor::{ContainerExit, ContainerHandle, KillRequest};
    use crate::state_store::ContainerRecord;

    fn container() -> ContainerId {
        let attempt = ApplicationAttemptId::new(ApplicationId::new(1_700_000_000_000, 1), 1);
        ContainerId::new(attempt, 0, 3).unwrap()
    }

    fn entry() -> ContainerEntry {
        ContainerEntry::scheduled(
            ContainerRecord {
                container_id: container(),
                user: "alice".to_owned(),
                commands: Vec::new(),
                environment: HashMap::new(),
                resources: Resources::new(1024, 2),
                execution_type: ExecutionType::Opportunistic,
                token_version: 1,
                container_token_identifier: Vec::new(),
                tokens: Vec::new(),
                local_resources: std::collections::BTreeMap::new(),
            },
            pb::ContainerTokenIdentifierProto {
                priority: Some(pb::PriorityProto { priority: 4 }),
                creation_time: 77,
                allocation_request_id: 5,
                ..Default::default()
            },
        )
    }

    #[test]
    fn states_follow_the_containers_life() {
        use pb::{ContainerStateProto as State, ContainerSubStateProto as SubState};
        let mut entry = entry();
        assert_eq!(entry.states(), (State::CScheduled, SubState::CssScheduled));
        entry.state = EntryState::Launching;
        assert_eq!(entry.states(), (State::CScheduled, SubState::CssScheduled));
        let exit = ContainerExit {
            exit_code: 0,
            diagnostics: String::new(),
        };
        entry.state = EntryState::Running {
            handle: ContainerHandle::finished(container(), Some(42), exit),
        };
        assert_eq!(entry.states(), (State::CRunning, SubState::CssRunning));
        entry.kill = Some(KillRequest::new(-105, "stop"));
        assert_eq!(entry.states(), (State::CRunning, SubState::CssCompleting));
        entry.complete(-105, "stop".to_owned());
        assert_eq!(entry.states(), (State::CComplete, SubState::CssDone));
    }

    #[test]
    fn a_completed_container_reports_its_exit_everywhere() {
        let mut entry = entry();
        entry.complete(4, "exited with 4".to_owned());
        // A second completion does not overwrite what was reported first.
        entry.complete(0, String::new());

        let status = entry.status();
        assert_eq!(status.state(), pb::ContainerStateProto::CComplete);
        assert_eq!(status.exit_status, Some(4));
        assert_eq!(status.diagnostics, "exited with 4");
        assert_eq!(status.capability, Some(Resources::new(1024, 2).into()));
        assert_eq!(
            status.execution_type(),
            pb::ExecutionTypeProto::Opportunistic
        );

        let nm_status = entry.nm_status();
        assert_eq!(nm_status.container_exit_status, Some(4));
        assert_eq!(nm_status.priority, Some(pb::PriorityProto { priority: 4 }));
        assert_eq!(nm_status.creation_time, 77);
        assert_eq!(nm_status.version, 1);
        assert_eq!(nm_status.allocation_request_id, Some(5));

        let report = entry.report(Path::new("/logs"));
        assert_eq!(report.state_name(), "COMPLETE");
        assert_eq!(report.exit_code, Some(4));
        assert_eq!(
            report.log_dir,
            PathBuf::from(format!(
                "/logs/application_1700000000000_0001/{}",
                container()
            ))
        );
    }

    #[test]
    fn a_running_container_has_no_exit_status_yet() {
        let status = entry().status();
        assert_eq!(status.exit_status, None);
        assert_eq!(status.diagnostics, "");
        assert_eq!(entry().report(Path::new("/l")).state_name(), "SCHEDULED");
    }
}
