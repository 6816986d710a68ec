//! [`validate_refresh`]: which configuration changes a running scheduler accepts.

use std::collections::BTreeMap;

use crate::capacity_scheduler_configuration::CapacitySchedulerConfiguration;
use crate::error::SchedulerError;
use crate::queue_state::QueueState;

/// Checks that moving from `old` to `new` is allowed while `applications` (accepted
/// applications per leaf queue path) exist, as YARN's `refreshQueues` does.
///
/// Rejected, in this order and each with its own error:
/// - a queue that reappears under another parent ([`SchedulerError::QueueMoved`]);
/// - removing a queue that is not STOPPED ([`SchedulerError::RemovedQueueNotStopped`]) or
///   that, with its descendants, still has applications
///   ([`SchedulerError::RemovedQueueHasApplications`]);
/// - turning a leaf with applications into a parent
///   ([`SchedulerError::LeafWithApplicationsBecomesParent`]);
/// - lowering a queue's maximum allocation ([`SchedulerError::MaximumAllocationDecreased`]).
///
/// Capacities, limits, ACLs, states and new queues may change freely. The check is pure: the
/// caller keeps `old` in effect when it fails.
pub fn validate_refresh(
    old: &CapacitySchedulerConfiguration,
    new: &CapacitySchedulerConfiguration,
    applications: &BTreeMap<String, usize>,
) -> Result<(), SchedulerError> {
    let applications_under = |path: &str| -> usize {
        let prefix = format!("{path}.");
        applications
            .iter()
            .filter(|(queue, _)| queue.as_str() == path || queue.starts_with(&prefix))
            .map(|(_, count)| *count)
            .sum()
    };
    let removed: Vec<_> = old
        .queues()
        .filter(|q| new.queue(&q.path).is_none())
        .collect();

    for queue in &removed {
        let moved_to = new
            .queues()
            .find(|candidate| candidate.name == queue.name && old.queue(&candidate.path).is_none());
        if let Some(target) = moved_to {
            return Err(SchedulerError::QueueMoved {
                name: queue.name.clone(),
                from: queue.path.clone(),
                to: target.path.clone(),
            });
        }
    }
    for queue in &removed {
        if queue.state != QueueState::Stopped {
            return Err(SchedulerError::RemovedQueueNotStopped {
                queue: queue.path.clone(),
                state: queue.state,
            });
        }
        let count = applications_under(&queue.path);
        if count > 0 {
            return Err(SchedulerError::RemovedQueueHasApplications {
                queue: queue.path.clone(),
                applications: count,
            });
        }
    }
    for queue in old.queues() {
        let Some(updated) = new.queue(&queue.path) else {
            continue;
        };
        if queue.is_leaf() && !updated.is_leaf() {
            let count = applications.get(&queue.path).copied().unwrap_or(0);
            if count > 0 {
                return Err(SchedulerError::LeafWithApplicationsBecomesParent {
                    queue: queue.path.clone(),
                    applications: count,
                });
            }
        }
        if !queue
            .maximum_allocation
            .fits_in_every_dimension(&updated.maximum_allocation)
        {
            return Err(SchedulerError::MaximumAllocationDecreased {
                queue: queue.path.clone(),
                current: queue.maximum_allocation,
                requested: updated.maximum_allocation,
            });
        }
    }
    Ok(())
}
