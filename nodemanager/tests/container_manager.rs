//! The container manager against real processes: a start runs and reports its exit code, bad
//! tokens fail only their own container, opportunistic containers queue, are refused, shed and
//! killed for guaranteed ones, stops, recovery after a NodeManager restart, and the service over
//! mutual TLS. Tokens are signed with real keys. Every wait is bounded and polls; every process a
//! test starts is stopped, or killed when the test fails.

mod common;

use std::sync::Arc;
use std::time::Duration;

use tempfile::TempDir;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::time::Instant;
use tonic::{Code, Request};
use yarn_nodemanager::container_manager::{
    ContainerManager, ContainerManagerService, ContainerReport, KILLED_BY_APPMASTER_DIAGNOSTIC,
    KILLED_BY_RESOURCEMANAGER_DIAGNOSTIC,
};
use yarn_nodemanager::container_scheduler::{
    DEQUEUED_DIAGNOSTIC, KILLED_BY_CONTAINER_SCHEDULER, KILLED_FOR_GUARANTEED_DIAGNOSTIC,
    QUEUE_FULL_DIAGNOSTIC,
};
use yarn_nodemanager::node_status_updater::{Connection, NOT_CONNECTED, NodeStatusSource};
use yarn_nodemanager::{ContainerExecutor, NmConfig, NmStateStore};
use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, ContainerId, NodeId};
use yarn_proto::pb;
use yarn_proto::pb::container_management_protocol_client::ContainerManagementProtocolClient;
use yarn_proto::pb::container_management_protocol_server::ContainerManagementProtocol;
use yarn_proto::token_metadata::{NM_TOKEN_METADATA_KEY, insert_token};
use yarn_security::pki::LeafSpec;
use yarn_security::{
    Authorizer, ChannelOptions, Incoming, MasterKey, Role, TokenIdentifier, connect,
};
use yarn_test_support::pki::Pki;

use common::{
    COMPLETE, ContainerGroups, GUARANTEED, KILLED_BY_APPMASTER, OPPORTUNISTIC, RUNNING, SCHEDULED,
    launch, leads_running_group, now_ms,
};

/// Longest any container in these tests may take to do what a test waits for.
const DEADLINE: Duration = Duration::from_secs(10);
/// The RM epoch the node follows and tokens are issued under.
const EPOCH: i64 = 3;
const KILLED_BY_RESOURCEMANAGER: i32 = pb::ContainerExitStatusProto::KilledByResourcemanager as i32;

fn node_id() -> NodeId {
    NodeId::new("node1.example.com", 45454)
}

/// The key the RM signs both container and NM tokens with in these tests.
fn key() -> MasterKey {
    MasterKey::new(5, [0x5a; MasterKey::LEN])
}

fn attempt(application: i32) -> ApplicationAttemptId {
    ApplicationAttemptId::new(ApplicationId::new(1_700_000_000_000, application), 1)
}

/// Container `sequence` of application `application`, allocated under [`EPOCH`].
fn container_of(application: i32, sequence: i64) -> ContainerId {
    ContainerId::new(attempt(application), EPOCH, sequence).unwrap()
}

/// Container `sequence` of application 1.
fn container(sequence: i64) -> ContainerId {
    container_of(1, sequence)
}

/// A container token identifier as the RM issues it: for this node and [`EPOCH`], valid for ten
/// minutes, for user alice.
fn identifier(
    container_id: ContainerId,
    memory_mb: i64,
    execution_type: pb::ExecutionTypeProto,
) -> pb::ContainerTokenIdentifierProto {
    common::container_token_identifier(container_id, &node_id(), EPOCH, memory_mb, execution_type)
}

/// `identifier` signed under `key`, in its wire form.
fn sign_with<I: TokenIdentifier>(key: &MasterKey, identifier: I) -> pb::TokenProto {
    common::sign(key, &node_id(), identifier)
}

fn sign<I: TokenIdentifier>(identifier: I) -> pb::TokenProto {
    sign_with(&key(), identifier)
}

/// The NM token of application `application` for this node.
fn nm_token(application: i32) -> pb::TokenProto {
    sign(common::nm_token_identifier(
        attempt(application),
        &node_id(),
    ))
}

fn start(
    identifier: pb::ContainerTokenIdentifierProto,
    command: &str,
) -> pb::StartContainerRequestProto {
    launch(sign(identifier), command)
}

/// `message` with the NM token of `application` attached, or none.
fn request<T>(message: T, application: Option<i32>) -> Request<T> {
    let mut request = Request::new(message);
    if let Some(application) = application {
        insert_token(&mut request, NM_TOKEN_METADATA_KEY, &nm_token(application));
    }
    request
}

fn ids(ids: &[ContainerId]) -> Vec<pb::ContainerIdProto> {
    ids.iter().map(|&id| id.into()).collect()
}

/// The message of the only failure of a response.
fn only_failure(
    failed: &[pb::ContainerExceptionMapProto],
) -> (Option<pb::ContainerIdProto>, String) {
    assert_eq!(failed.len(), 1, "{failed:?}");
    let failure = &failed[0];
    (
        failure.container_id,
        failure.exception.as_ref().unwrap().message.clone(),
    )
}

/// A NodeManager's directories and state store in a temporary directory, its connection
/// (connected under [`EPOCH`]), and the process groups of the containers seen running, which
/// are killed when the test ends so that a failed test leaves nothing behind.
struct Node {
    /// Declared first, so dropped first: the containers die before their directories go.
    seen: ContainerGroups,
    _dir: TempDir,
    config: NmConfig,
    store: NmStateStore,
    connection: watch::Sender<Connection>,
}

impl Node {
    /// A node offering `memory_mb` MB and eight vcores, with an opportunistic queue of
    /// `queue_length`, recovery on, a short stop delay and no memory check.
    fn new(memory_mb: u64, queue_length: u32) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let conf = common::recoverable_node_conf(dir.path(), memory_mb, 8, queue_length);
        let config = NmConfig::from_conf(&conf).unwrap();
        let store = NmStateStore::from_config(&config).unwrap();
        Self {
            seen: ContainerGroups::default(),
            _dir: dir,
            config,
            store,
            connection: watch::Sender::new(Connection::Connected { rm_epoch: EPOCH }),
        }
    }

    /// Recovers a container manager from the node's store (empty the first time) and gives it
    /// the RM's keys, as registration does.
    async fn must_start(&self) -> (Arc<ContainerManager>, ContainerManagerService) {
        let (manager, service) = self.must_recover().await;
        let key = pb::MasterKeyProto::from(key());
        manager.install_keys(Some(&key), Some(&key));
        (manager, service)
    }

    /// Recovers a container manager from the node's store, with only the keys it stored.
    async fn must_recover(&self) -> (Arc<ContainerManager>, ContainerManagerService) {
        let manager = ContainerManager::recover(
            &self.config,
            node_id(),
            8042,
            self.store.clone(),
            ContainerExecutor::new(&self.config),
            self.connection.subscribe(),
        )
        .await
        .unwrap();
        let service = ContainerManagerService::new(Arc::clone(&manager), Authorizer::new(false));
        (manager, service)
    }

    /// Polls until `container_id` is in `state`, and returns its report.
    async fn must_reach(
        &self,
        manager: &ContainerManager,
        container_id: ContainerId,
        state: pb::ContainerStateProto,
    ) -> ContainerReport {
        let what = format!("container {container_id} to reach {state:?}");
        common::eventually(&what, DEADLINE, || async {
            let report = must_report(manager, container_id);
            self.seen.note(&report);
            (report.state == state).then_some(report)
        })
        .await
    }
}

fn must_report(manager: &ContainerManager, container_id: ContainerId) -> ContainerReport {
    manager
        .container_reports()
        .into_iter()
        .find(|report| report.container_id == container_id)
        .unwrap_or_else(|| panic!("container {container_id} is unknown to the manager"))
}

async fn must_start_containers(
    service: &ContainerManagerService,
    requests: Vec<pb::StartContainerRequestProto>,
    application: Option<i32>,
) -> pb::StartContainersResponseProto {
    let message = pb::StartContainersRequestProto {
        start_container_requests: requests,
    };
    service
        .start_containers(request(message, application))
        .await
        .unwrap()
        .into_inner()
}

async fn must_stop_containers(
    service: &ContainerManagerService,
    container_ids: &[ContainerId],
    application: i32,
) -> pb::StopContainersResponseProto {
    let message = pb::StopContainersRequestProto {
        container_ids: ids(container_ids),
    };
    service
        .stop_containers(request(message, Some(application)))
        .await
        .unwrap()
        .into_inner()
}

async fn must_get_statuses(
    service: &ContainerManagerService,
    container_ids: &[ContainerId],
    application: i32,
) -> pb::GetContainerStatusesResponseProto {
    let message = pb::GetContainerStatusesRequestProto {
        container_ids: ids(container_ids),
    };
    service
        .get_container_statuses(request(message, Some(application)))
        .await
        .unwrap()
        .into_inner()
}

/// Polls until `check` holds.
async fn must_eventually(what: &str, check: impl Fn() -> bool) {
    common::eventually(what, DEADLINE, || async { check().then_some(()) }).await;
}

#[tokio::test]
async fn a_started_container_runs_and_completes_with_its_exit_code() {
    let node = Node::new(4096, 0);
    let (manager, service) = node.must_start().await;
    let id = container(1);

    let response = must_start_containers(
        &service,
        vec![start(
            identifier(id, 256, GUARANTEED),
            "echo hi 1><LOG_DIR>/stdout; exit 4",
        )],
        Some(1),
    )
    .await;
    assert_eq!(response.succeeded_requests, ids(&[id]));
    assert!(response.failed_requests.is_empty(), "{response:?}");

    let report = node.must_reach(&manager, id, COMPLETE).await;
    assert_eq!(report.exit_code, Some(4));
    assert_eq!(report.pid, None);
    assert_eq!(report.user, "alice");
    assert_eq!(report.memory_mb, 256);
    let stdout = std::fs::read_to_string(report.log_dir.join("stdout")).unwrap();
    assert_eq!(stdout, "hi\n");

    // The application master, the heartbeat and a re-registration all see the same end.
    let statuses = must_get_statuses(&service, &[id], 1).await;
    assert!(statuses.failed_requests.is_empty(), "{statuses:?}");
    let status = &statuses.statuses[0];
    assert_eq!(status.state(), COMPLETE);
    assert_eq!(status.exit_status, Some(4));
    assert_eq!(status.capability.as_ref().map(|r| r.memory), Some(256));
    assert_eq!(status.execution_type(), GUARANTEED);
    let (heartbeat, _) = manager.heartbeat_status();
    assert_eq!(heartbeat, statuses.statuses);
    let registration = manager.nm_container_statuses();
    assert_eq!(registration.len(), 1);
    assert_eq!(registration[0].container_exit_status, Some(4));

    // Once the RM has recorded the completion, the node forgets the container and its record.
    manager.apply_heartbeat_response(&pb::NodeHeartbeatResponseProto {
        containers_to_be_removed_from_nm: ids(&[id]),
        ..Default::default()
    });
    assert!(manager.container_reports().is_empty());
    let statuses = must_get_statuses(&service, &[id], 1).await;
    let (failed_id, message) = only_failure(&statuses.failed_requests);
    assert_eq!(failed_id, Some(id.into()));
    assert!(
        message.contains("is not handled by this NodeManager"),
        "{message}"
    );
    must_eventually("the completed record is removed from the store", || {
        node.store.load().unwrap().completed.is_empty()
    })
    .await;
}

#[tokio::test]
async fn localized_resources_reach_the_container_and_a_bad_one_fails_only_its_container() {
    let node = Node::new(4096, 0);
    let (manager, service) = node.must_start().await;
    let source = node.config.local_dirs[0].with_file_name("job.properties");
    std::fs::write(&source, "answer=42").unwrap();
    let described = common::local_file(&source);
    let file = pb::LocalResourceProto {
        resource: described.url.clone(),
        size: described.size,
        timestamp: described.timestamp_ms,
        ..Default::default()
    };
    let with_resource = |id: ContainerId, command: &str, resource: pb::LocalResourceProto| {
        let mut start = start(identifier(id, 256, GUARANTEED), command);
        if let Some(context) = start.container_launch_context.as_mut() {
            context
                .local_resources
                .insert("conf/job.properties".to_owned(), resource);
        }
        start
    };
    let (good, changed) = (container(1), container(2));
    let stale = pb::LocalResourceProto {
        timestamp: file.timestamp - 1,
        ..file.clone()
    };
    let response = must_start_containers(
        &service,
        vec![
            with_resource(good, "cat conf/job.properties 1><LOG_DIR>/stdout", file),
            with_resource(changed, "true", stale),
        ],
        Some(1),
    )
    .await;
    assert_eq!(response.succeeded_requests, ids(&[good, changed]));

    let report = node.must_reach(&manager, good, COMPLETE).await;
    assert_eq!(report.exit_code, Some(0), "{}", report.diagnostics);
    let stdout = std::fs::read_to_string(report.log_dir.join("stdout")).unwrap();
    assert_eq!(stdout, "answer=42");
    let report = node.must_reach(&manager, changed, COMPLETE).await;
    assert_eq!(report.exit_code, Some(-1));
    assert!(
        report.diagnostics.contains("\"conf/job.properties\"")
            && report.diagnostics.contains("changed on src filesystem"),
        "{}",
        report.diagnostics
    );

    // Once the application has finished, its cache goes.
    let cache = node.config.local_dirs[0].join(format!(
        "usercache/{}/appcache/{}/filecache",
        common::USER,
        good.application_id()
    ));
    assert!(cache.is_dir());
    manager.apply_heartbeat_response(&pb::NodeHeartbeatResponseProto {
        applications_to_cleanup: vec![good.application_id().into()],
        ..Default::default()
    });
    must_eventually("the application's cache is removed", || !cache.exists()).await;
}

#[tokio::test]
async fn each_bad_token_fails_only_its_own_container_and_the_other_starts() {
    let node = Node::new(8192, 0);
    let (manager, service) = node.must_start().await;
    let used = container(100);
    let first = must_start_containers(
        &service,
        vec![start(identifier(used, 64, GUARANTEED), "exit 0")],
        Some(1),
    )
    .await;
    assert_eq!(first.succeeded_requests, ids(&[used]));

    let forger = MasterKey::new(5, [0x66; MasterKey::LEN]);
    let cases = [
        (
            "forged",
            container(2),
            launch(
                sign_with(&forger, identifier(container(2), 64, GUARANTEED)),
                "exit 0",
            ),
            "seems to have an illegally generated token",
        ),
        (
            "expired",
            container(3),
            start(
                pb::ContainerTokenIdentifierProto {
                    expiry_time_stamp: now_ms() - 1_000,
                    ..identifier(container(3), 64, GUARANTEED)
                },
                "exit 0",
            ),
            "This token is expired",
        ),
        (
            "other node",
            container(4),
            start(
                pb::ContainerTokenIdentifierProto {
                    nm_host_addr: "node2.example.com:45454".to_owned(),
                    ..identifier(container(4), 64, GUARANTEED)
                },
                "exit 0",
            ),
            "is not valid for current Node manager. Expected : node1.example.com:45454 Found : \
             node2.example.com:45454",
        ),
        (
            "later epoch",
            container(5),
            start(
                pb::ContainerTokenIdentifierProto {
                    rm_identifier: EPOCH + 1,
                    ..identifier(container(5), 64, GUARANTEED)
                },
                "exit 0",
            ),
            "rejected as it is allocated by a newer RM: its token carries RM epoch 4, but this \
             NodeManager follows RM epoch 3",
        ),
        (
            "replayed",
            used,
            start(identifier(used, 64, GUARANTEED), "exit 0"),
            "Attempt to relaunch the same container",
        ),
        (
            "NM token of another application",
            container_of(2, 6),
            start(identifier(container_of(2, 6), 64, GUARANTEED), "exit 0"),
            "NMToken for application attempt appattempt_1700000000000_0001_000001 was used for a \
             container of application application_1700000000000_0002",
        ),
    ];
    for (sequence, (case, bad_id, bad, expected)) in (200..).zip(cases) {
        let good = container(sequence);
        let response = must_start_containers(
            &service,
            vec![start(identifier(good, 64, GUARANTEED), "exit 0"), bad],
            Some(1),
        )
        .await;
        assert_eq!(response.succeeded_requests, ids(&[good]), "{case}");
        let (failed_id, message) = only_failure(&response.failed_requests);
        assert_eq!(failed_id, Some(bad_id.into()), "{case}");
        assert!(message.contains(expected), "{case}: {message}");
        assert_eq!(
            node.must_reach(&manager, good, COMPLETE).await.exit_code,
            Some(0)
        );
    }
    // Only the containers that were accepted are known.
    let known: Vec<ContainerId> = manager
        .container_reports()
        .iter()
        .map(|report| report.container_id)
        .collect();
    let mut expected: Vec<ContainerId> = (200..206).map(container).collect();
    expected.insert(0, used);
    expected.sort();
    assert_eq!(known, expected);
}

#[tokio::test]
async fn starts_wait_for_the_connection_and_need_an_nm_token() {
    let node = Node::new(4096, 0);
    let (manager, service) = node.must_start().await;
    let batch = || {
        vec![
            start(identifier(container(1), 64, GUARANTEED), "exit 0"),
            start(identifier(container(2), 64, GUARANTEED), "exit 0"),
        ]
    };

    node.connection.send_replace(Connection::Disconnected);
    let refused = must_start_containers(&service, batch(), Some(1)).await;
    assert!(refused.succeeded_requests.is_empty());
    assert_eq!(refused.failed_requests.len(), 2);
    for failure in &refused.failed_requests {
        let exception = failure.exception.as_ref().unwrap();
        assert_eq!(exception.message, NOT_CONNECTED);
        assert_eq!(
            exception.class_name,
            "org.apache.hadoop.yarn.exceptions.NMNotYetReadyException"
        );
    }

    node.connection
        .send_replace(Connection::Connected { rm_epoch: EPOCH });
    let unsigned = must_start_containers(&service, batch(), None).await;
    assert!(unsigned.succeeded_requests.is_empty());
    for failure in &unsigned.failed_requests {
        let message = &failure.exception.as_ref().unwrap().message;
        assert!(message.contains(NM_TOKEN_METADATA_KEY), "{message}");
    }

    // Refusals do not use tokens up: the same ones start the containers now.
    let accepted = must_start_containers(&service, batch(), Some(1)).await;
    assert_eq!(
        accepted.succeeded_requests,
        ids(&[container(1), container(2)])
    );
    for id in [container(1), container(2)] {
        node.must_reach(&manager, id, COMPLETE).await;
    }
}

#[tokio::test]
async fn a_guaranteed_container_kills_the_running_opportunistic_one_when_the_node_is_full() {
    let node = Node::new(1024, 2);
    let (manager, service) = node.must_start().await;
    let opportunistic = container(1);
    let guaranteed = container(2);

    must_start_containers(
        &service,
        vec![start(
            identifier(opportunistic, 1024, OPPORTUNISTIC),
            "sleep 30",
        )],
        Some(1),
    )
    .await;
    let running = node.must_reach(&manager, opportunistic, RUNNING).await;
    assert!(running.pid.is_some());
    let (_, load) = manager.heartbeat_status();
    assert_eq!(load.running_opport_containers, 1);
    assert_eq!(load.opport_memory_used, 1024);

    let response = must_start_containers(
        &service,
        vec![start(identifier(guaranteed, 1024, GUARANTEED), "sleep 30")],
        Some(1),
    )
    .await;
    assert_eq!(response.succeeded_requests, ids(&[guaranteed]));
    let killed = node.must_reach(&manager, opportunistic, COMPLETE).await;
    assert_eq!(killed.exit_code, Some(KILLED_BY_CONTAINER_SCHEDULER));
    assert!(
        killed
            .diagnostics
            .contains(KILLED_FOR_GUARANTEED_DIAGNOSTIC),
        "{killed:?}"
    );
    node.must_reach(&manager, guaranteed, RUNNING).await;
    let (_, load) = manager.heartbeat_status();
    assert_eq!(load.running_opport_containers, 0);

    let stopped = must_stop_containers(&service, &[guaranteed], 1).await;
    assert_eq!(stopped.succeeded_requests, ids(&[guaranteed]));
    let report = node.must_reach(&manager, guaranteed, COMPLETE).await;
    assert_eq!(report.exit_code, Some(KILLED_BY_APPMASTER));
    assert!(
        report.diagnostics.contains(KILLED_BY_APPMASTER_DIAGNOSTIC),
        "{report:?}"
    );
}

#[tokio::test]
async fn opportunistic_containers_queue_up_to_the_limit_and_leave_the_queue_when_stopped_or_shed() {
    let node = Node::new(1024, 2);
    let (manager, service) = node.must_start().await;
    let [running, stopped, shed, refused] = [1, 2, 3, 4].map(container);

    must_start_containers(
        &service,
        vec![start(identifier(running, 1024, OPPORTUNISTIC), "sleep 30")],
        Some(1),
    )
    .await;
    node.must_reach(&manager, running, RUNNING).await;
    let response = must_start_containers(
        &service,
        [stopped, shed, refused]
            .into_iter()
            .map(|id| start(identifier(id, 512, OPPORTUNISTIC), "exit 0"))
            .collect(),
        Some(1),
    )
    .await;
    // The start itself succeeds for the refused container too, as in YARN; it completes at once.
    assert_eq!(response.succeeded_requests, ids(&[stopped, shed, refused]));
    assert_eq!(must_report(&manager, stopped).state, SCHEDULED);
    assert_eq!(must_report(&manager, shed).state, SCHEDULED);
    let report = must_report(&manager, refused);
    assert_eq!(report.state, COMPLETE);
    assert_eq!(report.exit_code, Some(KILLED_BY_CONTAINER_SCHEDULER));
    assert_eq!(report.diagnostics, QUEUE_FULL_DIAGNOSTIC);
    let (_, load) = manager.heartbeat_status();
    assert_eq!(
        (
            load.running_opport_containers,
            load.queued_opport_containers,
            load.wait_queue_length,
            load.opport_queue_capacity
        ),
        (1, 2, 2, 2)
    );

    // Another application's NM token cannot stop this application's container.
    let foreign = must_stop_containers(&service, &[running], 2).await;
    let (_, message) = only_failure(&foreign.failed_requests);
    assert!(
        message.contains("NMToken for application attempt"),
        "{message}"
    );
    assert_eq!(must_report(&manager, running).state, RUNNING);

    // A stopped queued container leaves the queue without ever running.
    let response = must_stop_containers(&service, &[stopped], 1).await;
    assert_eq!(response.succeeded_requests, ids(&[stopped]));
    let report = must_report(&manager, stopped);
    assert_eq!(report.state, COMPLETE);
    assert_eq!(report.exit_code, Some(KILLED_BY_APPMASTER));
    assert_eq!(report.diagnostics, KILLED_BY_APPMASTER_DIAGNOSTIC);

    // The RM's queuing limit sheds the queue's tail.
    manager.apply_heartbeat_response(&pb::NodeHeartbeatResponseProto {
        container_queuing_limit: Some(pb::ContainerQueuingLimitProto {
            max_queue_length: Some(0),
            max_queue_wait_time_in_ms: None,
        }),
        ..Default::default()
    });
    let report = must_report(&manager, shed);
    assert_eq!(report.state, COMPLETE);
    assert_eq!(report.exit_code, Some(KILLED_BY_CONTAINER_SCHEDULER));
    assert_eq!(report.diagnostics, DEQUEUED_DIAGNOSTIC);

    // The RM cleans up the running one; an unknown container is a failure of its own.
    manager.apply_heartbeat_response(&pb::NodeHeartbeatResponseProto {
        containers_to_cleanup: ids(&[running]),
        ..Default::default()
    });
    let report = node.must_reach(&manager, running, COMPLETE).await;
    assert_eq!(report.exit_code, Some(KILLED_BY_RESOURCEMANAGER));
    assert!(
        report
            .diagnostics
            .contains(KILLED_BY_RESOURCEMANAGER_DIAGNOSTIC),
        "{report:?}"
    );
    let response = must_stop_containers(&service, &[running, container(99)], 1).await;
    assert_eq!(response.succeeded_requests, ids(&[running]));
    let (failed_id, message) = only_failure(&response.failed_requests);
    assert_eq!(failed_id, Some(container(99).into()));
    assert!(
        message.contains("is not handled by this NodeManager"),
        "{message}"
    );
}

async fn must_update(
    service: &ContainerManagerService,
    identifiers: Vec<pb::ContainerTokenIdentifierProto>,
) -> pb::ContainerUpdateResponseProto {
    let message = pb::ContainerUpdateRequestProto {
        update_container_tokens: identifiers.into_iter().map(sign).collect(),
    };
    service
        .update_container(request(message, Some(1)))
        .await
        .unwrap()
        .into_inner()
}

#[tokio::test]
async fn a_promoted_queued_container_starts() {
    let node = Node::new(1024, 2);
    let (manager, service) = node.must_start().await;
    let running = container(1);
    let promoted = container(2);
    must_start_containers(
        &service,
        vec![
            start(identifier(running, 1024, OPPORTUNISTIC), "sleep 30"),
            start(identifier(promoted, 512, OPPORTUNISTIC), "exit 0"),
        ],
        Some(1),
    )
    .await;
    node.must_reach(&manager, running, RUNNING).await;
    assert_eq!(must_report(&manager, promoted).state, SCHEDULED);

    let version = |memory_mb, version| pb::ContainerTokenIdentifierProto {
        version,
        ..identifier(promoted, memory_mb, GUARANTEED)
    };
    let promotion = must_update(&service, vec![version(512, 1)]).await;
    assert_eq!(promotion.succeeded_requests, ids(&[promoted]));
    assert_eq!(
        must_report(&manager, promoted).execution_type,
        yarn_nodemanager::container_scheduler::ExecutionType::Guaranteed
    );
    // The same version again succeeds and changes nothing.
    let repeated = must_update(&service, vec![version(512, 1)]).await;
    assert_eq!(repeated.succeeded_requests, ids(&[promoted]));

    let killed = node.must_reach(&manager, running, COMPLETE).await;
    assert_eq!(killed.exit_code, Some(KILLED_BY_CONTAINER_SCHEDULER));
    let report = node.must_reach(&manager, promoted, COMPLETE).await;
    assert_eq!(report.exit_code, Some(0));
}

#[tokio::test]
async fn a_running_container_grows_by_its_am_and_shrinks_by_the_resourcemanager() {
    let node = Node::new(2048, 2);
    let (manager, service) = node.must_start().await;
    let [resized, opportunistic] = [1, 2].map(container);
    must_start_containers(
        &service,
        vec![
            start(identifier(resized, 1024, GUARANTEED), "sleep 30"),
            start(identifier(opportunistic, 1024, OPPORTUNISTIC), "sleep 30"),
        ],
        Some(1),
    )
    .await;
    node.must_reach(&manager, resized, RUNNING).await;
    node.must_reach(&manager, opportunistic, RUNNING).await;
    let version = |memory_mb, version| pb::ContainerTokenIdentifierProto {
        version,
        ..identifier(resized, memory_mb, GUARANTEED)
    };

    // The AM brings an increase: the node makes room by killing the opportunistic container.
    let grown = must_update(&service, vec![version(2048, 1)]).await;
    assert_eq!(grown.succeeded_requests, ids(&[resized]));
    assert_eq!(must_report(&manager, resized).memory_mb, 2048);
    let killed = node.must_reach(&manager, opportunistic, COMPLETE).await;
    assert_eq!(killed.exit_code, Some(KILLED_BY_CONTAINER_SCHEDULER));

    // The ResourceManager sends a decrease in a heartbeat response, and again until the node
    // reports it: applied once; an older version, or the same version with another size, is
    // refused and changes nothing.
    let decrease = |memory_mb, version_number| pb::ContainerProto {
        id: Some(resized.into()),
        container_token: Some(sign(version(memory_mb, version_number))),
        version: version_number,
        ..Default::default()
    };
    for _ in 0..2 {
        manager.apply_heartbeat_response(&pb::NodeHeartbeatResponseProto {
            containers_to_update: vec![decrease(512, 2)],
            ..Default::default()
        });
        assert_eq!(must_report(&manager, resized).memory_mb, 512);
    }
    manager.apply_heartbeat_response(&pb::NodeHeartbeatResponseProto {
        containers_to_update: vec![decrease(1024, 1), decrease(768, 2)],
        ..Default::default()
    });
    let report = must_report(&manager, resized);
    assert_eq!((report.memory_mb, report.state), (512, RUNNING));
    let (statuses, _) = manager.heartbeat_status();
    let status = statuses
        .iter()
        .find(|status| status.container_id == Some(resized.into()))
        .expect("reported");
    assert_eq!(
        status.capability.as_ref().map(|c| c.memory),
        Some(512),
        "the heartbeat reports the new size, which ends the ResourceManager's resends"
    );
}

#[tokio::test]
async fn stop_all_stops_running_and_queued_containers_and_waits_for_them() {
    let node = Node::new(1024, 2);
    let (manager, service) = node.must_start().await;
    let [running, queued] = [1, 2].map(container);
    must_start_containers(
        &service,
        vec![
            start(identifier(running, 1024, GUARANTEED), "sleep 30"),
            start(identifier(queued, 512, OPPORTUNISTIC), "sleep 30"),
        ],
        Some(1),
    )
    .await;
    let pid = node
        .must_reach(&manager, running, RUNNING)
        .await
        .pid
        .unwrap();

    tokio::time::timeout(DEADLINE, manager.stop_all("node decommissioned"))
        .await
        .expect("stop_all did not return in time");
    for id in [running, queued] {
        let report = must_report(&manager, id);
        assert_eq!(report.state, COMPLETE, "{report:?}");
        assert_eq!(report.exit_code, Some(KILLED_BY_RESOURCEMANAGER));
        assert!(
            report.diagnostics.contains("node decommissioned"),
            "{report:?}"
        );
    }
    assert!(!leads_running_group(pid));
}

#[tokio::test]
async fn a_restarted_manager_reacquires_the_running_container_and_requeues_the_queued_one() {
    let node = Node::new(1024, 2);
    let running = container(1);
    let queued = container(2);
    // The queued container exits with 7 only if it finds its launch context's tokens in its
    // token file, which it can only have from the state store.
    let mut queued_start = start(
        identifier(queued, 512, OPPORTUNISTIC),
        "test \"$(cat \"$HADOOP_TOKEN_FILE_LOCATION\")\" = credentials && exit 7; exit 8",
    );
    if let Some(context) = queued_start.container_launch_context.as_mut() {
        context.tokens = b"credentials".to_vec();
    }
    let pid = {
        let (manager, service) = node.must_start().await;
        must_start_containers(
            &service,
            vec![
                start(identifier(running, 1024, GUARANTEED), "sleep 60"),
                queued_start,
            ],
            Some(1),
        )
        .await;
        let report = node.must_reach(&manager, running, RUNNING).await;
        assert_eq!(must_report(&manager, queued).state, SCHEDULED);
        report.pid.unwrap()
        // The manager and its executor go away here; the container keeps running.
    };
    assert!(
        leads_running_group(pid),
        "the container died with its manager"
    );

    // Recovered without being given keys: those it stored must verify the NM token below.
    let (manager, service) = node.must_recover().await;
    let report = must_report(&manager, running);
    assert_eq!((report.state, report.pid), (RUNNING, Some(pid)));
    assert_eq!(must_report(&manager, queued).state, SCHEDULED);

    let response = must_stop_containers(&service, &[running], 1).await;
    assert_eq!(response.succeeded_requests, ids(&[running]));
    let report = node.must_reach(&manager, running, COMPLETE).await;
    assert_eq!(report.exit_code, Some(KILLED_BY_APPMASTER));
    common::group_ends(
        "the re-acquired container's processes to end",
        pid,
        DEADLINE,
    )
    .await;
    // The restored queued container starts once the room is free, with its token file.
    let report = node.must_reach(&manager, queued, COMPLETE).await;
    assert_eq!(report.exit_code, Some(7));
}

#[tokio::test]
async fn the_service_over_mutual_tls_serves_application_masters_and_refuses_node_certificates() {
    let pki = Pki::new(&[
        LeafSpec::new(Role::NodeManager, "node1"),
        LeafSpec::new(Role::NodeManager, "node2"),
        LeafSpec::new(Role::User, "alice"),
    ]);
    let server_tls = pki.tls(Role::NodeManager, "node1");

    let node = Node::new(4096, 0);
    let (manager, _) = node.must_start().await;
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(
        tonic::transport::Server::builder()
            .add_service(manager.service(Authorizer::for_tls(&server_tls)))
            .serve_with_incoming_shutdown(Incoming::new(listener, &server_tls), async {
                let _ = stopped.await;
            }),
    );

    let client = |role, name| {
        let client_tls = pki.tls(role, name);
        let address = address.clone();
        async move {
            let channel = connect(
                &address,
                client_tls.client_config(),
                &ChannelOptions::default(),
            )
            .await
            .unwrap();
            ContainerManagementProtocolClient::new(channel)
        }
    };
    let id = container(1);
    let starts = || pb::StartContainersRequestProto {
        start_container_requests: vec![start(identifier(id, 64, GUARANTEED), "exit 3")],
    };

    let mut node_client = client(Role::NodeManager, "node2").await;
    let refusal = node_client
        .start_containers(request(starts(), Some(1)))
        .await
        .unwrap_err();
    assert_eq!(refusal.code(), Code::PermissionDenied, "{refusal:?}");

    let mut am = client(Role::User, "alice").await;
    let response = am
        .start_containers(request(starts(), Some(1)))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(response.succeeded_requests, ids(&[id]));
    let deadline = Instant::now() + DEADLINE;
    let status = loop {
        let message = pb::GetContainerStatusesRequestProto {
            container_ids: ids(&[id]),
        };
        let statuses = am
            .get_container_statuses(request(message, Some(1)))
            .await
            .unwrap()
            .into_inner();
        let status = statuses.statuses[0].clone();
        if status.state() == COMPLETE || Instant::now() >= deadline {
            break status;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(status.state(), COMPLETE, "{status:?}");
    assert_eq!(status.exit_status, Some(3));

    drop((am, node_client));
    stop.send(()).unwrap();
    server.await.unwrap().unwrap();
}
