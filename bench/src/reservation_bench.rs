//! `yarn-ha bench reservation`: admission of a reservation into a plan that already holds
//! many, split into what the leader does while holding the replicated state (copying the
//! queue's bookings out) and what it does without (placing and checking the policy); and one
//! step of the plan follower over that plan, which holds the scheduler and the state.

use std::fmt;
use std::time::{Duration, Instant};

use serde::Serialize;
use yarn_rm_ha::scheduling::{PlanQueue, plan_step};
use yarn_rm_ha::state_machine::{
    CommandV1, ReservationChange, ReservationRecord, RmCommand, RmState,
};
use yarn_scheduler::reservation::{
    Booking, Plan, RequestInterpreter, ReservationDefinition, ReservationQueueConf,
    ReservationStage, ResourceTimeline, SharingPolicy,
};
use yarn_scheduler::{Resource, ResourceCalculator};

/// The shape of one run: a plan of `capacity_gb` GB holding `reservations` reservations of
/// `users` users spread over a week, then `admissions` more admitted and timed.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct ReservationBenchShape {
    /// Reservations in the plan before the timed admissions.
    pub reservations: usize,
    /// Admissions timed.
    pub admissions: usize,
    /// The plan's capacity, in GB (and as many vcores).
    pub capacity_gb: u64,
    /// Users the reservations belong to.
    pub users: usize,
}

/// What one run measured.
#[derive(Debug, Clone, Serialize)]
pub struct ReservationBenchRun {
    /// The run's shape.
    pub shape: ReservationBenchShape,
    /// Reservations the plan held when the admissions were timed.
    pub booked: usize,
    /// Timed admissions the plan accepted (the others found no room or broke the policy).
    pub accepted: usize,
    /// Copying the queue's bookings out of the state, the only part that holds it: median.
    pub copy_median: Duration,
    /// The same, slowest admission.
    pub copy_max: Duration,
    /// Placing and checking the policy, without the state: median.
    pub admit_median: Duration,
    /// The same, slowest admission.
    pub admit_max: Duration,
    /// Time to fill the plan, admission by admission, for scale.
    pub fill: Duration,
    /// One plan-follower step over the filled plan (sizing, expiry, replanning over its
    /// enforcement window, archiving), at instants spread over the week: median.
    pub follow_median: Duration,
    /// The same, slowest step.
    pub follow_max: Duration,
}

/// Instants of the week at which a plan-follower step is timed.
const FOLLOWER_STEPS: i64 = 21;

/// A deterministic stream of numbers (SplitMix64), so every run books the same plan.
struct Numbers(u64);

impl Numbers {
    fn next(&mut self, below: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) % below.max(1)
    }
}

const HOUR_MS: i64 = 3_600_000;

/// A reservation of 1 to 8 gangs of 1 to 4 containers of 1 to 8 GB, for 10 minutes to 4 hours,
/// somewhere in a window of up to a day that starts within the week.
fn definition(numbers: &mut Numbers) -> ReservationDefinition {
    let arrival = i64::try_from(numbers.next(7 * 24)).unwrap_or(0) * HOUR_MS;
    let window = (1 + i64::try_from(numbers.next(24)).unwrap_or(0)) * HOUR_MS;
    let duration = (10 + i64::try_from(numbers.next(230)).unwrap_or(0)) * 60_000;
    let gang = 1 + i32::try_from(numbers.next(4)).unwrap_or(0);
    let memory_gb = 1 + numbers.next(8);
    ReservationDefinition {
        arrival_ms: arrival,
        deadline_ms: arrival + window.max(duration),
        stages: vec![ReservationStage {
            capability: Resource::new(memory_gb * 1024, 1),
            num_containers: gang * (1 + i32::try_from(numbers.next(8)).unwrap_or(0)),
            concurrency: gang,
            duration_ms: duration,
        }],
        interpreter: RequestInterpreter::All,
        name: String::new(),
        priority: 0,
    }
}

/// Fills the plan of `shape`, then times `admissions` admissions as the leader makes them.
/// No Raft, no I/O.
///
/// # Errors
///
/// A shape without admissions or users.
pub fn reservation_bench(shape: ReservationBenchShape) -> anyhow::Result<ReservationBenchRun> {
    anyhow::ensure!(
        shape.admissions > 0 && shape.users > 0,
        "bench reservation needs admissions and users"
    );
    let capacity = Resource::new(
        shape.capacity_gb * 1024,
        u32::try_from(shape.capacity_gb).unwrap_or(u32::MAX),
    );
    let users: Vec<String> = (0..shape.users).map(|user| format!("user{user}")).collect();
    let mut numbers = Numbers(42);
    let mut booked: Vec<(String, ResourceTimeline)> = Vec::new();
    let admit = |booked: &[(String, ResourceTimeline)], user: &str, definition| {
        Plan {
            capacity,
            policy: SharingPolicy {
                instantaneous_max: 1.0,
                average: 1.0,
                window_ms: 24 * HOUR_MS,
            },
            calculator: ResourceCalculator::Default,
            step_ms: 1_000,
            favor_early: true,
            bookings: booked
                .iter()
                .map(|(user, allocation)| Booking { user, allocation })
                .collect(),
        }
        .admit(user, &definition)
    };
    let fill_started = Instant::now();
    let mut attempts = 0;
    while booked.len() < shape.reservations && attempts < shape.reservations * 4 {
        attempts += 1;
        let user = &users[booked.len() % users.len()];
        if let Ok(allocation) = admit(&booked, user, definition(&mut numbers)) {
            booked.push((user.clone(), allocation));
        }
    }
    let fill = fill_started.elapsed();

    let mut copies = Vec::with_capacity(shape.admissions);
    let mut admissions = Vec::with_capacity(shape.admissions);
    let mut accepted = 0;
    for index in 0..shape.admissions {
        let user = &users[index % users.len()];
        let definition = definition(&mut numbers);
        let started = Instant::now();
        let copy: Vec<(String, ResourceTimeline)> = booked.clone();
        copies.push(started.elapsed());
        let started = Instant::now();
        let outcome = admit(&copy, user, definition);
        admissions.push(started.elapsed());
        accepted += usize::from(outcome.is_ok());
    }
    copies.sort_unstable();
    admissions.sort_unstable();
    let state = replicated(&booked);
    let plan = PlanQueue {
        path: "root.a".to_owned(),
        name: "a".to_owned(),
        resources: capacity,
        conf: ReservationQueueConf {
            window_ms: 24 * HOUR_MS,
            average_capacity_percent: 100.0,
            instantaneous_max_capacity_percent: 100.0,
            no_over_commit_only: false,
            enforcement_window_ms: HOUR_MS,
            show_reservations_as_queues: false,
            move_on_expiry: true,
        },
    };
    let cluster = Resource::new(capacity.memory_mb * 2, capacity.vcores.saturating_mul(2));
    let mut steps: Vec<Duration> = (0..FOLLOWER_STEPS)
        .map(|index| {
            let now_ms = index * 7 * 24 * HOUR_MS / FOLLOWER_STEPS;
            let started = Instant::now();
            std::hint::black_box(plan_step(
                &state,
                std::slice::from_ref(&plan),
                cluster,
                ResourceCalculator::Default,
                now_ms,
                true,
            ));
            started.elapsed()
        })
        .collect();
    steps.sort_unstable();
    Ok(ReservationBenchRun {
        shape,
        booked: booked.len(),
        accepted,
        copy_median: copies[copies.len() / 2],
        copy_max: copies[copies.len() - 1],
        admit_median: admissions[admissions.len() / 2],
        admit_max: admissions[admissions.len() - 1],
        fill,
        follow_median: steps[steps.len() / 2],
        follow_max: steps[steps.len() - 1],
    })
}

/// The replicated state holding `booked` as reservations of `root.a`, as the leader commits
/// them.
fn replicated(booked: &[(String, ResourceTimeline)]) -> RmState {
    let mut state = RmState::default();
    let count = u32::try_from(booked.len()).unwrap_or(u32::MAX);
    state.apply(&RmCommand::V1(CommandV1::AllocateReservationIds { count }));
    let mut numbers = Numbers(7);
    for (sequence, (user, allocation)) in (1..).zip(booked) {
        let record = ReservationRecord {
            queue: "root.a".to_owned(),
            user: user.clone(),
            definition: definition(&mut numbers),
            allocation: allocation.clone(),
            acceptance_ms: sequence,
        };
        let expected_plan_version = state.reservations.plan_version();
        state.apply(&RmCommand::V1(CommandV1::ChangeReservation {
            sequence,
            expected_plan_version,
            change: ReservationChange::Submit(record),
        }));
    }
    state
}

impl fmt::Display for ReservationBenchRun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = |time: Duration| time.as_secs_f64() * 1e3;
        write!(
            f,
            "{:>6} reservations booked ({} GB plan, {} users): {}/{} admissions accepted; copy \
             (holds the state) median {:.2} ms max {:.2} ms; admit (placement and policy, \
             without it) median {:.2} ms max {:.2} ms; plan-follower step (holds the \
             scheduler and the state) median {:.2} ms max {:.2} ms; fill {:.1} s",
            self.booked,
            self.shape.capacity_gb,
            self.shape.users,
            self.accepted,
            self.shape.admissions,
            ms(self.copy_median),
            ms(self.copy_max),
            ms(self.admit_median),
            ms(self.admit_max),
            ms(self.follow_median),
            ms(self.follow_max),
            self.fill.as_secs_f64()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_plan_fills_and_admits() {
        let run = reservation_bench(ReservationBenchShape {
            reservations: 50,
            admissions: 5,
            capacity_gb: 1_000,
            users: 5,
        })
        .unwrap();
        assert_eq!(run.booked, 50, "a large plan takes them all");
        assert_eq!(run.accepted, 5);
    }
}
