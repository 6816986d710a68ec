//! [`NodeInfo`]: the body of `/ws/v1/node/info`, in Hadoop's JSON shape.

use serde::Serialize;

use super::NodeDescription;
use crate::container_scheduler::OpportunisticContainersStatus;

/// The yarn-ha release, which stands in every version field: yarn-ha is not built from Hadoop,
/// so it has no separate NodeManager and Hadoop versions to report.
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// `{"nodeInfo": {...}}`, the document `/ws/v1/node` and `/ws/v1/node/info` return.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeInfoResponse {
    /// The node.
    pub node_info: NodeInfo,
}

/// Hadoop's `nodeInfo` object, with every field Hadoop's NodeManager documents.
///
/// yarn-ha has no node health checker (no health script, no disk checker), so a running node
/// always reports itself healthy with an empty report, and that verdict dates from its start.
/// It has no virtual-memory check either. Neither does it record a build time, so the
/// `...BuiltOn` fields are empty rather than made up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeInfo {
    /// The node health report: always empty, as Hadoop's is for a healthy node.
    pub health_report: String,
    /// Virtual memory for containers in MB: equal to the physical memory, since yarn-ha
    /// applies no virtual-to-physical ratio (it does not check virtual memory).
    #[serde(rename = "totalVmemAllocatedContainersMB")]
    pub total_vmem_allocated_containers_mb: u64,
    /// Physical memory offered to containers in MB (`yarn.nodemanager.resource.memory-mb`):
    /// the node's capacity, not what its containers use now, as in Hadoop.
    #[serde(rename = "totalPmemAllocatedContainersMB")]
    pub total_pmem_allocated_containers_mb: u64,
    /// Vcores offered to containers (`yarn.nodemanager.resource.cpu-vcores`).
    #[serde(rename = "totalVCoresAllocatedContainers")]
    pub total_vcores_allocated_containers: u64,
    /// Always false: yarn-ha never kills a container for its virtual memory.
    pub vmem_check_enabled: bool,
    /// Whether a container over its memory allocation is killed
    /// (`yarn.nodemanager.pmem-check-enabled`).
    pub pmem_check_enabled: bool,
    /// When the health verdict was last made, in milliseconds since the Unix epoch: the
    /// NodeManager's start, since the verdict never changes afterwards.
    pub last_node_update_time: i64,
    /// Always true while the node serves (see `health_report`).
    pub node_healthy: bool,
    /// The yarn-ha release.
    pub node_manager_version: String,
    /// The yarn-ha release; Hadoop adds revision, user and checksum, which yarn-ha does not
    /// record.
    pub node_manager_build_version: String,
    /// Empty: yarn-ha does not record when it was built.
    pub node_manager_version_built_on: String,
    /// The yarn-ha release, in place of Hadoop common's.
    pub hadoop_version: String,
    /// The yarn-ha release, in place of Hadoop common's build string.
    pub hadoop_build_version: String,
    /// Empty: yarn-ha does not record when it was built.
    pub hadoop_version_built_on: String,
    /// The node id, `host:port` of the container-manager endpoint.
    pub id: String,
    /// The node's host name.
    pub node_host_name: String,
    /// When the NodeManager started, in milliseconds since the Unix epoch.
    pub nm_startup_time: i64,
    /// OPPORTUNISTIC containers running now (Hadoop's RM node view has the same field).
    pub num_running_opport_containers: u32,
    /// Memory they hold, in whole GB rounded down as Hadoop's RM node view shows it.
    #[serde(rename = "usedMemoryOpportGB")]
    pub used_memory_opport_gb: u64,
    /// Memory they hold in MB, exact (a yarn-ha addition: small containers vanish in GB).
    #[serde(rename = "usedMemoryOpportMB")]
    pub used_memory_opport_mb: u64,
    /// Vcores they hold.
    pub used_virtual_cores_opport: u32,
    /// OPPORTUNISTIC containers waiting in the node's queue, as Hadoop's node view counts them
    /// and as node reports and `node -list` show them.
    pub num_queued_containers: u32,
}

impl NodeInfo {
    /// The `nodeInfo` object of `node`, whose container scheduler reports `load`.
    pub fn describe(node: &NodeDescription, load: &OpportunisticContainersStatus) -> Self {
        Self {
            health_report: String::new(),
            total_vmem_allocated_containers_mb: node.memory_mb,
            total_pmem_allocated_containers_mb: node.memory_mb,
            total_vcores_allocated_containers: u64::from(node.vcores),
            vmem_check_enabled: false,
            pmem_check_enabled: node.pmem_check_enabled,
            last_node_update_time: node.started_at_ms,
            node_healthy: true,
            node_manager_version: VERSION.to_owned(),
            node_manager_build_version: VERSION.to_owned(),
            node_manager_version_built_on: String::new(),
            hadoop_version: VERSION.to_owned(),
            hadoop_build_version: VERSION.to_owned(),
            hadoop_version_built_on: String::new(),
            id: node.node_id.to_string(),
            node_host_name: node.node_id.host.clone(),
            nm_startup_time: node.started_at_ms,
            num_running_opport_containers: load.running_opportunistic_containers,
            used_memory_opport_gb: load.opportunistic_memory_used_mb / 1024,
            used_memory_opport_mb: load.opportunistic_memory_used_mb,
            used_virtual_cores_opport: load.opportunistic_vcores_used,
            num_queued_containers: load.queued_opportunistic_containers,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};
    use yarn_proto::ids::NodeId;

    use super::*;

    fn node() -> NodeDescription {
        NodeDescription {
            node_id: NodeId::new("node1.example.com", 45454),
            memory_mb: 8192,
            vcores: 8,
            pmem_check_enabled: true,
            started_at_ms: 1_700_000_000_123,
        }
    }

    fn load() -> OpportunisticContainersStatus {
        OpportunisticContainersStatus {
            running_opportunistic_containers: 2,
            opportunistic_memory_used_mb: 1536,
            opportunistic_vcores_used: 2,
            queued_opportunistic_containers: 3,
            // A GUARANTEED container waits too; only the OPPORTUNISTIC ones are shown.
            wait_queue_length: 4,
            queue_capacity: 10,
        }
    }

    #[test]
    fn serializes_in_hadoops_shape_with_the_nodes_facts() {
        let response = NodeInfoResponse {
            node_info: NodeInfo::describe(&node(), &load()),
        };
        let value = serde_json::to_value(&response).unwrap();
        assert_eq!(
            value,
            json!({"nodeInfo": {
                "healthReport": "",
                "totalVmemAllocatedContainersMB": 8192,
                "totalPmemAllocatedContainersMB": 8192,
                "totalVCoresAllocatedContainers": 8,
                "vmemCheckEnabled": false,
                "pmemCheckEnabled": true,
                "lastNodeUpdateTime": 1_700_000_000_123_i64,
                "nodeHealthy": true,
                "nodeManagerVersion": VERSION,
                "nodeManagerBuildVersion": VERSION,
                "nodeManagerVersionBuiltOn": "",
                "hadoopVersion": VERSION,
                "hadoopBuildVersion": VERSION,
                "hadoopVersionBuiltOn": "",
                "id": "node1.example.com:45454",
                "nodeHostName": "node1.example.com",
                "nmStartupTime": 1_700_000_000_123_i64,
                "numRunningOpportContainers": 2,
                "usedMemoryOpportGB": 1,
                "usedMemoryOpportMB": 1536,
                "usedVirtualCoresOpport": 2,
                "numQueuedContainers": 3,
            }})
        );
    }

    #[test]
    fn the_pmem_check_follows_the_configuration() {
        let mut node = node();
        node.pmem_check_enabled = false;
        let value = serde_json::to_value(NodeInfo::describe(&node, &load())).unwrap();
        assert_eq!(value["pmemCheckEnabled"], Value::Bool(false));
        assert_eq!(value["vmemCheckEnabled"], Value::Bool(false));
    }
}
