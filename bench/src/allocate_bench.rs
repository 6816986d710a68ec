//! `yarn-ha bench allocate`: allocation latency on real clusters for GUARANTEED, distributed
//! OPPORTUNISTIC and centralized OPPORTUNISTIC containers, and the task throughput a stream of
//! short tasks gets at three OPPORTUNISTIC shares in a simulation driven by the real cores.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use tokio::time::Instant;
use yarn_applications::dshell::{CONF_DIR_ENV, launch_word};
use yarn_client::YarnClient;
use yarn_conf::Configuration;
use yarn_minicluster::{LayoutOptions, REPLICAS, RunningCluster};
use yarn_proto::ids::ApplicationId;
use yarn_proto::pb;

use crate::allocate_am::{AllocateAmSamples, CONTAINER_MB, ROUND_LIMIT, ROUND_PAUSE};
use crate::allocate_am_options::AllocateAmOptions;
use crate::allocate_bench_options::AllocateBenchOptions;
use crate::allocate_bench_report::{
    AllocateBenchReport, AllocationLatency, MERCURY_GAIN_PERCENT, OPPORTUNISTIC_SHARES,
    OpportunisticCounterGrowth, ThroughputResult,
};
use crate::allocation_path::AllocationPath;
use crate::bench_dir::BenchDir;
use crate::interrupts::{Interrupted, Interrupts};
use crate::machine::Machine;
use crate::task_stream_sim::{
    SLOT_MB, SLOTS_PER_NODE, TASK_MS, TaskStreamShape, WARMUP_SECONDS, simulate_task_stream,
};

/// The name of the applications whose ApplicationMasters measure.
pub const APPLICATION_NAME: &str = "yarn-ha bench allocate";

/// How long the NodeManagers of a new cluster may take to register.
const NODES_WAIT: Duration = Duration::from_secs(60);

/// How often the RM is asked while waiting for nodes or an application.
const POLL: Duration = Duration::from_millis(200);

/// How many runs one path gets when leadership keeps changing under it.
const PATH_ATTEMPTS: usize = 3;

/// Runs the benchmark described by `options` with `exe`, the `yarn-ha` executable the
/// daemons and the ApplicationMasters run as, and returns its figures. Blocks the calling
/// thread; the latency part runs on its own multi-threaded Tokio runtime. Progress is logged
/// with `tracing`.
///
/// Latency: a cluster of [`REPLICAS`] ResourceManagers and `options.nodes` NodeManagers laid
/// out as the minicluster does (AMRMProxy and distributed scheduling on) measures GUARANTEED
/// and distributed OPPORTUNISTIC allocation, each with its own ApplicationMaster
/// (`<exe> bench allocate-am`, see [`run_allocate_am`](super::run_allocate_am)); a second
/// cluster with both turned off measures GUARANTEED (with no proxy in between) and
/// centralized OPPORTUNISTIC allocation. The leader's
/// OPPORTUNISTIC counters must confirm each path, else the run fails. Those counters are soft
/// state that a new leader starts at zero, so a path whose run saw a change of leader is
/// measured again, up to [`PATH_ATTEMPTS`] runs in all. Throughput: one
/// simulation per share of [`OPPORTUNISTIC_SHARES`] (see
/// [`TaskStreamSim`](super::TaskStreamSim)).
///
/// The clusters are laid out under `options.dir`, or else in a fresh directory under the
/// system's temporary directory that is removed at the end, unless the benchmark failed
/// (other than by a signal): then it is kept for the logs and the error names it. Daemons are
/// stopped whatever happens, as by [`raft_bench`](super::raft_bench).
///
/// # Errors
///
/// When `options` are invalid (the message names the flag), a cluster cannot be laid out or
/// started, its NodeManagers do not register within a minute, an ApplicationMaster does not
/// end SUCCEEDED (its diagnostics are in the message) or within its time limit, the RM's
/// counters contradict the path measured, a signal interrupted the run, or the simulation
/// fails.
pub fn allocate_bench(
    options: &AllocateBenchOptions,
    exe: &Path,
) -> anyhow::Result<AllocateBenchReport> {
    options.validate()?;
    let latency = BenchDir::run(
        options.dir.as_deref(),
        "yarn-ha-bench-allocate-",
        |base| async move { measure_latency(options, &base, exe).await },
    )?;
    let mut runs = Vec::with_capacity(OPPORTUNISTIC_SHARES.len());
    for opportunistic_percent in OPPORTUNISTIC_SHARES {
        tracing::info!(
            "simulating {} s of 1-second tasks on {} NodeManagers, {opportunistic_percent}% \
             OPPORTUNISTIC",
            options.sim_seconds,
            options.sim_nodes
        );
        runs.push(simulate_task_stream(TaskStreamShape {
            nodes: options.sim_nodes,
            seconds: options.sim_seconds,
            opportunistic_percent,
        })?);
    }
    Ok(AllocateBenchReport {
        machine: Machine::detect(),
        replicas: REPLICAS,
        nodes: options.nodes,
        rounds: options.rounds,
        containers: options.containers,
        latency,
        throughput: ThroughputResult {
            nodes: options.sim_nodes,
            slots_per_node: SLOTS_PER_NODE,
            slot_mb: SLOT_MB,
            task_ms: TASK_MS,
            seconds: options.sim_seconds,
            warmup_seconds: WARMUP_SECONDS,
            runs,
            mercury_gain_percent: MERCURY_GAIN_PERCENT,
        },
    })
}

/// Runs both clusters in turn, each stopped whatever happened, and measures their paths.
async fn measure_latency(
    options: &AllocateBenchOptions,
    base_dir: &Path,
    exe: &Path,
) -> anyhow::Result<Vec<AllocationLatency>> {
    // Installed before any daemon starts, so that from here on these signals stop the daemons
    // instead of killing this process and orphaning them.
    let mut interrupts = Interrupts::install()?;
    let mut measured = Vec::with_capacity(AllocationPath::ALL.len());
    for proxied in [true, false] {
        let paths: Vec<AllocationPath> = AllocationPath::ALL
            .into_iter()
            .filter(|path| path.through_amrm_proxy() == proxied)
            .collect();
        let layout = LayoutOptions {
            proxied: false,
            site: paths
                .first()
                .map(|path| path.site_overrides())
                .unwrap_or_default(),
        };
        let cluster_dir = base_dir.join(if proxied {
            "with-amrm-proxy"
        } else {
            "without-amrm-proxy"
        });
        let mut cluster =
            RunningCluster::start_with_layout(&cluster_dir, exe, options.nodes, &layout).await?;
        tracing::info!(
            "started {REPLICAS} ResourceManagers and {} NodeManagers in {}",
            options.nodes,
            cluster_dir.display()
        );
        let outcome = tokio::select! {
            outcome = measure_paths(&mut cluster, &cluster_dir, &paths, options, exe) => outcome,
            signal = interrupts.recv() => Err(Interrupted { signal }.into()),
        };
        let stopped = cluster.stop().await;
        measured.extend(outcome?);
        stopped.with_context(|| format!("stopping the cluster in {}", cluster_dir.display()))?;
    }
    Ok(measured)
}

/// Waits for the cluster's NodeManagers, then runs one ApplicationMaster per path in turn.
async fn measure_paths(
    cluster: &mut RunningCluster,
    cluster_dir: &Path,
    paths: &[AllocationPath],
    options: &AllocateBenchOptions,
    exe: &Path,
) -> anyhow::Result<Vec<AllocationLatency>> {
    // Owned: the cluster is borrowed again, mutably, to find its leader around each run.
    let conf_dir = cluster.client_conf_dir().to_path_buf();
    let conf = Configuration::load_dir(&conf_dir)
        .with_context(|| format!("loading the client configuration {}", conf_dir.display()))?;
    let client = YarnClient::from_conf(&conf)?;
    wait_for_nodes(&client, options.nodes).await?;
    let cluster_dir = std::fs::canonicalize(cluster_dir)
        .with_context(|| format!("resolving {}", cluster_dir.display()))?;
    let mut measured = Vec::with_capacity(paths.len());
    for &path in paths {
        tracing::info!("measuring {path} allocation latency");
        let run = AmRun {
            path,
            exe,
            conf_dir: &conf_dir,
            am: AllocateAmOptions {
                execution_type: path.execution_type(),
                transport: path.transport(),
                rounds: options.rounds,
                containers: options.containers,
                out: samples_file(&cluster_dir, path),
            },
            cluster_dir: &cluster_dir,
        };
        measured.push(measure_under_one_leader(cluster, &client, &run).await?);
    }
    Ok(measured)
}

/// Runs `run` until one run starts and ends under the same leader in the same term, and checks
/// the counters of that run: they are the leader's soft state, so a run that spans a change of
/// leader says nothing about its path.
async fn measure_under_one_leader(
    cluster: &mut RunningCluster,
    client: &YarnClient,
    run: &AmRun<'_>,
) -> anyhow::Result<AllocationLatency> {
    for attempt in 1..=PATH_ATTEMPTS {
        let before = cluster.leader().await?;
        let latency = run.measure(client).await?;
        let after = cluster.leader().await?;
        if before == after {
            let wanted = run.wanted();
            anyhow::ensure!(
                latency.path_confirmed(wanted),
                "the leader's OPPORTUNISTIC counters do not match the {} path for {wanted} \
                 containers: {:?}",
                run.path,
                latency.counters
            );
            return Ok(latency);
        }
        tracing::warn!(
            "leadership moved from {} (term {}) to {} (term {}) during run {attempt} of the {} \
             path; its counters restarted, so the path is measured again",
            before.rm_id,
            before.term,
            after.rm_id,
            after.term,
            run.path
        );
    }
    anyhow::bail!(
        "leadership changed during each of {PATH_ATTEMPTS} runs of the {} path, so the \
         leader's counters could not confirm it; see the logs in {}",
        run.path,
        run.cluster_dir.display()
    )
}

/// Polls until `nodes` NodeManagers are RUNNING, for up to [`NODES_WAIT`].
async fn wait_for_nodes(client: &YarnClient, nodes: usize) -> anyhow::Result<()> {
    let deadline = Instant::now() + NODES_WAIT;
    loop {
        let running = client
            .get_cluster_nodes(&[pb::NodeStateProto::NsRunning])
            .await
            .map(|reports| reports.len());
        if running.as_ref().is_ok_and(|&count| count >= nodes) {
            return Ok(());
        }
        anyhow::ensure!(
            Instant::now() < deadline,
            "{} of {nodes} NodeManagers RUNNING after {NODES_WAIT:?} ({})",
            running.as_ref().map_or(0, |count| *count),
            running.err().map_or_else(
                || "the others never registered".to_owned(),
                |err| format!("last error: {err}")
            )
        );
        tokio::time::sleep(POLL).await;
    }
}

/// One ApplicationMaster run measuring one path.
struct AmRun<'a> {
    path: AllocationPath,
    exe: &'a Path,
    conf_dir: &'a Path,
    am: AllocateAmOptions,
    cluster_dir: &'a Path,
}

impl AmRun<'_> {
    /// Submits the ApplicationMaster, waits for it to end SUCCEEDED, and reads its samples and
    /// how the serving leader's counters grew meanwhile.
    async fn measure(&self, client: &YarnClient) -> anyhow::Result<AllocationLatency> {
        let before = client.get_cluster_metrics().await?;
        let id = client.get_new_application().await?.application_id;
        client.submit_application(self.context(id)?).await?;
        let deadline = Instant::now() + self.time_limit();
        let report = match client.wait_for_final_report(id, POLL, deadline).await {
            Ok(report) => report,
            Err(err) => {
                // Best effort: a kill that fails leaves the application to the cluster's stop.
                let _ = client.kill_application(id).await;
                return Err(err).with_context(|| self.logs_hint(id));
            }
        };
        let status = report.final_application_status();
        anyhow::ensure!(
            report.yarn_application_state() == pb::YarnApplicationStateProto::Finished
                && status == pb::FinalApplicationStatusProto::AppSucceeded,
            "the {} ApplicationMaster of {id} ended {} with final status {}: {}; {}",
            self.path,
            report.yarn_application_state().as_str_name(),
            status.as_str_name(),
            report.diagnostics.trim(),
            self.logs_hint(id)
        );
        let text = std::fs::read_to_string(&self.am.out)
            .with_context(|| format!("reading the samples {}", self.am.out.display()))?;
        let samples: AllocateAmSamples = serde_json::from_str(&text)
            .with_context(|| format!("parsing the samples {}", self.am.out.display()))?;
        let after = client.get_cluster_metrics().await?;
        let latency = AllocationLatency::new(
            self.path,
            id.to_string(),
            samples.warmup_ms,
            samples.samples_ms,
            OpportunisticCounterGrowth {
                requested_centrally: after.num_opportunistic_containers_requested_centrally
                    - before.num_opportunistic_containers_requested_centrally,
                allocated_centrally: after.num_opportunistic_containers_allocated_centrally
                    - before.num_opportunistic_containers_allocated_centrally,
                allocated_distributed: after.num_opportunistic_containers_allocated_distributed
                    - before.num_opportunistic_containers_allocated_distributed,
            },
        );
        Ok(latency)
    }

    /// How many containers the ApplicationMaster allocates in all.
    fn wanted(&self) -> i64 {
        i64::try_from(self.am.rounds)
            .unwrap_or(i64::MAX)
            .saturating_mul(i64::from(self.am.containers))
    }

    /// The longest the ApplicationMaster may take: every round at its limit, plus a minute to
    /// launch and finish.
    fn time_limit(&self) -> Duration {
        let rounds = u32::try_from(self.am.rounds + 1).unwrap_or(u32::MAX);
        (ROUND_LIMIT + ROUND_PAUSE).saturating_mul(rounds) + Duration::from_secs(60)
    }

    /// Where the ApplicationMaster of `id` left its output.
    fn logs_hint(&self, id: ApplicationId) -> String {
        format!(
            "its output is in {}/nm*/container-logs/{id}/*/AppMaster.stderr",
            self.cluster_dir.display()
        )
    }

    /// The submission of application `id`, whose AM container runs
    /// `<exe> --conf-dir <conf> bench allocate-am ...` with its output in the container's log
    /// directory.
    fn context(&self, id: ApplicationId) -> anyhow::Result<pb::ApplicationSubmissionContextProto> {
        let text = |what: &str, path: &Path| {
            path.to_str()
                .map(str::to_owned)
                .with_context(|| format!("the {what} {} is not UTF-8", path.display()))
        };
        let exe = text("yarn-ha executable", self.exe)?;
        let conf_dir = text("configuration directory", self.conf_dir)?;
        text("samples file", &self.am.out)?;
        let mut words = vec![exe, "--conf-dir".to_owned(), conf_dir.clone()];
        words.extend(self.am.to_args());
        let command = format!(
            "{} 1><LOG_DIR>/AppMaster.stdout 2><LOG_DIR>/AppMaster.stderr",
            words
                .iter()
                .map(|word| launch_word(word))
                .collect::<Vec<_>>()
                .join(" ")
        );
        Ok(pb::ApplicationSubmissionContextProto {
            application_id: Some(id.into()),
            application_name: Some(APPLICATION_NAME.to_owned()),
            queue: Some("default".to_owned()),
            am_container_spec: Some(pb::ContainerLaunchContextProto {
                environment: [(CONF_DIR_ENV.to_owned(), conf_dir)].into(),
                commands: vec![command],
                ..Default::default()
            }),
            resource: Some(pb::ResourceProto {
                memory: CONTAINER_MB,
                virtual_cores: 1,
                ..Default::default()
            }),
            application_type: Some("YARN".to_owned()),
            ..Default::default()
        })
    }
}

/// The file the ApplicationMaster measuring `path` writes its samples to.
fn samples_file(cluster_dir: &Path, path: AllocationPath) -> PathBuf {
    cluster_dir.join(format!("allocate-{}.json", path.slug()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AmrmTransport, AskedExecutionType};

    #[test]
    fn the_am_command_runs_the_bench_subcommand_with_every_word_quoted() {
        let dir = Path::new("/tmp/bench dir");
        let run = AmRun {
            path: AllocationPath::CentralizedOpportunistic,
            exe: Path::new("/opt/yarn-ha"),
            conf_dir: Path::new("/tmp/bench dir/client/conf"),
            am: AllocateAmOptions {
                execution_type: AskedExecutionType::Opportunistic,
                transport: AmrmTransport::Grpc,
                rounds: 2,
                containers: 3,
                out: samples_file(dir, AllocationPath::CentralizedOpportunistic),
            },
            cluster_dir: dir,
        };
        let id = ApplicationId::new(1_700_000_000_000, 7);
        let context = run.context(id).unwrap();
        let spec = context.am_container_spec.unwrap();
        assert_eq!(
            spec.commands,
            [
                "'/opt/yarn-ha' '--conf-dir' '/tmp/bench dir/client/conf' 'bench' 'allocate-am' \
              '--mode' 'opportunistic' '--transport' 'grpc' '--rounds' '2' '--containers' '3' \
              '--out' \
              '/tmp/bench dir/allocate-opportunistic-centralized.json' \
              1><LOG_DIR>/AppMaster.stdout 2><LOG_DIR>/AppMaster.stderr"
            ]
        );
        assert_eq!(spec.environment[CONF_DIR_ENV], "/tmp/bench dir/client/conf");
        assert_eq!(context.application_id, Some(id.into()));
        assert_eq!(context.queue.as_deref(), Some("default"));
        let resource = context.resource.unwrap();
        assert_eq!((resource.memory, resource.virtual_cores), (1024, 1));
        assert!(run.time_limit() > Duration::from_secs(3 * 61));
    }
}
