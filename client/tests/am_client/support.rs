//! The harness: a cluster PKI in a temporary directory, the client configuration pointing at
//! scheduler replicas, records the tests build, and a deadline-bounded wait.

use std::future::Future;
use std::time::Duration;

use tokio::net::TcpListener;
use yarn_client::RmClientConfig;
use yarn_conf::Configuration;
use yarn_proto::pb;
use yarn_security::pki::LeafSpec;
use yarn_security::{Incoming, Role};
use yarn_test_support::pki::Pki;

/// The user the ApplicationMaster authenticates as.
pub const USER: &str = "alice";

/// The node every test container runs on.
pub const NODE: &str = "nm1";

/// How long a test waits for something that should happen within milliseconds.
pub const PATIENCE: Duration = Duration::from_secs(10);

/// A PKI with `resourcemanager/rm1..rm2`, `nodemanager/nm1` and `user/alice`.
pub fn must_make_pki() -> Pki {
    Pki::new(&[
        LeafSpec::new(Role::ResourceManager, "rm1"),
        LeafSpec::new(Role::ResourceManager, "rm2"),
        LeafSpec::new(Role::NodeManager, NODE),
        LeafSpec::new(Role::User, USER),
    ])
}

/// A listener on 127.0.0.1 port 0, its address, and its TLS setting as `role`/`name`.
pub async fn must_listen(pki: &Pki, role: Role, name: &str) -> (Incoming, String) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    must_listen_on(pki, role, name, listener)
}

/// As [`must_listen`], on `listener`.
pub fn must_listen_on(
    pki: &Pki,
    role: Role,
    name: &str,
    listener: TcpListener,
) -> (Incoming, String) {
    let address = listener.local_addr().unwrap().to_string();
    (Incoming::new(listener, &pki.tls(role, name)), address)
}

/// The AM's client configuration: HA over `replicas` (rm id, scheduler address), the user
/// certificate, millisecond failover pauses, a short call deadline.
pub fn must_client_config(pki: &Pki, replicas: &[(&str, &str)]) -> RmClientConfig {
    let mut conf = Configuration::new();
    conf.set("yarn.resourcemanager.ha.enabled", "true");
    let ids: Vec<&str> = replicas.iter().map(|(id, _)| *id).collect();
    conf.set("yarn.resourcemanager.ha.rm-ids", &ids.join(","));
    for (id, address) in replicas {
        conf.set(
            &format!("yarn.resourcemanager.scheduler.address.{id}"),
            address,
        );
    }
    pki.set_tls(&mut conf, Role::User, USER);
    conf.set("yarn.client.failover-sleep-base-ms", "1");
    conf.set("yarn.client.failover-sleep-max-ms", "10");
    conf.set("yarn.client.failover-max-attempts", "4");
    let mut config = RmClientConfig::from_conf(&conf).expect("valid client configuration");
    config.call_timeout = Duration::from_secs(2);
    config
}

/// A token of `kind` told apart by `password`.
pub fn token(kind: &str, password: u8) -> pb::TokenProto {
    pb::TokenProto {
        identifier: vec![1, 2, 3],
        password: vec![password],
        kind: kind.to_owned(),
        service: String::new(),
    }
}

/// The id of container `n` of attempt 1 of application 1.
pub fn container_id(n: i64) -> pb::ContainerIdProto {
    pb::ContainerIdProto {
        app_id: Some(pb::ApplicationIdProto {
            id: 1,
            cluster_timestamp: 1_700_000_000_000,
        }),
        app_attempt_id: Some(pb::ApplicationAttemptIdProto {
            application_id: Some(pb::ApplicationIdProto {
                id: 1,
                cluster_timestamp: 1_700_000_000_000,
            }),
            attempt_id: 1,
        }),
        id: n,
    }
}

/// A node id `host:port`.
pub fn node_id(host: &str, port: i32) -> pb::NodeIdProto {
    pb::NodeIdProto {
        host: host.to_owned(),
        port,
    }
}

/// An ask for `count` containers of 1 GiB at priority 1 on `name`.
pub fn ask(name: &str, count: i32) -> pb::ResourceRequestProto {
    pb::ResourceRequestProto {
        priority: Some(pb::PriorityProto { priority: 1 }),
        resource_name: name.to_owned(),
        capability: Some(pb::ResourceProto {
            memory: 1024,
            virtual_cores: 1,
            resource_value_map: Default::default(),
        }),
        num_containers: count,
        ..Default::default()
    }
}

/// Container `n` on `host`, satisfying [`ask`]s.
pub fn container(n: i64, host: &str) -> pb::ContainerProto {
    pb::ContainerProto {
        id: Some(container_id(n)),
        node_id: Some(node_id(host, 8041)),
        resource: ask("*", 1).capability,
        priority: Some(pb::PriorityProto { priority: 1 }),
        allocation_request_id: Some(0),
        ..Default::default()
    }
}

/// Waits until `done` holds, checking every few milliseconds, failing the test with `what`
/// after [`PATIENCE`].
pub async fn must_wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while !done() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting until {what}"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// `future`'s output, failing the test with `what` after [`PATIENCE`].
pub async fn must_within<T>(what: &str, future: impl Future<Output = T>) -> T {
    tokio::time::timeout(PATIENCE, future)
        .await
        .unwrap_or_else(|_| panic!("timed out waiting for {what}"))
}
