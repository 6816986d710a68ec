//! The reservation queues the leader's scheduler holds, derived from the replicated state.

use std::collections::BTreeMap;

use yarn_proto::ids::ReservationId;
use yarn_proto::pb;
use yarn_scheduler::CapacitySchedulerConfiguration;
use yarn_scheduler::reservation::{ReservationQueueSize, retain_queues_in_use};

use crate::state_machine::{ReservationQueueShare, RmState};

/// Millionths of a share in one percent.
const MILLIONTHS_PER_PERCENT: f64 = 10_000.0;

/// The reservation queues of every plan queue of `conf`: those the plan follower last sized in
/// `state`, then, [retained](ReservationQueueSize::retained), the queue of any reservation that
/// is no longer active but still holds an application that has not ended in `state`, so that a
/// new leader's scheduler recovers it there until the follower's move or kill is committed.
pub(crate) fn reservation_queue_sizes(
    state: &RmState,
    conf: &CapacitySchedulerConfiguration,
) -> BTreeMap<String, Vec<ReservationQueueSize>> {
    let mut plans: BTreeMap<String, Vec<ReservationQueueSize>> = state
        .reservations
        .queues()
        .iter()
        .map(|(plan, shares)| {
            let sizes = shares
                .iter()
                .map(|share| size(state.cluster_timestamp_ms, share))
                .collect();
            (plan.clone(), sizes)
        })
        .collect();
    let in_use = state
        .applications
        .values()
        .filter(|application| !application.state.is_final())
        .map(|application| application.queue.as_str());
    retain_queues_in_use(&mut plans, conf, in_use);
    plans
}

/// The name of the reservation queue an application asks to run in: its reservation id's.
pub(crate) fn reservation_queue_name(
    context: &pb::ApplicationSubmissionContextProto,
) -> Option<String> {
    let id = context.reservation_id.as_ref()?;
    Some(ReservationId::new(id.cluster_timestamp, id.id).to_string())
}

/// A percentage as the state keeps it, rounded down so that shares summing to at most 100
/// percent still do.
pub(crate) fn millionths(percent: f64) -> u32 {
    // A share is within 0 to 100 percent, so the product fits.
    (percent.clamp(0.0, 100.0) * MILLIONTHS_PER_PERCENT).floor() as u32
}

fn size(cluster_timestamp_ms: i64, share: &ReservationQueueShare) -> ReservationQueueSize {
    ReservationQueueSize {
        name: ReservationId::new(cluster_timestamp_ms, share.sequence).to_string(),
        capacity: f64::from(share.capacity_millionths) / MILLIONTHS_PER_PERCENT,
        maximum_capacity: f64::from(share.maximum_capacity_millionths) / MILLIONTHS_PER_PERCENT,
        active: true,
    }
}
