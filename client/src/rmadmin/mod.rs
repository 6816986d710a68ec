//! `yarn-ha rmadmin`: Hadoop's ResourceManager administration verbs over the admin protocol.
//!
//! HA state is the replica's Raft role, so the verbs map onto Raft:
//!
//! ```text
//! -getServiceState rmX       GetServiceStatus on rmX only            -> active | standby
//! -getAllServiceState        GetServiceStatus on every rm, in parallel -> "<addr>  <state>",
//!                            the state `unreachable`, `refused` or `failed` when there is none;
//!                            the command fails when a replica refused the caller or failed
//! -checkHealth rmX           MonitorHealth on rmX only               -> silent, or the reason
//! -transitionToActive rmX    TransferLeadership{rmX} on the leader   (--forcemanual while
//! -transitionToStandby rmX   GetClusterMembership, then transfer to   automatic failover is on)
//!                            the first other voter if rmX leads
//! -getClusterMembership      GetClusterMembership on any replica
//! -addToCluster / -removeFromCluster   AddRaftMember / RemoveRaftMember on the leader
//! -refreshQueues / -refreshNodes / -refreshAdminAcls   on the leader
//! -addToClusterNodeLabels / -removeFromClusterNodeLabels / -replaceLabelsOnNode   on the
//!                            leader, silent on success
//! schedulerconf -add/-remove/-update/-global   UpdateSchedulerConfiguration on the leader
//! schedulerconf -format / -getconf [N] / -versions / -restore N   FormatSchedulerConfiguration
//!                            / GetSchedulerConfiguration / RestoreSchedulerConfiguration
//! -getStateDigest rmX        GetStateDigest on rmX only              -> "rmX applied <index>
//!                                                                       (term <t>) digest <hex>"
//! ```
//!
//! [`RmAdminCommand::check`] does every check that needs no server (ids, `--forcemanual`)
//! before any connection is made; [`output`] formats the replies; [`RmAdmin`] makes the calls
//! and returns an [`RmAdminOutcome`].

mod command;
mod leadership;
pub mod node_label_args;
mod outcome;
pub mod output;
mod replica_status;
mod rm_admin;
pub mod sched_conf_args;
mod service_state;

use yarn_conf::{Configuration, RmHaConfig, keys};

pub use command::RmAdminCommand;
pub use leadership::standby_transfer_target;
pub use outcome::RmAdminOutcome;
pub use replica_status::ReplicaStatus;
pub use rm_admin::RmAdmin;
pub use service_state::ServiceState;

use crate::Error;

/// Runs `command` against the cluster configured in `conf`, on a runtime of its own, and
/// returns its outcome. For the binary, which has no async runtime.
///
/// The command is checked against the configured rm ids and the automatic-failover setting
/// before the TLS files are read or any replica is called, so an unknown id is reported as such
/// even where the TLS setting is incomplete.
///
/// # Errors
///
/// [`Error::Conf`] for bad configuration, the errors of [`RmAdminCommand::check`] and
/// [`RmAdmin::run`], and [`Error::Runtime`] when no runtime can be started.
pub fn run_blocking(
    conf: &Configuration,
    command: &RmAdminCommand,
) -> Result<RmAdminOutcome, Error> {
    let ha = RmHaConfig::from_conf(conf)?;
    let rm_ids: Vec<String> = ha.members.iter().map(|m| m.rm_id.clone()).collect();
    let automatic_failover = conf.get_bool(&keys::RM_HA_AUTOMATIC_FAILOVER_ENABLED)?;
    command.check(&rm_ids, automatic_failover)?;
    let admin = RmAdmin::from_conf(conf)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|source| Error::Runtime { source })?;
    runtime.block_on(admin.run(command))
}
