//! The rmadmin operations against the admin service of the replicas.

use std::sync::Arc;

use tokio::task::JoinSet;
use tonic::transport::Channel;
use yarn_conf::{Configuration, keys};
use yarn_proto::pb;
use yarn_proto::pb::resource_manager_administration_protocol_client::ResourceManagerAdministrationProtocolClient as AdminClient;

use super::{
    ReplicaStatus, RmAdminCommand, RmAdminOutcome, ServiceState, leadership, node_label_args,
    output, sched_conf_args,
};
use crate::{Error, Idempotency, RmClient, RmClientConfig, RmService};

/// `RefreshNodes` without Hadoop's `-g`: decommission at once (the proto's forced form).
const FORCED_DECOMMISSION: i32 = -1;

/// Administers the ResourceManager group through each replica's admin address.
///
/// Replica-specific operations (`getServiceState`, `checkHealth`, `getAllServiceState`,
/// `getStateDigest`) make one attempt per replica under the call deadline; cluster-wide ones go
/// through the failover client, which finds the leader by its hints. Every cluster-wide RPC
/// used here is retry-safe per its `.proto` comment, so all are sent as idempotent.
#[derive(Debug, Clone)]
pub struct RmAdmin {
    client: Arc<RmClient>,
    automatic_failover: bool,
}

impl RmAdmin {
    /// An admin client for the replicas of `config`; `automatic_failover` is
    /// `yarn.resourcemanager.ha.automatic-failover.enabled`.
    pub fn new(config: &RmClientConfig, automatic_failover: bool) -> Self {
        Self {
            client: Arc::new(RmClient::new(config, RmService::Admin)),
            automatic_failover,
        }
    }

    /// An admin client configured from `conf`.
    ///
    /// # Errors
    ///
    /// Those of [`RmClientConfig::from_conf`], and [`Error::Conf`] for a bad
    /// `yarn.resourcemanager.ha.automatic-failover.enabled`.
    pub fn from_conf(conf: &Configuration) -> Result<Self, Error> {
        let automatic_failover = conf.get_bool(&keys::RM_HA_AUTOMATIC_FAILOVER_ENABLED)?;
        Ok(Self::new(
            &RmClientConfig::from_conf(conf)?,
            automatic_failover,
        ))
    }

    /// Runs `command` and returns what to print, and the failures that make it fail even so.
    ///
    /// # Errors
    ///
    /// The errors of [`RmAdminCommand::check`] as they are; every other failure is wrapped in
    /// [`Error::Admin`] naming the operation, and so are the outcome's failures.
    pub async fn run(&self, command: &RmAdminCommand) -> Result<RmAdminOutcome, Error> {
        command.check(self.client.rm_ids(), self.automatic_failover)?;
        let admin_error = |source| Error::Admin {
            operation: command.operation(),
            source: Box::new(source),
        };
        let mut outcome = self.execute(command).await.map_err(admin_error)?;
        outcome.failures = outcome.failures.into_iter().map(admin_error).collect();
        Ok(outcome)
    }

    async fn execute(&self, command: &RmAdminCommand) -> Result<RmAdminOutcome, Error> {
        let output = match command {
            RmAdminCommand::GetServiceState { rm_id } => {
                format!("{}\n", self.service_state(rm_id).await?)
            }
            RmAdminCommand::GetAllServiceState => {
                let rows = self.all_service_states().await;
                let output = output::all_service_states(&rows);
                let failures = rows
                    .into_iter()
                    .filter_map(|(_, status)| status.into_failure())
                    .collect();
                return Ok(RmAdminOutcome { output, failures });
            }
            RmAdminCommand::CheckHealth { rm_id } => {
                self.check_health(rm_id).await?;
                String::new()
            }
            RmAdminCommand::TransitionToActive { rm_id, .. } => {
                self.transfer_leadership(rm_id).await?;
                String::new()
            }
            RmAdminCommand::TransitionToStandby { rm_id, .. } => {
                self.transition_to_standby(rm_id).await?;
                String::new()
            }
            RmAdminCommand::RefreshQueues => {
                output::refreshed_queues(&self.refresh_queues().await?)
            }
            RmAdminCommand::RefreshNodes => {
                self.refresh_nodes().await?;
                String::new()
            }
            RmAdminCommand::RefreshAdminAcls => {
                self.refresh_admin_acls().await?;
                String::new()
            }
            RmAdminCommand::GetClusterMembership => {
                output::cluster_membership(&self.cluster_membership().await?)
            }
            RmAdminCommand::AddToCluster {
                rm_id,
                raft_address,
            } => output::cluster_membership(&self.add_member(rm_id, raft_address).await?),
            RmAdminCommand::RemoveFromCluster { rm_id } => {
                output::cluster_membership(&self.remove_member(rm_id).await?)
            }
            RmAdminCommand::GetStateDigest { rm_id } => {
                output::state_digest(&self.state_digest(rm_id).await?)
            }
            RmAdminCommand::AddToClusterNodeLabels { labels } => {
                let request = pb::AddToClusterNodeLabelsRequestProto {
                    deprecated_node_labels: Vec::new(),
                    node_labels: node_label_args::labels_to_add(labels)?,
                };
                self.call(move |mut admin| {
                    let request = request.clone();
                    async move { admin.add_to_cluster_node_labels(request).await }
                })
                .await?;
                String::new()
            }
            RmAdminCommand::RemoveFromClusterNodeLabels { labels } => {
                let request = pb::RemoveFromClusterNodeLabelsRequestProto {
                    node_labels: node_label_args::labels_to_remove(labels)?,
                };
                // A retry of a removal that committed would be refused as unknown.
                self.call_as(Idempotency::NotIdempotent, move |mut admin| {
                    let request = request.clone();
                    async move { admin.remove_from_cluster_node_labels(request).await }
                })
                .await?;
                String::new()
            }
            RmAdminCommand::ReplaceLabelsOnNode {
                mappings,
                fail_on_unknown_nodes,
            } => {
                let request = pb::ReplaceLabelsOnNodeRequestProto {
                    node_to_labels: node_label_args::node_to_labels(mappings)?,
                    fail_on_unknown_nodes: *fail_on_unknown_nodes,
                };
                self.call(move |mut admin| {
                    let request = request.clone();
                    async move { admin.replace_labels_on_nodes(request).await }
                })
                .await?;
                String::new()
            }
            RmAdminCommand::UpdateSchedulerConf {
                add,
                remove,
                update,
                global,
            } => {
                let request = sched_conf_args::update_request(
                    add.as_deref(),
                    remove.as_deref(),
                    update.as_deref(),
                    global.as_deref(),
                )?;
                // A retried addition that committed would be refused as existing.
                let reply = self
                    .call_as(Idempotency::NotIdempotent, move |mut admin| {
                        let request = request.clone();
                        async move { admin.update_scheduler_configuration(request).await }
                    })
                    .await?;
                output::scheduler_conf_changed(&reply)
            }
            RmAdminCommand::FormatSchedulerConf => {
                let reply = self
                    .call(|mut admin| async move {
                        admin
                            .format_scheduler_configuration(
                                pb::FormatSchedulerConfigurationRequestProto {},
                            )
                            .await
                    })
                    .await?;
                output::refreshed_queues(&reply)
            }
            RmAdminCommand::GetSchedulerConf { version } => {
                output::scheduler_conf(&self.scheduler_conf(*version).await?)
            }
            RmAdminCommand::ListSchedulerConfVersions => {
                output::scheduler_conf_versions(&self.scheduler_conf(None).await?)
            }
            RmAdminCommand::RestoreSchedulerConf { version } => {
                let request = pb::RestoreSchedulerConfigurationRequestProto { version: *version };
                // A retry of a restore that committed may find the version trimmed from the
                // history by that very commit.
                let reply = self
                    .call_as(Idempotency::NotIdempotent, move |mut admin| async move {
                        admin.restore_scheduler_configuration(request).await
                    })
                    .await?;
                output::refreshed_queues(&reply)
            }
        };
        Ok(RmAdminOutcome {
            output,
            failures: Vec::new(),
        })
    }

    /// The HA state of replica `rm_id`, asked of that replica alone.
    ///
    /// # Errors
    ///
    /// Those of [`RmClient::call_on`], and [`Error::InvalidResponse`] for a state outside the
    /// enum.
    pub async fn service_state(&self, rm_id: &str) -> Result<ServiceState, Error> {
        service_state_of(&self.client, rm_id).await
    }

    /// The admin address and status of every replica, in `rm-ids` order, asked concurrently,
    /// each under the call deadline. Why a replica is unreachable is logged as a warning;
    /// refusals and other failures are in the rows, for the caller to report.
    pub async fn all_service_states(&self) -> Vec<(String, ReplicaStatus)> {
        let mut tasks = JoinSet::new();
        for (index, rm_id) in self.client.rm_ids().iter().enumerate() {
            let client = Arc::clone(&self.client);
            let rm_id = rm_id.clone();
            tasks.spawn(async move {
                let status = ReplicaStatus::of(service_state_of(&client, &rm_id).await);
                (index, rm_id, status)
            });
        }
        let mut rows = Vec::with_capacity(tasks.len());
        while let Some(joined) = tasks.join_next().await {
            // The task only awaits a call, and this set, which owns it, is being awaited: it
            // can end otherwise only by panicking, a bug passed on to the caller.
            let (index, rm_id, status) =
                joined.unwrap_or_else(|err| std::panic::resume_unwind(err.into_panic()));
            if let ReplicaStatus::Unreachable(err) = &status {
                tracing::warn!(%rm_id, error = %err, "ResourceManager is unreachable");
            }
            let address = self.client.address_of(&rm_id).unwrap_or_default();
            rows.push((index, address, status));
        }
        rows.sort_by_key(|(index, _, _)| *index);
        rows.into_iter()
            .map(|(_, address, status)| (address, status))
            .collect()
    }

    /// The digest of replica `rm_id`'s replicated state with the log index and term it
    /// reflects, asked of that replica alone (a follower answers with its own, possibly older,
    /// state: compare digests only at equal indexes).
    ///
    /// # Errors
    ///
    /// Those of [`RmClient::call_on`].
    pub async fn state_digest(
        &self,
        rm_id: &str,
    ) -> Result<pb::GetStateDigestResponseProto, Error> {
        self.client
            .call_on(rm_id, |channel| async move {
                AdminClient::new(channel)
                    .get_state_digest(pb::GetStateDigestRequestProto {})
                    .await
            })
            .await
    }

    /// Whether replica `rm_id` reports itself healthy.
    ///
    /// # Errors
    ///
    /// [`Error::CallFailed`] carrying the replica's `FAILED_PRECONDITION` (naming the failed
    /// check) or the transport failure; [`Error::UnknownRmId`].
    pub async fn check_health(&self, rm_id: &str) -> Result<(), Error> {
        self.client
            .call_on(rm_id, |channel| async move {
                AdminClient::new(channel)
                    .monitor_health(pb::MonitorHealthRequestProto {})
                    .await
            })
            .await
            .map(drop)
    }

    /// Asks the leader to hand leadership to `target` and checks that it did.
    ///
    /// # Errors
    ///
    /// Those of [`RmClient::call`], and [`Error::TransferIncomplete`] when another replica
    /// leads afterwards.
    pub async fn transfer_leadership(&self, target: &str) -> Result<(), Error> {
        let request = pb::TransferLeadershipRequestProto {
            target_rm_id: target.to_owned(),
        };
        let reply = self
            .call(move |mut admin| {
                let request = request.clone();
                async move { admin.transfer_leadership(request).await }
            })
            .await?;
        if reply.leader_rm_id != target {
            return Err(Error::TransferIncomplete {
                target: target.to_owned(),
                leader: reply.leader_rm_id,
            });
        }
        Ok(())
    }

    /// Makes `rm_id` standby: nothing to do when it does not lead, otherwise leadership goes to
    /// the first other voter. Returns the replica that took over, if any.
    ///
    /// # Errors
    ///
    /// Those of [`cluster_membership`](Self::cluster_membership) and
    /// [`transfer_leadership`](Self::transfer_leadership), and [`Error::NoTransferTarget`].
    pub async fn transition_to_standby(&self, rm_id: &str) -> Result<Option<String>, Error> {
        let membership = self.cluster_membership().await?;
        let Some(target) = leadership::standby_transfer_target(&membership, rm_id)? else {
            return Ok(None);
        };
        self.transfer_leadership(&target).await?;
        Ok(Some(target))
    }

    /// The Raft membership as a replica (any, found by failover) knows it.
    ///
    /// # Errors
    ///
    /// Those of [`RmClient::call`].
    pub async fn cluster_membership(&self) -> Result<pb::GetClusterMembershipResponseProto, Error> {
        self.call(|mut admin| async move {
            admin
                .get_cluster_membership(pb::GetClusterMembershipRequestProto {})
                .await
        })
        .await
    }

    /// Adds replica `rm_id` with Raft transport `raft_address`; returns the new membership.
    ///
    /// # Errors
    ///
    /// Those of [`RmClient::call`].
    pub async fn add_member(
        &self,
        rm_id: &str,
        raft_address: &str,
    ) -> Result<pb::GetClusterMembershipResponseProto, Error> {
        let request = pb::AddRaftMemberRequestProto {
            member: Some(pb::RaftMemberProto {
                rm_id: rm_id.to_owned(),
                raft_address: raft_address.to_owned(),
                voter: true,
            }),
        };
        let reply = self
            .call(move |mut admin| {
                let request = request.clone();
                async move { admin.add_raft_member(request).await }
            })
            .await?;
        Ok(reply.membership.unwrap_or_default())
    }

    /// Removes replica `rm_id` from the voters; returns the new membership.
    ///
    /// # Errors
    ///
    /// Those of [`RmClient::call`].
    pub async fn remove_member(
        &self,
        rm_id: &str,
    ) -> Result<pb::GetClusterMembershipResponseProto, Error> {
        let request = pb::RemoveRaftMemberRequestProto {
            rm_id: rm_id.to_owned(),
        };
        let reply = self
            .call(move |mut admin| {
                let request = request.clone();
                async move { admin.remove_raft_member(request).await }
            })
            .await?;
        Ok(reply.membership.unwrap_or_default())
    }

    /// The queue configuration in force, or the kept `version`, with the versions kept.
    ///
    /// # Errors
    ///
    /// Those of [`RmClient::call`].
    pub async fn scheduler_conf(
        &self,
        version: Option<u64>,
    ) -> Result<pb::GetSchedulerConfigurationResponseProto, Error> {
        self.call(move |mut admin| async move {
            admin
                .get_scheduler_configuration(pb::GetSchedulerConfigurationRequestProto { version })
                .await
        })
        .await
    }

    /// Re-reads capacity-scheduler.xml on the leader; returns which leader's file was applied,
    /// the queue-configuration version in force, and whether this call committed it.
    ///
    /// # Errors
    ///
    /// Those of [`RmClient::call`]; the leader's refusal (e.g. bad configuration) is in the
    /// status.
    pub async fn refresh_queues(&self) -> Result<pb::RefreshQueuesResponseProto, Error> {
        self.call(|mut admin| async move {
            admin.refresh_queues(pb::RefreshQueuesRequestProto {}).await
        })
        .await
    }

    /// Re-reads the include and exclude node lists on the leader, decommissioning at once.
    ///
    /// # Errors
    ///
    /// Those of [`RmClient::call`].
    pub async fn refresh_nodes(&self) -> Result<(), Error> {
        self.call(|mut admin| async move {
            admin
                .refresh_nodes(pb::RefreshNodesRequestProto {
                    decommission_timeout_secs: FORCED_DECOMMISSION,
                })
                .await
        })
        .await
        .map(drop)
    }

    /// Re-reads `yarn.admin.acl` on the leader.
    ///
    /// # Errors
    ///
    /// Those of [`RmClient::call`].
    pub async fn refresh_admin_acls(&self) -> Result<(), Error> {
        self.call(|mut admin| async move {
            admin
                .refresh_admin_acls(pb::RefreshAdminAclsRequestProto {})
                .await
        })
        .await
        .map(drop)
    }

    /// A retry-safe admin call through the failover client.
    async fn call<T, F, Fut>(&self, op: F) -> Result<T, Error>
    where
        F: FnMut(AdminClient<Channel>) -> Fut,
        Fut: Future<Output = Result<tonic::Response<T>, tonic::Status>>,
    {
        self.call_as(Idempotency::Idempotent, op).await
    }

    async fn call_as<T, F, Fut>(&self, idempotency: Idempotency, mut op: F) -> Result<T, Error>
    where
        F: FnMut(AdminClient<Channel>) -> Fut,
        Fut: Future<Output = Result<tonic::Response<T>, tonic::Status>>,
    {
        self.client
            .call(idempotency, |channel| op(AdminClient::new(channel)))
            .await
    }
}

/// `GetServiceStatus` on replica `rm_id` alone, as a [`ServiceState`].
async fn service_state_of(client: &RmClient, rm_id: &str) -> Result<ServiceState, Error> {
    let reply = client
        .call_on(rm_id, |channel| async move {
            AdminClient::new(channel)
                .get_service_status(pb::HaServiceStatusRequestProto {})
                .await
        })
        .await?;
    ServiceState::from_proto(reply.state).ok_or_else(|| Error::InvalidResponse {
        rm_id: rm_id.to_owned(),
        rpc: "GetServiceStatus",
        field: "state",
        value: reply.state.to_string(),
    })
}
