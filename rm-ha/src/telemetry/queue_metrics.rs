//! [`QueueFigures`]: the leader's queues at one scrape, Hadoop's `QueueMetrics` per queue and per
//! user under Prometheus names.

use metrics::{counter, gauge};
use yarn_proto::Resource;
use yarn_scheduler::{QueueInfo, UserInfo};

use crate::applications::{ApplicationCounts, QueueApplications, QueuePreemptions};

/// What the leader knows of its queues at one scrape: every queue of its scheduler with its
/// users, as the REST scheduler page shows them, and the applications the replicated state
/// holds per leaf queue and user.
///
/// Each queue's series carry its path as `queue` (`root.default`); a user's carry `queue` and
/// `user`, for the users of leaf queues. Only what yarn-ha tracks is shown: it has no
/// reservations, so none of Hadoop's reserved figures, and no per-user headroom figure.
#[derive(Debug, Clone, Default)]
pub(crate) struct QueueFigures {
    /// Every queue, parents before children.
    pub(crate) queues: Vec<QueueInfo>,
    /// The applications each leaf queue accepted, per user.
    pub(crate) applications: QueueApplications,
    /// What preemption is taking and has taken from each leaf queue.
    pub(crate) preemptions: QueuePreemptions,
}

impl QueueFigures {
    /// Sets every figure in the current recorder: for each queue, applications by how they
    /// stand (submitted, completed, failed and killed counted from the replicated state; running
    /// and pending as the scheduler counts them, running being activated, Hadoop's meaning),
    /// allocated, available and pending resources and containers, what preemption is taking
    /// (chosen containers not yet killed) and has taken, and for leaves their AM
    /// limit and use; the same for each user of a leaf, but for available resources and the AM
    /// limit, which are the queue's.
    pub(crate) fn record(&self) {
        for queue in &self.queues {
            let path = queue.queue_path.as_str();
            let labels = [("queue", path.to_owned())];
            let series = Series {
                prefix: "yarn_queue",
                labels: &labels,
            };
            series.applications(self.applications.of_queue(path));
            series.gauge("apps_running", queue.num_active_applications as f64);
            series.gauge("apps_pending", queue.num_pending_applications as f64);
            series.resource("allocated", queue.resources_used);
            series.gauge("allocated_containers", queue.num_containers as f64);
            // As Hadoop's CapacityScheduler sets it: the guarantee the queue does not use.
            series.resource(
                "available",
                queue
                    .guaranteed_resource
                    .saturating_sub(queue.resources_used),
            );
            series.resource("pending", queue.pending_resource);
            series.gauge("pending_containers", queue.pending_containers as f64);
            let preemption = self.preemptions.of_queue(path);
            series.resource("to_preempt", preemption.to_preempt);
            series.gauge(
                "to_preempt_containers",
                preemption.to_preempt_containers as f64,
            );
            series.resource("aggregate_preempted", preemption.preempted);
            series.gauge(
                "aggregate_containers_preempted",
                preemption.preempted_containers as f64,
            );
            if queue.is_leaf {
                series.resource("am_resource_limit", queue.am_resource_limit);
                series.resource("used_am_resource", queue.am_resource_used);
                self.record_users(path, &queue.users);
            }
        }
    }

    /// The figures of each user of the leaf queue at `path`: the scheduler's `users`, and
    /// every user with applications there in the replicated state, ended ones included.
    fn record_users(&self, path: &str, users: &[UserInfo]) {
        let labels = |user: &str| [("queue", path.to_owned()), ("user", user.to_owned())];
        for (user, counts) in self.applications.users_of(path) {
            let labels = labels(user);
            let series = Series {
                prefix: "yarn_queue_user",
                labels: &labels,
            };
            series.applications(counts);
        }
        for user in users {
            let labels = labels(&user.user);
            let series = Series {
                prefix: "yarn_queue_user",
                labels: &labels,
            };
            series.gauge("apps_running", user.num_active_applications as f64);
            series.gauge("apps_pending", user.num_pending_applications as f64);
            series.resource("allocated", user.resources_used);
            series.gauge("allocated_containers", user.num_containers as f64);
            series.resource("pending", user.pending_resource);
            series.gauge("pending_containers", user.pending_containers as f64);
            series.resource("used_am_resource", user.am_resources_used);
        }
    }
}

/// The series of one queue or one user: names under `prefix`, every one with `labels`.
struct Series<'a> {
    prefix: &'static str,
    labels: &'a [(&'static str, String)],
}

impl Series<'_> {
    fn gauge(&self, name: &str, value: f64) {
        gauge!(format!("{}_{name}", self.prefix), self.labels).set(value);
    }

    /// `{name}_megabytes` and `{name}_vcores`, Hadoop's `{Name}MB` and `{Name}VCores`.
    fn resource(&self, name: &str, resource: Resource) {
        self.gauge(&format!("{name}_megabytes"), resource.memory_mb as f64);
        self.gauge(&format!("{name}_vcores"), f64::from(resource.vcores));
    }

    /// Hadoop's `AppsSubmitted`, `AppsCompleted`, `AppsFailed` and `AppsKilled`, as counters.
    fn applications(&self, counts: ApplicationCounts) {
        for (name, count) in [
            ("submitted", counts.submitted),
            ("completed", counts.completed),
            ("failed", counts.failed),
            ("killed", counts.killed),
        ] {
            counter!(format!("{}_apps_{name}_total", self.prefix), self.labels).absolute(count);
        }
    }
}

#[cfg(test)]
mod tests {
    use metrics_exporter_prometheus::PrometheusBuilder;

    use super::*;
    use crate::scheduling::LeaderScheduler;
    use crate::scheduling::capacity_properties as properties;
    use crate::scheduling::test_fixtures::{NOW, apply, nodes, source, state, submit};
    use crate::state_machine::CommandV1;

    /// The page `figures` render to, alone.
    fn page(figures: &QueueFigures) -> String {
        let recorder = PrometheusBuilder::new().build_recorder();
        metrics::with_local_recorder(&recorder, || figures.record());
        recorder.handle().render()
    }

    /// The value of the sample `series` (name and labels as rendered) on `page`.
    fn value(page: &str, series: &str) -> Option<f64> {
        page.lines()
            .find_map(|line| line.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
    }

    /// Queues a (60%) and b (40%) on two 8 GB nodes; alice and bob each run an application in
    /// b, whose AM containers one pass placed; bob's asks for two 2 GB containers more.
    fn two_users_in_b() -> (QueueFigures, QueueInfo) {
        let mut state = state(properties(&[
            ("root.queues", "a,b"),
            ("root.a.capacity", "60"),
            ("root.b.capacity", "40"),
            ("root.b.user-limit-factor", "2"),
        ]));
        submit(&mut state, "alice", "b", 1024);
        let bobs = submit(&mut state, "bob", "b", 1024);
        let (mut leader, admissions) =
            LeaderScheduler::rebuild(&state, &source(), &nodes(2)).unwrap();
        apply(
            &mut state,
            CommandV1::AdmitApplications {
                admissions,
                now_ms: NOW,
            },
        );
        let scheduler = leader.scheduler_mut();
        let placed = scheduler.schedule();
        assert_eq!(placed.len(), 2, "both AMs: {placed:?}");
        let bob = placed
            .iter()
            .find(|allocation| allocation.application_attempt_id.application_id.id == bobs)
            .unwrap()
            .application_attempt_id;
        let ask = yarn_scheduler::ResourceRequest::any(1, Resource::new(2048, 1), 2);
        scheduler.update_asks(bob, &[ask], &[]).unwrap();
        let queues = scheduler.queue_infos();
        let b = queues
            .iter()
            .find(|queue| queue.queue_path == "root.b")
            .unwrap()
            .clone();
        let figures = QueueFigures {
            queues,
            applications: QueueApplications::of(&state),
            preemptions: QueuePreemptions::of(&state, true),
        };
        (figures, b)
    }

    #[test]
    fn each_queue_has_hadoops_queue_metrics_under_its_path() {
        let (figures, b) = two_users_in_b();
        let page = page(&figures);
        let b_series = |name: &str| value(&page, &format!("{name}{{queue=\"root.b\"}}"));
        assert_eq!(
            b_series("yarn_queue_apps_submitted_total"),
            Some(2.0),
            "{page}"
        );
        assert_eq!(
            b_series("yarn_queue_apps_completed_total"),
            Some(0.0),
            "{page}"
        );
        assert_eq!(b_series("yarn_queue_apps_running"), Some(2.0), "{page}");
        assert_eq!(b_series("yarn_queue_apps_pending"), Some(0.0), "{page}");
        assert_eq!(
            b_series("yarn_queue_allocated_megabytes"),
            Some(2048.0),
            "{page}"
        );
        assert_eq!(b_series("yarn_queue_allocated_vcores"), Some(2.0), "{page}");
        assert_eq!(
            b_series("yarn_queue_allocated_containers"),
            Some(2.0),
            "{page}"
        );
        assert_eq!(
            b_series("yarn_queue_pending_megabytes"),
            Some(4096.0),
            "{page}"
        );
        assert_eq!(
            b_series("yarn_queue_pending_containers"),
            Some(2.0),
            "{page}"
        );
        for nothing_preempted in [
            "yarn_queue_to_preempt_megabytes",
            "yarn_queue_to_preempt_containers",
            "yarn_queue_aggregate_preempted_vcores",
            "yarn_queue_aggregate_containers_preempted",
        ] {
            assert_eq!(b_series(nothing_preempted), Some(0.0), "{page}");
        }
        let available = b.guaranteed_resource.memory_mb - 2048;
        assert_eq!(
            b_series("yarn_queue_available_megabytes"),
            Some(available as f64),
            "{page}"
        );
        assert!(
            b_series("yarn_queue_am_resource_limit_megabytes").unwrap() > 0.0,
            "{page}"
        );
        assert_eq!(
            b_series("yarn_queue_used_am_resource_megabytes"),
            Some(2048.0),
            "{page}"
        );

        // Parents add up their children, and have no AM figures of their own.
        let root = |name: &str| value(&page, &format!("{name}{{queue=\"root\"}}"));
        assert_eq!(root("yarn_queue_apps_submitted_total"), Some(2.0), "{page}");
        assert_eq!(root("yarn_queue_allocated_containers"), Some(2.0), "{page}");
        assert_eq!(root("yarn_queue_pending_megabytes"), Some(4096.0), "{page}");
        assert_eq!(
            root("yarn_queue_am_resource_limit_megabytes"),
            None,
            "{page}"
        );
        let a = |name: &str| value(&page, &format!("{name}{{queue=\"root.a\"}}"));
        assert_eq!(a("yarn_queue_apps_submitted_total"), Some(0.0), "{page}");
        assert_eq!(a("yarn_queue_allocated_megabytes"), Some(0.0), "{page}");
        // yarn-ha has no reservations: no reserved figure is made up.
        assert!(!page.contains("reserved"), "{page}");
    }

    #[test]
    fn each_user_of_a_leaf_has_its_own_series() {
        let (figures, _) = two_users_in_b();
        let page = page(&figures);
        let user = |name: &str, user: &str| {
            value(
                &page,
                &format!("yarn_queue_user_{name}{{queue=\"root.b\",user=\"{user}\"}}"),
            )
        };
        for who in ["alice", "bob"] {
            assert_eq!(user("apps_submitted_total", who), Some(1.0), "{page}");
            assert_eq!(user("apps_running", who), Some(1.0), "{page}");
            assert_eq!(user("allocated_megabytes", who), Some(1024.0), "{page}");
            assert_eq!(user("allocated_containers", who), Some(1.0), "{page}");
            assert_eq!(
                user("used_am_resource_megabytes", who),
                Some(1024.0),
                "{page}"
            );
        }
        assert_eq!(user("pending_megabytes", "bob"), Some(4096.0), "{page}");
        assert_eq!(user("pending_megabytes", "alice"), Some(0.0), "{page}");
        assert!(
            !page.contains("yarn_queue_user_apps_running{queue=\"root\""),
            "users are figures of leaves: {page}"
        );
    }
}
