//! The ApplicationMaster side shared by the sample applications: registering, then getting one
//! container per task, starting the tasks and collecting their ends, with a [`TaskLedger`]
//! deciding and this loop doing the I/O.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinSet;
use tokio::time::Instant;
use yarn_client::{
    AmRmClient, ContainerKey, NmClient, RmClientConfig, describe_container_id,
    read_amrm_token_from_env,
};
use yarn_conf::Configuration;
use yarn_proto::pb;

use super::container_result::{ContainerResult, format_diagnostics};
use super::task_ledger::{Placement, TaskLedger, node_text};
use crate::Error;

/// How often the ApplicationMaster heartbeats while its tasks run. YARN's distributed shell
/// heartbeats every second; a tenth of that lets short tasks finish promptly at the cost of
/// more allocate calls, which the RM deduplicates and answers from memory.
pub const HEARTBEAT_INTERVAL: Duration = Duration::from_millis(100);

/// The longest an ApplicationMaster waits for all its tasks to end (containers included, which
/// may queue behind other work) before it gives up and fails the application. Generous: the
/// client's own timeout usually kills the application first.
pub const AM_RUN_LIMIT: Duration = Duration::from_secs(3600);

/// Where the NodeManager puts the host the ApplicationMaster runs on.
const NM_HOST_ENV: &str = "NM_HOST";

/// How a run of tasks ended.
#[derive(Debug)]
pub(crate) enum RunEnd {
    /// Every task has a result; `results` are in task order.
    Completed {
        results: Vec<ContainerResult>,
        wanted: usize,
    },
    /// [`AM_RUN_LIMIT`] passed first; the results so far.
    TimedOut {
        results: Vec<ContainerResult>,
        wanted: usize,
    },
    /// The RM answered `AM_SHUTDOWN`: the application was killed.
    ShutdownRequested,
    /// The RM refused an allocate outright (an ask above the maximum allocation, for one):
    /// the same asks would be refused again, so the run ends with the results so far.
    Refused {
        results: Vec<ContainerResult>,
        wanted: usize,
        /// The refusal, carrying the RM's status.
        refusal: yarn_client::Error,
    },
}

/// An ApplicationMaster registered with the RM group, and its NodeManager client.
#[derive(Debug)]
pub(crate) struct RegisteredAm {
    pub(crate) am: AmRmClient,
    pub(crate) nm: Arc<NmClient>,
    /// Whether OPPORTUNISTIC containers are promoted to GUARANTEED once started.
    promote_opportunistic: bool,
    /// OPPORTUNISTIC containers being started, to promote once their start succeeded.
    promotable: HashMap<ContainerKey, pb::ContainerProto>,
    /// Containers the RM promoted and their node took the new token for.
    promoted: usize,
}

impl RegisteredAm {
    /// Reads the AMRMToken from the container's token file and registers, with the host the
    /// NodeManager named in `NM_HOST` (empty when unset) and no RPC port or tracking URL.
    ///
    /// # Errors
    ///
    /// Those of [`RmClientConfig::for_application_master`], [`read_amrm_token_from_env`] and
    /// [`AmRmClient::register`].
    pub(crate) async fn register(conf: &Configuration) -> Result<Self, Error> {
        let config = RmClientConfig::for_application_master(conf)?;
        let token = read_amrm_token_from_env()?;
        let host = std::env::var(NM_HOST_ENV).unwrap_or_default();
        Self::register_with(&config, token, &host).await
    }

    /// Registers with `amrm_token` on the replicas of `config`, from `host`.
    ///
    /// # Errors
    ///
    /// Those of [`AmRmClient::register`].
    pub(crate) async fn register_with(
        config: &RmClientConfig,
        amrm_token: pb::TokenProto,
        host: &str,
    ) -> Result<Self, Error> {
        let mut am = AmRmClient::new(config, amrm_token);
        am.register(host, 0, "").await?;
        let nm = Arc::new(NmClient::from_config(config));
        Ok(Self {
            am,
            nm,
            promote_opportunistic: false,
            promotable: HashMap::new(),
            promoted: 0,
        })
    }

    /// Promotes every OPPORTUNISTIC container to GUARANTEED once its task started, as YARN's
    /// distributed shell does with `--promote_opportunistic_after_start`: a
    /// `PROMOTE_EXECUTION_TYPE` update at the container's version, then the RM's new container
    /// token to the node. A refused promotion leaves the task running as it is.
    pub(crate) fn promote_opportunistic_after_start(mut self, promote: bool) -> Self {
        self.promote_opportunistic = promote;
        self
    }

    /// How many containers were promoted and their nodes told so far.
    pub(crate) fn promoted(&self) -> usize {
        self.promoted
    }

    /// Asks for `asks` (one task per container asked for), starts task `n` in its container
    /// with `launch_context(n)`, and returns when every task has ended, when
    /// [`AM_RUN_LIMIT`] passed, or when the RM asked the ApplicationMaster to shut down.
    ///
    /// Heartbeats every [`HEARTBEAT_INTERVAL`] with the share of ended tasks as progress.
    /// Containers start concurrently; a start that fails ends its task with the NodeManager's
    /// message and gives the container back. A task whose container is aborted (lost with its
    /// node) runs again in a container asked for anew. Surplus containers are given back unused. An
    /// allocate the RM refused ([`CallFailed`](yarn_client::Error::CallFailed)) ends the run as
    /// [`RunEnd::Refused`].
    ///
    /// # Errors
    ///
    /// Those of [`AmRmClient::allocate`] (which already fails over and registers again) other
    /// than a refusal: the RM could not be reached, so nothing can be reported to it.
    pub(crate) async fn run_tasks(
        &mut self,
        asks: Vec<pb::ResourceRequestProto>,
        launch_context: impl Fn(usize) -> pb::ContainerLaunchContextProto,
    ) -> Result<RunEnd, Error> {
        let wanted: usize = asks
            .iter()
            .map(|ask| usize::try_from(ask.num_containers).unwrap_or(0))
            .sum();
        for ask in &asks {
            self.am.add_container_request(ask.clone());
        }
        let mut ledger = TaskLedger::new(wanted);
        // The containers the RM last said it will preempt; a change is logged once.
        let mut to_be_preempted = Vec::new();
        let mut starts = JoinSet::new();
        let mut updates = JoinSet::new();
        let deadline = Instant::now() + AM_RUN_LIMIT;
        loop {
            let outcome = match self.am.allocate(ledger.progress()).await {
                Ok(outcome) => outcome,
                // A definitive answer: YARN's distributed shell, too, gives up on its first
                // allocate error, and the refusal is what the operator needs to read.
                Err(refusal @ yarn_client::Error::CallFailed { .. }) => {
                    return Ok(RunEnd::Refused {
                        results: ledger.results(),
                        wanted: ledger.wanted(),
                        refusal,
                    });
                }
                Err(err) => return Err(err.into()),
            };
            if outcome.shutdown_requested {
                return Ok(RunEnd::ShutdownRequested);
            }
            log_preemption(&mut to_be_preempted, outcome.preemption.as_ref());
            for container in outcome.allocated {
                match ledger.place(&container) {
                    Placement::Run(task) => {
                        self.start(&mut starts, container, launch_context(task))
                    }
                    Placement::Release => {
                        if let Some(id) = container.id {
                            tracing::info!(
                                container = %describe_container_id(&id),
                                "releasing a container no task needs"
                            );
                            self.am.release_assigned_container(id);
                        }
                    }
                }
            }
            for status in &outcome.completed {
                if let Some(id) = &status.container_id {
                    self.promotable.remove(&ContainerKey::of(id));
                }
                if let Some(priority) = ledger.completed(status) {
                    self.ask_again(&asks, priority);
                }
            }
            for updated in outcome.updated {
                self.apply_update(&mut updates, updated);
            }
            for error in &outcome.update_errors {
                tracing::warn!(
                    reason = %error.reason,
                    request = ?error.update_request,
                    "the RM refused a container update"
                );
            }
            while let Some(joined) = starts.try_join_next() {
                let (id, result) = joined_task(joined);
                let promotable = self.promotable.remove(&ContainerKey::of(&id));
                let Err(err) = result else {
                    if let Some(container) = promotable {
                        self.am.request_container_update(promotion(&container));
                    }
                    continue;
                };
                tracing::warn!("{err}");
                if ledger.start_failed(&id, err.to_string()) {
                    self.am.release_assigned_container(id);
                }
            }
            while let Some(joined) = updates.try_join_next() {
                match joined_task(joined) {
                    (_, Ok(())) => self.promoted += 1,
                    (id, Err(err)) => tracing::warn!(
                        container = %describe_container_id(&id),
                        "the node did not take the promotion: {err}"
                    ),
                }
            }
            if ledger.is_done() {
                return Ok(RunEnd::Completed {
                    results: ledger.results(),
                    wanted: ledger.wanted(),
                });
            }
            if Instant::now() >= deadline {
                return Ok(RunEnd::TimedOut {
                    results: ledger.results(),
                    wanted: ledger.wanted(),
                });
            }
            tokio::time::sleep(HEARTBEAT_INTERVAL).await;
        }
    }

    /// Asks for one more container like the ask of `priority` (the first ask when none has
    /// it), for a task whose container was aborted.
    fn ask_again(&mut self, asks: &[pb::ResourceRequestProto], priority: i32) {
        let at_priority = asks
            .iter()
            .find(|ask| ask.priority.as_ref().map_or(0, |p| p.priority) == priority);
        if let Some(ask) = at_priority.or(asks.first()) {
            tracing::info!(priority, "asking again for an aborted container's task");
            self.am.add_container_request(pb::ResourceRequestProto {
                num_containers: 1,
                ..ask.clone()
            });
        }
    }

    /// Unregisters after `end`: a completed run with the final status and diagnostics
    /// `report` makes of its results; a timed-out one as FAILED, listing the results so far;
    /// a refused one as FAILED with the RM's refusal first (see [`refused_diagnostics`]), so
    /// that the client prints it rather than the exit code of an ApplicationMaster that gave
    /// up. After `AM_SHUTDOWN` the application is already over, so nothing is sent.
    ///
    /// # Errors
    ///
    /// Those of [`AmRmClient::finish`]; [`Error::AmRunLimitExceeded`] after a timed-out run
    /// was reported; the refusal after a refused run was reported;
    /// [`Error::AmShutdownRequested`] after `AM_SHUTDOWN`.
    pub(crate) async fn finish(
        &mut self,
        end: RunEnd,
        report: impl FnOnce(&[ContainerResult], usize) -> (pb::FinalApplicationStatusProto, String),
    ) -> Result<(), Error> {
        match end {
            RunEnd::Completed { results, wanted } => {
                let (status, diagnostics) = report(&results, wanted);
                self.am
                    .finish(status, &diagnostics, "")
                    .await
                    .map_err(Error::from)
            }
            RunEnd::TimedOut { results, wanted } => {
                let err = Error::AmRunLimitExceeded {
                    ended: results.len(),
                    wanted,
                    limit: AM_RUN_LIMIT,
                };
                let diagnostics = format!("{}\n{err}", format_diagnostics(&results, wanted));
                self.am
                    .finish(pb::FinalApplicationStatusProto::AppFailed, &diagnostics, "")
                    .await?;
                Err(err)
            }
            RunEnd::Refused {
                results,
                wanted,
                refusal,
            } => {
                let diagnostics = refused_diagnostics(&refusal, &results, wanted);
                self.am
                    .finish(pb::FinalApplicationStatusProto::AppFailed, &diagnostics, "")
                    .await?;
                Err(refusal.into())
            }
            RunEnd::ShutdownRequested => Err(Error::AmShutdownRequested),
        }
    }

    /// Hands a container the RM promoted to its node in the background, with the NM token of
    /// its node; other updates are not asked for, so they are only logged.
    fn apply_update(
        &self,
        updates: &mut JoinSet<(pb::ContainerIdProto, Result<(), Error>)>,
        updated: pb::UpdatedContainerProto,
    ) {
        let update_type = updated.update_type();
        let Some(container) = updated.container else {
            tracing::warn!(?update_type, "an updated container without the container");
            return;
        };
        if update_type != pb::ContainerUpdateTypeProto::PromoteExecutionType {
            tracing::info!(
                ?container,
                "ignoring an update this ApplicationMaster never asked for"
            );
            return;
        }
        let id = container.id.unwrap_or_default();
        let token = self.nm_token_for(&container);
        let nm = Arc::clone(&self.nm);
        updates.spawn(async move {
            let result = match token {
                Ok(token) => nm.update_container(&container, &token).await,
                Err(missing) => return (id, Err(missing)),
            };
            (id, result.map_err(Error::from))
        });
    }

    /// Starts `context` in `container` in the background, with the NM token of its node.
    fn start(
        &mut self,
        starts: &mut JoinSet<(pb::ContainerIdProto, Result<(), Error>)>,
        container: pb::ContainerProto,
        context: pb::ContainerLaunchContextProto,
    ) {
        let id = container.id.unwrap_or_default();
        if self.promote_opportunistic
            && container.execution_type() == pb::ExecutionTypeProto::Opportunistic
        {
            self.promotable
                .insert(ContainerKey::of(&id), container.clone());
        }
        let token = self.nm_token_for(&container);
        let nm = Arc::clone(&self.nm);
        starts.spawn(async move {
            let result = match token {
                Ok(token) => nm.start_container(&container, &token, context).await,
                Err(missing) => return (id, Err(missing)),
            };
            (id, result.map_err(Error::from))
        });
    }

    /// The NM token of `container`'s node, or [`Error::NmTokenMissing`] when the RM sent none
    /// for that node.
    fn nm_token_for(&self, container: &pb::ContainerProto) -> Result<pb::TokenProto, Error> {
        container
            .node_id
            .as_ref()
            .and_then(|node| self.am.nm_token(node))
            .ok_or_else(|| Error::NmTokenMissing {
                container_id: describe_container_id(&container.id.unwrap_or_default()),
                node: node_text(container.node_id.as_ref()),
            })
    }
}

/// The final diagnostics of a run the RM ended by refusing an allocate: the refusal, which
/// carries the RM's own message, then the results so far as [`format_diagnostics`] lists them.
fn refused_diagnostics(
    refusal: &yarn_client::Error,
    results: &[ContainerResult],
    wanted: usize,
) -> String {
    format!(
        "The ResourceManager refused the ApplicationMaster's allocate: {refusal}\n{}",
        format_diagnostics(results, wanted)
    )
}

/// The `PROMOTE_EXECUTION_TYPE` update of `container` at its current version.
fn promotion(container: &pb::ContainerProto) -> pb::UpdateContainerRequestProto {
    pb::UpdateContainerRequestProto {
        container_version: Some(container.version),
        container_id: container.id,
        update_type: Some(pb::ContainerUpdateTypeProto::PromoteExecutionType as i32),
        capability: None,
        execution_type: pb::ExecutionTypeProto::Guaranteed as i32,
    }
}

/// A start or update task's outcome; a panic inside it is carried on, since it is a bug here.
fn joined_task(
    joined: Result<(pb::ContainerIdProto, Result<(), Error>), tokio::task::JoinError>,
) -> (pb::ContainerIdProto, Result<(), Error>) {
    match joined {
        Ok(outcome) => outcome,
        // Never aborted while the loop runs, so the only other end is a panic.
        Err(err) => std::panic::resume_unwind(err.into_panic()),
    }
}

/// Logs the containers the RM says it will preempt when they differ from `told` (what it said
/// last), and remembers them. The distributed shell gives nothing back of its own: its tasks
/// are plain commands, so a preempted one ends with the RM's PREEMPTED status.
fn log_preemption(
    told: &mut Vec<pb::ContainerIdProto>,
    message: Option<&pb::PreemptionMessageProto>,
) {
    let doomed = message
        .and_then(|message| message.strict_contract.as_ref())
        .map(|strict| strict.containers.clone())
        .unwrap_or_default();
    if doomed != *told {
        if !doomed.is_empty() {
            let containers: Vec<String> = doomed.iter().map(describe_container_id).collect();
            tracing::info!(
                ?containers,
                "the ResourceManager will preempt these containers unless its queues rebalance first"
            );
        }
        *told = doomed;
    }
}

#[cfg(test)]
mod tests {
    use tonic::Status;

    use super::*;

    #[test]
    fn a_refused_run_reports_the_rms_message_then_the_results_so_far() {
        let refusal = yarn_client::Error::CallFailed {
            rm_id: "rm1".to_owned(),
            address: "rm1:8030".to_owned(),
            attempts: 1,
            status: Box::new(Status::invalid_argument(
                "requested <memory:100000, vCores:1> exceeds the maximum allocation \
                 <memory:8192, vCores:4> of queue root.default",
            )),
        };
        let ended = ContainerResult {
            container_id: "container_1700000000000_0001_01_000002".to_owned(),
            node: "host1:8041".to_owned(),
            execution_type: pb::ExecutionTypeProto::Guaranteed,
            exit_status: 0,
            diagnostics: String::new(),
        };
        assert_eq!(
            refused_diagnostics(&refusal, std::slice::from_ref(&ended), 2),
            "The ResourceManager refused the ApplicationMaster's allocate: call to rm1 at \
             rm1:8030 failed after 1 attempt(s): InvalidArgument: requested <memory:100000, \
             vCores:1> exceeds the maximum allocation <memory:8192, vCores:4> of queue \
             root.default\n\
             container_1700000000000_0001_01_000002 on host1:8041 GUARANTEED exit 0\n\
             1 of 2 containers succeeded"
        );
    }
}
