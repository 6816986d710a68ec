//! [`NodeInfo`]: the body of `/ws/v1/node/info`, in Hadoop's JSON shape.

use serde::Serialize;

use super::NodeDescription;

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
}

impl NodeInfo {
    /// The `nodeInfo` object of `node`.
    pub fn describe(node: &NodeDescription) -> Self {
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

    #[test]
    fn serializes_in_hadoops_shape_with_the_nodes_facts() {
        let response = NodeInfoResponse {
            node_info: NodeInfo::describe(&node()),
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
            }})
        );
    }

    #[test]
    fn the_pmem_check_follows_the_configuration() {
        let mut node = node();
        node.pmem_check_enabled = false;
        let value = serde_json::to_value(NodeInfo::describe(&node)).unwrap();
        assert_eq!(value["pmemCheckEnabled"], Value::Bool(false));
        assert_eq!(value["vmemCheckEnabled"], Value::Bool(false));
    }
}
