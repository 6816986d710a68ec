//! The rmadmin operations, and the checks that need no server.

use yarn_conf::HostPort;

use super::{node_label_args, sched_conf_args};
use crate::Error;

/// One `yarn-ha rmadmin` operation, as parsed from Hadoop's options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RmAdminCommand {
    /// `-getServiceState <id>`: print `active` or `standby`.
    GetServiceState {
        /// The replica asked.
        rm_id: String,
    },
    /// `-getAllServiceState`: one line per replica with its admin address and state.
    GetAllServiceState,
    /// `-checkHealth <id>`: silent success when healthy, the reason otherwise.
    CheckHealth {
        /// The replica checked.
        rm_id: String,
    },
    /// `-transitionToActive <id>`: hand Raft leadership to `rm_id`.
    TransitionToActive {
        /// The replica to lead.
        rm_id: String,
        /// `--forcemanual`, required while automatic failover is enabled.
        force_manual: bool,
    },
    /// `-transitionToStandby <id>`: make `rm_id` a follower, handing leadership to another
    /// voter if it leads.
    TransitionToStandby {
        /// The replica to step down.
        rm_id: String,
        /// `--forcemanual`, required while automatic failover is enabled.
        force_manual: bool,
    },
    /// `-refreshQueues` on the leader.
    RefreshQueues,
    /// `-refreshNodes` on the leader (forced decommission, as Hadoop's plain form).
    RefreshNodes,
    /// `-refreshAdminAcls` on the leader.
    RefreshAdminAcls,
    /// `-getClusterMembership`: the Raft members, the leader and the term.
    GetClusterMembership,
    /// `-addToCluster <id> <raft-address>`: add a replica as learner, then voter.
    AddToCluster {
        /// The new replica's id.
        rm_id: String,
        /// `host:port` of its Raft transport.
        raft_address: String,
    },
    /// `-removeFromCluster <id>`: remove a replica from the voters.
    RemoveFromCluster {
        /// The replica to remove.
        rm_id: String,
    },
    /// `-getStateDigest <id>` (a yarn-ha extension): the digest of one replica's replicated
    /// state with the log index and term it reflects.
    GetStateDigest {
        /// The replica asked.
        rm_id: String,
    },
    /// `-addToClusterNodeLabels <"label1(exclusive=true),label2(exclusive=false),label3">`.
    AddToClusterNodeLabels {
        /// The argument as given ([`node_label_args::labels_to_add`]).
        labels: String,
    },
    /// `-removeFromClusterNodeLabels <label1,label2>`.
    RemoveFromClusterNodeLabels {
        /// The argument as given ([`node_label_args::labels_to_remove`]).
        labels: String,
    },
    /// `-replaceLabelsOnNode <"node1[:port]=label1 node2[:port]=label2">
    /// [-failOnUnknownNodes]`.
    ReplaceLabelsOnNode {
        /// The argument as given ([`node_label_args::node_to_labels`]).
        mappings: String,
        /// Refuse the change when a node never registered.
        fail_on_unknown_nodes: bool,
    },
    /// `schedulerconf -add/-remove/-update/-global`: one change of a mutable queue
    /// configuration, on the leader.
    UpdateSchedulerConf {
        /// `-add`, as given ([`sched_conf_args::update_request`]).
        add: Option<String>,
        /// `-remove`, as given.
        remove: Option<String>,
        /// `-update`, as given.
        update: Option<String>,
        /// `-global`, as given.
        global: Option<String>,
    },
    /// `schedulerconf -format`: commit `capacity-scheduler.xml` again, on the leader.
    FormatSchedulerConf,
    /// `schedulerconf -getconf [VERSION]`: the queue configuration in force, or a kept version,
    /// as Hadoop's XML.
    GetSchedulerConf {
        /// The kept version asked for; the one in force when `None`.
        version: Option<u64>,
    },
    /// `schedulerconf -versions`: the version in force and the kept ones.
    ListSchedulerConfVersions,
    /// `schedulerconf -restore VERSION`: commit a kept version again as the next one.
    RestoreSchedulerConf {
        /// The kept version.
        version: u64,
    },
}

impl RmAdminCommand {
    /// The operation's name in Hadoop's spelling, for messages.
    pub fn operation(&self) -> &'static str {
        match self {
            Self::GetServiceState { .. } => "getServiceState",
            Self::GetAllServiceState => "getAllServiceState",
            Self::CheckHealth { .. } => "checkHealth",
            Self::TransitionToActive { .. } => "transitionToActive",
            Self::TransitionToStandby { .. } => "transitionToStandby",
            Self::RefreshQueues => "refreshQueues",
            Self::RefreshNodes => "refreshNodes",
            Self::RefreshAdminAcls => "refreshAdminAcls",
            Self::GetClusterMembership => "getClusterMembership",
            Self::AddToCluster { .. } => "addToCluster",
            Self::RemoveFromCluster { .. } => "removeFromCluster",
            Self::GetStateDigest { .. } => "getStateDigest",
            Self::AddToClusterNodeLabels { .. } => "addToClusterNodeLabels",
            Self::RemoveFromClusterNodeLabels { .. } => "removeFromClusterNodeLabels",
            Self::ReplaceLabelsOnNode { .. } => "replaceLabelsOnNode",
            Self::UpdateSchedulerConf { .. } => "updateSchedulerConfiguration",
            Self::FormatSchedulerConf => "formatSchedulerConfiguration",
            Self::GetSchedulerConf { .. } => "getSchedulerConfiguration",
            Self::ListSchedulerConfVersions => "getSchedulerConfiguration",
            Self::RestoreSchedulerConf { .. } => "restoreSchedulerConfiguration",
        }
    }

    /// Checks what can be checked without a server: that an existing replica's id is one of
    /// `rm_ids`, that a new replica's id and Raft address are well formed, that a manual
    /// transition has `--forcemanual` while `automatic_failover` is on, and that node-label
    /// arguments read.
    ///
    /// # Errors
    ///
    /// [`Error::UnknownRmId`] (Hadoop's "is not a valid serviceId" message),
    /// [`Error::InvalidNewRmId`], [`Error::InvalidRaftAddress`],
    /// [`Error::ManualTransitionRefused`] and [`Error::InvalidAdminArgument`].
    pub fn check(&self, rm_ids: &[String], automatic_failover: bool) -> Result<(), Error> {
        let known = |rm_id: &str| {
            if rm_ids.iter().any(|id| id == rm_id) {
                Ok(())
            } else {
                Err(Error::UnknownRmId {
                    rm_id: rm_id.to_owned(),
                    configured: rm_ids.to_vec(),
                })
            }
        };
        let manual = |force_manual: bool, operation: String| {
            if automatic_failover && !force_manual {
                Err(Error::ManualTransitionRefused { operation })
            } else {
                Ok(())
            }
        };
        match self {
            Self::GetServiceState { rm_id }
            | Self::CheckHealth { rm_id }
            | Self::RemoveFromCluster { rm_id }
            | Self::GetStateDigest { rm_id } => known(rm_id),
            Self::TransitionToActive {
                rm_id,
                force_manual,
            } => {
                known(rm_id)?;
                manual(
                    *force_manual,
                    format!("transfer Raft leadership to {rm_id}"),
                )
            }
            Self::TransitionToStandby {
                rm_id,
                force_manual,
            } => {
                known(rm_id)?;
                manual(
                    *force_manual,
                    format!("move Raft leadership away from {rm_id}"),
                )
            }
            Self::AddToCluster {
                rm_id,
                raft_address,
            } => {
                let well_formed = !rm_id.is_empty()
                    && rm_id
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
                if !well_formed {
                    return Err(Error::InvalidNewRmId {
                        rm_id: rm_id.clone(),
                    });
                }
                raft_address
                    .parse::<HostPort>()
                    .map(drop)
                    .map_err(|source| Error::InvalidRaftAddress {
                        rm_id: rm_id.clone(),
                        address: raft_address.clone(),
                        source,
                    })
            }
            Self::AddToClusterNodeLabels { labels } => {
                node_label_args::labels_to_add(labels).map(drop)
            }
            Self::RemoveFromClusterNodeLabels { labels } => {
                node_label_args::labels_to_remove(labels).map(drop)
            }
            Self::ReplaceLabelsOnNode { mappings, .. } => {
                node_label_args::node_to_labels(mappings).map(drop)
            }
            Self::UpdateSchedulerConf {
                add,
                remove,
                update,
                global,
            } => sched_conf_args::update_request(
                add.as_deref(),
                remove.as_deref(),
                update.as_deref(),
                global.as_deref(),
            )
            .map(drop),
            Self::GetAllServiceState
            | Self::RefreshQueues
            | Self::RefreshNodes
            | Self::RefreshAdminAcls
            | Self::GetClusterMembership
            | Self::FormatSchedulerConf
            | Self::GetSchedulerConf { .. }
            | Self::ListSchedulerConfVersions
            | Self::RestoreSchedulerConf { .. } => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids() -> Vec<String> {
        ["rm1", "rm2", "rm3"].map(String::from).to_vec()
    }

    #[test]
    fn unknown_ids_get_hadoops_message_listing_the_configured_ids() {
        for command in [
            RmAdminCommand::GetServiceState {
                rm_id: "rm9".into(),
            },
            RmAdminCommand::CheckHealth {
                rm_id: "rm9".into(),
            },
            RmAdminCommand::TransitionToActive {
                rm_id: "rm9".into(),
                force_manual: true,
            },
            RmAdminCommand::TransitionToStandby {
                rm_id: "rm9".into(),
                force_manual: true,
            },
            RmAdminCommand::RemoveFromCluster {
                rm_id: "rm9".into(),
            },
            RmAdminCommand::GetStateDigest {
                rm_id: "rm9".into(),
            },
        ] {
            let err = command.check(&ids(), true).unwrap_err();
            assert_eq!(
                err.to_string(),
                "rm9 is not a valid serviceId. It should be one of rm1,rm2,rm3",
                "{command:?}"
            );
        }
    }

    #[test]
    fn manual_transitions_need_forcemanual_only_under_automatic_failover() {
        let active = |force_manual| RmAdminCommand::TransitionToActive {
            rm_id: "rm2".into(),
            force_manual,
        };
        let standby = |force_manual| RmAdminCommand::TransitionToStandby {
            rm_id: "rm1".into(),
            force_manual,
        };
        for command in [active(false), standby(false)] {
            let err = command.check(&ids(), true).unwrap_err();
            assert!(
                matches!(err, Error::ManualTransitionRefused { .. }),
                "{err:?}"
            );
            let message = err.to_string();
            assert!(
                message.starts_with("Refusing to manually manage HA state"),
                "{message}"
            );
            assert!(message.contains("--forcemanual"), "{message}");
            command.check(&ids(), false).unwrap();
        }
        active(true).check(&ids(), true).unwrap();
        standby(true).check(&ids(), true).unwrap();
    }

    #[test]
    fn a_new_member_needs_a_well_formed_id_and_raft_address_but_may_be_unconfigured() {
        let add = |rm_id: &str, raft_address: &str| RmAdminCommand::AddToCluster {
            rm_id: rm_id.into(),
            raft_address: raft_address.into(),
        };
        add("rm4", "10.0.0.4:8035").check(&ids(), true).unwrap();
        add("rm_new-2", "[::1]:8035").check(&ids(), true).unwrap();
        for bad in ["", "rm 4", "rm4.example", "rm/4"] {
            let err = add(bad, "h:1").check(&ids(), true).unwrap_err();
            assert!(
                matches!(err, Error::InvalidNewRmId { .. }),
                "{bad:?}: {err:?}"
            );
        }
        let err = add("rm4", "h4").check(&ids(), true).unwrap_err();
        assert!(
            matches!(&err, Error::InvalidRaftAddress { address, .. } if address == "h4"),
            "{err:?}"
        );
        assert!(err.to_string().contains("rm4"), "{err}");
    }

    #[test]
    fn operations_without_ids_always_pass() {
        for command in [
            RmAdminCommand::GetAllServiceState,
            RmAdminCommand::RefreshQueues,
            RmAdminCommand::RefreshNodes,
            RmAdminCommand::RefreshAdminAcls,
            RmAdminCommand::GetClusterMembership,
        ] {
            command.check(&[], true).unwrap();
        }
    }
}
