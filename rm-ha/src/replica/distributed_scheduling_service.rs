//! DistributedSchedulingAMProtocol on the RM scheduler address, served by the same
//! [`ApplicationMasterService`] as ApplicationMasterProtocol: what a NodeManager's AMRMProxy
//! calls when it places OPPORTUNISTIC containers itself.

use std::time::Instant;

use tonic::{Request, Response, Status};
use yarn_proto::pb;
use yarn_proto::pb::distributed_scheduling_am_protocol_server::DistributedSchedulingAmProtocol;
use yarn_proto::token_metadata::remote_containers_refused;

use super::application_master_service::{ApplicationMasterService, Caller, resource_proto};
use super::clock::now_ms;
use crate::applications::remote_containers::{describe, remote_containers};
use crate::state_machine::{CommandV1, RmCommand, RmResponse};

impl ApplicationMasterService {
    /// Refuses the protocol when this RM runs no opportunistic allocator (neither
    /// `yarn.resourcemanager.opportunistic-container-allocation.enabled` nor
    /// `yarn.nodemanager.distributed-scheduling.enabled`), as a YARN RM then does not serve it:
    /// it would have no node ranking to offer.
    fn require_distributed_scheduling(&self) -> Result<(), Status> {
        if self.opportunistic.enabled {
            return Ok(());
        }
        Err(Status::failed_precondition(
            "this ResourceManager does not serve distributed scheduling: set \
             yarn.nodemanager.distributed-scheduling.enabled (or \
             yarn.resourcemanager.opportunistic-container-allocation.enabled) to true in its \
             yarn-site.xml",
        ))
    }

    /// The least-loaded nodes, best first, for an AMRMProxy to place containers on.
    fn nodes_for_scheduling(&self, caller: &Caller) -> Vec<pb::RemoteNodeProto> {
        caller.leadership.nodes(|tracker| {
            tracker.nodes_for_scheduling(Instant::now(), self.opportunistic.nodes_used)
        })
    }

    /// Records the containers `caller`'s AMRMProxy placed, through Raft, whole or not at all;
    /// repeated ones change nothing.
    async fn record_remote_containers(
        &self,
        caller: &Caller,
        containers: &[pb::ContainerProto],
    ) -> Result<(), Status> {
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
            remote_containers_refused(format!("{rpc} for {attempt}: {reason}"), &reported)
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
            return Err(Status::unavailable(format!(
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
            remote_containers_refused(
                format!(
                    "{rpc} for {attempt}: allocated_containers refused, none recorded: {}",
                    reasons.join("; ")
                ),
                &refused,
            )
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
            other => Err(Status::internal(format!(
                "{rpc} for {attempt}: recording containers produced {other:?}"
            ))),
        }
    }
}

#[tonic::async_trait]
impl DistributedSchedulingAmProtocol for ApplicationMasterService {
    async fn register_application_master_for_distributed_scheduling(
        &self,
        request: Request<pb::RegisterApplicationMasterRequestProto>,
    ) -> Result<Response<pb::RegisterDistributedSchedulingAmResponseProto>, Status> {
        let (caller, body) = self.authenticate(request)?;
        self.require_distributed_scheduling()?;
        let register_response = self.register(&caller, body).await?;
        let settings = &self.queues.settings;
        let minimum = resource_proto(settings.minimum_allocation);
        Ok(Response::new(
            pb::RegisterDistributedSchedulingAmResponseProto {
                register_response: Some(register_response),
                max_container_resource: Some(resource_proto(settings.maximum_allocation)),
                min_container_resource: Some(minimum.clone()),
                incr_container_resource: Some(minimum),
                container_token_expiry_interval: i32::try_from(
                    self.container_token_expiry.as_millis(),
                )
                .unwrap_or(i32::MAX),
                container_id_start: self.state.read(|state| {
                    state.containers.remote_container_id_start(
                        caller.leadership.epoch(),
                        caller.attempt.application_id.id,
                    )
                }),
                nodes_for_scheduling: self.nodes_for_scheduling(&caller),
            },
        ))
    }

    async fn allocate_for_distributed_scheduling(
        &self,
        request: Request<pb::DistributedSchedulingAllocateRequestProto>,
    ) -> Result<Response<pb::DistributedSchedulingAllocateResponseProto>, Status> {
        let (caller, body) = self.authenticate(request)?;
        self.require_distributed_scheduling()?;
        let allocate = body.allocate_request.unwrap_or_default();
        let allocate_response = if self.is_current(caller.attempt) {
            // Recorded before the allocate proper, and even when the leader answers "not
            // registered": the containers run already, and a repeated report changes nothing.
            self.record_remote_containers(&caller, &body.allocated_containers)
                .await?;
            self.allocate_current(&caller, allocate).await?
        } else {
            Self::shutdown_response(allocate.response_id)
        };
        Ok(Response::new(
            pb::DistributedSchedulingAllocateResponseProto {
                allocate_response: Some(allocate_response),
                nodes_for_scheduling: self.nodes_for_scheduling(&caller),
            },
        ))
    }

    async fn finish_application_master(
        &self,
        request: Request<pb::FinishApplicationMasterRequestProto>,
    ) -> Result<Response<pb::FinishApplicationMasterResponseProto>, Status> {
        self.finish(request).await
    }
}
