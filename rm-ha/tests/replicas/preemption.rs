//! Container preemption on three replicas: queue `a` fills the cluster, an application of
//! queue `b` asks for its guarantee, and the leader's preemption monitor tells `a`'s AM which
//! containers it will lose, then kills them as PREEMPTED once `max_wait_before_kill` is over;
//! across a leader failover between the two, without killing anything twice; and within `a`,
//! for a more important application of its own.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use tokio::time::Instant;
use yarn_proto::ids::{ApplicationAttemptId, ContainerId};
use yarn_proto::pb;
use yarn_rm_ha::state_machine::ContainerKey;
use yarn_test_support::rm_cluster::RmCluster;

use crate::support::{USER, new_cluster, on_leader, register_node, set_queue_configuration};
use crate::test_am::TestAm;

/// Between telling an AM and killing its container: long enough that the test sees the
/// message, and a failover fits in between, before the kill.
const WAIT_BEFORE_KILL_MS: u64 = 4_000;
/// Between two preemption rounds.
const MONITORING_INTERVAL_MS: u64 = 200;
/// YARN's `ContainerExitStatus.PREEMPTED`.
const PREEMPTED: i32 = -102;

/// Preemption on, at a round every 200 ms, taking back everything owed in one round (Hadoop's
/// defaults take a tenth of the cluster per round, then a fifth of that).
fn preemption_on() -> Vec<(&'static str, String)> {
    let key = |name| format!("yarn.resourcemanager.monitor.capacity.preemption.{name}");
    vec![
        (
            "yarn.resourcemanager.scheduler.monitor.enable",
            "true".to_owned(),
        ),
        (
            key("monitoring_interval").leak(),
            MONITORING_INTERVAL_MS.to_string(),
        ),
        (
            key("max_wait_before_kill").leak(),
            WAIT_BEFORE_KILL_MS.to_string(),
        ),
        (key("total_preemption_per_round").leak(), "1.0".to_owned()),
        (key("natural_termination_factor").leak(), "1.0".to_owned()),
        (key("max_ignored_over_capacity").leak(), "0".to_owned()),
    ]
}

/// `root.a` and `root.b`, half the cluster each, either growing into all of it.
fn queues() -> BTreeMap<String, String> {
    [
        ("root.queues", "a,b"),
        ("root.acl_submit_applications", "*"),
        ("root.a.capacity", "50"),
        ("root.a.maximum-capacity", "100"),
        ("root.a.user-limit-factor", "2"),
        ("root.b.capacity", "50"),
        ("root.b.maximum-capacity", "100"),
        ("root.b.user-limit-factor", "2"),
    ]
    .into_iter()
    .map(|(k, v)| (format!("yarn.scheduler.capacity.{k}"), v.to_owned()))
    .collect()
}

/// Three replicas with `extra` settings, one 8 GB node and `queues()`.
async fn cluster_with(extra: &[(&'static str, String)]) -> RmCluster {
    let extra: Vec<(&str, &str)> = extra.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let mut cluster = new_cluster(3, 0, &extra).await;
    cluster.start_members().await;
    register_node(&cluster, 8192, 8).await;
    set_queue_configuration(&cluster, queues()).await;
    cluster
}

/// Queue `a` holds the whole 8 GB node with eight 1 GB containers, then `b` asks for four:
/// returns the cluster, `a`'s AM and `b`'s.
async fn a_fills_the_cluster_then_b_asks() -> (RmCluster, TestAm, TestAm) {
    let cluster = cluster_with(&preemption_on()).await;

    let (_, mut a) = TestAm::submit(&cluster, "a").await;
    a.heartbeat(&cluster, 8).await;
    a.until(&cluster, "a to hold the whole node", |am| {
        am.held.len() == 8
    })
    .await;
    let (_, mut b) = TestAm::submit(&cluster, "b").await;
    b.heartbeat(&cluster, 4).await;
    (cluster, a, b)
}

/// The table key of `id`.
fn key(id: &ContainerId) -> ContainerKey {
    ContainerKey {
        application_seq: id.application_attempt_id().application_id.id,
        container_id: id.container_id(),
    }
}

/// When replica `index`'s replicated state says each waiting container was first chosen.
fn first_chosen(cluster: &RmCluster, index: usize) -> BTreeMap<ContainerKey, i64> {
    cluster
        .replica(index)
        .state()
        .read(|state| state.preemption_waits.waiting().collect())
}

/// Asserts that each of `doomed` completed as PREEMPTED, for `for_queue`, no sooner than
/// `max_wait_before_kill` after its first choice in `first`, by replica `index`'s state.
fn assert_killed_after_the_wait(
    cluster: &RmCluster,
    index: usize,
    (a, for_queue): (&TestAm, &str),
    doomed: &BTreeSet<ContainerId>,
    first: &BTreeMap<ContainerKey, i64>,
) {
    for id in doomed {
        let (exit, diagnostics) = &a.completed[id];
        assert_eq!(*exit, PREEMPTED, "{id}");
        let reason = format!("preempted by scheduler from queue root.a for queue {for_queue}");
        assert!(diagnostics.contains(&reason), "{diagnostics}");
        let completed_at = cluster
            .replica(index)
            .state()
            .read(|state| state.containers.completed_at_ms(&key(id)))
            .expect("a completion time");
        let wait = i64::try_from(WAIT_BEFORE_KILL_MS).expect("small");
        assert!(
            completed_at >= first[&key(id)] + wait,
            "{id} killed at {completed_at}, before its wait from {} was over",
            first[&key(id)]
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_queue_over_its_guarantee_is_told_then_loses_what_another_queue_is_owed() {
    let (cluster, mut a, mut b) = a_fills_the_cluster_then_b_asks().await;

    tracing::info!("--- a's AM hears which four containers it will lose");
    a.until(&cluster, "a preemption message", |am| {
        am.to_be_preempted.len() == 4
    })
    .await;
    let leader = cluster.serving_leader(None).await;
    let first = first_chosen(&cluster, leader);
    let doomed = a.to_be_preempted.clone();
    assert!(doomed.is_subset(&a.held), "containers a holds");
    assert!(doomed.iter().all(|id| first.contains_key(&key(id))));
    assert!(b.held.is_empty(), "b waits while a is told");

    tracing::info!("--- after the wait they complete as PREEMPTED, and b gets its guarantee");
    a.until(&cluster, "a's preempted containers to complete", |am| {
        doomed.iter().all(|id| am.completed.contains_key(id))
    })
    .await;
    assert_killed_after_the_wait(&cluster, leader, (&a, "root.b"), &doomed, &first);
    assert_eq!(a.held.len(), 4, "a keeps its guarantee");
    b.until(&cluster, "b to run at its guarantee", |am| {
        am.held.len() == 4
    })
    .await;
    a.until(&cluster, "no message once nothing is owed", |am| {
        am.to_be_preempted.is_empty()
    })
    .await;
    assert_eq!(a.held.len(), 4, "nothing more is taken");

    tracing::info!("--- once settled, round after round adds nothing to the log");
    let leader = cluster.serving_leader(None).await;
    let deadline = Instant::now() + yarn_test_support::rm_cluster::DEADLINE;
    while !first_chosen(&cluster, leader).is_empty() {
        assert!(Instant::now() < deadline, "the waits were never forgotten");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let last_log_index = || {
        cluster
            .replica(leader)
            .raft()
            .metrics()
            .borrow()
            .last_log_index
    };
    let settled = last_log_index();
    // Ten monitoring intervals, with no AM or node calling in.
    tokio::time::sleep(Duration::from_millis(10 * MONITORING_INTERVAL_MS)).await;
    assert_eq!(last_log_index(), settled, "idle rounds appended entries");

    tracing::info!("--- GetQueueInfo tells what preemption took from a, and that a allows it");
    let cluster_ref = &cluster;
    let (_, info) = on_leader(cluster_ref, "GetQueueInfo", |leader| async move {
        let reply = cluster_ref
            .client(leader, USER)
            .await
            .get_queue_info(pb::GetQueueInfoRequestProto {
                queue_name: "a".to_owned(),
                ..Default::default()
            })
            .await?;
        Ok(reply.into_inner().queue_info.expect("a queue"))
    })
    .await;
    assert!(!info.preemption_disabled);
    let statistics = info.queue_statistics.expect("statistics");
    assert_eq!(
        (
            statistics.preempted_containers,
            statistics.preempted_memory_mb,
            statistics.to_preempt_containers
        ),
        (4, 4096, 0)
    );

    tracing::info!("--- so does a's application report (an unmanaged AM: no AM container)");
    let application = doomed
        .first()
        .expect("four")
        .application_attempt_id()
        .application_id;
    let usage = crate::applications::report(&cluster, application)
        .await
        .app_resource_usage
        .expect("usage");
    assert_eq!(
        (
            usage.preempted_memory_mb,
            usage.preempted_vcores,
            usage.num_non_am_containers_preempted,
            usage.num_am_containers_preempted
        ),
        (4096, 4, 4, 0)
    );
    assert!(usage.preempted_memory_seconds <= usage.memory_seconds);
    cluster.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_leader_kills_what_the_old_one_announced_once_and_after_the_same_wait() {
    let (mut cluster, mut a, mut b) = a_fills_the_cluster_then_b_asks().await;
    a.until(&cluster, "a preemption message", |am| {
        am.to_be_preempted.len() == 4
    })
    .await;
    let doomed = a.to_be_preempted.clone();
    let old = cluster.serving_leader(None).await;
    let first = first_chosen(&cluster, old);

    tracing::info!("--- the leader goes between the message and the kill");
    cluster.stop(old).await;
    let new = cluster.serving_leader(Some(old)).await;
    assert_ne!(new, old);
    // The node re-registers with the new leader, as a NodeManager does when told to resync;
    // until then the leader knows no cluster resource to divide.
    register_node(&cluster, 8192, 8).await;
    // Asks are the leader's soft state: b's AM registers again and re-sends its ask.
    b.heartbeat(&cluster, 0).await;
    // The new leader's waits are the old one's: each doomed container still waits from its
    // first choice, or the new leader has killed it already, after that wait.
    let carried_on = first_chosen(&cluster, new);
    for id in &doomed {
        let killed = cluster
            .replica(new)
            .state()
            .read(|state| state.containers.completed_at_ms(&key(id)).is_some());
        assert!(
            killed || carried_on.get(&key(id)) == Some(&first[&key(id)]),
            "{id}'s wait was neither carried on nor over: {carried_on:?}"
        );
    }

    tracing::info!("--- the new leader kills the same containers, once");
    a.until(&cluster, "a's preempted containers to complete", |am| {
        doomed.iter().all(|id| am.completed.contains_key(id))
    })
    .await;
    assert_killed_after_the_wait(&cluster, new, (&a, "root.b"), &doomed, &first);
    b.until(&cluster, "b to run at its guarantee", |am| {
        am.held.len() == 4
    })
    .await;
    assert_eq!(a.held.len(), 4, "no other container of a was killed");
    let attempt = ApplicationAttemptId::new(
        doomed
            .first()
            .expect("four")
            .application_attempt_id()
            .application_id,
        1,
    );
    let reports = crate::applications::containers(&cluster, attempt).await;
    let preempted: BTreeSet<ContainerId> = reports
        .iter()
        .filter(|report| report.container_exit_status == Some(PREEMPTED))
        .map(|report| ContainerId::try_from(report.container_id.expect("an id")).expect("an id"))
        .collect();
    assert_eq!(preempted, doomed, "exactly the announced containers");
    cluster.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn within_a_queue_a_more_important_application_takes_from_a_less_important_one() {
    let key = |name| format!("yarn.resourcemanager.monitor.capacity.preemption.{name}");
    let mut extra = preemption_on();
    extra.extend([
        (
            key("intra-queue-preemption.enabled").leak() as &str,
            "true".to_owned(),
        ),
        (
            key("intra-queue-preemption.preemption-order-policy").leak(),
            "priority_first".to_owned(),
        ),
        (
            key("intra-queue-preemption.max-allowable-limit").leak(),
            "1.0".to_owned(),
        ),
        ("yarn.cluster.max-application-priority", "10".to_owned()),
    ]);
    let cluster = cluster_with(&extra).await;

    tracing::info!("--- an application at the default priority fills the node from queue a");
    let (_, mut low) = TestAm::submit(&cluster, "a").await;
    low.heartbeat(&cluster, 8).await;
    low.until(&cluster, "the node to be full", |am| am.held.len() == 8)
        .await;
    tracing::info!("--- one at priority 5 in the same queue asks for four containers");
    let (_, mut high) = TestAm::submit_at(&cluster, "a", Some(5)).await;
    high.heartbeat(&cluster, 4).await;

    low.until(&cluster, "a preemption message", |am| {
        am.to_be_preempted.len() == 4
    })
    .await;
    let leader = cluster.serving_leader(None).await;
    let first = first_chosen(&cluster, leader);
    let doomed = low.to_be_preempted.clone();
    low.until(&cluster, "the preempted containers to complete", |am| {
        doomed.iter().all(|id| am.completed.contains_key(id))
    })
    .await;
    assert_killed_after_the_wait(&cluster, leader, (&low, "root.a"), &doomed, &first);
    high.until(&cluster, "the important application to run", |am| {
        am.held.len() == 4
    })
    .await;
    low.until(&cluster, "no message once nothing is owed", |am| {
        am.to_be_preempted.is_empty()
    })
    .await;
    assert_eq!(low.held.len(), 4, "nothing more is taken");
    cluster.shutdown().await;
}
