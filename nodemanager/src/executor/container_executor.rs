//! [`ContainerExecutor`]: the executor a NodeManager runs its containers with.

use yarn_proto::ids::{ApplicationId, ContainerId};

use super::{
    ContainerHandle, ExecutorKind, LaunchSpec, ProcessExecutor, ReacquireSpec, SimulatedExecutor,
};
use crate::{Error, NmConfig};

/// Starts, stops and re-acquires containers, as `yarn.nodemanager.container-executor.class`
/// selects: real processes (the product) or simulated ones (for load and scale tests).
///
/// Stopping and waiting go through the [`ContainerHandle`] a launch returns. Dropping the
/// executor stops supervising: process containers keep running for a restarted NodeManager to
/// re-acquire, simulated ones end.
#[derive(Debug)]
pub enum ContainerExecutor {
    /// Real processes.
    Process(ProcessExecutor),
    /// Timers standing in for processes.
    Simulated(SimulatedExecutor),
}

impl ContainerExecutor {
    /// The executor `config.executor_kind` names, with `config`'s settings, as a NodeManager
    /// starts it. Must be called within a Tokio runtime (the process executor starts its
    /// containers monitor).
    ///
    /// # Errors
    ///
    /// [`Error::CgroupMemoryUnavailable`] when the process executor must limit memory with
    /// cgroup v2 (`yarn.nodemanager.resource.memory.enabled`) and the configured cgroup cannot
    /// be used; see [`ProcessExecutor::try_new`].
    pub fn try_new(config: &NmConfig) -> Result<Self, Error> {
        Ok(match config.executor_kind {
            ExecutorKind::Default => Self::Process(ProcessExecutor::try_new(config)?),
            ExecutorKind::Simulated => Self::Simulated(SimulatedExecutor::new()),
        })
    }

    /// As [`try_new`](Self::try_new), except that required but unusable cgroup v2 memory
    /// limits make every launch fail with the error instead; see [`ProcessExecutor::new`].
    pub fn new(config: &NmConfig) -> Self {
        match config.executor_kind {
            ExecutorKind::Default => Self::Process(ProcessExecutor::new(config)),
            ExecutorKind::Simulated => Self::Simulated(SimulatedExecutor::new()),
        }
    }

    /// Starts a container; see [`ProcessExecutor::launch`] and [`SimulatedExecutor::launch`].
    ///
    /// # Errors
    ///
    /// Those of the executor: the directory, file or process that could not be set up, or a
    /// simulated duration that does not parse.
    pub async fn launch(&self, spec: LaunchSpec) -> Result<ContainerHandle, Error> {
        match self {
            Self::Process(executor) => executor.launch(spec).await,
            Self::Simulated(executor) => executor.launch(&spec),
        }
    }

    /// Applies a running container's new memory allocation; see
    /// [`ProcessExecutor::update_memory_limit`]. Simulated containers have no limit.
    ///
    /// # Errors
    ///
    /// Those of the process executor.
    pub async fn update_memory_limit(
        &self,
        container_id: ContainerId,
        memory_mb: u64,
    ) -> Result<(), Error> {
        match self {
            Self::Process(executor) => executor.update_memory_limit(container_id, memory_mb).await,
            Self::Simulated(_) => Ok(()),
        }
    }

    /// Cleans up after an application that has finished on the node and has no container left
    /// running here; see [`ProcessExecutor::application_finished`]. Simulated containers leave
    /// nothing behind.
    pub async fn application_finished(&self, application_id: ApplicationId) {
        match self {
            Self::Process(executor) => executor.application_finished(application_id).await,
            Self::Simulated(_) => {}
        }
    }

    /// Takes over a container that was running before a NodeManager restart; see
    /// [`ProcessExecutor::reacquire`] and [`SimulatedExecutor::reacquire`].
    ///
    /// # Errors
    ///
    /// [`Error::InvalidContainerPid`] for a pid that cannot be a container's.
    pub fn reacquire(&self, spec: ReacquireSpec) -> Result<ContainerHandle, Error> {
        match self {
            Self::Process(executor) => executor.reacquire(spec),
            Self::Simulated(executor) => Ok(executor.reacquire(spec)),
        }
    }
}
