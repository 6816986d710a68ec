//! [`ReplicaServices`]: what a replica serves over its Raft core, built once for the replica
//! process and the deterministic simulation alike.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;
use tokio_util::sync::CancellationToken;
use tonic::service::Routes;
use yarn_proto::pb::application_client_protocol_server::ApplicationClientProtocolServer;
use yarn_proto::pb::application_master_protocol_server::ApplicationMasterProtocolServer;
use yarn_proto::pb::distributed_scheduling_am_protocol_server::DistributedSchedulingAmProtocolServer;
use yarn_proto::pb::resource_manager_administration_protocol_server::ResourceManagerAdministrationProtocolServer;
use yarn_proto::pb::resource_tracker_server::ResourceTrackerServer;
use yarn_security::Dialer;

use super::async_scheduler::PassThreads;
use super::leader_gate::{LeaderGate, ServiceAddress, Serving};
use super::leader_services::LeaderServices;
use super::leadership_monitor::LeadershipMonitor;
use super::master_key_service::SecretSource;
use super::proposer::Proposer;
use super::raft_core::RaftCore;
use super::raft_proposer::RaftProposer;
use crate::grpc::{AdminService, ApplicationMasterService, ClientService, ResourceTrackerService};
use crate::nodes::{AutoUpdate, RackResolver};
use crate::operations::{
    AdminOperations, AmOperations, ClientOperations, ReservationDesk, ResourceTrackerOperations,
};
use crate::raft_types::node_id_of;
use yarn_security::now_ms;

/// How often the leader's master-key roller looks at its schedule.
const KEY_CHECK_INTERVAL: Duration = Duration::from_secs(1);
/// Bound on a proposal made for a client or a leader service; after it the outcome is unknown.
const PROPOSE_TIMEOUT: Duration = Duration::from_secs(10);
/// Bound on a learner catching up before `-addToCluster` gives up.
const CATCH_UP_TIMEOUT: Duration = Duration::from_secs(60);

/// How a replica reaches the rest of the cluster and runs its passes: what differs between the
/// replica process and the simulation. Everything else is the core's configuration.
pub struct ServiceWiring {
    /// How the AM launcher reaches NodeManagers; each call must be bounded by
    /// [`ServiceWiring::NM_CALL_TIMEOUT`].
    pub nm_dialer: Dialer,
    /// Where the leader's scheduling passes run.
    pub passes: PassThreads,
    /// Where leaders draw the secrets of new master keys.
    pub secrets: SecretSource,
    /// The scheme of the NodeManagers' web pages in reports (`https` when TLS is on: every
    /// daemon of a cluster shares `yarn.tls.enabled`).
    pub web_scheme: &'static str,
}

impl ServiceWiring {
    /// Bound on one call from the AM launcher to a NodeManager.
    pub const NM_CALL_TIMEOUT: Duration = Duration::from_secs(10);
}

/// The gRPC front doors of one replica (admin, client, resource tracker, scheduler), the
/// operations behind them, and the [`LeadershipMonitor`] that turns Raft's leadership into the
/// [`Serving`] role they are gated on and runs the leader services of each leadership.
///
/// Guarantees: the replica process and the simulation serve these services with these
/// operations; what differs is [`ServiceWiring`] and what surrounds them: the replica serves
/// them over mutual TLS with RPC metrics and also behind its REST and Hadoop IPC doors, the
/// simulation over its simulated network.
pub struct ReplicaServices {
    /// `ResourceManagerAdministrationProtocol`.
    pub admin: Routes,
    /// `ApplicationClientProtocol`.
    pub client: Routes,
    /// `ResourceTracker`, which NodeManagers call.
    pub resource_tracker: Routes,
    /// `ApplicationMasterProtocol` and `DistributedSchedulingAMProtocol`: one port serves both
    /// scheduler protocols, as in YARN.
    pub scheduler: Routes,
    /// Follows Raft's leadership; it must run for the replica to serve as leader.
    pub leadership: LeadershipMonitor,
    /// The serving role.
    pub serving: watch::Receiver<Serving>,
    pub(crate) client_operations: Arc<ClientOperations>,
    pub(crate) am_operations: Arc<AmOperations>,
    pub(crate) admin_operations: Arc<AdminOperations>,
}

impl ReplicaServices {
    /// The services of the replica whose Raft half is `core`, stopping with `shutdown`.
    pub fn new(core: &RaftCore, wiring: ServiceWiring, shutdown: CancellationToken) -> Self {
        let config = core.config();
        let node_id = node_id_of(&config.rm_id);
        let raft = core.raft.clone();
        let state = core.state.clone();
        let metrics = core.metrics();
        let authorizer = core.authorizer();
        let (serving_tx, serving) = watch::channel(Serving::NotLeader { leader: None });
        let gate = |service, address: ServiceAddress| {
            LeaderGate::new(
                config.rm_id.clone(),
                config.ha.clone(),
                service,
                address,
                serving.clone(),
            )
        };
        let raft_proposer = RaftProposer::new(
            raft.clone(),
            PROPOSE_TIMEOUT,
            config.raft.election_timeout_max,
        );
        let proposer = |service, address: ServiceAddress| Proposer {
            raft: raft_proposer.clone(),
            gate: gate(service, address),
        };
        let leadership = LeadershipMonitor {
            raft: raft.clone(),
            proposer: raft_proposer.clone(),
            rm_id: config.rm_id.clone(),
            node_id,
            serving: serving_tx,
            services: LeaderServices {
                proposer: raft_proposer.clone(),
                state: state.clone(),
                config: Arc::clone(config),
                key_check_interval: KEY_CHECK_INTERVAL,
                metrics: Arc::clone(&metrics),
                dialer: wiring.nm_dialer,
                passes: wiring.passes,
                secrets: wiring.secrets,
                #[cfg(feature = "failpoints")]
                failpoints: core.failpoints(),
            },
            retry_interval: config.raft.heartbeat_interval,
            shutdown,
        };
        let admin_operations = Arc::new(AdminOperations {
            rm_id: config.rm_id.clone(),
            node_id,
            raft: raft.clone(),
            gate: gate("admin", |e| &e.admin),
            transfer: core.leadership_transfer(),
            members: core.member_changes(CATCH_UP_TIMEOUT),
            proposer: proposer("admin", |e| &e.admin),
            state: state.clone(),
            queues: config.queues.clone(),
        });
        let admin = AdminService {
            operations: Arc::clone(&admin_operations),
            authorizer,
        };
        let client_operations = Arc::new(ClientOperations {
            proposer: proposer("client", |e| &e.client),
            state: state.clone(),
            queues: config.queues.clone(),
            max_attempts: config.am_max_attempts,
            submission_limits: config.submission_limits,
            diagnostics_limit: config.diagnostics_limit,
            node_web_scheme: wiring.web_scheme,
            started_on_ms: now_ms(),
            preemption_enabled: config.preemption.enabled,
            intra_queue_preemption_enabled: config.preemption.settings.intra_queue.is_some(),
            reservations: ReservationDesk::new(config.reservations),
        });
        let client = ClientService {
            operations: Arc::clone(&client_operations),
            authorizer,
        };
        let resource_tracker = ResourceTrackerService {
            operations: ResourceTrackerOperations {
                gate: gate("resource tracker", |e| &e.resource_tracker),
                proposer: proposer("resource tracker", |e| &e.resource_tracker),
                state: state.clone(),
                heartbeat_interval: config.nm_heartbeat_interval,
                diagnostics_limit: config.diagnostics_limit,
                racks: Arc::new(RackResolver::new(config.topology.clone())),
                container_token_expiry: config.container_allocation_expiry,
                auto_update: if config.auto_update_containers {
                    AutoUpdate::All
                } else {
                    AutoUpdate::Shrinking
                },
            },
            authorizer,
        };
        let am_operations = Arc::new(AmOperations {
            proposer: proposer("scheduler", |e| &e.scheduler),
            state,
            queues: config.queues.clone(),
            container_token_expiry: config.container_allocation_expiry,
            opportunistic: config.opportunistic.clone(),
            max_asks_per_allocate: config.max_asks_per_allocate,
            diagnostics_limit: config.diagnostics_limit,
            preemption_messages: config.preemption.enabled && !config.preemption.observe_only,
        });
        let application_master = Arc::new(ApplicationMasterService {
            operations: Arc::clone(&am_operations),
            authorizer,
        });
        let mut scheduler = Routes::builder();
        scheduler
            .add_service(ApplicationMasterProtocolServer::from_arc(Arc::clone(
                &application_master,
            )))
            .add_service(DistributedSchedulingAmProtocolServer::from_arc(
                application_master,
            ));
        Self {
            admin: Routes::new(ResourceManagerAdministrationProtocolServer::new(admin)),
            client: Routes::new(ApplicationClientProtocolServer::new(client)),
            resource_tracker: Routes::new(ResourceTrackerServer::new(resource_tracker)),
            scheduler: scheduler.routes(),
            leadership,
            serving,
            client_operations,
            am_operations,
            admin_operations,
        }
    }
}
