//! The leader's asynchronous scheduler: submissions admitted or rejected through Raft, AM
//! containers committed on registered nodes, and a new leader that neither loses nor repeats
//! them.

use std::collections::BTreeMap;

use yarn_proto::ids::ApplicationId;
use yarn_proto::pb::{self, YarnApplicationStateProto};
use yarn_rm_ha::state_machine::{CommandV1, ContainerRecord, RmCommand, RmResponse};

use crate::support::{Cluster, eventually, on_leader, register_node, submit_with};

/// `root.a` open to everyone, `root.b` STOPPED, `root.c` open to bob only.
fn queues() -> BTreeMap<String, String> {
    [
        ("root.queues", "a,b,c"),
        ("root.acl_submit_applications", " "),
        ("root.acl_administer_queue", " "),
        ("maximum-am-resource-percent", "1.0"),
        ("root.a.capacity", "50"),
        ("root.a.acl_submit_applications", "*"),
        ("root.b.capacity", "25"),
        ("root.b.state", "STOPPED"),
        ("root.c.capacity", "25"),
        ("root.c.acl_submit_applications", "bob"),
    ]
    .into_iter()
    .map(|(k, v)| (format!("yarn.scheduler.capacity.{k}"), v.to_owned()))
    .collect()
}

/// Submits an application to `queue` whose AM needs `am_mb`.
async fn submit(cluster: &Cluster, queue: &str, am_mb: i64) -> ApplicationId {
    let context = pb::ApplicationSubmissionContextProto {
        queue: Some(queue.to_owned()),
        resource: Some(pb::ResourceProto {
            memory: am_mb,
            virtual_cores: 1,
            ..Default::default()
        }),
        ..Default::default()
    };
    submit_with(cluster, context).await
}

/// Waits until the leader reports `id` in `state`, and returns the report.
async fn report_in(
    cluster: &Cluster,
    id: ApplicationId,
    state: YarnApplicationStateProto,
) -> pb::ApplicationReportProto {
    eventually(&format!("{id} to be {state:?}"), || async {
        let (_, report) = on_leader(cluster, "GetApplicationReport", |leader| async move {
            let reply = cluster
                .client(leader)
                .await
                .get_application_report(pb::GetApplicationReportRequestProto {
                    application_id: Some(id.into()),
                })
                .await?;
            Ok(reply.into_inner().application_report.expect("a report"))
        })
        .await;
        (report.yarn_application_state() == state).then_some(report)
    })
    .await
}

/// The containers replica `index` has recorded for `id`.
fn containers_of(cluster: &Cluster, index: usize, id: ApplicationId) -> Vec<ContainerRecord> {
    cluster.replica(index).state().read(|state| {
        state
            .containers
            .of_application(id.id)
            .cloned()
            .collect::<Vec<_>>()
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn submissions_are_admitted_their_am_committed_and_kept_across_a_failover() {
    let mut cluster = Cluster::new(
        3,
        0,
        &[
            ("yarn.acl.enable", "true"),
            // Long enough that only the node's re-registration can let a new leader schedule.
            (
                "yarn.resourcemanager.work-preserving-recovery.scheduling-wait-ms",
                "600000",
            ),
        ],
    )
    .await;
    cluster.start_configured().await;
    let cluster_ref = &cluster;
    on_leader(cluster_ref, "SetQueueConfiguration", |leader| async move {
        let replica = cluster_ref.replica(leader);
        let version = replica.state().read(|state| state.queue_config_version);
        if version == 0 {
            return Err(tonic::Status::unavailable(
                "the initial configuration is not in yet",
            ));
        }
        let command = RmCommand::V1(CommandV1::SetQueueConfiguration {
            expected: version,
            properties: queues(),
        });
        match replica.raft().client_write(command).await {
            Ok(reply) if matches!(reply.data, RmResponse::QueueConfigVersionSet { .. }) => Ok(()),
            Ok(reply) => panic!("the test configuration was refused: {:?}", reply.data),
            Err(err) => Err(tonic::Status::unavailable(err.to_string())),
        }
    })
    .await;
    register_node(&cluster, 8192, 8).await;

    let running = submit(&cluster, "a", 2048).await;
    let stopped = submit(&cluster, "b", 1024).await;
    let denied = submit(&cluster, "c", 1024).await;

    let accepted = report_in(&cluster, running, YarnApplicationStateProto::Accepted).await;
    assert_eq!(
        accepted.queue, "root.a",
        "the leaf name is resolved to its path"
    );
    let leader = cluster.serving_leader(None).await;
    let am = eventually("the AM container to be committed", || async {
        let containers = containers_of(&cluster, leader, running);
        (!containers.is_empty()).then_some(containers)
    })
    .await;
    assert_eq!(am.len(), 1, "{am:?}");
    let am = am[0].clone();
    assert!(am.is_am && am.is_live());
    assert_eq!(
        (am.attempt_id, am.memory_mb, am.node.as_str()),
        (1, 2048, "nm-host-1:45454")
    );

    let failed = report_in(&cluster, stopped, YarnApplicationStateProto::Failed).await;
    assert!(
        failed.diagnostics.contains("STOPPED"),
        "{}",
        failed.diagnostics
    );
    let failed = report_in(&cluster, denied, YarnApplicationStateProto::Failed).await;
    assert!(
        failed.diagnostics.contains("alice") && failed.diagnostics.contains("SUBMIT_APPLICATIONS"),
        "{}",
        failed.diagnostics
    );
    for rejected in [stopped, denied] {
        assert!(containers_of(&cluster, leader, rejected).is_empty());
    }

    // The leader goes; its successor must keep the AM container and issue no second one.
    let old_epoch = cluster.replica(leader).state().read(|state| state.epoch);
    cluster.stop(leader).await;
    let later = submit(&cluster, "a", 1024).await;
    report_in(&cluster, later, YarnApplicationStateProto::Accepted).await;
    register_node(&cluster, 8192, 8).await;
    let successor = cluster.serving_leader(Some(leader)).await;
    let second_am = eventually("the new leader to allocate the next AM", || async {
        let containers = containers_of(&cluster, successor, later);
        containers.first().cloned()
    })
    .await;
    let new_epoch = cluster.replica(successor).state().read(|state| state.epoch);
    assert!(new_epoch > old_epoch);
    let id = yarn_proto::ids::ContainerId::from_raw(
        yarn_proto::ids::ApplicationAttemptId::new(later, 1),
        second_am.key.container_id,
    )
    .expect("a valid container id");
    assert_eq!(
        id.epoch(),
        i64::try_from(new_epoch).unwrap(),
        "ids carry the new epoch"
    );
    assert_eq!(
        containers_of(&cluster, successor, running),
        vec![am],
        "the first AM container is neither lost nor allocated again"
    );

    for index in 0..3 {
        cluster.stop(index).await;
    }
}
