//! [`PlanStep`]: what one step of the plan follower changes, decided from the replicated state
//! and the plan queues' resources (Hadoop's `AbstractSchedulerPlanFollower.synchronizePlan`).

use std::collections::BTreeMap;

use yarn_scheduler::reservation::{
    FollowedReservation, ReservationQueueConf, default_queue_name, size_reservation_queues,
};
use yarn_scheduler::{Resource, ResourceCalculator};

use super::reservation_queues::millionths;
use crate::state_machine::{ApplicationState, ReservationQueueShare, ReservationRecord, RmState};

/// One plan queue as the plan follower sees it.
#[derive(Debug, Clone)]
pub struct PlanQueue {
    /// Its full path.
    pub path: String,
    /// Its name, the last component of the path.
    pub name: String,
    /// Its guaranteed resources now: what its plan may hand out.
    pub resources: Resource,
    /// Its reservation keys.
    pub conf: ReservationQueueConf,
}

/// What one step changes: the sizes of the active reservations' queues, the applications of
/// reservations that ended (moved to their plan's default reservation queue or killed, as
/// `reservation-move-on-expiry` says), and the reservations old enough to archive.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PlanStep {
    /// The reservation queues from this step on, by plan queue path.
    pub queues: BTreeMap<String, Vec<ReservationQueueShare>>,
    /// Applications, by sequence number, to move to the default reservation queue (the
    /// path).
    pub moves: Vec<(i32, String)>,
    /// Applications to kill, by sequence number, with why.
    pub kills: Vec<(i32, String)>,
    /// Reservations, by sequence number, that ended a whole `reservation-window` ago: the
    /// sharing policy no longer weighs them.
    pub archive: Vec<i64>,
}

/// The step at `now_ms` for the plan queues `plans` of a cluster of `cluster` resources.
///
/// Hadoop's follower rounds its clock up to the next time step, which opens a reservation's
/// queue up to a step before its window; this one does not, so no application ever runs in a
/// reservation before its window (it may instead end up to a step after it, as the window's
/// start may be a step late).
///
/// Guarantees: a reservation has a queue exactly while its allocation's window holds the
/// instant (see [`size_reservation_queues`]); an application outside the default queue whose
/// reservation queue is not among those is moved or killed, once for each step that finds it
/// there; nothing is decided for a queue that is no longer a plan queue.
pub fn plan_step(
    state: &RmState,
    plans: &[PlanQueue],
    cluster: Resource,
    calculator: ResourceCalculator,
    now_ms: i64,
) -> PlanStep {
    let mut step = PlanStep::default();
    for plan in plans {
        let reservations: Vec<(String, i64, &ReservationRecord)> = state
            .reservations
            .in_queue(&plan.path)
            .map(|(sequence, record)| (reservation_name(state, sequence), sequence, record))
            .collect();
        let names: BTreeMap<&str, i64> = reservations
            .iter()
            .map(|(name, sequence, _)| (name.as_str(), *sequence))
            .collect();
        let followed = reservations
            .iter()
            .map(|(name, _, record)| FollowedReservation {
                name,
                allocation: &record.allocation,
                has_gangs: record
                    .definition
                    .stages
                    .iter()
                    .any(|stage| stage.concurrency > 1),
            });
        let shares: Vec<ReservationQueueShare> =
            size_reservation_queues(followed, now_ms, plan.resources, cluster, calculator)
                .into_iter()
                .map(|size| ReservationQueueShare {
                    sequence: names[size.name.as_str()],
                    capacity_millionths: millionths(size.capacity),
                    maximum_capacity_millionths: millionths(size.maximum_capacity),
                })
                .collect();
        expire(state, plan, &names, &shares, &mut step);
        let archival_ms = now_ms.saturating_sub(plan.conf.window_ms);
        step.archive.extend(
            state
                .reservations
                .in_queue(&plan.path)
                .filter(|(_, record)| {
                    record
                        .allocation
                        .span()
                        .is_some_and(|(_, end)| end <= archival_ms)
                })
                .map(|(sequence, _)| sequence),
        );
        step.queues.insert(plan.path.clone(), shares);
    }
    step
}

/// Moves or kills the live applications of `plan` whose reservation has no queue in `shares`.
fn expire(
    state: &RmState,
    plan: &PlanQueue,
    names: &BTreeMap<&str, i64>,
    shares: &[ReservationQueueShare],
    step: &mut PlanStep,
) {
    let default_name = default_queue_name(&plan.name);
    for application in state.applications.values() {
        if !matches!(
            application.state,
            ApplicationState::Accepted | ApplicationState::Running
        ) {
            continue;
        }
        let Some((queue_plan, name)) = application.queue.rsplit_once('.') else {
            continue;
        };
        if queue_plan != plan.path || name == default_name {
            continue;
        }
        let active = names
            .get(name)
            .is_some_and(|sequence| shares.iter().any(|share| share.sequence == *sequence));
        if active {
            continue;
        }
        if plan.conf.move_on_expiry {
            step.moves.push((
                application.sequence,
                format!("{}.{default_name}", plan.path),
            ));
        } else {
            step.kills.push((
                application.sequence,
                format!(
                    "Application killed: reservation {name} of queue {} has ended \
                     (reservation-move-on-expiry is false)",
                    plan.path
                ),
            ));
        }
    }
}

fn reservation_name(state: &RmState, sequence: i64) -> String {
    yarn_proto::ids::ReservationId::new(state.cluster_timestamp_ms, sequence).to_string()
}
