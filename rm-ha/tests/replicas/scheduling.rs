//! The leader's asynchronous scheduler: submissions admitted or rejected through Raft, AM
//! containers committed on registered nodes, and a new leader that neither loses nor repeats
//! them.

use std::collections::BTreeMap;

use yarn_proto::ids::ApplicationId;
use yarn_proto::pb::{self, YarnApplicationStateProto};
use yarn_rm_ha::state_machine::{APPLY_RULES, ContainerRecord};
use yarn_test_support::rm_cluster::RmCluster;

use crate::support::{
    USER, eventually, new_cluster, on_leader, register_node, set_queue_configuration, submit_with,
    try_submit_with,
};

/// `root.a` open to everyone, `root.b` STOPPED (open to everyone), `root.c` open to bob only.
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
        ("root.b.acl_submit_applications", "*"),
        ("root.c.capacity", "25"),
        ("root.c.acl_submit_applications", "bob"),
    ]
    .into_iter()
    .map(|(k, v)| (format!("yarn.scheduler.capacity.{k}"), v.to_owned()))
    .collect()
}

/// Submits an application to `queue` whose AM needs `am_mb`.
async fn submit(cluster: &RmCluster, queue: &str, am_mb: i64) -> ApplicationId {
    submit_with(cluster, am_context(queue, am_mb)).await
}

fn am_context(queue: &str, am_mb: i64) -> pb::ApplicationSubmissionContextProto {
    pb::ApplicationSubmissionContextProto {
        queue: Some(queue.to_owned()),
        resource: Some(pb::ResourceProto {
            memory: am_mb,
            virtual_cores: 1,
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// Submits like [`submit`], returning the leader's answer.
async fn try_submit(
    cluster: &RmCluster,
    queue: &str,
    am_mb: i64,
) -> (ApplicationId, Result<(), tonic::Status>) {
    try_submit_with(cluster, am_context(queue, am_mb)).await
}

/// Waits until the leader reports `id` in `state`, and returns the report.
async fn report_in(
    cluster: &RmCluster,
    id: ApplicationId,
    state: YarnApplicationStateProto,
) -> pb::ApplicationReportProto {
    eventually(&format!("{id} to be {state:?}"), || async {
        let (_, report) = on_leader(cluster, "GetApplicationReport", |leader| async move {
            let reply = cluster
                .client(leader, USER)
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
fn containers_of(cluster: &RmCluster, index: usize, id: ApplicationId) -> Vec<ContainerRecord> {
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
    let mut cluster = new_cluster(
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
    cluster.start_members().await;
    set_queue_configuration(&cluster, queues()).await;
    register_node(&cluster, 8192, 8).await;

    let running = submit(&cluster, "a", 2048).await;
    let stopped = submit(&cluster, "b", 1024).await;
    // Refused while the client waits, as YARN does: no right to submit, an AM above the
    // maximum allocation (8192 MB by default).
    let (denied, refusal) = try_submit(&cluster, "c", 1024).await;
    let refusal = refusal.unwrap_err();
    assert_eq!(refusal.code(), tonic::Code::PermissionDenied, "{refusal}");
    assert!(
        refusal.message().contains("alice") && refusal.message().contains("SUBMIT_APPLICATIONS"),
        "{refusal}"
    );
    let (too_big, refusal) = try_submit(&cluster, "a", 9000).await;
    let refusal = refusal.unwrap_err();
    assert_eq!(refusal.code(), tonic::Code::InvalidArgument, "{refusal}");
    assert!(
        refusal.message().contains("maximum allocation"),
        "{refusal}"
    );

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
    for refused in [denied, too_big] {
        let stored = cluster
            .replica(leader)
            .state()
            .read(|state| state.applications.contains_key(&refused.id));
        assert!(!stored, "a refused submission {refused} is not stored");
    }
    assert!(containers_of(&cluster, leader, stopped).is_empty());

    // The leader raised the state's apply rules to its own before serving.
    let rules = cluster
        .replica(leader)
        .state()
        .read(|state| state.apply_rules);
    assert_eq!(rules, APPLY_RULES);

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

/// Group entries of ACLs match the groups `hadoop.security.group.mapping` (here its static
/// overrides) finds for the caller: alice may submit to a queue that names only her group, and
/// mallory may administer the cluster through hers while her own name is in no list.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn group_entries_of_queue_and_admin_acls_admit_members_of_those_groups() {
    let mut cluster = new_cluster(
        3,
        0,
        &[
            ("yarn.acl.enable", "true"),
            ("yarn.admin.acl", "alice admins"),
            (
                "hadoop.user.group.static.mapping.overrides",
                "alice=analysts;mallory=staff,admins",
            ),
        ],
    )
    .await;
    cluster.start_members().await;
    let mut queues = queues();
    queues.insert(
        "yarn.scheduler.capacity.root.c.acl_submit_applications".to_owned(),
        "bob analysts".to_owned(),
    );
    set_queue_configuration(&cluster, queues).await;
    register_node(&cluster, 8192, 8).await;

    let (member, answer) = try_submit(&cluster, "c", 1024).await;
    answer.expect("alice is in analysts, which root.c names");
    let accepted = report_in(&cluster, member, YarnApplicationStateProto::Accepted).await;
    assert_eq!(accepted.queue, "root.c");

    let leader = cluster.serving_leader(None).await;
    let mut admin = cluster.admin(leader, "mallory").await;
    admin
        .get_service_status(pb::HaServiceStatusRequestProto {})
        .await
        .expect("mallory is in admins, which yarn.admin.acl names");

    for index in 0..3 {
        cluster.stop(index).await;
    }
}
