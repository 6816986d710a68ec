//! `yarn-ha minicluster demo`: a distributed-shell job survives the SIGKILL of the active
//! ResourceManager on a throwaway three-RM, three-NM cluster of real processes.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Context;
use yarn_applications::dshell::{DshellOptions, DshellOutcome, run_client};
use yarn_client::YarnClient;
use yarn_conf::Configuration;
use yarn_nodemanager::executor::Signal;
use yarn_proto::pb;

use crate::RunningCluster;

/// NodeManagers the demo starts.
const NODEMANAGERS: usize = 3;
/// Containers the job runs, each for [`TASK_SECONDS`].
const CONTAINERS: u32 = 6;
/// How long each container sleeps: long enough that the kill lands mid-job.
const TASK_SECONDS: u32 = 4;
/// How long the cluster may take to have every NodeManager registered, and the job to start.
const SETTLE_DEADLINE: Duration = Duration::from_secs(60);
/// How often the demo looks at the cluster while it waits.
const POLL: Duration = Duration::from_millis(100);

/// What the demo saw.
#[derive(Debug, Clone)]
pub struct DemoSummary {
    /// The ResourceManager that was SIGKILLed.
    pub killed: String,
    /// The one that took over.
    pub new_leader: String,
    /// From the SIGKILL until a surviving replica reported ACTIVE.
    pub failover: Duration,
    /// The job.
    pub outcome: DshellOutcome,
    /// Distinct container ids among the job's containers.
    pub distinct_containers: usize,
}

impl DemoSummary {
    /// Whether the job finished SUCCEEDED with every container successful and none repeated.
    pub fn succeeded(&self) -> bool {
        self.outcome.succeeded()
            && self.outcome.containers.len() == CONTAINERS as usize
            && self.distinct_containers == self.outcome.containers.len()
            && self.outcome.containers.iter().all(|c| c.succeeded())
    }
}

/// Runs the demo with the binary `exe` for the daemons and the ApplicationMaster, writing its
/// story to `out`: the cluster in a temporary directory (removed afterwards, daemons stopped
/// whatever happens), a distributed-shell job of [`CONTAINERS`] OPPORTUNISTIC-asked containers,
/// the active RM SIGKILLed once the job runs, the new leader and how long it took, and the job's
/// end.
///
/// # Errors
///
/// When the cluster cannot be laid out or started, does not settle, the leader cannot be
/// signalled, or the job cannot be submitted or followed.
pub async fn run_demo(exe: &Path, out: &mut (impl Write + Send)) -> anyhow::Result<DemoSummary> {
    let dir = tempfile::Builder::new()
        .prefix("yarn-ha-demo-")
        .tempdir()
        .context("creating the demo's temporary directory")?;
    writeln!(
        out,
        "creating a cluster of 3 ResourceManagers and {NODEMANAGERS} NodeManagers with its own \
         PKI in {}",
        dir.path().display()
    )?;
    let mut cluster = RunningCluster::start_with_nodes(dir.path(), exe, NODEMANAGERS).await?;
    let outcome = drive(&mut cluster, exe, out).await;
    let stopped = cluster.stop().await;
    let summary = outcome?;
    stopped.context("stopping the demo cluster")?;
    Ok(summary)
}

async fn drive(
    cluster: &mut RunningCluster,
    exe: &Path,
    out: &mut (impl Write + Send),
) -> anyhow::Result<DemoSummary> {
    let leader = cluster.wait_stable(Duration::from_secs(1)).await?;
    writeln!(out, "active ResourceManager: {leader}")?;
    let conf_dir = cluster.client_conf_dir().to_path_buf();
    let conf = Configuration::load_dir(&conf_dir)
        .with_context(|| format!("loading the client configuration {}", conf_dir.display()))?;
    let yarn = YarnClient::from_conf(&conf)?;
    wait_for(
        &format!("{NODEMANAGERS} NodeManagers to register"),
        || async {
            let nodes = yarn
                .get_cluster_nodes(&[pb::NodeStateProto::NsRunning])
                .await
                .ok()?;
            (nodes.len() >= NODEMANAGERS).then_some(())
        },
    )
    .await?;
    writeln!(out, "{NODEMANAGERS} NodeManagers registered")?;

    let mut options = DshellOptions::new(format!("sleep {TASK_SECONDS}"));
    options.num_containers = CONTAINERS;
    options.container_type = pb::ExecutionTypeProto::Opportunistic;
    // The dshell client runs its own runtime, so it gets a thread of its own, outside this one.
    let job = {
        let (conf_dir, conf, exe) = (conf_dir.clone(), conf.clone(), exe.to_owned());
        std::thread::spawn(move || {
            let mut printed = Vec::new();
            let outcome = run_client(&conf_dir, &conf, &exe, &options, &mut printed);
            (outcome, printed)
        })
    };
    writeln!(
        out,
        "submitted a distributed-shell job: {CONTAINERS} containers of `sleep {TASK_SECONDS}`, \
         asked as OPPORTUNISTIC"
    )?;
    wait_for("the job to run containers", || async {
        let running = yarn
            .get_applications(&yarn_client::ApplicationFilter {
                states: vec![pb::YarnApplicationStateProto::Running],
                ..Default::default()
            })
            .await
            .ok()?;
        let app = running.first()?;
        let attempt = app.current_application_attempt_id?;
        let attempt = yarn_proto::ids::ApplicationAttemptId::try_from(attempt).ok()?;
        let containers = yarn.get_containers(attempt).await.ok()?;
        // The AM and at least one task container.
        (containers.len() >= 2).then_some(())
    })
    .await?;

    let pid = cluster.pid(&leader)?;
    let killed_at = Instant::now();
    Signal::Kill
        .send(pid)
        .with_context(|| format!("sending SIGKILL to {leader} (pid {pid})"))?;
    writeln!(
        out,
        "SIGKILLed the active ResourceManager {leader} (pid {pid}) mid-job"
    )?;
    let new_leader = loop {
        let found = cluster.leader().await?;
        if found.rm_id != leader {
            break found.rm_id;
        }
        anyhow::ensure!(
            killed_at.elapsed() < SETTLE_DEADLINE,
            "no other ResourceManager became active within {SETTLE_DEADLINE:?}"
        );
        tokio::time::sleep(POLL).await;
    };
    let failover = killed_at.elapsed();
    writeln!(
        out,
        "{new_leader} is the new active ResourceManager, {} ms after the kill",
        failover.as_millis()
    )?;

    let (outcome, printed) = tokio::task::spawn_blocking(move || job.join())
        .await
        .context("waiting for the job's client thread")?
        .map_err(|_| anyhow::anyhow!("the job's client thread panicked"))?;
    out.write_all(&printed)?;
    let outcome = outcome?;
    let distinct: BTreeSet<_> = outcome
        .containers
        .iter()
        .map(|c| c.container_id.clone())
        .collect();
    let summary = DemoSummary {
        killed: leader,
        new_leader,
        failover,
        distinct_containers: distinct.len(),
        outcome,
    };
    writeln!(out, "summary:")?;
    writeln!(
        out,
        "  application:        {}",
        summary.outcome.application_id
    )?;
    writeln!(
        out,
        "  final state:        {:?} / {:?}",
        summary.outcome.final_state, summary.outcome.final_status
    )?;
    writeln!(
        out,
        "  containers:         {} of {CONTAINERS} succeeded, {} distinct ids",
        summary
            .outcome
            .containers
            .iter()
            .filter(|c| c.succeeded())
            .count(),
        summary.distinct_containers
    )?;
    writeln!(
        out,
        "  failover:           {} -> {} in {} ms",
        summary.killed,
        summary.new_leader,
        summary.failover.as_millis()
    )?;
    Ok(summary)
}

/// Polls `check` every [`POLL`] until it returns `Some`, for up to [`SETTLE_DEADLINE`].
async fn wait_for<T, F, Fut>(what: &str, mut check: F) -> anyhow::Result<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = Instant::now() + SETTLE_DEADLINE;
    loop {
        if let Some(value) = check().await {
            return Ok(value);
        }
        anyhow::ensure!(
            Instant::now() < deadline,
            "timed out after {SETTLE_DEADLINE:?} waiting for {what}"
        );
        tokio::time::sleep(POLL).await;
    }
}
