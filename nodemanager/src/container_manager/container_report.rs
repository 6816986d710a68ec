//! [`ContainerReport`]: one container as the NodeManager's web view shows it.

use std::path::PathBuf;

use yarn_proto::ids::ContainerId;
use yarn_proto::pb;

use crate::container_scheduler::ExecutionType;

/// A snapshot of one container the NodeManager knows, for `/ws/v1/node/containers`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContainerReport {
    /// The container.
    pub container_id: ContainerId,
    /// The application's user.
    pub user: String,
    /// Where it is in its life, as statuses report it: `C_SCHEDULED` while queued or about to
    /// launch, `C_RUNNING` once launched, `C_COMPLETE` once ended.
    pub state: pb::ContainerStateProto,
    /// The pid at the root of the container, which also leads its process group, while it
    /// runs; `None` before its launch, after its end, and for simulated containers.
    pub pid: Option<u32>,
    /// The exit status, once completed.
    pub exit_code: Option<i32>,
    /// Why it ended, once completed; empty otherwise.
    pub diagnostics: String,
    /// Its memory allocation in MB.
    pub memory_mb: u64,
    /// Its vcores.
    pub vcores: u32,
    /// Its current execution type.
    pub execution_type: ExecutionType,
    /// Where its stdout and stderr are: `<first log dir>/<application>/<container>`.
    pub log_dir: PathBuf,
}

impl ContainerReport {
    /// The state under YARN's `ContainerState` names: `NEW`, `SCHEDULED`, `RUNNING` or
    /// `COMPLETE`.
    pub fn state_name(&self) -> &'static str {
        match self.state {
            pb::ContainerStateProto::CScheduled => "SCHEDULED",
            pb::ContainerStateProto::CRunning => "RUNNING",
            pb::ContainerStateProto::CComplete => "COMPLETE",
            pb::ContainerStateProto::CNew | pb::ContainerStateProto::ContainerStateUnspecified => {
                "NEW"
            }
        }
    }
}
