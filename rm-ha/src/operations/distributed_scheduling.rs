//! DistributedSchedulingAMProtocol's operations, on the same [`AmOperations`] as
//! ApplicationMasterProtocol's: what a NodeManager's AMRMProxy calls when it places
//! OPPORTUNISTIC containers itself.

use tokio::time::Instant;

use yarn_proto::pb;

use super::RmError;
use super::am_operations::{AmCaller, AmOperations, resource_proto};
use crate::applications::remote_containers::{describe, remote_containers};
use crate::state_machine::{CommandV1, RmCommand, RmResponse};
use yarn_security::now_ms;

impl AmOperations {
    /// Refuses the protocol when this RM runs no opportunistic allocator (neither
    /// `yarn.resourcemanager.opportunistic-container-allocation.enabled` nor
    /// `yarn.nodemanager.distributed-scheduling.enabled`), as a YARN RM then does not serve it:
    /// it would have no node ranking to offer.
    fn require_distributed_scheduling(&self) -> Result<(), RmError> {
        if self.opportunistic.enabled {
            return Ok(());
        }
        Err(RmError::precondition(
            "this ResourceManager does not serve distributed scheduling: set \
             yarn.nodemanager.distributed-scheduling.enabled (or \
             yarn.resourcemanager.opportunistic-container-allocation.enabled) to true in its \
             yarn-site.xml",
        ))
    }

    /// The least-loaded nodes, best first, for an AMRMProxy to place containers on.
    fn nodes_for_scheduling(&self, caller: &AmCaller) -> Vec<pb::RemoteNodeProto> {
        caller.leadership.nodes(|tracker| {
            tracker.nodes_for_scheduling(Instant::now(), self.opportunistic.nodes_used)
        })
    }

    /// Records the containers `caller`'s AMRMProxy placed, through Raft, whole or not at all;
    /// repeated ones change nothing.
    async fn record_remote_containers(
        &self,
        caller: &AmCaller,
        containers: &[pb::ContainerProto],
    ) -> Result<(), RmError> {
        if containers.is_empty() {
            return Ok(());
        }
        let attempt = caller.attempt;
        let rpc = "AllocateForDistributedScheduling";
        let records = remote_containers(attempt, containers, now_ms()).map_err(|reason| {
            // The reason names the faulty container by its place in the report, which the
            // proxy cannot map back: every reported container is named as refused.
            let reported: Vec<i64> = containers
                .iter()
                .filter_map(|container| container.id.map(|id| id.id))
                .collect();
            RmError::ContainersRefused {
                refused: reported,
                message: format!("{rpc} for {attempt}: {reason}"),
            }
        })?;
        let unknown_node = caller.leadership.nodes(|tracker| {
            records
                .iter()
                .find(|record| {
                    !record
                        .node
                        .parse()
                        .is_ok_and(|node| tracker.is_running(&node))
                })
                .map(|record| record.node.clone())
        });
        if let Some(node) = unknown_node {
            // Right after a failover NodeManagers re-register within a heartbeat: worth a retry.
            return Err(RmError::unavailable(format!(
                "{rpc} for {attempt}: node {node} is not registered with this ResourceManager \
                 leader (yet); retry once its NodeManager has registered"
            )));
        }
        let refused = |rejected: &[crate::state_machine::RemoteAllocationRejection]| {
            let reasons: Vec<String> = rejected
                .iter()
                .map(|rejection| describe(attempt, rejection))
                .collect();
            let refused: Vec<i64> = rejected
                .iter()
                .map(|rejection| rejection.key().container_id)
                .collect();
            RmError::ContainersRefused {
                refused,
                message: format!(
                    "{rpc} for {attempt}: allocated_containers refused, none recorded: {}",
                    reasons.join("; ")
                ),
            }
        };
        self.state
            .read(|state| state.check_remote_containers(&records))
            .map_err(|rejected| refused(&rejected))?;
        let command = RmCommand::V1(CommandV1::RecordRemoteContainers {
            containers: records,
        });
        match self.proposer.propose(command).await? {
            RmResponse::RemoteContainersRecorded { recorded, .. } => {
                let recorded = recorded.len() as u64;
                caller.leadership.count(|counts| {
                    counts.allocated_distributed += recorded;
                });
                Ok(())
            }
            RmResponse::RemoteContainersRejected { rejected } => Err(refused(&rejected)),
            other => Err(RmError::internal(format!(
                "{rpc} for {attempt}: recording containers produced {other:?}"
            ))),
        }
    }

    /// Registers `caller`'s attempt as [`register`](Self::register) does, and tells its
    /// AMRMProxy the allocation limits, the container ids it may issue and the nodes to place
    /// containers on.
    ///
    /// # Errors
    ///
    /// A failed precondition when this RM runs no opportunistic allocator; as
    /// [`register`](Self::register) otherwise.
    pub(crate) async fn register_for_distributed_scheduling(
        &self,
        caller: &AmCaller,
        body: pb::RegisterApplicationMasterRequestProto,
    ) -> Result<pb::RegisterDistributedSchedulingAmResponseProto, RmError> {
        self.require_distributed_scheduling()?;
        let register_response = self.register(caller, body).await?;
        let settings = &self.queues.settings;
        let minimum = resource_proto(settings.minimum_allocation);
        Ok(pb::RegisterDistributedSchedulingAmResponseProto {
            register_response: Some(register_response),
            max_container_resource: Some(resource_proto(settings.maximum_allocation)),
            min_container_resource: Some(minimum.clone()),
            incr_container_resource: Some(minimum),
            container_token_expiry_interval: i32::try_from(self.container_token_expiry.as_millis())
                .unwrap_or(i32::MAX),
            container_id_start: self.state.read(|state| {
                state.containers.remote_container_id_start(
                    caller.leadership.epoch(),
                    caller.attempt.application_id.id,
                )
            }),
            nodes_for_scheduling: self.nodes_for_scheduling(caller),
        })
    }

    /// Records the containers `caller`'s AMRMProxy placed, then makes the AM's allocate (see
    /// [`allocate`](Self::allocate)) and adds the nodes to place containers on.
    ///
    /// # Errors
    ///
    /// [`RmError::ContainersRefused`] naming the reported containers when any is refused (none
    /// is recorded); as [`allocate`](Self::allocate) otherwise.
    pub(crate) async fn allocate_for_distributed_scheduling(
        &self,
        caller: &AmCaller,
        body: pb::DistributedSchedulingAllocateRequestProto,
    ) -> Result<pb::DistributedSchedulingAllocateResponseProto, RmError> {
        self.require_distributed_scheduling()?;
        let allocate = body.allocate_request.unwrap_or_default();
        let allocate_response = if self.is_current(caller.attempt) {
            // Recorded before the allocate proper, and even when the leader answers "not
            // registered": the containers run already, and a repeated report changes nothing.
            self.record_remote_containers(caller, &body.allocated_containers)
                .await?;
            self.allocate_current(caller, allocate).await?
        } else {
            Self::shutdown_response(allocate.response_id)
        };
        Ok(pb::DistributedSchedulingAllocateResponseProto {
            allocate_response: Some(allocate_response),
            nodes_for_scheduling: self.nodes_for_scheduling(caller),
        })
    }
}
