//! [`Observations`]: what the harness saw of the cluster besides the workload's own calls,
//! during the run and after healing.
//!
//! The observers talk to each daemon at its real address, past the proxies, so faults never
//! hide the cluster from them.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// One replica's answer to GetServiceStatus, kept only when it differs from that replica's
/// previous answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaderSample {
    /// When the answer came, on the run clock.
    pub at_ms: u64,
    /// The replica that answered.
    pub rm_id: String,
    /// Whether it reported ACTIVE.
    pub active: bool,
    /// Its Raft term.
    pub term: u64,
    /// The leader it knows of (empty when none).
    pub leader_rm_id: String,
}

/// A write (GetNewApplication, a Raft entry) the write prober got committed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WriteSample {
    /// When the call was sent.
    pub invoked_ms: u64,
    /// When the answer came.
    pub at_ms: u64,
    /// The replica that committed it, necessarily the leader then.
    pub rm_id: String,
    /// The application id it was given; empty in observations written before ids were kept.
    #[serde(default)]
    pub application_id: String,
}

/// Every container one NodeManager listed at one moment (`/ws/v1/node/containers`), kept only
/// when the list differs from the node's previous one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeSnapshot {
    /// When the list came.
    pub at_ms: u64,
    /// The NodeManager (`nm1`).
    pub node: String,
    /// The containers it knows.
    pub containers: Vec<ContainerView>,
}

/// One container as a NodeManager lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContainerView {
    /// The container id.
    pub id: String,
    /// NEW, SCHEDULED, RUNNING or COMPLETE.
    pub state: String,
    /// GUARANTEED or OPPORTUNISTIC.
    pub execution_type: String,
    /// Its memory in MB.
    pub memory_mb: u64,
    /// Its vcores.
    pub vcores: u64,
    /// Its exit status once COMPLETE; -1000 before.
    pub exit_code: i32,
}

impl ContainerView {
    /// Whether it runs as GUARANTEED, counting against the node's capacity.
    pub fn runs_guaranteed(&self) -> bool {
        self.state == "RUNNING" && self.execution_type == "GUARANTEED"
    }
}

/// A NodeManager's identity and capacity, from its configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeInfo {
    /// Its node id, `host:port`, as containers and reports name it.
    pub node_id: String,
    /// The memory it offers to containers, in MB.
    pub memory_mb: u64,
    /// The vcores it offers.
    pub vcores: u64,
}

/// An acknowledged application as the cluster reported it after healing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FinalApplication {
    /// The application.
    pub application_id: String,
    /// Its last report, when the cluster gave one.
    pub report: Option<FinalReport>,
    /// Why there is no report, or why the report is not final.
    pub error: Option<String>,
}

/// The fields of an application report the checkers use.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FinalReport {
    /// Its state (FINISHED, FAILED, KILLED, or a non-final one if it never ended).
    pub state: String,
    /// The final status its ApplicationMaster reported.
    pub final_status: String,
    /// The number of its current attempt (1 when its first ApplicationMaster kept running).
    pub attempt: i32,
    /// Its diagnostics: the distributed shell lists every task container here.
    pub diagnostics: String,
    /// When this report came.
    pub observed_at_ms: u64,
}

impl FinalReport {
    /// Whether the state is one an application never leaves.
    pub fn is_final(&self) -> bool {
        matches!(self.state.as_str(), "FINISHED" | "FAILED" | "KILLED")
    }

    /// Whether it FINISHED with final status SUCCEEDED.
    pub fn succeeded(&self) -> bool {
        self.state == "FINISHED" && self.final_status == "SUCCEEDED"
    }
}

/// One replica's status after healing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplicaStatus {
    /// The replica.
    pub rm_id: String,
    /// Its answer, or why there was none.
    pub answer: Result<ReplicaAnswer, String>,
}

/// The parts of GetServiceStatus that show whether replicas agree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplicaAnswer {
    /// Whether it reported ACTIVE.
    pub active: bool,
    /// Its Raft term.
    pub term: u64,
    /// The leader it follows.
    pub leader_rm_id: String,
    /// The index of the last log entry it applied to its state machine.
    pub last_applied_index: u64,
}

/// One replica's state digest after healing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplicaDigest {
    /// The replica.
    pub rm_id: String,
    /// Its answer to GetStateDigest, or why there was none.
    pub answer: Result<StateDigestAnswer, String>,
}

/// A replica's digest of its replicated state machine, with the last log entry it reflects:
/// the RM reads both at once, so replicas at one applied index must report one digest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StateDigestAnswer {
    /// The index of the last log entry applied to the state the digest was taken of.
    pub applied_index: u64,
    /// The term of that entry.
    pub applied_term: u64,
    /// The SHA-256 of the state, in hexadecimal.
    pub digest: String,
}

/// A line of a log that reports a panic.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogPanic {
    /// The log file.
    pub file: PathBuf,
    /// The line number, from 1.
    pub line: usize,
    /// The line.
    pub text: String,
}

/// Everything observed besides the history.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Observations {
    /// Replica status changes, in time order.
    pub leader_samples: Vec<LeaderSample>,
    /// Writes the prober got committed, in time order.
    pub write_samples: Vec<WriteSample>,
    /// NodeManager container lists, in time order.
    pub node_snapshots: Vec<NodeSnapshot>,
    /// Every NodeManager by name.
    pub nodes: BTreeMap<String, NodeInfo>,
    /// Every acknowledged application, after healing.
    pub applications: Vec<FinalApplication>,
    /// Every replica's last status after healing, once they agreed or the wait ended.
    pub replicas: Vec<ReplicaStatus>,
    /// Every replica's last state digest, asked right after [`replicas`](Self::replicas).
    pub digests: Vec<ReplicaDigest>,
    /// Panics found in the daemons' and containers' logs.
    pub panics: Vec<LogPanic>,
    /// When healing was complete and the cluster had settled (or the wait for it ended).
    pub settled_at_ms: u64,
}

impl Observations {
    /// The NodeManager name of node id `node_id` (`host:port`), if it is one of the cluster's.
    pub fn node_name(&self, node_id: &str) -> Option<&str> {
        self.nodes
            .iter()
            .find(|(_, info)| info.node_id == node_id)
            .map(|(name, _)| name.as_str())
    }
}

/// The application a container id belongs to (`container_e01_17_0003_01_000002` →
/// `application_17_0003`), or `None` for text that is not a container id.
pub fn application_of_container(container_id: &str) -> Option<String> {
    let id: yarn_proto::ids::ContainerId = container_id.parse().ok()?;
    Some(id.application_id().to_string())
}
