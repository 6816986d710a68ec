//! [`ClusterInfo`]: `/ws/v1/cluster/info`, what Hadoop clients probe to find the active RM.

use serde::Serialize;

/// The yarn-ha release, which stands in every version field: yarn-ha is not built from
/// Hadoop, so it has no separate ResourceManager and Hadoop versions to report.
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// This replica's role as the `clusterInfo` object reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ReplicaRole {
    /// Whether this replica serves as the leader (Hadoop's ACTIVE).
    pub(crate) active: bool,
    /// The Raft term it knows.
    pub(crate) term: u64,
    /// The rm-id of the leader it knows, if any.
    pub(crate) leader: Option<String>,
}

/// `{"clusterInfo": {...}}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct ClusterInfoResponse {
    #[serde(rename = "clusterInfo")]
    pub(crate) cluster_info: ClusterInfo,
}

/// Hadoop's `clusterInfo` object, with yarn-ha's Raft view where Hadoop reports its ZooKeeper
/// connection.
///
/// `haState` is `ACTIVE` on the serving leader and `STANDBY` on every other replica, as a
/// client that probes each RM expects; `haZooKeeperConnectionState`, which Hadoop fills with
/// its elector's ZooKeeper session, says the Raft role, term and leader instead, and the
/// `rmId`, `raftTerm` and `raftLeader` fields give them apart.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ClusterInfo {
    /// The cluster id: the cluster timestamp of its application ids.
    pub(crate) id: i64,
    /// When this replica started, in ms since the epoch.
    pub(crate) started_on: i64,
    /// Always `STARTED`: a replica answers only while it runs.
    pub(crate) state: &'static str,
    /// `ACTIVE` or `STANDBY`.
    pub(crate) ha_state: &'static str,
    /// The Raft view, in words.
    pub(crate) ha_zoo_keeper_connection_state: String,
    /// This replica's rm-id.
    pub(crate) rm_id: String,
    /// The Raft term this replica knows.
    pub(crate) raft_term: u64,
    /// The leader's rm-id, empty when this replica knows none.
    pub(crate) raft_leader: String,
    pub(crate) resource_manager_version: &'static str,
    pub(crate) resource_manager_build_version: &'static str,
    /// Empty: yarn-ha does not record when it was built.
    pub(crate) resource_manager_version_built_on: &'static str,
    pub(crate) hadoop_version: &'static str,
    pub(crate) hadoop_build_version: &'static str,
    /// Empty: yarn-ha does not record when it was built.
    pub(crate) hadoop_version_built_on: &'static str,
}

impl ClusterInfo {
    /// The object for replica `rm_id` of the cluster `cluster_id`, started at `started_on`,
    /// in `role`.
    pub(crate) fn describe(
        cluster_id: i64,
        started_on: i64,
        rm_id: &str,
        role: &ReplicaRole,
    ) -> ClusterInfoResponse {
        let leader = role.leader.clone().unwrap_or_default();
        let raft = match (role.active, &role.leader) {
            (true, _) => format!("Raft leader of term {}", role.term),
            (false, Some(leader)) => {
                format!("Raft follower in term {}, leader {leader}", role.term)
            }
            (false, None) => format!("Raft follower in term {}, no leader known", role.term),
        };
        ClusterInfoResponse {
            cluster_info: ClusterInfo {
                id: cluster_id,
                started_on,
                state: "STARTED",
                ha_state: if role.active { "ACTIVE" } else { "STANDBY" },
                ha_zoo_keeper_connection_state: raft,
                rm_id: rm_id.to_owned(),
                raft_term: role.term,
                raft_leader: leader,
                resource_manager_version: VERSION,
                resource_manager_build_version: VERSION,
                resource_manager_version_built_on: "",
                hadoop_version: VERSION,
                hadoop_build_version: VERSION,
                hadoop_version_built_on: "",
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_standby_says_so_and_names_the_leader_with_hadoops_field_names() {
        let role = ReplicaRole {
            active: false,
            term: 4,
            leader: Some("rm1".to_owned()),
        };
        let body = serde_json::to_value(ClusterInfo::describe(1_700, 1_800, "rm2", &role)).unwrap();
        assert_eq!(
            body,
            json!({"clusterInfo": {
                "id": 1_700,
                "startedOn": 1_800,
                "state": "STARTED",
                "haState": "STANDBY",
                "haZooKeeperConnectionState": "Raft follower in term 4, leader rm1",
                "rmId": "rm2",
                "raftTerm": 4,
                "raftLeader": "rm1",
                "resourceManagerVersion": VERSION,
                "resourceManagerBuildVersion": VERSION,
                "resourceManagerVersionBuiltOn": "",
                "hadoopVersion": VERSION,
                "hadoopBuildVersion": VERSION,
                "hadoopVersionBuiltOn": "",
            }})
        );
    }

    #[test]
    fn the_leader_is_active() {
        let role = ReplicaRole {
            active: true,
            term: 9,
            leader: Some("rm3".to_owned()),
        };
        let info = ClusterInfo::describe(1, 2, "rm3", &role).cluster_info;
        assert_eq!(info.ha_state, "ACTIVE");
        assert_eq!(info.ha_zoo_keeper_connection_state, "Raft leader of term 9");
    }
}
