//! [`ClusterMetricsInfo`]: `/ws/v1/cluster/metrics`.

use serde::Serialize;

use crate::applications::ClusterOverview;

/// `{"clusterMetrics": {...}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct ClusterMetricsResponse {
    #[serde(rename = "clusterMetrics")]
    pub(crate) cluster_metrics: ClusterMetricsInfo,
}

/// Hadoop's `clusterMetrics` object, from the leader's [`ClusterOverview`].
///
/// What yarn-ha does not have is reported as none, because there is none: reservations
/// (`reservedMB`, `reservedVirtualCores`, `containersReserved`), node health
/// (`unhealthyNodes`), reboots and graceful shutdowns (`rebootedNodes`, `shutdownNodes`).
/// `containersPending` counts no asks: they live in the scheduler, which this read does not
/// hold (see the performance rule), and is reported as 0.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ClusterMetricsInfo {
    pub(super) apps_submitted: u64,
    pub(super) apps_completed: u64,
    pub(super) apps_pending: u64,
    pub(super) apps_running: u64,
    pub(super) apps_failed: u64,
    pub(super) apps_killed: u64,
    #[serde(rename = "reservedMB")]
    pub(super) reserved_mb: u64,
    #[serde(rename = "availableMB")]
    pub(super) available_mb: u64,
    #[serde(rename = "allocatedMB")]
    pub(super) allocated_mb: u64,
    #[serde(rename = "totalMB")]
    pub(super) total_mb: u64,
    pub(super) reserved_virtual_cores: u64,
    pub(super) available_virtual_cores: u64,
    pub(super) allocated_virtual_cores: u64,
    pub(super) total_virtual_cores: u64,
    pub(super) containers_allocated: u64,
    pub(super) containers_reserved: u64,
    pub(super) containers_pending: u64,
    pub(super) total_nodes: u64,
    pub(super) active_nodes: u64,
    pub(super) lost_nodes: u64,
    pub(super) unhealthy_nodes: u64,
    pub(super) decommissioned_nodes: u64,
    pub(super) rebooted_nodes: u64,
    pub(super) shutdown_nodes: u64,
}

impl ClusterMetricsInfo {
    /// The object for `overview`.
    pub(crate) fn describe(overview: &ClusterOverview) -> ClusterMetricsResponse {
        ClusterMetricsResponse {
            cluster_metrics: ClusterMetricsInfo {
                apps_submitted: overview.apps_submitted,
                apps_completed: overview.apps_completed,
                apps_pending: overview.apps_pending,
                apps_running: overview.apps_running,
                apps_failed: overview.apps_failed,
                apps_killed: overview.apps_killed,
                reserved_mb: 0,
                available_mb: overview.available_mb(),
                allocated_mb: overview.allocated_mb,
                total_mb: overview.total_mb,
                reserved_virtual_cores: 0,
                available_virtual_cores: overview.available_vcores(),
                allocated_virtual_cores: overview.allocated_vcores,
                total_virtual_cores: overview.total_vcores,
                containers_allocated: overview.containers_allocated,
                containers_reserved: 0,
                containers_pending: 0,
                total_nodes: overview.total_nodes,
                active_nodes: overview.active_nodes,
                lost_nodes: overview.lost_nodes,
                unhealthy_nodes: 0,
                decommissioned_nodes: overview.decommissioned_nodes,
                rebooted_nodes: 0,
                shutdown_nodes: 0,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hadoops_names_carry_the_overview() {
        let overview = ClusterOverview {
            apps_submitted: 5,
            apps_running: 2,
            apps_pending: 1,
            apps_completed: 1,
            apps_killed: 1,
            allocated_mb: 3072,
            allocated_vcores: 3,
            containers_allocated: 3,
            total_mb: 8192,
            total_vcores: 8,
            total_nodes: 2,
            active_nodes: 1,
            lost_nodes: 1,
            ..ClusterOverview::default()
        };
        let body = serde_json::to_value(ClusterMetricsInfo::describe(&overview)).unwrap();
        let metrics = &body["clusterMetrics"];
        for (field, value) in [
            ("appsSubmitted", 5),
            ("appsRunning", 2),
            ("appsPending", 1),
            ("appsCompleted", 1),
            ("appsKilled", 1),
            ("appsFailed", 0),
            ("allocatedMB", 3072),
            ("availableMB", 5120),
            ("totalMB", 8192),
            ("allocatedVirtualCores", 3),
            ("availableVirtualCores", 5),
            ("totalVirtualCores", 8),
            ("containersAllocated", 3),
            ("totalNodes", 2),
            ("activeNodes", 1),
            ("lostNodes", 1),
            ("reservedMB", 0),
        ] {
            assert_eq!(metrics[field], value, "{field} in {metrics}");
        }
        assert_eq!(metrics.as_object().unwrap().len(), 24, "{metrics}");
    }
}
