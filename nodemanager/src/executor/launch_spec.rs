//! [`LaunchSpec`]: what an executor needs to start a container.

use std::collections::{BTreeMap, HashMap};

use yarn_proto::ids::{ApplicationId, ContainerId};

use crate::localizer::LocalResource;

/// Everything an executor needs to start one container.
///
/// The container manager builds it from the `ContainerLaunchContextProto` (commands,
/// environment and tokens), the verified container token (id, user and memory) and the node's
/// own addresses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchSpec {
    /// The container to start; it also names the application.
    pub container_id: ContainerId,
    /// The application's user: it names the `usercache` directory and the container's `USER`.
    /// Containers run as the NodeManager's own OS user, as under Hadoop's
    /// `DefaultContainerExecutor`.
    pub user: String,
    /// The launch context's commands, expanded as Hadoop expands them and run as one command
    /// line, `exec /bin/bash -c "<commands joined with spaces>"`, by the container's launch
    /// script.
    pub commands: Vec<String>,
    /// The launch context's environment; the NodeManager's own variables (`CONTAINER_ID`, ...)
    /// take precedence over entries of the same name.
    pub environment: HashMap<String, String>,
    /// The container's memory allocation in MB, enforced by the container's cgroup v2
    /// `memory.max` or by the physical-memory check (see
    /// [`MemoryEnforcement`](super::MemoryEnforcement)); 0 means no limit.
    pub memory_mb: u64,
    /// The NodeManager's host, given to the container as `NM_HOST`.
    pub nm_host: String,
    /// The NodeManager's container-manager port, given to the container as `NM_PORT`.
    pub nm_port: u16,
    /// The NodeManager's web port, given to the container as `NM_HTTP_PORT`.
    pub nm_http_port: u16,
    /// The launch context's `tokens`. The process executor writes them unchanged to the
    /// container's token file (`<working dir>/container_tokens`, mode 0600, named in
    /// `HADOOP_TOKEN_FILE_LOCATION`) before the container starts; when they are empty, the file
    /// holds empty Hadoop credentials (`HDTS\0\0\0`), as Hadoop's NodeManager writes for a
    /// launch context without tokens.
    pub tokens: Vec<u8>,
    /// The launch context's local resources by link name: the process executor localizes
    /// them (see [`Localizer`](crate::localizer::Localizer)) into the working directory before
    /// the container starts, and a failure fails the launch. The simulated executor ignores
    /// them.
    pub local_resources: BTreeMap<String, LocalResource>,
}

impl LaunchSpec {
    /// The application the container belongs to, taken from the container id so that the two
    /// can never disagree.
    pub fn application_id(&self) -> ApplicationId {
        self.container_id.application_id()
    }

    /// The commands joined with spaces, as Hadoop joins them into `launch_container.sh`
    /// (before expansion).
    pub fn command_line(&self) -> String {
        self.commands.join(" ")
    }
}
