//! What rmadmin prints, as pure functions of the replies.

use std::fmt::Write;

use yarn_proto::pb::{
    GetClusterMembershipResponseProto, GetSchedulerConfigurationResponseProto,
    GetStateDigestResponseProto, RefreshQueuesResponseProto,
};

use super::ReplicaStatus;

/// The `-getAllServiceState` report: one line per replica, `<admin host:port>` padded to the
/// longest address, two spaces, then `active`, `standby` (or another HA state), `unreachable`,
/// `refused` or `failed` ([`ReplicaStatus::as_str`]). Rows keep their order (that of
/// `yarn.resourcemanager.ha.rm-ids`).
pub fn all_service_states(rows: &[(String, ReplicaStatus)]) -> String {
    let width = rows
        .iter()
        .map(|(address, _)| address.len())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for (address, state) in rows {
        let state = state.as_str();
        // Writing to a String cannot fail.
        let _ = writeln!(out, "{address:<width$}  {state}");
    }
    out
}

/// The `-getClusterMembership` report: a header with the term and the leader, then one line per
/// member with its rm id, Raft address, `voter` or `learner`, and `leader` on the leader's line.
pub fn cluster_membership(membership: &GetClusterMembershipResponseProto) -> String {
    let leader = if membership.leader_rm_id.is_empty() {
        "unknown"
    } else {
        membership.leader_rm_id.as_str()
    };
    let mut out = format!("term {}, leader {leader}\n", membership.current_term);
    let id_width = column_width(membership, |m| m.rm_id.len());
    let address_width = column_width(membership, |m| m.raft_address.len());
    for member in &membership.members {
        let role = if member.voter { "voter" } else { "learner" };
        let mut line = format!(
            "{:<id_width$}  {:<address_width$}  {role}",
            member.rm_id, member.raft_address
        );
        if !membership.leader_rm_id.is_empty() && member.rm_id == membership.leader_rm_id {
            line.push_str("  leader");
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The `-getStateDigest` report, one line:
/// `<rm id> applied <index> (term <term>) digest <hex digest>`.
pub fn state_digest(reply: &GetStateDigestResponseProto) -> String {
    format!(
        "{} applied {} (term {}) digest {}\n",
        reply.rm_id, reply.applied_index, reply.applied_term, reply.digest
    )
}

/// The `-refreshQueues` report, one line naming the leader whose file was applied and the
/// version in force: `committed queue configuration version <v> from <rm id>'s <file>`, or
/// `<rm id>'s <file> holds queue configuration version <v>, already in force; nothing
/// committed` when the file changed nothing (a retry on a new leader reads that leader's file);
/// then one `warning: ` line per key of the file the scheduler ignores.
pub fn refreshed_queues(reply: &RefreshQueuesResponseProto) -> String {
    let mut out = if reply.committed {
        format!(
            "committed queue configuration version {} from {}'s {}\n",
            reply.queue_config_version, reply.rm_id, reply.file
        )
    } else {
        format!(
            "{}'s {} holds queue configuration version {}, already in force; nothing committed\n",
            reply.rm_id, reply.file, reply.queue_config_version
        )
    };
    for warning in &reply.warnings {
        // Writing to a String cannot fail.
        let _ = writeln!(out, "warning: {warning}");
    }
    out
}

fn column_width(
    membership: &GetClusterMembershipResponseProto,
    len: impl Fn(&yarn_proto::pb::RaftMemberProto) -> usize,
) -> usize {
    membership.members.iter().map(len).max().unwrap_or(0)
}

/// What `schedulerconf` prints for a committed change: Hadoop's line, the version, and the
/// keys the new configuration ignores.
pub fn scheduler_conf_changed(reply: &RefreshQueuesResponseProto) -> String {
    let mut out = format!(
        "Configuration changed successfully.\nqueue configuration version {}{}\n",
        reply.queue_config_version,
        if reply.committed {
            ""
        } else {
            " (the change left it as it was; nothing committed)"
        }
    );
    for warning in &reply.warnings {
        // Writing to a String cannot fail.
        let _ = writeln!(out, "warning: {warning}");
    }
    out
}

/// `schedulerconf -versions`: the version in force and those kept.
pub fn scheduler_conf_versions(reply: &GetSchedulerConfigurationResponseProto) -> String {
    let kept: Vec<String> = reply.kept_versions.iter().map(u64::to_string).collect();
    format!(
        "queue configuration version {} in force; kept: {}\n",
        reply.version,
        if kept.is_empty() {
            "none".to_owned()
        } else {
            kept.join(" ")
        }
    )
}

/// `schedulerconf -getconf`: the configuration in force as Hadoop prints it, a
/// `<configuration>` of `<property>` name and value pairs, indented by two.
pub fn scheduler_conf(reply: &GetSchedulerConfigurationResponseProto) -> String {
    let escape = |text: &str| {
        text.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    };
    let mut out = String::from("<configuration>\n");
    for property in &reply.properties {
        // Writing to a String cannot fail.
        let _ = writeln!(
            out,
            "  <property>\n    <name>{}</name>\n    <value>{}</value>\n  </property>",
            escape(&property.key),
            escape(property.value.as_deref().unwrap_or_default())
        );
    }
    out.push_str("</configuration>\n");
    out
}

#[cfg(test)]
mod tests {
    use tonic::Status;
    use yarn_proto::pb::{self, RaftMemberProto};

    use super::*;
    use crate::Error;
    use crate::rmadmin::ServiceState;

    #[test]
    fn a_refresh_names_the_replica_its_file_and_whether_it_committed() {
        let mut reply = RefreshQueuesResponseProto {
            queue_config_version: 4,
            rm_id: "rm2".to_owned(),
            file: "/etc/yarn-ha/capacity-scheduler.xml".to_owned(),
            committed: true,
            warnings: Vec::new(),
        };
        assert_eq!(
            refreshed_queues(&reply),
            "committed queue configuration version 4 from rm2's \
             /etc/yarn-ha/capacity-scheduler.xml\n"
        );
        reply.committed = false;
        assert_eq!(
            refreshed_queues(&reply),
            "rm2's /etc/yarn-ha/capacity-scheduler.xml holds queue configuration version 4, \
             already in force; nothing committed\n"
        );
        reply.warnings = vec!["yarn.scheduler.capacity.user-metrics.enable is not honoured".into()];
        assert!(refreshed_queues(&reply).ends_with(
            "nothing committed\nwarning: yarn.scheduler.capacity.user-metrics.enable is not \
                 honoured\n"
        ));
    }

    #[test]
    fn all_service_states_align_addresses_and_mark_replicas_without_a_state() {
        let failed = |status| {
            Err(Error::CallFailed {
                rm_id: "rm".to_owned(),
                address: "10.0.0.3:8033".to_owned(),
                attempts: 1,
                status: Box::new(status),
            })
        };
        let rows = vec![
            (
                "rm1.example.com:8033".to_owned(),
                ReplicaStatus::of(Ok(ServiceState::Active)),
            ),
            (
                "10.0.0.2:8033".to_owned(),
                ReplicaStatus::of(Ok(ServiceState::Standby)),
            ),
            (
                "10.0.0.3:8033".to_owned(),
                ReplicaStatus::of(failed(Status::deadline_exceeded("slow"))),
            ),
            (
                "10.0.0.4:8033".to_owned(),
                ReplicaStatus::of(failed(Status::permission_denied("not an admin"))),
            ),
            (
                "10.0.0.5:8033".to_owned(),
                ReplicaStatus::of(failed(Status::internal("bug"))),
            ),
        ];
        assert_eq!(
            all_service_states(&rows),
            "rm1.example.com:8033  active\n\
             10.0.0.2:8033         standby\n\
             10.0.0.3:8033         unreachable\n\
             10.0.0.4:8033         refused\n\
             10.0.0.5:8033         failed\n"
        );
        assert_eq!(all_service_states(&[]), "");
    }

    fn member(rm_id: &str, raft_address: &str, voter: bool) -> RaftMemberProto {
        RaftMemberProto {
            rm_id: rm_id.into(),
            raft_address: raft_address.into(),
            voter,
        }
    }

    #[test]
    fn membership_lists_members_in_order_and_marks_the_leader() {
        let membership = GetClusterMembershipResponseProto {
            members: vec![
                member("rm1", "10.0.0.1:8035", true),
                member("rm2", "rm2.example.com:8035", true),
                member("rm10", "10.0.0.10:8035", false),
            ],
            leader_rm_id: "rm2".into(),
            current_term: 7,
        };
        assert_eq!(
            cluster_membership(&membership),
            "term 7, leader rm2\n\
             rm1   10.0.0.1:8035         voter\n\
             rm2   rm2.example.com:8035  voter  leader\n\
             rm10  10.0.0.10:8035        learner\n"
        );
    }

    #[test]
    fn state_digest_names_the_replica_index_term_and_digest() {
        let reply = GetStateDigestResponseProto {
            rm_id: "rm1".into(),
            applied_index: 123,
            applied_term: 4,
            digest: "9f86d081884c7d65".into(),
        };
        assert_eq!(
            state_digest(&reply),
            "rm1 applied 123 (term 4) digest 9f86d081884c7d65\n"
        );
    }

    #[test]
    fn membership_without_a_leader_says_so() {
        let membership = GetClusterMembershipResponseProto {
            members: vec![member("rm1", "h:1", true)],
            leader_rm_id: String::new(),
            current_term: 3,
        };
        assert_eq!(
            cluster_membership(&membership),
            "term 3, leader unknown\nrm1  h:1  voter\n"
        );
    }

    #[test]
    fn scheduler_conf_prints_hadoops_configuration_xml() {
        let reply = GetSchedulerConfigurationResponseProto {
            properties: vec![pb::SchedConfParamProto {
                key: "yarn.scheduler.capacity.root.a.acl_submit_applications".to_owned(),
                value: Some("alice,bob <ops>".to_owned()),
            }],
            version: 3,
            kept_versions: vec![1, 2],
        };
        assert_eq!(
            scheduler_conf_versions(&reply),
            "queue configuration version 3 in force; kept: 1 2\n"
        );
        assert_eq!(
            scheduler_conf(&reply),
            "<configuration>\n  <property>\n    \
             <name>yarn.scheduler.capacity.root.a.acl_submit_applications</name>\n    \
             <value>alice,bob &lt;ops&gt;</value>\n  </property>\n</configuration>\n"
        );
    }
}
