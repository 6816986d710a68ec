//! Whether the NodeManager may start containers: only while registered with the leader.

/// The NodeManager's standing with the ResourceManager.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Connection {
    /// Not registered (start-up, or after RESYNC until re-registered): running containers keep
    /// running, new starts are refused.
    Disconnected,
    /// Registered with the leader of `rm_epoch`.
    Connected {
        /// The epoch of the leader the node registered with; container tokens may carry it or
        /// an earlier one, never a later one.
        rm_epoch: i64,
    },
    /// The ResourceManager told the node to shut down.
    ShutDown {
        /// The RM's reason.
        diagnostics: String,
    },
}

/// The refusal of a container start while not connected, in YARN's words.
pub const NOT_CONNECTED: &str =
    "Rejecting new containers as NodeManager has not yet connected with ResourceManager";

impl Connection {
    /// The latest epoch a container token may carry, or the refusal for a start right now.
    ///
    /// # Errors
    ///
    /// [`NOT_CONNECTED`] (or the shutdown reason) when the node is not registered.
    pub fn admit_start(&self) -> Result<i64, String> {
        match self {
            Self::Connected { rm_epoch } => Ok(*rm_epoch),
            Self::Disconnected => Err(NOT_CONNECTED.to_owned()),
            Self::ShutDown { diagnostics } => Err(format!(
                "Rejecting new containers as NodeManager is shutting down: {diagnostics}"
            )),
        }
    }
}
