//! `yarn-ha bench rest`: latency of the ResourceManager's REST API over a state of many
//! applications and nodes, and what its pages cost the leader's node heartbeats and Raft
//! writes meanwhile.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Context;
use yarn_client::RmClientConfig;
use yarn_conf::{Configuration, RmEndpoints, keys};
use yarn_minicluster::{ClusterManifest, LayoutOptions, NM_HOST, REPLICAS, RunningCluster};
use yarn_proto::pb::resource_tracker_client::ResourceTrackerClient;
use yarn_security::{ChannelOptions, Role};

use crate::app_load::load_apps;
use crate::bench_dir::BenchDir;
use crate::commit_probe::CommitProbe;
use crate::endpoint_load::measure_endpoint;
use crate::failover_trial::STABLE_FOR;
use crate::heartbeat_probe::HeartbeatProbe;
use crate::interrupts::{Interrupted, Interrupts};
use crate::issued_identity::issue_identity;
use crate::leader_probes::LeaderProbes;
use crate::machine::Machine;
use crate::node_registration::{node_id, register_nodes};
use crate::rest_bench_options::RestBenchOptions;
use crate::rest_bench_report::RestBenchReport;
use crate::rest_client::RestClient;
use crate::rest_endpoint::{LoadedState, RestEndpoint};

/// How long the probes call the leader while nothing else runs, for the baseline.
pub const IDLE_PROBE: Duration = Duration::from_secs(3);

/// The user who submits and owns the benchmark's applications. The REST calls are made as
/// the harness user, an administrator who may see every application, so no answer carries
/// what only an owner gets (an unmanaged application's AMRMToken).
pub const SUBMITTER: &str = "bench-submitter";

/// The NodeManager and AM expiry intervals of the benchmark cluster (one hour instead of ten
/// minutes): the simulated nodes and the registered AMs never heartbeat after loading, and must
/// stay RUNNING through the measurements.
const EXPIRY_MS: &str = "3600000";

/// Runs the benchmark described by `options` with `exe`, the `yarn-ha` executable the
/// replicas run as (`<exe> resourcemanager`), and returns its figures. Blocks the calling
/// thread; it runs its own multi-threaded Tokio runtime. Progress is logged with `tracing`.
///
/// The cluster (three ResourceManagers, no NodeManager process) is laid out in
/// `options.dir`, or else in a fresh temporary directory removed at the end unless the
/// benchmark failed other than by a signal (then it is kept for the daemons' logs and the
/// error names it). The daemons are always stopped: at the end, on an error, on SIGINT,
/// SIGTERM or SIGHUP, and on a panic, as for `bench raft`.
///
/// The state is checked against `/ws/v1/cluster/metrics` before and after the measurements,
/// and the leader must not change: figures measured against another state are refused.
///
/// # Errors
///
/// When `options` are invalid (the message names the flag), the cluster cannot be laid out or
/// started, loading fails, an answer does not hold the loaded state, the state or the leader
/// changed during the run, stopping the daemons fails, or a signal interrupted the run.
pub fn rest_bench(options: &RestBenchOptions, exe: &Path) -> anyhow::Result<RestBenchReport> {
    options.validate()?;
    BenchDir::run(
        options.dir.as_deref(),
        "yarn-ha-bench-rest-",
        |base| async move { run(options, &base, exe).await },
    )
}

/// Starts the cluster, measures, and stops the cluster whatever happened.
async fn run(
    options: &RestBenchOptions,
    base_dir: &Path,
    exe: &Path,
) -> anyhow::Result<RestBenchReport> {
    // Installed before any daemon starts, so that from here on these signals stop the daemons
    // instead of killing this process and orphaning them.
    let mut interrupts = Interrupts::install()?;
    let layout = LayoutOptions {
        proxied: false,
        site: [
            keys::RM_NM_EXPIRY_INTERVAL_MS,
            keys::RM_AM_EXPIRY_INTERVAL_MS,
        ]
        .iter()
        .map(|key| (key.name.to_string(), EXPIRY_MS.to_owned()))
        .collect(),
    };
    let mut cluster = RunningCluster::start_with_layout(base_dir, exe, 0, &layout).await?;
    tracing::info!(
        "started {REPLICAS} ResourceManagers in {}",
        base_dir.display()
    );
    let measured = tokio::select! {
        measured = measure(&mut cluster, base_dir, options) => measured,
        signal = interrupts.recv() => Err(Interrupted { signal }.into()),
    };
    let stopped = cluster.stop().await;
    let report = measured?;
    stopped.context("stopping the ResourceManagers after the benchmark")?;
    Ok(report)
}

async fn measure(
    cluster: &mut RunningCluster,
    base_dir: &Path,
    options: &RestBenchOptions,
) -> anyhow::Result<RestBenchReport> {
    let leader = cluster.wait_stable(STABLE_FOR).await?;
    let pki_dir = ClusterManifest::read(base_dir)?.pki_dir;
    let conf = Configuration::load_dir(cluster.client_conf_dir())?;
    let harness = RmClientConfig::from_conf(&conf).context("the harness user's client")?;
    let on_leader: RmEndpoints = harness
        .ha
        .member(&leader)
        .cloned()
        .with_context(|| format!("the client configuration does not name {leader}"))?;

    tracing::info!("{leader} leads; registering {} nodes", options.nodes);
    let nodemanager = issue_identity(&pki_dir, Role::NodeManager, NM_HOST)?;
    let address = on_leader.resource_tracker.to_string();
    let channel = yarn_security::connect(
        &address,
        nodemanager.client_config(),
        &ChannelOptions::default(),
    )
    .await
    .with_context(|| format!("connecting to the resource tracker {address} of {leader}"))?;
    let tracker = ResourceTrackerClient::new(channel);
    let started = Instant::now();
    let keys = register_nodes(&tracker, options.nodes).await?;
    let nodes_load = started.elapsed();

    tracing::info!("loading {} applications", options.apps);
    let submitter = RmClientConfig {
        tls: issue_identity(&pki_dir, Role::User, SUBMITTER)?,
        ..harness.clone()
    };
    let started = Instant::now();
    let apps = load_apps(&submitter, options.apps).await?;
    let apps_load = started.elapsed();
    let state = LoadedState {
        apps: apps.all.len(),
        running: apps.running.len(),
        nodes: options.nodes,
        sample_app: apps
            .running
            .first()
            .context("no application was made RUNNING")?
            .to_string(),
    };

    let web = on_leader.webapp.to_string();
    let mut clients = Vec::with_capacity(options.concurrency);
    for _ in 0..options.concurrency {
        clients.push(RestClient::connect(&web, &harness.tls).await?);
    }
    check_state(&clients[0], &state, "before the measurements").await?;
    let writer = cluster
        .clients(&leader, 1, &ChannelOptions::default())
        .await?
        .pop()
        .context("no client for the write probe")?;
    let mut probes = LeaderProbes {
        heartbeat: HeartbeatProbe::new(tracker, node_id(0), keys),
        commit: CommitProbe::new(writer),
    };
    tracing::info!("loaded; timing heartbeats and writes on an idle leader for {IDLE_PROBE:?}");
    let idle = probes.sample_for(IDLE_PROBE).await.into();
    let mut endpoints = Vec::with_capacity(RestEndpoint::ALL.len());
    for endpoint in RestEndpoint::ALL {
        endpoints.push(
            measure_endpoint(&clients, endpoint, &state, options.requests, &mut probes).await?,
        );
    }
    check_state(&clients[0], &state, "after the measurements").await?;
    let still = cluster.leader().await?.rm_id;
    anyhow::ensure!(
        still == leader,
        "the leadership moved from {leader} to {still} during the run; its figures are not \
         those of one leader"
    );
    Ok(RestBenchReport {
        machine: Machine::detect(),
        replicas: REPLICAS,
        leader,
        state,
        apps_load_secs: apps_load.as_secs_f64(),
        nodes_load_secs: nodes_load.as_secs_f64(),
        requests: options.requests,
        concurrency: options.concurrency,
        idle,
        endpoints,
    })
}

/// Checks the leader's `/ws/v1/cluster/metrics` count `state` exactly; `when` says when, for
/// the error.
async fn check_state(client: &RestClient, state: &LoadedState, when: &str) -> anyhow::Result<()> {
    let path = RestEndpoint::Metrics.path(state);
    let body = client.clone().get_ok(&path).await?;
    RestEndpoint::Metrics
        .check(&body, state)
        .map_err(|why| anyhow::anyhow!("the cluster does not hold the loaded state {when}: {why}"))
}
