//! The application and attempt transitions after admission: AM registration and
//! unregistration, kills, and what the end of an AM container means for its attempt.
//!
//! Everything here is part of [`RmState::apply`]: deterministic, with times from the commands.

use yarn_proto::ids::{ApplicationAttemptId, ApplicationId};

use super::{
    ABORTED, ApplicationRecord, ApplicationState, AttemptRecord, AttemptState, ContainerCompletion,
    ContainerKey, FinalStatus, RmResponse, RmState, am_exit_counts,
};

/// YARN's `ContainerExitStatus.KILLED_BY_RESOURCEMANAGER`.
pub const KILLED_BY_RESOURCEMANAGER: i32 = -106;
/// YARN's `ContainerExitStatus.KILLED_AFTER_APP_COMPLETION`.
pub const KILLED_AFTER_APP_COMPLETION: i32 = -107;

impl RmState {
    pub(super) fn register_application_master(
        &mut self,
        application_seq: i32,
        attempt_id: i32,
        host: &str,
        rpc_port: i32,
        tracking_url: &str,
    ) -> RmResponse {
        let application = match self.current_attempt_of(application_seq, attempt_id) {
            Ok(application) => application,
            Err(response) => return response,
        };
        if application.state == ApplicationState::Running {
            return RmResponse::ApplicationMasterRegistered { first_time: false };
        }
        application.state = ApplicationState::Running;
        if let Some(attempt) = application.attempts.last_mut() {
            attempt.state = AttemptState::Running;
            attempt.host = host.to_owned();
            attempt.rpc_port = rpc_port;
            attempt.tracking_url = tracking_url.to_owned();
        }
        RmResponse::ApplicationMasterRegistered { first_time: true }
    }

    pub(super) fn finish_application_master(
        &mut self,
        application_seq: i32,
        attempt_id: i32,
        final_status: FinalStatus,
        diagnostics: &str,
        tracking_url: &str,
        now_ms: i64,
    ) -> RmResponse {
        let repeated = self.applications.get(&application_seq).is_some_and(|app| {
            app.state == ApplicationState::Finished && app.current_attempt == attempt_id
        });
        if repeated {
            return RmResponse::ApplicationMasterUnregistered { first_time: false };
        }
        let application = match self.current_attempt_of(application_seq, attempt_id) {
            Ok(application) => application,
            Err(response) => return response,
        };
        if application.state != ApplicationState::Running {
            return RmResponse::AttemptNotRegistered { attempt_id };
        }
        application.state = ApplicationState::Finished;
        application.final_status = final_status;
        application.diagnostics = diagnostics.to_owned();
        application.finish_time_ms = now_ms;
        if let Some(attempt) = application.attempts.last_mut() {
            attempt.state = AttemptState::Finished;
            attempt.finish_time_ms = now_ms;
            attempt.diagnostics = diagnostics.to_owned();
            if !tracking_url.is_empty() {
                attempt.tracking_url = tracking_url.to_owned();
            }
        }
        // The AM container is left to complete with its process's own exit status.
        self.complete_live_containers(
            application_seq,
            |record| !record.is_am,
            KILLED_AFTER_APP_COMPLETION,
            "Container killed: its application finished",
            now_ms,
        );
        RmResponse::ApplicationMasterUnregistered { first_time: true }
    }

    pub(super) fn kill_application(
        &mut self,
        application_seq: i32,
        diagnostics: &str,
        now_ms: i64,
    ) -> RmResponse {
        let application = match self.live_application(application_seq) {
            Ok(application) => application,
            Err(response) => return response,
        };
        application.state = ApplicationState::Killed;
        application.final_status = FinalStatus::Killed;
        application.diagnostics = diagnostics.to_owned();
        application.finish_time_ms = now_ms;
        end_current_attempt(application, AttemptState::Killed, diagnostics, now_ms);
        self.complete_live_containers(
            application_seq,
            |_| true,
            KILLED_BY_RESOURCEMANAGER,
            "Container killed by the ResourceManager: its application was killed",
            now_ms,
        );
        RmResponse::ApplicationKilled
    }

    /// Moves an application that is not final to the leaf `queue`.
    pub(super) fn move_application(&mut self, application_seq: i32, queue: &str) -> RmResponse {
        match self.live_application(application_seq) {
            Ok(application) => {
                queue.clone_into(&mut application.queue);
                RmResponse::ApplicationMoved
            }
            Err(response) => response,
        }
    }

    /// Moves an application that is not final and still in `queue` to `move_to`, or kills it
    /// with `diagnostics` without one.
    pub(super) fn expire_reservation_application(
        &mut self,
        application_seq: i32,
        queue: &str,
        move_to: Option<&str>,
        diagnostics: &str,
        now_ms: i64,
    ) -> RmResponse {
        match self.live_application(application_seq) {
            Ok(application) if application.queue != queue => {
                return RmResponse::ApplicationNotInQueue {
                    queue: application.queue.clone(),
                };
            }
            Ok(_) => {}
            Err(response) => return response,
        }
        match move_to {
            Some(target) => self.move_application(application_seq, target),
            None => self.kill_application(application_seq, diagnostics, now_ms),
        }
    }

    /// Gives an application that is not final the priority `priority`.
    pub(super) fn update_application_priority(
        &mut self,
        application_seq: i32,
        priority: i32,
    ) -> RmResponse {
        match self.live_application(application_seq) {
            Ok(application) => {
                application.priority = priority;
                RmResponse::ApplicationPriorityUpdated
            }
            Err(response) => response,
        }
    }

    /// The application, unless it is unknown or final.
    pub(super) fn live_application(
        &mut self,
        application_seq: i32,
    ) -> Result<&mut ApplicationRecord, RmResponse> {
        let application =
            self.applications
                .get_mut(&application_seq)
                .ok_or(RmResponse::UnknownApplication {
                    sequence: application_seq,
                })?;
        if application.state.is_final() {
            return Err(RmResponse::ApplicationAlreadyFinal {
                state: application.state,
            });
        }
        Ok(application)
    }

    pub(super) fn fail_application_attempt(
        &mut self,
        application_seq: i32,
        attempt_id: i32,
        exit_status: i32,
        diagnostics: &str,
        now_ms: i64,
    ) -> RmResponse {
        if let Err(response) = self.current_attempt_of(application_seq, attempt_id) {
            return response;
        }
        // An attempt without a live AM container (unmanaged, or never launched) has nothing to
        // complete; it fails all the same.
        self.complete_live_containers(
            application_seq,
            |record| record.is_am && record.attempt_id == attempt_id,
            exit_status,
            diagnostics,
            now_ms,
        );
        // A user's failing of the attempt, a refused AM launch and an AM that stopped
        // heartbeating count, as in Hadoop, whatever status the AM container completed with.
        let application_state = self.fail_current_attempt(
            application_seq,
            &format!(
                "Attempt {} failed: {diagnostics}",
                self.attempt_name(application_seq, attempt_id)
            ),
            true,
            now_ms,
        );
        RmResponse::AttemptFailed { application_state }
    }

    /// Applies `completions` and fails the attempts whose AM container was among them.
    pub(super) fn complete_containers(
        &mut self,
        completions: &[ContainerCompletion],
        now_ms: i64,
    ) -> RmResponse {
        let mut completed = 0u32;
        for completion in completions {
            if self.containers.complete(completion, now_ms) {
                completed += 1;
                self.after_completion(completion, now_ms);
            }
        }
        RmResponse::ContainersCompleted { completed }
    }

    /// Completes a lost node's live containers and fails the attempts whose AM ran there.
    pub(super) fn node_lost(&mut self, node: &str, now_ms: i64) -> RmResponse {
        let completed = self.lose_containers(node, now_ms);
        RmResponse::NodeLostRecorded { completed }
    }

    /// Records `incarnation` for `node` when it is newer than the recorded one; when the node
    /// had one recorded and `reported_nothing`, it restarted without its containers, and they
    /// complete as lost.
    pub(super) fn register_node_incarnation(
        &mut self,
        node: &str,
        incarnation: i64,
        reported_nothing: bool,
        now_ms: i64,
    ) -> RmResponse {
        let recorded = self.node_incarnations.get(node).copied();
        if recorded.is_some_and(|recorded| recorded >= incarnation) {
            return RmResponse::NodeIncarnationRegistered {
                completed: Vec::new(),
            };
        }
        self.node_incarnations.insert(node.to_owned(), incarnation);
        let completed = if recorded.is_some() && reported_nothing {
            self.lose_containers(node, now_ms)
        } else {
            Vec::new()
        };
        RmResponse::NodeIncarnationRegistered { completed }
    }

    /// Completes the live containers on `node` as lost and fails the attempts whose AM was
    /// among them; returns the containers completed.
    fn lose_containers(&mut self, node: &str, now_ms: i64) -> Vec<ContainerKey> {
        let completed = self.containers.complete_lost_node(node, now_ms);
        for key in &completed {
            let completion = ContainerCompletion {
                key: *key,
                exit_status: ABORTED,
                diagnostics: super::LOST_NODE_DIAGNOSTIC.to_owned(),
            };
            self.after_completion(&completion, now_ms);
        }
        completed
    }

    /// When `completion` ended the AM container of a live application's current attempt, that
    /// attempt failed: an AM that exits, even with status 0, before unregistering has not
    /// finished its application.
    fn after_completion(&mut self, completion: &ContainerCompletion, now_ms: i64) {
        let key = completion.key;
        let Some(record) = self.containers.get(&key) else {
            return;
        };
        if !record.is_am {
            return;
        }
        let attempt_id = record.attempt_id;
        let current = self
            .applications
            .get(&key.application_seq)
            .is_some_and(|app| !app.state.is_final() && app.current_attempt == attempt_id);
        if !current {
            return;
        }
        let diagnostics = format!(
            "AM Container for {} exited with exitCode: {}\nDiagnostics: {}",
            self.attempt_name(key.application_seq, attempt_id),
            completion.exit_status,
            completion.diagnostics
        );
        let counts = am_exit_counts(self.apply_rules, completion.exit_status);
        self.fail_current_attempt(key.application_seq, &diagnostics, counts, now_ms);
    }

    /// Ends the current attempt as failed, then starts the next one, or fails the application
    /// when it has made all its attempts, not counting those whose failure does not `count`.
    /// Either way the failed attempt's live containers complete: containers are not kept
    /// across attempts.
    fn fail_current_attempt(
        &mut self,
        application_seq: i32,
        diagnostics: &str,
        counts: bool,
        now_ms: i64,
    ) -> ApplicationState {
        let application_id = ApplicationId::new(self.cluster_timestamp_ms, application_seq);
        let Some(application) = self.applications.get_mut(&application_seq) else {
            return ApplicationState::Failed;
        };
        let failed_attempt = application.current_attempt;
        end_current_attempt(application, AttemptState::Failed, diagnostics, now_ms);
        if !counts {
            *self
                .uncounted_attempt_failures
                .entry(application_seq)
                .or_default() += 1;
        }
        let uncounted = self
            .uncounted_attempt_failures
            .get(&application_seq)
            .map_or(0, |uncounted| *uncounted as usize);
        let made = application.attempts.len().saturating_sub(uncounted);
        let attempts_made = i32::try_from(made).unwrap_or(i32::MAX);
        if attempts_made < application.max_attempts {
            application.current_attempt += 1;
            application.state = ApplicationState::Accepted;
            application.attempts.push(AttemptRecord {
                attempt_id: application.current_attempt,
                start_time_ms: now_ms,
                ..AttemptRecord::default()
            });
        } else {
            application.state = ApplicationState::Failed;
            application.final_status = FinalStatus::Failed;
            application.finish_time_ms = now_ms;
            application.diagnostics = format!(
                "Application {application_id} failed {attempts_made} times (global limit or \
                 the application's max attempts) due to: {diagnostics}. Failing the application."
            );
        }
        let state = application.state;
        self.complete_live_containers(
            application_seq,
            |record| record.attempt_id == failed_attempt,
            KILLED_BY_RESOURCEMANAGER,
            "Container killed by the ResourceManager: its application attempt failed",
            now_ms,
        );
        state
    }

    /// The application, when `attempt_id` is its current attempt and it is not over;
    /// otherwise the response that says why not.
    fn current_attempt_of(
        &mut self,
        application_seq: i32,
        attempt_id: i32,
    ) -> Result<&mut ApplicationRecord, RmResponse> {
        let application = self.live_application(application_seq)?;
        if application.current_attempt != attempt_id || application.attempts.is_empty() {
            return Err(RmResponse::AttemptNotCurrent {
                attempt_id,
                current: application.current_attempt,
            });
        }
        Ok(application)
    }

    fn complete_live_containers(
        &mut self,
        application_seq: i32,
        selected: impl Fn(&super::ContainerRecord) -> bool,
        exit_status: i32,
        diagnostics: &str,
        now_ms: i64,
    ) {
        let keys: Vec<ContainerKey> = self
            .containers
            .of_application(application_seq)
            .filter(|record| record.is_live() && selected(record))
            .map(|record| record.key)
            .collect();
        for key in keys {
            self.containers.complete(
                &ContainerCompletion {
                    key,
                    exit_status,
                    diagnostics: diagnostics.to_owned(),
                },
                now_ms,
            );
        }
    }

    fn attempt_name(&self, application_seq: i32, attempt_id: i32) -> ApplicationAttemptId {
        ApplicationAttemptId::new(
            ApplicationId::new(self.cluster_timestamp_ms, application_seq),
            attempt_id,
        )
    }
}

fn end_current_attempt(
    application: &mut ApplicationRecord,
    state: AttemptState,
    diagnostics: &str,
    now_ms: i64,
) {
    if let Some(attempt) = application.attempts.last_mut() {
        attempt.state = state;
        attempt.finish_time_ms = now_ms;
        attempt.diagnostics = diagnostics.to_owned();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state_machine::attempt_failures::{DISKS_FAILED, PREEMPTED};
    use crate::state_machine::test_fixtures::{am_container, key, running_application};
    use crate::state_machine::{CommandV1, ContainerState, RmCommand};

    /// Application 1 RUNNING in attempt 1 with task container 2 on n2 and AM container 3 on
    /// n1, both live.
    fn with_am() -> RmState {
        let mut state = running_application(&[(2, "n2:1")], &[]);
        state.apply(&RmCommand::V1(CommandV1::AllocateContainers {
            allocations: vec![am_container(3, "n1:1")],
        }));
        state
    }

    fn apply(state: &mut RmState, command: CommandV1) -> RmResponse {
        state.apply(&RmCommand::V1(command))
    }

    fn complete_am(state: &mut RmState, sequence: i64, exit_status: i32) -> RmResponse {
        apply(
            state,
            CommandV1::CompleteContainers {
                completions: vec![ContainerCompletion {
                    key: key(sequence),
                    exit_status,
                    diagnostics: "it died".to_owned(),
                }],
                now_ms: 50,
            },
        )
    }

    fn exit_status(state: &RmState, sequence: i64) -> Option<i32> {
        match &state.containers.get(&key(sequence))?.state {
            ContainerState::Allocated => None,
            ContainerState::Completed { exit_status, .. } => Some(*exit_status),
        }
    }

    fn register(state: &mut RmState, attempt_id: i32) -> RmResponse {
        apply(
            state,
            CommandV1::RegisterApplicationMaster {
                application_seq: 1,
                attempt_id,
                host: "am-host".to_owned(),
                rpc_port: 77,
                tracking_url: "http://am".to_owned(),
            },
        )
    }

    #[test]
    fn registration_is_idempotent_and_only_for_the_current_attempt() {
        let mut state = with_am();
        state.applications.get_mut(&1).unwrap().state = ApplicationState::Accepted;
        assert_eq!(
            register(&mut state, 1),
            RmResponse::ApplicationMasterRegistered { first_time: true }
        );
        assert_eq!(state.applications[&1].state, ApplicationState::Running);
        assert_eq!(state.applications[&1].attempts[0].host, "am-host");
        assert_eq!(
            register(&mut state, 1),
            RmResponse::ApplicationMasterRegistered { first_time: false }
        );
        assert_eq!(
            register(&mut state, 2),
            RmResponse::AttemptNotCurrent {
                attempt_id: 2,
                current: 1
            }
        );
    }

    #[test]
    fn finishing_ends_the_application_and_its_tasks_but_not_the_am() {
        let mut state = with_am();
        let finish = CommandV1::FinishApplicationMaster {
            application_seq: 1,
            attempt_id: 1,
            final_status: FinalStatus::Succeeded,
            diagnostics: "all done".to_owned(),
            tracking_url: String::new(),
            now_ms: 40,
        };
        assert_eq!(
            apply(&mut state, finish.clone()),
            RmResponse::ApplicationMasterUnregistered { first_time: true }
        );
        let app = &state.applications[&1];
        assert_eq!(app.state, ApplicationState::Finished);
        assert_eq!(app.final_status, FinalStatus::Succeeded);
        assert_eq!(app.finish_time_ms, 40);
        assert_eq!(app.attempts[0].state, AttemptState::Finished);
        assert_eq!(exit_status(&state, 2), Some(KILLED_AFTER_APP_COMPLETION));
        assert_eq!(state.containers.completed_at_ms(&key(2)), Some(40));
        assert_eq!(exit_status(&state, 3), None, "the AM exits on its own");
        // A retried finish succeeds and changes nothing; the AM's exit fails nothing now.
        let before = state.clone();
        assert_eq!(
            apply(&mut state, finish),
            RmResponse::ApplicationMasterUnregistered { first_time: false }
        );
        assert_eq!(state, before);
        complete_am(&mut state, 3, 0);
        assert_eq!(state.applications[&1].state, ApplicationState::Finished);
        assert_eq!(
            exit_status(&state, 3),
            Some(0),
            "the NodeManager's report ends it"
        );
        assert_eq!(state.containers.completed_at_ms(&key(3)), Some(50));
    }

    #[test]
    fn an_am_exit_before_finishing_starts_the_next_attempt_then_fails_the_application() {
        let mut state = with_am();
        assert_eq!(
            complete_am(&mut state, 3, 137),
            RmResponse::ContainersCompleted { completed: 1 }
        );
        let app = &state.applications[&1];
        assert_eq!(app.state, ApplicationState::Accepted);
        assert_eq!(app.current_attempt, 2);
        assert_eq!(app.attempts[0].state, AttemptState::Failed);
        assert!(app.attempts[0].diagnostics.contains("exitCode: 137"));
        assert_eq!(app.attempts[1].start_time_ms, 50);
        assert_eq!(
            exit_status(&state, 2),
            Some(KILLED_BY_RESOURCEMANAGER),
            "containers are not kept across attempts"
        );
        assert_eq!(
            [2, 3].map(|sequence| state.containers.completed_at_ms(&key(sequence))),
            [Some(50); 2],
            "the AM's exit and the attempt's end are one command"
        );

        // Attempt 2's AM on n1 dies too: max_attempts is 2, so the application fails.
        allocate_am(&mut state, 4, 2);
        complete_am(&mut state, 4, 1);
        let app = &state.applications[&1];
        assert_eq!(app.state, ApplicationState::Failed);
        assert_eq!(app.final_status, FinalStatus::Failed);
        assert!(
            app.diagnostics.contains("failed 2 times") && app.diagnostics.contains("exitCode: 1"),
            "{}",
            app.diagnostics
        );
    }

    /// Allocates the AM container `sequence` of `attempt_id` on n1.
    fn allocate_am(state: &mut RmState, sequence: i64, attempt_id: i32) {
        let mut am = am_container(sequence, "n1:1");
        am.attempt_id = attempt_id;
        apply(
            state,
            CommandV1::AllocateContainers {
                allocations: vec![am],
            },
        );
    }

    /// Hadoop's `shouldCountTowardsMaxAttemptRetry`: AMs lost with their node, preempted, on
    /// failed disks or killed by the RM do not use up the application's two attempts; an AM
    /// of the application's own failing does, before and after them.
    #[test]
    fn an_am_that_ends_through_no_fault_of_its_application_does_not_use_up_an_attempt() {
        let mut state = with_am();
        let lost = apply(
            &mut state,
            CommandV1::NodeLost {
                node: "n1:1".to_owned(),
                now_ms: 50,
            },
        );
        assert_eq!(
            lost,
            RmResponse::NodeLostRecorded {
                completed: vec![key(3)]
            }
        );
        for (sequence, exit) in (4..).zip([DISKS_FAILED, PREEMPTED, KILLED_BY_RESOURCEMANAGER]) {
            let attempt_id = state.applications[&1].current_attempt;
            allocate_am(&mut state, sequence, attempt_id);
            complete_am(&mut state, sequence, exit);
        }
        let app = &state.applications[&1];
        assert_eq!(app.state, ApplicationState::Accepted, "{}", app.diagnostics);
        assert_eq!(app.current_attempt, 5);
        assert_eq!(state.uncounted_attempt_failures[&1], 4);

        allocate_am(&mut state, 7, 5);
        complete_am(&mut state, 7, 137);
        assert_eq!(state.applications[&1].state, ApplicationState::Accepted);
        allocate_am(&mut state, 8, 6);
        complete_am(&mut state, 8, 1);
        let app = &state.applications[&1];
        assert_eq!(app.state, ApplicationState::Failed);
        assert!(
            app.diagnostics.contains("failed 2 times"),
            "{}",
            app.diagnostics
        );
        assert_eq!(app.attempts.len(), 6);
    }

    /// A log written before the rules were versioned replays with the meaning it was written
    /// with: every failed attempt counts.
    #[test]
    fn under_apply_rules_0_every_failed_attempt_counts() {
        let mut state = with_am();
        state.apply_rules = 0;
        complete_am(&mut state, 3, ABORTED);
        allocate_am(&mut state, 4, 2);
        complete_am(&mut state, 4, ABORTED);
        assert_eq!(state.applications[&1].state, ApplicationState::Failed);
        assert!(state.uncounted_attempt_failures.is_empty());
    }

    #[test]
    fn allocations_for_a_superseded_attempt_are_refused() {
        let mut state = with_am();
        complete_am(&mut state, 3, 1);
        let stale = am_container(5, "n1:1");
        let response = apply(
            &mut state,
            CommandV1::AllocateContainers {
                allocations: vec![stale],
            },
        );
        assert!(
            matches!(
                response,
                RmResponse::ContainersAllocated { recorded: 0, .. }
            ),
            "{response:?}"
        );
    }

    #[test]
    fn a_kill_completes_every_live_container_once() {
        let mut state = with_am();
        let kill = CommandV1::KillApplication {
            application_seq: 1,
            diagnostics: "killed by bob".to_owned(),
            now_ms: 60,
        };
        assert_eq!(
            apply(&mut state, kill.clone()),
            RmResponse::ApplicationKilled
        );
        let app = &state.applications[&1];
        assert_eq!(
            (app.state, app.final_status),
            (ApplicationState::Killed, FinalStatus::Killed)
        );
        assert_eq!(exit_status(&state, 3), Some(KILLED_BY_RESOURCEMANAGER));
        assert_eq!(exit_status(&state, 2), Some(KILLED_BY_RESOURCEMANAGER));
        assert_eq!(
            [2, 3].map(|sequence| state.containers.completed_at_ms(&key(sequence))),
            [Some(60); 2],
            "both ended with the kill"
        );
        assert_eq!(
            apply(&mut state, kill),
            RmResponse::ApplicationAlreadyFinal {
                state: ApplicationState::Killed
            }
        );
        assert_eq!(state.applications[&1].finish_time_ms, 60);
    }

    #[test]
    fn a_move_and_a_priority_change_apply_to_live_applications_only() {
        let mut state = with_am();
        let move_to = |queue: &str| CommandV1::MoveApplication {
            application_seq: 1,
            queue: queue.to_owned(),
        };
        assert_eq!(
            apply(&mut state, move_to("root.b")),
            RmResponse::ApplicationMoved
        );
        assert_eq!(
            apply(
                &mut state,
                CommandV1::UpdateApplicationPriority {
                    application_seq: 1,
                    priority: 7,
                }
            ),
            RmResponse::ApplicationPriorityUpdated
        );
        let app = &state.applications[&1];
        assert_eq!((app.queue.as_str(), app.priority), ("root.b", 7));
        assert_eq!(
            exit_status(&state, 3),
            None,
            "the AM container keeps running through the move"
        );
        apply(
            &mut state,
            CommandV1::KillApplication {
                application_seq: 1,
                diagnostics: String::new(),
                now_ms: 70,
            },
        );
        assert_eq!(
            apply(&mut state, move_to("root.c")),
            RmResponse::ApplicationAlreadyFinal {
                state: ApplicationState::Killed
            }
        );
        assert_eq!(state.applications[&1].queue, "root.b");
        assert_eq!(
            apply(
                &mut state,
                CommandV1::MoveApplication {
                    application_seq: 9,
                    queue: "root.a".to_owned(),
                }
            ),
            RmResponse::UnknownApplication { sequence: 9 }
        );
    }

    #[test]
    fn a_reservation_verdict_applies_only_while_the_application_is_where_it_was_reached() {
        let mut state = with_am();
        let expire = |queue: &str, move_to: Option<&str>| CommandV1::ExpireReservationApplication {
            application_seq: 1,
            queue: queue.to_owned(),
            move_to: move_to.map(str::to_owned),
            diagnostics: "reservation ended".to_owned(),
            now_ms: 80,
        };
        let queue = state.applications[&1].queue.clone();
        // Reached for another queue (a client moved it meanwhile): nothing changes.
        assert_eq!(
            apply(&mut state, expire("root.elsewhere", None)),
            RmResponse::ApplicationNotInQueue {
                queue: queue.clone()
            }
        );
        assert_eq!(state.applications[&1].state, ApplicationState::Running);
        assert_eq!(
            apply(&mut state, expire(&queue, Some("root.a.a-default"))),
            RmResponse::ApplicationMoved
        );
        assert_eq!(state.applications[&1].queue, "root.a.a-default");
        assert_eq!(
            apply(&mut state, expire("root.a.a-default", None)),
            RmResponse::ApplicationKilled
        );
        assert_eq!(state.applications[&1].diagnostics, "reservation ended");
    }

    #[test]
    fn an_expired_am_fails_its_attempt_and_its_container_is_ended() {
        let mut state = with_am();
        let response = apply(
            &mut state,
            CommandV1::FailApplicationAttempt {
                application_seq: 1,
                attempt_id: 1,
                exit_status: ABORTED,
                diagnostics: "timed out".to_owned(),
                now_ms: 70,
            },
        );
        assert_eq!(
            response,
            RmResponse::AttemptFailed {
                application_state: ApplicationState::Accepted
            }
        );
        assert_eq!(exit_status(&state, 3), Some(ABORTED));
        assert_eq!(state.containers.completed_at_ms(&key(3)), Some(70));
        assert_eq!(state.applications[&1].current_attempt, 2);
        assert!(
            state.uncounted_attempt_failures.is_empty(),
            "an expiry counts, though its AM container is aborted"
        );
    }

    #[test]
    fn a_newer_incarnation_reporting_nothing_loses_the_nodes_containers() {
        // Containers 1 and 2 live on nm1, 3 on nm2.
        let mut state = running_application(&[(1, "nm1:1"), (2, "nm1:1"), (3, "nm2:1")], &[]);
        let mut register = |incarnation: i64, reported_nothing: bool| {
            let response = state.apply(&RmCommand::V1(CommandV1::RegisterNodeIncarnation {
                node: "nm1:1".to_owned(),
                incarnation,
                reported_nothing,
                now_ms: 50,
            }));
            match response {
                RmResponse::NodeIncarnationRegistered { completed } => completed,
                other => panic!("unexpected {other:?}"),
            }
        };
        assert!(
            register(100, true).is_empty(),
            "the first one is only recorded"
        );
        assert!(register(100, true).is_empty(), "a resend");
        assert!(register(90, true).is_empty(), "a dead process's, late");
        assert!(
            register(200, false).is_empty(),
            "a restart that recovered its containers"
        );
        assert_eq!(
            register(300, true),
            [key(1), key(2)],
            "a restart without them"
        );
        assert_eq!(state.node_incarnations["nm1:1"], 300);
        assert!(
            state.containers.get(&key(3)).unwrap().is_live(),
            "another node's"
        );
        let lost = state.containers.get(&key(1)).unwrap();
        assert!(matches!(
            &lost.state,
            ContainerState::Completed { exit_status: ABORTED, diagnostics }
                if diagnostics == crate::state_machine::LOST_NODE_DIAGNOSTIC
        ));
    }
}
