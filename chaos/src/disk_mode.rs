//! [`DiskMode`]: what the ResourceManagers' Raft storage lies on in a chaos run.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// What each ResourceManager's Raft storage directory is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DiskMode {
    /// A directory of the run's own on the host's file system; the power-loss faults are
    /// skipped whenever drawn.
    #[default]
    Real,
    /// Root only, with /dev/fuse: each replica's storage directory is a volatile FUSE file
    /// system of the harness ([`yarn_volatile_fs::VolatileMount`]) that holds what was written
    /// in memory until it is fsync'd, so a power-loss fault can drop every unsynced write.
    Volatile,
}

impl DiskMode {
    /// Every mode.
    pub const ALL: [DiskMode; 2] = [DiskMode::Real, DiskMode::Volatile];

    /// The mode's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            DiskMode::Real => "real",
            DiskMode::Volatile => "volatile",
        }
    }
}

impl fmt::Display for DiskMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for DiskMode {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        DiskMode::ALL
            .into_iter()
            .find(|mode| mode.name() == text)
            .ok_or_else(|| format!("unknown disk mode {text:?}; expected real or volatile"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse_by_name_and_real_disks_are_the_default() {
        assert_eq!("real".parse::<DiskMode>(), Ok(DiskMode::Real));
        assert_eq!("volatile".parse::<DiskMode>(), Ok(DiskMode::Volatile));
        assert!(
            "tmpfs"
                .parse::<DiskMode>()
                .unwrap_err()
                .contains("real or volatile")
        );
        assert_eq!(DiskMode::default(), DiskMode::Real);
    }
}
