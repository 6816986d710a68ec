//! [`ResourceTrackerOperations`]: NodeManager registration and heartbeats.

use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;
use yarn_proto::ids::NodeId;
use yarn_proto::pb::{self, NodeActionProto};
use yarn_security::Caller;

use super::RmError;
use crate::applications::DiagnosticsLimit;
use crate::nodes::{
    AutoUpdate, HeartbeatVerdict, RackResolver, awaiting_increases, cleanup, containers_to_update,
    reported_completions,
};
use crate::replica::{LeaderGate, Leadership, Proposer};
use crate::state_machine::{CommandV1, MasterKeyKind, RmCommand, RmResponse, RmState, StateView};
use yarn_security::now_ms;

/// The leader's ResourceTracker operations.
///
/// Guarantees: only the serving leader answers (others refuse through [`LeaderGate`]); a
/// NodeManager certificate may speak only for nodes on its own host; RESYNC and SHUTDOWN travel
/// in response bodies; a duplicate heartbeat gets the previous response again and changes
/// nothing; master keys are sent only when the node's last known key id differs; a completed
/// container the node reports is committed before the response lets the node forget it, so no
/// completion is lost to a failover; a node that registers with a newer incarnation and
/// reports nothing restarted without its containers, and they complete as lost.
pub(crate) struct ResourceTrackerOperations {
    pub(crate) gate: LeaderGate,
    /// Commits the completions nodes report.
    pub(crate) proposer: Proposer,
    pub(crate) state: StateView,
    pub(crate) heartbeat_interval: Duration,
    /// How much of a container's exit diagnostics is kept.
    pub(crate) diagnostics_limit: DiagnosticsLimit,
    /// Places each registering node on its rack.
    pub(crate) racks: Arc<RackResolver>,
    /// How long the container tokens of updates sent to nodes stay valid.
    pub(crate) container_token_expiry: Duration,
    /// Which container updates nodes hear of by heartbeat.
    pub(crate) auto_update: AutoUpdate,
}

/// Checks `caller` may speak for `node`: a NodeManager certificate is named by its host.
fn authorize_node(caller: &Caller, node: &NodeId) -> Result<(), RmError> {
    match caller {
        Caller::Peer(identity) if identity.name != node.host => Err(RmError::AccessDenied {
            user: identity.name.clone(),
            right: format!("node {node}"),
            message: format!(
                "certificate {identity} may not speak for node {node}: a NodeManager certificate \
                 is named by its host"
            ),
        }),
        Caller::Peer(_) | Caller::Anonymous => Ok(()),
    }
}

fn node_id(proto: Option<pb::NodeIdProto>, field: &'static str) -> Result<NodeId, RmError> {
    let proto = proto.ok_or_else(|| RmError::invalid(field, format!("{field} is required")))?;
    NodeId::try_from(proto).map_err(|err| RmError::invalid(field, format!("{field}: {err}")))
}

/// The current key of `kind`, when initialized.
fn current_key(state: &RmState, kind: MasterKeyKind) -> Option<pb::MasterKeyProto> {
    let pair = state.master_keys.get(kind)?;
    Some(pb::MasterKeyProto::from(&pair.current.master_key()))
}

/// The current key of `kind` if the node's last known key differs from it.
fn key_if_changed(
    state: &RmState,
    kind: MasterKeyKind,
    last_known: Option<&pb::MasterKeyProto>,
) -> Option<pb::MasterKeyProto> {
    let current = current_key(state, kind)?;
    (last_known.map(|k| k.key_id) != Some(current.key_id)).then_some(current)
}

impl ResourceTrackerOperations {
    /// Registers `caller`'s node with this leadership (YARN's `registerNodeManager`) and hands
    /// it the token master keys; a decommissioned node, or one offering nothing, is told to
    /// shut down.
    ///
    /// # Errors
    ///
    /// Not leader; an invalid node id; access denied for a node of another host; unavailable
    /// until the new leader's master keys exist.
    pub(crate) async fn register_node_manager(
        &self,
        caller: &Caller,
        registration: pb::RegisterNodeManagerRequestProto,
    ) -> Result<pb::RegisterNodeManagerResponseProto, RmError> {
        let leadership = self.gate.require_leader()?;
        let node = node_id(registration.node_id.clone(), "node_id")?;
        authorize_node(caller, &node)?;
        let resource = registration.resource.clone().unwrap_or_default();
        let (keys, decommissioned) = self.state.read(|state| {
            let keys = current_key(state, MasterKeyKind::Container)
                .zip(current_key(state, MasterKeyKind::Nm));
            (keys, state.decommissioned_nodes.contains(&node.to_string()))
        });
        let Some((container_key, nm_key)) = keys else {
            return Err(RmError::unavailable(
                "the token master keys are not initialized yet; the new leader creates them \
                 within a second, retry",
            ));
        };
        let refusal = if decommissioned {
            Some(format!(
                "node {node} is decommissioned; refusing its registration"
            ))
        } else if resource.memory <= 0 || resource.virtual_cores <= 0 {
            Some(format!(
                "node {node} offers {} MB and {} vcores; it must offer some of both",
                resource.memory, resource.virtual_cores
            ))
        } else {
            None
        };
        if let Some(diagnostics) = refusal {
            tracing::warn!(%node, %diagnostics, "refusing a NodeManager");
            return Ok(pb::RegisterNodeManagerResponseProto {
                node_action: NodeActionProto::Shutdown.into(),
                diagnostics_message: diagnostics,
                rm_identifier: i64::try_from(leadership.epoch()).unwrap_or(i64::MAX),
                ..Default::default()
            });
        }
        let rack = self.racks.resolve(&node.host).await;
        tracing::info!(
            %node,
            %rack,
            memory_mb = resource.memory,
            vcores = resource.virtual_cores,
            containers = registration.container_statuses.len(),
            "NodeManager registered"
        );
        self.register_incarnation(&node, &registration).await?;
        let http_port = registration.http_port;
        leadership.nodes(|tracker| {
            tracker.register(node, rack, resource, http_port, Instant::now());
        });
        Ok(pb::RegisterNodeManagerResponseProto {
            container_token_master_key: Some(container_key),
            nm_token_master_key: Some(nm_key),
            node_action: NodeActionProto::Normal.into(),
            rm_identifier: i64::try_from(leadership.epoch()).unwrap_or(i64::MAX),
            ..Default::default()
        })
    }

    /// One heartbeat of `caller`'s node (YARN's `nodeHeartbeat`); see the guarantees on
    /// [`ResourceTrackerOperations`].
    ///
    /// # Errors
    ///
    /// As [`register_node_manager`](Self::register_node_manager), and a completion that could
    /// not be committed (the node sends the same heartbeat again).
    pub(crate) async fn node_heartbeat(
        &self,
        caller: &Caller,
        heartbeat: pb::NodeHeartbeatRequestProto,
    ) -> Result<pb::NodeHeartbeatResponseProto, RmError> {
        let leadership = self.gate.require_leader()?;
        let status = heartbeat
            .node_status
            .clone()
            .ok_or_else(|| RmError::invalid("node_status", "node_status is required"))?;
        let node = node_id(status.node_id, "node_status.node_id")?;
        authorize_node(caller, &node)?;
        let interval_ms = i64::try_from(self.heartbeat_interval.as_millis()).unwrap_or(i64::MAX);
        let decommissioned = self
            .state
            .read(|state| state.decommissioned_nodes.contains(&node.to_string()));
        if decommissioned {
            leadership.nodes(|tracker| tracker.unregister(&node));
            return Ok(pb::NodeHeartbeatResponseProto {
                node_action: NodeActionProto::Shutdown.into(),
                diagnostics_message: format!("node {node} is decommissioned"),
                next_heart_beat_interval: interval_ms,
                ..Default::default()
            });
        }
        let verdict = leadership.nodes(|tracker| tracker.heartbeat(&node, status.response_id));
        let response_id = match verdict {
            HeartbeatVerdict::Duplicate(last) => return Ok(*last),
            HeartbeatVerdict::Resync { reason } => {
                tracing::info!(%node, %reason, "asking a NodeManager to resync");
                return Ok(pb::NodeHeartbeatResponseProto {
                    node_action: NodeActionProto::Resync.into(),
                    diagnostics_message: reason,
                    next_heart_beat_interval: interval_ms,
                    ..Default::default()
                });
            }
            HeartbeatVerdict::Accept { response_id } => response_id,
        };
        let mut completions = self
            .state
            .read(|state| reported_completions(state, &node, &status.containers_statuses));
        for completion in &mut completions {
            completion.diagnostics = self
                .diagnostics_limit
                .bound(std::mem::take(&mut completion.diagnostics));
        }
        if !completions.is_empty() {
            // On failure the node sends the same heartbeat again: nothing was recorded as
            // answered, and completing twice changes nothing.
            self.proposer
                .propose(RmCommand::V1(CommandV1::CompleteContainers {
                    completions,
                    now_ms: now_ms(),
                }))
                .await?;
        }
        self.roll_back_unconfirmed_increases(&leadership, &node, &status.containers_statuses)
            .await?;
        let now = now_ms();
        let expiry_ms = now.saturating_add(
            i64::try_from(self.container_token_expiry.as_millis()).unwrap_or(i64::MAX),
        );
        let (cleanup, containers_to_update, container_key, nm_key) = self.state.read(|state| {
            (
                cleanup(state, &status.containers_statuses),
                containers_to_update(
                    state,
                    &node,
                    &status.containers_statuses,
                    self.auto_update,
                    now,
                    expiry_ms,
                ),
                key_if_changed(
                    state,
                    MasterKeyKind::Container,
                    heartbeat.last_known_container_token_master_key.as_ref(),
                ),
                key_if_changed(
                    state,
                    MasterKeyKind::Nm,
                    heartbeat.last_known_nm_token_master_key.as_ref(),
                ),
            )
        });
        let container_queuing_limit =
            leadership.nodes(|tracker| tracker.queue_limit(Instant::now()));
        let response = pb::NodeHeartbeatResponseProto {
            response_id,
            container_queuing_limit,
            container_token_master_key: container_key,
            nm_token_master_key: nm_key,
            node_action: NodeActionProto::Normal.into(),
            next_heart_beat_interval: interval_ms,
            containers_to_cleanup: cleanup.to_kill.into_iter().map(Into::into).collect(),
            containers_to_be_removed_from_nm: cleanup
                .acknowledged
                .into_iter()
                .map(Into::into)
                .collect(),
            applications_to_cleanup: cleanup
                .finished_applications
                .into_iter()
                .map(Into::into)
                .collect(),
            containers_to_update,
            ..Default::default()
        };
        leadership.nodes(|tracker| {
            tracker.responded(&node, response.clone(), Instant::now());
            if let Some(load) = status.opportunistic_containers_status {
                tracker.record_load(&node, load);
            }
        });
        Ok(response)
    }

    /// Rolls back the increases `node` still runs smaller than recorded a container-token
    /// expiry after this leader first saw them so (Hadoop's container allocation expirer for
    /// increases): the container goes back to the size the node runs, and its share to the
    /// queue. The AM hears of it as a decrease. A rollback the state refuses (the container
    /// moved on meanwhile) changes nothing.
    ///
    /// # Errors
    ///
    /// A rollback that could not be committed; the node sends the heartbeat again.
    async fn roll_back_unconfirmed_increases(
        &self,
        leadership: &Leadership,
        node: &NodeId,
        statuses: &[pb::ContainerStatusProto],
    ) -> Result<(), RmError> {
        let awaiting = self
            .state
            .read(|state| awaiting_increases(state, node, statuses));
        let rollbacks = leadership.nodes(|tracker| {
            tracker.unconfirmed_increases(
                node,
                &awaiting,
                Instant::now(),
                self.container_token_expiry,
            )
        });
        if rollbacks.is_empty() {
            return Ok(());
        }
        tracing::warn!(
            %node,
            containers = ?rollbacks.iter().map(|r| r.key).collect::<Vec<_>>(),
            expiry = ?self.container_token_expiry,
            "rolling back increases the NodeManager did not apply within the container token expiry"
        );
        self.proposer
            .propose(RmCommand::V1(CommandV1::ResizeContainers {
                resizes: rollbacks,
            }))
            .await?;
        Ok(())
    }

    /// Commits `registration`'s incarnation for `node` when it is newer than the recorded one
    /// ([`CommandV1::RegisterNodeIncarnation`]): a NodeManager that restarted and reports no
    /// container and no running application has its live containers completed as lost, whichever
    /// leader it registered with before, and an AM that ran there gets its next attempt at once
    /// instead of after the AM expiry. A resent registration, one after a failover, or a late
    /// one from a dead process writes nothing; a NodeManager that recovered its containers keeps
    /// them. A NodeManager that sends no incarnation (0) is taken at its word, as before.
    ///
    /// # Errors
    ///
    /// When the incarnation cannot be committed; the node registers again.
    async fn register_incarnation(
        &self,
        node: &NodeId,
        registration: &pb::RegisterNodeManagerRequestProto,
    ) -> Result<(), RmError> {
        let incarnation = registration.incarnation;
        let node = node.to_string();
        let recorded = self
            .state
            .read(|state| state.node_incarnations.get(&node).copied());
        if incarnation <= 0 || recorded.is_some_and(|recorded| recorded >= incarnation) {
            return Ok(());
        }
        let response = self
            .proposer
            .propose(RmCommand::V1(CommandV1::RegisterNodeIncarnation {
                node: node.clone(),
                incarnation,
                reported_nothing: registration.container_statuses.is_empty()
                    && registration.running_applications.is_empty(),
                now_ms: now_ms(),
            }))
            .await?;
        if let RmResponse::NodeIncarnationRegistered { completed } = response
            && !completed.is_empty()
        {
            tracing::warn!(
                %node,
                containers = completed.len(),
                "NodeManager restarted without its containers; completed them as lost"
            );
        }
        Ok(())
    }

    /// Forgets `caller`'s node, which is shutting down (YARN's `unRegisterNodeManager`).
    ///
    /// # Errors
    ///
    /// Not leader; an invalid node id; access denied for a node of another host.
    pub(crate) async fn un_register_node_manager(
        &self,
        caller: &Caller,
        request: pb::UnRegisterNodeManagerRequestProto,
    ) -> Result<pb::UnRegisterNodeManagerResponseProto, RmError> {
        let leadership = self.gate.require_leader()?;
        let node = node_id(request.node_id, "node_id")?;
        authorize_node(caller, &node)?;
        tracing::info!(%node, "NodeManager unregistered");
        leadership.nodes(|tracker| tracker.unregister(&node));
        Ok(pb::UnRegisterNodeManagerResponseProto {})
    }
}
