//! [`ApplicationAccess`]: who may view or modify one application, as YARN's
//! `ApplicationACLsManager` decides.

use std::fmt;

use prost::Message;
use yarn_proto::pb;
use yarn_scheduler::AccessControlList;

use super::CallerRights;
use crate::state_machine::ApplicationRecord;

/// A right on one application, YARN's `ApplicationAccessType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApplicationAccessType {
    /// `VIEW_APP`: the application's full report (AM address, tracking URL, diagnostics,
    /// resource usage), its attempts and its containers.
    ViewApp,
    /// `MODIFY_APP`: killing it, moving it, changing its priority, failing its attempt.
    ModifyApp,
}

impl ApplicationAccessType {
    fn proto(self) -> pb::ApplicationAccessTypeProto {
        match self {
            Self::ViewApp => pb::ApplicationAccessTypeProto::AppaccessViewApp,
            Self::ModifyApp => pb::ApplicationAccessTypeProto::AppaccessModifyApp,
        }
    }
}

impl fmt::Display for ApplicationAccessType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::ViewApp => "VIEW_APP",
            Self::ModifyApp => "MODIFY_APP",
        })
    }
}

/// What YARN consults to decide access to one application: its owner, its queue and the
/// application ACLs of its AM launch context.
///
/// Pure: the caller reads the record and gathers the [`CallerRights`] to decide with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApplicationAccess {
    owner: String,
    queue: String,
    /// The launch context's VIEW_APP list; `None` when the submission gave none, which in
    /// YARN allows nobody beyond the owner and the administrators.
    view_acl: Option<String>,
    /// The launch context's MODIFY_APP list, with the same meaning of `None`.
    modify_acl: Option<String>,
}

impl ApplicationAccess {
    /// The access rules of `application`. A submission context that does not decode grants
    /// nothing beyond the owner and the administrators.
    pub fn of(application: &ApplicationRecord) -> Self {
        let context = pb::ApplicationSubmissionContextProto::decode(
            application.submission_context.as_slice(),
        )
        .unwrap_or_default();
        let acl = |access: ApplicationAccessType| {
            context
                .am_container_spec
                .iter()
                .flat_map(|spec| &spec.application_acls)
                .find(|entry| entry.access_type() == access.proto())
                .map(|entry| entry.acl.clone().unwrap_or_default())
        };
        Self {
            owner: application.user.clone(),
            queue: application.queue.clone(),
            view_acl: acl(ApplicationAccessType::ViewApp),
            modify_acl: acl(ApplicationAccessType::ModifyApp),
        }
    }

    /// The application's queue.
    pub fn queue(&self) -> &str {
        &self.queue
    }

    /// YARN's check of `caller` holding `access` on the application: its owner, a cluster
    /// administrator (everyone when `yarn.acl.enable` is false), an administrator of its queue,
    /// or a user or group its list for `access` names. Queue rights the caller's
    /// [`CallerRights`] were not gathered with count as not held.
    pub fn allows(&self, access: ApplicationAccessType, caller: &CallerRights) -> bool {
        let acl = match access {
            ApplicationAccessType::ViewApp => &self.view_acl,
            ApplicationAccessType::ModifyApp => &self.modify_acl,
        };
        caller.user() == self.owner
            || caller.administers_cluster()
            || caller.administers_queue(&self.queue)
            || acl.as_deref().is_some_and(|acl| {
                AccessControlList::parse(acl).is_allowed(caller.user(), caller.groups())
            })
    }

    /// YARN's MODIFY_APP check of `caller` performing `operation` on `application` (kill, move,
    /// priority change, attempt failure), as [`allows`](Self::allows) decides it.
    ///
    /// # Errors
    ///
    /// The refusal, naming the user, the operation, the application, its owner and queue.
    pub fn check_modify(
        &self,
        caller: &CallerRights,
        operation: &str,
        application: &str,
    ) -> Result<(), String> {
        if self.allows(ApplicationAccessType::ModifyApp, caller) {
            return Ok(());
        }
        Err(format!(
            "User {user} cannot perform operation {operation} on {application}: it belongs to \
             {owner}, its MODIFY_APP list does not name {user}, and {user} administers neither \
             the cluster nor queue {queue}",
            user = caller.user(),
            owner = self.owner,
            queue = self.queue,
        ))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use yarn_scheduler::{CapacityScheduler, CapacitySchedulerConfiguration, SchedulerSettings};

    use super::*;

    fn scheduler(acl_enable: bool) -> CapacityScheduler {
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
            acl_enable,
            admin_acl: AccessControlList::parse("root admins"),
            ..SchedulerSettings::default()
        };
        CapacityScheduler::new(
            CapacitySchedulerConfiguration::new(properties, settings).expect("valid"),
        )
    }

    /// `user`'s rights in `groups`, its queue rights included.
    fn rights(scheduler: &CapacityScheduler, user: &str, groups: &[&str]) -> CallerRights {
        let groups = groups.iter().map(|name| name.to_string()).collect();
        CallerRights::new(user, groups, scheduler.configuration().settings())
            .with_queue_rights(scheduler)
    }

    /// alice's application in `root.a`, with the given application ACLs.
    fn record(acls: &[(pb::ApplicationAccessTypeProto, &str)]) -> ApplicationRecord {
        let context = pb::ApplicationSubmissionContextProto {
            am_container_spec: Some(pb::ContainerLaunchContextProto {
                application_acls: acls
                    .iter()
                    .map(|(access_type, acl)| pb::ApplicationAclMapProto {
                        access_type: (*access_type).into(),
                        acl: Some((*acl).to_owned()),
                    })
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

    const VIEW: pb::ApplicationAccessTypeProto = pb::ApplicationAccessTypeProto::AppaccessViewApp;
    const MODIFY: pb::ApplicationAccessTypeProto =
        pb::ApplicationAccessTypeProto::AppaccessModifyApp;

    #[test]
    fn owner_administrators_and_the_modify_list_pass_and_others_are_refused() {
        let scheduler = scheduler(true);
        let plain = ApplicationAccess::of(&record(&[]));
        for user in ["alice", "root", "qadmin"] {
            let caller = rights(&scheduler, user, &[]);
            assert_eq!(plain.check_modify(&caller, "MODIFY_APP", "app_1"), Ok(()));
            assert!(
                plain.allows(ApplicationAccessType::ViewApp, &caller),
                "{user}"
            );
        }
        let mallory = rights(&scheduler, "mallory", &["staff"]);
        let refusal = plain
            .check_modify(&mallory, "MOVE_APPLICATION_ACROSS_QUEUES", "app_1")
            .unwrap_err();
        assert!(
            refusal.contains(
                "User mallory cannot perform operation MOVE_APPLICATION_ACROSS_QUEUES on app_1"
            ),
            "{refusal}"
        );
        assert!(refusal.contains("root.a"), "{refusal}");
        assert!(!plain.allows(ApplicationAccessType::ViewApp, &mallory));

        let shared = ApplicationAccess::of(&record(&[(MODIFY, "bob,carol reviewers")]));
        let carol = rights(&scheduler, "carol", &[]);
        assert_eq!(shared.check_modify(&carol, "MODIFY_APP", "app_1"), Ok(()));
        assert!(
            shared
                .check_modify(&mallory, "MODIFY_APP", "app_1")
                .is_err()
        );
    }

    #[test]
    fn groups_named_by_the_admin_queue_or_application_lists_pass() {
        let scheduler = scheduler(true);
        let shared = ApplicationAccess::of(&record(&[
            (VIEW, "bob reviewers"),
            (MODIFY, "bob reviewers"),
        ]));
        for group in ["admins", "qops", "reviewers"] {
            let member = rights(&scheduler, "mallory", &["staff", group]);
            assert_eq!(
                shared.check_modify(&member, "MODIFY_APP", "app_1"),
                Ok(()),
                "a member of {group}"
            );
            assert!(
                shared.allows(ApplicationAccessType::ViewApp, &member),
                "a member of {group}"
            );
        }
    }

    /// As in YARN, each list grants its own right only: MODIFY_APP does not imply VIEW_APP.
    #[test]
    fn the_view_list_grants_viewing_only_and_the_modify_list_modifying_only() {
        let scheduler = scheduler(true);
        let access = ApplicationAccess::of(&record(&[(VIEW, "viewer"), (MODIFY, "operator")]));
        let viewer = rights(&scheduler, "viewer", &[]);
        let operator = rights(&scheduler, "operator", &[]);
        assert!(access.allows(ApplicationAccessType::ViewApp, &viewer));
        assert!(!access.allows(ApplicationAccessType::ModifyApp, &viewer));
        assert!(access.allows(ApplicationAccessType::ModifyApp, &operator));
        assert!(!access.allows(ApplicationAccessType::ViewApp, &operator));
    }

    #[test]
    fn queue_rights_count_only_once_gathered() {
        let scheduler = scheduler(true);
        let access = ApplicationAccess::of(&record(&[]));
        let settings = scheduler.configuration().settings();
        let without_queues = CallerRights::new("qadmin", Vec::new(), settings);
        assert!(!access.allows(ApplicationAccessType::ViewApp, &without_queues));
        let with_queues = without_queues.with_queue_rights(&scheduler);
        assert!(access.allows(ApplicationAccessType::ViewApp, &with_queues));
    }

    #[test]
    fn with_acls_disabled_everyone_may_view_and_modify() {
        let scheduler = scheduler(false);
        let access = ApplicationAccess::of(&record(&[]));
        let settings = scheduler.configuration().settings();
        let stranger = CallerRights::new("mallory", Vec::new(), settings);
        assert!(access.allows(ApplicationAccessType::ViewApp, &stranger));
        assert!(access.allows(ApplicationAccessType::ModifyApp, &stranger));
    }
}
