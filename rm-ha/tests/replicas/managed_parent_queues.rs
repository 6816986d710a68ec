//! Legacy auto-creation of leaf queues on three replicas: submissions placed under a managed
//! parent create their leaves, the first ones with the template's capacity while the parent
//! has room, and the queue management policy moves the capacity of a leaf whose applications
//! ended to one whose applications wait.

use crate::applications::{kill, report};
use crate::support::{
    auto_created_everywhere, eventually, new_cluster, set_queue_configuration, submit,
    try_submit_with,
};
use yarn_proto::pb;
use yarn_scheduler::CreatedAs::{self, GuaranteedLeaf, Leaf};
use yarn_scheduler::CreatedQueues;
use yarn_test_support::rm_cluster::RmCluster;

/// Waits until every replica of `alive` holds exactly the created leaves `wanted`.
async fn held_everywhere(cluster: &RmCluster, alive: &[usize], wanted: &[(&str, CreatedAs)]) {
    let wanted: CreatedQueues = wanted
        .iter()
        .map(|(path, kind)| ((*path).to_owned(), *kind))
        .collect();
    auto_created_everywhere(cluster, alive, &wanted, Clone::clone).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leaves_of_a_managed_parent_get_its_capacity_in_turn() {
    let policy = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.QueueManagementDynamicEditPolicy";
    let mut cluster = new_cluster(
        3,
        0,
        &[
            ("yarn.resourcemanager.scheduler.monitor.enable", "true"),
            ("yarn.resourcemanager.scheduler.monitor.policies", policy),
            (
                "yarn.resourcemanager.monitor.capacity.queue-management.monitoring-interval",
                "100",
            ),
        ],
    )
    .await;
    cluster.start_members().await;
    let key = |suffix: &str| format!("yarn.scheduler.capacity.{suffix}");
    // Applications a, b and c go to the leaves named after them, two of which hold 50 percent
    // at once.
    let rule = |name: &str| {
        format!(
            r#"{{"type": "application", "matches": "{name}", "policy": "custom",
            "customPlacement": "root.managed.%application", "fallbackResult": "skip"}}"#
        )
    };
    let rules = format!(
        r#"{{"rules": [{}, {}, {}]}}"#,
        rule("a"),
        rule("b"),
        rule("c")
    );
    set_queue_configuration(
        &cluster,
        [
            (key("root.queues"), "default,managed"),
            (key("root.default.capacity"), "50"),
            (key("root.managed.capacity"), "50"),
            (key("root.managed.auto-create-child-queue.enabled"), "true"),
            (key("root.managed.leaf-queue-template.capacity"), "50"),
            (key("mapping-rule-format"), "json"),
            (key("mapping-rule-json"), rules.as_str()),
        ]
        .into_iter()
        .map(|(key, value)| (key, value.to_owned()))
        .collect(),
    )
    .await;
    // The committed configuration reaches the leader's scheduler at its next reconcile.
    let a = eventually("the rule to create root.managed.a", || async {
        let id = submit(&cluster, "a").await;
        (report(&cluster, id).await.queue == "root.managed.a").then_some(id)
    })
    .await;
    let b = submit(&cluster, "b").await;
    let c = submit(&cluster, "c").await;
    for id in [a, b, c] {
        let accepted = eventually("the application to be admitted", || async {
            let report = report(&cluster, id).await;
            (report.yarn_application_state() != pb::YarnApplicationStateProto::Submitted)
                .then_some(report)
        })
        .await;
        assert_eq!(
            accepted.yarn_application_state(),
            pb::YarnApplicationStateProto::Accepted,
            "{}",
            accepted.diagnostics
        );
    }
    let all = [0, 1, 2];
    held_everywhere(
        &cluster,
        &all,
        &[
            ("root.managed.a", GuaranteedLeaf),
            ("root.managed.b", GuaranteedLeaf),
            ("root.managed.c", Leaf),
        ],
    )
    .await;

    // A submission no rule places does not create a managed parent's leaf, as in Hadoop.
    let (_, direct) = try_submit_with(
        &cluster,
        pb::ApplicationSubmissionContextProto {
            application_name: Some("elsewhere".to_owned()),
            queue: Some("root.managed.d".to_owned()),
            ..Default::default()
        },
    )
    .await;
    let refused = direct.expect_err("no rule placed it under the managed parent");
    assert!(refused.message().contains("managed parent"), "{refused}");

    // a's application ends: the policy gives its capacity to c, whose application waits.
    kill(&cluster, a).await;
    held_everywhere(
        &cluster,
        &all,
        &[
            ("root.managed.a", Leaf),
            ("root.managed.b", GuaranteedLeaf),
            ("root.managed.c", GuaranteedLeaf),
        ],
    )
    .await;
    for index in all {
        cluster.stop(index).await;
    }
}
