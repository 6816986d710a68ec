//! [`NodeMetrics`]: the NodeManager's Prometheus page (`/metrics`), Hadoop's `NodeManagerMetrics`
//! figures under Prometheus names.

use metrics::{counter, gauge};
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle, PrometheusRecorder};
use yarn_sled_sync::SyncCounts;

use super::NodeDescription;
use crate::container_manager::ContainerReport;
use crate::container_scheduler::{ExecutionType, OpportunisticContainersStatus};

/// The container states a node reports, as YARN names them.
const STATES: [&str; 4] = ["NEW", "SCHEDULED", "RUNNING", "COMPLETE"];

/// One node's metrics registry, apart from any other in the process.
///
/// Every figure is set at scrape time from what the node holds then: its containers by state
/// and execution type (SCHEDULED ones wait in the node's queue), what its running containers
/// hold, its capacity and what of it they leave (Hadoop's `AvailableGB` and `AvailableVCores`),
/// and its opportunistic queue, and, with recovery on, how many recovery-store writes waited for
/// durability and how many fdatasync rounds served them. Each label combination is set on every
/// scrape, so a state no container is in any more reads 0 rather than its last count.
pub struct NodeMetrics {
    recorder: PrometheusRecorder,
    handle: PrometheusHandle,
}

impl std::fmt::Debug for NodeMetrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NodeMetrics").finish_non_exhaustive()
    }
}

impl Default for NodeMetrics {
    fn default() -> Self {
        let recorder = PrometheusBuilder::new().build_recorder();
        let handle = recorder.handle();
        Self { recorder, handle }
    }
}

impl NodeMetrics {
    /// The text page for the node `node` describes, holding `containers`, with the
    /// opportunistic queue as `status` reports it and the recovery store's `syncs`.
    pub fn render(
        &self,
        node: &NodeDescription,
        containers: &[ContainerReport],
        status: &OpportunisticContainersStatus,
        syncs: Option<&SyncCounts>,
    ) -> String {
        metrics::with_local_recorder(&self.recorder, || {
            let (mut held_memory, mut held_vcores) = (0u64, 0u64);
            for execution_type in [ExecutionType::Guaranteed, ExecutionType::Opportunistic] {
                let kind = type_label(execution_type);
                let of_type = || {
                    containers
                        .iter()
                        .filter(move |report| report.execution_type == execution_type)
                };
                for state in STATES {
                    let count = of_type()
                        .filter(|report| report.state_name() == state)
                        .count();
                    gauge!("yarn_nm_containers", "state" => state, "execution_type" => kind)
                        .set(count as f64);
                }
                let running = || of_type().filter(|report| report.state_name() == "RUNNING");
                let memory: u64 = running().map(|report| report.memory_mb).sum();
                let vcores: u64 = running().map(|report| u64::from(report.vcores)).sum();
                gauge!("yarn_nm_allocated_memory_megabytes", "execution_type" => kind)
                    .set(memory as f64);
                gauge!("yarn_nm_allocated_vcores", "execution_type" => kind).set(vcores as f64);
                held_memory = held_memory.saturating_add(memory);
                held_vcores = held_vcores.saturating_add(vcores);
            }
            gauge!("yarn_nm_capacity_memory_megabytes").set(node.memory_mb as f64);
            gauge!("yarn_nm_capacity_vcores").set(f64::from(node.vcores));
            gauge!("yarn_nm_available_memory_megabytes")
                .set(node.memory_mb.saturating_sub(held_memory) as f64);
            gauge!("yarn_nm_available_vcores")
                .set(u64::from(node.vcores).saturating_sub(held_vcores) as f64);
            gauge!("yarn_nm_opportunistic_queued_containers")
                .set(f64::from(status.queued_opportunistic_containers));
            gauge!("yarn_nm_wait_queue_length").set(f64::from(status.wait_queue_length));
            gauge!("yarn_nm_opportunistic_queue_capacity").set(f64::from(status.queue_capacity));
            if let Some(syncs) = syncs {
                counter!("yarn_nm_state_store_flushes_total").absolute(syncs.requests());
                counter!("yarn_nm_state_store_syncs_total").absolute(syncs.syncs());
            }
        });
        self.handle.render()
    }
}

fn type_label(execution_type: ExecutionType) -> &'static str {
    match execution_type {
        ExecutionType::Guaranteed => "guaranteed",
        ExecutionType::Opportunistic => "opportunistic",
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, ContainerId, NodeId};
    use yarn_proto::pb;

    use super::*;

    fn report(
        n: i64,
        state: pb::ContainerStateProto,
        execution_type: ExecutionType,
    ) -> ContainerReport {
        let attempt = ApplicationAttemptId::new(ApplicationId::new(1_700, 1), 1);
        ContainerReport {
            container_id: ContainerId::new(attempt, 1, n).unwrap(),
            user: "alice".to_owned(),
            state,
            pid: None,
            exit_code: None,
            diagnostics: String::new(),
            memory_mb: 512,
            vcores: 1,
            execution_type,
            log_dir: PathBuf::new(),
        }
    }

    fn value(page: &str, series: &str) -> Option<f64> {
        page.lines()
            .find_map(|line| line.strip_prefix(series)?.trim().parse().ok())
    }

    #[tokio::test]
    async fn containers_by_state_and_type_what_they_hold_the_queue_and_the_store_syncs() {
        let node = NodeDescription {
            node_id: NodeId::new("h1", 8041),
            memory_mb: 8192,
            vcores: 8,
            pmem_check_enabled: false,
            started_at_ms: 0,
        };
        let running = pb::ContainerStateProto::CRunning;
        let containers = [
            report(1, running, ExecutionType::Guaranteed),
            report(2, running, ExecutionType::Opportunistic),
            report(
                3,
                pb::ContainerStateProto::CScheduled,
                ExecutionType::Opportunistic,
            ),
        ];
        let status = OpportunisticContainersStatus {
            queued_opportunistic_containers: 1,
            wait_queue_length: 1,
            queue_capacity: 10,
            ..OpportunisticContainersStatus::default()
        };
        let metrics = NodeMetrics::default();
        let dir = tempfile::tempdir().unwrap();
        let store = crate::NmStateStore::open(dir.path()).unwrap();
        store.store_rm_epoch(3).await.unwrap();
        store.store_heartbeat_response_id(9).await.unwrap();
        let syncs = store.sync_counts().expect("a sled store counts its syncs");
        let page = metrics.render(&node, &containers, &status, Some(&syncs));
        assert_eq!(
            value(&page, "yarn_nm_state_store_flushes_total"),
            Some(2.0),
            "{page}"
        );
        assert!(
            value(&page, "yarn_nm_state_store_syncs_total")
                .is_some_and(|n| (1.0..=2.0).contains(&n)),
            "{page}"
        );
        let series = |name: &str| value(&page, name);
        assert_eq!(
            series(r#"yarn_nm_containers{state="RUNNING",execution_type="guaranteed"}"#),
            Some(1.0),
            "{page}"
        );
        assert_eq!(
            series(r#"yarn_nm_containers{state="SCHEDULED",execution_type="opportunistic"}"#),
            Some(1.0),
            "{page}"
        );
        assert_eq!(
            series(r#"yarn_nm_allocated_memory_megabytes{execution_type="opportunistic"}"#),
            Some(512.0),
            "{page}"
        );
        assert_eq!(
            series("yarn_nm_capacity_memory_megabytes"),
            Some(8192.0),
            "{page}"
        );
        assert_eq!(
            series("yarn_nm_opportunistic_queue_capacity"),
            Some(10.0),
            "{page}"
        );
        assert_eq!(
            series("yarn_nm_opportunistic_queued_containers"),
            Some(1.0),
            "{page}"
        );
        // Two running 512 MB containers, one of each type; the scheduled one holds nothing.
        assert_eq!(
            series("yarn_nm_available_memory_megabytes"),
            Some(7168.0),
            "{page}"
        );
        assert_eq!(series("yarn_nm_available_vcores"), Some(6.0), "{page}");

        // A state no container is in any more reads 0 on the next scrape.
        let page = metrics.render(&node, &[], &OpportunisticContainersStatus::default(), None);
        assert_eq!(
            value(
                &page,
                r#"yarn_nm_containers{state="RUNNING",execution_type="guaranteed"}"#
            ),
            Some(0.0),
            "{page}"
        );
        // Without recovery there is no store to count.
        let fresh = NodeMetrics::default();
        let page = fresh.render(&node, &[], &OpportunisticContainersStatus::default(), None);
        assert_eq!(
            value(&page, "yarn_nm_state_store_syncs_total"),
            None,
            "{page}"
        );
    }
}
