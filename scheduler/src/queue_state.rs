//! [`QueueState`]: whether a queue accepts applications.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A queue's state, as YARN's `QueueState`.
///
/// Configuration only sets [`Running`](Self::Running) or [`Stopped`](Self::Stopped).
/// [`Draining`](Self::Draining) is reported for a stopped queue that still has applications:
/// they run to completion, but nothing new is accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum QueueState {
    /// Accepts new applications.
    Running,
    /// Accepts nothing new; no applications left.
    Stopped,
    /// Stopped, with applications still running or pending.
    Draining,
}

impl QueueState {
    /// Parses the configured value `RUNNING` or `STOPPED` (case-insensitive, trimmed).
    pub fn parse_configured(value: &str) -> Option<Self> {
        match value.trim().to_ascii_uppercase().as_str() {
            "RUNNING" => Some(Self::Running),
            "STOPPED" => Some(Self::Stopped),
            _ => None,
        }
    }
}

/// Prints YARN's name: `RUNNING`, `STOPPED` or `DRAINING`.
impl fmt::Display for QueueState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Running => "RUNNING",
            Self::Stopped => "STOPPED",
            Self::Draining => "DRAINING",
        })
    }
}
