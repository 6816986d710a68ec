//! YARN's `AMRMClient`: an ApplicationMaster's registration, heartbeats and unregistration on
//! the RM group, with failover and resync.

use std::time::Duration;

use tonic::Request;
use yarn_proto::pb;
use yarn_proto::pb::application_master_protocol_client::ApplicationMasterProtocolClient;
use yarn_proto::token_metadata::{AMRM_TOKEN_METADATA_KEY, insert_token, is_not_registered};

use crate::am_rm_session::AmRmSession;
use crate::{
    AllocateOutcome, Error, Idempotency, NmTokenCache, RmClient, RmClientConfig, RmService,
};

/// How many times [`AmRmClient::finish`] asks by default before giving up on a confirmation.
pub const DEFAULT_FINISH_ATTEMPTS: u32 = 50;

/// How many times one allocate registers again after a refusal as not registered before it
/// gives up: each is a leader that lost the registration, so more than a few in one call means
/// a group that cannot keep a leader, which the caller should hear about.
const MAX_RESYNCS: u32 = 5;

/// The pause between two finish calls by default, YARN's 100 ms.
pub const DEFAULT_FINISH_PAUSE: Duration = Duration::from_millis(100);

/// What `register` was called with, to register again after a failover.
#[derive(Debug, Clone)]
struct Registration {
    host: String,
    rpc_port: i32,
    tracking_url: String,
}

/// An ApplicationMaster's client of the ApplicationMasterProtocol, as YARN's `AMRMClient`.
///
/// Every call goes through an [`RmClient`] on the scheduler addresses (failing over between
/// replicas and following leader hints) and carries the attempt's AMRMToken. All three RPCs are
/// idempotent on the RM (allocate is deduplicated by `response_id`), so calls whose outcome is
/// unknown are resent.
///
/// The client keeps YARN's bookkeeping: the table of outstanding asks, releases until their
/// completion arrives, the blacklist, the last response id, the newest AMRMToken and the NM
/// tokens (in an [`NmTokenCache`] shared with whoever starts containers). When the leader
/// answers "not registered" (it took over and holds no registration), the client registers
/// again with the remembered arguments and re-sends everything outstanding, within the same
/// call.
///
/// Calls take `&mut self`: one heartbeat at a time, as the protocol requires. Dropping a call's
/// future mid-way is safe: an allocate request that may have been sent is sent again, unchanged,
/// by the next allocate.
#[derive(Debug)]
pub struct AmRmClient {
    rm: RmClient,
    session: AmRmSession,
    nm_tokens: NmTokenCache,
    registration: Option<Registration>,
    finish_attempts: u32,
    finish_pause: Duration,
}

impl AmRmClient {
    /// A client of the scheduler service of `config`'s replicas, presenting `amrm_token` (see
    /// [`read_amrm_token_from_env`](crate::read_amrm_token_from_env)). No I/O.
    pub fn new(config: &RmClientConfig, amrm_token: pb::TokenProto) -> Self {
        let nm_tokens = NmTokenCache::new();
        Self {
            rm: RmClient::new(config, RmService::Scheduler),
            session: AmRmSession::new(amrm_token, nm_tokens.clone()),
            nm_tokens,
            registration: None,
            finish_attempts: DEFAULT_FINISH_ATTEMPTS,
            finish_pause: DEFAULT_FINISH_PAUSE,
        }
    }

    /// Makes [`finish`](Self::finish) ask at most `attempts` times (at least once), `pause`
    /// apart, for the RM to confirm the unregistration.
    pub fn with_finish_polling(mut self, attempts: u32, pause: Duration) -> Self {
        self.finish_attempts = attempts.max(1);
        self.finish_pause = pause;
        self
    }

    /// Registers the attempt (`registerApplicationMaster`) with where its own RPC server
    /// listens (`host` may be empty, `rpc_port` 0) and its tracking URL, and remembers them to
    /// register again after a failover. Registering again is harmless: the RM answers the same.
    ///
    /// # Errors
    ///
    /// Those of [`RmClient::call`], e.g. [`Error::CallFailed`] with `PERMISSION_DENIED` for an
    /// AMRMToken the RM does not accept.
    pub async fn register(
        &mut self,
        host: &str,
        rpc_port: i32,
        tracking_url: &str,
    ) -> Result<pb::RegisterApplicationMasterResponseProto, Error> {
        let registration = Registration {
            host: host.to_owned(),
            rpc_port,
            tracking_url: tracking_url.to_owned(),
        };
        let response = self.call_register(&registration).await?;
        self.registration = Some(registration);
        Ok(response)
    }

    /// Adds `request.num_containers` containers to the outstanding ask with the same priority,
    /// allocation request id, resource name, execution type and capability (YARN's
    /// `addContainerRequest`); the next allocate sends the new total.
    pub fn add_container_request(&mut self, request: pb::ResourceRequestProto) {
        self.session.add_container_request(request);
    }

    /// Takes `request.num_containers` containers off the outstanding ask with the same key,
    /// stopping at 0 (YARN's `removeContainerRequest`); the next allocate sends the new total,
    /// 0 to cancel.
    pub fn remove_container_request(&mut self, request: &pb::ResourceRequestProto) {
        self.session.remove_container_request(request);
    }

    /// Gives a container back to the RM with the next allocate (YARN's
    /// `releaseAssignedContainer`). The release is sent again after a failover until the
    /// container's completion arrives; a container whose completion already arrived is not
    /// released.
    pub fn release_assigned_container(&mut self, container_id: pb::ContainerIdProto) {
        self.session.release_assigned_container(container_id);
    }

    /// Stops (`additions`) or resumes (`removals`) getting containers on nodes, from the next
    /// allocate on (YARN's `updateBlacklist`).
    pub fn update_blacklist(&mut self, additions: Vec<String>, removals: Vec<String>) {
        self.session.update_blacklist(additions, removals);
    }

    /// Asks the RM to update a container from the next allocate on (YARN's
    /// `requestContainerUpdate`): a newer request for the same container replaces an unanswered
    /// one, and the request is re-sent after a failover until the RM answers it in
    /// [`AllocateOutcome::updated`] or [`AllocateOutcome::update_errors`].
    pub fn request_container_update(&mut self, request: pb::UpdateContainerRequestProto) {
        self.session.request_container_update(request);
    }

    /// Heartbeats: sends the changes since the last acknowledged allocate with `progress`
    /// (clamped into `[0, 1]`) and returns what is new.
    ///
    /// Each container and each completion is returned once over the life of the client, and
    /// every newly allocated container is charged to the outstanding asks it satisfies. On the
    /// leader's "not registered" refusal the client registers again, re-sends all outstanding
    /// asks, unconfirmed releases and the blacklist from response id 0, and tries again, as
    /// often as leaders lose the registration during the call, up to five times; the outcome
    /// then has `resynced` set.
    ///
    /// # Errors
    ///
    /// [`Error::AmNotRegistered`] before [`register`](Self::register);
    /// [`Error::Reregistration`] when registering again failed; otherwise those of
    /// [`RmClient::call`]. After an error whose outcome is unknown the next allocate first sends
    /// the same request again; after a definitive refusal the pending changes go into a new one.
    pub async fn allocate(&mut self, progress: f32) -> Result<AllocateOutcome, Error> {
        if self.registration.is_none() {
            return Err(Error::AmNotRegistered {
                operation: "allocate",
            });
        }
        let mut resyncs = 0;
        loop {
            let request = self.session.next_request(progress);
            match self.call_allocate(request).await {
                Ok(response) => {
                    let mut outcome = self.session.on_response(response);
                    outcome.resynced = resyncs > 0;
                    return Ok(outcome);
                }
                // Leadership may move again between registering and the allocate that follows
                // (the deterministic simulation found it): each new leader is registered with.
                Err(err) if refused_as_not_registered(&err) && resyncs < MAX_RESYNCS => {
                    tracing::info!(
                        "the RM holds no registration for this attempt (failover); registering \
                         again and re-sending every outstanding ask"
                    );
                }
                Err(err) => return Err(self.after_failure(err)),
            }
            self.register_again("allocate").await?;
            self.session.resync();
            resyncs += 1;
        }
    }

    /// Unregisters the attempt (`finishApplicationMaster`) with its final `status`,
    /// `diagnostics` and `tracking_url`, asking until the RM confirms the unregistration is
    /// committed, and registering again first if the leader lost the registration.
    ///
    /// # Errors
    ///
    /// [`Error::AmNotRegistered`] when the leader holds no registration and
    /// [`register`](Self::register) was never called; [`Error::Reregistration`];
    /// [`Error::FinishNotConfirmed`] when no call confirmed within the polling limit (see
    /// [`with_finish_polling`](Self::with_finish_polling)); otherwise those of
    /// [`RmClient::call`].
    pub async fn finish(
        &mut self,
        status: pb::FinalApplicationStatusProto,
        diagnostics: &str,
        tracking_url: &str,
    ) -> Result<(), Error> {
        let request = pb::FinishApplicationMasterRequestProto {
            diagnostics: diagnostics.to_owned(),
            tracking_url: tracking_url.to_owned(),
            final_application_status: status as i32,
        };
        for attempt in 1..=self.finish_attempts {
            match self.call_finish(&request).await {
                Ok(response) if response.is_unregistered => return Ok(()),
                Ok(_) => {}
                Err(err) if refused_as_not_registered(&err) => {
                    self.register_again("finishApplicationMaster").await?;
                    continue;
                }
                Err(err) => return Err(err),
            }
            if attempt < self.finish_attempts {
                tokio::time::sleep(self.finish_pause).await;
            }
        }
        Err(Error::FinishNotConfirmed {
            attempts: self.finish_attempts,
            pause: self.finish_pause,
        })
    }

    /// The newest NM token for the node `node_id`.
    pub fn nm_token(&self, node_id: &pb::NodeIdProto) -> Option<pb::TokenProto> {
        self.nm_tokens.get(node_id)
    }

    /// The NM tokens received so far, shared: it keeps filling as heartbeats bring more.
    pub fn nm_tokens(&self) -> NmTokenCache {
        self.nm_tokens.clone()
    }

    /// What the attempt may still get given queue and user limits, as of the last allocate.
    pub fn headroom(&self) -> Option<&pb::ResourceProto> {
        self.session.headroom()
    }

    /// The number of NodeManagers in the cluster, as of the last allocate.
    pub fn num_cluster_nodes(&self) -> i32 {
        self.session.num_cluster_nodes()
    }

    /// The asks still wanted, each with its remaining count, in key order.
    pub fn outstanding(&self) -> Vec<pb::ResourceRequestProto> {
        self.session.outstanding()
    }

    /// The AMRMToken the next call presents: the newest the RM sent.
    pub fn amrm_token(&self) -> &pb::TokenProto {
        self.session.amrm_token()
    }

    /// Registers again with the remembered arguments after `operation` was refused as not
    /// registered.
    async fn register_again(&mut self, operation: &'static str) -> Result<(), Error> {
        let Some(registration) = self.registration.clone() else {
            return Err(Error::AmNotRegistered { operation });
        };
        self.call_register(&registration)
            .await
            .map(drop)
            .map_err(|source| Error::Reregistration {
                operation,
                source: Box::new(source),
            })
    }

    /// Records the failure of an allocate in the session and returns it.
    fn after_failure(&mut self, err: Error) -> Error {
        // Only a definitive answer proves the RM did not apply the request.
        if matches!(err, Error::CallFailed { .. }) {
            self.session.refused();
        }
        err
    }

    async fn call_register(
        &mut self,
        registration: &Registration,
    ) -> Result<pb::RegisterApplicationMasterResponseProto, Error> {
        let body = pb::RegisterApplicationMasterRequestProto {
            host: registration.host.clone(),
            rpc_port: registration.rpc_port,
            tracking_url: registration.tracking_url.clone(),
        };
        let token = self.session.amrm_token().clone();
        let response = self
            .rm
            .call(Idempotency::Idempotent, |channel| {
                let request = with_token(body.clone(), &token);
                async move {
                    ApplicationMasterProtocolClient::new(channel)
                        .register_application_master(request)
                        .await
                }
            })
            .await?;
        self.session.registered(&response);
        Ok(response)
    }

    async fn call_allocate(
        &self,
        body: pb::AllocateRequestProto,
    ) -> Result<pb::AllocateResponseProto, Error> {
        let token = self.session.amrm_token().clone();
        self.rm
            .call(Idempotency::Idempotent, |channel| {
                let request = with_token(body.clone(), &token);
                async move {
                    ApplicationMasterProtocolClient::new(channel)
                        .allocate(request)
                        .await
                }
            })
            .await
    }

    async fn call_finish(
        &self,
        body: &pb::FinishApplicationMasterRequestProto,
    ) -> Result<pb::FinishApplicationMasterResponseProto, Error> {
        let token = self.session.amrm_token().clone();
        self.rm
            .call(Idempotency::Idempotent, |channel| {
                let request = with_token(body.clone(), &token);
                async move {
                    ApplicationMasterProtocolClient::new(channel)
                        .finish_application_master(request)
                        .await
                }
            })
            .await
    }
}

/// `body` as a request carrying the AMRMToken.
fn with_token<T>(body: T, token: &pb::TokenProto) -> Request<T> {
    let mut request = Request::new(body);
    insert_token(&mut request, AMRM_TOKEN_METADATA_KEY, token);
    request
}

/// Whether `err` is the leader's "not registered" refusal.
fn refused_as_not_registered(err: &Error) -> bool {
    err.status().is_some_and(is_not_registered)
}
