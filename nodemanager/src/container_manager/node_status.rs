//! The container manager as the heartbeat loop's
//! [`NodeStatusSource`](crate::node_status_updater::NodeStatusSource).

use yarn_opportunistic::ContainerQueuingLimit;
use yarn_proto::ids::{ApplicationId, ContainerId};
use yarn_proto::pb;

use super::container_manager::KILLED_BY_RESOURCEMANAGER;
use super::{ContainerEntry, ContainerManager, KILLED_BY_RESOURCEMANAGER_DIAGNOSTIC, Work};
use crate::node_status_updater::NodeStatusSource;
use crate::state_store::MasterKeyPair;
use crate::token_check::NmKeyKind;

/// `ContainerExitStatusProto::KILLED_AFTER_APP_COMPLETION`.
const KILLED_AFTER_APP_COMPLETION: i32 =
    pb::ContainerExitStatusProto::KilledAfterAppCompletion as i32;

/// The diagnostic of a container still running when its application finished (YARN's text).
const KILLED_AFTER_APP_COMPLETION_DIAGNOSTIC: &str = "Container killed on application-finish event";

/// Every method only takes the manager's locks briefly and queues any I/O for the runner, so
/// the heartbeat loop never waits on a disk.
impl NodeStatusSource for ContainerManager {
    /// Every container not yet forgotten: queued, running, and completed but not acknowledged.
    fn nm_container_statuses(&self) -> Vec<pb::NmContainerStatusProto> {
        self.core().read(|state| {
            state
                .containers
                .values()
                .map(ContainerEntry::nm_status)
                .collect()
        })
    }

    /// The status of every container not yet forgotten, and the opportunistic queue's load.
    fn heartbeat_status(
        &self,
    ) -> (
        Vec<pb::ContainerStatusProto>,
        pb::OpportunisticContainersStatusProto,
    ) {
        self.core().read(|state| {
            let statuses = state
                .containers
                .values()
                .map(ContainerEntry::status)
                .collect();
            (statuses, state.scheduler.opportunistic_status().into())
        })
    }

    fn last_known_keys(&self) -> (Option<pb::MasterKeyProto>, Option<pb::MasterKeyProto>) {
        self.core().with_keys(|keys| {
            (
                keys.last_known(NmKeyKind::ContainerToken),
                keys.last_known(NmKeyKind::NmToken),
            )
        })
    }

    /// Installs each key that is present; keys that changed are persisted by the runner. A
    /// key that cannot be installed (wrong length) is logged and the node keeps its keys; a
    /// failed write is logged and the keys stay in force.
    fn install_keys(
        &self,
        container: Option<&pb::MasterKeyProto>,
        nm: Option<&pb::MasterKeyProto>,
    ) {
        for (kind, key) in [
            (NmKeyKind::ContainerToken, container),
            (NmKeyKind::NmToken, nm),
        ] {
            let Some(key) = key else {
                continue;
            };
            let key_id = key.key_id;
            let installed = self.core().with_keys(|keys| {
                let changed = keys.install(kind, key.clone())?;
                Ok::<_, yarn_security::Error>(changed.then(|| {
                    keys.current(kind).map(|current| MasterKeyPair {
                        current: current.clone(),
                        previous: keys.previous(kind).cloned(),
                    })
                }))
            });
            match installed {
                Ok(Some(Some(keys))) => {
                    tracing::info!(%kind, key_id, "installed a new master key");
                    self.core().send(Work::StoreKeys { kind, keys });
                }
                Ok(_) => {}
                Err(err) => {
                    tracing::error!(%kind, key_id, %err, "cannot install a master key the ResourceManager sent")
                }
            }
        }
    }

    /// Kills the containers the ResourceManager cleans up (`KILLED_BY_RESOURCEMANAGER`) and
    /// those of finished applications (`KILLED_AFTER_APP_COMPLETION`), applies the queuing
    /// limit (shedding the queue's tail), applies the container updates it sends (a repeat,
    /// sent until the node reports the change, changes nothing), forgets the completed
    /// containers the ResourceManager has recorded, removing their records, and has the
    /// runner clean up after the finished applications once their containers have ended.
    fn apply_heartbeat_response(&self, response: &pb::NodeHeartbeatResponseProto) {
        let cleanup = valid_ids(&response.containers_to_cleanup, "containers_to_cleanup");
        let acknowledged = valid_ids(
            &response.containers_to_be_removed_from_nm,
            "containers_to_be_removed_from_nm",
        );
        let finished_applications: Vec<ApplicationId> = response
            .applications_to_cleanup
            .iter()
            .filter_map(|proto| match ApplicationId::try_from(*proto) {
                Ok(id) => Some(id),
                Err(err) => {
                    tracing::warn!(%err, "invalid id in applications_to_cleanup");
                    None
                }
            })
            .collect();
        let limit = response
            .container_queuing_limit
            .map(|limit| ContainerQueuingLimit {
                max_queue_length: limit.max_queue_length.unwrap_or(-1),
                max_queue_wait_time_ms: limit.max_queue_wait_time_in_ms.unwrap_or(-1),
            });

        let forgotten = self.core().decide(|state, actions| {
            for container_id in cleanup {
                if let Err(refusal) = state.stop(
                    container_id,
                    KILLED_BY_RESOURCEMANAGER,
                    KILLED_BY_RESOURCEMANAGER_DIAGNOSTIC,
                    actions,
                ) {
                    tracing::debug!(%refusal, "nothing to clean up");
                }
            }
            for application_id in &finished_applications {
                let left: Vec<ContainerId> = state
                    .containers
                    .iter()
                    .filter(|(id, entry)| {
                        id.application_id() == *application_id && !entry.is_completed()
                    })
                    .map(|(id, _)| *id)
                    .collect();
                for container_id in left {
                    if let Err(refusal) = state.stop(
                        container_id,
                        KILLED_AFTER_APP_COMPLETION,
                        KILLED_AFTER_APP_COMPLETION_DIAGNOSTIC,
                        actions,
                    ) {
                        tracing::debug!(%refusal, "nothing to clean up");
                    }
                }
            }
            if let Some(limit) = limit {
                actions.extend(state.scheduler.set_queuing_limit(limit));
            }
            // Only completed containers are forgotten: the RM never acknowledges a live one.
            let mut forgotten = Vec::new();
            for container_id in acknowledged {
                if let Some(entry) = state.containers.get(&container_id)
                    && entry.is_completed()
                {
                    state.containers.remove(&container_id);
                    forgotten.push(container_id);
                }
            }
            forgotten
        });
        for container in &response.containers_to_update {
            let Some(token) = &container.container_token else {
                tracing::warn!(container = ?container.id, "a container update without a token in a heartbeat response");
                continue;
            };
            match self.update_from_heartbeat(token) {
                Ok(container_id) => {
                    tracing::info!(%container_id, "updated container as the ResourceManager asked")
                }
                Err(refusal) => {
                    tracing::warn!(%refusal, "cannot apply a container update the ResourceManager sent")
                }
            }
        }
        if !forgotten.is_empty() {
            self.core().send(Work::RemoveRecords {
                container_ids: forgotten,
            });
        }
        // Queued behind the kills decided above, so that the runner sees them first.
        for application_id in finished_applications {
            self.core()
                .send(Work::ApplicationFinished { application_id });
        }
    }
}

/// The valid container ids of a heartbeat response field; invalid ones are logged and skipped.
fn valid_ids(protos: &[pb::ContainerIdProto], field: &str) -> Vec<ContainerId> {
    protos
        .iter()
        .filter_map(|proto| match ContainerId::try_from(*proto) {
            Ok(id) => Some(id),
            Err(err) => {
                tracing::warn!(field, %err, "invalid container id in a heartbeat response");
                None
            }
        })
        .collect()
}
