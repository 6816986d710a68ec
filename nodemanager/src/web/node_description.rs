//! [`NodeDescription`]: the facts about a node that its web view reports and that do not change
//! while it runs.

use yarn_proto::ids::NodeId;

use crate::NmConfig;

/// What `/ws/v1/node/info` says about the node, fixed when the NodeManager starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeDescription {
    /// The node, as registered with the ResourceManager.
    pub node_id: NodeId,
    /// Memory offered to containers, in MB (`yarn.nodemanager.resource.memory-mb`).
    pub memory_mb: u64,
    /// Vcores offered to containers (`yarn.nodemanager.resource.cpu-vcores`).
    pub vcores: u32,
    /// Whether containers over their memory allocation are killed
    /// (`yarn.nodemanager.pmem-check-enabled`).
    pub pmem_check_enabled: bool,
    /// When the NodeManager started, in milliseconds since the Unix epoch.
    pub started_at_ms: i64,
}

impl NodeDescription {
    /// The description of node `node_id` configured by `config` and started at `started_at_ms`
    /// (milliseconds since the Unix epoch).
    pub fn new(config: &NmConfig, node_id: NodeId, started_at_ms: i64) -> Self {
        Self {
            node_id,
            memory_mb: config.memory_mb,
            vcores: config.vcores,
            pmem_check_enabled: config.pmem_check_enabled,
            started_at_ms,
        }
    }
}
