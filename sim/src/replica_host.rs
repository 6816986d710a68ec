//! [`ReplicaHost`]: the software of one simulated ResourceManager machine.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use openraft::{Raft, ServerState};
use rand::SeedableRng;
use rand::rngs::StdRng;
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use yarn_rm_ha::Serving;
use yarn_rm_ha::replica::{PassThreads, RaftCore, ReplicaServices, SecretSource, ServiceWiring};
use yarn_rm_ha::state_machine::{CommandV1, RmCommand, RmResponse, StateView};
use yarn_rm_ha::storage::Failpoints;
use yarn_rm_ha::{RaftGrpcNetworkFactory, RmConfig, RmTypeConfig};
use yarn_security::{Authorizer, BoundStatusMessages};

use crate::history::History;
use crate::host_actions::{HostActions, serve_actions};
use crate::sim_disk::SimDisk;
use crate::sim_network::{self, Hosts, Links};

/// The Raft port every simulated replica listens on.
pub(crate) const RAFT_PORT: u16 = 8035;

/// The ports of the replicas' front doors: YARN's defaults, which the simulated cluster's
/// configuration leaves in place.
const CLIENT_PORT: u16 = 8032;
const SCHEDULER_PORT: u16 = 8030;
const RESOURCE_TRACKER_PORT: u16 = 8031;
const ADMIN_PORT: u16 = 8033;

/// Concurrent writers on a leader, so that appends overlap and share syncs.
const WRITERS: usize = 3;

/// The pause between two writes of one writer.
const WRITE_PAUSE: Duration = Duration::from_millis(25);

/// Bound on one write; after it the outcome is unknown and the writer moves on.
const WRITE_TIMEOUT: Duration = Duration::from_secs(2);

/// A running replica's handles, for the harness to observe between steps.
#[derive(Clone)]
pub(crate) struct Running {
    pub(crate) raft: Raft<RmTypeConfig>,
    pub(crate) state: StateView,
    pub(crate) serving: watch::Receiver<Serving>,
}

/// The replicas running now, by rm-id; a crashed replica's entry is removed by the harness.
pub(crate) type Registry = Arc<Mutex<BTreeMap<String, Running>>>;

/// One machine: its disk, which outlives crashes, and how to start its replica.
///
/// Each start opens the real Raft stores on the disk, starts the real openraft node, serves the
/// real Raft gRPC service and the replica's client, scheduler and resource-tracker front doors
/// ([`ReplicaServices`]) on the simulated network, follows leadership with the real leader
/// services (scheduling passes inline), runs the real election timer with a seeded random
/// source, and, while it leads, writes: each writer proposes one `AllocateApplicationIds` at a
/// time and records what was acknowledged.
#[derive(Clone)]
pub(crate) struct ReplicaHost {
    pub(crate) config: Arc<RmConfig>,
    pub(crate) disk: SimDisk,
    pub(crate) failpoints: Failpoints,
    pub(crate) seed: u64,
    pub(crate) starts: Arc<AtomicU64>,
    pub(crate) registry: Registry,
    pub(crate) history: History,
    pub(crate) links: Links,
    pub(crate) hosts: Hosts,
    pub(crate) actions: HostActions,
    /// Cleared by the harness once faults have healed and it waits for the replicas to agree.
    pub(crate) writing: Arc<AtomicBool>,
}

impl ReplicaHost {
    /// Runs the replica until the simulation crashes it.
    pub(crate) async fn run(self) -> turmoil::Result {
        let rm_id = self.config.rm_id.clone();
        let start = self.starts.fetch_add(1, Ordering::Relaxed);
        let network = RaftGrpcNetworkFactory::dialing_with(
            rm_id.clone(),
            sim_network::dialer(
                rm_id.clone(),
                self.links.clone(),
                self.config.raft.rpc_timeout,
            ),
        );
        // Replicas prove who they are; other hosts connect anonymously (see `sim_network`).
        let core = RaftCore::start(
            Arc::clone(&self.config),
            &self.disk,
            network,
            self.failpoints,
            Authorizer::new(false),
        )
        .await?;
        let shutdown = CancellationToken::new();
        let wiring = ServiceWiring {
            nm_dialer: sim_network::dialer(
                rm_id.clone(),
                self.links.clone(),
                ServiceWiring::NM_CALL_TIMEOUT,
            ),
            passes: PassThreads::Inline,
            secrets: SecretSource::Seeded(self.seed),
            web_scheme: "http",
        };
        let services = ReplicaServices::new(&core, wiring, shutdown.clone());
        self.registry
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(
                rm_id.clone(),
                Running {
                    raft: core.raft.clone(),
                    state: core.state.clone(),
                    serving: services.serving.clone(),
                },
            );
        let members = self
            .config
            .raft_members()
            .map(|node| (node.rm_id.clone(), node))
            .collect();
        let mut servers = JoinSet::new();
        for (port, routes) in [
            (CLIENT_PORT, services.client),
            (SCHEDULER_PORT, services.scheduler),
            (RESOURCE_TRACKER_PORT, services.resource_tracker),
            (ADMIN_PORT, services.admin),
        ] {
            let listener = turmoil::net::TcpListener::bind(("0.0.0.0", port)).await?;
            let incoming = sim_network::incoming(
                rm_id.clone(),
                self.links.clone(),
                listener,
                self.hosts.clone(),
            );
            servers.spawn(
                tonic::transport::Server::builder()
                    .layer(BoundStatusMessages)
                    .add_routes(routes)
                    .serve_with_incoming(incoming),
            );
        }
        let listener = turmoil::net::TcpListener::bind(("0.0.0.0", RAFT_PORT)).await?;
        let mut tasks = JoinSet::new();
        tasks.spawn(services.leadership.run());
        let elections = core.run_elections(
            StdRng::seed_from_u64(self.seed.wrapping_add(start)),
            shutdown.clone(),
        );
        tasks.spawn(elections);
        for _ in 0..WRITERS {
            tasks.spawn(write(
                core.raft.clone(),
                rm_id.clone(),
                self.history.clone(),
                Arc::clone(&self.writing),
            ));
        }
        let service = core.service.clone();
        let core = Arc::new(core);
        tasks.spawn(serve_actions(
            Arc::clone(&core),
            rm_id.clone(),
            self.actions.clone(),
            members,
            self.history.clone(),
        ));
        let server = tonic::transport::Server::builder()
            .layer(BoundStatusMessages)
            .add_service(service.into_server())
            .serve_with_incoming(sim_network::incoming(
                rm_id.clone(),
                self.links.clone(),
                listener,
                self.hosts.clone(),
            ));
        // As the replica process does, stop when openraft stops: a simulated disk never fails,
        // so a stopped core is a bug the run reports. Looked at first: the replica's tasks end
        // with the core, and the core's reason is the one worth reporting.
        let mut metrics = core.raft.metrics();
        tokio::select! {
            biased;
            stopped = metrics.wait_for(|m| m.running_state.is_err()) => {
                let reason = stopped.map_or_else(
                    |_| "its metrics channel closed".to_owned(),
                    |m| format!("{:?}", m.running_state),
                );
                return Err(format!("{rm_id}'s Raft core stopped: {reason}").into());
            }
            served = server => served?,
            Some(served) = servers.join_next() => served??,
            Some(ended) = tasks.join_next() => {
                ended?;
                return Err(format!("a task of {rm_id} ended while it ran").into());
            }
        }
        Ok(())
    }
}

/// Proposes one write at a time while this replica leads and writing is on, recording each
/// acknowledged one.
async fn write(
    raft: Raft<RmTypeConfig>,
    rm_id: String,
    history: History,
    writing: Arc<AtomicBool>,
) {
    loop {
        tokio::time::sleep(WRITE_PAUSE).await;
        let leads = raft.metrics().borrow().state == ServerState::Leader;
        if !leads || !writing.load(Ordering::Relaxed) {
            continue;
        }
        let command = RmCommand::V1(CommandV1::AllocateApplicationIds { count: 1 });
        let written = tokio::time::timeout(WRITE_TIMEOUT, raft.client_write(command)).await;
        if let Ok(Ok(response)) = written
            && let RmResponse::ApplicationIdsAllocated { first, .. } = response.data
        {
            history.acknowledged(turmoil::elapsed(), &rm_id, first);
        }
    }
}
