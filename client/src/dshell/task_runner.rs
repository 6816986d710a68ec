//! The ApplicationMaster side shared by the sample applications: registering, then getting one
//! container per task, starting the tasks and collecting their ends, with a [`TaskLedger`]
//! deciding and this loop doing the I/O.

use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinSet;
use tokio::time::Instant;
use yarn_conf::Configuration;
use yarn_proto::pb;

use super::container_result::{ContainerResult, format_diagnostics};
use super::task_ledger::{Placement, TaskLedger, node_text};
use crate::container_key::describe_container_id;
use crate::{AmRmClient, Error, NmClient, RmClientConfig, read_amrm_token_from_env};

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
}

/// An ApplicationMaster registered with the RM group, and its NodeManager client.
#[derive(Debug)]
pub(crate) struct RegisteredAm {
    pub(crate) am: AmRmClient,
    pub(crate) nm: Arc<NmClient>,
}

impl RegisteredAm {
    /// Reads the AMRMToken from the container's token file and registers, with the host the
    /// NodeManager named in `NM_HOST` (empty when unset) and no RPC port or tracking URL.
    ///
    /// # Errors
    ///
    /// Those of [`RmClientConfig::from_conf`], [`read_amrm_token_from_env`] and
    /// [`AmRmClient::register`].
    pub(crate) async fn register(conf: &Configuration) -> Result<Self, Error> {
        let config = RmClientConfig::from_conf(conf)?;
        let token = read_amrm_token_from_env()?;
        let mut am = AmRmClient::new(&config, token);
        let host = std::env::var(NM_HOST_ENV).unwrap_or_default();
        am.register(&host, 0, "").await?;
        let nm = Arc::new(NmClient::from_config(&config));
        Ok(Self { am, nm })
    }

    /// Asks for `asks` (one task per container asked for), starts task `n` in its container
    /// with `launch_context(n)`, and returns when every task has ended, when
    /// [`AM_RUN_LIMIT`] passed, or when the RM asked the ApplicationMaster to shut down.
    ///
    /// Heartbeats every [`HEARTBEAT_INTERVAL`] with the share of ended tasks as progress.
    /// Containers start concurrently; a start that fails ends its task with the NodeManager's
    /// message and gives the container back. Surplus containers are given back unused.
    ///
    /// # Errors
    ///
    /// Those of [`AmRmClient::allocate`] (which already fails over and registers again).
    pub(crate) async fn run_tasks(
        &mut self,
        asks: Vec<pb::ResourceRequestProto>,
        launch_context: impl Fn(usize) -> pb::ContainerLaunchContextProto,
    ) -> Result<RunEnd, Error> {
        let wanted: usize = asks
            .iter()
            .map(|ask| usize::try_from(ask.num_containers).unwrap_or(0))
            .sum();
        for ask in asks {
            self.am.add_container_request(ask);
        }
        let mut ledger = TaskLedger::new(wanted);
        let mut starts = JoinSet::new();
        let deadline = Instant::now() + AM_RUN_LIMIT;
        loop {
            let outcome = self.am.allocate(ledger.progress()).await?;
            if outcome.shutdown_requested {
                return Ok(RunEnd::ShutdownRequested);
            }
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
                ledger.completed(status);
            }
            while let Some(joined) = starts.try_join_next() {
                let (id, result) = joined_start(joined);
                let Err(err) = result else {
                    continue;
                };
                tracing::warn!("{err}");
                if ledger.start_failed(&id, err.to_string()) {
                    self.am.release_assigned_container(id);
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

    /// Unregisters after `end`: a completed run with the final status and diagnostics
    /// `report` makes of its results; a timed-out one as FAILED, listing the results so far.
    /// After `AM_SHUTDOWN` the application is already over, so nothing is sent.
    ///
    /// # Errors
    ///
    /// Those of [`AmRmClient::finish`]; [`Error::AmRunLimitExceeded`] after a timed-out run
    /// was reported; [`Error::AmShutdownRequested`] after `AM_SHUTDOWN`.
    pub(crate) async fn finish(
        &mut self,
        end: RunEnd,
        report: impl FnOnce(&[ContainerResult], usize) -> (pb::FinalApplicationStatusProto, String),
    ) -> Result<(), Error> {
        match end {
            RunEnd::Completed { results, wanted } => {
                let (status, diagnostics) = report(&results, wanted);
                self.am.finish(status, &diagnostics, "").await
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
            RunEnd::ShutdownRequested => Err(Error::AmShutdownRequested),
        }
    }

    /// Starts `context` in `container` in the background, with the NM token of its node.
    fn start(
        &self,
        starts: &mut JoinSet<(pb::ContainerIdProto, Result<(), Error>)>,
        container: pb::ContainerProto,
        context: pb::ContainerLaunchContextProto,
    ) {
        let id = container.id.unwrap_or_default();
        let token = container
            .node_id
            .as_ref()
            .and_then(|node| self.am.nm_token(node));
        let nm = Arc::clone(&self.nm);
        starts.spawn(async move {
            let result = match token {
                Some(token) => nm.start_container(&container, &token, context).await,
                None => Err(Error::NmTokenMissing {
                    container_id: describe_container_id(&id),
                    node: node_text(container.node_id.as_ref()),
                }),
            };
            (id, result)
        });
    }
}

/// A start task's outcome; a panic inside it is carried on, since it is a bug here.
fn joined_start(
    joined: Result<(pb::ContainerIdProto, Result<(), Error>), tokio::task::JoinError>,
) -> (pb::ContainerIdProto, Result<(), Error>) {
    match joined {
        Ok(outcome) => outcome,
        // Never aborted while the loop runs, so the only other end is a panic.
        Err(err) => std::panic::resume_unwind(err.into_panic()),
    }
}
