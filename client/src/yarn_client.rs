//! [`YarnClient`]: what a user or a job submitter asks of the ResourceManager group over
//! ApplicationClientProtocol (Hadoop's `YarnClient`).

use std::future::Future;
use std::time::Duration;

use tonic::transport::Channel;
use tonic::{Response, Status};
use yarn_conf::Configuration;
use yarn_proto::ids::{ApplicationAttemptId, ApplicationId};
use yarn_proto::pb;
use yarn_proto::pb::application_client_protocol_client::ApplicationClientProtocolClient;

use crate::{Error, Idempotency, RmClient, RmClientConfig, RmService};

mod reservations;

/// How often [`YarnClient::kill_application`] asks again while a kill is in progress, by
/// default: Hadoop's `yarn.client.application-client-protocol.poll-interval-ms` default.
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_millis(200);

type Protocol = ApplicationClientProtocolClient<Channel>;

/// A client of ApplicationClientProtocol on the ResourceManager group, with failover.
///
/// Every call goes through [`RmClient::call`], so it follows leader hints and fails over
/// between the replicas of `yarn.resourcemanager.ha.rm-ids`. Which calls are resent after a
/// failure that leaves their outcome unknown follows the `.proto` comments: reads are
/// read-only, a submission is deduplicated by its application id, a kill by its application
/// id, a move by the application id and target queue, and `GetNewApplication` only wastes an id
/// when repeated. So every method here may be retried and none can take effect twice.
///
/// Share it freely (`&self` everywhere). Dropping a call's future cancels it; the client stays
/// usable. Errors name the replica, its address, the attempts made and the last status, as
/// [`RmClient::call`] documents.
#[derive(Debug)]
pub struct YarnClient {
    client: RmClient,
    poll_interval: Duration,
}

/// A fresh application id and the largest AM container the scheduler would allocate.
#[derive(Debug, Clone, PartialEq)]
pub struct NewApplication {
    /// The id to put in the submission context.
    pub application_id: ApplicationId,
    /// The largest AM container size the scheduler allocates.
    pub maximum_capability: pb::ResourceProto,
}

/// Which applications [`YarnClient::get_applications`] returns. Every empty list, and an
/// absent limit, leaves that criterion out; an application must meet every criterion given.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ApplicationFilter {
    /// Applications in any of these states.
    pub states: Vec<pb::YarnApplicationStateProto>,
    /// Applications in any of these queues.
    pub queues: Vec<String>,
    /// Applications of any of these users.
    pub users: Vec<String>,
    /// Applications of any of these types (the RM compares them ignoring case).
    pub types: Vec<String>,
    /// Applications with any of these tags.
    pub tags: Vec<String>,
    /// At most this many applications, newest first.
    pub limit: Option<i64>,
}

impl ApplicationFilter {
    /// The `GetApplications` request that asks for this filter.
    pub fn to_request(&self) -> pb::GetApplicationsRequestProto {
        pb::GetApplicationsRequestProto {
            application_types: self.types.clone(),
            application_states: self.states.iter().map(|state| *state as i32).collect(),
            users: self.users.clone(),
            queues: self.queues.clone(),
            limit: self.limit,
            application_tags: self.tags.clone(),
            ..Default::default()
        }
    }
}

/// What [`YarnClient::kill_application`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KillOutcome {
    /// The RM completed the kill this call asked for (or one already in progress).
    Killed,
    /// The application had already reached this final state; nothing was sent.
    AlreadyFinished(pb::YarnApplicationStateProto),
}

/// Whether `state` is one an application never leaves: FINISHED, FAILED or KILLED.
pub fn is_final_application_state(state: pb::YarnApplicationStateProto) -> bool {
    matches!(
        state,
        pb::YarnApplicationStateProto::Finished
            | pb::YarnApplicationStateProto::Failed
            | pb::YarnApplicationStateProto::Killed
    )
}

impl YarnClient {
    /// A client over the replicas of `config`, polling in-progress kills every
    /// [`DEFAULT_POLL_INTERVAL`]. No I/O: channels connect on first use.
    pub fn new(config: &RmClientConfig) -> Self {
        Self {
            client: RmClient::new(config, RmService::Client),
            poll_interval: DEFAULT_POLL_INTERVAL,
        }
    }

    /// A client configured from `conf` (`yarn.resourcemanager.ha.*`, `yarn.client.failover-*`,
    /// `yarn.tls.*`).
    ///
    /// # Errors
    ///
    /// Those of [`RmClientConfig::from_conf`].
    pub fn from_conf(conf: &Configuration) -> Result<Self, Error> {
        Ok(Self::new(&RmClientConfig::from_conf(conf)?))
    }

    /// The same client, asking again every `interval` while a kill is in progress.
    pub fn with_poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval;
        self
    }

    /// Reserves a fresh application id.
    ///
    /// # Errors
    ///
    /// Those of [`RmClient::call`]; [`Error::MissingResponseField`] or
    /// [`Error::InvalidResponse`] when the reply carries no valid id.
    pub async fn get_new_application(&self) -> Result<NewApplication, Error> {
        // Not deduplicated, yet safe to resend: a lost reply only wastes an id, never reused.
        let reply = self
            .call(
                Idempotency::Idempotent,
                pb::GetNewApplicationRequestProto {},
                |mut rm: Protocol, request| async move { rm.get_new_application(request).await },
            )
            .await?;
        let id = reply
            .application_id
            .ok_or_else(|| self.missing("GetNewApplication", "application_id"))?;
        let application_id = ApplicationId::try_from(id).map_err(|err| Error::InvalidResponse {
            rm_id: self.client.current_target().0,
            rpc: "GetNewApplication",
            field: "application_id",
            value: err.to_string(),
        })?;
        Ok(NewApplication {
            application_id,
            maximum_capability: reply.maximum_capability.unwrap_or_default(),
        })
    }

    /// Submits an application; returns once the submission is committed.
    ///
    /// Resending is safe: the RM deduplicates by `application_id`, and a second submission of a
    /// committed id succeeds without changing the first one's context.
    ///
    /// # Errors
    ///
    /// [`Error::SubmissionWithoutApplicationId`] before any call when the context has no id;
    /// otherwise those of [`RmClient::call`] (a queue refusal comes back as the RM's status).
    pub async fn submit_application(
        &self,
        context: pb::ApplicationSubmissionContextProto,
    ) -> Result<(), Error> {
        if context.application_id.is_none() {
            return Err(Error::SubmissionWithoutApplicationId);
        }
        let request = pb::SubmitApplicationRequestProto {
            application_submission_context: Some(context),
        };
        self.call(
            Idempotency::Idempotent,
            request,
            |mut rm: Protocol, request| async move { rm.submit_application(request).await },
        )
        .await?;
        Ok(())
    }

    /// The report of one application.
    ///
    /// # Errors
    ///
    /// Those of [`RmClient::call`] (an unknown id is the RM's `NOT_FOUND` naming it), and
    /// [`Error::MissingResponseField`] for a reply without a report.
    pub async fn get_application_report(
        &self,
        id: ApplicationId,
    ) -> Result<pb::ApplicationReportProto, Error> {
        let request = pb::GetApplicationReportRequestProto {
            application_id: Some(id.into()),
        };
        let reply = self
            .call(
                Idempotency::Idempotent,
                request,
                |mut rm: Protocol, request| async move { rm.get_application_report(request).await },
            )
            .await?;
        reply
            .application_report
            .ok_or_else(|| self.missing("GetApplicationReport", "application_report"))
    }

    /// The reports of the applications `filter` selects, newest first.
    ///
    /// # Errors
    ///
    /// Those of [`RmClient::call`].
    pub async fn get_applications(
        &self,
        filter: &ApplicationFilter,
    ) -> Result<Vec<pb::ApplicationReportProto>, Error> {
        let reply = self
            .call(
                Idempotency::Idempotent,
                filter.to_request(),
                |mut rm: Protocol, request| async move { rm.get_applications(request).await },
            )
            .await?;
        Ok(reply.applications)
    }

    /// Kills an application and waits until the RM reports the kill complete, asking again
    /// every poll interval while it is in progress (as Hadoop's client does, without a time
    /// limit: drop the future to stop waiting; the kill goes on regardless).
    ///
    /// An application already FINISHED, FAILED or KILLED is reported as such and not sent a
    /// kill. Resending is safe: the RM deduplicates by application id.
    ///
    /// # Errors
    ///
    /// Those of [`get_application_report`](Self::get_application_report) and
    /// [`RmClient::call`] (a caller without modify access gets the RM's `PERMISSION_DENIED`).
    pub async fn kill_application(&self, id: ApplicationId) -> Result<KillOutcome, Error> {
        let report = self.get_application_report(id).await?;
        let state = report.yarn_application_state();
        if is_final_application_state(state) {
            return Ok(KillOutcome::AlreadyFinished(state));
        }
        let request = pb::KillApplicationRequestProto {
            application_id: Some(id.into()),
            diagnostics: String::new(),
        };
        loop {
            let reply = self
                .call(
                    Idempotency::Idempotent,
                    request.clone(),
                    |mut rm: Protocol, request| async move {
                        rm.force_kill_application(request).await
                    },
                )
                .await?;
            if reply.is_kill_completed {
                return Ok(KillOutcome::Killed);
            }
            tokio::time::sleep(self.poll_interval).await;
        }
    }

    /// The cluster's NodeManager counts by state, and when the answering ResourceManager
    /// started.
    ///
    /// # Errors
    ///
    /// Those of [`RmClient::call`]; [`Error::MissingResponseField`] for a reply without metrics.
    pub async fn get_cluster_metrics(&self) -> Result<pb::YarnClusterMetricsProto, Error> {
        let reply = self
            .call(
                Idempotency::Idempotent,
                pb::GetClusterMetricsRequestProto {},
                |mut rm: Protocol, request| async move { rm.get_cluster_metrics(request).await },
            )
            .await?;
        reply
            .cluster_metrics
            .ok_or_else(|| self.missing("GetClusterMetrics", "cluster_metrics"))
    }

    /// The reports of the nodes in any of `states`; every node when `states` is empty.
    ///
    /// # Errors
    ///
    /// Those of [`RmClient::call`].
    pub async fn get_cluster_nodes(
        &self,
        states: &[pb::NodeStateProto],
    ) -> Result<Vec<pb::NodeReportProto>, Error> {
        let request = pb::GetClusterNodesRequestProto {
            node_states: states.iter().map(|state| *state as i32).collect(),
        };
        let reply = self
            .call(
                Idempotency::Idempotent,
                request,
                |mut rm: Protocol, request| async move { rm.get_cluster_nodes(request).await },
            )
            .await?;
        Ok(reply.node_reports)
    }

    /// The cluster's node labels, by name (`cluster -lnl`).
    ///
    /// # Errors
    ///
    /// Those of the call.
    pub async fn get_cluster_node_labels(&self) -> Result<Vec<pb::NodeLabelProto>, Error> {
        let reply = self
            .call(
                Idempotency::Idempotent,
                pb::GetClusterNodeLabelsRequestProto {},
                |mut rm: Protocol, request| async move { rm.get_cluster_node_labels(request).await },
            )
            .await?;
        Ok(reply.node_labels)
    }

    /// A queue's configuration and usage, without its children and applications. `queue` is a
    /// leaf name or a full path such as `root.a`.
    ///
    /// # Errors
    ///
    /// Those of [`RmClient::call`] (an unknown queue is the RM's `NOT_FOUND` naming it);
    /// [`Error::MissingResponseField`] for a reply without queue information.
    pub async fn get_queue_info(&self, queue: &str) -> Result<pb::QueueInfoProto, Error> {
        self.queue_info(queue, false).await
    }

    /// The queues directly under `queue` (a parent's name or full path, such as `root`), each
    /// with its configuration and usage but without its own children; empty for a leaf.
    ///
    /// # Errors
    ///
    /// As [`get_queue_info`](Self::get_queue_info).
    pub async fn get_child_queue_infos(
        &self,
        queue: &str,
    ) -> Result<Vec<pb::QueueInfoProto>, Error> {
        Ok(self.queue_info(queue, true).await?.child_queues)
    }

    /// `GetQueueInfo` of `queue`, with its direct children when `include_child_queues`.
    async fn queue_info(
        &self,
        queue: &str,
        include_child_queues: bool,
    ) -> Result<pb::QueueInfoProto, Error> {
        let request = pb::GetQueueInfoRequestProto {
            queue_name: queue.to_owned(),
            include_child_queues,
            ..Default::default()
        };
        let reply = self
            .call(
                Idempotency::Idempotent,
                request,
                |mut rm: Protocol, request| async move { rm.get_queue_info(request).await },
            )
            .await?;
        reply
            .queue_info
            .ok_or_else(|| self.missing("GetQueueInfo", "queue_info"))
    }

    /// Moves an application to the leaf queue `queue`; returns once the move is committed.
    /// Resending is safe: moving an application to the queue it is in changes nothing.
    ///
    /// # Errors
    ///
    /// Those of [`RmClient::call`] (an unknown or non-leaf queue, a finished application or a
    /// missing right comes back as the RM's status).
    pub async fn move_application(&self, id: ApplicationId, queue: &str) -> Result<(), Error> {
        let request = pb::MoveApplicationAcrossQueuesRequestProto {
            application_id: Some(id.into()),
            target_queue: queue.to_owned(),
        };
        self.call(
            Idempotency::Idempotent,
            request,
            |mut rm: Protocol, request| async move {
                rm.move_application_across_queues(request).await
            },
        )
        .await?;
        Ok(())
    }

    /// Moves the end of an application's lifetime to `expire_time` (Hadoop's ISO 8601 form,
    /// see `yarn_proto::expiry_time`) and returns the RM's answer: `expire_time` as sent, or
    /// the earlier time the queue's maximum lifetime brought it to. Resending is safe: setting
    /// the expiry in force changes nothing.
    ///
    /// # Errors
    ///
    /// Those of [`RmClient::call`] (a time in the past or not in ISO 8601, an unknown
    /// application or a missing right comes back as the RM's status).
    pub async fn update_application_lifetime(
        &self,
        id: ApplicationId,
        expire_time: &str,
    ) -> Result<String, Error> {
        let request = pb::UpdateApplicationTimeoutsRequestProto {
            application_id: Some(id.into()),
            application_timeouts: vec![pb::ApplicationUpdateTimeoutMapProto {
                application_timeout_type: pb::ApplicationTimeoutTypeProto::AppTimeoutLifetime
                    .into(),
                expire_time: expire_time.to_owned(),
            }],
        };
        let reply = self
            .call(
                Idempotency::Idempotent,
                request,
                |mut rm: Protocol, request| async move {
                    rm.update_application_timeouts(request).await
                },
            )
            .await?;
        Ok(reply
            .application_timeouts
            .into_iter()
            .next()
            .map_or_else(|| expire_time.to_owned(), |timeout| timeout.expire_time))
    }

    /// The reports of every attempt of an application, in attempt order as the RM lists them.
    ///
    /// # Errors
    ///
    /// Those of [`RmClient::call`] (an unknown id is the RM's `NOT_FOUND`).
    pub async fn get_application_attempts(
        &self,
        id: ApplicationId,
    ) -> Result<Vec<pb::ApplicationAttemptReportProto>, Error> {
        let request = pb::GetApplicationAttemptsRequestProto {
            application_id: Some(id.into()),
        };
        let reply = self
            .call(
                Idempotency::Idempotent,
                request,
                |mut rm: Protocol, request| async move {
                    rm.get_application_attempts(request).await
                },
            )
            .await?;
        Ok(reply.application_attempts)
    }

    /// The reports of the containers of one application attempt.
    ///
    /// # Errors
    ///
    /// Those of [`RmClient::call`] (an unknown attempt is the RM's `NOT_FOUND`).
    pub async fn get_containers(
        &self,
        attempt: ApplicationAttemptId,
    ) -> Result<Vec<pb::ContainerReportProto>, Error> {
        let request = pb::GetContainersRequestProto {
            application_attempt_id: Some(attempt.into()),
        };
        let reply = self
            .call(
                Idempotency::Idempotent,
                request,
                |mut rm: Protocol, request| async move { rm.get_containers(request).await },
            )
            .await?;
        Ok(reply.containers)
    }

    /// Polls the application's report every `poll_interval` until it is FINISHED, FAILED or
    /// KILLED, and returns that report. The first report is asked for at once.
    ///
    /// `deadline` is a [`tokio::time::Instant`], so tests with paused time control it.
    /// Dropping the future stops the polling.
    ///
    /// # Errors
    ///
    /// Those of [`get_application_report`](Self::get_application_report), and
    /// [`Error::ApplicationWaitTimedOut`] with the last state seen when `deadline` passes first.
    pub async fn wait_for_final_report(
        &self,
        id: ApplicationId,
        poll_interval: Duration,
        deadline: tokio::time::Instant,
    ) -> Result<pb::ApplicationReportProto, Error> {
        let started = tokio::time::Instant::now();
        loop {
            let report = self.get_application_report(id).await?;
            let state = report.yarn_application_state();
            if is_final_application_state(state) {
                return Ok(report);
            }
            let now = tokio::time::Instant::now();
            if now >= deadline {
                return Err(Error::ApplicationWaitTimedOut {
                    application_id: id,
                    last_state: state,
                    waited: now.saturating_duration_since(started),
                });
            }
            // The last report is taken at the deadline, not one interval after it.
            tokio::time::sleep_until((now + poll_interval).min(deadline)).await;
        }
    }

    /// Sends `request` through the failover-aware client, building the protocol client on each
    /// attempt's channel.
    async fn call<Req, Resp, F, Fut>(
        &self,
        idempotency: Idempotency,
        request: Req,
        op: F,
    ) -> Result<Resp, Error>
    where
        Req: Clone,
        F: Fn(Protocol, Req) -> Fut,
        Fut: Future<Output = Result<Response<Resp>, Status>>,
    {
        self.client
            .call(idempotency, |channel| {
                op(
                    ApplicationClientProtocolClient::new(channel),
                    request.clone(),
                )
            })
            .await
    }

    /// The error for a reply from the current target that lacks `field`.
    fn missing(&self, rpc: &'static str, field: &'static str) -> Error {
        Error::MissingResponseField {
            rm_id: self.client.current_target().0,
            rpc,
            field,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pb::YarnApplicationStateProto as State;

    #[test]
    fn only_finished_failed_and_killed_are_final() {
        let final_states: Vec<State> = [
            State::YarnApplicationStateUnspecified,
            State::New,
            State::NewSaving,
            State::Submitted,
            State::Accepted,
            State::Running,
            State::Finished,
            State::Failed,
            State::Killed,
        ]
        .into_iter()
        .filter(|state| is_final_application_state(*state))
        .collect();
        assert_eq!(
            final_states,
            [State::Finished, State::Failed, State::Killed]
        );
    }

    #[tokio::test]
    async fn a_submission_without_an_application_id_is_refused_before_any_call() {
        let mut conf = Configuration::new();
        conf.set("yarn.resourcemanager.ha.enabled", "true");
        conf.set("yarn.resourcemanager.ha.rm-ids", "rm1");
        // No replica listens here: reaching the network would fail differently.
        conf.set("yarn.resourcemanager.hostname.rm1", "rm1.invalid");
        conf.set("yarn.tls.enabled", "false");
        let client = YarnClient::from_conf(&conf).unwrap();
        let err = client
            .submit_application(pb::ApplicationSubmissionContextProto::default())
            .await
            .unwrap_err();
        assert!(
            matches!(err, Error::SubmissionWithoutApplicationId),
            "{err}"
        );
    }

    #[test]
    fn a_timed_out_wait_names_the_application_its_last_state_and_the_time_waited() {
        let err = Error::ApplicationWaitTimedOut {
            application_id: ApplicationId::new(1_700_000_000_000, 9),
            last_state: State::Running,
            waited: Duration::from_millis(1500),
        };
        assert_eq!(
            err.to_string(),
            "application application_1700000000000_0009 did not reach a final state (FINISHED, \
             FAILED or KILLED) within 1500 ms; its last reported state was RUNNING"
        );
    }

    #[test]
    fn a_filter_fills_every_criterion_of_the_request() {
        let filter = ApplicationFilter {
            states: vec![State::Accepted, State::Running],
            queues: vec!["root.a".to_owned()],
            users: vec!["alice".to_owned()],
            types: vec!["MAPREDUCE".to_owned()],
            tags: vec!["nightly".to_owned()],
            limit: Some(10),
        };
        let request = filter.to_request();
        assert_eq!(
            request.application_states,
            [State::Accepted as i32, State::Running as i32]
        );
        assert_eq!(request.queues, ["root.a"]);
        assert_eq!(request.users, ["alice"]);
        assert_eq!(request.application_types, ["MAPREDUCE"]);
        assert_eq!(request.application_tags, ["nightly"]);
        assert_eq!(request.limit, Some(10));
        assert_eq!(
            ApplicationFilter::default().to_request(),
            pb::GetApplicationsRequestProto::default(),
            "an empty filter asks for every application"
        );
    }
}
