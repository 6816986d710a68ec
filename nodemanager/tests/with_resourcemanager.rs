//! The NodeManager with a real ResourceManager replica, both in this process over mutual TLS on
//! 127.0.0.1: the node registers and runs containers whose tokens carry the RM's own keys and
//! epoch, a silent node is declared LOST (its containers complete as lost on the RM) and comes
//! back by registering again, and a leader change makes the node resync while its containers
//! keep running. The NodeManager killed with SIGKILL and restarted is the root package's
//! `nodemanager_sigkill` test, which runs it as a process.
//!
//! Every wait polls with a deadline; every container process a test saw is killed when the test
//! ends, pass or fail.

mod common;

use yarn_nodemanager::container_manager::KILLED_BY_APPMASTER_DIAGNOSTIC;
use yarn_proto::pb;
use yarn_rm_ha::state_machine::{
    ABORTED, CommandV1, ContainerCompletion, LOST_NODE_DIAGNOSTIC, RmResponse,
};

use common::cluster::{Cluster, NodeView, must_end, within_deadline};
use common::{COMPLETE, GUARANTEED, KILLED_BY_APPMASTER, RUNNING, USER, leads_running_group};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_nodemanager_registers_and_heartbeats_with_the_leader() {
    let mut cluster = Cluster::new(4096, 0).await;
    cluster.rm.start(0).await;
    let issuer = cluster.issuer(None).await;
    cluster.start_nm().await;
    // The leader knows the node only once it registered, and keeps it running only while it
    // heartbeats.
    cluster.see_node(NodeView::Running).await;

    // The node started with an empty state store: a token signed with the RM's keys verifies
    // only because registration delivered them, and one of the RM's epoch is accepted only
    // because the node follows that epoch.
    let id = issuer.container(1);
    cluster
        .start_once_registered(
            &issuer,
            issuer.start(id, 256, GUARANTEED, "echo hi 1><LOG_DIR>/stdout; exit 3"),
        )
        .await;
    let report = cluster.reach(id, COMPLETE).await;
    assert_eq!(report.exit_code, Some(3), "{report:?}");
    assert_eq!(report.user, USER);
    let stdout = std::fs::read_to_string(report.log_dir.join("stdout")).unwrap();
    assert_eq!(stdout, "hi\n");

    let message = pb::GetContainerStatusesRequestProto {
        container_ids: vec![id.into()],
    };
    let statuses = cluster
        .am()
        .await
        .get_container_statuses(issuer.request(message))
        .await
        .expect("GetContainerStatuses")
        .into_inner();
    assert!(statuses.failed_requests.is_empty(), "{statuses:?}");
    assert_eq!(statuses.statuses[0].state(), COMPLETE);
    assert_eq!(statuses.statuses[0].exit_status, Some(3));

    // Still heartbeating in sequence after the container's life.
    assert_eq!(cluster.node_view().await, Some(NodeView::Running));
    cluster.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_node_is_lost_and_comes_back_by_registering_again() {
    let mut cluster = Cluster::new(4096, 0).await;
    cluster.rm.start(0).await;
    let issuer = cluster.issuer(None).await;
    cluster.see_node(NodeView::Unregistered).await;
    cluster.start_nm().await;
    cluster.see_node(NodeView::Running).await;

    // The RM holds a container on the node, and one on a node that never registers.
    cluster.submit_application(&issuer).await;
    let on_node = cluster
        .allocate(&issuer, 1, &cluster.node.to_string())
        .await;
    let ghost = "127.0.0.1:9";

    cluster.stop_nm().await;
    cluster.see_node(NodeView::Lost).await;
    // LOST is kept until the node registers again, and its containers complete as lost.
    assert_eq!(cluster.node_view().await, Some(NodeView::Lost));
    assert_eq!(
        cluster.completion(on_node).await,
        (ABORTED, LOST_NODE_DIAGNOSTIC.to_owned())
    );

    // A new leader knows nodes only from heartbeats; one that holds containers in the
    // replicated table but never registers is awaited for an expiry interval, then lost too.
    let on_ghost = cluster.allocate(&issuer, 2, ghost).await;
    cluster.rm.stop(0).await;
    cluster.rm.start(0).await;
    let issuer = cluster.issuer(Some(issuer.epoch)).await;
    assert_eq!(
        cluster.completion(on_ghost).await,
        (ABORTED, LOST_NODE_DIAGNOSTIC.to_owned())
    );

    cluster.start_nm().await;
    cluster.see_node(NodeView::Running).await;
    let id = issuer.container(3);
    cluster
        .start_once_registered(&issuer, issuer.start(id, 256, GUARANTEED, "exit 0"))
        .await;
    assert_eq!(cluster.reach(id, COMPLETE).await.exit_code, Some(0));
    cluster.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resync_after_a_leader_change_keeps_containers_running() {
    let mut cluster = Cluster::new(4096, 0).await;
    cluster.rm.start(0).await;
    let old = cluster.issuer(None).await;
    cluster.start_nm().await;
    let long = old.container(1);
    cluster
        .start_once_registered(&old, old.start(long, 256, GUARANTEED, "sleep 30"))
        .await;
    let pid = cluster.reach(long, RUNNING).await.pid.expect("a pid");

    // The leader goes away and a new one takes over from the same replicated state: a higher
    // epoch, the same keys, and no heartbeat state about any node.
    cluster.rm.stop(0).await;
    cluster.rm.start(0).await;
    let new = cluster.issuer(Some(old.epoch)).await;

    // The node's next heartbeat gets RESYNC; it re-registers and follows the new epoch, which
    // is the only way a container of the new epoch can start.
    let fresh = new.container(2);
    cluster
        .start_once_registered(&new, new.start(fresh, 256, GUARANTEED, "exit 0"))
        .await;
    assert_eq!(cluster.reach(fresh, COMPLETE).await.exit_code, Some(0));
    cluster.see_node(NodeView::Running).await;

    // A token the old leader issued is still good: the allocation was replicated before the AM
    // saw it, so the new leader knows the container and it must not be lost to the failover.
    let earlier = old.container(3);
    let response = cluster
        .start_containers(&new, vec![old.start(earlier, 256, GUARANTEED, "exit 0")])
        .await;
    assert_eq!(
        response.succeeded_requests,
        vec![earlier.into()],
        "{response:?}"
    );
    assert_eq!(cluster.reach(earlier, COMPLETE).await.exit_code, Some(0));

    // Through all of it the container kept running, as the same process.
    let report = cluster.report(long);
    assert_eq!((report.state, report.pid), (RUNNING, Some(pid)));
    assert!(leads_running_group(pid));

    let stopped = cluster.stop_containers(&new, &[long]).await;
    assert_eq!(stopped.succeeded_requests, vec![long.into()]);
    let report = cluster.reach(long, COMPLETE).await;
    assert_eq!(report.exit_code, Some(KILLED_BY_APPMASTER));
    assert!(
        report.diagnostics.contains(KILLED_BY_APPMASTER_DIAGNOSTIC),
        "{report:?}"
    );
    must_end("the stopped container's processes to end", pid).await;
    cluster.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completions_reach_the_rm_and_containers_it_ended_are_killed() {
    let mut cluster = Cluster::new(4096, 0).await;
    cluster.rm.start(0).await;
    let issuer = cluster.issuer(None).await;
    cluster.start_nm().await;
    cluster.see_node(NodeView::Running).await;
    cluster.submit_application(&issuer).await;
    let node = cluster.node.to_string();

    // A container that exits: its completion is committed from the node's heartbeat.
    let exits = cluster.allocate(&issuer, 1, &node).await;
    let id = issuer.container(1);
    cluster
        .start_once_registered(&issuer, issuer.start(id, 256, GUARANTEED, "exit 3"))
        .await;
    let (exit_status, _) = cluster.completion(exits).await;
    assert_eq!(exit_status, 3);

    // A running container the RM completes (as a release does) is killed by the node.
    let runs = cluster.allocate(&issuer, 2, &node).await;
    let id = issuer.container(2);
    cluster
        .start_once_registered(&issuer, issuer.start(id, 256, GUARANTEED, "sleep 60"))
        .await;
    let running = cluster.reach(id, RUNNING).await;
    let completed = cluster
        .commit(CommandV1::CompleteContainers {
            now_ms: 1,
            completions: vec![ContainerCompletion {
                key: runs,
                exit_status: ABORTED,
                diagnostics: "Container released by application".to_owned(),
            }],
        })
        .await;
    assert_eq!(completed, RmResponse::ContainersCompleted { completed: 1 });
    must_end("the released container", running.pid.expect("a pid")).await;
    assert_eq!(
        cluster.completion(runs).await,
        (ABORTED, "Container released by application".to_owned()),
        "the RM's completion stands"
    );
    // Once the RM has recorded a completion, the node forgets the container.
    for id in [issuer.container(1), issuer.container(2)] {
        within_deadline(&format!("the node to forget {id}"), || async {
            let reports = cluster.nm().container_manager().container_reports();
            (!reports.iter().any(|report| report.container_id == id)).then_some(())
        })
        .await;
    }
    cluster.shutdown().await;
}
