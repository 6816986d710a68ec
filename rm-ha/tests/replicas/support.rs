//! The harness: a [`RmCluster`] of replicas of the real `ResourceManager` in this process, the
//! certificates its tests use, and calls that find the serving leader.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use yarn_proto::ids::ApplicationId;
use yarn_proto::pb;
use yarn_rm_ha::state_machine::{CommandV1, RmCommand, RmResponse};
use yarn_scheduler::CreatedQueues;
use yarn_security::Role;
use yarn_security::pki::LeafSpec;
use yarn_test_support::pki::Pki;
use yarn_test_support::rm_cluster::{DEADLINE, Layout, RmCluster, node_registration};

/// The user every test client is; `yarn.admin.acl` allows it.
pub const USER: &str = "alice";

/// The host of the test NodeManager certificate.
pub const NM_HOST: &str = "nm-host-1";

/// Polls `check` until it returns `Some`, failing the test after [`DEADLINE`].
pub async fn eventually<T, F, Fut>(what: &str, check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    yarn_test_support::poll::eventually(what, DEADLINE, check).await
}

/// Waits until every replica of `alive` holds auto-created queues of which `read` makes
/// `wanted`.
pub async fn auto_created_everywhere<T: PartialEq>(
    cluster: &RmCluster,
    alive: &[usize],
    wanted: &T,
    read: impl Fn(&CreatedQueues) -> T,
) {
    for &index in alive {
        let replica = cluster.replica(index);
        eventually("every replica to hold the auto-created queues", || async {
            let held = replica.state().read(|state| read(&state.dynamic_queues));
            (held == *wanted).then_some(())
        })
        .await;
    }
}

/// Lays out `members + spares` replicas `rm1`, `rm2`, … (only the members in `rm-ids`) with
/// `extra` configuration over `yarn.admin.acl` = [`USER`], certificates for them, [`USER`],
/// `mallory`, `bob` and NodeManager [`NM_HOST`], and this binary's one cluster turn.
pub async fn new_cluster(members: usize, spares: usize, extra: &[(&str, &str)]) -> RmCluster {
    let mut leaves: Vec<LeafSpec> = (1..=members + spares)
        .map(|i| LeafSpec::new(Role::ResourceManager, format!("rm{i}")))
        .collect();
    leaves.push(LeafSpec::new(Role::User, USER));
    leaves.push(LeafSpec::new(Role::User, "mallory"));
    leaves.push(LeafSpec::new(Role::User, "bob"));
    leaves.push(LeafSpec::new(Role::NodeManager, NM_HOST));
    let extra: Vec<(&str, &str)> = [("yarn.admin.acl", USER)]
        .into_iter()
        .chain(extra.iter().copied())
        .collect();
    let layout = Layout {
        name: "rm",
        members,
        spares,
        extra: &extra,
        one_at_a_time: true,
    };
    RmCluster::new(Arc::new(Pki::new(&leaves)), layout).await
}

/// Whether `status` is a replica's refusal of a call it did not execute because it is not the
/// serving leader.
pub fn not_leader(status: &tonic::Status) -> bool {
    status
        .metadata()
        .contains_key(yarn_proto::NOT_LEADER_HEADER)
}

/// Runs `call` against the serving leader, again on whichever replica leads next whenever the
/// one called refuses as not leader (such a call was not executed, so resending is safe).
pub async fn on_leader<T, F, Fut>(cluster: &RmCluster, what: &str, mut call: F) -> (usize, T)
where
    F: FnMut(usize) -> Fut,
    Fut: Future<Output = Result<T, tonic::Status>>,
{
    let deadline = tokio::time::Instant::now() + DEADLINE;
    loop {
        let leader = cluster.serving_leader(None).await;
        match call(leader).await {
            Ok(value) => return (leader, value),
            // Refused as not leader (not executed), or no quorum confirmed in time while an
            // election settles: every call used here is safe to resend.
            Err(status) if not_leader(&status) || status.code() == tonic::Code::Unavailable => {}
            Err(status) => panic!("{what} failed on {}: {status}", cluster.slot(leader).rm_id),
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out after {DEADLINE:?} waiting for {what} to succeed on a leader"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Replaces the committed queue configuration (`capacity-scheduler.xml` properties, full keys)
/// once the leader has committed its initial one.
pub async fn set_queue_configuration(cluster: &RmCluster, properties: BTreeMap<String, String>) {
    let properties = &properties;
    on_leader(cluster, "SetQueueConfiguration", |leader| async move {
        let replica = cluster.replica(leader);
        let version = replica.state().read(|state| state.queue_config_version);
        if version == 0 {
            return Err(tonic::Status::unavailable(
                "the initial configuration is not in yet",
            ));
        }
        let command = RmCommand::V1(CommandV1::SetQueueConfiguration {
            expected: version,
            properties: properties.clone(),
        });
        match replica.raft().client_write(command).await {
            Ok(reply) if matches!(reply.data, RmResponse::QueueConfigVersionSet { .. }) => Ok(()),
            Ok(reply) => panic!("the test configuration was refused: {:?}", reply.data),
            Err(err) => Err(tonic::Status::unavailable(err.to_string())),
        }
    })
    .await;
}

/// Registers NodeManager `NM_HOST:45454` offering `memory_mb` and `vcores` with the serving
/// leader.
pub async fn register_node(cluster: &RmCluster, memory_mb: i64, vcores: i32) {
    register_node_with(cluster, node_registration(NM_HOST, memory_mb, vcores)).await;
}

/// Sends `registration`, for NodeManager `NM_HOST`, to the serving leader.
pub async fn register_node_with(
    cluster: &RmCluster,
    registration: pb::RegisterNodeManagerRequestProto,
) {
    let registration = &registration;
    on_leader(cluster, "RegisterNodeManager", |leader| async move {
        cluster
            .resource_tracker(leader, NM_HOST)
            .await
            .register_node_manager(registration.clone())
            .await
    })
    .await;
}

/// Creates and submits one application named `name` through the serving leader; returns its id.
pub async fn submit(cluster: &RmCluster, name: &str) -> ApplicationId {
    submit_with(
        cluster,
        pb::ApplicationSubmissionContextProto {
            application_name: Some(name.to_owned()),
            ..Default::default()
        },
    )
    .await
}

/// Creates an application and submits it with `context` (its id filled in) through the serving
/// leader; returns its id.
pub async fn submit_with(
    cluster: &RmCluster,
    context: pb::ApplicationSubmissionContextProto,
) -> ApplicationId {
    let (id, outcome) = try_submit_with(cluster, context).await;
    if let Err(status) = outcome {
        panic!("SubmitApplication of {id} was refused: {status}");
    }
    id
}

/// Submits `context` under a fresh application id; returns the id and the leader's answer, a
/// definitive refusal (PERMISSION_DENIED, INVALID_ARGUMENT) included.
pub async fn try_submit_with(
    cluster: &RmCluster,
    context: pb::ApplicationSubmissionContextProto,
) -> (ApplicationId, Result<(), tonic::Status>) {
    let (_, id) = on_leader(cluster, "GetNewApplication", |leader| async move {
        let mut client = cluster.client(leader, USER).await;
        let reply = client
            .get_new_application(pb::GetNewApplicationRequestProto {})
            .await?;
        Ok(reply
            .into_inner()
            .application_id
            .expect("an application id"))
    })
    .await;
    let context = &context;
    let (_, outcome) = on_leader(cluster, "SubmitApplication", |leader| async move {
        let context = pb::ApplicationSubmissionContextProto {
            application_id: Some(id),
            ..context.clone()
        };
        let reply = cluster
            .client(leader, USER)
            .await
            .submit_application(pb::SubmitApplicationRequestProto {
                application_submission_context: Some(context),
            })
            .await;
        match reply {
            Ok(_) => Ok(Ok(())),
            Err(status)
                if matches!(
                    status.code(),
                    tonic::Code::PermissionDenied | tonic::Code::InvalidArgument
                ) =>
            {
                Ok(Err(status))
            }
            Err(status) => Err(status),
        }
    })
    .await;
    (ApplicationId::try_from(id).expect("a valid id"), outcome)
}

/// The ids of every application the serving leader reports, sorted.
pub async fn list(cluster: &RmCluster) -> Vec<ApplicationId> {
    let (_, reports) = on_leader(cluster, "GetApplications", |leader| async move {
        let mut client = cluster.client(leader, USER).await;
        let reply = client
            .get_applications(pb::GetApplicationsRequestProto::default())
            .await?;
        Ok(reply.into_inner().applications)
    })
    .await;
    let mut ids: Vec<ApplicationId> = reports
        .into_iter()
        .map(|r| ApplicationId::try_from(r.application_id.expect("id")).expect("valid id"))
        .collect();
    ids.sort();
    ids
}

/// Asks the leader to hand leadership to `target_rm_id` (`TransferLeadership`, retried on
/// not-leader refusals) and returns the leader the answer names.
pub async fn transfer_leadership(cluster: &RmCluster, target_rm_id: &str) -> String {
    let (_, reply) = on_leader(cluster, "TransferLeadership", |leader| async move {
        let mut admin = cluster.admin(leader, USER).await;
        admin
            .transfer_leadership(pb::TransferLeadershipRequestProto {
                target_rm_id: target_rm_id.to_owned(),
            })
            .await
    })
    .await;
    reply.into_inner().leader_rm_id
}
