//! The harness: a scriptable node context, ids and tokens the tests use, RM clients for fake
//! RMs, and proxy configurations.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use yarn_amrmproxy::{
    ApplicationContext, InterceptorChain, InterceptorPipeline, InterceptorRegistry, NodeContext,
    ProxyConfig,
};
use yarn_client::{RmClient, RmClientConfig, RmService};
use yarn_conf::Configuration;
use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, NodeId};
use yarn_proto::pb;
use yarn_security::{MasterKey, TokenSecretManager};

use crate::fake_rm::FakeRm;

/// When every test starts, ms since the Unix epoch.
pub const T0: i64 = 1_700_000_000_000;

/// The submitter of every test application.
pub const USER: &str = "alice";

/// The cluster timestamp of every test application.
pub const CLUSTER_TIMESTAMP: i64 = 1_690_000_000_000;

/// A node whose clock and keys the test sets.
#[derive(Debug)]
pub struct TestNode {
    node_id: NodeId,
    now_ms: AtomicI64,
    container_key: Mutex<Option<MasterKey>>,
    nm_key: Mutex<Option<MasterKey>>,
}

impl TestNode {
    /// Node `nm0:8041` at [`T0`] holding the container-token key 11 and the NM-token key 21.
    pub fn with_keys() -> Arc<Self> {
        let node = Self::without_keys();
        node.install_keys();
        node
    }

    /// Node `nm0:8041` at [`T0`] that has not heard of any key yet.
    pub fn without_keys() -> Arc<Self> {
        Arc::new(Self {
            node_id: NodeId::new("nm0", 8041),
            now_ms: AtomicI64::new(T0),
            container_key: Mutex::new(None),
            nm_key: Mutex::new(None),
        })
    }

    /// The RM ships its keys.
    pub fn install_keys(&self) {
        *self.container_key.lock().unwrap() = Some(container_key());
        *self.nm_key.lock().unwrap() = Some(nm_key());
    }

    /// Moves the clock to `now_ms`.
    pub fn set_now(&self, now_ms: i64) {
        self.now_ms.store(now_ms, Ordering::SeqCst);
    }
}

impl NodeContext for TestNode {
    fn node_id(&self) -> NodeId {
        self.node_id.clone()
    }

    fn http_address(&self) -> String {
        "nm0:8042".to_owned()
    }

    fn container_token_master_key(&self) -> Option<MasterKey> {
        self.container_key.lock().unwrap().clone()
    }

    fn nm_token_master_key(&self) -> Option<MasterKey> {
        self.nm_key.lock().unwrap().clone()
    }

    fn now_ms(&self) -> i64 {
        self.now_ms.load(Ordering::SeqCst)
    }
}

/// The RM's container-token key as every node holds it.
pub fn container_key() -> MasterKey {
    MasterKey::new(11, [0xC1; MasterKey::LEN])
}

/// The RM's NM-token key as every node holds it.
pub fn nm_key() -> MasterKey {
    MasterKey::new(21, [0x21; MasterKey::LEN])
}

/// Attempt 1 of application `seq`.
pub fn attempt(seq: i32) -> ApplicationAttemptId {
    ApplicationAttemptId::new(ApplicationId::new(CLUSTER_TIMESTAMP, seq), 1)
}

/// An AMRMToken for `attempt` as the RM issues it (its own key, service `yarn-ha-scheduler`);
/// `generation` tells the RM's rolled tokens apart.
pub fn rm_token(attempt: ApplicationAttemptId, generation: u8) -> pb::TokenProto {
    let key = MasterKey::new(i32::from(generation), [generation; MasterKey::LEN]);
    let identifier = pb::AmrmTokenIdentifierProto {
        app_attempt_id: Some(attempt.into()),
        key_id: 0,
    };
    TokenSecretManager::new(key)
        .sign(identifier, "yarn-ha-scheduler")
        .into()
}

/// A client of the scheduler service at `address` (a fake RM), plaintext, with short failover
/// pauses and few attempts.
pub fn rm_client(address: &str) -> Arc<RmClient> {
    let mut conf = Configuration::new();
    conf.set("yarn.tls.enabled", "false");
    conf.set("yarn.resourcemanager.scheduler.address", address);
    conf.set("yarn.client.failover-sleep-base-ms", "10");
    conf.set("yarn.client.failover-sleep-max-ms", "20");
    conf.set("yarn.client.failover-max-attempts", "2");
    let config = RmClientConfig::from_conf(&conf).expect("RM client configuration");
    Arc::new(RmClient::new(&config, RmService::Scheduler))
}

/// The proxy configuration for `pipeline`, distributed scheduling on or off, the proxy enabled
/// on `nm0:8049`, and `extra` settings.
pub fn proxy_config(pipeline: &str, distributed: bool, extra: &[(&str, &str)]) -> ProxyConfig {
    let mut conf = Configuration::new();
    conf.set("yarn.nodemanager.amrmproxy.enabled", "true");
    conf.set("yarn.nodemanager.amrmproxy.address", "nm0:8049");
    conf.set(
        "yarn.nodemanager.distributed-scheduling.enabled",
        if distributed { "true" } else { "false" },
    );
    conf.set(
        "yarn.nodemanager.amrmproxy.interceptor-class.pipeline",
        pipeline,
    );
    for (key, value) in extra {
        conf.set(key, value);
    }
    ProxyConfig::from_conf(&conf).expect("proxy configuration")
}

/// A `ResourceRequestProto` for `count` containers of 1000 MB and 1 vcore at `name`, priority
/// `priority`, of `execution_type`.
pub fn ask(
    priority: i32,
    name: &str,
    count: i32,
    execution_type: pb::ExecutionTypeProto,
) -> pb::ResourceRequestProto {
    pb::ResourceRequestProto {
        priority: Some(pb::PriorityProto { priority }),
        resource_name: name.to_owned(),
        capability: Some(pb::ResourceProto {
            memory: 1000,
            virtual_cores: 1,
            ..Default::default()
        }),
        num_containers: count,
        execution_type_request: Some(pb::ExecutionTypeRequestProto {
            execution_type: execution_type.into(),
            enforce_execution_type: true,
        }),
        ..Default::default()
    }
}

/// A least-loaded-node entry for `host:8041`.
pub fn remote_node(host: &str) -> pb::RemoteNodeProto {
    pb::RemoteNodeProto {
        node_id: Some(pb::NodeIdProto {
            host: host.to_owned(),
            port: 8041,
        }),
        http_address: format!("{host}:8042"),
        rack_name: "/default-rack".to_owned(),
        node_partition: String::new(),
    }
}

/// A GUARANTEED container the RM allocated: number `n` of `attempt` on `host`.
pub fn rm_container(attempt: ApplicationAttemptId, n: i64, host: &str) -> pb::ContainerProto {
    pb::ContainerProto {
        id: Some(pb::ContainerIdProto {
            app_id: Some(attempt.application_id.into()),
            app_attempt_id: Some(attempt.into()),
            id: n,
        }),
        node_id: Some(pb::NodeIdProto {
            host: host.to_owned(),
            port: 8041,
        }),
        resource: Some(pb::ResourceProto {
            memory: 1024,
            virtual_cores: 1,
            ..Default::default()
        }),
        priority: Some(pb::PriorityProto { priority: 1 }),
        execution_type: pb::ExecutionTypeProto::Guaranteed.into(),
        allocation_request_id: Some(0),
        ..Default::default()
    }
}

/// Attempt 1's chain of the built-in interceptors relaying to `rm`: the default interceptor
/// alone, or behind the distributed scheduler when `distributed` scheduling is on.
pub fn default_chain(rm: &FakeRm, distributed: bool) -> InterceptorChain {
    let config = proxy_config("default", distributed, &[]);
    let registry = InterceptorRegistry::with_builtins(&config, rm_client(&rm.address));
    let pipeline = InterceptorPipeline::from_config(&config, registry).unwrap();
    let context = ApplicationContext::new(
        attempt(1),
        USER,
        rm_token(attempt(1), 1),
        TestNode::with_keys() as Arc<_>,
    );
    pipeline.build(context).unwrap()
}
