//! The mutation API of a mutable queue configuration on three replicas over mutual TLS: a
//! change is checked as a refresh and committed as one version on every replica while an
//! application runs in another queue, a refused change changes nothing and says why,
//! `-refreshQueues` is refused, the default policy lets administrators only and the queue-admin
//! policy lets a queue's administrators change that queue, and the configuration survives a
//! change of leader.

use std::collections::BTreeMap;

use yarn_proto::pb;
use yarn_test_support::rm_cluster::RmCluster;

use crate::applications::report;
use crate::support::{USER, eventually, new_cluster, not_leader, set_queue_configuration, submit};

const MUTABLE_STORE: (&str, &str) = ("yarn.scheduler.configuration.store.class", "memory");

/// root.{default, a}, each 50 %, `bob` administering `root.a` and nobody else any queue.
fn queues() -> BTreeMap<String, String> {
    [
        ("root.queues", "default,a"),
        ("root.default.capacity", "50"),
        ("root.a.capacity", "50"),
        ("root.acl_administer_queue", " "),
        ("root.a.acl_administer_queue", "bob"),
    ]
    .into_iter()
    .map(|(key, value)| (format!("yarn.scheduler.capacity.{key}"), value.to_owned()))
    .collect()
}

/// Sends `request` as `user` to the serving leader, again to the next one while a replica
/// answers that it does not lead.
async fn mutate(
    cluster: &RmCluster,
    user: &str,
    request: pb::UpdateSchedulerConfigurationRequestProto,
) -> Result<pb::RefreshQueuesResponseProto, tonic::Status> {
    for _ in 0..20 {
        let leader = cluster.serving_leader(None).await;
        let reply = cluster
            .admin(leader, user)
            .await
            .update_scheduler_configuration(request.clone())
            .await;
        match reply {
            Err(status) if not_leader(&status) => continue,
            other => return other.map(tonic::Response::into_inner),
        }
    }
    panic!("no replica kept leading long enough to answer");
}

fn update(queue: &str, key: &str, value: &str) -> pb::UpdateSchedulerConfigurationRequestProto {
    pb::UpdateSchedulerConfigurationRequestProto {
        update_queues: vec![pb::SchedConfQueueProto {
            queue: queue.to_owned(),
            params: vec![pb::SchedConfParamProto {
                key: key.to_owned(),
                value: Some(value.to_owned()),
            }],
        }],
        ..Default::default()
    }
}

/// Every replica's committed configuration and version, once all agree on `version`.
async fn replicated(cluster: &RmCluster, version: u64) -> BTreeMap<String, String> {
    let configs = eventually("every replica to hold the version", || async {
        let configs: Vec<_> = (0..3)
            .map(|index| {
                cluster
                    .replica(index)
                    .state()
                    .read(|state| (state.queue_config_version, state.queue_config.clone()))
            })
            .collect();
        configs
            .iter()
            .all(|(held, config)| *held == version && *config == configs[0].1)
            .then_some(configs)
    })
    .await;
    configs[0].1.clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutations_commit_one_version_everywhere_and_refusals_change_nothing() {
    let mut cluster = new_cluster(3, 0, &[MUTABLE_STORE, ("yarn.acl.enable", "true")]).await;
    cluster.start_members().await;
    set_queue_configuration(&cluster, queues()).await;
    let running = submit(&cluster, "running").await;
    eventually("the application to be admitted to root.default", || async {
        (report(&cluster, running).await.queue == "root.default").then_some(())
    })
    .await;
    let base = cluster
        .replica(0)
        .state()
        .read(|state| state.queue_config_version);

    // Add a queue under root.a, while an application runs in root.default.
    let added = mutate(
        &cluster,
        USER,
        pb::UpdateSchedulerConfigurationRequestProto {
            add_queues: vec![pb::SchedConfQueueProto {
                queue: "root.a.a1".to_owned(),
                params: vec![pb::SchedConfParamProto {
                    key: "capacity".to_owned(),
                    value: Some("100".to_owned()),
                }],
            }],
            ..Default::default()
        },
    )
    .await
    .expect("an administrator adds a queue");
    assert!(added.committed);
    assert_eq!(added.queue_config_version, base + 1);
    let config = replicated(&cluster, base + 1).await;
    assert_eq!(config["yarn.scheduler.capacity.root.a.queues"], "a1");
    assert_eq!(config["yarn.scheduler.capacity.root.a.a1.capacity"], "100");

    // Refusals, each changing nothing.
    let over = mutate(&cluster, USER, update("root.default", "capacity", "70"))
        .await
        .unwrap_err();
    assert_eq!(over.code(), tonic::Code::InvalidArgument, "{over}");
    assert!(
        over.message().contains("Failed to re-init queues"),
        "{over}"
    );
    let busy = mutate(
        &cluster,
        USER,
        pb::UpdateSchedulerConfigurationRequestProto {
            remove_queues: vec!["root.default".to_owned()],
            ..update("root.a", "capacity", "100")
        },
    )
    .await
    .unwrap_err();
    assert!(
        busy.message()
            .contains("root.default is removed but is RUNNING"),
        "a running queue is not removed: {busy}"
    );
    let stranger = mutate(&cluster, "mallory", update("root.a.a1", "capacity", "100"))
        .await
        .unwrap_err();
    assert_eq!(stranger.code(), tonic::Code::PermissionDenied, "{stranger}");
    let queue_admin = mutate(&cluster, "bob", update("root.a", "maximum-capacity", "80"))
        .await
        .unwrap_err();
    assert_eq!(
        queue_admin.code(),
        tonic::Code::PermissionDenied,
        "the default policy lets administrators only: {queue_admin}"
    );
    let leader = cluster.serving_leader(None).await;
    let refresh = cluster
        .admin(leader, USER)
        .await
        .refresh_queues(pb::RefreshQueuesRequestProto {})
        .await
        .unwrap_err();
    assert!(
        refresh.message().ends_with(
            "Scheduler configuration is mutable. refreshQueues is not allowed in this scenario."
        ),
        "{refresh}"
    );
    assert_eq!(replicated(&cluster, base + 1).await, config);

    // Each change keeps what it replaced; a kept version is restored as the next one.
    let raised = mutate(
        &cluster,
        USER,
        update("root.a.a1", "user-limit-factor", "2"),
    )
    .await
    .unwrap();
    assert_eq!(raised.queue_config_version, base + 2);
    let leader = cluster.serving_leader(None).await;
    let restored = cluster
        .admin(leader, USER)
        .await
        .restore_scheduler_configuration(pb::RestoreSchedulerConfigurationRequestProto {
            version: base + 1,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(restored.queue_config_version, base + 3);
    assert_eq!(replicated(&cluster, base + 3).await, config);
    let unknown = cluster
        .admin(leader, USER)
        .await
        .restore_scheduler_configuration(pb::RestoreSchedulerConfigurationRequestProto {
            version: base + 40,
        })
        .await
        .unwrap_err();
    assert_eq!(unknown.code(), tonic::Code::NotFound, "{unknown}");

    // The configuration, its version and the kept ones survive the leader.
    cluster.stop(leader).await;
    let next = cluster.serving_leader(Some(leader)).await;
    let held = cluster
        .admin(next, USER)
        .await
        .get_scheduler_configuration(pb::GetSchedulerConfigurationRequestProto { version: None })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(held.version, base + 3);
    assert_eq!(held.kept_versions, [base, base + 1, base + 2]);
    let kept = cluster
        .admin(next, USER)
        .await
        .get_scheduler_configuration(pb::GetSchedulerConfigurationRequestProto {
            version: Some(base + 2),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(
        kept.properties.iter().any(|param| param.key
            == "yarn.scheduler.capacity.root.a.a1.user-limit-factor"
            && param.value.as_deref() == Some("2")),
        "{kept:?}"
    );
    let held: BTreeMap<String, String> = held
        .properties
        .into_iter()
        .map(|param| (param.key, param.value.unwrap_or_default()))
        .collect();
    assert_eq!(held, config);
    for index in 0..3 {
        cluster.stop(index).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_queue_admin_policy_lets_a_queue_administrator_change_only_its_queues() {
    let policy = (
        "yarn.scheduler.configuration.mutation.acl-policy.class",
        "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.conf.\
         QueueAdminConfigurationMutationACLPolicy",
    );
    let mut cluster =
        new_cluster(3, 0, &[MUTABLE_STORE, ("yarn.acl.enable", "true"), policy]).await;
    cluster.start_members().await;
    set_queue_configuration(&cluster, queues()).await;
    let own = mutate(&cluster, "bob", update("root.a", "maximum-capacity", "80"))
        .await
        .expect("bob administers root.a");
    assert!(own.committed);
    let denied = "User is not admin of all modified queues.";
    for (user, request) in [
        ("bob", update("root.default", "maximum-capacity", "80")),
        ("mallory", update("root.a", "maximum-capacity", "70")),
        (
            "bob",
            pb::UpdateSchedulerConfigurationRequestProto {
                global_updates: vec![pb::SchedConfParamProto {
                    key: "yarn.scheduler.capacity.maximum-applications".to_owned(),
                    value: Some("500".to_owned()),
                }],
                ..Default::default()
            },
        ),
    ] {
        let refusal = mutate(&cluster, user, request).await.unwrap_err();
        assert_eq!(refusal.code(), tonic::Code::PermissionDenied, "{refusal}");
        assert!(refusal.message().contains(denied), "{refusal}");
    }
    let config = replicated(&cluster, own.queue_config_version).await;
    assert_eq!(
        config["yarn.scheduler.capacity.root.a.maximum-capacity"],
        "80"
    );
    for index in 0..3 {
        cluster.stop(index).await;
    }
}
