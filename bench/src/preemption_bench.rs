//! `yarn-ha bench preemption`: one round of the proportional preemption policy on a full
//! cluster, split into what holds the scheduler (the snapshot) and what does not (the policy).

use std::fmt;
use std::time::{Duration, Instant};

use anyhow::Context;
use serde::Serialize;
use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, NodeId};
use yarn_scheduler::preemption::{IntraQueueOrder, IntraQueueSettings, PreemptionSettings};
use yarn_scheduler::{
    CapacityScheduler, CapacitySchedulerConfiguration, Resource, SchedulerSettings,
};

use crate::scheduler_bench::{bench_ask, queue_properties};

/// The shape of one run: `nodes` nodes that together hold exactly `containers` containers of
/// 1 GB and 1 vcore, and `queues` leaf queues with equal guarantees. The even-numbered half of
/// the queues fill the whole cluster (one application each, AM included), so each runs at twice
/// its guarantee; then each odd-numbered queue gets an application asking for its guarantee.
/// With `intra_queue`, each busy queue also gets a second application, at priority 1, asking
/// for a tenth of its guarantee, and rounds preempt within queues too (`priority_first`).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct PreemptionBenchShape {
    /// Nodes in the cluster.
    pub nodes: usize,
    /// Leaf queues under root; at least 2.
    pub queues: usize,
    /// Running containers once the cluster is full.
    pub containers: usize,
    /// Rounds timed.
    pub rounds: usize,
    /// Whether rounds also preempt within queues, for more important applications.
    pub intra_queue: bool,
}

/// What one run measured.
#[derive(Debug, Clone, Serialize)]
pub struct PreemptionBenchRun {
    /// The run's shape.
    pub shape: PreemptionBenchShape,
    /// Containers running when the rounds were timed.
    pub running: usize,
    /// Containers the first round chose, with Hadoop's default settings.
    pub chosen: usize,
    /// Time to take a round's snapshot, the only part that holds the scheduler: median.
    pub snapshot_median: Duration,
    /// The same, slowest round.
    pub snapshot_max: Duration,
    /// Time of the policy itself on the snapshot, with the scheduler released: median.
    pub decide_median: Duration,
    /// The same, slowest round.
    pub decide_max: Duration,
    /// Time to fill the cluster with `schedule()` passes, for scale.
    pub fill: Duration,
}

/// Builds and fills the cluster of `shape`, then times `rounds` rounds of snapshot and policy
/// with Hadoop's default settings. No Raft, no I/O: on the leader the snapshot is taken under
/// the scheduler lock and the policy runs on a blocking thread.
///
/// # Errors
///
/// A shape with fewer than two queues, fewer containers than queues or nodes, or no round;
/// a cluster that did not fill.
pub fn preemption_bench(shape: PreemptionBenchShape) -> anyhow::Result<PreemptionBenchRun> {
    anyhow::ensure!(
        shape.queues >= 2,
        "bench preemption needs at least two queues"
    );
    anyhow::ensure!(
        shape.rounds > 0,
        "bench preemption needs at least one round"
    );
    anyhow::ensure!(
        shape.nodes > 0 && shape.containers >= shape.nodes.max(shape.queues),
        "bench preemption needs at least as many containers as nodes and queues"
    );
    let (names, properties) = queue_properties(shape.queues);
    let settings = SchedulerSettings {
        max_application_priority: 1,
        ..SchedulerSettings::default()
    };
    let config = CapacitySchedulerConfiguration::new(properties, settings)
        .context("the generated queue configuration")?;
    let mut scheduler = CapacityScheduler::new(config);
    let per_node = u64::try_from(shape.containers.div_ceil(shape.nodes))?;
    let capability = Resource::new(per_node * 1024, u32::try_from(per_node)?);
    for i in 0..shape.nodes {
        scheduler
            .add_node(NodeId::new(format!("node{i}.bench"), 8041), capability)
            .context("adding a node")?;
    }
    let busy: Vec<&String> = names.iter().step_by(2).collect();
    let mut sequence = 0;
    let mut submit = |scheduler: &mut CapacityScheduler, queue: &str, priority: Option<i32>| {
        sequence += 1;
        let application = ApplicationId::new(1, sequence);
        scheduler
            .submit_application(application, queue, "bench", &[], priority)
            .with_context(|| format!("submitting {application}"))?;
        anyhow::Ok(ApplicationAttemptId::new(application, 1))
    };
    // The busy queues share every container; the first ones take the remainder.
    for (index, queue) in busy.iter().enumerate() {
        let share =
            shape.containers / busy.len() + usize::from(index < shape.containers % busy.len());
        let attempt = submit(&mut scheduler, queue, None)?;
        scheduler
            .add_attempt(attempt, Resource::new(1024, 1))
            .context("adding an attempt")?;
        let tasks = u32::try_from(share.saturating_sub(1))?;
        scheduler
            .update_asks(attempt, &[bench_ask(tasks)], &[])
            .context("asking for containers")?;
    }
    let started = Instant::now();
    let mut running = 0;
    for _ in 0..1_000 {
        let allocated = scheduler.schedule().len();
        running += allocated;
        if allocated == 0 {
            break;
        }
    }
    let fill = started.elapsed();
    anyhow::ensure!(
        running == shape.containers,
        "the cluster held {running} containers, not {}",
        shape.containers
    );
    let guarantee = u32::try_from(shape.containers / shape.queues)?;
    let idle = names
        .iter()
        .skip(1)
        .step_by(2)
        .map(|queue| (queue, None, guarantee));
    let important = busy
        .iter()
        .filter(|_| shape.intra_queue)
        .map(|queue| (*queue, Some(1), guarantee.div_ceil(10)));
    for (queue, priority, wanted) in idle.chain(important) {
        let attempt = submit(&mut scheduler, queue, priority)?;
        scheduler
            .add_attempt_without_am(attempt)
            .context("adding an attempt")?;
        scheduler
            .update_asks(attempt, &[bench_ask(wanted)], &[])
            .context("asking for containers")?;
    }
    // Activates the new applications; the cluster is full, so nothing is allocated.
    scheduler.schedule();

    let settings = PreemptionSettings {
        intra_queue: shape.intra_queue.then_some(IntraQueueSettings {
            order: IntraQueueOrder::PriorityFirst,
            ..IntraQueueSettings::default()
        }),
        ..PreemptionSettings::default()
    };
    let mut snapshots = Vec::with_capacity(shape.rounds);
    let mut decisions = Vec::with_capacity(shape.rounds);
    let mut chosen = 0;
    for round in 0..shape.rounds {
        let started = Instant::now();
        let snapshot = scheduler.preemption_snapshot();
        snapshots.push(started.elapsed());
        let started = Instant::now();
        let decision = snapshot.decide(&settings);
        decisions.push(started.elapsed());
        if round == 0 {
            chosen = decision.chosen.values().map(Vec::len).sum();
        }
    }
    let (snapshot_median, snapshot_max) = median_and_max(&mut snapshots);
    let (decide_median, decide_max) = median_and_max(&mut decisions);
    Ok(PreemptionBenchRun {
        shape,
        running,
        chosen,
        snapshot_median,
        snapshot_max,
        decide_median,
        decide_max,
        fill,
    })
}

fn median_and_max(times: &mut [Duration]) -> (Duration, Duration) {
    times.sort_unstable();
    let median = times[times.len() / 2];
    (median, times[times.len() - 1])
}

impl fmt::Display for PreemptionBenchRun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = |time: Duration| time.as_secs_f64() * 1e3;
        write!(
            f,
            "{:>6} nodes {:>5} queues {:>7} containers{}: {:>6} chosen; snapshot (scheduler \
             held) median {:.1} ms, max {:.1} ms; policy (scheduler free) median {:.1} ms, max \
             {:.1} ms; over {} rounds (filling took {:.0} ms)",
            self.shape.nodes,
            self.shape.queues,
            self.running,
            if self.shape.intra_queue {
                ", intra-queue"
            } else {
                ""
            },
            self.chosen,
            ms(self.snapshot_median),
            ms(self.snapshot_max),
            ms(self.decide_median),
            ms(self.decide_max),
            self.shape.rounds,
            ms(self.fill)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_full_cluster_gives_back_to_the_idle_queues() {
        let shape = PreemptionBenchShape {
            nodes: 10,
            queues: 4,
            containers: 100,
            rounds: 3,
            intra_queue: false,
        };
        let run = preemption_bench(shape).unwrap();
        assert_eq!(run.running, 100);
        // A tenth of the cluster per round (10 GB), a fifth of that asked for: two containers
        // at least, from the two busy queues.
        assert!(run.chosen >= 2, "{run:?}");
        assert!(run.chosen <= 10, "at most the round's allowance: {run:?}");
        // Within the busy queues too, for their important applications, within the same
        // allowance.
        let within = preemption_bench(PreemptionBenchShape {
            intra_queue: true,
            ..shape
        })
        .unwrap();
        assert!(within.chosen > run.chosen, "{within:?} against {run:?}");
        assert!(
            within.chosen <= 10,
            "at most the round's allowance: {within:?}"
        );
    }

    #[test]
    fn a_shape_without_room_for_an_idle_queue_is_refused() {
        let shape = PreemptionBenchShape {
            nodes: 1,
            queues: 1,
            containers: 10,
            rounds: 1,
            intra_queue: false,
        };
        let err = preemption_bench(shape).unwrap_err();
        assert!(err.to_string().contains("two queues"), "{err}");
    }
}
