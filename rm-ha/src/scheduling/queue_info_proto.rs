//! The wire form of a queue's status, as `GetQueueInfo` answers it.

use yarn_proto::pb;
use yarn_scheduler::{CapacityScheduler, QueueInfo, QueueState};

/// `queue` (a leaf name or full path) in YARN's `QueueInfoProto` shape, with its children when
/// asked (all descendants with `recursive`). Capacities of the parent are fractions (0 to 1),
/// as in YARN; the yarn-ha `absolute_*` fields are percentages of the cluster, as
/// `queue -status` prints them. With `preemption_enabled` false (the leader runs no
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
    preemption_enabled: bool,
) -> Result<pb::QueueInfoProto, yarn_scheduler::SchedulerError> {
    let info = scheduler.queue_info(queue)?;
    let mut proto = to_proto(&info, preemption_enabled);
    if include_child_queues {
        for child in &info.child_queues {
            let path = format!("{}.{child}", info.queue_path);
            proto.child_queues.push(queue_info_proto(
                scheduler,
                &path,
                recursive,
                recursive,
                preemption_enabled,
            )?);
        }
    }
    Ok(proto)
}

fn to_proto(info: &QueueInfo, preemption_enabled: bool) -> pb::QueueInfoProto {
    let state = match info.state {
        QueueState::Running => pb::QueueStateProto::QRunning,
        QueueState::Stopped => pb::QueueStateProto::QStopped,
        QueueState::Draining => pb::QueueStateProto::QDraining,
    };
    let fraction = |percent: f64| (percent / 100.0) as f32;
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
        preemption_disabled: !preemption_enabled || info.disable_preemption,
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
            ]),
            SchedulerSettings::default(),
        )
        .expect("valid");
        let scheduler = CapacityScheduler::new(conf);
        let off = queue_info_proto(&scheduler, "root", true, true, false).expect("root");
        assert!(off.preemption_disabled);
        assert!(
            off.child_queues
                .iter()
                .all(|child| child.preemption_disabled)
        );
        let on = queue_info_proto(&scheduler, "root", true, true, true).expect("root");
        let disabled: Vec<_> = on
            .child_queues
            .iter()
            .map(|child| (child.queue_name.as_str(), child.preemption_disabled))
            .collect();
        assert_eq!(disabled, [("a", false), ("b", true)]);
        assert!(!on.preemption_disabled);
    }
}
