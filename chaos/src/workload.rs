//! [`Workload`]: what clients do to the cluster while faults happen, every call recorded in the
//! history.
//!
//! ```text
//!  job-1..N:   GetNewApplication ─▶ SubmitApplication (retried with the same id until
//!              acknowledged) ─▶ poll the report every 0.5 s, GetContainers of the attempt
//!              every second, until FINISHED/FAILED/KILLED ─▶ next job
//!  refresher:  RefreshQueues every ~5 s
//!  reader:     GetClusterMetrics, GetClusterNodes, GetClusterMembership in turn every ~2 s
//!  token-probe: an unmanaged ApplicationMaster presenting tokens held across faults (see
//!              the token_probe module)
//! ```
//!
//! Every client goes through the network faults (the proxies, or the kernel's filter in the
//! netns mode) with failover (leader hints, backoff), as users' clients would.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use yarn_client::rmadmin::RmAdmin;
use yarn_client::{RmClientConfig, YarnClient, is_final_application_state};
use yarn_conf::Configuration;
use yarn_minicluster::SplitMix64;
use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, NodeId};
use yarn_proto::pb;

use crate::dshell_job::DshellJob;
use crate::history::{HistoryRecorder, OperationKind, OperationResult, Outcome, RmContainer};
use crate::token_probe;

/// The pause after a failed call before a job tries again.
const RETRY_PAUSE: Duration = Duration::from_millis(500);

/// How many times a job submits its application before it gives up on it.
const SUBMIT_ATTEMPTS: u32 = 20;

/// How often a job polls its application's report.
const REPORT_POLL: Duration = Duration::from_millis(500);

/// Every how many report polls a job lists its attempt's containers.
const LIST_EVERY: u32 = 2;

/// The mean pause between queue refreshes; each pause is drawn from half to one and a half
/// times it.
const REFRESH_EVERY: Duration = Duration::from_secs(5);

/// The mean pause between two admin or cluster reads.
const READ_EVERY: Duration = Duration::from_secs(2);

/// The running workload. [`stop`](Self::stop) lets jobs finish their application but start no
/// new one; [`abort`](Self::abort) ends everything at once. Dropping it aborts every task.
#[derive(Debug)]
pub struct Workload {
    stopping: CancellationToken,
    tasks: JoinSet<()>,
}

/// What the workload's tasks share.
pub(super) struct Shared {
    pub(super) client: YarnClient,
    admin: RmAdmin,
    exe: PathBuf,
    conf_dir: PathBuf,
    pub(super) recorder: HistoryRecorder,
    pub(super) stopping: CancellationToken,
}

impl Workload {
    /// Starts `jobs` job loops, the queue refresher, the reader and the token probe, with
    /// clients configured
    /// from `conf_dir`, recording into `recorder`; every random choice comes from `rng`.
    /// ApplicationMasters run `exe` (absolute).
    ///
    /// # Errors
    ///
    /// When the client configuration cannot be loaded.
    pub fn start(
        conf_dir: &Path,
        exe: &Path,
        jobs: usize,
        recorder: HistoryRecorder,
        mut rng: SplitMix64,
    ) -> anyhow::Result<Self> {
        let conf = Configuration::load_dir(conf_dir)
            .with_context(|| format!("loading the client configuration {}", conf_dir.display()))?;
        let stopping = CancellationToken::new();
        let rm = RmClientConfig::from_conf(&conf).context("configuring the token probe")?;
        let shared = Arc::new(Shared {
            client: YarnClient::from_conf(&conf).context("configuring the workload's client")?,
            admin: RmAdmin::from_conf(&conf).context("configuring the workload's admin client")?,
            exe: exe.to_owned(),
            conf_dir: conf_dir.to_owned(),
            recorder,
            stopping: stopping.clone(),
        });
        let mut tasks = JoinSet::new();
        for job in 1..=jobs {
            let (shared, rng) = (Arc::clone(&shared), rng.fork());
            tasks.spawn(job_loop(shared, format!("job-{job}"), rng));
        }
        tasks.spawn(refresher(Arc::clone(&shared), rng.fork()));
        tasks.spawn(token_probe::run(Arc::clone(&shared), rm));
        tasks.spawn(reader(shared, rng.fork()));
        Ok(Self { stopping, tasks })
    }

    /// Starts no new application; jobs follow theirs to a final state.
    pub fn stop(&self) {
        self.stopping.cancel();
    }

    /// Waits up to `deadline` for every job to end, then aborts what is left. Returns whether
    /// everything ended in time.
    pub async fn finish(mut self, deadline: Duration) -> bool {
        self.stop();
        let drained = tokio::time::timeout(deadline, async {
            while self.tasks.join_next().await.is_some() {}
        })
        .await
        .is_ok();
        self.abort();
        drained
    }

    /// Ends every task at once.
    pub fn abort(&mut self) {
        self.tasks.abort_all();
    }
}

/// Runs jobs one after the other until the workload stops.
async fn job_loop(shared: Arc<Shared>, name: String, mut rng: SplitMix64) {
    let mut count = 0_u32;
    while !shared.stopping.is_cancelled() {
        count += 1;
        let job = DshellJob::draw(&mut rng, &format!("chaos-{name}-{count}"));
        run_job(&shared, &name, &job).await;
    }
}

/// One job: a new id, the submission until acknowledged, then the application until it ends.
async fn run_job(shared: &Shared, process: &str, job: &DshellJob) {
    let Some(id) = new_application(shared, process).await else {
        return;
    };
    let context = job.context(id, &shared.exe, &shared.conf_dir);
    if !submit(shared, process, context).await {
        return;
    }
    await_final_state(shared, process, id).await;
}

/// Asks for a new application id until one comes; `None` once the workload stops.
pub(super) async fn new_application(shared: &Shared, process: &str) -> Option<ApplicationId> {
    loop {
        if shared.stopping.is_cancelled() {
            return None;
        }
        let pending = shared
            .recorder
            .invoke(process, OperationKind::GetNewApplication);
        match shared.client.get_new_application().await {
            Ok(new) => {
                let id = new.application_id;
                shared.recorder.complete(
                    pending,
                    Outcome::Ok {
                        result: OperationResult::Application {
                            application_id: id.to_string(),
                        },
                    },
                );
                return Some(id);
            }
            Err(err) => {
                shared.recorder.complete(pending, failed(&err));
                tokio::time::sleep(RETRY_PAUSE).await;
            }
        }
    }
}

/// Submits `context` until acknowledged: every retry carries the same application id, which the
/// RM deduplicates. Returns whether the submission was acknowledged.
pub(super) async fn submit(
    shared: &Shared,
    process: &str,
    context: pb::ApplicationSubmissionContextProto,
) -> bool {
    let id = context
        .application_id
        .and_then(|id| ApplicationId::try_from(id).ok())
        .map_or_else(String::new, |id| id.to_string());
    for _ in 0..SUBMIT_ATTEMPTS {
        let pending = shared.recorder.invoke(
            process,
            OperationKind::SubmitApplication {
                application_id: id.clone(),
            },
        );
        match shared.client.submit_application(context.clone()).await {
            Ok(()) => {
                shared.recorder.complete(
                    pending,
                    Outcome::Ok {
                        result: OperationResult::Done,
                    },
                );
                return true;
            }
            Err(err) => {
                shared.recorder.complete(pending, failed(&err));
                tokio::time::sleep(RETRY_PAUSE).await;
            }
        }
    }
    false
}

/// Polls the application until it ends, listing its attempt's containers as it goes; records
/// the wait as one operation completed by the final report. Cancelled with the task otherwise.
async fn await_final_state(shared: &Shared, process: &str, id: ApplicationId) {
    let pending = shared.recorder.invoke(
        process,
        OperationKind::AwaitFinalState {
            application_id: id.to_string(),
        },
    );
    let mut polls = 0_u32;
    loop {
        tokio::time::sleep(REPORT_POLL).await;
        polls += 1;
        let Ok(report) = shared.client.get_application_report(id).await else {
            continue;
        };
        let attempt = report
            .current_application_attempt_id
            .and_then(|attempt| ApplicationAttemptId::try_from(attempt).ok());
        if is_final_application_state(report.yarn_application_state()) {
            shared.recorder.complete(
                pending,
                Outcome::Ok {
                    result: OperationResult::FinalState {
                        state: state_name(report.yarn_application_state()),
                        final_status: final_status_name(report.final_application_status()),
                        attempt: attempt.map_or(0, |attempt| attempt.attempt_id),
                    },
                },
            );
            return;
        }
        if let Some(attempt) = attempt
            && polls % LIST_EVERY == 0
        {
            list_containers(shared, process, attempt).await;
        }
    }
}

async fn list_containers(shared: &Shared, process: &str, attempt: ApplicationAttemptId) {
    let pending = shared.recorder.invoke(
        process,
        OperationKind::ListContainers {
            application_id: attempt.application_id.to_string(),
            attempt: attempt.attempt_id,
        },
    );
    let outcome = match shared.client.get_containers(attempt).await {
        Ok(reports) => Outcome::Ok {
            result: OperationResult::Containers {
                containers: reports.iter().filter_map(rm_container).collect(),
            },
        },
        Err(err) => failed(&err),
    };
    shared.recorder.complete(pending, outcome);
}

fn rm_container(report: &pb::ContainerReportProto) -> Option<RmContainer> {
    let id = yarn_proto::ids::ContainerId::try_from(report.container_id?).ok()?;
    let node = NodeId::try_from(report.node_id.clone()?).ok()?;
    let resource = report.resource.clone().unwrap_or_default();
    Some(RmContainer {
        id: id.to_string(),
        node_id: node.to_string(),
        state: yarn_client::application_cli::container_state_name(report.container_state())
            .to_owned(),
        memory_mb: u64::try_from(resource.memory).unwrap_or(0),
        vcores: u64::try_from(resource.virtual_cores).unwrap_or(0),
    })
}

/// Refreshes the queues (with unchanged files: a retry-safe no-op commit) now and then.
async fn refresher(shared: Arc<Shared>, mut rng: SplitMix64) {
    while !shared.stopping.is_cancelled() {
        tokio::time::sleep(jittered(&mut rng, REFRESH_EVERY)).await;
        let pending = shared
            .recorder
            .invoke("refresher", OperationKind::RefreshQueues);
        let outcome = match shared.admin.refresh_queues().await {
            Ok(reply) => Outcome::Ok {
                result: OperationResult::Count {
                    count: reply.queue_config_version,
                },
            },
            Err(err) => failed(&err),
        };
        shared.recorder.complete(pending, outcome);
    }
}

/// Reads cluster metrics, nodes and the Raft membership in turn, now and then.
async fn reader(shared: Arc<Shared>, mut rng: SplitMix64) {
    let mut turn = 0_u32;
    while !shared.stopping.is_cancelled() {
        tokio::time::sleep(jittered(&mut rng, READ_EVERY)).await;
        turn = turn.wrapping_add(1);
        let count = |count: usize| Outcome::Ok {
            result: OperationResult::Count {
                count: u64::try_from(count).unwrap_or(u64::MAX),
            },
        };
        let (kind, outcome) = match turn % 3 {
            0 => {
                let pending = shared
                    .recorder
                    .invoke("reader", OperationKind::GetClusterMetrics);
                let outcome = match shared.client.get_cluster_metrics().await {
                    Ok(metrics) => count(usize::try_from(metrics.num_node_managers).unwrap_or(0)),
                    Err(err) => failed(&err),
                };
                (pending, outcome)
            }
            1 => {
                let pending = shared
                    .recorder
                    .invoke("reader", OperationKind::GetClusterNodes);
                let outcome = match shared.client.get_cluster_nodes(&[]).await {
                    Ok(nodes) => count(nodes.len()),
                    Err(err) => failed(&err),
                };
                (pending, outcome)
            }
            _ => {
                let pending = shared
                    .recorder
                    .invoke("reader", OperationKind::GetClusterMembership);
                let outcome = match shared.admin.cluster_membership().await {
                    Ok(membership) => count(membership.members.len()),
                    Err(err) => failed(&err),
                };
                (pending, outcome)
            }
        };
        shared.recorder.complete(kind, outcome);
    }
}

/// A pause of `mean`, drawn between half and one and a half times it.
fn jittered(rng: &mut SplitMix64, mean: Duration) -> Duration {
    let mean = u64::try_from(mean.as_millis()).unwrap_or(u64::MAX);
    Duration::from_millis(rng.between(mean / 2, mean + mean / 2))
}

/// A failed call as the history records it.
pub(super) fn failed(err: &yarn_client::Error) -> Outcome {
    Outcome::Failed {
        error: err.to_string(),
    }
}

/// YARN's name of an application state (`FINISHED`).
pub fn state_name(state: pb::YarnApplicationStateProto) -> String {
    yarn_client::application_cli::application_state_name(state).to_owned()
}

/// YARN's name of a final status (`SUCCEEDED`).
pub fn final_status_name(status: pb::FinalApplicationStatusProto) -> String {
    yarn_client::application_cli::final_status_name(status).to_owned()
}
