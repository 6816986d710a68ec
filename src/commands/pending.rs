//! Commands whose subsystem is not built yet say so, and which piece of work brings them,
//! instead of pretending to succeed.

use std::process::ExitCode;

/// The work item that builds the chaos harness.
pub const CHAOS: &str = "Chaos harness (seeded failover drills)";

/// Prints that `command` is not available yet and returns exit status 3, which scripts can tell
/// apart from a failed run (1) and a usage error (2).
pub fn report(command: &str, work_item: &str) -> ExitCode {
    eprintln!(
        "yarn-ha {command}: not available yet in this build; it arrives with the work item \
         \"{work_item}\" (see README.md, Status)."
    );
    ExitCode::from(3)
}
