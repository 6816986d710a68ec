//! The leader's side of the CapacityScheduler: the replicated queue configuration, its
//! refresh, and schedulers rebuilt from the replicated state. The scheduler itself is the pure
//! `yarn_scheduler` crate.

mod activities_manager;
mod activities_settings;
mod auto_queue_deletion;
mod leader_scheduler;
mod monitor_policies;
mod opportunistic_counts;
mod opportunistic_scheduling;
mod opportunistic_settings;
mod pending_increases;
mod plan_step;
mod preemption_config;
mod queue_config_source;
mod queue_info_proto;
mod queue_management;
mod queue_refresh;
mod recovery_wait;
mod reservation_config;
mod reservation_queues;
mod sched_conf_update;
mod scheduler_cell;
#[cfg(test)]
pub(crate) mod test_fixtures;

pub use activities_manager::{
    ActivitiesManager, MAX_RECORDED_APPLICATIONS, RecordedActivity, RecordedPass,
};
pub use activities_settings::ActivitiesSettings;
pub use auto_queue_deletion::AutoQueueDeletion;
pub use leader_scheduler::{LeaderScheduler, PassOutcome};
pub use monitor_policies::MonitorPolicies;
pub(crate) use monitor_policies::QUEUE_AUTO_REFRESH_POLICY_CLASS;
pub use opportunistic_counts::OpportunisticCounts;
pub use opportunistic_scheduling::OpportunisticScheduling;
pub use opportunistic_settings::OpportunisticSettings;
pub use pending_increases::PendingIncreases;
pub use plan_step::{ExpiredApplication, PlanQueue, PlanStep, plan_step};
pub use preemption_config::PreemptionConfig;
pub use queue_config_source::{CAPACITY_SCHEDULER_XML, LoadedQueues, QueueConfigSource, QueueFile};
pub use queue_info_proto::{PreemptionReport, queue_info_proto};
pub use queue_management::{QueueManagementChanges, queue_management_round};
pub use queue_refresh::{QueueRefresh, RefreshPlan};
pub use recovery_wait::RecoveryWait;
pub use reservation_config::ReservationConfig;
pub use sched_conf_update::{QueueConfigChange, SchedConfUpdate};
pub use scheduler_cell::SchedulerCell;

/// `capacity-scheduler.xml` properties from `(name under yarn.scheduler.capacity., value)`
/// pairs, for tests.
#[cfg(test)]
pub(crate) fn capacity_properties(
    pairs: &[(&str, &str)],
) -> std::collections::BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (format!("yarn.scheduler.capacity.{k}"), (*v).to_owned()))
        .collect()
}
