//! [`SimulatedExecutor`]: containers that only pretend to run, for load and scale tests.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use super::{
    ContainerExit, ContainerHandle, LaunchSpec, ReacquireSpec, SimulatedContainer, TaskSet,
};
use crate::Error;

/// What one simulated container runs: a future ending with the container's exit.
pub type SimulatedRun = Pin<Box<dyn Future<Output = ContainerExit> + Send>>;

/// Chooses, for a launch, a program a simulated container runs instead of its timer; `None`
/// keeps the timer. The deterministic simulation runs its ApplicationMasters this way, inside
/// the containers the ResourceManager launched for them.
pub type SimulatedPrograms = Arc<dyn Fn(&LaunchSpec) -> Option<SimulatedRun> + Send + Sync>;

/// Runs each container as a timer: no process, no files, so that one process can host many
/// NodeManagers (`yarn-ha nodemanager --simulate-nodes N`).
///
/// A container runs for the number of milliseconds in its launch context's
/// [`SIMULATED_DURATION_ENV`](Self::SIMULATED_DURATION_ENV) variable, or
/// [`DEFAULT_SIMULATED_DURATION`](Self::DEFAULT_SIMULATED_DURATION), then exits with 0. A stop
/// ends it at once with the stop's status and diagnostics. Nothing survives the executor:
/// re-acquired simulated containers are reported lost. With [`programs`](Self::with_programs),
/// a container the programs choose runs its program instead of the timer.
#[derive(Default)]
pub struct SimulatedExecutor {
    tasks: TaskSet,
    programs: Option<SimulatedPrograms>,
}

impl fmt::Debug for SimulatedExecutor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SimulatedExecutor")
            .field("tasks", &self.tasks)
            .field("programs", &self.programs.is_some())
            .finish()
    }
}

impl SimulatedExecutor {
    /// The launch-context variable that says how long a simulated container runs, in whole
    /// milliseconds.
    pub const SIMULATED_DURATION_ENV: &'static str = "YARN_HA_SIMULATED_DURATION_MS";

    /// How long a simulated container runs when its launch context does not say.
    pub const DEFAULT_SIMULATED_DURATION: Duration = Duration::from_secs(1);

    /// An executor with no container yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// An executor whose containers run what `programs` chooses for them.
    pub fn with_programs(programs: SimulatedPrograms) -> Self {
        Self {
            tasks: TaskSet::default(),
            programs: Some(programs),
        }
    }

    /// Starts the container's timer. Must be called within a Tokio runtime.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidSimulatedDuration`] when the duration variable is not a whole number of
    /// milliseconds.
    pub fn launch(&self, spec: &LaunchSpec) -> Result<ContainerHandle, Error> {
        let container_id = spec.container_id;
        if let Some(run) = self.programs.as_ref().and_then(|choose| choose(spec)) {
            let (handle, control) = ContainerHandle::new(container_id, None);
            self.tasks
                .spawn(SimulatedContainer::program(run, control).run());
            return Ok(handle);
        }
        let duration = match spec.environment.get(Self::SIMULATED_DURATION_ENV) {
            None => Self::DEFAULT_SIMULATED_DURATION,
            Some(value) => value
                .trim()
                .parse()
                .map(Duration::from_millis)
                .map_err(|_| Error::InvalidSimulatedDuration {
                    container_id,
                    variable: Self::SIMULATED_DURATION_ENV,
                    value: value.clone(),
                })?,
        };
        let (handle, control) = ContainerHandle::new(container_id, None);
        self.tasks
            .spawn(SimulatedContainer::timer(duration, control).run());
        Ok(handle)
    }

    /// A simulated container cannot outlive the NodeManager that ran it, so it is reported
    /// lost, with [`ContainerExit::LOST`] and a diagnostic saying so.
    pub fn reacquire(&self, spec: ReacquireSpec) -> ContainerHandle {
        ContainerHandle::finished(
            spec.container_id,
            None,
            ContainerExit {
                exit_code: ContainerExit::LOST,
                diagnostics: format!(
                    "Container {} was simulated and ended with the NodeManager that ran it; it \
                     is reported as lost (exit code {}).",
                    spec.container_id,
                    ContainerExit::LOST
                ),
            },
        )
    }
}
