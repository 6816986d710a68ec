//! [`QueueProperty`]: the per-queue keys of `capacity-scheduler.xml` the scheduler reads, and
//! [`configured_queue`], which tells which queue a key configures.

use yarn_conf::{Verdict, unhonoured};

use crate::auto_created_queues::is_auto_creation_key;
use crate::capacity_scheduler_configuration::{LEGACY_QUEUE_MODE_KEY, ROOT};
use crate::heartbeat_assignments::HEARTBEAT_ASSIGNMENT_KEYS;
use crate::locality_delay::LOCALITY_DELAY_KEYS;
use crate::managed_parent_queues::is_managed_parent_key;
use crate::placement_rules::{
    MAPPING_RULE_FORMAT_KEY, MAPPING_RULE_JSON_FILE_KEY, MAPPING_RULE_JSON_KEY, QUEUE_MAPPINGS_KEY,
    QUEUE_MAPPINGS_OVERRIDE_KEY,
};
use crate::property_reader::PREFIX;
use crate::queue_acl::QueueAcl;
use crate::queue_node_labels::{
    ACCESSIBLE_NODE_LABELS, DEFAULT_NODE_LABEL_EXPRESSION, label_capacity_queue,
};
use crate::reservation::ReservationProperty;
use crate::resource_calculator::RESOURCE_CALCULATOR_KEY;

/// What stands between the queue path and the user in `<queue-path>.user-settings.<user>.weight`.
const USER_SETTINGS_INFIX: &str = ".user-settings.";
/// What ends a user weight key, after the user.
pub(crate) const USER_WEIGHT_SUFFIX: &str = ".weight";
/// The global default of every user's application limit, after the prefix.
pub(crate) const USER_MAX_PARALLEL_APPS: &str = "user.max-parallel-apps";
/// What ends a user's own application limit, after the user.
pub(crate) const USER_MAX_PARALLEL_APPS_SUFFIX: &str = ".max-parallel-apps";
/// What precedes the user in a user's own application limit, after the prefix: Hadoop's
/// documentation names `user.<user>.max-parallel-apps` and its code reads
/// `user-settings.<user>.max-parallel-apps`.
pub(crate) const USER_LIMIT_PREFIXES: [&str; 2] = ["user.", "user-settings."];

/// Path components under which Hadoop nests further keys of a queue (node-label capacities,
/// templates of auto-created queues, user settings). Such keys end in the same suffixes as a
/// queue's own (`...accessible-node-labels.gpu.capacity`) but configure no queue of their own:
/// the label capacities are recognised apart ([`label_capacity_queue`]), and the rest, which
/// the scheduler does not read, `yarn_conf::unhonoured` judges.
const NESTED: [&str; 4] = [
    "accessible-node-labels",
    "leaf-queue-template",
    "auto-queue-creation-v2",
    "user-settings",
];

/// A property the scheduler reads for each queue, as
/// `yarn.scheduler.capacity.<queue-path>.<suffix>`.
///
/// Every per-queue read goes through [`key`](Self::key), so [`ALL`](Self::ALL) is exactly the set
/// of suffixes (besides `user-settings.<user>.weight`) that mark a key as configuring a queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum QueueProperty {
    Queues,
    Capacity,
    MaximumCapacity,
    State,
    Acl(QueueAcl),
    MinimumUserLimitPercent,
    UserLimitFactor,
    MaximumApplications,
    MaxParallelApps,
    MaximumAmResourcePercent,
    MaximumAllocationMb,
    MaximumAllocationVcores,
    DefaultApplicationPriority,
    MaximumApplicationLifetime,
    DefaultApplicationLifetime,
    DisablePreemption,
    IntraQueueDisablePreemption,
    OrderingPolicy,
    FairSizeBasedWeight,
    Priority,
    AccessibleNodeLabels,
    DefaultNodeLabelExpression,
    Reservation(ReservationProperty),
}

impl QueueProperty {
    /// Every property, each once.
    pub(crate) const ALL: [Self; 33] = [
        Self::Queues,
        Self::Capacity,
        Self::MaximumCapacity,
        Self::State,
        Self::Acl(QueueAcl::SubmitApplications),
        Self::Acl(QueueAcl::AdministerQueue),
        Self::MinimumUserLimitPercent,
        Self::UserLimitFactor,
        Self::MaximumApplications,
        Self::MaxParallelApps,
        Self::MaximumAmResourcePercent,
        Self::MaximumAllocationMb,
        Self::MaximumAllocationVcores,
        Self::DefaultApplicationPriority,
        Self::MaximumApplicationLifetime,
        Self::DefaultApplicationLifetime,
        Self::DisablePreemption,
        Self::IntraQueueDisablePreemption,
        Self::OrderingPolicy,
        Self::FairSizeBasedWeight,
        Self::Priority,
        Self::AccessibleNodeLabels,
        Self::DefaultNodeLabelExpression,
        Self::Reservation(ReservationProperty::Reservable),
        Self::Reservation(ReservationProperty::Agent),
        Self::Reservation(ReservationProperty::Planner),
        Self::Reservation(ReservationProperty::Policy),
        Self::Reservation(ReservationProperty::Window),
        Self::Reservation(ReservationProperty::AverageCapacity),
        Self::Reservation(ReservationProperty::InstantaneousMaxCapacity),
        Self::Reservation(ReservationProperty::EnforcementWindow),
        Self::Reservation(ReservationProperty::ShowReservationsAsQueues),
        Self::Reservation(ReservationProperty::MoveOnExpiry),
    ];

    /// What follows the queue path in the key: its last component, or its last two or three for
    /// `intra-queue-preemption.disable_preemption` and
    /// `ordering-policy.fair.enable-size-based-weight`.
    pub(crate) const fn suffix(self) -> &'static str {
        match self {
            Self::Queues => "queues",
            Self::Capacity => "capacity",
            Self::MaximumCapacity => "maximum-capacity",
            Self::State => "state",
            Self::Acl(acl) => acl.key_suffix(),
            Self::MinimumUserLimitPercent => "minimum-user-limit-percent",
            Self::UserLimitFactor => "user-limit-factor",
            Self::MaximumApplications => "maximum-applications",
            Self::MaxParallelApps => "max-parallel-apps",
            Self::MaximumAmResourcePercent => "maximum-am-resource-percent",
            Self::MaximumAllocationMb => "maximum-allocation-mb",
            Self::MaximumAllocationVcores => "maximum-allocation-vcores",
            Self::DefaultApplicationPriority => "default-application-priority",
            Self::MaximumApplicationLifetime => "maximum-application-lifetime",
            Self::DefaultApplicationLifetime => "default-application-lifetime",
            Self::DisablePreemption => "disable_preemption",
            Self::IntraQueueDisablePreemption => "intra-queue-preemption.disable_preemption",
            Self::OrderingPolicy => "ordering-policy",
            Self::FairSizeBasedWeight => "ordering-policy.fair.enable-size-based-weight",
            Self::Priority => "priority",
            Self::AccessibleNodeLabels => ACCESSIBLE_NODE_LABELS,
            Self::DefaultNodeLabelExpression => DEFAULT_NODE_LABEL_EXPRESSION,
            Self::Reservation(property) => property.suffix(),
        }
    }

    /// The key of this property for the queue at `path`.
    pub(crate) fn key(self, path: &str) -> String {
        format!("{PREFIX}{path}.{}", self.suffix())
    }

    /// The cluster-wide key that serves as the default for every queue without its own value
    /// (meaningful for the limits that have one, such as `user-limit-factor`).
    pub(crate) fn global_key(self) -> String {
        format!("{PREFIX}{}", self.suffix())
    }
}

/// The prefix of the `user-settings.<user>.weight` keys of the queue at `path`; the user and
/// [`USER_WEIGHT_SUFFIX`] follow it.
pub(crate) fn user_settings_prefix(path: &str) -> String {
    format!("{PREFIX}{path}{USER_SETTINGS_INFIX}")
}

/// The queue path that `key` configures, when `key` is a per-queue key the scheduler reads
/// (`yarn.scheduler.capacity.root[.<queue>...].<suffix>` with a suffix of
/// [`QueueProperty::ALL`], `...<queue-path>.user-settings.<user>.weight`, or
/// `...<queue-path>.accessible-node-labels.<label>.capacity` / `.maximum-capacity`); `None` for
/// global keys (`yarn.scheduler.capacity.maximum-applications`, `...user.max-parallel-apps`),
/// keys whose path does not start at `root`, keys nested under a queue's templates and keys the
/// scheduler does not read. The path is not checked against any hierarchy.
pub(crate) fn configured_queue(key: &str) -> Option<&str> {
    let rest = key.strip_prefix(PREFIX)?;
    let rooted = |path: &str| {
        let mut components = path.split('.');
        components.next() == Some(ROOT) && !components.any(|c| NESTED.contains(&c))
    };
    if let Some(path) = label_capacity_queue(rest) {
        return rooted(path).then_some(path);
    }
    // The longest suffix wins: `...intra-queue-preemption.disable_preemption` also ends in
    // `disable_preemption`.
    let property_path = QueueProperty::ALL
        .iter()
        .filter_map(|p| rest.strip_suffix(p.suffix())?.strip_suffix('.'))
        .min_by_key(|path| path.len());
    let path = if let Some(path) = property_path {
        path
    } else {
        let (path, user) = rest
            .strip_suffix(USER_WEIGHT_SUFFIX)?
            .rsplit_once(USER_SETTINGS_INFIX)?;
        if user.is_empty() {
            return None;
        }
        path
    };
    rooted(path).then_some(path)
}

/// The properties whose [`global_key`](QueueProperty::global_key) the scheduler reads as the
/// default of every queue.
const GLOBAL_DEFAULTS: [QueueProperty; 5] = [
    QueueProperty::MaximumApplications,
    QueueProperty::MaximumAmResourcePercent,
    QueueProperty::MaxParallelApps,
    QueueProperty::MinimumUserLimitPercent,
    QueueProperty::UserLimitFactor,
];

/// The verdict on `key = value` in `capacity-scheduler.xml`: honoured when the scheduler reads
/// the key ([`is_read`]), a warning for a `yarn-site.xml` key, otherwise as
/// `yarn_conf::unhonoured` judges it.
pub fn key_verdict(key: &str, value: &str) -> Verdict {
    if is_read(key) {
        Verdict::Honoured
    } else if unhonoured::find(key).is_none() && yarn_conf::keys::find(key).is_some() {
        // A `yarn-site.xml` key of the scheduler's prefix, such as the queue auto-refresh's
        // interval, which Hadoop would also read here.
        Verdict::Warned(format!(
            "{key} is read from yarn-site.xml, not capacity-scheduler.xml, and is ignored here"
        ))
    } else {
        unhonoured::judge_unread(key, value)
    }
}

/// Whether the scheduler reads `key`: a per-queue key ([`configured_queue`]), a global default
/// of a queue property, the resource calculator, or a user's application limit
/// (`user.max-parallel-apps`, `user.<user>.max-parallel-apps`,
/// `user-settings.<user>.max-parallel-apps`).
fn is_read(key: &str) -> bool {
    if configured_queue(key).is_some()
        || key == RESOURCE_CALCULATOR_KEY
        || key == LEGACY_QUEUE_MODE_KEY
        || LOCALITY_DELAY_KEYS.contains(&key)
        || HEARTBEAT_ASSIGNMENT_KEYS.contains(&key)
        || [
            QUEUE_MAPPINGS_KEY,
            QUEUE_MAPPINGS_OVERRIDE_KEY,
            MAPPING_RULE_FORMAT_KEY,
            MAPPING_RULE_JSON_KEY,
            MAPPING_RULE_JSON_FILE_KEY,
        ]
        .contains(&key)
    {
        return true;
    }
    let Some(rest) = key.strip_prefix(PREFIX) else {
        return false;
    };
    if is_auto_creation_key(rest, is_read) || is_managed_parent_key(rest, is_read) {
        return true;
    }
    if rest == USER_MAX_PARALLEL_APPS || GLOBAL_DEFAULTS.iter().any(|p| p.suffix() == rest) {
        return true;
    }
    USER_LIMIT_PREFIXES.iter().any(|prefix| {
        rest.strip_prefix(prefix)
            .and_then(|user| user.strip_suffix(USER_MAX_PARALLEL_APPS_SUFFIX))
            .is_some_and(|user| !user.is_empty())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full(rest: &str) -> String {
        format!("{PREFIX}{rest}")
    }

    #[test]
    fn every_property_key_names_its_queue() {
        for property in QueueProperty::ALL {
            let key = property.key("root.a.b");
            assert_eq!(configured_queue(&key), Some("root.a.b"), "{key}");
        }
        assert_eq!(
            configured_queue(&full("root.a.user-settings.alice.weight")),
            Some("root.a")
        );
        assert_eq!(configured_queue(&full("root.queues")), Some("root"));
        assert_eq!(
            configured_queue(&full("root.a.accessible-node-labels.gpu.capacity")),
            Some("root.a")
        );
        assert_eq!(
            configured_queue(&full("root.accessible-node-labels.gpu.maximum-capacity")),
            Some("root")
        );
    }

    #[test]
    fn a_yarn_site_key_in_the_scheduler_file_is_warned_about_as_such() {
        let key = "yarn.scheduler.capacity.queue.auto.refresh.monitoring-interval";
        match key_verdict(key, "1000") {
            Verdict::Warned(warning) => {
                assert!(warning.contains("read from yarn-site.xml"), "{warning}");
            }
            other => panic!("expected a warning, got {other:?}"),
        }
    }

    #[test]
    fn global_nested_and_unread_keys_name_no_queue() {
        for rest in [
            "maximum-applications",
            "maximum-am-resource-percent",
            "resource-calculator",
            "user.max-parallel-apps",
            "user-settings.bob.max-parallel-apps",
            "user.bob.max-parallel-apps",
            "default.capacity",
            "root.a.accessible-node-labels.gpu.weight",
            "root.a.leaf-queue-template.accessible-node-labels.gpu.capacity",
            "root.a.leaf-queue-template.capacity",
            "root.a.auto-queue-creation-v2.template.maximum-applications",
            "root.a.user-settings.alice.max-parallel-apps",
            "root.a.acl_application_max_priority",
        ] {
            assert_eq!(configured_queue(&full(rest)), None, "{rest}");
        }
        assert_eq!(configured_queue("yarn.acl.enable"), None);
    }

    #[test]
    fn the_keys_read_are_the_queue_keys_and_the_global_defaults() {
        for rest in [
            "root.a.capacity",
            "root.a.user-settings.alice.weight",
            "resource-calculator",
            "legacy-queue-mode.enabled",
            "node-locality-delay",
            "rack-locality-additional-delay",
            "rack-locality-full-reset",
            "maximum-applications",
            "maximum-am-resource-percent",
            "max-parallel-apps",
            "minimum-user-limit-percent",
            "user-limit-factor",
            "user.max-parallel-apps",
            "user.bob.max-parallel-apps",
            "user-settings.carol.max-parallel-apps",
            "user.first.last.max-parallel-apps",
            "root.a.user-settings.first.last.weight",
            "root.a.accessible-node-labels",
            "root.a.accessible-node-labels.gpu.capacity",
            "root.a.default-node-label-expression",
            "mapping-rule-json",
            "mapping-rule-format",
            "root.a.auto-queue-creation-v2.enabled",
            "root.a.auto-queue-creation-v2.template.maximum-applications",
            "root.*.auto-queue-creation-v2.leaf-template.accessible-node-labels.gpu.capacity",
            "root.a.auto-create-child-queue.enabled",
            "root.a.auto-create-child-queue.management-policy",
            "root.a.leaf-queue-template.accessible-node-labels.gpu.capacity",
            "root.a.leaf-queue-template.ordering-policy",
        ] {
            assert!(is_read(&full(rest)), "{rest}");
        }
        for rest in [
            "root.a.ordering-policy.priority-utilization.underutilized-preemption.enabled",
            "root.a.leaf-queue-template.no-such-property",
            "root.a.leaf-queue-template.queues",
            "root.a.auto-create-child-queue.other",
            "capacity",
            "state",
        ] {
            assert!(!is_read(&full(rest)), "{rest}");
        }
        assert!(!is_read("yarn.acl.enable"));
    }
}
