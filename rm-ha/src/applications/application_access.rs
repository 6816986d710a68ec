//! [`ApplicationAccess`]: who may view or modify one application, as YARN's
//! `ApplicationACLsManager` decides.

use prost::Message;
use yarn_proto::pb;
use yarn_scheduler::{AccessControlList, CapacityScheduler, QueueAcl};

use crate::state_machine::ApplicationRecord;

/// What YARN consults to decide access to one application: its owner, its queue and the
/// application ACLs of its AM launch context.
///
/// Pure: the caller reads the record and holds the scheduler whose queue ACLs apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApplicationAccess {
    owner: String,
    queue: String,
    /// The launch context's MODIFY_APP list; `None` when the submission gave none, which in
    /// YARN allows nobody beyond the owner and the administrators.
    modify_acl: Option<String>,
}

impl ApplicationAccess {
    /// The access rules of `application`.
    pub fn of(application: &ApplicationRecord) -> Self {
        let context = pb::ApplicationSubmissionContextProto::decode(
            application.submission_context.as_slice(),
        )
        .unwrap_or_default();
        let modify_acl = context
            .am_container_spec
            .iter()
            .flat_map(|spec| &spec.application_acls)
            .find(|entry| entry.access_type() == pb::ApplicationAccessTypeProto::AppaccessModifyApp)
            .map(|entry| entry.acl.clone().unwrap_or_default());
        Self {
            owner: application.user.clone(),
            queue: application.queue.clone(),
            modify_acl,
        }
    }

    /// The application's queue.
    pub fn queue(&self) -> &str {
        &self.queue
    }

    /// YARN's MODIFY_APP check for `user` performing `operation` on `application` (kill, move,
    /// priority change, attempt failure): the owner, a cluster administrator, an administrator
    /// of the application's queue, or a user its MODIFY_APP list names. With `yarn.acl.enable`
    /// false everyone passes.
    ///
    /// # Errors
    ///
    /// The refusal, naming the user, the operation, the application, its owner and queue.
    pub fn check_modify(
        &self,
        user: &str,
        groups: &[String],
        operation: &str,
        application: &str,
        scheduler: &CapacityScheduler,
    ) -> Result<(), String> {
        let settings = scheduler.configuration().settings();
        let allowed = user == self.owner
            || settings.is_admin(user, groups)
            || scheduler
                .check_access(&self.queue, QueueAcl::AdministerQueue, user, groups)
                .is_ok()
            || self
                .modify_acl
                .as_deref()
                .is_some_and(|acl| AccessControlList::parse(acl).is_allowed(user, groups));
        if allowed {
            return Ok(());
        }
        Err(format!(
            "User {user} cannot perform operation {operation} on {application}: it belongs to \
             {owner}, its MODIFY_APP list does not name {user}, and {user} administers neither \
             the cluster nor queue {queue}",
            owner = self.owner,
            queue = self.queue,
        ))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use yarn_scheduler::{CapacitySchedulerConfiguration, SchedulerSettings};

    use super::*;

    fn scheduler() -> CapacityScheduler {
        let properties: BTreeMap<String, String> = [
            ("yarn.scheduler.capacity.root.queues", "a"),
            ("yarn.scheduler.capacity.root.a.capacity", "100"),
            ("yarn.scheduler.capacity.root.acl_administer_queue", " "),
            (
                "yarn.scheduler.capacity.root.a.acl_administer_queue",
                "qadmin qops",
            ),
        ]
        .into_iter()
        .map(|(key, value)| (key.to_owned(), value.to_owned()))
        .collect();
        let settings = SchedulerSettings {
            acl_enable: true,
            admin_acl: AccessControlList::parse("root admins"),
            ..SchedulerSettings::default()
        };
        CapacityScheduler::new(
            CapacitySchedulerConfiguration::new(properties, settings).expect("valid"),
        )
    }

    fn record(modify_acl: Option<&str>) -> ApplicationRecord {
        let context = pb::ApplicationSubmissionContextProto {
            am_container_spec: Some(pb::ContainerLaunchContextProto {
                application_acls: modify_acl
                    .map(|acl| pb::ApplicationAclMapProto {
                        access_type: pb::ApplicationAccessTypeProto::AppaccessModifyApp.into(),
                        acl: Some(acl.to_owned()),
                    })
                    .into_iter()
                    .collect(),
                ..Default::default()
            }),
            ..Default::default()
        };
        ApplicationRecord {
            user: "alice".to_owned(),
            queue: "root.a".to_owned(),
            submission_context: context.encode_to_vec(),
            ..ApplicationRecord::default()
        }
    }

    #[test]
    fn owner_administrators_and_the_modify_list_pass_and_others_are_refused() {
        let scheduler = scheduler();
        let plain = ApplicationAccess::of(&record(None));
        for user in ["alice", "root", "qadmin"] {
            assert_eq!(
                plain.check_modify(user, &[], "MODIFY_APP", "app_1", &scheduler),
                Ok(())
            );
        }
        let refusal = plain
            .check_modify(
                "mallory",
                &groups(&["staff"]),
                "MOVE_APPLICATION_ACROSS_QUEUES",
                "app_1",
                &scheduler,
            )
            .unwrap_err();
        assert!(
            refusal.contains(
                "User mallory cannot perform operation MOVE_APPLICATION_ACROSS_QUEUES on app_1"
            ),
            "{refusal}"
        );
        assert!(refusal.contains("root.a"), "{refusal}");

        let shared = ApplicationAccess::of(&record(Some("bob,carol reviewers")));
        assert_eq!(
            shared.check_modify("carol", &[], "MODIFY_APP", "app_1", &scheduler),
            Ok(())
        );
        assert!(
            shared
                .check_modify(
                    "mallory",
                    &groups(&["staff"]),
                    "MODIFY_APP",
                    "app_1",
                    &scheduler
                )
                .is_err()
        );
    }

    #[test]
    fn groups_named_by_the_admin_queue_or_modify_lists_pass() {
        let scheduler = scheduler();
        let shared = ApplicationAccess::of(&record(Some("bob reviewers")));
        for group in ["admins", "qops", "reviewers"] {
            assert_eq!(
                shared.check_modify(
                    "mallory",
                    &groups(&["staff", group]),
                    "MODIFY_APP",
                    "app_1",
                    &scheduler
                ),
                Ok(()),
                "a member of {group}"
            );
        }
    }

    fn groups(names: &[&str]) -> Vec<String> {
        names.iter().map(|name| name.to_string()).collect()
    }
}
