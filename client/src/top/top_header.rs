//! The cluster header of `yarn-ha top`: Hadoop's six lines of time, uptime, node counts and
//! queue statistics.

use yarn_proto::pb;

use super::application_row::gigabytes;
use super::top_snapshot::TopSnapshot;
use crate::application_cli::NOT_AVAILABLE;

/// The header's lines for `snapshot`, in Hadoop's words, naming the watched queues as
/// `queue_label`:
///
/// ```text
/// YARN top - 14:03:22+00:00, up 0d, 1:05, 2 active users, queue(s): root
/// NodeManager(s): 3 total, 3 active, 0 unhealthy, 0 decommissioned, 0 lost, 0 rebooted
/// Queue(s) Applications: 1 running, 2 submitted, 1 pending, 0 completed, 0 killed, 0 failed
/// Queue(s) Mem(GB): 6.5 available, 1.5 allocated, 0.0 pending, 0.0 reserved
/// Queue(s) VCores: 10 available, 2 allocated, 0 pending, 0 reserved
/// Queue(s) Containers: 2 allocated, 0 pending, 0 reserved
/// ```
///
/// The time is the snapshot's, in UTC; the uptime is the answering ResourceManager's (`N/A`
/// when it did not say when it started). Queue figures are the sums over the snapshot's queues,
/// as in Hadoop, so the available figures of queues that may each grow into the same idle
/// capacity add up past the cluster's. Memory is in GB with one decimal, where Hadoop rounds
/// down to whole GB. Lines are returned as received: the frame escapes and cuts them.
pub fn header_lines(snapshot: &TopSnapshot, queue_label: &str) -> Vec<String> {
    let nodes = &snapshot.cluster_metrics;
    let queues = sum_statistics(&snapshot.queues);
    vec![
        format!(
            "YARN top - {}, up {}, {} active users, queue(s): {queue_label}",
            time_of_day(snapshot.taken_at_ms),
            uptime(snapshot.taken_at_ms, nodes.rm_started_on_ms),
            queues.num_active_users,
        ),
        format!(
            "NodeManager(s): {} total, {} active, {} unhealthy, {} decommissioned, {} lost, \
             {} rebooted",
            nodes.num_node_managers,
            nodes.num_active_nms,
            nodes.num_unhealthy_nms,
            nodes.num_decommissioned_nms,
            nodes.num_lost_nms,
            nodes.num_rebooted_nms,
        ),
        format!(
            "Queue(s) Applications: {} running, {} submitted, {} pending, {} completed, \
             {} killed, {} failed",
            queues.num_apps_running,
            queues.num_apps_submitted,
            queues.num_apps_pending,
            queues.num_apps_completed,
            queues.num_apps_killed,
            queues.num_apps_failed,
        ),
        format!(
            "Queue(s) Mem(GB): {} available, {} allocated, {} pending, {} reserved",
            gigabytes(queues.available_memory_mb),
            gigabytes(queues.allocated_memory_mb),
            gigabytes(queues.pending_memory_mb),
            gigabytes(queues.reserved_memory_mb),
        ),
        format!(
            "Queue(s) VCores: {} available, {} allocated, {} pending, {} reserved",
            queues.available_vcores,
            queues.allocated_vcores,
            queues.pending_vcores,
            queues.reserved_vcores,
        ),
        format!(
            "Queue(s) Containers: {} allocated, {} pending, {} reserved",
            queues.allocated_containers, queues.pending_containers, queues.reserved_containers,
        ),
    ]
}

/// The field-by-field sum of the queues' statistics (a queue without any adds nothing).
fn sum_statistics(queues: &[pb::QueueInfoProto]) -> pb::QueueStatisticsProto {
    fn add(total: &mut i64, value: i64) {
        *total = total.saturating_add(value);
    }
    let mut sum = pb::QueueStatisticsProto::default();
    for queue in queues.iter().filter_map(|q| q.queue_statistics.as_ref()) {
        add(&mut sum.num_apps_submitted, queue.num_apps_submitted);
        add(&mut sum.num_apps_running, queue.num_apps_running);
        add(&mut sum.num_apps_pending, queue.num_apps_pending);
        add(&mut sum.num_apps_completed, queue.num_apps_completed);
        add(&mut sum.num_apps_killed, queue.num_apps_killed);
        add(&mut sum.num_apps_failed, queue.num_apps_failed);
        add(&mut sum.num_active_users, queue.num_active_users);
        add(&mut sum.available_memory_mb, queue.available_memory_mb);
        add(&mut sum.allocated_memory_mb, queue.allocated_memory_mb);
        add(&mut sum.pending_memory_mb, queue.pending_memory_mb);
        add(&mut sum.reserved_memory_mb, queue.reserved_memory_mb);
        add(&mut sum.available_vcores, queue.available_vcores);
        add(&mut sum.allocated_vcores, queue.allocated_vcores);
        add(&mut sum.pending_vcores, queue.pending_vcores);
        add(&mut sum.reserved_vcores, queue.reserved_vcores);
        add(&mut sum.allocated_containers, queue.allocated_containers);
        add(&mut sum.pending_containers, queue.pending_containers);
        add(&mut sum.reserved_containers, queue.reserved_containers);
    }
    sum
}

/// `HH:MM:SS+00:00`: the UTC time of day of `epoch_ms`, in the form of Hadoop's
/// `ISO_TIME_NO_T_FORMAT`.
fn time_of_day(epoch_ms: i64) -> String {
    let seconds = epoch_ms.div_euclid(1000).rem_euclid(86_400);
    format!(
        "{:02}:{:02}:{:02}+00:00",
        seconds / 3600,
        seconds % 3600 / 60,
        seconds % 60
    )
}

/// `<days>d, <hours>:<minutes>` from `started_ms` to `now_ms`; `N/A` for an unknown start.
fn uptime(now_ms: i64, started_ms: i64) -> String {
    if started_ms <= 0 {
        return NOT_AVAILABLE.to_owned();
    }
    let minutes = now_ms.saturating_sub(started_ms).max(0) / 60_000;
    format!(
        "{}d, {}:{:02}",
        minutes / (24 * 60),
        minutes / 60 % 24,
        minutes % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn queue(running: i64, users: i64, available_mb: i64, allocated_mb: i64) -> pb::QueueInfoProto {
        pb::QueueInfoProto {
            queue_statistics: Some(pb::QueueStatisticsProto {
                num_apps_submitted: running + 1,
                num_apps_running: running,
                num_apps_pending: 1,
                num_active_users: users,
                available_memory_mb: available_mb,
                allocated_memory_mb: allocated_mb,
                available_vcores: 8,
                allocated_vcores: 2,
                allocated_containers: running * 2,
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    #[test]
    fn the_header_sums_the_queues_in_hadoops_words() {
        // 2023-11-14 22:13:20 UTC; the RM started a day, two hours and five minutes before.
        let taken_at_ms = 1_700_000_000_000;
        let snapshot = TopSnapshot {
            taken_at_ms,
            cluster_metrics: pb::YarnClusterMetricsProto {
                num_node_managers: 3,
                num_active_nms: 2,
                num_lost_nms: 1,
                rm_started_on_ms: taken_at_ms - ((24 + 2) * 60 + 5) * 60_000,
                ..Default::default()
            },
            queues: vec![
                queue(1, 1, 4096, 1536),
                queue(0, 1, 2560, 0),
                // A queue the RM sent without statistics adds nothing.
                pb::QueueInfoProto::default(),
            ],
            applications: vec![],
        };
        assert_eq!(
            header_lines(&snapshot, "root"),
            [
                "YARN top - 22:13:20+00:00, up 1d, 2:05, 2 active users, queue(s): root",
                "NodeManager(s): 3 total, 2 active, 0 unhealthy, 0 decommissioned, 1 lost, \
                 0 rebooted",
                "Queue(s) Applications: 1 running, 3 submitted, 2 pending, 0 completed, \
                 0 killed, 0 failed",
                "Queue(s) Mem(GB): 6.5 available, 1.5 allocated, 0.0 pending, 0.0 reserved",
                "Queue(s) VCores: 16 available, 4 allocated, 0 pending, 0 reserved",
                "Queue(s) Containers: 2 allocated, 0 pending, 0 reserved",
            ]
        );
    }

    #[test]
    fn an_unknown_start_shows_no_uptime() {
        let snapshot = TopSnapshot {
            taken_at_ms: 61_000,
            ..Default::default()
        };
        let first = &header_lines(&snapshot, "root.a,root.b")[0];
        assert_eq!(
            first,
            "YARN top - 00:01:01+00:00, up N/A, 0 active users, queue(s): root.a,root.b"
        );
    }
}
