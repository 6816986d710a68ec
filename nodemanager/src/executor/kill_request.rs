//! [`KillRequest`]: why the NodeManager stops a container and what it reports.

/// A request to stop a running container.
///
/// The container is sent SIGTERM, then SIGKILL after `yarn.nodemanager.sleep-delay-before-sigkill.ms`
/// if it is still running. Its [`ContainerExit`](super::ContainerExit) then carries
/// `exit_status`, and `diagnostics` followed by what happened to the process. Only the first
/// request for a container counts, as in YARN, where a container already being killed ignores
/// further kills.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KillRequest {
    /// The `ContainerExitStatusProto` value to report, such as `KILLED_BY_APPMASTER` (-105),
    /// `KILLED_EXCEEDED_PMEM` (-104) or `KILLED_BY_CONTAINER_SCHEDULER` (-108).
    pub exit_status: i32,
    /// Why the container is stopped, for people.
    pub diagnostics: String,
}

impl KillRequest {
    /// Builds a request reporting `exit_status` with `diagnostics`.
    pub fn new(exit_status: i32, diagnostics: impl Into<String>) -> Self {
        Self {
            exit_status,
            diagnostics: diagnostics.into(),
        }
    }
}
