//! [`ContainerExit`]: how a container ended, as the NodeManager reports it.

/// The exit status and diagnostics of a finished container, ready for `ContainerStatusProto`.
///
/// `exit_code` is the process's exit code for a container that ended on its own, and the
/// [`KillRequest`](super::KillRequest)'s status (a `ContainerExitStatusProto` value such as
/// `KILLED_EXCEEDED_PMEM`) for one the NodeManager stopped, as YARN reports them. A process
/// killed by a signal it was not asked to die from reports `128 + signal`, as a shell does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContainerExit {
    /// The exit status to report.
    pub exit_code: i32,
    /// Why the container ended, for people; empty for a successful exit.
    pub diagnostics: String,
}

impl ContainerExit {
    /// A process killed by SIGKILL, as a shell reports it (YARN's `ExitCode.FORCE_KILLED`).
    pub const FORCE_KILLED: i32 = 128 + 9;
    /// A process ended by SIGTERM, as a shell reports it (YARN's `ExitCode.TERMINATED`).
    pub const TERMINATED: i32 = 128 + 15;
    /// A container whose exit code cannot be known, such as one that ended while the
    /// NodeManager was down without leaving its exit code behind (YARN's `ExitCode.LOST`).
    pub const LOST: i32 = 154;
}
