//! The reservation queues the leader's scheduler holds, derived from the replicated state.

use std::collections::BTreeMap;

use yarn_proto::ids::ReservationId;
use yarn_proto::pb;
use yarn_scheduler::CapacitySchedulerConfiguration;
use yarn_scheduler::reservation::{ReservationQueueSize, default_queue_name};

use crate::state_machine::{ReservationQueueShare, RmState};

/// Millionths of a share in one percent.
const MILLIONTHS_PER_PERCENT: f64 = 10_000.0;

/// The reservation queues of every plan queue of `conf`: those the plan follower last sized in
/// `state`, then, at 0 percent, the queue of any reservation that is no longer active but still
/// holds an application that has not ended, so that the scheduler keeps that queue until the
/// follower's move or kill of the application is committed.
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
    for application in state.applications.values() {
        if application.state.is_final() {
            continue;
        }
        let Some((plan, name)) = application.queue.rsplit_once('.') else {
            continue;
        };
        let Some(plan_conf) = conf.queue(plan) else {
            continue;
        };
        if plan_conf.reservation.is_none() || name == default_queue_name(&plan_conf.name) {
            continue;
        }
        let sizes = plans.entry(plan.to_owned()).or_default();
        if !sizes.iter().any(|size| size.name == name) {
            sizes.push(ReservationQueueSize {
                name: name.to_owned(),
                capacity: 0.0,
                maximum_capacity: 0.0,
            });
        }
    }
    plans
}

/// The name of the reservation queue an application asks to run in: its reservation id's.
pub(crate) fn reservation_queue_name(
    context: &pb::ApplicationSubmissionContextProto,
) -> Option<String> {
    let id = context.reservation_id.as_ref()?;
    Some(ReservationId::new(id.cluster_timestamp, id.id).to_string())
}

/// A percentage as the state keeps it.
pub(crate) fn millionths(percent: f64) -> u32 {
    // A share is within 0 to 100 percent, so the product fits.
    (percent.clamp(0.0, 100.0) * MILLIONTHS_PER_PERCENT).round() as u32
}

fn size(cluster_timestamp_ms: i64, share: &ReservationQueueShare) -> ReservationQueueSize {
    ReservationQueueSize {
        name: ReservationId::new(cluster_timestamp_ms, share.sequence).to_string(),
        capacity: f64::from(share.capacity_millionths) / MILLIONTHS_PER_PERCENT,
        maximum_capacity: f64::from(share.maximum_capacity_millionths) / MILLIONTHS_PER_PERCENT,
    }
}
