//! Fixtures of the scheduling tests: a replicated state with queues and submissions, the
//! leader's view of the queue configuration and of nodes.

use std::collections::BTreeMap;

use prost::Message;
use yarn_proto::pb;
use yarn_scheduler::{DEFAULT_RACK, Resource, SchedulerSettings};
use yarn_security::Groups;

use super::QueueConfigSource;
use crate::nodes::SchedulableNode;
use crate::state_machine::{
    ApplicationRecord, ApplicationState, CommandV1, RmCommand, RmResponse, RmState,
};

pub(crate) const NOW: i64 = 1_000;

pub(crate) fn source() -> QueueConfigSource {
    QueueConfigSource {
        file: None,
        settings: SchedulerSettings {
            acl_enable: true,
            ..SchedulerSettings::default()
        },
        groups: Groups::fixed(BTreeMap::from([
            (
                "dora".to_string(),
                vec!["staff".to_string(), "a-team".to_string()],
            ),
            ("bob".to_string(), vec!["staff".to_string()]),
        ])),
    }
}

pub(crate) fn apply(state: &mut RmState, command: CommandV1) -> RmResponse {
    state.apply(&RmCommand::V1(command))
}

pub(crate) fn state(config: BTreeMap<String, String>) -> RmState {
    let mut state = RmState::default();
    apply(
        &mut state,
        CommandV1::BeginEpoch {
            leader_rm_id: "rm1".to_owned(),
            now_ms: NOW,
        },
    );
    apply(
        &mut state,
        CommandV1::SetQueueConfiguration {
            expected: 0,
            properties: config,
        },
    );
    state
}

/// Submits an application of `user` to `queue` whose AM needs `am_mb`; returns its number.
pub(crate) fn submit(state: &mut RmState, user: &str, queue: &str, am_mb: i64) -> i32 {
    let RmResponse::ApplicationIdsAllocated { first, .. } =
        apply(state, CommandV1::AllocateApplicationIds { count: 1 })
    else {
        panic!("no application id");
    };
    let context = pb::ApplicationSubmissionContextProto {
        resource: Some(pb::ResourceProto {
            memory: am_mb,
            virtual_cores: 1,
            ..Default::default()
        }),
        ..Default::default()
    };
    let application = ApplicationRecord {
        sequence: first,
        user: user.to_owned(),
        name: "job".to_owned(),
        queue: queue.to_owned(),
        application_type: "YARN".to_owned(),
        tags: Vec::new(),
        submit_time_ms: NOW,
        state: ApplicationState::Submitted,
        submission_context: context.encode_to_vec(),
        priority: 0,
        current_attempt: 0,
        diagnostics: String::new(),
        ..ApplicationRecord::default()
    };
    let submitted = apply(
        state,
        CommandV1::SubmitApplication {
            cluster_timestamp_ms: NOW,
            application,
        },
    );
    assert_eq!(submitted, RmResponse::ApplicationSubmitted);
    first
}

pub(crate) fn nodes(count: usize) -> Vec<SchedulableNode> {
    (1..=count)
        .map(|n| SchedulableNode {
            id: format!("nm{n}:8041").parse().unwrap(),
            rack: DEFAULT_RACK.to_owned(),
            capability: Resource::new(8192, 8),
        })
        .collect()
}
