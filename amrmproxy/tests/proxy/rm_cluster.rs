//! Real ResourceManager clusters in this process: each a Raft group of
//! `yarn_rm_ha::ResourceManager` replicas with their own sled storage and mutual-TLS endpoints
//! on 127.0.0.1 port 0, every certificate from one test CA, and stand-in NodeManagers
//! registered through the ResourceTracker protocol (their containers are allocated, never
//! launched: nothing listens at their addresses).

use std::future::Future;
use std::path::Path;
use std::time::Duration;

use tempfile::TempDir;
use tokio::net::TcpListener;
use yarn_client::{Idempotency, RmClient, RmClientConfig, RmService};
use yarn_conf::Configuration;
use yarn_proto::ids::ApplicationAttemptId;
use yarn_proto::pb;
use yarn_proto::pb::resource_tracker_client::ResourceTrackerClient;
use yarn_rm_ha::applications::TokenIssuer;
use yarn_rm_ha::{ResourceManager, RmConfig, RmListeners, Serving};
use yarn_security::{Role, TlsConfig};
use yarn_test_support::pki::Pki;

/// How long any wait on a cluster may take before the test fails, naming what it waited for.
pub const DEADLINE: Duration = Duration::from_secs(30);

/// The container-manager port of every stand-in NodeManager.
pub const NM_PORT: i32 = 45454;

/// Polls `check` until it returns `Some`, failing the test after [`DEADLINE`].
pub async fn eventually<T, F, Fut>(what: &str, check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    yarn_test_support::poll::eventually(what, DEADLINE, check).await
}

/// One running ResourceManager cluster.
pub struct RmCluster {
    /// HA on, the rm-ids and every replica's endpoints: what replicas and clients share.
    members: Configuration,
    replicas: Vec<ResourceManager>,
    _storage: Vec<TempDir>,
}

impl RmCluster {
    /// Starts replicas `<name>1` to `<name><replicas>` of cluster `name`, each with the RM
    /// certificate of `pki` named by its rm-id.
    pub async fn start(pki: &Pki, name: &str, replicas: usize) -> Self {
        let ids: Vec<String> = (1..=replicas).map(|i| format!("{name}{i}")).collect();
        let mut members = Configuration::new();
        members.set("yarn.resourcemanager.ha.enabled", "true");
        members.set("yarn.resourcemanager.ha.rm-ids", &ids.join(","));
        members.set("yarn.resourcemanager.cluster-id", name);
        let mut listeners = Vec::new();
        for id in &ids {
            let bound = RmListeners {
                raft: bind().await,
                admin: bind().await,
                client: bind().await,
                resource_tracker: bind().await,
                scheduler: bind().await,
            };
            let endpoints = [
                ("ha.raft.address", &bound.raft),
                ("admin.address", &bound.admin),
                ("address", &bound.client),
                ("resource-tracker.address", &bound.resource_tracker),
                ("scheduler.address", &bound.scheduler),
            ];
            for (key, listener) in endpoints {
                let address = listener.local_addr().expect("a bound address").to_string();
                members.set(&format!("yarn.resourcemanager.{key}.{id}"), &address);
            }
            // Configured but not served by the replica; port 0 keeps it out of the way.
            members.set(
                &format!("yarn.resourcemanager.webapp.address.{id}"),
                "127.0.0.1:0",
            );
            listeners.push(bound);
        }
        let mut started = Vec::new();
        let mut storage = Vec::new();
        for (id, bound) in ids.iter().zip(listeners) {
            let dir = tempfile::tempdir().expect("storage dir");
            let mut conf = members.clone();
            conf.set(
                "yarn.resourcemanager.ha.raft.storage-dir",
                &path(dir.path()),
            );
            pki.set_tls(&mut conf, Role::ResourceManager, id);
            let config = RmConfig::from_conf(&conf, Some(id)).expect("a valid RmConfig");
            let tls = TlsConfig::from_conf(&conf).expect("the replica's TLS setting");
            let replica = ResourceManager::start_with(config, tls, bound)
                .await
                .unwrap_or_else(|e| panic!("start {id}: {e}"));
            started.push(replica);
            storage.push(dir);
        }
        Self {
            members,
            replicas: started,
            _storage: storage,
        }
    }

    /// Client settings with the certificate of `role`/`name`: every replica, short failover
    /// pauses and enough failovers to ride out an election.
    pub fn client_config(&self, pki: &Pki, role: Role, name: &str) -> RmClientConfig {
        let mut conf = self.members.clone();
        pki.set_tls(&mut conf, role, name);
        conf.set("yarn.client.failover-sleep-base-ms", "20");
        conf.set("yarn.client.failover-sleep-max-ms", "200");
        conf.set("yarn.client.failover-max-attempts", "100");
        RmClientConfig::from_conf(&conf).expect("RM client settings")
    }

    /// The replica serving as leader, once one does.
    pub async fn leader(&self) -> &ResourceManager {
        eventually("a serving leader", || async {
            self.replicas
                .iter()
                .find(|replica| matches!(replica.serving(), Serving::Leader(_)))
        })
        .await
    }

    /// The cluster timestamp in the ids this cluster hands out.
    pub async fn cluster_timestamp(&self) -> i64 {
        self.leader()
            .await
            .state()
            .read(|state| state.cluster_timestamp_ms)
    }

    /// Registers NodeManager `host:NM_PORT` offering `memory_mb` and `vcores`, with the
    /// certificate of `host` (a NodeManager may speak only for itself).
    pub async fn register_node(&self, pki: &Pki, host: &str, memory_mb: i64, vcores: i32) {
        let tracker = RmClient::new(
            &self.client_config(pki, Role::NodeManager, host),
            RmService::ResourceTracker,
        );
        let request = pb::RegisterNodeManagerRequestProto {
            node_id: Some(pb::NodeIdProto {
                host: host.to_owned(),
                port: NM_PORT,
            }),
            http_port: 8042,
            resource: Some(pb::ResourceProto {
                memory: memory_mb,
                virtual_cores: vcores,
                ..Default::default()
            }),
            ..Default::default()
        };
        let response = tracker
            .call(Idempotency::Idempotent, |channel| {
                let request = request.clone();
                async move {
                    ResourceTrackerClient::new(channel)
                        .register_node_manager(request)
                        .await
                }
            })
            .await
            .unwrap_or_else(|e| panic!("register {host}: {e}"));
        assert_eq!(
            response.node_action(),
            pb::NodeActionProto::Normal,
            "{}",
            response.diagnostics_message
        );
    }

    /// Waits until the leader has allocated `attempt`'s AM container, then signs the attempt's
    /// AMRMToken with the replicated key: the token the AM launcher puts in the AM container's
    /// credentials, which the NodeManager hands to the AMRMProxy.
    pub async fn launched_am_token(&self, attempt: ApplicationAttemptId) -> pb::TokenProto {
        eventually(&format!("{attempt}'s AM container"), || async {
            self.leader().await.state().read(|state| {
                state
                    .containers
                    .of_application(attempt.application_id.id)
                    .find(|record| record.is_am && record.attempt_id == attempt.attempt_id)?;
                Some(TokenIssuer::from_state(state)?.amrm_token(attempt))
            })
        })
        .await
    }

    /// Stops every replica cleanly.
    pub async fn shutdown(self) {
        for replica in self.replicas {
            replica.shutdown().await.expect("a clean shutdown");
        }
    }
}

async fn bind() -> TcpListener {
    TcpListener::bind("127.0.0.1:0").await.expect("bind")
}

fn path(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}
