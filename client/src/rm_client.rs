//! The failover-aware caller of one RM service.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tonic::Status;
use tonic::transport::Channel;
use yarn_security::Dialer;

use crate::{
    CallHistory, Error, Failure, GiveUpReason, Idempotency, RetryDecision, RetryPolicy,
    RetryTarget, RmClientConfig, RmFailoverTargets, RmService,
};

/// Calls one RPC service of the ResourceManager group, failing over between replicas.
///
/// Each call goes to the current target; on failure the [`RetryPolicy`] decides whether to
/// follow the leader hint at once, fail over after a jittered pause, or give up. Every attempt
/// runs under the configured deadline. One channel is cached per address and connects lazily
/// over mutual TLS, so building a client does no I/O and a replica that is down costs nothing
/// until it is called.
///
/// Share it freely (`&self` everywhere, e.g. in an `Arc`): the target and the channel cache sit
/// behind one mutex held only for short sections, never across an `.await`. Dropping a call's
/// future cancels it between attempts or mid-attempt; the client stays usable.
#[derive(Debug)]
pub struct RmClient {
    service: RmService,
    policy: RetryPolicy,
    call_timeout: Duration,
    dialer: Dialer,
    rm_ids: Vec<String>,
    /// Short sections only; never held across an `.await`.
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    targets: RmFailoverTargets,
    /// Ordered, so that dropping the client closes its connections in one order: a simulated
    /// seed then replays exactly.
    channels: BTreeMap<String, Channel>,
    /// Draws the jitter of failover pauses.
    jitter: StdRng,
}

impl RmClient {
    /// A client for `service` on the replicas of `config`, starting with the first rm id.
    pub fn new(config: &RmClientConfig, service: RmService) -> Self {
        Self {
            service,
            policy: config.retry_policy(),
            call_timeout: config.call_timeout,
            dialer: config.dialer(),
            rm_ids: config.rm_ids(),
            state: Mutex::new(State {
                targets: RmFailoverTargets::new(&config.ha, service),
                channels: BTreeMap::new(),
                jitter: config
                    .jitter_seed
                    .map_or_else(StdRng::from_os_rng, StdRng::seed_from_u64),
            }),
        }
    }

    /// The service this client calls.
    pub fn service(&self) -> RmService {
        self.service
    }

    /// The configured rm ids, in `yarn.resourcemanager.ha.rm-ids` order.
    pub fn rm_ids(&self) -> &[String] {
        &self.rm_ids
    }

    /// The deadline of each attempt.
    pub fn call_timeout(&self) -> Duration {
        self.call_timeout
    }

    /// The rm id and address the next call goes to.
    pub fn current_target(&self) -> (String, String) {
        let state = self.lock();
        let (rm_id, address) = state.targets.current();
        (rm_id.to_owned(), address.to_owned())
    }

    /// The address replica `rm_id` is called at, `None` when it is not configured.
    pub fn address_of(&self, rm_id: &str) -> Option<String> {
        self.lock().targets.address_of(rm_id).map(str::to_owned)
    }

    /// The cached channel to replica `rm_id`, for calls aimed at one replica (such as
    /// `rmadmin -getServiceState rm2`). No I/O: it connects on first use.
    ///
    /// # Errors
    ///
    /// [`Error::UnknownRmId`] when `rm_id` is not configured, [`Error::InvalidAddress`] when its
    /// address cannot make a channel.
    pub fn channel_to(&self, rm_id: &str) -> Result<Channel, Error> {
        self.replica_channel(rm_id).map(|(_, channel)| channel)
    }

    /// Makes one attempt of `op` on replica `rm_id`, under the deadline, without failover.
    ///
    /// # Errors
    ///
    /// Those of [`channel_to`](Self::channel_to), [`Error::CertificateRefused`] when TLS
    /// refused a certificate, and [`Error::CallFailed`] with the status of any other failed
    /// attempt (a missed deadline is `DEADLINE_EXCEEDED`).
    pub async fn call_on<T, F, Fut>(&self, rm_id: &str, op: F) -> Result<T, Error>
    where
        F: FnOnce(Channel) -> Fut,
        Fut: Future<Output = Result<tonic::Response<T>, Status>>,
    {
        let (address, channel) = self.replica_channel(rm_id)?;
        self.attempt(op(channel)).await.map_err(|status| {
            // One attempt is all this call makes, whatever the failure.
            let failure = Failure::classify(&status);
            give_up(
                GiveUpReason::Final,
                failure,
                rm_id.to_owned(),
                address,
                1,
                status,
            )
        })
    }

    /// Calls `op` with a channel to the current target until it succeeds or the retry policy
    /// gives up, and returns the response's message.
    ///
    /// `op` is called once per attempt with that attempt's channel; `idempotency` says whether
    /// a failure after the request may have been sent allows resending it.
    ///
    /// # Errors
    ///
    /// - [`Error::CallFailed`]: a definitive answer (e.g. `PERMISSION_DENIED`), returned at once;
    /// - [`Error::CertificateRefused`]: TLS refused a certificate, returned at once;
    /// - [`Error::OutcomeUnknown`]: a call that is not idempotent failed after its request may
    ///   have been sent (dropped connection, deadline);
    /// - [`Error::AttemptsExhausted`]: `1 + yarn.client.failover-max-attempts` attempts failed;
    /// - [`Error::InvalidAddress`]: a target's address cannot make a channel.
    ///
    /// Each names the rm id and address tried last, the attempts made and the last status.
    pub async fn call<T, F, Fut>(&self, idempotency: Idempotency, mut op: F) -> Result<T, Error>
    where
        F: FnMut(Channel) -> Fut,
        Fut: Future<Output = Result<tonic::Response<T>, Status>>,
    {
        let mut history = CallHistory::new();
        loop {
            let (rm_id, address, channel) = {
                let mut state = self.lock();
                let (rm_id, address) = state.targets.current();
                let (rm_id, address) = (rm_id.to_owned(), address.to_owned());
                let channel = self.channel(&mut state, &rm_id, &address)?;
                (rm_id, address, channel)
            };
            history.attempted(&rm_id);
            let status = match self.attempt(op(channel)).await {
                Ok(value) => return Ok(value),
                Err(status) => status,
            };
            let failure = Failure::classify(&status);
            let decision = {
                let mut state = self.lock();
                let jitter = state.jitter.random::<f64>();
                let targets = &state.targets;
                let decision = self.policy.decide(
                    &history,
                    &failure,
                    idempotency,
                    &|id| targets.contains(id),
                    jitter,
                );
                // Move before pausing, so that concurrent calls already go to the new target.
                match &decision {
                    RetryDecision::Retry {
                        target: RetryTarget::Hint(hint),
                        ..
                    } => {
                        state.targets.follow_hint(hint);
                    }
                    RetryDecision::Retry {
                        target: RetryTarget::NextReplica,
                        ..
                    } => {
                        state.targets.fail_over_from(&rm_id);
                    }
                    RetryDecision::GiveUp(_) => {}
                }
                decision
            };
            match &decision {
                RetryDecision::GiveUp(reason) => {
                    return Err(give_up(
                        *reason,
                        failure,
                        rm_id,
                        address,
                        history.attempts(),
                        status,
                    ));
                }
                RetryDecision::Retry { delay, target } => {
                    tracing::debug!(
                        service = ?self.service,
                        %rm_id,
                        %address,
                        attempt = history.attempts(),
                        status = %crate::error::describe(&status),
                        ?failure,
                        ?delay,
                        ?target,
                        "RM call failed; retrying"
                    );
                    if !delay.is_zero() {
                        tokio::time::sleep(*delay).await;
                    }
                }
            }
            history.carried_out(&decision);
        }
    }

    /// Runs one attempt under the deadline; a missed deadline becomes `DEADLINE_EXCEEDED`.
    async fn attempt<T, Fut>(&self, call: Fut) -> Result<T, Status>
    where
        Fut: Future<Output = Result<tonic::Response<T>, Status>>,
    {
        match tokio::time::timeout(self.call_timeout, call).await {
            Ok(Ok(response)) => Ok(response.into_inner()),
            Ok(Err(status)) => Err(status),
            Err(_) => Err(Status::deadline_exceeded(format!(
                "no answer within the call deadline of {} ms",
                self.call_timeout.as_millis()
            ))),
        }
    }

    /// The address of replica `rm_id` and the cached channel to it.
    fn replica_channel(&self, rm_id: &str) -> Result<(String, Channel), Error> {
        let mut state = self.lock();
        let address = state
            .targets
            .address_of(rm_id)
            .ok_or_else(|| Error::UnknownRmId {
                rm_id: rm_id.to_owned(),
                configured: self.rm_ids.clone(),
            })?
            .to_owned();
        let channel = self.channel(&mut state, rm_id, &address)?;
        Ok((address, channel))
    }

    /// The cached channel to `address`, made on first use.
    fn channel(&self, state: &mut State, rm_id: &str, address: &str) -> Result<Channel, Error> {
        if let Some(channel) = state.channels.get(address) {
            return Ok(channel.clone());
        }
        let channel = self
            .dialer
            .dial(address)
            .map_err(|source| Error::InvalidAddress {
                rm_id: rm_id.to_owned(),
                address: address.to_owned(),
                source: Box::new(source),
            })?;
        state.channels.insert(address.to_owned(), channel.clone());
        Ok(channel)
    }

    /// The state survives a panic elsewhere: every section leaves it consistent.
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The error for a call that ends for `reason` with `status` (classified as `failure`) from
/// `rm_id` after `attempts` attempts.
fn give_up(
    reason: GiveUpReason,
    failure: Failure,
    rm_id: String,
    address: String,
    attempts: u32,
    status: Status,
) -> Error {
    let status = Box::new(status);
    match (reason, failure) {
        (
            GiveUpReason::Final,
            Failure::Refused {
                certificate: Some(refusal),
            },
        ) => Error::CertificateRefused {
            rm_id,
            address,
            refusal,
            status,
        },
        (GiveUpReason::Final, _) => Error::CallFailed {
            rm_id,
            address,
            attempts,
            status,
        },
        (GiveUpReason::OutcomeUnknown, _) => Error::OutcomeUnknown {
            rm_id,
            address,
            attempts,
            status,
        },
        (GiveUpReason::AttemptsExhausted, _) => Error::AttemptsExhausted {
            rm_id,
            address,
            attempts,
            status,
        },
    }
}
