//! The wire form of a queue's status, as `GetQueueInfo` answers it.

use yarn_proto::pb;
use yarn_scheduler::{CapacityScheduler, QueueInfo, QueueState};

use crate::applications::QueuePreemptions;

/// What queue reports say of preemption.
#[derive(Debug, Clone, Copy)]
pub struct PreemptionReport<'a> {
    /// Whether the leader runs the preemption monitor
    /// (`yarn.resourcemanager.scheduler.monitor.enable`).
    pub enabled: bool,
    /// Whether its rounds also preempt within queues
    /// (`...preemption.intra-queue-preemption.enabled`).
    pub intra_queue_enabled: bool,
    /// What preemption is taking and has taken from each queue.
    pub figures: &'a QueuePreemptions,
}

impl PreemptionReport<'_> {
    /// Whether `queue`'s containers are never preempted: every queue's while the monitor is
    /// off, as Hadoop reports it.
    pub fn disabled(&self, queue: &QueueInfo) -> bool {
        !self.enabled || queue.disable_preemption
    }

    /// Whether `queue` never preempts among its own applications: every queue's while the
    /// monitor or intra-queue preemption is off.
    pub fn intra_queue_disabled(&self, queue: &QueueInfo) -> bool {
        !self.enabled || !self.intra_queue_enabled || queue.intra_queue_disable_preemption
    }
}

/// `queue` (a leaf name or full path) in YARN's `QueueInfoProto` shape, with its children when
/// asked (all descendants with `recursive`). Capacities of the parent are fractions (0 to 1),
/// as in YARN; the yarn-ha `absolute_*` fields are percentages of the cluster, as
/// `queue -status` prints them. With `preemption.enabled` false (the leader runs no
/// preemption monitor) every queue reports preemption disabled, as Hadoop's do when its
/// monitor is off.
///
/// # Errors
///
/// The scheduler's refusal of an unknown or ambiguous queue name.
pub fn queue_info_proto(
    scheduler: &CapacityScheduler,
    queue: &str,
    include_child_queues: bool,
    recursive: bool,
    preemption: PreemptionReport<'_>,
) -> Result<pb::QueueInfoProto, yarn_scheduler::SchedulerError> {
    let info = scheduler.queue_info(queue)?;
    let mut proto = to_proto(&info, preemption);
    if include_child_queues {
        for child in &info.child_queues {
            let path = format!("{}.{child}", info.queue_path);
            proto.child_queues.push(queue_info_proto(
                scheduler, &path, recursive, recursive, preemption,
            )?);
        }
    }
    Ok(proto)
}

fn to_proto(info: &QueueInfo, preemption: PreemptionReport<'_>) -> pb::QueueInfoProto {
    let state = match info.state {
        QueueState::Running => pb::QueueStateProto::QRunning,
        QueueState::Stopped => pb::QueueStateProto::QStopped,
        QueueState::Draining => pb::QueueStateProto::QDraining,
    };
    let fraction = |percent: f64| (percent / 100.0) as f32;
    let preempting = preemption.figures.of_queue(&info.queue_path);
    let signed = |value: u64| i64::try_from(value).unwrap_or(i64::MAX);
    let statistics = pb::QueueStatisticsProto {
        num_apps_submitted: count(info.num_applications),
        num_apps_running: count(info.num_active_applications),
        num_apps_pending: count(info.num_pending_applications),
        num_active_users: count(info.users.len()),
        allocated_memory_mb: i64::try_from(info.resources_used.memory_mb).unwrap_or(i64::MAX),
        allocated_vcores: i64::from(info.resources_used.vcores),
        available_memory_mb: i64::try_from(
            info.maximum_resource
                .memory_mb
                .saturating_sub(info.resources_used.memory_mb),
        )
        .unwrap_or(i64::MAX),
        available_vcores: i64::from(
            info.maximum_resource
                .vcores
                .saturating_sub(info.resources_used.vcores),
        ),
        to_preempt_memory_mb: signed(preempting.to_preempt.memory_mb),
        to_preempt_vcores: i64::from(preempting.to_preempt.vcores),
        to_preempt_containers: signed(preempting.to_preempt_containers),
        preempted_memory_mb: signed(preempting.preempted.memory_mb),
        preempted_vcores: i64::from(preempting.preempted.vcores),
        preempted_containers: signed(preempting.preempted_containers),
        ..Default::default()
    };
    pb::QueueInfoProto {
        queue_name: info.queue_name.clone(),
        capacity: fraction(info.capacity),
        maximum_capacity: fraction(info.maximum_capacity),
        current_capacity: fraction(info.used_capacity),
        state: state.into(),
        queue_statistics: Some(statistics),
        queue_path: info.queue_path.clone(),
        absolute_capacity: info.absolute_capacity as f32,
        absolute_maximum_capacity: info.absolute_maximum_capacity as f32,
        absolute_used_capacity: info.absolute_used_capacity as f32,
        // Empty on the wire: the queue has no list of its own and inherits its parent's.
        acl_submit_applications: info.acl_submit_applications.clone().unwrap_or_default(),
        acl_administer_queue: info.acl_administer_queue.clone().unwrap_or_default(),
        max_parallel_apps: info
            .max_parallel_apps
            .map(|limit| i32::try_from(limit).unwrap_or(i32::MAX)),
        default_application_priority: info.default_application_priority,
        preemption_disabled: preemption.disabled(info),
        intra_queue_preemption_disabled: preemption.intra_queue_disabled(info),
        configured_capacity: info.configured_capacity.to_string(),
        configured_maximum_capacity: info.configured_maximum_capacity.to_string(),
        effective_min_resource: Some(info.guaranteed_resource.into()),
        effective_max_resource: Some(info.maximum_resource.into()),
        weight: info
            .configured_capacity
            .weight()
            .map(|weight| weight as f32),
        accessible_node_labels: info.accessible_node_labels.clone(),
        default_node_label_expression: info.default_node_label_expression.clone(),
        ..Default::default()
    }
}

fn count(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use yarn_scheduler::{CapacitySchedulerConfiguration, SchedulerSettings};

    use super::*;
    use crate::scheduling::capacity_properties;

    #[test]
    fn queues_report_preemption_disabled_unless_the_monitor_runs_and_they_allow_it() {
        let conf = CapacitySchedulerConfiguration::new(
            capacity_properties(&[
                ("root.queues", "a,b"),
                ("root.a.capacity", "50"),
                ("root.b.capacity", "50"),
                ("root.b.disable_preemption", "true"),
                ("root.a.intra-queue-preemption.disable_preemption", "true"),
            ]),
            SchedulerSettings::default(),
        )
        .expect("valid");
        let scheduler = CapacityScheduler::new(conf);
        let figures = QueuePreemptions::default();
        let report = |enabled| PreemptionReport {
            enabled,
            intra_queue_enabled: true,
            figures: &figures,
        };
        let off = queue_info_proto(&scheduler, "root", true, true, report(false)).expect("root");
        assert!(off.preemption_disabled);
        assert!(
            off.child_queues
                .iter()
                .all(|child| child.preemption_disabled)
        );
        let on = queue_info_proto(&scheduler, "root", true, true, report(true)).expect("root");
        let disabled: Vec<_> = on
            .child_queues
            .iter()
            .map(|child| (child.queue_name.as_str(), child.preemption_disabled))
            .collect();
        assert_eq!(disabled, [("a", false), ("b", true)]);
        assert!(!on.preemption_disabled);
        // Within a queue: off for a by its own key, for b by disable_preemption, and for
        // every queue while the monitor is off.
        let within: Vec<_> = on
            .child_queues
            .iter()
            .map(|child| {
                (
                    child.queue_name.as_str(),
                    child.intra_queue_preemption_disabled,
                )
            })
            .collect();
        assert_eq!(within, [("a", true), ("b", true)]);
        assert!(!on.intra_queue_preemption_disabled);
        assert!(off.intra_queue_preemption_disabled);
        let no_intra = PreemptionReport {
            intra_queue_enabled: false,
            ..report(true)
        };
        let root = queue_info_proto(&scheduler, "root", false, false, no_intra).expect("root");
        assert!(root.intra_queue_preemption_disabled && !root.preemption_disabled);
    }
}
