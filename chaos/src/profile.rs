//! [`Profile`]: the preset sizes of a chaos run.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// A preset for `chaos run`: cluster size, how long faults are injected, and how much work runs
/// meanwhile. Flags given on the command line override the preset's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// For CI on two cores: 3 ResourceManagers, 2 NodeManagers, 60 s of faults, two jobs at a
    /// time; about two minutes in all.
    Ci,
    /// For finding rare bugs: 3 ResourceManagers, 3 NodeManagers, an hour of faults, three jobs
    /// at a time.
    Soak,
}

impl Profile {
    /// Every profile, for help texts.
    pub const ALL: [Profile; 2] = [Profile::Ci, Profile::Soak];

    /// The profile's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Ci => "ci",
            Profile::Soak => "soak",
        }
    }

    /// ResourceManager replicas.
    pub fn rms(self) -> usize {
        3
    }

    /// NodeManagers.
    pub fn nms(self) -> usize {
        match self {
            Profile::Ci => 2,
            Profile::Soak => 3,
        }
    }

    /// How long faults are injected (the run takes longer: start, settle, checks).
    pub fn duration(self) -> Duration {
        match self {
            Profile::Ci => Duration::from_secs(60),
            Profile::Soak => Duration::from_secs(3600),
        }
    }

    /// How many distributed-shell jobs run at the same time.
    pub fn concurrent_jobs(self) -> usize {
        match self {
            Profile::Ci => 2,
            Profile::Soak => 3,
        }
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Profile {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Profile::ALL
            .into_iter()
            .find(|profile| profile.name() == text)
            .ok_or_else(|| format!("unknown profile {text:?}; expected ci or soak"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_parse_by_name_and_ci_fits_a_two_core_budget() {
        assert_eq!("ci".parse::<Profile>(), Ok(Profile::Ci));
        assert_eq!("soak".parse::<Profile>(), Ok(Profile::Soak));
        assert!(
            "fast"
                .parse::<Profile>()
                .unwrap_err()
                .contains("ci or soak")
        );
        assert!(Profile::Ci.duration() <= Duration::from_secs(90));
        assert_eq!(Profile::Soak.duration(), Duration::from_secs(3600));
    }
}
