//! Which kind of daemon a minicluster process is.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The kind of a minicluster daemon; serialized as the `yarn-ha` subcommand that runs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DaemonRole {
    /// A ResourceManager replica (`yarn-ha resourcemanager`).
    ResourceManager,
    /// A NodeManager (`yarn-ha nodemanager`).
    NodeManager,
}

impl DaemonRole {
    /// The `yarn-ha` subcommand that runs this daemon.
    pub fn subcommand(self) -> &'static str {
        match self {
            DaemonRole::ResourceManager => "resourcemanager",
            DaemonRole::NodeManager => "nodemanager",
        }
    }
}

impl fmt::Display for DaemonRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.subcommand())
    }
}
