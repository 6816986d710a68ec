//! [`ContainerManager`]: the NodeManager's shared container-manager core.

use std::cell::RefCell;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use prost::Message;
use tokio::sync::watch;
use tokio::task::JoinSet;
use yarn_proto::ids::{ApplicationAttemptId, ContainerId, NodeId};
use yarn_proto::pb;
use yarn_proto::pb::container_management_protocol_server::ContainerManagementProtocolServer;
use yarn_proto::token_metadata::PresentedToken;
use yarn_security::{Authorizer, MasterKey};
use yarn_sled_sync::SyncCounts;

use super::launch_context::accepted_record;
use super::recovery::restored_keys;
use super::{
    ActionRunner, ContainerEntry, ContainerManagerService, ContainerRefusal, ContainerReport,
    ManagerCore, ManagerState, RestoredContainers, Work,
};
use crate::amrm_proxy::AmrmProxyHost;
use crate::container_scheduler::{
    ContainerScheduler, KILLED_BY_CONTAINER_SCHEDULER, OpportunisticContainersStatus, Resources,
};
use crate::node_status_updater::Connection;
use crate::token_check::{
    ContainerStartRefusal, NmKeyKind, VerifiedContainer, check_container_start, check_nm_token,
};
use crate::{ContainerExecutor, Error, NmConfig, NmStateStore};
use yarn_security::now_ms;

/// The diagnostic of a container stopped by its application master (YARN's text); its exit
/// status is `KILLED_BY_APPMASTER` (-105).
pub const KILLED_BY_APPMASTER_DIAGNOSTIC: &str = "Container killed by the ApplicationMaster.";

/// The diagnostic of a container the ResourceManager told this node to clean up, or stopped
/// when the ResourceManager shuts the node down (YARN's text); its exit status is
/// `KILLED_BY_RESOURCEMANAGER` (-106).
pub const KILLED_BY_RESOURCEMANAGER_DIAGNOSTIC: &str = "Container Killed by ResourceManager";

/// `ContainerExitStatusProto::KILLED_BY_APPMASTER`.
const KILLED_BY_APPMASTER: i32 = pb::ContainerExitStatusProto::KilledByAppmaster as i32;
/// `ContainerExitStatusProto::KILLED_BY_RESOURCEMANAGER`.
pub(super) const KILLED_BY_RESOURCEMANAGER: i32 =
    pb::ContainerExitStatusProto::KilledByResourcemanager as i32;

/// The NodeManager's container manager, shared as `Arc<ContainerManager>` by the
/// ContainerManagementProtocol service, the heartbeat loop (as its
/// [`NodeStatusSource`](crate::node_status_updater::NodeStatusSource)) and the web view.
///
/// Guarantees:
/// - every call is answered per container: a container that fails a check lands in
///   `failed_requests` with its reason, and the others go on;
/// - a start is acknowledged only once its replay record and its queued record are durable;
///   the container then starts, waits or is refused as the container scheduler decides, and a
///   refused one is reported `COMPLETE` with the scheduler's exit status and diagnostic;
/// - decisions are carried out in the order they were taken, by one runner task that owns the
///   executor;
/// - a caller acts only on containers of the application its NM token names.
///
/// Dropping the last `Arc` stops the runner and drops the executor: process containers keep
/// running, for a restarted NodeManager to [`recover`](Self::recover).
#[derive(Debug)]
pub struct ContainerManager {
    core: Arc<ManagerCore>,
    // Makes "store queued, then schedule" one step across concurrent starts, so that the order
    // the store accepted containers in (which a restart restores) is the order they queue in.
    admission: tokio::sync::Mutex<()>,
    // Set once at start-up when the node runs an AMRMProxy, before the manager serves.
    amrm_proxy: OnceLock<Arc<AmrmProxyHost>>,
    // The runner task; dropped, and so aborted, with the manager.
    _runner: JoinSet<()>,
}

impl ContainerManager {
    /// Rebuilds the container manager from the state store, then is ready to serve.
    ///
    /// Running containers are re-acquired by pid (or reported lost with a diagnostic), queued
    /// ones go back into the scheduler in their order, completed ones are kept to be reported,
    /// and the token keys come back; the scheduler then starts what fits. Replay records of
    /// tokens that have expired are pruned. Must be called within a Tokio runtime.
    ///
    /// `node_id` is the node; `http_port` its web server's port, which containers learn as
    /// `NM_HTTP_PORT`.
    ///
    /// # Errors
    ///
    /// The state store's: a record that cannot be read fails recovery rather than being
    /// guessed at, since the node must not run containers it may already be running.
    pub async fn recover(
        config: &NmConfig,
        node_id: NodeId,
        http_port: u16,
        store: NmStateStore,
        executor: ContainerExecutor,
        connection: watch::Receiver<Connection>,
    ) -> Result<Arc<Self>, Error> {
        let recovered = store.load()?;
        let keys = restored_keys(recovered.master_keys);
        let mut scheduler = ContainerScheduler::new(
            Resources::new(config.memory_mb, config.vcores),
            config.opportunistic_queue_length,
        );
        let restored = RestoredContainers::restore(
            recovered.running,
            recovered.queued,
            recovered.completed,
            &mut scheduler,
            &executor,
        );
        tracing::info!(
            node = %node_id,
            containers = restored.containers.len(),
            reacquired = restored.running.len(),
            "recovered containers from the state store"
        );
        let state = ManagerState {
            scheduler,
            containers: restored.containers,
        };
        let log_root = config
            .log_dirs
            .first()
            .cloned()
            .unwrap_or_else(PathBuf::new);
        let (core, queue) =
            ManagerCore::new(node_id, http_port, log_root, store, connection, state, keys);
        let core = Arc::new(core);
        for work in restored.work {
            core.send(work);
        }
        core.decide(|state, actions| actions.extend(state.scheduler.recovery_completed()));
        let pruned = core.store.prune_replays(now_ms()).await?;
        if pruned > 0 {
            tracing::info!(pruned, "pruned replay records of expired container tokens");
        }

        let mut runner = JoinSet::new();
        runner.spawn(ActionRunner::new(Arc::clone(&core), executor, queue, restored.running).run());
        Ok(Arc::new(Self {
            core,
            admission: tokio::sync::Mutex::new(()),
            amrm_proxy: OnceLock::new(),
            _runner: runner,
        }))
    }

    /// Puts every AM container started from now on behind `host`'s AMRMProxy (see
    /// [`AmrmProxyHost`]). Call it before the manager serves; a second call changes nothing.
    pub fn attach_amrm_proxy(&self, host: Arc<AmrmProxyHost>) {
        let _ = self.amrm_proxy.set(host);
    }

    /// The master key of `kind` the RM shipped most recently, if any yet.
    pub fn current_master_key(&self, kind: NmKeyKind) -> Option<MasterKey> {
        self.core.with_keys(|keys| keys.current(kind).cloned())
    }

    /// The password of the NM token whose encoded identifier is `identifier`, under the current
    /// or previous NM-token key, for a Hadoop IPC SASL exchange in which the caller proves it
    /// holds the token without sending it; and the attempt it was issued to, which the
    /// connection runs as. Which containers the token may touch is checked per call.
    ///
    /// # Errors
    ///
    /// Why no password can be given: no key yet, an unknown key, an unreadable identifier.
    pub fn nm_token_password(&self, identifier: &[u8]) -> Result<(String, Vec<u8>), String> {
        self.core.with_keys(|keys| {
            let manager = keys
                .nm_tokens()
                .ok_or("this NodeManager holds no NM-token master key yet")?;
            let (decoded, password) = manager
                .password_of(identifier)
                .map_err(|err| err.to_string())?;
            let attempt = decoded
                .app_attempt_id
                .and_then(|attempt| ApplicationAttemptId::try_from(attempt).ok())
                .ok_or("the NM token names no application attempt")?;
            Ok((attempt.to_string(), password))
        })
    }

    /// The tonic service for the NodeManager's container-manager address (see
    /// [`ContainerManagerService`] for who may call it).
    pub fn service(
        self: &Arc<Self>,
        authorizer: Authorizer,
    ) -> ContainerManagementProtocolServer<ContainerManagerService> {
        ContainerManagementProtocolServer::new(ContainerManagerService::new(
            Arc::clone(self),
            authorizer,
        ))
    }

    /// The opportunistic load the container scheduler sees now, as the next heartbeat reports
    /// it.
    pub fn opportunistic_status(&self) -> OpportunisticContainersStatus {
        self.core
            .read(|state| state.scheduler.opportunistic_status())
    }

    /// The durability waits and syncs of the recovery store so far; `None` with recovery off.
    pub fn state_store_syncs(&self) -> Option<Arc<SyncCounts>> {
        self.core.store.sync_counts()
    }

    /// Every container the node knows, in container id order, for the web view.
    pub fn container_reports(&self) -> Vec<ContainerReport> {
        self.core.read(|state| {
            state
                .containers
                .values()
                .map(|entry| entry.report(&self.core.log_root))
                .collect()
        })
    }

    /// Stops every container, for a decommission or an RM-ordered SHUTDOWN, and returns once
    /// all have ended: queued ones leave the queue at once, running ones get SIGTERM, then
    /// SIGKILL after `yarn.nodemanager.sleep-delay-before-sigkill.ms`. Each completes with
    /// `KILLED_BY_RESOURCEMANAGER` and `diagnostics`.
    ///
    /// Not for a plain NodeManager stop: containers outlive NodeManager restarts. Starts must
    /// already be refused (the connection is shut down), or new containers would keep it
    /// waiting. Cancelling the wait leaves the stops under way.
    pub async fn stop_all(&self, diagnostics: &str) {
        let mut changes = self.core.changes();
        self.core.decide(|state, actions| {
            // Queue tails first, so that no removal lets a container behind it start; then the
            // running ones.
            let queued: Vec<ContainerId> = state.scheduler.queued().map(|r| r.id).collect();
            let running: Vec<ContainerId> = state.scheduler.running().map(|r| r.id).collect();
            for container_id in queued.into_iter().rev().chain(running) {
                if let Err(refusal) = state.stop(
                    container_id,
                    KILLED_BY_RESOURCEMANAGER,
                    diagnostics,
                    actions,
                ) {
                    tracing::warn!(%container_id, %refusal, "cannot stop container");
                }
            }
        });
        loop {
            let pending = self.core.read(|state| {
                state
                    .containers
                    .values()
                    .filter(|entry| !entry.is_completed())
                    .count()
            });
            if pending == 0 {
                return;
            }
            tracing::info!(pending, "waiting for containers to stop");
            if changes.changed().await.is_err() {
                return;
            }
        }
    }

    /// StartContainers: each request is checked and accepted on its own.
    pub(super) async fn start_containers(
        &self,
        requests: Vec<pb::StartContainerRequestProto>,
        nm_token: &PresentedToken,
    ) -> pb::StartContainersResponseProto {
        let mut response = pb::StartContainersResponseProto::default();
        for request in requests {
            let claimed = claimed_container(request.container_token.as_ref());
            match self.start_one(request, nm_token).await {
                Ok(container_id) => {
                    tracing::info!(%container_id, "accepted container");
                    response.succeeded_requests.push(container_id.into());
                }
                Err(refusal) => {
                    tracing::info!(%refusal, "refused container start");
                    response
                        .failed_requests
                        .push(refusal.for_container(claimed));
                }
            }
        }
        response
    }

    /// Accepts one container: the node must be connected, the container token must verify and
    /// not be replayed, the NM token must name the container's application; then the replay
    /// record and the queued record are stored and the scheduler decides.
    async fn start_one(
        &self,
        request: pb::StartContainerRequestProto,
        nm_token: &PresentedToken,
    ) -> Result<ContainerId, ContainerRefusal> {
        let core = &self.core;
        let rm_epoch = core
            .connection
            .borrow()
            .admit_start()
            .map_err(|reason| ContainerRefusal::NotReady { reason })?;
        let nm_token = ContainerRefusal::usable_nm_token(nm_token)?;
        let token = request
            .container_token
            .as_ref()
            .ok_or(ContainerRefusal::MissingField {
                message: "StartContainerRequestProto",
                field: "container_token",
            })?;
        let context =
            request
                .container_launch_context
                .as_ref()
                .ok_or(ContainerRefusal::MissingField {
                    message: "StartContainerRequestProto",
                    field: "container_launch_context",
                })?;
        let verified = self.verify(token, nm_token, rm_epoch, true)?;
        let container_id = verified.container_id;
        let mut record = accepted_record(context, token, &verified)?;
        // Checked before the token is used up: such a container could never run here.
        let capacity = core.read(|state| state.scheduler.capacity());
        if !record.resources.fits_within(&capacity) {
            return Err(ContainerRefusal::Scheduler(Box::new(
                Error::ExceedsNodeCapacity {
                    id: container_id,
                    requested: record.resources,
                    capacity,
                },
            )));
        }
        let storage = |source| ContainerRefusal::Storage {
            container_id,
            source: Box::new(source),
        };
        if core
            .store
            .record_replay(container_id, verified.expiry_ms)
            .await
            .map_err(storage)?
        {
            return Err(ContainerStartRefusal::Replayed { container_id }.into());
        }
        if let Some(host) = self.amrm_proxy.get()
            && verified.identifier.container_type() == pb::ContainerTypeProto::ApplicationMaster
        {
            host.prepare_am_launch(container_id.application_attempt_id(), &mut record)
                .await?;
        }

        let _admission = self.admission.lock().await;
        core.store
            .store_container_queued(&record)
            .await
            .map_err(storage)?;
        let request = record.container_request();
        let entry = ContainerEntry::scheduled(record, verified.identifier);
        let scheduled = core.decide(|state, actions| {
            if state.containers.contains_key(&container_id) {
                return Err(Error::DuplicateContainer { id: container_id });
            }
            let next = state.scheduler.schedule(request)?;
            state.containers.insert(container_id, entry);
            actions.extend(next);
            Ok(())
        });
        if let Err(err) = scheduled {
            // The record was stored queued; it must not come back as queued after a restart.
            core.send(Work::StoreCompleted {
                container_id,
                exit_code: KILLED_BY_CONTAINER_SCHEDULER,
                diagnostics: err.to_string(),
            });
            return Err(ContainerRefusal::Scheduler(Box::new(err)));
        }
        Ok(container_id)
    }

    /// Checks a container token (with or without the replay check) and then the NM token
    /// against the container's application.
    fn verify(
        &self,
        token: &pb::TokenProto,
        nm_token: &pb::TokenProto,
        rm_epoch: i64,
        check_replay: bool,
    ) -> Result<VerifiedContainer, ContainerRefusal> {
        let core = &self.core;
        let store_failure = RefCell::new(None);
        let replayed = |container_id: &ContainerId| {
            check_replay
                && core.store.is_replayed(container_id).unwrap_or_else(|err| {
                    *store_failure.borrow_mut() = Some(err);
                    false
                })
        };
        core.with_keys(|keys| {
            let verified =
                check_container_start(token, &core.node_id, rm_epoch, now_ms(), replayed, keys)?;
            if let Some(source) = store_failure.take() {
                return Err(ContainerRefusal::Storage {
                    container_id: verified.container_id,
                    source: Box::new(source),
                });
            }
            let application_id = verified.container_id.application_id();
            check_nm_token(nm_token, &application_id, &core.node_id, keys)?;
            Ok(verified)
        })
    }

    /// Checks that the call's NM token lets it act on `container_id`'s application.
    fn authorize(
        &self,
        nm_token: &PresentedToken,
        container_id: ContainerId,
    ) -> Result<(), ContainerRefusal> {
        let token = ContainerRefusal::usable_nm_token(nm_token)?;
        let application_id = container_id.application_id();
        self.core
            .with_keys(|keys| check_nm_token(token, &application_id, &self.core.node_id, keys))?;
        Ok(())
    }

    /// StopContainers: a queued container leaves the queue, a running one is killed, with
    /// `KILLED_BY_APPMASTER`; a completed one is left as it is.
    pub(super) fn stop_containers(
        &self,
        container_ids: Vec<pb::ContainerIdProto>,
        nm_token: &PresentedToken,
    ) -> pb::StopContainersResponseProto {
        let mut response = pb::StopContainersResponseProto::default();
        for proto in container_ids {
            let stopped = parse_container_id(&proto).and_then(|container_id| {
                self.authorize(nm_token, container_id)?;
                self.core.decide(|state, actions| {
                    state.stop(
                        container_id,
                        KILLED_BY_APPMASTER,
                        KILLED_BY_APPMASTER_DIAGNOSTIC,
                        actions,
                    )
                })
            });
            match stopped {
                Ok(()) => response.succeeded_requests.push(proto),
                Err(refusal) => response
                    .failed_requests
                    .push(refusal.for_container(Some(proto))),
            }
        }
        response
    }

    /// GetContainerStatuses: the status of each container.
    pub(super) fn container_statuses(
        &self,
        container_ids: Vec<pb::ContainerIdProto>,
        nm_token: &PresentedToken,
    ) -> pb::GetContainerStatusesResponseProto {
        let mut response = pb::GetContainerStatusesResponseProto::default();
        for proto in container_ids {
            let status = parse_container_id(&proto).and_then(|container_id| {
                self.authorize(nm_token, container_id)?;
                self.core.read(|state| {
                    state
                        .containers
                        .get(&container_id)
                        .map(ContainerEntry::status)
                        .ok_or(ContainerRefusal::UnknownContainer { container_id })
                })
            });
            match status {
                Ok(status) => response.statuses.push(status),
                Err(refusal) => response
                    .failed_requests
                    .push(refusal.for_container(Some(proto))),
            }
        }
        response
    }

    /// UpdateContainer: each token promotes, demotes, grows or shrinks its container.
    pub(super) async fn update_containers(
        &self,
        tokens: Vec<pb::TokenProto>,
        nm_token: &PresentedToken,
    ) -> pb::ContainerUpdateResponseProto {
        let mut response = pb::ContainerUpdateResponseProto::default();
        for token in tokens {
            match self.update_one(&token, nm_token).await {
                Ok(container_id) => {
                    tracing::info!(%container_id, "updated container");
                    response.succeeded_requests.push(container_id.into());
                }
                Err(refusal) => {
                    tracing::info!(%refusal, "refused container update");
                    let claimed = claimed_container(Some(&token));
                    response
                        .failed_requests
                        .push(refusal.for_container(claimed));
                }
            }
        }
        response
    }

    /// Applies one update token: verified like a start token except for the replay check (an
    /// update token names a container that already started), then applied by
    /// [`ManagerState::update_container`] and stored before the call returns. A version the
    /// container already has succeeds and changes nothing.
    async fn update_one(
        &self,
        token: &pb::TokenProto,
        nm_token: &PresentedToken,
    ) -> Result<ContainerId, ContainerRefusal> {
        let rm_epoch = self.rm_epoch()?;
        let verified = self.verify(
            token,
            ContainerRefusal::usable_nm_token(nm_token)?,
            rm_epoch,
            false,
        )?;
        let container_id = verified.container_id;
        let updated = self.core.decide(|state, actions| {
            state.update_container(verified, &token.identifier, actions)
        })?;
        if let Some(request) = updated {
            self.core.store_update(&request, &token.identifier).await;
        }
        Ok(container_id)
    }

    /// Applies a container update the ResourceManager sent in a heartbeat response (a
    /// decrease or a demotion, or any update under `yarn.resourcemanager.auto-update.containers`):
    /// its token is verified like an update token an AM brings, without an NM token (the
    /// response came over the ResourceManager's authenticated connection); the runner stores
    /// it. Returns the container updated.
    pub(super) fn update_from_heartbeat(
        &self,
        token: &pb::TokenProto,
    ) -> Result<ContainerId, ContainerRefusal> {
        let rm_epoch = self.rm_epoch()?;
        let core = &self.core;
        let verified = core.with_keys(|keys| {
            check_container_start(token, &core.node_id, rm_epoch, now_ms(), |_| false, keys)
        })?;
        let container_id = verified.container_id;
        let updated = core.decide(|state, actions| {
            state.update_container(verified, &token.identifier, actions)
        })?;
        if let Some(request) = updated {
            core.send(Work::StoreUpdate {
                request,
                identifier: token.identifier.clone(),
            });
        }
        Ok(container_id)
    }

    /// The epoch of the ResourceManager the node is registered with, for token checks.
    fn rm_epoch(&self) -> Result<i64, ContainerRefusal> {
        self.core
            .connection
            .borrow()
            .admit_start()
            .map_err(|reason| ContainerRefusal::NotReady { reason })
    }

    /// The core, for the heartbeat side.
    pub(super) fn core(&self) -> &ManagerCore {
        &self.core
    }
}

/// The container a token claims to be for, read without verifying it, to name the container a
/// refusal is about.
fn claimed_container(token: Option<&pb::TokenProto>) -> Option<pb::ContainerIdProto> {
    let token = token?;
    pb::ContainerTokenIdentifierProto::decode(token.identifier.as_slice())
        .ok()?
        .container_id
}

fn parse_container_id(proto: &pb::ContainerIdProto) -> Result<ContainerId, ContainerRefusal> {
    ContainerId::try_from(*proto).map_err(|source| ContainerRefusal::InvalidContainerId { source })
}
