//! What an rmadmin command produced.

use crate::Error;

/// An rmadmin command's output and the failures that make it fail although it has output.
#[derive(Debug, Default)]
pub struct RmAdminOutcome {
    /// What to print on stdout; empty for silent successes.
    pub output: String,
    /// Why the command fails despite its output, each to print as one line: the replicas that
    /// refused this caller or failed (only `-getAllServiceState`, which reports on every
    /// replica whatever each answered, has any). Empty when the command succeeded.
    pub failures: Vec<Error>,
}
