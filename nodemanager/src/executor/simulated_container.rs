//! [`SimulatedContainer`]: the timer task standing in for one simulated container.

use std::time::Duration;

use super::{ContainerControl, ContainerExit};

/// One simulated container: it "runs" for `duration`, or until a kill request arrives.
#[derive(Debug)]
pub(crate) struct SimulatedContainer {
    duration: Duration,
    control: ContainerControl,
}

impl SimulatedContainer {
    pub(crate) fn new(duration: Duration, control: ContainerControl) -> Self {
        Self { duration, control }
    }

    /// Runs the container and reports its exit: 0 with no diagnostics after `duration`, or the
    /// kill request's status and diagnostics if one comes first. Aborting the task leaves the
    /// exit unreported.
    pub(crate) async fn run(mut self) {
        let exit = tokio::select! {
            () = tokio::time::sleep(self.duration) => ContainerExit {
                exit_code: 0,
                diagnostics: String::new(),
            },
            kill = self.control.kill_requested() => ContainerExit {
                exit_code: kill.exit_status,
                diagnostics: kill.diagnostics,
            },
        };
        self.control.report(exit);
    }
}
