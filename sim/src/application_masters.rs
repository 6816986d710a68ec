//! The ApplicationMasters of a simulated cluster: the real distributed shell ApplicationMaster,
//! run inside the AM containers the replicas launch on the simulated NodeManagers.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use yarn_applications::dshell::{DshellOptions, serve_application_master};
use yarn_client::{RmClientConfig, amrm_token_from_credentials};
use yarn_conf::HostPort;
use yarn_nodemanager::executor::{
    ContainerExit, LaunchSpec, SimulatedExecutor, SimulatedPrograms, SimulatedRun,
};

use yarn_proto::token_metadata::AMRM_PROXY_ADDRESS_ENV;

use crate::am_processes::AmProcesses;
use crate::history::History;

/// The launch-context variable that marks an AM container of the simulation.
pub(crate) const PROGRAM_ENV: &str = "YARN_HA_SIMULATED_PROGRAM";

/// Its value for the distributed shell ApplicationMaster.
pub(crate) const DSHELL_AM: &str = "dshell-am";

/// The tasks each ApplicationMaster runs.
const TASKS: u32 = 12;

/// How long each task runs.
const TASK_DURATION: Duration = Duration::from_millis(500);

/// The size of each task container, below the AM's so that an AM container's id issued again
/// for a task shows in the sizes launched.
pub(crate) const TASK_MEMORY_MB: i64 = 512;

/// What node `node`'s simulated containers run: every launch is recorded in `history` (the
/// evidence that no container id is issued twice), and an AM container of the simulation runs
/// the distributed shell ApplicationMaster with the AMRMToken the replica put in its launch
/// context, reaching the replicas (or its node's AMRMProxy, when the node put the AM behind
/// one) and the nodes as `client` says, as a process `processes` can kill. Other containers
/// keep their timers.
pub(crate) fn programs(
    node: String,
    client: RmClientConfig,
    history: History,
    processes: AmProcesses,
) -> SimulatedPrograms {
    // Each ApplicationMaster draws its own failover jitter, as separate processes would.
    let started = AtomicU64::new(0);
    Arc::new(move |spec: &LaunchSpec| {
        history.launched(&spec.container_id.to_string(), &node, spec.memory_mb);
        if spec.environment.get(PROGRAM_ENV).map(String::as_str) != Some(DSHELL_AM) {
            return None;
        }
        let am = amrm_token_from_credentials(&spec.tokens, Path::new("tokens"))
            .map_err(|err| format!("no AMRMToken in the launch context: {err}"))
            .and_then(|token| Ok((token, am_client(&client, spec)?)));
        let run: SimulatedRun = match am {
            Ok((token, mut client)) => {
                let nth = started.fetch_add(1, Ordering::Relaxed);
                client.jitter_seed = client
                    .jitter_seed
                    .map(|seed| seed ^ (nth + 1).rotate_left(32));
                let container_id = spec.container_id.to_string();
                let am_node = node.clone();
                let am = async move {
                    let outcome =
                        serve_application_master(&client, token, &am_node, &options()).await;
                    match outcome {
                        Ok(()) => ContainerExit {
                            exit_code: 0,
                            diagnostics: String::new(),
                        },
                        Err(err) => ContainerExit {
                            exit_code: 1,
                            diagnostics: format!("the ApplicationMaster failed: {err}"),
                        },
                    }
                };
                Box::pin(processes.run(&node, &container_id, am))
            }
            Err(diagnostics) => Box::pin(async move {
                ContainerExit {
                    exit_code: 1,
                    diagnostics,
                }
            }),
        };
        Some(run)
    })
}

/// How the AM of `spec` reaches the ResourceManager: through its node's AMRMProxy when the
/// node put it behind one (as `RmClientConfig::for_application_master` reads the environment
/// of a real AM), else as `client` says.
fn am_client(client: &RmClientConfig, spec: &LaunchSpec) -> Result<RmClientConfig, String> {
    match spec.environment.get(AMRM_PROXY_ADDRESS_ENV) {
        None => Ok(client.clone()),
        Some(proxy) => proxy
            .parse::<HostPort>()
            .map(|address| client.clone().through_amrm_proxy(address))
            .map_err(|err| format!("{AMRM_PROXY_ADDRESS_ENV} {proxy:?}: {err}")),
    }
}

/// The distributed shell every simulated application runs: [`TASKS`] containers of
/// [`TASK_MEMORY_MB`], each lasting [`TASK_DURATION`] on the simulated executor.
fn options() -> DshellOptions {
    let mut options = DshellOptions::new("simulated");
    options.num_containers = TASKS;
    options.container_memory_mb = TASK_MEMORY_MB;
    options.shell_env = vec![(
        SimulatedExecutor::SIMULATED_DURATION_ENV.to_owned(),
        TASK_DURATION.as_millis().to_string(),
    )];
    options
}
