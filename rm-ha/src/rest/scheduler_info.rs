//! [`SchedulerResponse`]: `/ws/v1/cluster/scheduler`, the CapacityScheduler's queue tree as
//! Hadoop's `capacityScheduler` object.

use std::collections::BTreeMap;

use serde::Serialize;
use yarn_proto::Resource;
use yarn_scheduler::{CapacityEntry, QueueCapacity, QueueInfo, ResourceType, UserInfo};

use crate::scheduling::PreemptionReport;

/// `{"scheduler": {"schedulerInfo": {...}}}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct SchedulerResponse {
    scheduler: SchedulerWrapper,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
struct SchedulerWrapper {
    scheduler_info: RootInfo,
}

/// The root queue, as Hadoop's `schedulerInfo` of type `capacityScheduler`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
struct RootInfo {
    #[serde(rename = "type")]
    scheduler_type: &'static str,
    capacity: f64,
    used_capacity: f64,
    max_capacity: f64,
    queue_name: String,
    /// How root orders its children: `utilization` or `priority-utilization`.
    ordering_policy_info: &'static str,
    queues: QueueList,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
struct QueueList {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    queue: Vec<QueueEntry>,
}

/// A parent queue (with `queues`) or a leaf (with `type` and the leaf figures).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
struct QueueEntry {
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    queue_type: Option<&'static str>,
    capacity: f64,
    used_capacity: f64,
    max_capacity: f64,
    absolute_capacity: f64,
    absolute_max_capacity: f64,
    absolute_used_capacity: f64,
    num_applications: usize,
    used_resources: String,
    queue_name: String,
    queue_path: String,
    state: String,
    resources_used: ResourceInfo,
    /// Hadoop's capacity mode of the queue: `percentage`, `weight`, `absolute`, or `mixed` for
    /// a capacity vector.
    mode: &'static str,
    /// Hadoop's name of the queue's ordering policy: `fifo` or `fair` for a leaf,
    /// `utilization` or `priority-utilization` for a parent.
    ordering_policy_info: &'static str,
    /// The queue's `priority` among its siblings.
    queue_priority: i32,
    /// The configured weight; -1 when the capacity is not a weight.
    weight: f64,
    /// The weight over the weights of the queue and its siblings; 0 when not a weight.
    normalized_weight: f64,
    is_absolute_resource: bool,
    /// What the capacity and maximum capacity resolve to for the cluster as it is.
    min_effective_capacity: ResourceInfo,
    max_effective_capacity: ResourceInfo,
    queue_capacity_vector_info: CapacityVectorInfo,
    maximum_queue_capacity_vector_info: CapacityVectorInfo,
    /// Hadoop's: whether the queue's containers are never preempted (every queue's while the
    /// monitor is off).
    preemption_disabled: bool,
    /// Hadoop's: whether the queue never preempts among its own applications (every queue's
    /// while the monitor or intra-queue preemption is off).
    intra_queue_preemption_disabled: bool,
    /// yarn-ha's: what its containers chosen by preemption and not yet killed hold.
    resources_to_preempt: ResourceInfo,
    /// yarn-ha's: what its containers killed by preemption held, and how many they were.
    resources_preempted: ResourceInfo,
    num_containers_preempted: u64,
    /// Hadoop's: `static`, or `dynamicFlexible` for a queue a submission created.
    creation_method: &'static str,
    /// Hadoop's: `flexible` for a queue that creates queues under it, `off` otherwise.
    auto_creation_eligibility: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    queues: Option<QueueList>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    leaf: Option<LeafFigures>,
}

/// A capacity as configured, and its entry for each resource type.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
struct CapacityVectorInfo {
    /// The value as written (`40`, `3w`, `[memory=10240,vcores=12]`).
    configured_capacity_vector: String,
    capacity_vector_entries: Vec<CapacityVectorEntry>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
struct CapacityVectorEntry {
    /// Hadoop's resource names: `memory-mb`, `vcores`.
    resource_name: &'static str,
    /// `50%`, `2w` or an amount.
    resource_value: String,
}

impl From<QueueCapacity> for CapacityVectorInfo {
    fn from(capacity: QueueCapacity) -> Self {
        Self {
            configured_capacity_vector: capacity.to_string(),
            capacity_vector_entries: ResourceType::ALL
                .into_iter()
                .map(|resource| CapacityVectorEntry {
                    resource_name: match resource {
                        ResourceType::Memory => "memory-mb",
                        ResourceType::Vcores => "vcores",
                    },
                    resource_value: capacity.entry(resource).to_string(),
                })
                .collect(),
        }
    }
}

/// Hadoop's name for the mode of `capacity`: a vector whose entries share one mode is in that
/// mode, any other `mixed`.
fn mode(capacity: QueueCapacity) -> &'static str {
    let QueueCapacity::Vector { memory, vcores } = capacity else {
        return capacity.mode();
    };
    match (memory, vcores) {
        (CapacityEntry::Percentage(_), CapacityEntry::Percentage(_)) => "percentage",
        (CapacityEntry::Weight(_), CapacityEntry::Weight(_)) => "weight",
        (CapacityEntry::Absolute(_), CapacityEntry::Absolute(_)) => "absolute",
        _ => "mixed",
    }
}

/// `queue`'s weight over its own and its siblings' weights, as Hadoop normalizes them.
fn normalized_weight(queue: &QueueInfo, by_path: &BTreeMap<&str, &QueueInfo>) -> f64 {
    let Some(weight) = queue.configured_capacity.weight() else {
        return 0.0;
    };
    let parent = queue.queue_path.rsplit_once('.').map(|(parent, _)| parent);
    let siblings: f64 = parent
        .and_then(|parent| by_path.get(parent))
        .map(|parent| {
            parent
                .child_queues
                .iter()
                .filter_map(|name| by_path.get(format!("{}.{name}", parent.queue_path).as_str()))
                .filter_map(|sibling| sibling.configured_capacity.weight())
                .sum()
        })
        .unwrap_or(weight);
    if siblings > 0.0 {
        weight / siblings
    } else {
        0.0
    }
}

/// What only a leaf reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
struct LeafFigures {
    num_active_applications: usize,
    num_pending_applications: usize,
    max_applications: u32,
    max_applications_per_user: u32,
    user_limit: f64,
    user_limit_factor: f64,
    #[serde(rename = "AMResourceLimit")]
    am_resource_limit: ResourceInfo,
    #[serde(rename = "usedAMResource")]
    used_am_resource: ResourceInfo,
    users: UserList,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
struct UserList {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    user: Vec<UserEntry>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
struct UserEntry {
    username: String,
    resources_used: ResourceInfo,
    num_active_applications: usize,
    num_pending_applications: usize,
    #[serde(rename = "AMResourceUsed")]
    am_resource_used: ResourceInfo,
    user_resource_limit: ResourceInfo,
    user_weight: f64,
}

/// Hadoop's `resource` object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
struct ResourceInfo {
    memory: u64,
    #[serde(rename = "vCores")]
    v_cores: u32,
}

impl From<Resource> for ResourceInfo {
    fn from(resource: Resource) -> Self {
        Self {
            memory: resource.memory_mb,
            v_cores: resource.vcores,
        }
    }
}

impl SchedulerResponse {
    /// The tree of `queues`, every queue of the scheduler, found from `root` by their child
    /// names; children in the order their parent lists them; each with its `preemption`
    /// figures.
    pub(crate) fn of(queues: &[QueueInfo], preemption: PreemptionReport<'_>) -> Self {
        let by_path: BTreeMap<&str, &QueueInfo> = queues
            .iter()
            .map(|queue| (queue.queue_path.as_str(), queue))
            .collect();
        let root = by_path.get("root");
        Self {
            scheduler: SchedulerWrapper {
                scheduler_info: RootInfo {
                    scheduler_type: "capacityScheduler",
                    capacity: root.map_or(100.0, |root| root.capacity),
                    used_capacity: root.map_or(0.0, |root| root.used_capacity),
                    max_capacity: root.map_or(100.0, |root| root.maximum_capacity),
                    queue_name: "root".to_owned(),
                    ordering_policy_info: root
                        .map_or("utilization", |root| root.queue_ordering_policy.name()),
                    queues: QueueList {
                        queue: root
                            .map_or_else(Vec::new, |root| children(root, &by_path, preemption)),
                    },
                },
            },
        }
    }
}

/// The children of `parent`, none for a plan queue that hides its reservation queues.
fn children(
    parent: &QueueInfo,
    by_path: &BTreeMap<&str, &QueueInfo>,
    preemption: PreemptionReport<'_>,
) -> Vec<QueueEntry> {
    if !parent.shows_reservation_queues {
        return Vec::new();
    }
    parent
        .child_queues
        .iter()
        .filter_map(|name| by_path.get(format!("{}.{name}", parent.queue_path).as_str()))
        .map(|queue| entry(queue, by_path, preemption))
        .collect()
}

fn entry(
    queue: &QueueInfo,
    by_path: &BTreeMap<&str, &QueueInfo>,
    preemption: PreemptionReport<'_>,
) -> QueueEntry {
    let is_leaf = queue.is_leaf;
    let used = queue.resources_used;
    let figures = preemption.figures.of_queue(&queue.queue_path);
    QueueEntry {
        queue_type: is_leaf.then_some("capacitySchedulerLeafQueueInfo"),
        capacity: queue.capacity,
        used_capacity: queue.used_capacity,
        max_capacity: queue.maximum_capacity,
        absolute_capacity: queue.absolute_capacity,
        absolute_max_capacity: queue.absolute_maximum_capacity,
        absolute_used_capacity: queue.absolute_used_capacity,
        num_applications: queue.num_applications,
        used_resources: format!("<memory:{}, vCores:{}>", used.memory_mb, used.vcores),
        queue_name: queue.queue_name.clone(),
        queue_path: queue.queue_path.clone(),
        state: queue.state.to_string(),
        resources_used: used.into(),
        mode: mode(queue.configured_capacity),
        ordering_policy_info: if is_leaf {
            queue.ordering_policy.name()
        } else {
            queue.queue_ordering_policy.name()
        },
        queue_priority: queue.priority,
        weight: queue.configured_capacity.weight().unwrap_or(-1.0),
        normalized_weight: normalized_weight(queue, by_path),
        is_absolute_resource: matches!(queue.configured_capacity, QueueCapacity::Absolute(_)),
        min_effective_capacity: queue.guaranteed_resource.into(),
        max_effective_capacity: queue.maximum_resource.into(),
        queue_capacity_vector_info: queue.configured_capacity.into(),
        maximum_queue_capacity_vector_info: queue.configured_maximum_capacity.into(),
        preemption_disabled: preemption.disabled(queue),
        intra_queue_preemption_disabled: preemption.intra_queue_disabled(queue),
        resources_to_preempt: figures.to_preempt.into(),
        resources_preempted: figures.preempted.into(),
        num_containers_preempted: figures.preempted_containers,
        creation_method: queue.creation_method.as_str(),
        auto_creation_eligibility: queue.auto_creation_eligibility,
        queues: (!is_leaf).then(|| QueueList {
            queue: children(queue, by_path, preemption),
        }),
        leaf: is_leaf.then(|| LeafFigures {
            num_active_applications: queue.num_active_applications,
            num_pending_applications: queue.num_pending_applications,
            max_applications: queue.maximum_applications,
            max_applications_per_user: queue.maximum_applications_per_user,
            user_limit: queue.minimum_user_limit_percent,
            user_limit_factor: queue.user_limit_factor,
            am_resource_limit: queue.am_resource_limit.into(),
            used_am_resource: queue.am_resource_used.into(),
            users: UserList {
                user: queue.users.iter().map(user).collect(),
            },
        }),
    }
}

fn user(info: &UserInfo) -> UserEntry {
    UserEntry {
        username: info.user.clone(),
        resources_used: info.resources_used.into(),
        num_active_applications: info.num_active_applications,
        num_pending_applications: info.num_pending_applications,
        am_resource_used: info.am_resources_used.into(),
        user_resource_limit: info.user_limit.into(),
        user_weight: info.weight,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::applications::QueuePreemptions;
    use crate::scheduling::LeaderScheduler;
    use crate::scheduling::capacity_properties as properties;
    use crate::scheduling::test_fixtures::{nodes, source, state, submit};

    #[test]
    fn a_plan_queue_shows_its_reservation_queues_only_when_configured_to() {
        let report_of = |show: &str| {
            let state = state(properties(&[
                ("root.queues", "a,b"),
                ("root.a.capacity", "50"),
                ("root.a.reservable", "true"),
                ("root.a.show-reservations-as-queues", show),
                ("root.b.capacity", "50"),
            ]));
            let (leader, _) = LeaderScheduler::rebuild(&state, &source(), &nodes(2)).unwrap();
            let figures = QueuePreemptions::of(&state, true);
            let report = PreemptionReport {
                enabled: true,
                intra_queue_enabled: true,
                figures: &figures,
            };
            let infos = leader.scheduler().queue_infos();
            serde_json::to_value(SchedulerResponse::of(&infos, report)).unwrap()
        };
        let hidden = report_of("false");
        let a = &hidden["scheduler"]["schedulerInfo"]["queues"]["queue"][0];
        assert_eq!(a["queueName"], "a", "{a}");
        // A parent with an empty list, as JAXB writes one.
        assert_eq!(a["queues"], serde_json::json!({}), "{a}");
        let shown = report_of("true");
        let a = &shown["scheduler"]["schedulerInfo"]["queues"]["queue"][0];
        assert_eq!(
            a["queues"]["queue"][0]["queuePath"], "root.a.a-default",
            "{a}"
        );
    }

    #[test]
    fn the_queue_tree_in_hadoops_capacity_scheduler_shape() {
        let mut state = state(properties(&[
            ("root.queues", "a,b"),
            ("root.ordering-policy", "priority-utilization"),
            ("root.a.capacity", "60"),
            ("root.a.queues", "a1"),
            ("root.a.a1.capacity", "100"),
            ("root.b.capacity", "40"),
            ("root.b.priority", "7"),
        ]));
        submit(&mut state, "alice", "b", 1024);
        let (leader, _) = LeaderScheduler::rebuild(&state, &source(), &nodes(2)).unwrap();
        let figures = QueuePreemptions::of(&state, true);
        let report = |enabled| PreemptionReport {
            enabled,
            intra_queue_enabled: enabled,
            figures: &figures,
        };
        let infos = leader.scheduler().queue_infos();
        let body = serde_json::to_value(SchedulerResponse::of(&infos, report(true))).unwrap();
        let root = &body["scheduler"]["schedulerInfo"];
        assert_eq!(root["type"], "capacityScheduler", "{body}");
        assert_eq!(root["queueName"], "root", "{body}");
        let queues = root["queues"]["queue"].as_array().unwrap();
        let names: Vec<&str> = queues
            .iter()
            .map(|q| q["queueName"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["a", "b"], "{body}");
        assert_eq!(root["orderingPolicyInfo"], "priority-utilization", "{body}");
        let a = &queues[0];
        assert!(a.get("type").is_none(), "a parent has no leaf type: {a}");
        assert_eq!(a["orderingPolicyInfo"], "utilization", "{a}");
        assert_eq!(queues[1]["queuePriority"], 7, "{body}");
        assert_eq!(a["capacity"], 60.0, "{a}");
        let a1 = &a["queues"]["queue"][0];
        assert_eq!(a1["type"], "capacitySchedulerLeafQueueInfo", "{a1}");
        assert_eq!(a1["queuePath"], "root.a.a1", "{a1}");
        assert_eq!(a1["absoluteCapacity"], 60.0, "{a1}");
        let b = &queues[1];
        assert_eq!(b["type"], "capacitySchedulerLeafQueueInfo", "{b}");
        assert_eq!(b["numApplications"], 1, "{b}");
        assert_eq!(b["state"], "RUNNING", "{b}");
        assert!(
            b["usedResources"].as_str().unwrap().starts_with("<memory:"),
            "{b}"
        );
        for field in [
            "maxApplications",
            "userLimitFactor",
            "AMResourceLimit",
            "users",
        ] {
            assert!(b.get(field).is_some(), "{field} missing in {b}");
        }
        assert_eq!(b["preemptionDisabled"], false, "{b}");
        assert_eq!(b["intraQueuePreemptionDisabled"], false, "{b}");
        assert_eq!(b["resourcesToPreempt"]["memory"], 0, "{b}");
        assert_eq!(b["numContainersPreempted"], 0, "{b}");
        let off = serde_json::to_value(SchedulerResponse::of(&infos, report(false))).unwrap();
        let off_b = &off["scheduler"]["schedulerInfo"]["queues"]["queue"][1];
        assert_eq!(
            off_b["preemptionDisabled"], true,
            "the monitor is off: {off_b}"
        );
        assert_eq!(off_b["intraQueuePreemptionDisabled"], true, "{off_b}");
    }

    #[test]
    fn an_auto_created_queue_shows_how_it_was_made_and_its_parent_what_it_creates() {
        use yarn_scheduler::CreatedAs;
        let mut state = state(properties(&[
            ("root.queues", "default,users,managed"),
            ("root.default.capacity", "50"),
            ("root.users.capacity", "30"),
            ("root.users.auto-queue-creation-v2.enabled", "true"),
            ("root.managed.capacity", "20"),
            ("root.managed.auto-create-child-queue.enabled", "true"),
            ("root.managed.leaf-queue-template.capacity", "60"),
        ]));
        for (path, kind) in [
            ("root.users.alice", CreatedAs::Leaf),
            ("root.managed.bob", CreatedAs::GuaranteedLeaf),
            // Recorded as holding, but the parent holds one such leaf only.
            ("root.managed.carol", CreatedAs::GuaranteedLeaf),
        ] {
            state.dynamic_queues.insert(path.to_owned(), kind);
        }
        let (leader, _) = LeaderScheduler::rebuild(&state, &source(), &nodes(1)).unwrap();
        let figures = QueuePreemptions::of(&state, false);
        let report = PreemptionReport {
            enabled: false,
            intra_queue_enabled: false,
            figures: &figures,
        };
        let infos = leader.scheduler().queue_infos();
        let body = serde_json::to_value(SchedulerResponse::of(&infos, report)).unwrap();
        let queues = &body["scheduler"]["schedulerInfo"]["queues"]["queue"];
        let default = &queues[0];
        assert_eq!(default["creationMethod"], "static", "{default}");
        assert_eq!(default["autoCreationEligibility"], "off", "{default}");
        let users = &queues[1];
        assert!(users.get("type").is_none(), "a parent: {users}");
        assert_eq!(users["autoCreationEligibility"], "flexible", "{users}");
        let alice = &users["queues"]["queue"][0];
        assert_eq!(alice["queuePath"], "root.users.alice", "{alice}");
        assert_eq!(alice["creationMethod"], "dynamicFlexible", "{alice}");
        assert_eq!(alice["type"], "capacitySchedulerLeafQueueInfo", "{alice}");
        assert_eq!(alice["mode"], "weight", "{alice}");
        let managed = &queues[2];
        assert_eq!(managed["creationMethod"], "static", "{managed}");
        assert_eq!(managed["autoCreationEligibility"], "legacy", "{managed}");
        let bob = &managed["queues"]["queue"][0];
        let carol = &managed["queues"]["queue"][1];
        assert_eq!(bob["queuePath"], "root.managed.bob", "{bob}");
        assert_eq!(bob["creationMethod"], "dynamicLegacy", "{bob}");
        assert_eq!(bob["capacity"], 60.0, "the template's capacity: {bob}");
        assert_eq!(carol["creationMethod"], "dynamicLegacy", "{carol}");
        assert_eq!(carol["capacity"], 0.0, "no room left for carol: {carol}");
        assert_eq!(carol["maxCapacity"], 100.0, "{carol}");
    }
}
