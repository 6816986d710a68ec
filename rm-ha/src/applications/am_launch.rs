//! [`AmLaunch`]: what the leader's AM launcher sends a NodeManager to start an attempt's AM,
//! built purely from the replicated state.

use prost::Message;
use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, ContainerId};
use yarn_proto::pb;

use super::TokenIssuer;
use super::allocate_response::container_proto;
use super::am_credentials::am_credentials;
use crate::state_machine::{ApplicationState, ContainerKey, RmState};

// The AM's environment gets what Hadoop's `AMLauncher.setupTokens` adds to it, except
// `APPLICATION_WEB_PROXY_BASE`, the path under the web proxy that Hadoop sets on every AM:
// yarn-ha runs no web proxy, and an AM that finds the variable builds its tracking URLs under
// a proxy that is not there. The NodeManager sets neither variable below itself, so the AM's
// process sees the values set here.

/// The environment variable with the application's submission time (milliseconds since the
/// epoch), as Hadoop's `ApplicationConstants.APP_SUBMIT_TIME_ENV` names it.
pub const APP_SUBMIT_TIME_ENV: &str = "APP_SUBMIT_TIME_ENV";
/// The environment variable with the application's attempt limit, as Hadoop's
/// `ApplicationConstants.MAX_APP_ATTEMPTS_ENV` names it (Hadoop 2.0's `AMLauncher` set it;
/// MapReduce and Tez AMs still read it to know their last attempt).
pub const MAX_APP_ATTEMPTS_ENV: &str = "MAX_APP_ATTEMPTS";

/// One AM container to start: where, with which tokens and which launch context.
#[derive(Debug, Clone, PartialEq)]
pub struct AmLaunch {
    /// The container's table key.
    pub key: ContainerKey,
    /// Its attempt.
    pub attempt: ApplicationAttemptId,
    /// The node, `host:port` of its container manager.
    pub node: String,
    /// The start request: the client's AM launch context, its credentials rewritten as a
    /// Hadoop credentials file holding the attempt's AMRMToken (see
    /// [`am_credentials`](super::am_credentials)) and its environment with the variables above,
    /// and the container token.
    pub request: pb::StartContainersRequestProto,
    /// The NM token of the attempt for the node, for the call's metadata.
    pub nm_token: pb::TokenProto,
}

/// The AM containers of `state` waiting to be started: allocated, of their application's
/// current attempt, the application still `Accepted` (its AM has not registered), and not in
/// `skip`. Empty until the state holds token keys.
pub fn pending_launches(
    state: &RmState,
    skip: impl Fn(&ContainerKey) -> bool,
    now_ms: i64,
    expiry_ms: i64,
) -> Vec<AmLaunch> {
    let Some(issuer) = TokenIssuer::from_state(state) else {
        return Vec::new();
    };
    state
        .containers
        .iter()
        .filter(|record| record.is_am && record.is_live() && !skip(&record.key))
        .filter_map(|record| {
            let application = state.applications.get(&record.key.application_seq)?;
            if application.state != ApplicationState::Accepted
                || application.current_attempt != record.attempt_id
            {
                return None;
            }
            let attempt = ApplicationAttemptId::new(
                ApplicationId::new(state.cluster_timestamp_ms, application.sequence),
                record.attempt_id,
            );
            let id = ContainerId::from_raw(attempt, record.key.container_id).ok()?;
            let node = record.node.parse().ok()?;
            let version = state.containers.version(&record.key);
            let container_token =
                issuer.container_token(id, record, version, &application.user, now_ms, expiry_ms);
            let nm_token = issuer.nm_token(attempt, &node, &application.user).token?;
            let context = pb::ApplicationSubmissionContextProto::decode(
                application.submission_context.as_slice(),
            )
            .ok()?;
            let mut launch_context = context.am_container_spec.unwrap_or_default();
            launch_context.tokens =
                am_credentials(&launch_context.tokens, issuer.amrm_token(attempt));
            launch_context.environment.insert(
                APP_SUBMIT_TIME_ENV.to_owned(),
                application.submit_time_ms.to_string(),
            );
            launch_context.environment.insert(
                MAX_APP_ATTEMPTS_ENV.to_owned(),
                application.max_attempts.to_string(),
            );
            let container = container_proto(id, record, version, container_token);
            Some(AmLaunch {
                key: record.key,
                attempt,
                node: record.node.clone(),
                request: pb::StartContainersRequestProto {
                    start_container_requests: vec![pb::StartContainerRequestProto {
                        container_launch_context: Some(launch_context),
                        container_token: container.container_token,
                    }],
                },
                nm_token,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use yarn_security::hadoop_credentials::Credentials;

    use super::*;
    use crate::state_machine::test_fixtures::{self, TIMESTAMP, key};
    use crate::state_machine::{CommandV1, RmCommand};

    #[test]
    fn only_unregistered_current_attempts_am_containers_are_launched() {
        let mut state = test_fixtures::running_application(&[], &[]);
        test_fixtures::initialize_master_keys(&mut state);
        state.apply(&RmCommand::V1(CommandV1::AllocateContainers {
            allocations: vec![test_fixtures::am_container(2, "n1:8041")],
        }));
        // RUNNING: the AM registered already.
        assert!(pending_launches(&state, |_| false, 1, 2).is_empty());
        state.applications.get_mut(&1).unwrap().state = ApplicationState::Accepted;
        let launches = pending_launches(&state, |_| false, 1, 2);
        assert_eq!(launches.len(), 1);
        assert_eq!(launches[0].key, key(2));
        assert_eq!(launches[0].node, "n1:8041");
        assert_eq!(
            launches[0].attempt,
            ApplicationAttemptId::new(ApplicationId::new(TIMESTAMP, 1), 1)
        );
        let context = launches[0].request.start_container_requests[0]
            .container_launch_context
            .as_ref()
            .unwrap();
        let credentials = Credentials::decode(&context.tokens).unwrap();
        assert_eq!(credentials.tokens()[0].kind, "YARN_AM_RM_TOKEN");
        assert_eq!(context.environment[MAX_APP_ATTEMPTS_ENV], "2");
        assert!(pending_launches(&state, |k| *k == key(2), 1, 2).is_empty());
    }
}
