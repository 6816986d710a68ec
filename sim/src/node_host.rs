//! [`NodeHost`]: the software of one simulated NodeManager machine.

use yarn_client::RmClientConfig;
use yarn_nodemanager::executor::{SimulatedExecutor, SimulatedPrograms};
use yarn_nodemanager::{ContainerExecutor, NmConfig, NodeManager};

use crate::sim_network::{self, Hosts, Links};

/// The container-management port every simulated NodeManager listens on (YARN's default).
pub(crate) const NM_PORT: u16 = 8041;

/// The web port the nodes register; nothing serves it in a simulation.
const NM_HTTP_PORT: u16 = 8042;

/// One NodeManager machine: the real [`NodeManager`] (container manager, container scheduler,
/// status updater, with the simulated executor, and the AMRMProxy when its configuration
/// enables it) serving on the simulated network and
/// heartbeating to the replicas through the real RM client with failover. Its containers run
/// as timers, except those `programs` run: the ApplicationMasters.
#[derive(Clone)]
pub(crate) struct NodeHost {
    pub(crate) name: String,
    pub(crate) config: NmConfig,
    /// The replicas, dialed over the simulated network.
    pub(crate) client: RmClientConfig,
    pub(crate) links: Links,
    pub(crate) hosts: Hosts,
    pub(crate) programs: SimulatedPrograms,
}

impl NodeHost {
    /// Runs the node until the simulation ends or the RM orders it to shut down.
    pub(crate) async fn run(self) -> turmoil::Result {
        let listener = turmoil::net::TcpListener::bind(("0.0.0.0", NM_PORT)).await?;
        let address = listener.local_addr()?;
        let amrm_proxy = if self.config.amrm_proxy.enabled {
            let port = self.config.amrm_proxy.address.port;
            let listener = turmoil::net::TcpListener::bind(("0.0.0.0", port)).await?;
            let bound = listener.local_addr()?;
            let incoming = sim_network::incoming(
                self.name.clone(),
                self.links.clone(),
                listener,
                self.hosts.clone(),
            );
            Some((bound, incoming))
        } else {
            None
        };
        let incoming = sim_network::incoming(self.name, self.links, listener, self.hosts);
        let executor =
            ContainerExecutor::Simulated(SimulatedExecutor::with_programs(self.programs));
        let node = NodeManager::start_simulated(
            self.config,
            self.client,
            executor,
            address,
            NM_HTTP_PORT,
            incoming,
            amrm_proxy,
        )
        .await?;
        node.run_until(std::future::pending()).await?;
        Ok(())
    }
}
