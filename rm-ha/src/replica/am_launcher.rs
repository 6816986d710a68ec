//! The leader's AM launcher: starts committed AM containers on their NodeManagers.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;
use tonic::Request;
use tonic::transport::Channel;
use yarn_proto::ids::ContainerId;
use yarn_proto::pb;
use yarn_proto::pb::container_management_protocol_client::ContainerManagementProtocolClient;
use yarn_proto::token_metadata::{NM_TOKEN_METADATA_KEY, insert_token};
use yarn_security::Dialer;

use super::leadership::Leadership;
use super::periodic::Periodic;
use super::raft_proposer::RaftProposer;
use crate::applications::{AmLaunch, pending_launches};
use crate::state_machine::{ABORTED, CommandV1, ContainerKey, RmCommand, StateView};
use yarn_security::now_ms;

/// YARN's exception class for a start the node cannot take yet (not registered with this
/// leader's epoch); the launcher tries again.
const NM_NOT_YET_READY: &str = "org.apache.hadoop.yarn.exceptions.NMNotYetReadyException";

/// Starts every AM container the state holds allocated for an attempt whose AM has not
/// registered, once per leadership, on nodes registered with this leader.
///
/// Guarantees: an AM is never started twice by one leader, and a new leader first asks the
/// node whether it already runs the container (its predecessor may have started it), so a
/// failover does not start a second AM. A start the node refuses for good fails the attempt
/// through Raft with the node's reason, so the application retries or fails with diagnostics.
pub(crate) struct AmLauncher {
    /// Every Raft write of the service goes through it.
    pub(crate) proposer: RaftProposer,
    pub(crate) state: StateView,
    /// The leadership whose soft state the service works on.
    pub(crate) leadership: Arc<Leadership>,
    /// Reaches NodeManagers: with the replica's certificate as the launcher's identity, each
    /// call bounded by the launcher's call timeout.
    pub(crate) dialer: Dialer,
    pub(crate) container_token_expiry: Duration,
    pub(crate) check_interval: Duration,
}

impl AmLauncher {
    /// Runs until `token` is cancelled.
    pub(crate) async fn run(self, token: CancellationToken) {
        let mut launched: BTreeSet<ContainerKey> = BTreeSet::new();
        let mut channels: BTreeMap<String, Channel> = BTreeMap::new();
        let mut every = Periodic::new(self.check_interval);
        while every.tick(&token).await {
            let now = now_ms();
            let expiry = now.saturating_add(
                i64::try_from(self.container_token_expiry.as_millis()).unwrap_or(i64::MAX),
            );
            let launches = self
                .state
                .read(|state| pending_launches(state, |key| launched.contains(key), now, expiry));
            for launch in launches {
                let registered = self.leadership.nodes(|tracker| {
                    launch
                        .node
                        .parse()
                        .ok()
                        .is_some_and(|node| tracker.get(&node).is_some())
                });
                if !registered {
                    continue;
                }
                let Some(channel) = self.channel(&mut channels, &launch.node) else {
                    continue;
                };
                match self.launch(channel, &launch).await {
                    Outcome::Started | Outcome::AlreadyThere => {
                        launched.insert(launch.key);
                    }
                    Outcome::TryAgain => {}
                    Outcome::Refused(reason) => {
                        if self.fail_attempt(&launch, &reason).await {
                            launched.insert(launch.key);
                        }
                    }
                }
            }
        }
    }

    fn channel(&self, channels: &mut BTreeMap<String, Channel>, node: &str) -> Option<Channel> {
        if let Some(channel) = channels.get(node) {
            return Some(channel.clone());
        }
        match self.dialer.dial(node) {
            Ok(channel) => {
                channels.insert(node.to_owned(), channel.clone());
                Some(channel)
            }
            Err(err) => {
                tracing::warn!(node, %err, "cannot make a channel to a NodeManager");
                None
            }
        }
    }

    async fn launch(&self, channel: Channel, launch: &AmLaunch) -> Outcome {
        let mut client = ContainerManagementProtocolClient::new(channel);
        let Ok(container_id) = ContainerId::from_raw(launch.attempt, launch.key.container_id)
        else {
            return Outcome::Refused("the container id does not fit its attempt".to_owned());
        };
        // A predecessor may have started it already; the node knows.
        let mut status = Request::new(pb::GetContainerStatusesRequestProto {
            container_ids: vec![container_id.into()],
        });
        insert_token(&mut status, NM_TOKEN_METADATA_KEY, &launch.nm_token);
        match client.get_container_statuses(status).await {
            Ok(reply) if !reply.get_ref().statuses.is_empty() => return Outcome::AlreadyThere,
            Ok(_) => {}
            Err(status) => {
                tracing::debug!(node = %launch.node, %status, "NodeManager not reachable yet");
                return Outcome::TryAgain;
            }
        }
        let mut start = Request::new(launch.request.clone());
        insert_token(&mut start, NM_TOKEN_METADATA_KEY, &launch.nm_token);
        match client.start_containers(start).await {
            Ok(reply) => match reply.into_inner().failed_requests.into_iter().next() {
                None => {
                    tracing::info!(container = %container_id, node = %launch.node, "AM container launched");
                    Outcome::Started
                }
                Some(failure) => {
                    let exception = failure.exception.unwrap_or_default();
                    if exception.class_name == NM_NOT_YET_READY {
                        Outcome::TryAgain
                    } else {
                        Outcome::Refused(exception.message)
                    }
                }
            },
            Err(status) => {
                tracing::debug!(node = %launch.node, %status, "AM start did not reach the node");
                Outcome::TryAgain
            }
        }
    }

    /// Commits the attempt's failure; false when the commit is not known to have happened.
    async fn fail_attempt(&self, launch: &AmLaunch, reason: &str) -> bool {
        tracing::warn!(attempt = %launch.attempt, node = %launch.node, reason, "AM launch refused");
        let command = RmCommand::V1(CommandV1::FailApplicationAttempt {
            application_seq: launch.attempt.application_id.id,
            attempt_id: launch.attempt.attempt_id,
            exit_status: ABORTED,
            diagnostics: format!(
                "the NodeManager {} refused to launch the AM: {reason}",
                launch.node
            ),
            now_ms: now_ms(),
        });
        self.proposer.propose(command).await.is_ok()
    }
}

/// What one launch try came to.
enum Outcome {
    Started,
    /// The node already knows the container.
    AlreadyThere,
    /// Not now: the node is unreachable or not ready for this leader.
    TryAgain,
    /// The node refused the start for good, for this reason.
    Refused(String),
}
