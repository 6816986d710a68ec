//! [`PlanStep`]: what one step of the plan follower changes, decided from the replicated state
//! and the plan queues' resources (Hadoop's `AbstractSchedulerPlanFollower.synchronizePlan`).

use std::collections::BTreeMap;

use yarn_scheduler::reservation::{
    FollowedReservation, ReplannedReservation, ReservationQueueConf, default_queue_name, replan,
    size_reservation_queues,
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

/// An application whose reservation ended: moved to its plan's default reservation queue or
/// killed, as `reservation-move-on-expiry` says.
#[derive(Debug, Clone, PartialEq)]
pub struct ExpiredApplication {
    /// Its sequence number.
    pub application_seq: i32,
    /// The queue it is in.
    pub queue: String,
    /// Where it moves; `None` to kill it.
    pub move_to: Option<String>,
    /// Why it is killed.
    pub diagnostics: String,
}

/// What one step changes: the sizes of the active reservations' queues, the applications of
/// reservations that ended, and the reservations old enough to archive.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PlanStep {
    /// The reservation queues from this step on, by plan queue path.
    pub queues: BTreeMap<String, Vec<ReservationQueueShare>>,
    /// The applications of reservations that ended, and of plan queues themselves (placed
    /// there before the queue ran as a plan queue), which move to the default queue.
    pub expired: Vec<ExpiredApplication>,
    /// Reservations, by sequence number with the acceptance time they were decided on, that
    /// ended a whole `reservation-window` ago: the sharing policy no longer weighs them.
    pub archive: Vec<(i64, i64)>,
    /// Reservations, by sequence number with the acceptance time they were decided on, the
    /// plan can no longer keep within its `reservation-enforcement-window` (see [`replan`]):
    /// they are deleted, and their applications leave their queues as on expiry.
    pub replanned: Vec<(i64, i64)>,
}

/// The step at `now_ms` for the plan queues `plans` of a cluster of `cluster` resources;
/// reservations the plan can no longer keep are dropped only when `replan` is set, which the
/// caller sets only once it knows the whole cluster (a leader that has not yet heard from
/// every NodeManager would take the plan for smaller than it is, and drop for good what a
/// moment later fits).
///
/// Hadoop's follower rounds its clock up to the next time step, which opens a reservation's
/// queue up to a step before its window; this one does not, so no application is admitted into
/// a reservation before its window (by the leader's clock).
///
/// Guarantees: a reservation is sized exactly while its allocation's window holds `now_ms`
/// (see [`size_reservation_queues`]); an application under the plan queue outside its default
/// queue whose reservation is not sized is moved or killed, and one in the plan queue itself
/// moved, by each step that finds it there; nothing is decided for a queue that is no longer a
/// plan queue.
pub fn plan_step(
    state: &RmState,
    plans: &[PlanQueue],
    cluster: Resource,
    calculator: ResourceCalculator,
    now_ms: i64,
    replan: bool,
) -> PlanStep {
    let mut step = PlanStep::default();
    for plan in plans {
        let mut reservations: Vec<(String, i64, &ReservationRecord)> = state
            .reservations
            .in_queue(&plan.path)
            .map(|(sequence, record)| (reservation_name(state, sequence), sequence, record))
            .collect();
        let dropped = if replan {
            drop_what_no_longer_fits(&reservations, plan, cluster, calculator, now_ms)
        } else {
            Vec::new()
        };
        reservations
            .retain(|(_, sequence, _)| !dropped.iter().any(|(dropped, _)| dropped == sequence));
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
        let dropped_names: Vec<String> = dropped
            .iter()
            .map(|(sequence, _)| reservation_name(state, *sequence))
            .collect();
        expire(state, plan, &names, &dropped_names, &shares, &mut step);
        step.replanned.extend(dropped);
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
                .map(|(sequence, record)| (sequence, record.acceptance_ms)),
        );
        step.queues.insert(plan.path.clone(), shares);
    }
    step
}

/// Moves or kills the live applications of `plan` whose reservation has no queue in `shares`,
/// and moves those in the plan queue itself.
fn expire(
    state: &RmState,
    plan: &PlanQueue,
    names: &BTreeMap<&str, i64>,
    dropped: &[String],
    shares: &[ReservationQueueShare],
    step: &mut PlanStep,
) {
    let default_name = default_queue_name(&plan.name);
    let default_queue = format!("{}.{default_name}", plan.path);
    for application in state.applications.values() {
        if !matches!(
            application.state,
            ApplicationState::Accepted | ApplicationState::Running
        ) {
            continue;
        }
        let expired = |move_to: Option<String>, diagnostics: String| ExpiredApplication {
            application_seq: application.sequence,
            queue: application.queue.clone(),
            move_to,
            diagnostics,
        };
        if application.queue == plan.path {
            step.expired
                .push(expired(Some(default_queue.clone()), String::new()));
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
        step.expired.push(if plan.conf.move_on_expiry {
            expired(Some(default_queue.clone()), String::new())
        } else {
            let why = if dropped.iter().any(|dropped| dropped == name) {
                "was dropped: the plan no longer has the resources it promised"
            } else {
                "has ended"
            };
            expired(
                None,
                format!(
                    "Application killed: reservation {name} of queue {} {why} \
                     (reservation-move-on-expiry is false)",
                    plan.path
                ),
            )
        });
    }
}

/// What [`replan`] drops of `reservations` (those that hold anything within the enforcement
/// window from `now_ms`; the others cannot be over), with their acceptance times.
fn drop_what_no_longer_fits(
    reservations: &[(String, i64, &ReservationRecord)],
    plan: &PlanQueue,
    cluster: Resource,
    calculator: ResourceCalculator,
    now_ms: i64,
) -> Vec<(i64, i64)> {
    let end_ms = now_ms.saturating_add(plan.conf.enforcement_window_ms);
    let weighed: Vec<ReplannedReservation<'_>> = reservations
        .iter()
        .filter(|(_, _, record)| {
            record
                .allocation
                .span()
                .is_some_and(|(start, end)| end > now_ms && start < end_ms)
        })
        .map(|(_, sequence, record)| ReplannedReservation {
            sequence: *sequence,
            acceptance_ms: record.acceptance_ms,
            allocation: &record.allocation,
        })
        .collect();
    replan(
        &weighed,
        plan.resources,
        cluster,
        calculator,
        now_ms,
        plan.conf.enforcement_window_ms,
    )
    .into_iter()
    .map(|sequence| {
        let acceptance_ms = weighed
            .iter()
            .find(|weighed| weighed.sequence == sequence)
            .map_or(0, |weighed| weighed.acceptance_ms);
        (sequence, acceptance_ms)
    })
    .collect()
}

fn reservation_name(state: &RmState, sequence: i64) -> String {
    yarn_proto::ids::ReservationId::new(state.cluster_timestamp_ms, sequence).to_string()
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
    /// containers, 4 GiB over [3000, 4000). An application runs in each, one in the default
    /// queue and one in the plan queue itself.
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
            // Placed before `a` ran as a plan queue.
            (4, "root.a"),
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
            true,
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
        // At 4000 reservation 2 has ended.
        let step = step_at(&state, true, 4_000);
        assert_eq!(step.queues["root.a"], vec![share(1, 250_000, 1_000_000)]);
        let moved = |application_seq, queue: &str| ExpiredApplication {
            application_seq,
            queue: queue.to_owned(),
            move_to: Some("root.a.a-default".to_owned()),
            diagnostics: String::new(),
        };
        assert_eq!(
            step.expired,
            vec![moved(2, "root.a.reservation_7_0002"), moved(4, "root.a")]
        );
        assert!(step.archive.is_empty());

        // At 3999 both hold their window; the gang keeps to its capacity.
        let step = step_at(&state, true, 3_999);
        assert_eq!(
            step.queues["root.a"],
            vec![share(1, 250_000, 1_000_000), share(2, 500_000, 500_000)]
        );
        assert_eq!(step.expired, vec![moved(4, "root.a")]);
        // Not before its window: at 999 reservation 1 has no queue yet.
        assert!(step_at(&state, true, 999).queues["root.a"].is_empty());
    }

    #[test]
    fn without_move_on_expiry_the_applications_of_an_ended_reservation_are_killed() {
        let state = state();
        let step = step_at(&state, false, 5_000);
        assert!(step.queues["root.a"].is_empty());
        let verdicts: Vec<(i32, bool)> = step
            .expired
            .iter()
            .map(|expired| (expired.application_seq, expired.move_to.is_none()))
            .collect();
        assert_eq!(verdicts, vec![(1, true), (2, true), (4, false)]);
        let diagnostics = &step.expired[0].diagnostics;
        assert!(diagnostics.contains("reservation_7_0001"), "{diagnostics}");
    }

    #[test]
    fn a_plan_that_lost_resources_drops_the_reservations_accepted_last_within_the_window() {
        let state = state();
        let mut small = plan(true);
        // 5 GiB: at 3000 the two hold 6; reservation 2 was accepted last (by sequence).
        small.resources = Resource::new(5 * GIB, 8);
        let step = plan_step(
            &state,
            &[small.clone()],
            Resource::new(16 * GIB, 16),
            ResourceCalculator::Default,
            0,
            true,
        );
        assert_eq!(step.replanned, vec![(2, 0)]);
        assert!(step.queues["root.a"].is_empty(), "nothing active at 0");
        // Killed instead of moved, its application is told why.
        let mut killing = plan(false);
        killing.resources = Resource::new(5 * GIB, 8);
        let step = plan_step(
            &state,
            &[killing],
            Resource::new(16 * GIB, 16),
            ResourceCalculator::Default,
            3_000,
            true,
        );
        let killed = step
            .expired
            .iter()
            .find(|expired| expired.application_seq == 2)
            .expect("application 2 leaves");
        assert!(killed.diagnostics.contains("was dropped"), "{killed:?}");
        // Not before the leader knows the whole cluster.
        let step = plan_step(
            &state,
            &[small.clone()],
            Resource::new(16 * GIB, 16),
            ResourceCalculator::Default,
            0,
            false,
        );
        assert!(step.replanned.is_empty());
        // With an enforcement window ending before 3000, nothing goes yet.
        small.conf.enforcement_window_ms = 3_000;
        let step = plan_step(
            &state,
            &[small],
            Resource::new(16 * GIB, 16),
            ResourceCalculator::Default,
            0,
            true,
        );
        assert!(step.replanned.is_empty());
    }

    #[test]
    fn reservations_that_ended_a_whole_window_ago_are_archived() {
        let state = state();
        assert!(step_at(&state, true, 24 * HOUR_MS).archive.is_empty());
        assert_eq!(
            step_at(&state, true, 24 * HOUR_MS + 4_000).archive,
            vec![(2, 0)]
        );
        assert_eq!(
            step_at(&state, true, 24 * HOUR_MS + 5_000).archive,
            vec![(1, 0), (2, 0)]
        );
    }
}
