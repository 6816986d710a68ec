//! The harness: a cluster PKI in a temporary directory and in-process replicas, each with sled
//! storage in its own temporary directory and its own mutual-TLS Raft server on 127.0.0.1.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use openraft::{Config, Raft};
use tempfile::TempDir;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use yarn_rm_ha::raft_network::ElectionHold;
use yarn_rm_ha::state_machine::{RmCommand, RmResponse, RmState};
use yarn_rm_ha::storage::{DurableDb, Failpoints, RmLogStore, RmStateMachineStore, open_db};
use yarn_rm_ha::{RaftGrpcNetworkFactory, RaftGrpcService, RmNode, RmNodeId, RmTypeConfig};
use yarn_security::pki::LeafSpec;
use yarn_security::{Authorizer, ChannelOptions, Incoming, Role};
use yarn_test_support::pki::Pki;

/// How long any wait in these tests may take before it fails, naming what it waited for.
pub const DEADLINE: Duration = Duration::from_secs(20);

/// The rm-ids of the test cluster, in `yarn.resourcemanager.ha.rm-ids` order.
pub const RM_IDS: [&str; 3] = ["rm1", "rm2", "rm3"];

/// A PKI with certificates for `resourcemanager/rm1..rm3`, `resourcemanager/rm9` (a certificate
/// of the cluster's CA for a replica that is no member) and `user/alice`.
pub fn make_pki() -> Pki {
    let mut leaves: Vec<LeafSpec> = RM_IDS
        .iter()
        .map(|id| LeafSpec::new(Role::ResourceManager, *id))
        .collect();
    leaves.push(LeafSpec::new(Role::ResourceManager, "rm9"));
    leaves.push(LeafSpec::new(Role::User, "alice"));
    Pki::new(&leaves)
}

/// Small timings so that tests elect quickly; nothing asserts on them.
fn raft_config() -> Arc<Config> {
    let config = Config {
        cluster_name: "yarn-ha-test".to_owned(),
        heartbeat_interval: 50,
        election_timeout_min: 300,
        election_timeout_max: 600,
        ..Config::default()
    };
    Arc::new(config.validate().expect("valid Raft config"))
}

/// One running replica.
pub struct Replica {
    pub node_id: RmNodeId,
    pub rm_id: &'static str,
    pub raft: Raft<RmTypeConfig>,
    pub address: String,
    /// The replica's election hold, as its Raft service records leaders' requests.
    pub hold: ElectionHold,
    /// A second handle on the replica's sled database, to read its stored snapshot.
    db: DurableDb,
    shutdown: Option<oneshot::Sender<()>>,
    server: Option<JoinHandle<Result<(), tonic::transport::Error>>>,
    _storage: TempDir,
}

impl Replica {
    /// Starts replica `rm_id` (node id = its 1-based position in [`RM_IDS`]) serving Raft on
    /// `listener` with its own certificate.
    pub async fn start(pki: &Pki, rm_id: &'static str, listener: TcpListener) -> Replica {
        let node_id = yarn_rm_ha::node_id_of(rm_id);
        let address = format!("127.0.0.1:{}", listener.local_addr().unwrap().port());
        let storage = tempfile::tempdir().expect("create the storage directory");
        let db = open_db(storage.path(), &Failpoints::default()).expect("open sled");
        let log_store = RmLogStore::new(&db).expect("open the log store");
        let state_machine = RmStateMachineStore::new(&db).expect("open the state machine");
        let tls = pki.tls(Role::ResourceManager, rm_id);
        let network = RaftGrpcNetworkFactory::new(rm_id, tls.clone(), ChannelOptions::default());
        let raft = Raft::new(node_id, raft_config(), network, log_store, state_machine)
            .await
            .expect("start Raft");
        let service = RaftGrpcService::new(
            raft.clone(),
            rm_id,
            RM_IDS.map(str::to_owned),
            Authorizer::for_tls(&tls),
        );
        let hold = service.election_hold();
        let (shutdown, signal) = oneshot::channel::<()>();
        let server = tokio::spawn(
            tonic::transport::Server::builder()
                .add_service(service.into_server())
                .serve_with_incoming_shutdown(Incoming::new(listener, &tls), async {
                    let _ = signal.await;
                }),
        );
        Replica {
            node_id,
            rm_id,
            raft,
            address,
            hold,
            db,
            shutdown: Some(shutdown),
            server: Some(server),
            _storage: storage,
        }
    }

    /// Stops Raft, then the server, and waits for both.
    pub async fn stop(&mut self) {
        self.raft.shutdown().await.expect("Raft shuts down cleanly");
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        if let Some(server) = self.server.take() {
            server
                .await
                .expect("server task")
                .expect("server ends cleanly");
        }
    }

    /// Waits until this replica knows a leader other than `not` and returns it.
    pub async fn wait_for_leader(&self, not: Option<RmNodeId>) -> RmNodeId {
        let metrics = self
            .raft
            .wait(Some(DEADLINE))
            .metrics(
                |m| m.current_leader.is_some() && m.current_leader != not,
                format!("{} to know a leader other than {not:?}", self.rm_id),
            )
            .await
            .expect("a leader is elected");
        metrics.current_leader.expect("checked above")
    }

    /// Proposes `command`, which must commit; returns its result and log index.
    pub async fn write(&self, command: RmCommand) -> (RmResponse, u64) {
        let reply = self
            .raft
            .client_write(command)
            .await
            .unwrap_or_else(|e| panic!("write on {}: {e}", self.rm_id));
        (reply.data, reply.log_id.index)
    }

    /// The replicated state once the entry at `index` is applied here, read back from a snapshot
    /// this replica writes to its own sled storage.
    pub async fn state_after(&self, index: u64) -> RmState {
        let wait = self.raft.wait(Some(DEADLINE));
        wait.applied_index_at_least(
            Some(index),
            format!("{} to apply index {index}", self.rm_id),
        )
        .await
        .expect("the entry is applied");
        self.raft
            .trigger()
            .snapshot()
            .await
            .expect("trigger a snapshot");
        wait.metrics(
            |m| m.snapshot.is_some_and(|s| s.index >= index),
            format!("{} to snapshot at index {index} or later", self.rm_id),
        )
        .await
        .expect("the snapshot is written");
        RmStateMachineStore::new(&self.db)
            .expect("read the stored snapshot")
            .state()
            .clone()
    }
}

/// Binds one listener per rm-id on 127.0.0.1 port 0, so that every address is known before
/// any replica starts.
pub async fn bind_all() -> Vec<TcpListener> {
    let mut listeners = Vec::new();
    for _ in RM_IDS {
        listeners.push(TcpListener::bind("127.0.0.1:0").await.expect("bind"));
    }
    listeners
}

/// Starts one replica per rm-id and initializes the group from rm1 with all of them.
pub async fn start_cluster(pki: &Pki) -> Vec<Replica> {
    let mut replicas = Vec::new();
    for (rm_id, listener) in RM_IDS.into_iter().zip(bind_all().await) {
        replicas.push(Replica::start(pki, rm_id, listener).await);
    }
    let members: BTreeMap<RmNodeId, RmNode> = replicas
        .iter()
        .map(|r| {
            let node = RmNode {
                rm_id: r.rm_id.to_owned(),
                raft_address: r.address.clone(),
            };
            (r.node_id, node)
        })
        .collect();
    replicas[0]
        .raft
        .initialize(members)
        .await
        .expect("initialize the group");
    replicas
}
