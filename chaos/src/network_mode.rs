//! [`NetworkMode`]: how a chaos run makes its network faults.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr};
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The address the harness's observers (status polls, node snapshots, leadership transfers and
/// membership changes) dial from. Every loopback address reaches the daemons, and a packet
/// filter can tell this one apart from the workload's 127.0.0.1, so observers see through the
/// faults that the workload suffers.
pub const OBSERVER_ADDRESS: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2));

/// How network faults reach the daemons.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NetworkMode {
    /// A fault-injecting TCP proxy in front of every ResourceManager endpoint; needs no
    /// privileges. Partitions close proxied connections, latency is added per chunk.
    #[default]
    Proxy,
    /// Root only: the run gets a network namespace of its own, every daemon a cgroup, and
    /// iptables drops the packets of partitioned links on every connection between daemons
    /// (RM to RM, NM to RM, RM and ApplicationMasters to NMs); latency is netem's, where the
    /// kernel has it.
    Netns,
}

impl NetworkMode {
    /// Every mode.
    pub const ALL: [NetworkMode; 2] = [NetworkMode::Proxy, NetworkMode::Netns];

    /// The mode's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            NetworkMode::Proxy => "proxy",
            NetworkMode::Netns => "netns",
        }
    }
}

impl fmt::Display for NetworkMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for NetworkMode {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        NetworkMode::ALL
            .into_iter()
            .find(|mode| mode.name() == text)
            .ok_or_else(|| format!("unknown network mode {text:?}; expected proxy or netns"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse_by_name_and_the_proxy_is_the_default() {
        assert_eq!("proxy".parse::<NetworkMode>(), Ok(NetworkMode::Proxy));
        assert_eq!("netns".parse::<NetworkMode>(), Ok(NetworkMode::Netns));
        assert!(
            "iptables"
                .parse::<NetworkMode>()
                .unwrap_err()
                .contains("proxy or netns")
        );
        assert_eq!(NetworkMode::default(), NetworkMode::Proxy);
        assert!(OBSERVER_ADDRESS.is_loopback());
    }
}
