//! [`SimulatedContainer`]: the task standing in for one simulated container.

use std::time::Duration;

use super::{ContainerControl, ContainerExit, SimulatedRun};

/// One simulated container: it "runs" its program, or until a kill request arrives.
pub(crate) struct SimulatedContainer {
    run: SimulatedRun,
    control: ContainerControl,
}

impl SimulatedContainer {
    /// A container that waits out `duration` and exits with 0.
    pub(crate) fn timer(duration: Duration, control: ContainerControl) -> Self {
        let run = Box::pin(async move {
            tokio::time::sleep(duration).await;
            ContainerExit {
                exit_code: 0,
                diagnostics: String::new(),
            }
        });
        Self { run, control }
    }

    /// A container that runs `run` and exits as it ends.
    pub(crate) fn program(run: SimulatedRun, control: ContainerControl) -> Self {
        Self { run, control }
    }

    /// Runs the container and reports its exit: the program's, or the kill request's status
    /// and diagnostics if one comes first (the program is then dropped where it stands, as a
    /// killed process stops). Aborting the task leaves the exit unreported.
    pub(crate) async fn run(mut self) {
        let exit = tokio::select! {
            exit = &mut self.run => exit,
            kill = self.control.kill_requested() => ContainerExit {
                exit_code: kill.exit_status,
                diagnostics: kill.diagnostics,
            },
        };
        self.control.report(exit);
    }
}
