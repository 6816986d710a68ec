//! [`TestAm`]: an unmanaged ApplicationMaster the tests run against the serving leader.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use tokio::time::Instant;
use yarn_proto::ids::{ApplicationId, ContainerId};
use yarn_proto::pb;
use yarn_proto::token_metadata::is_not_registered;
use yarn_test_support::rm_cluster::RmCluster;

use crate::applications::{ask, register_am, with_token};
use crate::support::{USER, not_leader, submit_with};
use crate::unmanaged_am::token_from_report;

/// An unmanaged ApplicationMaster the test runs: it follows the leader, registering again and
/// re-sending its outstanding ask when a new leader does not know it, as Hadoop's AMRMClient
/// does.
pub(crate) struct TestAm {
    pub(crate) token: pb::TokenProto,
    pub(crate) response_id: i32,
    /// What it still asks for: re-sent after re-registering.
    pub(crate) outstanding: i32,
    pub(crate) held: BTreeSet<ContainerId>,
    /// The exit statuses of its completed containers.
    pub(crate) completed: BTreeMap<ContainerId, (i32, String)>,
    /// The containers the leader said it will preempt, from the latest message.
    pub(crate) to_be_preempted: BTreeSet<ContainerId>,
}

impl TestAm {
    pub(crate) async fn submit(cluster: &RmCluster, queue: &str) -> (ApplicationId, Self) {
        Self::submit_at(cluster, queue, None).await
    }

    /// Submits to `queue` at `priority` (the queue's default when none).
    pub(crate) async fn submit_at(
        cluster: &RmCluster,
        queue: &str,
        priority: Option<i32>,
    ) -> (ApplicationId, Self) {
        Self::submit_with(
            cluster,
            pb::ApplicationSubmissionContextProto {
                application_name: Some(format!("in {queue}")),
                queue: Some(queue.to_owned()),
                priority: priority.map(|priority| pb::PriorityProto { priority }),
                ..Default::default()
            },
        )
        .await
    }

    /// Submits `context` as an unmanaged AM and registers it.
    pub(crate) async fn submit_with(
        cluster: &RmCluster,
        context: pb::ApplicationSubmissionContextProto,
    ) -> (ApplicationId, Self) {
        let id = submit_with(
            cluster,
            pb::ApplicationSubmissionContextProto {
                unmanaged_am: true,
                ..context
            },
        )
        .await;
        let (token, _) = token_from_report(cluster, id).await;
        register_am(cluster, &token).await;
        let am = Self {
            token,
            response_id: 0,
            outstanding: 0,
            held: BTreeSet::new(),
            completed: BTreeMap::new(),
            to_be_preempted: BTreeSet::new(),
        };
        (id, am)
    }

    /// One allocate on the serving leader, asking for `more` 1 GB containers on top of what
    /// is outstanding.
    pub(crate) async fn heartbeat(&mut self, cluster: &RmCluster, more: i32) {
        self.outstanding += more;
        let mut fresh_ask = more > 0;
        loop {
            let leader = cluster.serving_leader(None).await;
            let request = pb::AllocateRequestProto {
                ask: if fresh_ask {
                    vec![ask(self.outstanding)]
                } else {
                    Vec::new()
                },
                response_id: self.response_id,
                ..Default::default()
            };
            let result = cluster
                .scheduler(leader, USER)
                .await
                .allocate(with_token(request, &self.token))
                .await;
            match result {
                Ok(response) => {
                    self.absorb(response.into_inner());
                    return;
                }
                Err(status) if is_not_registered(&status) => {
                    register_am(cluster, &self.token).await;
                    self.response_id = 0;
                    fresh_ask = self.outstanding > 0;
                }
                Err(status) if not_leader(&status) || status.code() == tonic::Code::Unavailable => {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                Err(status) => panic!("allocate failed: {status}"),
            }
        }
    }

    fn absorb(&mut self, response: pb::AllocateResponseProto) {
        self.response_id = response.response_id;
        for container in response.allocated_containers {
            let id = ContainerId::try_from(container.id.expect("an id")).expect("a valid id");
            if self.held.insert(id) {
                self.outstanding -= 1;
            }
        }
        for status in response.completed_container_statuses {
            let id = ContainerId::try_from(status.container_id.expect("an id")).expect("an id");
            self.held.remove(&id);
            self.completed.insert(
                id,
                (status.exit_status.unwrap_or_default(), status.diagnostics),
            );
        }
        self.to_be_preempted = response
            .preempt
            .map(|message| {
                let strict = message.strict_contract.unwrap_or_default().containers;
                let contract = message.contract.unwrap_or_default();
                assert!(
                    contract.containers.is_empty(),
                    "listed once, in the strict one"
                );
                let [give_back] = contract.resources.as_slice() else {
                    panic!("one request to give back: {contract:?}");
                };
                let capability = give_back.capability.as_ref().expect("a capability");
                assert_eq!(
                    capability.memory,
                    1024 * i64::try_from(strict.len()).expect("few"),
                    "what the listed 1 GB containers hold"
                );
                strict
                    .into_iter()
                    .map(|id| ContainerId::try_from(id).expect("a valid id"))
                    .collect()
            })
            .unwrap_or_default();
    }

    /// Heartbeats every 50 ms until `done` holds, within the tests' deadline.
    pub(crate) async fn until(
        &mut self,
        cluster: &RmCluster,
        what: &str,
        done: impl Fn(&Self) -> bool,
    ) {
        let deadline = Instant::now() + yarn_test_support::rm_cluster::DEADLINE;
        while !done(self) {
            assert!(Instant::now() < deadline, "timed out waiting for {what}");
            tokio::time::sleep(Duration::from_millis(50)).await;
            self.heartbeat(cluster, 0).await;
        }
    }
}
