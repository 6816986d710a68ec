//! [`CallerRights`]: what one caller brings to YARN's application access checks.

use std::collections::BTreeSet;

use yarn_scheduler::{CapacityScheduler, QueueAcl, SchedulerSettings};

/// The rights of one caller that decide its access to applications, gathered once per request
/// so that deciding any number of applications needs neither a group lookup nor the scheduler:
/// its name and groups, whether it administers the cluster, and which queues it administers.
///
/// Pure. Queue rights are gathered separately, with
/// [`with_queue_rights`](Self::with_queue_rights), because they need the leader's scheduler:
/// a request asks for them only when the other rights do not decide, and until then the caller
/// administers no queue, so a check without them can only refuse more, never grant more.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallerRights {
    user: String,
    groups: Vec<String>,
    /// `yarn.admin.acl` names the caller or one of its groups, or `yarn.acl.enable` is false,
    /// which makes every caller an administrator.
    cluster_admin: bool,
    /// Every name under which the caller administers a queue (its `acl_administer_queue`, or
    /// an ancestor's, names the caller): full paths, and the leaf names that resolve to one
    /// queue, because an application not admitted yet records its queue as it was submitted.
    administered_queues: BTreeSet<String>,
}

impl CallerRights {
    /// `user`'s rights outside any queue: its name, its `groups`, and whether `settings`
    /// (`yarn.acl.enable`, `yarn.admin.acl`) make it a cluster administrator.
    pub fn new(user: &str, groups: Vec<String>, settings: &SchedulerSettings) -> Self {
        Self {
            cluster_admin: settings.is_admin(user, &groups),
            user: user.to_owned(),
            groups,
            administered_queues: BTreeSet::new(),
        }
    }

    /// These rights with every queue of `scheduler` the caller administers.
    pub fn with_queue_rights(mut self, scheduler: &CapacityScheduler) -> Self {
        let queues = scheduler.configuration().queues();
        for queue in queues {
            for name in [&queue.path, &queue.name] {
                let administers = scheduler
                    .check_access(name, QueueAcl::AdministerQueue, &self.user, &self.groups)
                    .is_ok();
                if administers {
                    self.administered_queues.insert(name.clone());
                }
            }
        }
        self
    }

    /// The caller's user name.
    pub fn user(&self) -> &str {
        &self.user
    }

    /// The caller's groups.
    pub fn groups(&self) -> &[String] {
        &self.groups
    }

    /// Whether the caller administers the cluster.
    pub fn administers_cluster(&self) -> bool {
        self.cluster_admin
    }

    /// Whether the caller administers `queue` (a path or a leaf name), as far as the queue
    /// rights gathered say.
    pub fn administers_queue(&self, queue: &str) -> bool {
        self.administered_queues.contains(queue)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use yarn_scheduler::{AccessControlList, CapacitySchedulerConfiguration};

    use super::*;

    /// `root.a.a1` administered by `qadmin` through `root.a`, and `root.b.a1`, whose leaf name
    /// is then ambiguous.
    fn scheduler() -> CapacityScheduler {
        let properties: BTreeMap<String, String> = [
            ("root.queues", "a,b"),
            ("root.acl_administer_queue", " "),
            ("root.a.capacity", "50"),
            ("root.a.queues", "a1,a2"),
            ("root.a.acl_administer_queue", "qadmin"),
            ("root.a.a1.capacity", "50"),
            ("root.a.a2.capacity", "50"),
            ("root.b.capacity", "50"),
            ("root.b.queues", "a1"),
            ("root.b.a1.capacity", "100"),
        ]
        .into_iter()
        .map(|(key, value)| (format!("yarn.scheduler.capacity.{key}"), value.to_owned()))
        .collect();
        let settings = SchedulerSettings {
            acl_enable: true,
            admin_acl: AccessControlList::parse("root"),
            ..SchedulerSettings::default()
        };
        CapacityScheduler::new(
            CapacitySchedulerConfiguration::new(properties, settings).expect("valid"),
        )
    }

    #[test]
    fn a_queue_administrator_administers_the_queue_and_its_descendants_by_path_and_unique_name() {
        let scheduler = scheduler();
        let settings = scheduler.configuration().settings();
        let qadmin =
            CallerRights::new("qadmin", Vec::new(), settings).with_queue_rights(&scheduler);
        assert!(!qadmin.administers_cluster());
        for queue in ["root.a", "a", "root.a.a1", "root.a.a2", "a2"] {
            assert!(qadmin.administers_queue(queue), "{queue}");
        }
        // `a1` names root.a.a1 and root.b.a1: it resolves to no queue, so it grants nothing.
        for queue in ["root", "root.b", "b", "root.b.a1", "a1", "nowhere"] {
            assert!(!qadmin.administers_queue(queue), "{queue}");
        }
    }

    #[test]
    fn the_cluster_administrator_is_known_without_the_scheduler() {
        let scheduler = scheduler();
        let settings = scheduler.configuration().settings();
        let root = CallerRights::new("root", Vec::new(), settings);
        assert!(root.administers_cluster());
        assert!(
            !root.administers_queue("root.a"),
            "queue rights not gathered yet"
        );
        let stranger = CallerRights::new("mallory", vec!["staff".to_owned()], settings);
        assert!(!stranger.administers_cluster());
        assert_eq!(stranger.groups(), ["staff"]);
    }
}
