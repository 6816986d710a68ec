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
use crate::state_machine::RmState;

/// Hadoop 3.4's refusal of a mutation without a mutable store.
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
        let administrator = self.mutation_caller(caller).await?;
        // Checked against everything committed so far: the queues the policy reads and the
        // applications a removal must not strand.
        self.proposer.read_barrier().await?;
        // One read: the change is applied to, checked against and based on the same version,
        // so a change committed meanwhile makes the proposal a conflict, never a lost update.
        let plan = self.state.read(|state| {
            if state.queue_config_version == 0 {
                return Err(RmError::unavailable(
                    "the initial queue configuration is not committed yet; try again",
                ));
            }
            if let MutationCaller::QueueAdministrator { user, groups } = &administrator {
                let committed = self.queues.parse_committed(state).ok();
                let allowed = committed.is_some_and(|conf| {
                    update.queues_to_administer(&conf).is_some_and(|paths| {
                        paths
                            .iter()
                            .all(|path| conf.grants(path, QueueAcl::AdministerQueue, user, groups))
                    })
                });
                if !allowed {
                    return Err(RmError::AccessDenied {
                        user: user.clone(),
                        right: QueueAcl::AdministerQueue.to_string(),
                        message: "User is not admin of all modified queues.".to_owned(),
                    });
                }
            }
            let changed = update
                .apply(&state.queue_config)
                .map_err(|reason| RmError::invalid("sched-conf", reason))?;
            QueueRefresh::plan(state, &self.queues, &QueueFile::from(changed)).map_err(refused)
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

    /// The queue configuration in force and its version, or the kept `version`, with the
    /// versions kept, after the leader's read barrier.
    ///
    /// # Errors
    ///
    /// [`RmError::NotFound`] for a version neither in force nor kept.
    pub(crate) async fn get_scheduler_configuration(
        &self,
        caller: &Caller,
        version: Option<u64>,
    ) -> Result<GetSchedulerConfigurationResponseProto, RmError> {
        self.authorize(caller).await?;
        self.proposer.read_barrier().await?;
        self.state.read(|state| {
            let (version, properties) = match version {
                None => (state.queue_config_version, &state.queue_config),
                Some(version) if version == state.queue_config_version => {
                    (version, &state.queue_config)
                }
                Some(version) => (
                    version,
                    state
                        .queue_config_history
                        .get(version)
                        .ok_or_else(|| not_kept(version, state))?,
                ),
            };
            Ok(GetSchedulerConfigurationResponseProto {
                properties: properties
                    .iter()
                    .map(|(key, value)| SchedConfParamProto {
                        key: key.clone(),
                        value: Some(value.clone()),
                    })
                    .collect(),
                version,
                kept_versions: state.queue_config_history.versions().collect(),
            })
        })
    }

    /// Commits the kept `version`'s configuration again as the next version, checked against
    /// the queues and applications in force as a refresh is; the version in force commits
    /// nothing.
    ///
    /// # Errors
    ///
    /// [`RmError::PreconditionFailed`] without a mutable store, [`RmError::NotFound`] for a
    /// version not kept, and those of [`update_scheduler_configuration`]
    /// (Self::update_scheduler_configuration) for a configuration that no longer fits.
    pub(crate) async fn restore_scheduler_configuration(
        &self,
        caller: &Caller,
        version: u64,
    ) -> Result<RefreshQueuesResponseProto, RmError> {
        self.authorize(caller).await?;
        if !self.mutable_configuration() {
            return Err(RmError::precondition(
                "restoring a version needs a mutable store: with file, capacity-scheduler.xml \
                 is the configuration's source; edit it and run -refreshQueues",
            ));
        }
        self.proposer.read_barrier().await?;
        let plan = self.state.read(|state| {
            let properties = if version == state.queue_config_version {
                // Already in force: the plan finds nothing to change.
                &state.queue_config
            } else {
                state
                    .queue_config_history
                    .get(version)
                    .ok_or_else(|| not_kept(version, state))?
            };
            QueueRefresh::plan(state, &self.queues, &QueueFile::from(properties.clone()))
                .map_err(refused)
        })?;
        self.commit_plan(plan, format!("kept version {version} of {REPLICATED}"))
            .await
    }

    /// Who `caller` is to `yarn.scheduler.configuration.mutation.acl-policy.class`: an
    /// administrator, who may make any change; under the queue-admin policy, another user, who
    /// may change the queues it administers ([`update_scheduler_configuration`]
    /// (Self::update_scheduler_configuration) checks which).
    ///
    /// # Errors
    ///
    /// [`RmError::AccessDenied`] for a user who is no administrator under the default policy.
    async fn mutation_caller(&self, caller: &Caller) -> Result<MutationCaller, RmError> {
        let Caller::Peer(identity) = caller else {
            // The anonymous caller of a plaintext cluster administers it, as for rmadmin.
            return Ok(MutationCaller::Administrator);
        };
        let admin = check_admin(&self.queues, identity).await;
        match (admin, self.queues.settings.mutation_acl_policy) {
            (Ok(()), _) => Ok(MutationCaller::Administrator),
            (Err(refusal), MutationAclPolicy::Admins) => Err(refusal),
            (Err(_), MutationAclPolicy::QueueAdmins) => Ok(MutationCaller::QueueAdministrator {
                user: identity.name.clone(),
                groups: self.queues.groups.lookup(&identity.name).await,
            }),
        }
    }
}

/// Who is making a change of the queue configuration.
enum MutationCaller {
    /// A user in `yarn.admin.acl`.
    Administrator,
    /// Another user, under the queue-admin policy.
    QueueAdministrator {
        /// The user's name.
        user: String,
        /// Its groups.
        groups: Vec<String>,
    },
}

/// A configuration the scheduler refuses, in Hadoop's words, with the scheduler's reason but
/// not the file a refresh would name.
fn refused(err: Error) -> RmError {
    let reason = match err {
        Error::InvalidQueueConfiguration { source, .. } => source.to_string(),
        other => other.to_string(),
    };
    RmError::invalid("sched-conf", format!("Failed to re-init queues : {reason}"))
}

/// The refusal of a version neither in force nor kept, naming those that are.
fn not_kept(version: u64, state: &RmState) -> RmError {
    let kept: Vec<String> = state
        .queue_config_history
        .versions()
        .map(|version| version.to_string())
        .collect();
    RmError::NotFound {
        message: format!(
            "queue configuration version {version} is not kept: version {} is in force, \
             and kept are {}",
            state.queue_config_version,
            if kept.is_empty() {
                "none".to_owned()
            } else {
                kept.join(", ")
            }
        ),
    }
}
