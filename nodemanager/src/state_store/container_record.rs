//! [`ContainerRecord`]: what the state store keeps of a container to relaunch or report it.

use std::collections::{BTreeMap, HashMap};

use yarn_proto::ids::ContainerId;

use crate::container_scheduler::{ContainerRequest, ExecutionType, Resources};
use crate::executor::LaunchSpec;
use crate::localizer::LocalResource;

/// A container as the NodeManager accepted it: enough to queue it again, launch it, re-acquire
/// it and report it to the RM after a restart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContainerRecord {
    /// The container.
    pub container_id: ContainerId,
    /// The application's user.
    pub user: String,
    /// The launch context's commands.
    pub commands: Vec<String>,
    /// The launch context's environment.
    pub environment: HashMap<String, String>,
    /// The memory and vcores the container token allocates.
    pub resources: Resources,
    /// Whether the container must start at once or may wait; changed by promotion and
    /// demotion.
    pub execution_type: ExecutionType,
    /// The container token's version, one more after each update by the RM.
    pub token_version: i32,
    /// The protobuf-encoded `ContainerTokenIdentifierProto` of the latest container token, so
    /// that a restarted NodeManager can check and report the container as the RM issued it.
    pub container_token_identifier: Vec<u8>,
    /// The launch context's `tokens`: a Hadoop credentials file (`HDTS`; the AM's AMRMToken,
    /// for an AM container) handed to the container unchanged in its token file. Empty when
    /// the context carries none, and then the token file holds empty credentials.
    pub tokens: Vec<u8>,
    /// The launch context's local resources by link name, localized before each launch.
    pub local_resources: BTreeMap<String, LocalResource>,
}

impl ContainerRecord {
    /// The container as the container scheduler takes it back with
    /// [`recover_queued`](crate::container_scheduler::ContainerScheduler::recover_queued) or
    /// [`recover_running`](crate::container_scheduler::ContainerScheduler::recover_running).
    pub fn container_request(&self) -> ContainerRequest {
        ContainerRequest {
            id: self.container_id,
            execution_type: self.execution_type,
            resources: self.resources,
            version: self.token_version,
        }
    }

    /// What an executor needs to launch the container on the node at `nm_host:nm_port`, whose
    /// web server listens on `nm_http_port`.
    pub fn launch_spec(&self, nm_host: &str, nm_port: u16, nm_http_port: u16) -> LaunchSpec {
        LaunchSpec {
            container_id: self.container_id,
            user: self.user.clone(),
            commands: self.commands.clone(),
            environment: self.environment.clone(),
            memory_mb: self.resources.memory_mb,
            nm_host: nm_host.to_owned(),
            nm_port,
            nm_http_port,
            tokens: self.tokens.clone(),
            local_resources: self.local_resources.clone(),
        }
    }
}
