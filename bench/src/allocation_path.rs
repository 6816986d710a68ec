//! [`AllocationPath`]: the ways `bench allocate` gets containers to an ApplicationMaster.

use std::fmt;

use serde::{Deserialize, Serialize};
use yarn_conf::keys;

use crate::allocate_am_options::AskedExecutionType;
use crate::amrm_transport::AmrmTransport;

/// Who places the containers an ApplicationMaster asks for, and over which hops.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum AllocationPath {
    /// GUARANTEED containers: the AM's allocate goes through its node's AMRMProxy to the
    /// leader RM, whose CapacityScheduler places them in a scheduling pass and commits them
    /// through Raft; a later allocate brings them.
    Guaranteed,
    /// OPPORTUNISTIC containers placed by the AMRMProxy's distributed scheduler on the AM's
    /// own NodeManager, from the RM's least-loaded list, and recorded with the RM.
    DistributedOpportunistic,
    /// GUARANTEED containers as [`Guaranteed`](Self::Guaranteed), with the AM talking to the
    /// RM directly (no AMRMProxy): the baseline for the centralized path, which has no proxy
    /// either.
    GuaranteedDirect,
    /// GUARANTEED containers as [`GuaranteedDirect`](Self::GuaranteedDirect), with the AM
    /// speaking Hadoop's own RPC (IPC version 9, SASL TOKEN with its AMRMToken, Hadoop's
    /// encoding) to the RM's scheduler port, as Hadoop's AMRMClient does.
    GuaranteedHadoopIpc,
    /// OPPORTUNISTIC containers placed by the leader RM's opportunistic allocator in a
    /// scheduling pass (no AMRMProxy, no distributed scheduling on the cluster).
    CentralizedOpportunistic,
}

impl AllocationPath {
    /// Every path, in the order the benchmark measures them: those through the AMRMProxy
    /// first, then those without.
    pub const ALL: [AllocationPath; 5] = [
        Self::Guaranteed,
        Self::DistributedOpportunistic,
        Self::GuaranteedDirect,
        Self::GuaranteedHadoopIpc,
        Self::CentralizedOpportunistic,
    ];

    /// What the ApplicationMaster asks for on this path.
    pub fn execution_type(self) -> AskedExecutionType {
        match self {
            Self::Guaranteed | Self::GuaranteedDirect | Self::GuaranteedHadoopIpc => {
                AskedExecutionType::Guaranteed
            }
            Self::DistributedOpportunistic | Self::CentralizedOpportunistic => {
                AskedExecutionType::Opportunistic
            }
        }
    }

    /// The RPC the ApplicationMaster speaks on this path.
    pub fn transport(self) -> AmrmTransport {
        match self {
            Self::GuaranteedHadoopIpc => AmrmTransport::HadoopIpc,
            _ => AmrmTransport::Grpc,
        }
    }

    /// Whether the path needs the cluster with AMRMProxies and distributed scheduling (the
    /// minicluster's default) rather than the one without.
    pub fn through_amrm_proxy(self) -> bool {
        matches!(self, Self::Guaranteed | Self::DistributedOpportunistic)
    }

    /// The `yarn-site.xml` properties that turn the minicluster's default layout into the
    /// cluster this path needs: none for the proxied cluster; for the other, the AMRMProxy and
    /// distributed scheduling off, which leaves OPPORTUNISTIC asks to the RM's allocator (still
    /// on in the layout), and Hadoop IPC on beside gRPC on the RMs' ports. Every path of one
    /// cluster gets the same properties: the gRPC paths of that cluster pay only the sniff of a
    /// connection's first bytes for Hadoop IPC being on.
    pub fn site_overrides(self) -> Vec<(String, String)> {
        if self.through_amrm_proxy() {
            return Vec::new();
        }
        [
            (keys::AMRM_PROXY_ENABLED, "false"),
            (keys::DIST_SCHEDULING_ENABLED, "false"),
            (keys::HADOOP_IPC_ENABLED, "true"),
        ]
        .iter()
        .map(|(key, value)| (key.name.to_string(), (*value).to_owned()))
        .collect()
    }

    /// A file-name-safe word for the path's output files.
    pub fn slug(self) -> &'static str {
        match self {
            Self::Guaranteed => "guaranteed",
            Self::DistributedOpportunistic => "opportunistic-distributed",
            Self::GuaranteedDirect => "guaranteed-direct",
            Self::GuaranteedHadoopIpc => "guaranteed-hadoop-ipc",
            Self::CentralizedOpportunistic => "opportunistic-centralized",
        }
    }
}

/// `GUARANTEED via AMRMProxy`, `OPPORTUNISTIC distributed`, `GUARANTEED direct to RM`,
/// `GUARANTEED Hadoop IPC` or `OPPORTUNISTIC centralized`, as the report's table names the
/// rows.
impl fmt::Display for AllocationPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Guaranteed => "GUARANTEED via AMRMProxy",
            Self::DistributedOpportunistic => "OPPORTUNISTIC distributed",
            Self::GuaranteedDirect => "GUARANTEED direct to RM",
            Self::GuaranteedHadoopIpc => "GUARANTEED Hadoop IPC",
            Self::CentralizedOpportunistic => "OPPORTUNISTIC centralized",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_paths_without_a_proxy_turn_it_and_distributed_scheduling_off_and_hadoop_ipc_on() {
        assert!(AllocationPath::Guaranteed.site_overrides().is_empty());
        assert!(
            AllocationPath::DistributedOpportunistic
                .site_overrides()
                .is_empty()
        );
        let overrides = AllocationPath::CentralizedOpportunistic.site_overrides();
        assert_eq!(AllocationPath::GuaranteedDirect.site_overrides(), overrides);
        assert_eq!(
            AllocationPath::GuaranteedHadoopIpc.site_overrides(),
            overrides
        );
        assert_eq!(
            overrides,
            [
                (
                    "yarn.nodemanager.amrmproxy.enabled".to_owned(),
                    "false".to_owned()
                ),
                (
                    "yarn.nodemanager.distributed-scheduling.enabled".to_owned(),
                    "false".to_owned()
                ),
                ("yarn.hadoop-ipc.enabled".to_owned(), "true".to_owned()),
            ]
        );
    }

    #[test]
    fn each_path_asks_for_its_execution_type() {
        for path in [
            AllocationPath::Guaranteed,
            AllocationPath::GuaranteedDirect,
            AllocationPath::GuaranteedHadoopIpc,
        ] {
            assert_eq!(path.execution_type(), AskedExecutionType::Guaranteed);
        }
        for path in AllocationPath::ALL {
            let hadoop_ipc = path == AllocationPath::GuaranteedHadoopIpc;
            assert_eq!(path.transport() == AmrmTransport::HadoopIpc, hadoop_ipc);
        }
        for path in [
            AllocationPath::DistributedOpportunistic,
            AllocationPath::CentralizedOpportunistic,
        ] {
            assert_eq!(path.execution_type(), AskedExecutionType::Opportunistic);
        }
        let labels: Vec<String> = AllocationPath::ALL
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            labels,
            [
                "GUARANTEED via AMRMProxy",
                "OPPORTUNISTIC distributed",
                "GUARANTEED direct to RM",
                "GUARANTEED Hadoop IPC",
                "OPPORTUNISTIC centralized"
            ]
        );
    }
}
