//! [`NetworkControl`]: what makes a chaos cluster's network faults, in either network mode.

use crate::kernel_network::KernelNetwork;
use crate::network_rules::NetworkRules;
use crate::proxy_fleet::ProxyFleet;

/// The proxies of the proxy mode or the kernel's filter of the netns mode, under one set of
/// [`NetworkRules`].
#[derive(Debug)]
pub enum NetworkControl {
    /// A fault-injecting proxy in front of every ResourceManager endpoint.
    Proxies(ProxyFleet),
    /// Cgroups, iptables and netem in the run's own network namespace.
    Kernel(KernelNetwork),
}

impl NetworkControl {
    /// Puts `rules` in force.
    ///
    /// # Errors
    ///
    /// In the netns mode, when the kernel's filter or qdisc cannot be changed
    /// ([`KernelNetwork::set_rules`]); the proxies always take new rules.
    pub async fn set_rules(&self, rules: NetworkRules) -> anyhow::Result<()> {
        match self {
            NetworkControl::Proxies(fleet) => {
                fleet.set_rules(rules);
                Ok(())
            }
            NetworkControl::Kernel(kernel) => kernel.set_rules(rules).await,
        }
    }

    /// Why links cannot be slowed here; `None` when they can (the proxies always can).
    pub fn delay_missing(&self) -> Option<&str> {
        match self {
            NetworkControl::Proxies(_) => None,
            NetworkControl::Kernel(kernel) => kernel.delay_missing(),
        }
    }

    /// One line on how the daemons' traffic is faulted, for the run's progress.
    pub fn describe(&self) -> String {
        match self {
            NetworkControl::Proxies(fleet) => format!("behind {} proxies", fleet.len()),
            NetworkControl::Kernel(kernel) => format!(
                "in a network namespace of their own, each in its cgroup under {}, faulted by \
                 iptables",
                kernel.run_cgroup().display()
            ),
        }
    }
}
