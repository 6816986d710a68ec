//! `yarn-ha bench scheduler`, second half: allocations per second through the leader's
//! scheduling loop and Raft on a three-replica cluster, with the asks put into the leader's
//! scheduler or sent by ApplicationMasters over the ApplicationMasterProtocol.

use std::fmt;
use std::time::{Duration, Instant};

use anyhow::Context;
use prost::Message;
use serde::Serialize;
use yarn_client::RmClientConfig;
use yarn_conf::Configuration;
use yarn_minicluster::{ClusterLayout, HARNESS_USER};
use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, NodeId};
use yarn_proto::pb;
use yarn_rm_ha::state_machine::{
    ApplicationRecord, ApplicationState, CommandV1, RmCommand, RmResponse,
};
use yarn_rm_ha::{ResourceManager, RmConfig, Serving};
use yarn_security::TlsConfig;

use crate::am_fleet::AmFleet;
use crate::scheduler_bench::{NODE_CAPABILITY, SchedulerBenchShape, bench_ask};

/// How the applications' asks reach the leader, and where an allocation counts as done.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum AskPath {
    /// Put straight into the leader's scheduler; an allocation counts once committed. Measures
    /// the scheduling loop, Raft and apply.
    Scheduler,
    /// Sent by one unmanaged ApplicationMaster per application through the
    /// ApplicationMasterProtocol over mutual TLS; an allocation counts once its AM received
    /// the container (with its container token) in an allocate response. The full path.
    AmProtocol,
}

/// How long the cluster may take to elect a leader, admit the applications, or allocate.
const DEADLINE: Duration = Duration::from_secs(120);

/// How often the benchmark looks at the leader's state while it waits.
const POLL: Duration = Duration::from_millis(5);

/// What one run through the leader measured.
#[derive(Debug, Clone, Serialize)]
pub struct LeaderSchedulerBenchRun {
    /// The run's shape, as for the core.
    pub shape: SchedulerBenchShape,
    /// How the asks came in.
    pub path: AskPath,
    /// Containers committed (AM containers included) or, on [`AskPath::AmProtocol`], received
    /// by the AMs (unmanaged, so no AM containers).
    pub allocations: usize,
    /// Allocations the run waited for: every ask, or as many 1 GB containers as the nodes hold.
    /// Fewer [`allocations`](Self::allocations) means the run gave up after two minutes.
    pub expected: usize,
    /// Raft entries applied while allocating: the scheduling loop's, each with at most 10,000
    /// allocations of one or more passes.
    pub entries: u64,
    /// From the nodes' arrival to the commit of the last allocation, or to the last container
    /// an AM received.
    pub elapsed: Duration,
}

impl LeaderSchedulerBenchRun {
    /// Committed allocations per second.
    pub fn allocations_per_second(&self) -> f64 {
        self.allocations as f64 / self.elapsed.as_secs_f64().max(f64::EPSILON)
    }
}

/// Runs `shape` through a real leader: three in-process ResourceManager replicas over mutual
/// TLS with fsync'd sled logs, laid out under `dir` (which must be empty or absent).
///
/// The applications are submitted and admitted through Raft first, with no node registered.
/// Their asks reach the leader by `path`: put into its scheduler as the ApplicationMaster
/// protocol would, or sent by registered unmanaged AMs (see [`AmFleet`]). Then every node
/// registers at once (standing in for NodeManagers) and the clock runs until every container
/// that fits (all asks, or a full cluster of 1 GB containers on 64 GB nodes) is committed, or,
/// on the AM path, received by its AM. The figure therefore includes every pass's decisions,
/// its Raft entry (replicated to both followers, fsync'd on a quorum, applied) and the
/// reconcile that follows each commit; on the AM path also the AMs' heartbeats (every
/// [`AM_HEARTBEAT`](super::am_fleet::AM_HEARTBEAT)), container tokens and responses.
///
/// # Errors
///
/// When the layout cannot be written, a replica cannot start, or the cluster does not elect,
/// admit or allocate within two minutes.
pub fn leader_scheduler_bench(
    shape: SchedulerBenchShape,
    path: AskPath,
    dir: &std::path::Path,
) -> anyhow::Result<LeaderSchedulerBenchRun> {
    anyhow::ensure!(shape.queues > 0, "bench scheduler needs at least one queue");
    let layout = ClusterLayout::create(dir, 3, 0)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(async move {
        let mut replicas = Vec::new();
        for rm in &layout.rms {
            let conf = Configuration::load_dir(&rm.conf_dir)?;
            let config = RmConfig::from_conf(&conf, Some(&rm.rm_id))?;
            let tls = TlsConfig::from_conf(&conf)?;
            let replica = ResourceManager::start(config, tls)
                .await
                .with_context(|| format!("starting ResourceManager {}", rm.rm_id))?;
            replicas.push(replica);
        }
        let client_conf = Configuration::load_dir(&layout.client_conf_dir)?;
        let rm = RmClientConfig::from_conf(&client_conf)?;
        let outcome = measure(shape, path, &replicas, &rm).await;
        for replica in replicas {
            replica.shutdown().await?;
        }
        outcome
    })
}

async fn measure(
    shape: SchedulerBenchShape,
    path: AskPath,
    replicas: &[ResourceManager],
    rm: &RmClientConfig,
) -> anyhow::Result<LeaderSchedulerBenchRun> {
    let started = Instant::now();
    let (leader, leadership) = wait_for("a leader that has committed its queues", started, || {
        replicas.iter().find_map(|replica| match replica.serving() {
            Serving::Leader(leadership)
                if replica.state().read(|state| state.queue_config_version > 0) =>
            {
                Some((replica, leadership))
            }
            _ => None,
        })
    })
    .await?;
    let (names, properties) = shape.queue_properties();
    let expected = leader.state().read(|state| state.queue_config_version);
    commit(
        leader,
        CommandV1::SetQueueConfiguration {
            expected,
            properties,
        },
    )
    .await?;
    let applications = submit(leader, &shape, path, &names).await?;
    wait_for("every application to be admitted", started, || {
        leader
            .state()
            .read(|state| {
                state
                    .applications
                    .values()
                    .all(|app| app.state == ApplicationState::Accepted)
            })
            .then_some(())
    })
    .await?;
    let fleet = match path {
        AskPath::Scheduler => {
            let asked = leadership
                .scheduler()
                .with(|scheduler| {
                    applications.iter().try_for_each(|&application| {
                        let attempt = ApplicationAttemptId::new(application, 1);
                        let ask = bench_ask(shape.containers_per_application);
                        scheduler
                            .scheduler_mut()
                            .update_asks(attempt, &[ask], &[])
                            .map(|_| ())
                    })
                })
                .await
                .context("the leader's scheduler is not running")?;
            asked.context("asking for containers")?;
            None
        }
        AskPath::AmProtocol => {
            Some(AmFleet::start(rm, &applications, shape.containers_per_application).await?)
        }
    };

    let am_containers = usize::from(path == AskPath::Scheduler);
    let wanted = applications.len() * (am_containers + shape.containers_per_application as usize);
    let fits = shape.nodes * (NODE_CAPABILITY.memory_mb / 1024) as usize;
    let expected_allocations = wanted.min(fits);
    let first_index = last_applied(leader);
    let clock = Instant::now();
    let capability = pb::ResourceProto {
        memory: i64::try_from(NODE_CAPABILITY.memory_mb)?,
        virtual_cores: i32::try_from(NODE_CAPABILITY.vcores)?,
        ..Default::default()
    };
    leadership.nodes(|tracker| {
        for i in 0..shape.nodes {
            let node = NodeId::new(format!("node{i}.bench"), 8041);
            let rack = yarn_scheduler::DEFAULT_RACK.to_owned();
            tracker.register(
                node,
                rack,
                capability.clone(),
                8042,
                tokio::time::Instant::now(),
            );
        }
    });
    let (allocations, elapsed) = match fleet {
        None => {
            wait_for("every container that fits to be committed", clock, || {
                let live = live_containers(leader);
                (live >= expected_allocations).then_some(())
            })
            .await?;
            (live_containers(leader), clock.elapsed())
        }
        Some(fleet) => {
            // Not an error past the deadline: how far the AMs got is the result.
            let all_in = wait_for(
                "the AMs to receive every container that fits",
                clock,
                || (fleet.received() >= expected_allocations).then_some(()),
            )
            .await
            .is_ok();
            let received = fleet.received();
            let last = fleet.last_receipt();
            fleet.stop().await?;
            let elapsed = match last {
                Some(last) if all_in => last.saturating_duration_since(clock),
                _ => clock.elapsed(),
            };
            (received, elapsed)
        }
    };
    let expected = expected_allocations;
    // The Raft metrics trail the applied state a little: wait until they show every entry
    // appended so far as applied, so that the count below is not short.
    let appended = leader.raft().metrics().borrow().last_log_index.unwrap_or(0);
    wait_for(
        "the leader's metrics to show its entries applied",
        clock,
        || (last_applied(leader) >= appended).then_some(()),
    )
    .await?;
    Ok(LeaderSchedulerBenchRun {
        shape,
        path,
        expected,
        allocations,
        entries: last_applied(leader).saturating_sub(first_index),
        elapsed,
    })
}

/// Submits the shape's applications (ids reserved in one entry, one entry per submission, all
/// in flight together) and returns their ids. For [`AskPath::AmProtocol`] they are unmanaged
/// and owned by the harness's user, whose client may then read their AMRMTokens.
async fn submit(
    leader: &ResourceManager,
    shape: &SchedulerBenchShape,
    path: AskPath,
    queues: &[String],
) -> anyhow::Result<Vec<ApplicationId>> {
    let count = u32::try_from(shape.applications)?;
    let RmResponse::ApplicationIdsAllocated { first, .. } =
        commit(leader, CommandV1::AllocateApplicationIds { count }).await?
    else {
        anyhow::bail!("no application ids for the benchmark");
    };
    let cluster_timestamp_ms = leader.state().read(|state| state.cluster_timestamp_ms);
    let mut submissions = tokio::task::JoinSet::new();
    let mut ids = Vec::new();
    for i in 0..shape.applications {
        let sequence = first + i32::try_from(i)?;
        ids.push(ApplicationId::new(cluster_timestamp_ms, sequence));
        let context = pb::ApplicationSubmissionContextProto {
            resource: Some(pb::ResourceProto {
                memory: 1024,
                virtual_cores: 1,
                ..Default::default()
            }),
            unmanaged_am: path == AskPath::AmProtocol,
            ..Default::default()
        };
        let user = match path {
            AskPath::Scheduler => format!("user{}", i % 10),
            AskPath::AmProtocol => HARNESS_USER.to_owned(),
        };
        let application = ApplicationRecord {
            sequence,
            user,
            name: "bench".to_owned(),
            queue: queues[i % queues.len()].clone(),
            application_type: "YARN".to_owned(),
            tags: Vec::new(),
            submit_time_ms: cluster_timestamp_ms,
            state: ApplicationState::Submitted,
            submission_context: context.encode_to_vec(),
            priority: 0,
            current_attempt: 0,
            diagnostics: String::new(),
            ..ApplicationRecord::default()
        };
        let raft = leader.raft().clone();
        submissions.spawn(async move {
            raft.client_write(RmCommand::V1(CommandV1::SubmitApplication {
                cluster_timestamp_ms,
                application,
            }))
            .await
        });
    }
    while let Some(joined) = submissions.join_next().await {
        joined
            .context("a submission task")?
            .context("a submission")?;
    }
    Ok(ids)
}

async fn commit(leader: &ResourceManager, command: CommandV1) -> anyhow::Result<RmResponse> {
    let reply = leader
        .raft()
        .client_write(RmCommand::V1(command))
        .await
        .context("a benchmark commit")?;
    Ok(reply.data)
}

fn live_containers(replica: &ResourceManager) -> usize {
    replica
        .state()
        .read(|state| state.containers.iter().filter(|r| r.is_live()).count())
}

fn last_applied(replica: &ResourceManager) -> u64 {
    replica
        .raft()
        .metrics()
        .borrow()
        .last_applied
        .map_or(0, |log_id| log_id.index)
}

/// Polls `check` every [`POLL`] until it yields, failing after [`DEADLINE`] from `since`.
async fn wait_for<T>(
    what: &str,
    since: Instant,
    mut check: impl FnMut() -> Option<T>,
) -> anyhow::Result<T> {
    loop {
        if let Some(value) = check() {
            return Ok(value);
        }
        anyhow::ensure!(
            since.elapsed() < DEADLINE,
            "gave up after {DEADLINE:?} waiting for {what}"
        );
        tokio::time::sleep(POLL).await;
    }
}

impl fmt::Display for LeaderSchedulerBenchRun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = match self.path {
            AskPath::Scheduler => "through the leader",
            AskPath::AmProtocol => "through AMs + leader",
        };
        write!(
            f,
            "{:>6} nodes {:>4} queues {:>5} apps {path}: {:>8} allocations in {:>3} \
             Raft entries, {:>9.1} ms, {:>10.0} allocations/s",
            self.shape.nodes,
            self.shape.queues,
            self.shape.applications,
            self.allocations,
            self.entries,
            self.elapsed.as_secs_f64() * 1e3,
            self.allocations_per_second(),
        )?;
        if self.allocations < self.expected {
            write!(f, " (gave up: {} expected)", self.expected)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::QueueLayout;

    /// Both paths in one test: two clusters laid out at once could pick the same free port.
    #[test]
    fn a_small_cluster_allocates_every_ask_that_fits_on_both_paths() {
        let dir = tempfile::tempdir().unwrap();
        // 2 nodes of 64 GB hold 128 containers of 1 GB; 6 apps ask for 6 x (1 AM + 30).
        let shape = SchedulerBenchShape {
            nodes: 2,
            queues: 3,
            applications: 6,
            containers_per_application: 30,
            layout: QueueLayout::Percentage,
            activities: false,
        };
        let run =
            leader_scheduler_bench(shape, AskPath::Scheduler, &dir.path().join("direct")).unwrap();
        assert_eq!(run.allocations, 128, "{run:?}");
        assert!(run.entries >= 1, "{run:?}");

        // 1 node holds 64; 4 unmanaged AMs ask for 4 x 20 and receive what fits.
        let shape = SchedulerBenchShape {
            nodes: 1,
            queues: 2,
            applications: 4,
            containers_per_application: 20,
            layout: QueueLayout::Percentage,
            activities: false,
        };
        let run =
            leader_scheduler_bench(shape, AskPath::AmProtocol, &dir.path().join("ams")).unwrap();
        assert_eq!(run.allocations, 64, "{run:?}");
        assert!(run.entries >= 1, "{run:?}");
    }
}
