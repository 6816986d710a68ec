//! What `yarn-ha bench allocate` measures, and how its settings are checked.

use std::path::PathBuf;

use crate::allocate_am_options::MAX_ROUNDS;
use crate::task_stream_sim::WARMUP_SECONDS;

/// The most NodeManagers a latency cluster may run: each is a process on this machine.
pub const MAX_NODES: usize = 8;

/// Containers of 1 GB each NodeManager offers by default (`yarn.nodemanager.resource.memory-mb`
/// is 8192 MB).
pub const CONTAINERS_PER_NODE: u32 = 8;

/// The most simulated NodeManagers.
pub const MAX_SIM_NODES: usize = 1000;

/// The longest simulation, in simulated seconds (one hour).
pub const MAX_SIM_SECONDS: u64 = 3600;

/// The settings of `yarn-ha bench allocate`, named after its command-line flags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllocateBenchOptions {
    /// `--dir`: where to lay out the clusters (new or empty; kept afterwards). `None`: a fresh
    /// directory under the system's temporary directory, removed at the end.
    pub dir: Option<PathBuf>,
    /// `--rounds`: measured rounds per allocation path.
    pub rounds: usize,
    /// `--containers`: containers asked for in each round.
    pub containers: u32,
    /// `--nodes`: NodeManagers in each latency cluster.
    pub nodes: usize,
    /// `--sim-nodes`: NodeManagers in the simulated cluster.
    pub sim_nodes: usize,
    /// `--sim-seconds`: simulated seconds per OPPORTUNISTIC share.
    pub sim_seconds: u64,
}

impl Default for AllocateBenchOptions {
    /// The defaults of the command line: 20 rounds of 10 containers on 2 NodeManagers, and 300
    /// simulated seconds on 20 simulated NodeManagers, in a temporary directory.
    fn default() -> Self {
        AllocateBenchOptions {
            dir: None,
            rounds: 20,
            containers: 10,
            nodes: 2,
            sim_nodes: 20,
            sim_seconds: 300,
        }
    }
}

impl AllocateBenchOptions {
    /// Checks every setting before anything is started.
    ///
    /// # Errors
    ///
    /// A message naming the flag and the value when `--rounds` is not 1 to [`MAX_ROUNDS`];
    /// `--nodes` not 1 to [`MAX_NODES`]; `--containers` is 0 or more than the NodeManagers hold
    /// next to the ApplicationMaster ([`CONTAINERS_PER_NODE`] per node, less one);
    /// `--sim-nodes` not 1 to [`MAX_SIM_NODES`]; or `--sim-seconds` not above the
    /// simulation's warm-up and at most [`MAX_SIM_SECONDS`].
    pub fn validate(&self) -> anyhow::Result<()> {
        anyhow::ensure!(
            (1..=MAX_ROUNDS).contains(&self.rounds),
            "--rounds {}: each allocation path is measured 1 to {MAX_ROUNDS} rounds",
            self.rounds
        );
        anyhow::ensure!(
            (1..=MAX_NODES).contains(&self.nodes),
            "--nodes {}: a latency cluster runs 1 to {MAX_NODES} NodeManagers on this machine",
            self.nodes
        );
        let room = self.max_containers();
        anyhow::ensure!(
            (1..=room).contains(&self.containers),
            "--containers {}: each round asks for 1 to {room} containers with --nodes {} \
             (every NodeManager holds {CONTAINERS_PER_NODE} containers of 1 GB, and the \
             ApplicationMaster takes one)",
            self.containers,
            self.nodes
        );
        anyhow::ensure!(
            (1..=MAX_SIM_NODES).contains(&self.sim_nodes),
            "--sim-nodes {}: the simulation runs 1 to {MAX_SIM_NODES} NodeManagers",
            self.sim_nodes
        );
        anyhow::ensure!(
            self.sim_seconds > WARMUP_SECONDS && self.sim_seconds <= MAX_SIM_SECONDS,
            "--sim-seconds {}: the simulation runs more than its {WARMUP_SECONDS} s warm-up and \
             at most {MAX_SIM_SECONDS} s",
            self.sim_seconds
        );
        Ok(())
    }

    /// The most containers one round can get GUARANTEED at once on `--nodes` NodeManagers.
    fn max_containers(&self) -> u32 {
        u32::try_from(self.nodes)
            .unwrap_or(u32::MAX)
            .saturating_mul(CONTAINERS_PER_NODE)
            .saturating_sub(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn must_refuse(options: AllocateBenchOptions, flag: &str, detail: &str) {
        let err = options.validate().unwrap_err().to_string();
        assert!(err.starts_with(flag), "{err}");
        assert!(err.contains(detail), "{err}");
    }

    #[test]
    fn the_defaults_are_valid() {
        let options = AllocateBenchOptions::default();
        options.validate().unwrap();
        assert_eq!(
            (options.rounds, options.containers, options.nodes),
            (20, 10, 2)
        );
        assert_eq!((options.sim_nodes, options.sim_seconds), (20, 300));
    }

    #[test]
    fn rounds_and_nodes_must_be_positive_and_bounded() {
        let defaults = AllocateBenchOptions::default();
        must_refuse(
            AllocateBenchOptions {
                rounds: 0,
                ..defaults.clone()
            },
            "--rounds 0",
            "1 to 1000",
        );
        must_refuse(
            AllocateBenchOptions {
                nodes: 0,
                ..defaults.clone()
            },
            "--nodes 0",
            "1 to 8",
        );
        must_refuse(
            AllocateBenchOptions {
                nodes: 9,
                ..defaults
            },
            "--nodes 9",
            "1 to 8",
        );
    }

    #[test]
    fn containers_must_fit_beside_the_application_master() {
        let with = |nodes, containers| AllocateBenchOptions {
            nodes,
            containers,
            ..AllocateBenchOptions::default()
        };
        with(2, 15).validate().unwrap();
        must_refuse(
            with(2, 16),
            "--containers 16",
            "1 to 15 containers with --nodes 2",
        );
        must_refuse(with(1, 0), "--containers 0", "1 to 7");
    }

    #[test]
    fn the_simulation_must_outlast_its_warm_up_and_stay_bounded() {
        let with = |sim_nodes, sim_seconds| AllocateBenchOptions {
            sim_nodes,
            sim_seconds,
            ..AllocateBenchOptions::default()
        };
        must_refuse(with(0, 300), "--sim-nodes 0", "1 to 1000");
        must_refuse(with(20, 10), "--sim-seconds 10", "warm-up");
        must_refuse(with(20, 3601), "--sim-seconds 3601", "at most 3600");
        with(1, 11).validate().unwrap();
    }
}
