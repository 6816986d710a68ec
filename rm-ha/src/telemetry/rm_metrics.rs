//! [`RmMetrics`]: one replica's Prometheus metrics, rendered in the text format at `/metrics`.

use std::sync::Arc;
use std::time::Duration;

use metrics::{counter, gauge, histogram};
use metrics_exporter_prometheus::{
    Matcher, PrometheusBuilder, PrometheusHandle, PrometheusRecorder,
};

use yarn_sled_sync::SyncCounts;

use super::QueueFigures;
use crate::applications::ClusterOverview;
use crate::scheduling::OpportunisticCounts;

/// Bucket bounds, in seconds, of the latency histograms: from a fast local call to a call
/// that waited out a Raft election.
const LATENCY_BUCKETS: [f64; 12] = [
    0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0,
];

/// Bucket bounds, in seconds, of the Raft storage histograms: an apply of a batch takes
/// microseconds, an append waits for sled's flush.
const STORAGE_BUCKETS: [f64; 12] = [
    0.000_01, 0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.05, 0.25, 1.0,
];

/// The histograms measured in [`STORAGE_BUCKETS`].
const STORAGE_HISTOGRAMS: [&str; 2] = [
    "yarn_raft_append_duration_seconds",
    "yarn_raft_apply_duration_seconds",
];

/// Bucket bounds of the allocations-per-pass histogram.
const ALLOCATION_BUCKETS: [f64; 10] = [
    0.0, 1.0, 10.0, 100.0, 1_000.0, 5_000.0, 10_000.0, 50_000.0, 100_000.0, 500_000.0,
];

/// How often the recorder folds recorded histogram samples into its buckets; without it they
/// pile up between scrapes (and forever if nobody scrapes).
const UPKEEP_INTERVAL: Duration = Duration::from_secs(5);

/// What this replica's Raft node reports, at scrape time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct RaftFigures {
    /// The current term.
    pub(crate) term: u64,
    /// Whether this replica serves as the leader.
    pub(crate) leader: bool,
    /// The last entry of its log.
    pub(crate) last_log_index: u64,
    /// The last entry it applied.
    pub(crate) applied_index: u64,
    /// The last entry its snapshot covers.
    pub(crate) snapshot_index: u64,
}

/// What the leader reads for a scrape, under one read barrier: Hadoop's `ClusterMetrics`
/// figures, the leadership's opportunistic counts, and its queues.
#[derive(Debug, Clone, Default)]
pub(crate) struct LeaderFigures {
    /// Applications, resources and nodes of the cluster.
    pub(crate) overview: ClusterOverview,
    /// Opportunistic containers asked for and allocated under this leadership.
    pub(crate) counts: OpportunisticCounts,
    /// Every queue, and each leaf's users.
    pub(crate) queues: QueueFigures,
}

/// One replica's metrics, apart from every other replica in the process (each has its own
/// recorder, so in-process clusters do not mix their figures).
///
/// Events are recorded as they happen (RPCs, scheduling passes, Raft log appends and applies,
/// snapshots, leader changes) in the replica's registry, which [`keep_up`](Self::keep_up) must
/// run beside. The cluster's figures are rendered at scrape time, in a registry of their own
/// made for that scrape, from what the caller read ([`render`](Self::render)): Raft's view on
/// every replica, and the leader's view of applications, resources, nodes and queues on the
/// leader only (a follower holds no node tracker and no scheduler), so a replica that stopped
/// leading shows none of its old leader figures. Names follow Prometheus conventions: the
/// `yarn_` prefix, units in the name, `_total` for counters.
pub(crate) struct RmMetrics {
    recorder: PrometheusRecorder,
    handle: PrometheusHandle,
    /// The Raft storage's flushes and syncs, rendered at scrape time; none for metrics of
    /// their own.
    storage: Option<Arc<SyncCounts>>,
}

impl std::fmt::Debug for RmMetrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RmMetrics").finish_non_exhaustive()
    }
}

impl Default for RmMetrics {
    fn default() -> Self {
        Self::new()
    }
}

impl RmMetrics {
    /// An empty registry.
    pub(crate) fn new() -> Self {
        // The bucket setters refuse only an empty list.
        let builder = PrometheusBuilder::new();
        let builder = builder
            .set_buckets(&LATENCY_BUCKETS)
            .unwrap_or_else(|_| PrometheusBuilder::new());
        let builder = STORAGE_HISTOGRAMS.iter().fold(builder, |builder, name| {
            builder
                .set_buckets_for_metric(Matcher::Full((*name).to_owned()), &STORAGE_BUCKETS)
                .unwrap_or_else(|_| PrometheusBuilder::new())
        });
        let recorder = builder
            .set_buckets_for_metric(
                Matcher::Full("yarn_scheduler_pass_allocations".to_owned()),
                &ALLOCATION_BUCKETS,
            )
            .unwrap_or_else(|_| PrometheusBuilder::new())
            .build_recorder();
        let handle = recorder.handle();
        Self {
            recorder,
            handle,
            storage: None,
        }
    }

    /// The same metrics rendering the Raft storage's `counts` as
    /// `yarn_raft_storage_flushes_total` (waits for durability: appends, votes, truncations,
    /// purges, snapshots) and `yarn_raft_storage_syncs_total` (fdatasync rounds that served
    /// them; fewer than flushes when flushes shared a sync).
    pub(crate) fn with_storage_counts(self, counts: Arc<SyncCounts>) -> Self {
        Self {
            storage: Some(counts),
            ..self
        }
    }

    /// One call of `method` of `protocol` that took `elapsed`.
    pub(crate) fn record_rpc(&self, protocol: &str, method: &str, elapsed: Duration) {
        let labels = [
            ("protocol", protocol.to_owned()),
            ("method", method.to_owned()),
        ];
        metrics::with_local_recorder(&self.recorder, || {
            counter!("yarn_rpc_requests_total", &labels).increment(1);
            histogram!("yarn_rpc_request_duration_seconds", &labels).record(elapsed.as_secs_f64());
        });
    }

    /// One scheduling pass that took `elapsed` and allocated `allocations` containers.
    pub(crate) fn record_pass(&self, elapsed: Duration, allocations: usize) {
        metrics::with_local_recorder(&self.recorder, || {
            histogram!("yarn_scheduler_pass_duration_seconds").record(elapsed.as_secs_f64());
            histogram!("yarn_scheduler_pass_allocations").record(allocations as f64);
            counter!("yarn_scheduler_allocations_total").increment(allocations as u64);
        });
    }

    /// One append to the Raft log, of any number of entries, that took `elapsed` until it was
    /// on disk.
    pub(crate) fn record_append(&self, elapsed: Duration) {
        metrics::with_local_recorder(&self.recorder, || {
            histogram!("yarn_raft_append_duration_seconds").record(elapsed.as_secs_f64());
        });
    }

    /// One batch of committed entries applied to the state machine in `elapsed`.
    pub(crate) fn record_apply(&self, elapsed: Duration) {
        metrics::with_local_recorder(&self.recorder, || {
            histogram!("yarn_raft_apply_duration_seconds").record(elapsed.as_secs_f64());
        });
    }

    /// A snapshot built or installed, holding `bytes` of encoded state.
    pub(crate) fn record_snapshot(&self, bytes: usize) {
        metrics::with_local_recorder(&self.recorder, || {
            gauge!("yarn_raft_snapshot_size_bytes").set(bytes as f64);
        });
    }

    /// This replica saw a new leadership begin: a leader it had not seen in that term.
    pub(crate) fn record_leader_change(&self) {
        metrics::with_local_recorder(&self.recorder, || {
            counter!("yarn_raft_leader_changes_total").increment(1);
        });
    }

    /// Folds recorded samples into the histograms every [`UPKEEP_INTERVAL`] until `shutdown`
    /// is cancelled.
    pub(crate) async fn keep_up(&self, shutdown: tokio_util::sync::CancellationToken) {
        let mut ticks = tokio::time::interval(UPKEEP_INTERVAL);
        loop {
            tokio::select! {
                () = shutdown.cancelled() => return,
                _ = ticks.tick() => self.handle.run_upkeep(),
            }
        }
    }

    /// The text page: the events recorded so far, and the figures of `raft` and, on the
    /// leader, of `leader`.
    pub(crate) fn render(&self, raft: RaftFigures, leader: Option<&LeaderFigures>) -> String {
        let figures = PrometheusBuilder::new().build_recorder();
        let figures_page = figures.handle();
        metrics::with_local_recorder(&figures, || {
            gauge!("yarn_raft_term").set(raft.term as f64);
            gauge!("yarn_raft_leader").set(if raft.leader { 1.0 } else { 0.0 });
            gauge!("yarn_raft_last_log_index").set(raft.last_log_index as f64);
            gauge!("yarn_raft_applied_index").set(raft.applied_index as f64);
            gauge!("yarn_raft_snapshot_index").set(raft.snapshot_index as f64);
            if let Some(storage) = &self.storage {
                counter!("yarn_raft_storage_flushes_total").absolute(storage.requests());
                counter!("yarn_raft_storage_syncs_total").absolute(storage.syncs());
            }
            if let Some(leader) = leader {
                set_cluster(&leader.overview, leader.counts);
                leader.queues.record();
            }
        });
        let mut page = self.handle.render();
        page.push_str(&figures_page.render());
        page
    }
}

/// The leader's figures, Hadoop's `ClusterMetrics` under Prometheus names.
fn set_cluster(overview: &ClusterOverview, counts: OpportunisticCounts) {
    counter!("yarn_applications_submitted_total").absolute(overview.apps_submitted);
    for (state, count) in [
        ("pending", overview.apps_pending),
        ("running", overview.apps_running),
        ("completed", overview.apps_completed),
        ("failed", overview.apps_failed),
        ("killed", overview.apps_killed),
    ] {
        gauge!("yarn_applications", "state" => state).set(count as f64);
    }
    gauge!("yarn_memory_allocated_megabytes").set(overview.allocated_mb as f64);
    gauge!("yarn_memory_available_megabytes").set(overview.available_mb() as f64);
    gauge!("yarn_memory_total_megabytes").set(overview.total_mb as f64);
    gauge!("yarn_vcores_allocated").set(overview.allocated_vcores as f64);
    gauge!("yarn_vcores_available").set(overview.available_vcores() as f64);
    gauge!("yarn_vcores_total").set(overview.total_vcores as f64);
    gauge!("yarn_containers_allocated").set(overview.containers_allocated as f64);
    for (state, count) in [
        ("running", overview.active_nodes),
        ("lost", overview.lost_nodes),
        ("decommissioned", overview.decommissioned_nodes),
    ] {
        gauge!("yarn_nodemanagers", "state" => state).set(count as f64);
    }
    counter!("yarn_opportunistic_containers_requested_centrally_total")
        .absolute(counts.requested_centrally);
    counter!("yarn_opportunistic_containers_allocated_centrally_total")
        .absolute(counts.allocated_centrally);
    counter!("yarn_opportunistic_containers_allocated_distributed_total")
        .absolute(counts.allocated_distributed);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(page: &str, series: &str) -> Option<f64> {
        page.lines()
            .find_map(|line| line.strip_prefix(series)?.trim().parse().ok())
    }

    #[test]
    fn a_leader_renders_raft_and_cluster_figures_and_recorded_events() {
        let metrics = RmMetrics::new();
        metrics.record_rpc(
            "ApplicationClientProtocol",
            "getNewApplication",
            Duration::from_millis(3),
        );
        metrics.record_rpc(
            "ApplicationClientProtocol",
            "getNewApplication",
            Duration::from_millis(30),
        );
        metrics.record_pass(Duration::from_millis(12), 7);
        let overview = ClusterOverview {
            apps_submitted: 4,
            apps_running: 2,
            allocated_mb: 2048,
            total_mb: 8192,
            active_nodes: 1,
            ..ClusterOverview::default()
        };
        let raft = RaftFigures {
            term: 3,
            leader: true,
            last_log_index: 40,
            applied_index: 39,
            snapshot_index: 0,
        };
        let leader = LeaderFigures {
            overview,
            ..LeaderFigures::default()
        };
        let page = metrics.render(raft, Some(&leader));
        assert_eq!(value(&page, "yarn_raft_term"), Some(3.0), "{page}");
        assert_eq!(value(&page, "yarn_raft_leader"), Some(1.0), "{page}");
        assert_eq!(
            value(&page, "yarn_applications_submitted_total"),
            Some(4.0),
            "{page}"
        );
        assert_eq!(
            value(&page, "yarn_applications{state=\"running\"}"),
            Some(2.0),
            "{page}"
        );
        assert_eq!(
            value(&page, "yarn_memory_available_megabytes"),
            Some(6144.0),
            "{page}"
        );
        assert_eq!(
            value(&page, "yarn_nodemanagers{state=\"running\"}"),
            Some(1.0),
            "{page}"
        );
        assert_eq!(
            value(
                &page,
                "yarn_rpc_requests_total{protocol=\"ApplicationClientProtocol\",method=\"getNewApplication\"}"
            ),
            Some(2.0),
            "{page}"
        );
        assert_eq!(
            value(&page, "yarn_scheduler_allocations_total"),
            Some(7.0),
            "{page}"
        );
        assert!(
            page.contains("yarn_rpc_request_duration_seconds_bucket"),
            "{page}"
        );
    }

    #[test]
    fn raft_storage_events_land_in_their_histograms() {
        let metrics = RmMetrics::new();
        metrics.record_append(Duration::from_millis(2));
        metrics.record_apply(Duration::from_micros(20));
        metrics.record_apply(Duration::from_micros(30));
        metrics.record_snapshot(4096);
        metrics.record_leader_change();
        let page = metrics.render(RaftFigures::default(), None);
        assert_eq!(
            value(&page, "yarn_raft_append_duration_seconds_count"),
            Some(1.0),
            "{page}"
        );
        assert_eq!(
            value(&page, "yarn_raft_apply_duration_seconds_count"),
            Some(2.0),
            "{page}"
        );
        // Applies take microseconds: the storage buckets tell them apart.
        assert_eq!(
            value(
                &page,
                "yarn_raft_apply_duration_seconds_bucket{le=\"0.00001\"}"
            ),
            Some(0.0),
            "{page}"
        );
        assert_eq!(
            value(
                &page,
                "yarn_raft_apply_duration_seconds_bucket{le=\"0.00005\"}"
            ),
            Some(2.0),
            "{page}"
        );
        assert_eq!(
            value(&page, "yarn_raft_snapshot_size_bytes"),
            Some(4096.0),
            "{page}"
        );
        assert_eq!(
            value(&page, "yarn_raft_leader_changes_total"),
            Some(1.0),
            "{page}"
        );
    }

    #[tokio::test]
    async fn the_raft_storages_flushes_and_syncs_are_rendered() {
        let dir = tempfile::tempdir().unwrap();
        let db = yarn_sled_sync::DurableDb::open(dir.path(), sled::Config::new()).unwrap();
        let metrics = RmMetrics::new().with_storage_counts(db.counts());
        db.flush().await.unwrap();
        let page = metrics.render(RaftFigures::default(), None);
        assert_eq!(
            value(&page, "yarn_raft_storage_flushes_total"),
            Some(1.0),
            "{page}"
        );
        assert_eq!(
            value(&page, "yarn_raft_storage_syncs_total"),
            Some(1.0),
            "{page}"
        );
    }

    #[test]
    fn a_follower_renders_only_what_it_knows() {
        let page = RmMetrics::new().render(RaftFigures::default(), None);
        assert_eq!(value(&page, "yarn_raft_leader"), Some(0.0), "{page}");
        assert!(!page.contains("yarn_applications"), "{page}");
        assert!(!page.contains("yarn_queue"), "{page}");
    }

    /// A replica that stopped leading shows none of its old leader figures.
    #[test]
    fn a_former_leader_drops_its_leader_figures() {
        let metrics = RmMetrics::new();
        let overview = ClusterOverview {
            apps_running: 2,
            ..ClusterOverview::default()
        };
        let leader = LeaderFigures {
            overview,
            ..LeaderFigures::default()
        };
        let leading = metrics.render(RaftFigures::default(), Some(&leader));
        assert!(leading.contains("yarn_applications"), "{leading}");
        let deposed = metrics.render(RaftFigures::default(), None);
        assert!(!deposed.contains("yarn_applications"), "{deposed}");
    }

    #[test]
    fn two_replicas_in_one_process_keep_their_own_figures() {
        let (one, two) = (RmMetrics::new(), RmMetrics::new());
        one.record_rpc("ResourceTracker", "nodeHeartbeat", Duration::from_millis(1));
        let page = two.render(RaftFigures::default(), None);
        assert!(!page.contains("nodeHeartbeat"), "{page}");
    }
}
