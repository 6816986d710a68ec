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

/// The step at `now_ms`, rounded up to the follower's `step_ms` as Hadoop's follower rounds it,
/// for the plan queues `plans` of a cluster of `cluster` resources.
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
    step_ms: i64,
) -> PlanStep {
    let now_ms = round_up(now_ms, step_ms);
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

fn round_up(now_ms: i64, step_ms: i64) -> i64 {
    if step_ms <= 0 || now_ms.rem_euclid(step_ms) == 0 {
        return now_ms;
    }
    now_ms.saturating_add(step_ms - now_ms.rem_euclid(step_ms))
}

#[cfg(test)]
mod tests {
    use yarn_scheduler::reservation::{
        RequestInterpreter, ReservationDefinition, ReservationStage, ResourceTimeline,
    };

    use super::*;
    use crate::state_machine::{ApplicationRecord, CommandV1, ReservationChange, RmCommand};

    const GIB: u64 = 1024;
    const HOUR_MS: i64 = 3_600_000;

    fn conf(move_on_expiry: bool) -> ReservationQueueConf {
        ReservationQueueConf {
            window_ms: 24 * HOUR_MS,
            average_capacity_percent: 100.0,
            instantaneous_max_capacity_percent: 100.0,
            no_over_commit_only: false,
            enforcement_window_ms: HOUR_MS,
            show_reservations_as_queues: false,
            move_on_expiry,
        }
    }

    fn plan(move_on_expiry: bool) -> PlanQueue {
        PlanQueue {
            path: "root.a".to_owned(),
            name: "a".to_owned(),
            resources: Resource::new(8 * GIB, 8),
            conf: conf(move_on_expiry),
        }
    }

    /// Reservation 1 holds 2 GiB over [1000, 5000); reservation 2, a gang of two 1 GiB
    /// containers, 4 GiB over [3000, 4000). An application runs in each, and one in the default
    /// queue.
    fn state() -> RmState {
        let mut state = RmState {
            cluster_timestamp_ms: 7,
            ..RmState::default()
        };
        state.apply(&RmCommand::V1(CommandV1::AllocateReservationIds {
            count: 2,
        }));
        for (sequence, start, end, gib, concurrency) in
            [(1, 1_000, 5_000, 2, 1), (2, 3_000, 4_000, 4, 2)]
        {
            let definition = ReservationDefinition {
                arrival_ms: start,
                deadline_ms: end,
                stages: vec![ReservationStage {
                    capability: Resource::new(GIB, 1),
                    num_containers: 4,
                    concurrency,
                    duration_ms: end - start,
                }],
                interpreter: RequestInterpreter::All,
                name: String::new(),
                priority: 0,
            };
            let record = ReservationRecord {
                queue: "root.a".to_owned(),
                user: "alice".to_owned(),
                definition,
                allocation: ResourceTimeline::of(start, end, Resource::new(gib * GIB, gib as u32)),
                acceptance_ms: 0,
            };
            let version = state.reservations.plan_version();
            state.apply(&RmCommand::V1(CommandV1::ChangeReservation {
                sequence,
                expected_plan_version: version,
                change: ReservationChange::Submit(record),
            }));
        }
        for (sequence, queue) in [
            (1, "root.a.reservation_7_0001"),
            (2, "root.a.reservation_7_0002"),
            (3, "root.a.a-default"),
        ] {
            state.applications.insert(
                sequence,
                ApplicationRecord {
                    sequence,
                    queue: queue.to_owned(),
                    state: ApplicationState::Running,
                    ..ApplicationRecord::default()
                },
            );
        }
        state
    }

    fn step_at(state: &RmState, move_on_expiry: bool, now_ms: i64) -> PlanStep {
        plan_step(
            state,
            &[plan(move_on_expiry)],
            Resource::new(16 * GIB, 16),
            ResourceCalculator::Default,
            now_ms,
            1_000,
        )
    }

    fn share(sequence: i64, capacity: u32, maximum: u32) -> ReservationQueueShare {
        ReservationQueueShare {
            sequence,
            capacity_millionths: capacity,
            maximum_capacity_millionths: maximum,
        }
    }

    #[test]
    fn each_active_reservation_gets_its_share_of_the_plan_and_the_others_lose_their_applications() {
        let state = state();
        // 3500 rounds up to 4000: reservation 2 has ended by then.
        let step = step_at(&state, true, 3_500);
        assert_eq!(step.queues["root.a"], vec![share(1, 250_000, 1_000_000)]);
        assert_eq!(step.moves, vec![(2, "root.a.a-default".to_owned())]);
        assert!(step.kills.is_empty() && step.archive.is_empty());

        // At 3000 both hold their window; the gang keeps to its capacity.
        let step = step_at(&state, true, 3_000);
        assert_eq!(
            step.queues["root.a"],
            vec![share(1, 250_000, 1_000_000), share(2, 500_000, 500_000)]
        );
        assert!(step.moves.is_empty());
    }

    #[test]
    fn without_move_on_expiry_the_applications_of_an_ended_reservation_are_killed() {
        let state = state();
        let step = step_at(&state, false, 5_000);
        assert!(step.queues["root.a"].is_empty());
        assert!(step.moves.is_empty());
        let killed: Vec<i32> = step.kills.iter().map(|(sequence, _)| *sequence).collect();
        assert_eq!(killed, vec![1, 2]);
        assert!(
            step.kills[0].1.contains("reservation_7_0001"),
            "{}",
            step.kills[0].1
        );
    }

    #[test]
    fn reservations_that_ended_a_whole_window_ago_are_archived() {
        let state = state();
        assert!(step_at(&state, true, 24 * HOUR_MS).archive.is_empty());
        assert_eq!(step_at(&state, true, 24 * HOUR_MS + 4_000).archive, vec![2]);
        assert_eq!(
            step_at(&state, true, 24 * HOUR_MS + 5_000).archive,
            vec![1, 2]
        );
    }
}
