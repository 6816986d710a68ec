//! [`AmrmProxy`]: the node's AMRMProxy: one interceptor chain per running application, the
//! local AMRMToken keys, and their persistence.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::Semaphore;
use tonic::metadata::MetadataMap;
use yarn_proto::ids::{ApplicationAttemptId, ApplicationId};
use yarn_proto::pb;
use yarn_proto::pb::application_master_protocol_server::ApplicationMasterProtocolServer;
use yarn_proto::token_metadata::{AMRM_TOKEN_METADATA_KEY, PresentedToken};
use yarn_security::{KeyAction, TokenKind};

use crate::request_interceptor::BoxFuture;
use crate::{
    AmrmProxyService, ApplicationContext, ApplicationProxyState, Error, InterceptorChain,
    InterceptorPipeline, NodeContext, ProxyConfig, ProxyMasterKeys, ProxyStateStore,
    ProxyTokenSecretManager,
};

/// The AMRMProxy of one NodeManager (Hadoop's `AMRMProxyService` minus its RPC server, which
/// the NodeManager runs on its own TLS listener around [`AmrmProxy::service`]).
///
/// The NodeManager drives it:
/// - [`init_application`](Self::init_application) when it starts an AM container, to build the
///   application's chain and get the local AMRMToken it puts in the container's credentials in
///   place of the RM's;
/// - [`stop_application`](Self::stop_application) when the application finishes;
/// - [`recover`](Self::recover) once at start-up, before serving;
/// - [`roll_keys`](Self::roll_keys) periodically (every few seconds is plenty).
///
/// Guarantees:
/// - at most one chain per application, for its newest attempt: a new attempt replaces and
///   shuts down the old chain, whose tokens stop validating;
/// - calls of one application run one at a time, in arrival order; at most
///   `yarn.nodemanager.amrmproxy.client.thread-count` calls run at once across applications;
/// - after every call the application's record (RM token, user, interceptor states) is written
///   to the store when it changed, before the answer goes back, so a NodeManager restart
///   resumes from what the AM last saw; new master keys are stored before they sign anything;
/// - the AM never receives an RM AMRMToken: any in an allocate response is removed, and a new
///   local token is added instead when the local key rolled.
pub struct AmrmProxy {
    pipeline: InterceptorPipeline,
    node: Arc<dyn NodeContext>,
    store: Arc<dyn ProxyStateStore>,
    /// Short sections only; never held across an `.await`.
    secrets: Mutex<ProxyTokenSecretManager>,
    /// Short sections only; never held across an `.await`.
    applications: Mutex<BTreeMap<ApplicationId, Arc<RunningApplication>>>,
    calls: Semaphore,
}

/// One application's chain, behind the lock that serializes its calls.
struct RunningApplication {
    attempt: ApplicationAttemptId,
    /// Held for a whole call, across its `.await`s: this is what orders one AM's calls.
    slot: tokio::sync::Mutex<ChainSlot>,
}

struct ChainSlot {
    chain: InterceptorChain,
    /// The record last written to the store.
    persisted: Vec<u8>,
    /// Set by `stop_application`; a call that was waiting for the lock is refused.
    stopped: bool,
}

/// What [`AmrmProxy::recover`] restored.
#[derive(Debug, Default)]
pub struct RecoveryReport {
    /// Attempts whose chains serve again.
    pub recovered: Vec<ApplicationAttemptId>,
    /// Applications whose record could not be restored; their records were removed, so their
    /// AMs are refused until a new attempt starts.
    pub failed: Vec<(ApplicationId, Error)>,
}

impl AmrmProxy {
    /// The proxy described by `config`, building every chain from `pipeline`, on the node
    /// `node` describes, persisting into `store`.
    ///
    /// Reads the local master keys from `store`, or makes a fresh one (active from
    /// `node.now_ms()`) and stores it. Local tokens carry `config.address` as their service.
    ///
    /// # Errors
    ///
    /// [`Error::StateStore`] when the store cannot be read or the new key written;
    /// [`Error::CorruptState`], [`Error::UnsupportedStateVersion`] or [`Error::MasterKeys`]
    /// for stored keys that cannot be used.
    pub fn new(
        config: &ProxyConfig,
        pipeline: InterceptorPipeline,
        node: Arc<dyn NodeContext>,
        store: Arc<dyn ProxyStateStore>,
    ) -> Result<Self, Error> {
        let service = config.address.to_string();
        let stored = store.load().map_err(|source| Error::StateStore {
            operation: "load",
            subject: "the AMRMProxy state".to_owned(),
            source,
        })?;
        let secrets = match stored.master_keys {
            Some(bytes) => {
                let keys = ProxyMasterKeys::decode(&bytes)?;
                ProxyTokenSecretManager::restore(config.key_rolling, service, keys)?
            }
            None => {
                let secrets =
                    ProxyTokenSecretManager::new(config.key_rolling, service, node.now_ms());
                put_master_keys(store.as_ref(), &secrets.export())?;
                secrets
            }
        };
        let permits = usize::try_from(config.client_thread_count)
            .unwrap_or(usize::MAX)
            .clamp(1, Semaphore::MAX_PERMITS);
        Ok(Self {
            pipeline,
            node,
            store,
            secrets: Mutex::new(secrets),
            applications: Mutex::new(BTreeMap::new()),
            calls: Semaphore::new(permits),
        })
    }

    /// The ApplicationMasterProtocol server the NodeManager mounts on its AMRMProxy listener
    /// (`yarn.nodemanager.amrmproxy.address`, with its own TLS setup).
    pub fn service(self: &Arc<Self>) -> ApplicationMasterProtocolServer<AmrmProxyService> {
        ApplicationMasterProtocolServer::new(AmrmProxyService::new(Arc::clone(self)))
    }

    /// Starts serving `attempt` of `user`, whose RM-issued AMRMToken is `rm_token`: builds and
    /// initializes its chain, stores its record, and returns the local AMRMToken to put in the
    /// AM container's credentials instead of `rm_token`.
    ///
    /// Idempotent for the same attempt (a fresh local token, same chain). A chain of an earlier
    /// attempt of the application is stopped first, as [`stop_application`](Self::stop_application)
    /// does. The NodeManager calls this for one application at a time.
    ///
    /// # Errors
    ///
    /// [`Error::RmTokenNotAmrm`]; an interceptor's `init` failure; [`Error::StateStore`] when
    /// the record cannot be stored (nothing is kept then).
    pub async fn init_application(
        &self,
        attempt: ApplicationAttemptId,
        user: &str,
        rm_token: pb::TokenProto,
    ) -> Result<pb::TokenProto, Error> {
        if rm_token.kind != TokenKind::AmRm.name() {
            return Err(Error::RmTokenNotAmrm {
                attempt: attempt.to_string(),
                found: rm_token.kind,
            });
        }
        let application = attempt.application_id;
        let existing = self.lock_applications().get(&application).cloned();
        if let Some(existing) = existing {
            if existing.attempt == attempt {
                return Ok(self.lock_secrets().issue(attempt));
            }
            self.stop_application(application).await?;
        }
        let context = ApplicationContext::new(attempt, user, rm_token, Arc::clone(&self.node));
        let mut chain = self.pipeline.build(context)?;
        let persisted = record(&chain);
        if let Err(err) = self.put_application(application, persisted.clone()) {
            chain.shutdown();
            return Err(err);
        }
        self.insert(attempt, chain, persisted);
        tracing::info!(
            %attempt,
            user,
            chain = ?self.pipeline.names(),
            "AMRMProxy serves a new application attempt"
        );
        Ok(self.lock_secrets().issue(attempt))
    }

    /// Stops serving `application`: its tokens stop validating, a call in progress finishes
    /// first, its chain is shut down and its record removed. Returns whether a chain existed;
    /// stopping an unknown application still removes any stored record.
    ///
    /// # Errors
    ///
    /// [`Error::StateStore`] when the record cannot be removed.
    pub async fn stop_application(&self, application: ApplicationId) -> Result<bool, Error> {
        let removed = self.lock_applications().remove(&application);
        if let Some(running) = &removed {
            self.lock_secrets().attempt_finished(running.attempt);
            let mut slot = running.slot.lock().await;
            slot.stopped = true;
            slot.chain.shutdown();
            tracing::info!(attempt = %running.attempt, "AMRMProxy stopped serving the attempt");
        }
        self.store
            .remove_application(application)
            .map_err(|source| Error::StateStore {
                operation: "remove",
                subject: application.to_string(),
                source,
            })?;
        Ok(removed.is_some())
    }

    /// Rebuilds the chain of every application in the store, each from its record: same
    /// attempt, user and RM token, and each interceptor's state handed back to it. The AMs keep
    /// their local tokens, which the restored keys still validate.
    ///
    /// A record that cannot be restored is removed and reported; the others recover anyway.
    ///
    /// # Errors
    ///
    /// [`Error::StateStore`] when the store cannot be read.
    pub fn recover(&self) -> Result<RecoveryReport, Error> {
        let stored = self.store.load().map_err(|source| Error::StateStore {
            operation: "load",
            subject: "the AMRMProxy state".to_owned(),
            source,
        })?;
        let mut report = RecoveryReport::default();
        for (application, bytes) in stored.applications {
            match self.recover_application(&bytes) {
                Ok(attempt) => report.recovered.push(attempt),
                Err(err) => {
                    tracing::warn!(
                        %application,
                        error = %err,
                        "AMRMProxy could not recover the application; forgetting it"
                    );
                    if let Err(removal) = self.store.remove_application(application) {
                        tracing::warn!(
                            %application,
                            error = %removal,
                            "removing the unrecoverable AMRMProxy record failed"
                        );
                    }
                    report.failed.push((application, err));
                }
            }
        }
        Ok(report)
    }

    /// Takes the local key-rolling step due at `now_ms`, if any, and stores the keys when they
    /// changed. Call it periodically.
    ///
    /// # Errors
    ///
    /// [`Error::StateStore`] when the new keys cannot be stored: the roll is undone then, so
    /// no token is signed with a key a restart would lose.
    pub fn roll_keys(&self, now_ms: i64) -> Result<Option<KeyAction>, Error> {
        let mut secrets = self.lock_secrets();
        let before = secrets.clone();
        let action = secrets.roll(now_ms)?;
        if action.is_some()
            && let Err(err) = put_master_keys(self.store.as_ref(), &secrets.export())
        {
            *secrets = before;
            return Err(err);
        }
        Ok(action)
    }

    /// The attempts served now.
    pub fn attempts(&self) -> Vec<ApplicationAttemptId> {
        self.lock_applications()
            .values()
            .map(|running| running.attempt)
            .collect()
    }

    /// Checks the AMRMToken in `metadata` for `operation` and returns the attempt and the id of
    /// the key that signed it.
    pub(crate) fn authenticate(
        &self,
        operation: &'static str,
        metadata: &MetadataMap,
    ) -> Result<(ApplicationAttemptId, i32), Error> {
        match PresentedToken::from_metadata(metadata, AMRM_TOKEN_METADATA_KEY) {
            PresentedToken::Missing => Err(Error::MissingAmrmToken {
                operation,
                key: AMRM_TOKEN_METADATA_KEY,
            }),
            PresentedToken::Malformed { reason } => Err(Error::MalformedAmrmToken {
                operation,
                key: AMRM_TOKEN_METADATA_KEY,
                reason,
            }),
            PresentedToken::Token(token) => self.lock_secrets().validate(token),
        }
    }

    /// The attempt, key id and password of the local AMRMToken with encoded identifier
    /// `identifier`, for a Hadoop IPC SASL exchange (see
    /// [`ProxyTokenSecretManager::password_of`]).
    pub(crate) fn local_token_password(
        &self,
        identifier: &[u8],
    ) -> Result<(ApplicationAttemptId, i32, Vec<u8>), Error> {
        self.lock_secrets().password_of(identifier)
    }

    /// The attempt and key id of the local AMRMToken a Hadoop IPC connection proved when it
    /// opened (see [`ProxyTokenSecretManager::identified`]).
    pub(crate) fn proven_attempt(
        &self,
        identifier: &[u8],
    ) -> Result<(ApplicationAttemptId, i32), Error> {
        self.lock_secrets().identified(identifier)
    }

    /// Runs `call` on `attempt`'s chain, in turn with the application's other calls, and
    /// persists the chain's record if it changed.
    pub(crate) async fn with_chain<T, F>(
        &self,
        attempt: ApplicationAttemptId,
        call: F,
    ) -> Result<T, Error>
    where
        F: for<'c> FnOnce(&'c mut InterceptorChain) -> BoxFuture<'c, Result<T, Error>>,
    {
        let unknown = || Error::UnknownApplicationAttempt {
            attempt: attempt.to_string(),
        };
        // The semaphore is never closed, so acquiring only waits.
        let _permit = self.calls.acquire().await.ok();
        let running = self
            .lock_applications()
            .get(&attempt.application_id)
            .filter(|running| running.attempt == attempt)
            .cloned()
            .ok_or_else(unknown)?;
        let mut slot = running.slot.lock().await;
        if slot.stopped {
            return Err(unknown());
        }
        let outcome = call(&mut slot.chain).await;
        let current = record(&slot.chain);
        if current != slot.persisted {
            match self.put_application(attempt.application_id, current.clone()) {
                Ok(()) => slot.persisted = current,
                // The call itself stands; the next call tries to store again.
                Err(err) => {
                    tracing::error!(%attempt, error = %err, "storing the AMRMProxy record failed")
                }
            }
        }
        outcome
    }

    /// The local token to hand the AM in an allocate response when the key it presented is
    /// not the one that signs now.
    pub(crate) fn rolled_token(
        &self,
        attempt: ApplicationAttemptId,
        presented_key_id: i32,
    ) -> Option<pb::TokenProto> {
        let mut secrets = self.lock_secrets();
        (secrets.signing_key_id() != presented_key_id).then(|| secrets.issue(attempt))
    }

    fn recover_application(&self, bytes: &[u8]) -> Result<ApplicationAttemptId, Error> {
        let state = ApplicationProxyState::decode(bytes)?;
        let attempt = state.attempt;
        let context =
            ApplicationContext::new(attempt, state.user, state.rm_token, Arc::clone(&self.node));
        let mut chain = self.pipeline.build(context)?;
        if let Err(err) = chain.recover(state.interceptor_state) {
            chain.shutdown();
            return Err(err);
        }
        let persisted = record(&chain);
        self.insert(attempt, chain, persisted);
        self.lock_secrets().attempt_recovered(attempt);
        Ok(attempt)
    }

    fn insert(&self, attempt: ApplicationAttemptId, chain: InterceptorChain, persisted: Vec<u8>) {
        let running = Arc::new(RunningApplication {
            attempt,
            slot: tokio::sync::Mutex::new(ChainSlot {
                chain,
                persisted,
                stopped: false,
            }),
        });
        self.lock_applications()
            .insert(attempt.application_id, running);
    }

    fn put_application(&self, application: ApplicationId, record: Vec<u8>) -> Result<(), Error> {
        self.store
            .put_application(application, record)
            .map_err(|source| Error::StateStore {
                operation: "store",
                subject: application.to_string(),
                source,
            })
    }

    fn lock_secrets(&self) -> MutexGuard<'_, ProxyTokenSecretManager> {
        self.secrets.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn lock_applications(
        &self,
    ) -> MutexGuard<'_, BTreeMap<ApplicationId, Arc<RunningApplication>>> {
        self.applications
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl fmt::Debug for AmrmProxy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AmrmProxy")
            .field("pipeline", &self.pipeline.names())
            .field("attempts", &self.attempts())
            .finish_non_exhaustive()
    }
}

/// `chain`'s application record as it stands.
fn record(chain: &InterceptorChain) -> Vec<u8> {
    let context = chain.context();
    ApplicationProxyState {
        attempt: context.attempt(),
        user: context.user().to_owned(),
        rm_token: context.rm_token(),
        interceptor_state: chain.state(),
    }
    .encode()
}

fn put_master_keys(store: &dyn ProxyStateStore, keys: &ProxyMasterKeys) -> Result<(), Error> {
    store
        .put_master_keys(keys.encode())
        .map_err(|source| Error::StateStore {
            operation: "store",
            subject: "the master keys".to_owned(),
            source,
        })
}
