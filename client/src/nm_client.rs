//! YARN's `NMClient`: how an ApplicationMaster starts, stops and watches its containers on the
//! NodeManagers.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tonic::transport::Channel;
use tonic::{Request, Status};
use yarn_proto::ids::NodeId;
use yarn_proto::pb;
use yarn_proto::pb::container_management_protocol_client::ContainerManagementProtocolClient;
use yarn_proto::token_metadata::{NM_TOKEN_METADATA_KEY, insert_token};
use yarn_security::{ChannelOptions, Dialer, TlsConfig};

use crate::container_key::{ContainerKey, describe_container_id};
use crate::failure::Failure;
use crate::{Error, RmClientConfig};

/// How much later than a call's deadline the channel's own request timeout falls.
const TRANSPORT_TIMEOUT_MARGIN: Duration = Duration::from_millis(250);

/// The longest time dialing plus the TLS handshake may take, within the call deadline.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

const START_CONTAINERS: &str = "StartContainers";
const STOP_CONTAINERS: &str = "StopContainers";
const GET_CONTAINER_STATUSES: &str = "GetContainerStatuses";
const UPDATE_CONTAINER: &str = "UpdateContainer";

/// YARN's exception class for a call the node cannot take yet: it has not registered with the
/// RM that issued the container's token (typically just after a failover).
const NM_NOT_YET_READY_EXCEPTION: &str = "org.apache.hadoop.yarn.exceptions.NMNotYetReadyException";

/// Hadoop's defaults for retrying a node that is not ready
/// (`yarn.client.nodemanager-connect.*`).
const DEFAULT_NOT_READY_RETRY_INTERVAL: Duration = Duration::from_secs(10);
const DEFAULT_NOT_READY_MAX_WAIT: Duration = Duration::from_secs(180);

/// Calls the ContainerManagementProtocol of NodeManagers, one container per call, over mutual
/// TLS, presenting the caller's NM token for the node.
///
/// A node is called at its node id (`host:port`); one channel per node is cached and connects
/// lazily, so a node that is down costs nothing until called. Every call runs under the
/// deadline given to [`new`](Self::new). A start the node refuses as not ready yet
/// (`NMNotYetReadyException`: after a failover, the container's token names an RM the node has
/// not registered with yet) is made again every retry interval until the node takes it or the
/// maximum wait passed, as Hadoop's NM proxy does. So is a start the node could not be dialed
/// for (it is restarting), or whose connection broke mid-call: the node starts a container
/// token at most once, and a refusal after such a break is settled by asking the node whether
/// it holds the container. Other calls are not retried, since the caller knows whether
/// resending makes sense (a stop and a status query are harmless to repeat).
///
/// Share it freely (`&self` everywhere); the channel cache sits behind a mutex held only for
/// short sections, never across an `.await`. Dropping a call's future cancels the call.
#[derive(Debug)]
pub struct NmClient {
    dialer: Dialer,
    call_timeout: Duration,
    not_ready_retry_interval: Duration,
    not_ready_max_wait: Duration,
    /// Short sections only; never held across an `.await`. Ordered, so that dropping the
    /// client closes its connections in one order: a simulated seed then replays exactly.
    channels: Mutex<BTreeMap<String, Channel>>,
}

impl NmClient {
    /// A client with the TLS identity, call deadline and not-ready retry of `config`. No I/O.
    pub fn from_config(config: &RmClientConfig) -> Self {
        let client = match &config.dialer {
            Some(dialer) => Self::dialing_with(dialer.clone(), config.call_timeout),
            None => Self::new(&config.tls, config.call_timeout),
        };
        client.with_not_ready_retry(config.nm_connect_retry_interval, config.nm_connect_max_wait)
    }

    /// A client presenting the identity of `tls`, with `call_timeout` as the deadline of each
    /// call and Hadoop's default not-ready retry. No I/O.
    pub fn new(tls: &TlsConfig, call_timeout: Duration) -> Self {
        let options = ChannelOptions {
            connect_timeout: CONNECT_TIMEOUT.min(call_timeout),
            // A little after the call's own deadline, so that a call running out ends on the
            // client's timer (DEADLINE_EXCEEDED) instead of racing the transport's (CANCELLED).
            request_timeout: call_timeout + TRANSPORT_TIMEOUT_MARGIN,
            ..ChannelOptions::default()
        };
        Self::dialing_with(Dialer::tls(tls, options), call_timeout)
    }

    /// A client reaching nodes with `dialer` (the simulation's network), with `call_timeout` as
    /// the deadline of each call and Hadoop's default not-ready retry. No I/O.
    pub fn dialing_with(dialer: Dialer, call_timeout: Duration) -> Self {
        Self {
            dialer,
            call_timeout,
            not_ready_retry_interval: DEFAULT_NOT_READY_RETRY_INTERVAL,
            not_ready_max_wait: DEFAULT_NOT_READY_MAX_WAIT,
            channels: Mutex::new(BTreeMap::new()),
        }
    }

    /// Retries a start the node is not ready for, or cannot be dialed for (it is restarting),
    /// every `interval` for at most `max_wait`.
    #[must_use]
    pub fn with_not_ready_retry(mut self, interval: Duration, max_wait: Duration) -> Self {
        self.not_ready_retry_interval = interval;
        self.not_ready_max_wait = max_wait;
        self
    }

    /// Starts `container` with `context` on its node, presenting `nm_token` for the node and the
    /// container's own container token.
    ///
    /// Succeeds only when the node lists the container as started. A retried start of a
    /// container the node already started is refused by the node (it does not start twice).
    /// A node not ready yet, restarting or cut off mid-call is asked again, see [`NmClient`].
    ///
    /// # Errors
    ///
    /// [`Error::ContainerFieldMissing`] without `id`, `node_id` or `container_token`;
    /// [`Error::InvalidNodeId`], [`Error::InvalidNodeAddress`]; [`Error::NmCallFailed`] when the
    /// call fails as a whole (unreachable node, deadline, NM token refused);
    /// [`Error::ContainerRefused`] with the node's message and exception class when the node
    /// refused this container; [`Error::NmReplyIncomplete`] when the reply names it nowhere.
    pub async fn start_container(
        &self,
        container: &pb::ContainerProto,
        nm_token: &pb::TokenProto,
        context: pb::ContainerLaunchContextProto,
    ) -> Result<(), Error> {
        let (target, container_token) = self.container_target(container)?;
        let body = pb::StartContainersRequestProto {
            start_container_requests: vec![pb::StartContainerRequestProto {
                container_launch_context: Some(context),
                container_token: Some(container_token),
            }],
        };
        let retry = StartRetry::new(
            tokio::time::Instant::now(),
            self.not_ready_retry_interval,
            self.not_ready_max_wait,
        );
        // Set once an attempt failed after its request may have reached the node: a later
        // refusal may then be the node declining to start, twice, what it already started.
        let mut maybe_started = false;
        loop {
            let request = with_token(body.clone(), nm_token);
            let outcome = self
                .call(&target, START_CONTAINERS, |mut client| async move {
                    client.start_containers(request).await
                })
                .await
                .and_then(|response| {
                    target.outcome(
                        START_CONTAINERS,
                        &response.succeeded_requests,
                        &response.failed_requests,
                    )
                });
            let retry_at = retry.next_attempt(tokio::time::Instant::now());
            match (outcome, retry_at) {
                (Err(err), Some(retry_at)) if is_not_ready(&err) => {
                    tracing::info!("{err}; asking again");
                    tokio::time::sleep_until(retry_at).await;
                }
                (Err(err), Some(retry_at)) if may_have_started(&err) => {
                    tracing::info!("{err}; the start may not have reached the node, asking again");
                    maybe_started = true;
                    tokio::time::sleep_until(retry_at).await;
                }
                (Err(refusal @ Error::ContainerRefused { .. }), _) if maybe_started => {
                    return self
                        .started_by_an_earlier_attempt(container, nm_token, refusal)
                        .await;
                }
                (outcome, _) => return outcome,
            }
        }
    }

    /// Settles a start refused after an earlier attempt may have reached the node: the node
    /// refuses a container token it already used, so a node that reports the container
    /// started it, and any other answer leaves the refusal standing.
    async fn started_by_an_earlier_attempt(
        &self,
        container: &pb::ContainerProto,
        nm_token: &pb::TokenProto,
        refusal: Error,
    ) -> Result<(), Error> {
        let (Some(container_id), Some(node_id)) = (&container.id, &container.node_id) else {
            return Err(refusal);
        };
        match self.container_status(container_id, node_id, nm_token).await {
            Ok(_) => Ok(()),
            Err(_) => Err(refusal),
        }
    }

    /// Stops the container `container_id` on the node `node_id`, presenting `nm_token`.
    /// Stopping a container that is already stopping or finished succeeds.
    ///
    /// # Errors
    ///
    /// As for [`start_container`](Self::start_container), the node refusing e.g. a container
    /// it does not know.
    pub async fn stop_container(
        &self,
        container_id: &pb::ContainerIdProto,
        node_id: &pb::NodeIdProto,
        nm_token: &pb::TokenProto,
    ) -> Result<(), Error> {
        let target = self.target(container_id, node_id)?;
        let body = pb::StopContainersRequestProto {
            container_ids: vec![*container_id],
        };
        let request = with_token(body, nm_token);
        let response = self
            .call(&target, STOP_CONTAINERS, |mut client| async move {
                client.stop_containers(request).await
            })
            .await?;
        target.outcome(
            STOP_CONTAINERS,
            &response.succeeded_requests,
            &response.failed_requests,
        )
    }

    /// Applies an update the RM granted (a promotion, demotion or resize) to the running
    /// container on its node (YARN's `updateContainer`), presenting `nm_token`: `container` is
    /// the one of [`AllocateOutcome::updated`](crate::AllocateOutcome::updated), whose container
    /// token carries the new execution type, size and version.
    ///
    /// # Errors
    ///
    /// As for [`start_container`](Self::start_container), the node refusing e.g. a token whose
    /// version is not newer than the container's.
    pub async fn update_container(
        &self,
        container: &pb::ContainerProto,
        nm_token: &pb::TokenProto,
    ) -> Result<(), Error> {
        let (target, container_token) = self.container_target(container)?;
        let body = pb::ContainerUpdateRequestProto {
            update_container_tokens: vec![container_token],
        };
        let request = with_token(body, nm_token);
        let response = self
            .call(&target, UPDATE_CONTAINER, |mut client| async move {
                client.update_container(request).await
            })
            .await?;
        target.outcome(
            UPDATE_CONTAINER,
            &response.succeeded_requests,
            &response.failed_requests,
        )
    }

    /// The status of the container `container_id` as the node `node_id` reports it,
    /// presenting `nm_token`.
    ///
    /// # Errors
    ///
    /// As for [`start_container`](Self::start_container); [`Error::NmReplyIncomplete`] when
    /// the reply holds neither its status nor a failure.
    pub async fn container_status(
        &self,
        container_id: &pb::ContainerIdProto,
        node_id: &pb::NodeIdProto,
        nm_token: &pb::TokenProto,
    ) -> Result<pb::ContainerStatusProto, Error> {
        let target = self.target(container_id, node_id)?;
        let body = pb::GetContainerStatusesRequestProto {
            container_ids: vec![*container_id],
        };
        let request = with_token(body, nm_token);
        let response = self
            .call(&target, GET_CONTAINER_STATUSES, |mut client| async move {
                client.get_container_statuses(request).await
            })
            .await?;
        let failed = response.failed_requests;
        response
            .statuses
            .into_iter()
            .find(|status| target.is(status.container_id.as_ref()))
            .ok_or_else(|| {
                target
                    .failure(GET_CONTAINER_STATUSES, &failed)
                    .unwrap_or_else(|| target.incomplete(GET_CONTAINER_STATUSES))
            })
    }

    /// Where a call about `container` goes, and its container token: the allocation must name
    /// its id, node and token.
    fn container_target(
        &self,
        container: &pb::ContainerProto,
    ) -> Result<(Target, pb::TokenProto), Error> {
        let Some(container_id) = &container.id else {
            return Err(Error::ContainerFieldMissing {
                container_id: "(no id)".to_owned(),
                field: "id",
            });
        };
        let missing = |field| Error::ContainerFieldMissing {
            container_id: describe_container_id(container_id),
            field,
        };
        let node_id = container
            .node_id
            .as_ref()
            .ok_or_else(|| missing("node_id"))?;
        let container_token = container
            .container_token
            .clone()
            .ok_or_else(|| missing("container_token"))?;
        Ok((self.target(container_id, node_id)?, container_token))
    }

    /// Where a call about `container_id` on `node_id` goes.
    fn target(
        &self,
        container_id: &pb::ContainerIdProto,
        node_id: &pb::NodeIdProto,
    ) -> Result<Target, Error> {
        let described = describe_container_id(container_id);
        let node = NodeId::try_from(node_id.clone())
            .map_err(|source| Error::InvalidNodeId {
                container_id: described.clone(),
                source,
            })?
            .to_string();
        Ok(Target {
            key: ContainerKey::of(container_id),
            container_id: described,
            node,
        })
    }

    /// Makes one call of `rpc` to `target`'s node under the deadline.
    async fn call<T, F, Fut>(&self, target: &Target, rpc: &'static str, op: F) -> Result<T, Error>
    where
        F: FnOnce(ContainerManagementProtocolClient<Channel>) -> Fut,
        Fut: Future<Output = Result<tonic::Response<T>, Status>>,
    {
        let channel = self.channel(&target.node)?;
        let client = ContainerManagementProtocolClient::new(channel);
        let status = match tokio::time::timeout(self.call_timeout, op(client)).await {
            Ok(Ok(response)) => return Ok(response.into_inner()),
            Ok(Err(status)) => status,
            Err(_) => Status::deadline_exceeded(format!(
                "no answer within the call deadline of {} ms",
                self.call_timeout.as_millis()
            )),
        };
        Err(Error::NmCallFailed {
            rpc,
            node: target.node.clone(),
            container_id: target.container_id.clone(),
            status: Box::new(status),
        })
    }

    /// The cached channel to `node`, made on first use.
    fn channel(&self, node: &str) -> Result<Channel, Error> {
        let mut channels = self.lock();
        if let Some(channel) = channels.get(node) {
            return Ok(channel.clone());
        }
        let channel = self
            .dialer
            .dial(node)
            .map_err(|source| Error::InvalidNodeAddress {
                node: node.to_owned(),
                source: Box::new(source),
            })?;
        channels.insert(node.to_owned(), channel.clone());
        Ok(channel)
    }

    /// The cache survives a panic elsewhere: every section leaves it consistent.
    fn lock(&self) -> MutexGuard<'_, BTreeMap<String, Channel>> {
        self.channels.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// One container on one node, as a call names it.
struct Target {
    key: ContainerKey,
    container_id: String,
    node: String,
}

impl Target {
    /// Whether `id` names this container.
    fn is(&self, id: Option<&pb::ContainerIdProto>) -> bool {
        id.is_some_and(|id| ContainerKey::of(id) == self.key)
    }

    /// What a bulk reply says about this container: its failure if it is listed as failed,
    /// success if it is listed as succeeded.
    fn outcome(
        &self,
        rpc: &'static str,
        succeeded: &[pb::ContainerIdProto],
        failed: &[pb::ContainerExceptionMapProto],
    ) -> Result<(), Error> {
        if let Some(err) = self.failure(rpc, failed) {
            return Err(err);
        }
        if succeeded.iter().any(|id| self.is(Some(id))) {
            return Ok(());
        }
        Err(self.incomplete(rpc))
    }

    /// This container's entry among `failed`, as an error with the node's message.
    fn failure(
        &self,
        rpc: &'static str,
        failed: &[pb::ContainerExceptionMapProto],
    ) -> Option<Error> {
        let failure = failed
            .iter()
            .find(|failure| self.is(failure.container_id.as_ref()))?;
        let exception = failure.exception.clone().unwrap_or_default();
        Some(Error::ContainerRefused {
            rpc,
            node: self.node.clone(),
            container_id: self.container_id.clone(),
            class_name: exception.class_name,
            message: exception.message,
        })
    }

    fn incomplete(&self, rpc: &'static str) -> Error {
        Error::NmReplyIncomplete {
            rpc,
            node: self.node.clone(),
            container_id: self.container_id.clone(),
        }
    }
}

/// When a start the node could not take yet is asked again: `interval` after each attempt's
/// answer, as long as that is no later than `max_wait` after the first attempt began. Pure: the
/// caller passes the times, taken from tokio's clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct StartRetry {
    interval: Duration,
    give_up_at: tokio::time::Instant,
}

impl StartRetry {
    /// The retries of a start whose first attempt began at `started`.
    fn new(started: tokio::time::Instant, interval: Duration, max_wait: Duration) -> Self {
        Self {
            interval,
            give_up_at: started + max_wait,
        }
    }

    /// When to ask again after an attempt answered at `now`; `None` once that would be past
    /// the maximum wait.
    fn next_attempt(&self, now: tokio::time::Instant) -> Option<tokio::time::Instant> {
        let retry_at = now + self.interval;
        (retry_at <= self.give_up_at).then_some(retry_at)
    }
}

/// Whether `err` says the node cannot take the start yet but may soon: it refused it as not
/// ready (not registered with the RM of the token's epoch), or it could not even be reached
/// because nothing listens while the NodeManager restarts. Hadoop's NM proxy retries both; the
/// second is safe to resend because the request never left this process.
fn is_not_ready(err: &Error) -> bool {
    match err {
        Error::ContainerRefused { class_name, .. } => class_name == NM_NOT_YET_READY_EXCEPTION,
        Error::NmCallFailed { status, .. } => Failure::classify(status) == Failure::NotSent,
        _ => false,
    }
}

/// Whether `err` is a call that broke after its request may have reached the node: the
/// connection was reset or closed (the NodeManager was killed mid-call) or the node answered
/// UNAVAILABLE. Resending a start is safe, since the node starts a container token once at
/// most. A node silent past the deadline is not asked again, as in Hadoop's NM proxy: a hung
/// node should not hold a start for the whole retry window.
fn may_have_started(err: &Error) -> bool {
    matches!(err, Error::NmCallFailed { status, .. }
        if status.code() != tonic::Code::DeadlineExceeded
            && Failure::classify(status) == Failure::MaybeExecuted)
}

/// `body` as a request carrying the NM token.
fn with_token<T>(body: T, token: &pb::TokenProto) -> Request<T> {
    let mut request = Request::new(body);
    insert_token(&mut request, NM_TOKEN_METADATA_KEY, token);
    request
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: i64) -> pb::ContainerIdProto {
        pb::ContainerIdProto {
            app_id: None,
            app_attempt_id: Some(pb::ApplicationAttemptIdProto {
                application_id: Some(pb::ApplicationIdProto {
                    id: 1,
                    cluster_timestamp: 5,
                }),
                attempt_id: 1,
            }),
            id: n,
        }
    }

    fn target(n: i64) -> Target {
        Target {
            key: ContainerKey::of(&id(n)),
            container_id: describe_container_id(&id(n)),
            node: "h1:8041".to_owned(),
        }
    }

    #[test]
    fn the_containers_own_failure_is_reported_with_the_nodes_message() {
        let failed = [
            pb::ContainerExceptionMapProto {
                container_id: Some(id(2)),
                exception: Some(pb::SerializedExceptionProto {
                    message: "other".to_owned(),
                    ..Default::default()
                }),
            },
            pb::ContainerExceptionMapProto {
                container_id: Some(id(1)),
                exception: Some(pb::SerializedExceptionProto {
                    message: "Container container_5_0001_01_000001 already exists".to_owned(),
                    class_name: "org.apache.hadoop.yarn.exceptions.YarnException".to_owned(),
                    ..Default::default()
                }),
            },
        ];
        let err = target(1)
            .outcome(START_CONTAINERS, &[id(1)], &failed)
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "StartContainers of container container_5_0001_01_000001 on h1:8041 refused: \
             Container container_5_0001_01_000001 already exists \
             (org.apache.hadoop.yarn.exceptions.YarnException)"
        );
    }

    #[test]
    fn only_a_listed_success_counts_as_one() {
        assert!(target(1).outcome(STOP_CONTAINERS, &[id(1)], &[]).is_ok());
        let err = target(1)
            .outcome(STOP_CONTAINERS, &[id(2)], &[])
            .unwrap_err();
        assert!(matches!(err, Error::NmReplyIncomplete { .. }), "{err:?}");
    }

    #[test]
    fn a_start_is_asked_again_every_interval_until_the_maximum_wait() {
        let started = tokio::time::Instant::now();
        let at = |millis| started + Duration::from_millis(millis);
        let retry = StartRetry::new(
            started,
            Duration::from_millis(10),
            Duration::from_millis(35),
        );
        // A node that answers at once and is never ready is asked at 0, 10, 20 and 30 ms.
        let mut asked = vec![started];
        while let Some(next) = retry.next_attempt(*asked.last().unwrap()) {
            asked.push(next);
        }
        assert_eq!(asked, [at(0), at(10), at(20), at(30)]);
        // Slow answers leave room for fewer attempts; one due exactly at the end is still made.
        assert_eq!(retry.next_attempt(at(24)), Some(at(34)));
        assert_eq!(retry.next_attempt(at(25)), Some(at(35)));
        assert_eq!(retry.next_attempt(at(26)), None);
        let never = StartRetry::new(started, Duration::from_millis(10), Duration::ZERO);
        assert_eq!(
            never.next_attempt(started),
            None,
            "no wait allowed: one attempt"
        );
    }

    #[test]
    fn a_node_id_that_is_no_address_is_refused_before_any_call() {
        let client = NmClient::new(&TlsConfig::disabled(), Duration::from_secs(1));
        let bad = pb::NodeIdProto {
            host: String::new(),
            port: 8041,
        };
        let err = client.target(&id(1), &bad).err().unwrap();
        assert!(matches!(err, Error::InvalidNodeId { .. }), "{err:?}");
        assert!(
            err.to_string().contains("container_5_0001_01_000001"),
            "{err}"
        );
    }
}
