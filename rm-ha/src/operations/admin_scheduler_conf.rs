//! The mutation API of the queue configuration (`yarn.scheduler.configuration.store.class` a
//! mutable store): changes checked like a refresh and committed through Raft, Hadoop's two
//! mutation policies, and `-format` to commit `capacity-scheduler.xml` again.

use yarn_proto::pb::{
    GetSchedulerConfigurationResponseProto, RefreshQueuesResponseProto, SchedConfParamProto,
};
use yarn_scheduler::{ConfigurationStore, MutationAclPolicy, QueueAcl};
use yarn_security::Caller;

use super::admin_acl::check_admin;
use super::{AdminOperations, RmError};
use crate::Error;
use crate::scheduling::{QueueFile, QueueRefresh, SchedConfUpdate};

/// Hadoop's refusal of a mutation without a mutable store.
const NOT_MUTABLE: &str = "Configuration change only supported by mutable configuration store.";
/// Hadoop's refusal of `-refreshQueues` with one.
pub(super) const REFRESH_REFUSED: &str =
    "Scheduler configuration is mutable. refreshQueues is not allowed in this scenario.";
/// How a change committed through the API is described where a refresh names its file.
const REPLICATED: &str = "the replicated queue configuration (mutation API)";

impl AdminOperations {
    /// Whether the queue configuration is a mutable store.
    pub(super) fn mutable_configuration(&self) -> bool {
        self.queues.settings.configuration_store == ConfigurationStore::Mutable
    }

    /// Applies `update` to the queue configuration in force, checks the result as a refresh
    /// would (in full, then against the queues and applications in force) and commits it as
    /// one Raft entry with the next version. An update that changes nothing commits nothing.
    ///
    /// # Errors
    ///
    /// [`RmError::PreconditionFailed`] without a mutable store; [`RmError::AccessDenied`] when
    /// the mutation policy refuses the caller; [`RmError::InvalidRequest`] for an update that
    /// cannot apply (Hadoop's words) or whose result is refused (the scheduler's reason):
    /// nothing changes then; [`RmError::Conflict`] when another change committed first.
    pub(crate) async fn update_scheduler_configuration(
        &self,
        caller: &Caller,
        update: SchedConfUpdate,
    ) -> Result<RefreshQueuesResponseProto, RmError> {
        if !self.mutable_configuration() {
            return Err(RmError::precondition(NOT_MUTABLE));
        }
        // Checked against everything committed so far: the queues the policy reads and the
        // applications a removal must not strand.
        self.proposer.read_barrier().await?;
        self.authorize_mutation(caller, &update).await?;
        let properties = self.state.read(|state| state.queue_config.clone());
        let changed = update
            .apply(&properties)
            .map_err(|reason| RmError::invalid("sched-conf", reason))?;
        let plan = self
            .state
            .read(|state| QueueRefresh::plan(state, &self.queues, &QueueFile::from(changed)))
            .map_err(|err| {
                // The scheduler's reason, without the file a refresh would name.
                let reason = match err {
                    Error::InvalidQueueConfiguration { source, .. } => source.to_string(),
                    other => other.to_string(),
                };
                RmError::invalid("sched-conf", format!("Failed to re-init queues : {reason}"))
            })?;
        self.commit_plan(plan, REPLICATED.to_owned()).await
    }

    /// Reads `capacity-scheduler.xml` again and commits it in place of the configuration in
    /// force, checked as a refresh: Hadoop's format of the configuration store.
    ///
    /// # Errors
    ///
    /// [`RmError::PreconditionFailed`] without a mutable store, and those of
    /// [`refresh_queues`](Self::refresh_queues).
    pub(crate) async fn format_scheduler_configuration(
        &self,
        caller: &Caller,
    ) -> Result<RefreshQueuesResponseProto, RmError> {
        self.authorize(caller).await?;
        if !self.mutable_configuration() {
            return Err(RmError::precondition(
                "Scheduler Configuration format only supported by MutableConfScheduler",
            ));
        }
        self.commit_queue_file().await
    }

    /// The queue configuration in force and its version, after the leader's read barrier.
    pub(crate) async fn get_scheduler_configuration(
        &self,
        caller: &Caller,
    ) -> Result<GetSchedulerConfigurationResponseProto, RmError> {
        self.authorize(caller).await?;
        self.proposer.read_barrier().await?;
        Ok(self
            .state
            .read(|state| GetSchedulerConfigurationResponseProto {
                properties: state
                    .queue_config
                    .iter()
                    .map(|(key, value)| SchedConfParamProto {
                        key: key.clone(),
                        value: Some(value.clone()),
                    })
                    .collect(),
                version: state.queue_config_version,
            }))
    }

    /// Lets `caller` make `update` under `yarn.scheduler.configuration.mutation.acl-policy.class`:
    /// administrators always; under the queue-admin policy also a user who administers every
    /// queue the update touches, when it changes no global key.
    async fn authorize_mutation(
        &self,
        caller: &Caller,
        update: &SchedConfUpdate,
    ) -> Result<(), RmError> {
        let Caller::Peer(identity) = caller else {
            // The anonymous caller of a plaintext cluster administers it, as for rmadmin.
            return Ok(());
        };
        let admin = check_admin(&self.queues, identity).await;
        if admin.is_ok() || self.queues.settings.mutation_acl_policy == MutationAclPolicy::Admins {
            return admin;
        }
        let conf = self
            .state
            .read(|state| self.queues.parse_committed(state.queue_config.clone()))
            .map_err(|err| RmError::internal(err.to_string()))?;
        let groups = self.queues.groups.lookup(&identity.name).await;
        let allowed = update.queues_to_administer(&conf).is_some_and(|paths| {
            paths.iter().all(|path| {
                conf.has_access(path, QueueAcl::AdministerQueue, &identity.name, &groups)
            })
        });
        if allowed {
            return Ok(());
        }
        Err(RmError::AccessDenied {
            user: identity.name.clone(),
            right: QueueAcl::AdministerQueue.to_string(),
            message: "User is not admin of all modified queues.".to_owned(),
        })
    }
}
