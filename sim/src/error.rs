//! [`SimError`]: why a simulation could not run (as opposed to a run that found a violation).

use yarn_conf::ConfError;

/// Why a simulation could not run.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// The replicas' configuration is invalid: a bug of the harness.
    #[error("the simulated replicas' configuration is invalid: {source}")]
    Config {
        /// The configuration's complaint.
        source: ConfError,
    },
    /// The configuration of the cluster's clients or NodeManagers is invalid: a bug of the
    /// harness.
    #[error("the simulated cluster's configuration is invalid: {reason}")]
    ClusterConfig {
        /// The configuration's complaint.
        reason: String,
    },
    /// A thread running seeds panicked.
    #[error("a simulation thread panicked: {reason}")]
    Panicked {
        /// The panic's message.
        reason: String,
    },
}

/// The text a panic carried, for the error that reports it.
pub(crate) fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|text| (*text).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_owned())
}
