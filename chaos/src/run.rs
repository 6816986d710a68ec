//! [`run`]: one chaos run, start to report.
//!
//! ```text
//!  ChaosCluster::start (proxied layout, proxies, daemons) ─▶ wait until a leader leads and
//!  every NodeManager runs ─▶ clock starts: observers (leaders, writes, node containers) and
//!  the workload run ─▶ for each scheduled fault: plan against the cluster view, inject, hold,
//!  heal ─▶ duration over: heal everything, wait to settle, let jobs drain, read every
//!  acknowledged application's final report, wait for replicas to agree ─▶ stop observers and
//!  the cluster, scan logs for panics ─▶ failovers, invariants, report (JSON + text)
//! ```

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use tokio::signal::unix::{SignalKind, signal};
use tokio::task::JoinSet;
use tokio::time::{Instant, sleep, sleep_until, timeout};
use tokio_util::sync::CancellationToken;
use tonic::transport::Channel;
use yarn_client::YarnClient;
use yarn_conf::Configuration;
use yarn_minicluster::{LatencySummary, SplitMix64};
use yarn_proto::ids::ApplicationId;
use yarn_proto::pb;
use yarn_proto::pb::resource_manager_administration_protocol_client::ResourceManagerAdministrationProtocolClient;
use yarn_rm_ha::storage::FAILPOINTS_VARIABLE;

use crate::chaos_cluster::ChaosCluster;
use crate::crash_fault;
use crate::disk_mode::DiskMode;
use crate::failover::failovers;
use crate::fault::Fault;
use crate::history::{History, HistoryRecorder};
use crate::https_get::http1_client;
use crate::invariants::{CheckInput, check_all, replicas_settled, seconds};
use crate::kernel_network::enter_private_network;
use crate::leader_observer::observe_leaders;
use crate::log_scan;
use crate::network_mode::NetworkMode;
use crate::node_observer::observe_nodes;
use crate::observations::{
    FinalApplication, FinalReport, Observations, ReplicaDigest, ReplicaStatus, StateDigestAnswer,
};
use crate::options::ChaosOptions;
use crate::report::{ChaosReport, ReportFiles, RunSettings, WorkloadSummary};
use crate::run_clock::RunClock;
use crate::schedule::{FaultSchedule, Pacing, ScheduledFault};
use crate::timeline::{FaultStatus, FaultSteps, TimelineEntry};
use crate::workload::{Workload, final_status_name, state_name};
use crate::write_prober::probe_writes;

/// How long the cluster may take to elect a leader and register every NodeManager, at the
/// start and again after healing.
const SETTLE_DEADLINE: Duration = Duration::from_secs(60);

/// The longest acknowledged applications may take to reach a final state after the drain.
const FINAL_DEADLINE: Duration = Duration::from_secs(60);

/// How long replicas may take to agree on term, leader and applied index after healing.
const CONVERGE_DEADLINE: Duration = Duration::from_secs(30);

/// How long one GetStateDigest may take before the replica counts as unanswered: the replica
/// hashes its whole state to answer.
const DIGEST_DEADLINE: Duration = Duration::from_secs(5);

/// How often readiness and agreement are asked while waiting.
const POLL: Duration = Duration::from_millis(200);

/// Mixed into the seed for the workload's random stream, so the workload's draws never shift
/// the fault schedule's (and the other way round).
const WORKLOAD_STREAM: u64 = 0xA076_1D64_78BD_642F;

/// Runs [`run`] on a runtime of its own (two worker threads, as on a CI machine), blocking.
/// For the netns network mode it first moves this process into a network namespace of its own
/// ([`enter_private_network`]), which it never leaves.
///
/// # Errors
///
/// Those of [`run`], a runtime that cannot be built, and, for the netns mode, a namespace that
/// cannot be entered (not root, or other threads already run).
pub fn run_blocking(
    options: &ChaosOptions,
    exe: &Path,
    out: &mut (impl Write + Send),
) -> anyhow::Result<ChaosReport> {
    if options.network == NetworkMode::Netns {
        enter_private_network()?;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("creating the chaos run's runtime")?;
    runtime.block_on(run(options, exe, out))
}

/// Runs one chaos run with the `yarn-ha` executable `exe` for every daemon and
/// ApplicationMaster, writing progress and then the report's text to `out`, and the report,
/// history and observations as JSON into the run's directory (and the report to
/// `options.report` too). Returns the report; [`ChaosReport::passed`] says whether every
/// invariant held. Every daemon is stopped before it returns, whatever happened.
///
/// # Errors
///
/// When the options are invalid, the run's directory or the cluster cannot be created, the
/// cluster never gets a leader and its NodeManagers (nothing can be checked then), or a file
/// cannot be written. Invariant violations are not errors: they are in the report.
pub async fn run(
    options: &ChaosOptions,
    exe: &Path,
    out: &mut (impl Write + Send),
) -> anyhow::Result<ChaosReport> {
    options.validate().map_err(anyhow::Error::msg)?;
    let started = std::time::Instant::now();
    // Installed before any daemon starts: from here on a Ctrl-C stops the daemons instead of
    // killing this process and orphaning them.
    let signals = shutdown_signals()?;
    tokio::pin!(signals);
    writeln!(
        out,
        "chaos run: seed {} (the same seed gives the same fault schedule)",
        options.seed
    )?;
    let dir = run_dir(options)?;
    let exe = exe
        .canonicalize()
        .with_context(|| format!("finding the yarn-ha executable {}", exe.display()))?;
    let cluster_dir = dir.join("cluster");
    let cluster = tokio::select! {
        started = ChaosCluster::start(
            &cluster_dir, &exe, options.rms, options.nms, &options.daemon_env, options.network,
            options.disks,
        ) => {
            started.context("starting the chaos cluster")?
        }
        signal = &mut signals => anyhow::bail!("interrupted by {signal} while starting the cluster"),
    };
    writeln!(
        out,
        "started {} ResourceManagers and {} NodeManagers {} in {}",
        options.rms,
        options.nms,
        cluster.network().describe(),
        cluster.manifest().base_dir.display()
    )?;
    if let (Some(missing), true) = (
        cluster.network().delay_missing(),
        options.faults.contains(&Fault::SlowNetwork),
    ) {
        writeln!(
            out,
            "{} unavailable, skipped whenever drawn: {missing}",
            Fault::SlowNetwork.name()
        )?;
    }
    let power_losses: Vec<&str> = options
        .faults
        .iter()
        .filter(|fault| fault.is_power_loss())
        .map(|fault| fault.name())
        .collect();
    if options.disks == DiskMode::Real && !power_losses.is_empty() {
        writeln!(
            out,
            "{} unavailable, skipped whenever drawn: the replicas' storage is on real disks \
             (--disks volatile puts it on volatile ones, as root with /dev/fuse)",
            power_losses.join(" and ")
        )?;
    }
    let daemon_failpoints = options
        .daemon_env
        .get(FAILPOINTS_VARIABLE)
        .cloned()
        .or_else(|| std::env::var(FAILPOINTS_VARIABLE).ok())
        .filter(|value| !value.trim().is_empty());
    if let Some(failpoints) = &daemon_failpoints {
        writeln!(
            out,
            "every daemon runs with {FAILPOINTS_VARIABLE}={failpoints}"
        )?;
    }
    let disk_faults: Vec<&str> = options
        .faults
        .iter()
        .filter(|fault| matches!(fault, Fault::StallDisk | Fault::FillDisk))
        .map(|fault| fault.name())
        .collect();
    if let (Some(missing), false) = (cluster.failpoints_missing(), disk_faults.is_empty()) {
        writeln!(
            out,
            "{} unavailable, skipped whenever drawn: {missing}",
            disk_faults.join(" and ")
        )?;
    }
    let manifest = cluster.manifest().clone();
    let spare_log = (
        cluster.spare().rm_id().to_owned(),
        cluster.spare().log_file().to_owned(),
    );
    let driven = tokio::select! {
        driven = drive(&cluster, options, &exe, out) => driven,
        signal = &mut signals => Err(anyhow::anyhow!(
            "interrupted by {signal}; the cluster's daemons were stopped, its logs are in {}",
            manifest.logs_dir.display()
        )),
    };
    if driven.is_err() {
        // A paused daemon would sit out its SIGTERM until the stop timeout.
        if let Err(err) = cluster.heal_all().await {
            tracing::warn!("healing before stopping: {err:#}");
        }
    }
    let stopped = cluster.stop().await;
    let mut record = driven?;
    if let Err(err) = stopped {
        writeln!(out, "stopping the cluster: {err:#}")?;
    }
    record.observations.panics = log_scan::scan(&log_scan::log_files(&manifest));

    let failovers = failovers(&record.timeline, &record.observations.write_samples);
    // A crash of the whole group is an outage until the replicas restart, not a failover:
    // it is listed with the failovers but kept out of their percentiles.
    let mut unavailable: Vec<f64> = failovers
        .iter()
        .filter(|failover| !failover.fault.is_group_crash())
        .filter_map(|failover| failover.unavailable_ms)
        .map(|ms| ms as f64)
        .collect();
    let input = CheckInput {
        history: &record.history,
        observations: &record.observations,
        timeline: &record.timeline,
        failovers: &failovers,
        end_ms: record.end_ms,
    };
    let invariants = check_all(&input);
    let files = ReportFiles {
        report: dir.join("report.json"),
        history: dir.join("history.json"),
        observations: dir.join("observations.json"),
        // The spare's log exists only if a membership fault started it.
        daemon_logs: manifest
            .daemons
            .iter()
            .map(|daemon| (daemon.id.clone(), manifest.log_file(&daemon.id)))
            .chain(Some(spare_log).filter(|(_, log)| log.is_file()))
            .collect(),
        container_logs: manifest
            .daemons
            .iter()
            .filter(|daemon| record.observations.nodes.contains_key(&daemon.id))
            .map(|daemon| {
                (
                    daemon.id.clone(),
                    manifest.base_dir.join(&daemon.id).join("container-logs"),
                )
            })
            .collect(),
        dir: dir.clone(),
    };
    let report = ChaosReport {
        settings: RunSettings {
            seed: options.seed,
            profile: options.profile,
            rms: options.rms,
            nms: options.nms,
            duration_ms: u64::try_from(options.duration.as_millis()).unwrap_or(u64::MAX),
            faults: options.faults.clone(),
            concurrent_jobs: options.concurrent_jobs,
            drain_ms: u64::try_from(options.drain_deadline.as_millis()).unwrap_or(u64::MAX),
            daemon_failpoints,
            network: options.network,
            disks: options.disks,
        },
        passed: invariants.iter().all(|result| result.verdict.passed()),
        timeline: record.timeline.clone(),
        unavailability: LatencySummary::from_millis(&mut unavailable),
        failovers,
        workload: summarize(&record.history, &record.observations),
        invariants,
        settled: record.settled.clone(),
        files,
        wall_seconds: started.elapsed().as_secs_f64(),
    };
    write_json(&report.files.history, &record.history)?;
    write_json(&report.files.observations, &record.observations)?;
    write_json(&report.files.report, &report)?;
    if let Some(path) = &options.report {
        write_json(path, &report)?;
    }
    write!(out, "{report}")?;
    Ok(report)
}

/// What the driven part of a run produced.
struct RunRecord {
    history: History,
    observations: Observations,
    timeline: Vec<TimelineEntry>,
    settled: Result<(), String>,
    end_ms: u64,
}

async fn drive(
    cluster: &ChaosCluster,
    options: &ChaosOptions,
    exe: &Path,
    out: &mut (impl Write + Send),
) -> anyhow::Result<RunRecord> {
    let conf_dir = cluster.client_conf_dir().to_path_buf();
    let conf = Configuration::load_dir(&conf_dir)
        .with_context(|| format!("loading the client configuration {}", conf_dir.display()))?;
    let client = YarnClient::from_conf(&conf)?;
    let leader = wait_ready(cluster, &client, options.nms)
        .await
        .map_err(anyhow::Error::msg)
        .context("the cluster did not come up")?;
    writeln!(
        out,
        "{leader} leads; every NodeManager runs; starting the workload"
    )?;

    let clock = RunClock::start();
    let recorder = HistoryRecorder::new(clock);
    let observing = CancellationToken::new();
    let probing = CancellationToken::new();
    let leaders = tokio::spawn(observe_leaders(
        cluster.admin_clients(),
        clock,
        observing.clone(),
    ));
    let writes = tokio::spawn(probe_writes(
        cluster.direct_clients(),
        clock,
        probing.clone(),
    ));
    let http = cluster
        .tls()
        .client_config()
        .map(|config| http1_client(&config))
        .context("the chaos cluster's client configuration has TLS disabled")?;
    let web: BTreeMap<String, String> = cluster
        .nodes()
        .iter()
        .map(|(name, node)| (name.clone(), node.web_address.clone()))
        .collect();
    let containers = tokio::spawn(observe_nodes(web, http, clock, observing.clone()));
    let workload = Workload::start(
        &conf_dir,
        exe,
        options.concurrent_jobs,
        recorder.clone(),
        SplitMix64::new(options.seed ^ WORKLOAD_STREAM),
    )?;

    let schedule = FaultSchedule::generate(
        options.seed,
        &options.faults,
        options.duration,
        &Pacing::default(),
    );
    writeln!(
        out,
        "{} faults scheduled over {} s",
        schedule.faults.len(),
        options.duration.as_secs()
    )?;
    let mut timeline: Vec<TimelineEntry> = Vec::new();
    for scheduled in &schedule.faults {
        sleep_until(clock.instant_at(scheduled.at_ms)).await;
        if scheduled.fault.is_group_crash() {
            let since = timeline
                .iter()
                .filter_map(|entry| entry.healed_at_ms)
                .max()
                .unwrap_or(0);
            if !crash_fault::await_acknowledged_write(&recorder, since).await {
                writeln!(
                    out,
                    "no submission was acknowledged within {:?} before the group crash; \
                     crashing anyway",
                    crash_fault::EVIDENCE_WAIT
                )?;
            }
        }
        let entry = inject_and_heal(cluster, scheduled, clock).await;
        writeln!(out, "{}", describe(&entry))?;
        timeline.push(entry);
    }
    sleep_until(clock.instant_at(u64::try_from(options.duration.as_millis()).unwrap_or(u64::MAX)))
        .await;

    if let Err(err) = cluster.heal_all().await {
        writeln!(out, "healing everything: {err:#}")?;
    }
    writeln!(
        out,
        "faults over at {}; everything healed; waiting for the cluster to settle",
        seconds(clock.now_ms())
    )?;
    let settled = wait_ready(cluster, &client, options.nms).await.map(drop);
    if let Err(why) = &settled {
        writeln!(out, "the cluster did not settle: {why}")?;
    }
    let settled_at_ms = clock.now_ms();
    if !workload.finish(options.drain_deadline).await {
        writeln!(
            out,
            "jobs still ran {} s after the faults; they were stopped",
            options.drain_deadline.as_secs()
        )?;
    }
    let history = recorder.history();
    let final_deadline = options.drain_deadline.min(FINAL_DEADLINE);
    let applications = final_applications(&client, &history, final_deadline, clock).await;
    probing.cancel();
    let write_samples = writes.await.context("the write prober failed")?;
    let (replicas, digests) = converge(cluster).await;
    observing.cancel();
    let leader_samples = leaders.await.context("the leader observer failed")?;
    let node_snapshots = containers.await.context("the node observer failed")?;
    writeln!(
        out,
        "work drained at {}; checking invariants",
        seconds(clock.now_ms())
    )?;
    Ok(RunRecord {
        history,
        observations: Observations {
            leader_samples,
            write_samples,
            node_snapshots,
            nodes: cluster
                .nodes()
                .iter()
                .map(|(name, node)| (name.clone(), node.info.clone()))
                .collect(),
            applications,
            replicas,
            digests,
            panics: Vec::new(),
            settled_at_ms,
        },
        timeline,
        settled,
        end_ms: clock.now_ms(),
    })
}

/// Plans `scheduled` against the cluster as it is now, injects it, holds it, heals it.
async fn inject_and_heal(
    cluster: &ChaosCluster,
    scheduled: &ScheduledFault,
    clock: RunClock,
) -> TimelineEntry {
    let leader = cluster.leader().await;
    let view = match cluster.view(leader) {
        Ok(view) => view,
        Err(err) => {
            return TimelineEntry::not_injected(scheduled, FaultStatus::Failed, format!("{err:#}"));
        }
    };
    let plan = match scheduled.fault.plan(&view, scheduled.pick) {
        Ok(plan) => plan,
        Err(reason) => {
            return TimelineEntry::not_injected(scheduled, FaultStatus::Skipped, reason);
        }
    };
    let injected_at = clock.now_ms();
    let mut steps = FaultSteps::new(clock);
    let note = match plan.inject(cluster, &mut steps).await {
        Ok(note) => note,
        Err(err) => {
            let mut entry =
                TimelineEntry::not_injected(scheduled, FaultStatus::Failed, format!("{err:#}"));
            entry.steps = steps.into_steps();
            return entry;
        }
    };
    let mut entry = TimelineEntry::injected(scheduled, &plan, injected_at);
    entry.reason = note;
    // The hold starts once the fault is in force: a membership change takes its own time.
    let in_force_at = clock.now_ms().max(injected_at);
    sleep_until(clock.instant_at(in_force_at + scheduled.hold_ms)).await;
    if let Err(err) = plan.heal(cluster, &mut steps).await {
        entry.heal_error = Some(format!("{err:#}"));
    }
    entry.healed_at_ms = Some(clock.now_ms());
    entry.steps = steps.into_steps();
    entry
}

/// One progress line for a timeline entry, then one per step it recorded.
fn describe(entry: &TimelineEntry) -> String {
    let mut text = describe_outcome(entry);
    for step in &entry.steps {
        text.push_str(&format!("\n      {} {}", seconds(step.at_ms), step.what));
    }
    text
}

fn describe_outcome(entry: &TimelineEntry) -> String {
    match entry.status {
        FaultStatus::Injected => format!(
            "  {} #{} {} on {}, healed at {}{}{}",
            seconds(entry.injected_at_ms.unwrap_or_default()),
            entry.seq,
            entry.fault,
            entry.target.as_deref().unwrap_or("-"),
            seconds(entry.healed_at_ms.unwrap_or_default()),
            entry
                .reason
                .as_deref()
                .map(|note| format!(" ({note})"))
                .unwrap_or_default(),
            entry
                .heal_error
                .as_deref()
                .map(|error| format!(" (heal failed: {error})"))
                .unwrap_or_default()
        ),
        FaultStatus::Skipped | FaultStatus::Failed => format!(
            "  {} #{} {} {}: {}",
            seconds(entry.scheduled_at_ms),
            entry.seq,
            entry.fault,
            if entry.status == FaultStatus::Skipped {
                "skipped"
            } else {
                "failed"
            },
            entry.reason.as_deref().unwrap_or("-")
        ),
    }
}

/// Waits until one replica leads and every other follows it, and `nodes` NodeManagers are
/// RUNNING; returns the leader.
///
/// # Errors
///
/// What was still missing when [`SETTLE_DEADLINE`] passed.
async fn wait_ready(
    cluster: &ChaosCluster,
    client: &YarnClient,
    nodes: usize,
) -> Result<String, String> {
    let deadline = Instant::now() + SETTLE_DEADLINE;
    loop {
        let missing = match cluster.leader().await {
            None => "no single ResourceManager reports ACTIVE".to_owned(),
            Some(leader) => {
                let statuses = cluster.statuses().await;
                let strays: Vec<String> = statuses
                    .iter()
                    .filter(|status| {
                        !status
                            .answer
                            .as_ref()
                            .is_ok_and(|answer| answer.leader_rm_id == leader)
                    })
                    .map(|status| status.rm_id.clone())
                    .collect();
                if !strays.is_empty() {
                    format!("{} do not follow {leader} yet", strays.join(", "))
                } else {
                    match client
                        .get_cluster_nodes(&[pb::NodeStateProto::NsRunning])
                        .await
                    {
                        Ok(running) if running.len() >= nodes => return Ok(leader),
                        Ok(running) => {
                            format!("{} of {nodes} NodeManagers run", running.len())
                        }
                        Err(err) => format!("listing the NodeManagers failed: {err}"),
                    }
                }
            }
        };
        if Instant::now() >= deadline {
            return Err(format!("after {SETTLE_DEADLINE:?}: {missing}"));
        }
        sleep(POLL).await;
    }
}

/// Every acknowledged application's report, waiting up to `wait` in all for each to reach a
/// final state.
async fn final_applications(
    client: &YarnClient,
    history: &History,
    wait: Duration,
    clock: RunClock,
) -> Vec<FinalApplication> {
    let deadline = Instant::now() + wait;
    let mut applications = Vec::new();
    for application_id in history.acknowledged_submissions().keys() {
        let parsed: Result<ApplicationId, _> = application_id.parse();
        let Ok(id) = parsed else {
            applications.push(FinalApplication {
                application_id: (*application_id).to_owned(),
                report: None,
                error: Some(format!("{application_id} is not an application id")),
            });
            continue;
        };
        applications.push(final_application(client, id, deadline, wait, clock).await);
    }
    applications
}

async fn final_application(
    client: &YarnClient,
    id: ApplicationId,
    deadline: Instant,
    wait: Duration,
    clock: RunClock,
) -> FinalApplication {
    let mut last = None;
    let mut error: Option<String>;
    loop {
        match client.get_application_report(id).await {
            Ok(report) => {
                let attempt = report
                    .current_application_attempt_id
                    .as_ref()
                    .map_or(0, |attempt| attempt.attempt_id);
                let final_report = FinalReport {
                    state: state_name(report.yarn_application_state()),
                    final_status: final_status_name(report.final_application_status()),
                    attempt,
                    diagnostics: report.diagnostics.clone(),
                    observed_at_ms: clock.now_ms(),
                };
                let done = final_report.is_final();
                last = Some(final_report);
                error = None;
                if done {
                    break;
                }
            }
            Err(err) => {
                let not_found = err
                    .status()
                    .is_some_and(|status| status.code() == tonic::Code::NotFound);
                error = Some(err.to_string());
                if not_found {
                    break;
                }
            }
        }
        if Instant::now() >= deadline {
            if error.is_none() {
                error = Some(format!("not final within {wait:?} of the drain"));
            }
            break;
        }
        sleep(Duration::from_secs(1)).await;
    }
    FinalApplication {
        application_id: id.to_string(),
        report: last,
        error,
    }
}

/// Asks every replica for its status and its state digest until they agree on term and
/// leader and report one applied index (their digests then either match or never will), or
/// [`CONVERGE_DEADLINE`] passes; returns the last answers. The workload has stopped by then,
/// so the leader's log stops growing and the followers catch up.
async fn converge(cluster: &ChaosCluster) -> (Vec<ReplicaStatus>, Vec<ReplicaDigest>) {
    let admins = cluster.admin_clients();
    let deadline = Instant::now() + CONVERGE_DEADLINE;
    loop {
        let statuses = cluster.statuses().await;
        let digests = replica_digests(&admins).await;
        if replicas_settled(&statuses, &digests) || Instant::now() >= deadline {
            return (statuses, digests);
        }
        sleep(POLL).await;
    }
}

/// Every replica's GetStateDigest, asked concurrently at its real admin address, each under
/// [`DIGEST_DEADLINE`], in `rm-ids` order.
async fn replica_digests(
    admins: &BTreeMap<String, ResourceManagerAdministrationProtocolClient<Channel>>,
) -> Vec<ReplicaDigest> {
    let mut asking = JoinSet::new();
    for (index, (rm_id, admin)) in admins.iter().enumerate() {
        let (rm_id, mut admin) = (rm_id.clone(), admin.clone());
        asking.spawn(async move {
            let asked = timeout(
                DIGEST_DEADLINE,
                admin.get_state_digest(pb::GetStateDigestRequestProto {}),
            )
            .await;
            let answer = match asked {
                Ok(Ok(reply)) => {
                    let reply = reply.into_inner();
                    Ok(StateDigestAnswer {
                        applied_index: reply.applied_index,
                        applied_term: reply.applied_term,
                        digest: reply.digest,
                    })
                }
                Ok(Err(status)) => Err(format!("{:?}: {}", status.code(), status.message())),
                Err(_) => Err(format!("no answer within {DIGEST_DEADLINE:?}")),
            };
            (index, ReplicaDigest { rm_id, answer })
        });
    }
    let mut digests = Vec::new();
    while let Some(joined) = asking.join_next().await {
        // A task only awaits one call; it fails only if the runtime shuts down, and the
        // missing replica is then reported as not asked.
        if let Ok(digest) = joined {
            digests.push(digest);
        }
    }
    digests.sort_by_key(|(index, _)| *index);
    digests.into_iter().map(|(_, digest)| digest).collect()
}

fn summarize(history: &History, observations: &Observations) -> WorkloadSummary {
    let mut applications = BTreeMap::new();
    for app in &observations.applications {
        let state = app
            .report
            .as_ref()
            .map_or_else(|| "UNKNOWN".to_owned(), |report| report.state.clone());
        *applications.entry(state).or_default() += 1;
    }
    WorkloadSummary {
        operations: history.counts(),
        submissions_acknowledged: history.acknowledged_submissions().len(),
        applications,
        probe_writes: observations.write_samples.len(),
        leader_observations: observations.leader_samples.len(),
        node_snapshots: observations.node_snapshots.len(),
    }
}

/// The run's directory: the one asked for (created; must be empty), or a new one under the
/// temporary directory named after the seed and the time.
fn run_dir(options: &ChaosOptions) -> anyhow::Result<PathBuf> {
    let dir = match &options.dir {
        Some(dir) => dir.clone(),
        None => {
            let now = time::OffsetDateTime::now_utc().unix_timestamp();
            std::env::temp_dir().join(format!("yarn-ha-chaos-{}-{now}", options.seed))
        }
    };
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut entries =
        std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))?;
    anyhow::ensure!(
        entries.next().is_none(),
        "{} is not empty; a chaos run needs a new or empty directory",
        dir.display()
    );
    dir.canonicalize()
        .with_context(|| format!("resolving {}", dir.display()))
}

/// Resolves with the name of the first of SIGINT, SIGTERM and SIGHUP to arrive. The handlers
/// are installed when this is called, not when the future is first polled.
///
/// # Errors
///
/// When the operating system refuses a handler; the message names the signal.
fn shutdown_signals() -> anyhow::Result<impl Future<Output = &'static str>> {
    let install =
        |kind, name| signal(kind).with_context(|| format!("installing the {name} handler"));
    let mut interrupt = install(SignalKind::interrupt(), "SIGINT")?;
    let mut terminate = install(SignalKind::terminate(), "SIGTERM")?;
    let mut hangup = install(SignalKind::hangup(), "SIGHUP")?;
    Ok(async move {
        tokio::select! {
            _ = interrupt.recv() => "SIGINT",
            _ = terminate.recv() => "SIGTERM",
            _ = hangup.recv() => "SIGHUP",
        }
    })
}

fn write_json(path: &Path, value: &impl serde::Serialize) -> anyhow::Result<()> {
    let mut text = serde_json::to_string_pretty(value)
        .with_context(|| format!("serializing {}", path.display()))?;
    text.push('\n');
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}
