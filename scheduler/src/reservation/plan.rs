//! [`Plan`]: the reservations of one reservable queue over time, and admission of a new one.

use crate::Resource;
use crate::ResourceCalculator;

use super::greedy_agent::{PlacementRefusal, PlanCapacity, place};
use super::reservation_definition::ReservationDefinition;
use super::resource_timeline::ResourceTimeline;
use super::sharing_policy::{PolicyRefusal, SharingPolicy};

/// One accepted reservation, as a plan weighs it: whose it is and what it holds when.
#[derive(Debug, Clone, Copy)]
pub struct Booking<'a> {
    /// The user who submitted it.
    pub user: &'a str,
    /// What it holds over time.
    pub allocation: &'a ResourceTimeline,
}

/// The plan of one reservable queue (Hadoop's `InMemoryPlan`): its capacity (the queue's
/// guaranteed share of the cluster), the reservations it holds, the sharing policy each user's
/// reservations keep, and the calculator and time step of its arithmetic.
///
/// Guarantee: a definition [`admit`](Self::admit) accepts fits with every booking at every
/// instant and keeps its user within the policy, so a plan built only from admitted
/// allocations never promises more than its capacity.
#[derive(Debug, Clone)]
pub struct Plan<'a> {
    /// What the plan may hand out at any instant.
    pub capacity: Resource,
    /// The limits of one user's reservations.
    pub policy: SharingPolicy,
    /// Memory only, or dominant resource fairness.
    pub calculator: ResourceCalculator,
    /// The plan's time step, in milliseconds.
    pub step_ms: i64,
    /// Whether stages are placed as early as allowed rather than as late.
    pub favor_early: bool,
    /// The reservations already accepted (for an update, without the one it replaces).
    pub bookings: Vec<Booking<'a>>,
}

/// Why a definition was not admitted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AdmissionRefusal {
    /// The plan has no room for it.
    #[error("{0}")]
    NoRoom(#[from] PlacementRefusal),
    /// Its user would break the queue's sharing policy.
    #[error("{0}")]
    Policy(#[from] PolicyRefusal),
}

impl Plan<'_> {
    /// Places `definition` for `user` and checks the sharing policy: the allocation to commit.
    ///
    /// # Errors
    ///
    /// [`AdmissionRefusal`] with the stage that found no room or the limit it would break.
    pub fn admit(
        &self,
        user: &str,
        definition: &ReservationDefinition,
    ) -> Result<ResourceTimeline, AdmissionRefusal> {
        let booked = self.booked();
        let users = self.bookings.iter().filter(|booking| booking.user == user);
        let mut user_total = ResourceTimeline::sum(users.map(|booking| booking.allocation));
        let instantaneous = self
            .capacity
            .multiply_and_round_down(self.policy.instantaneous_max);
        let allocation = place(
            definition,
            PlanCapacity {
                capacity: self.capacity,
                booked: &booked,
                user: Some((instantaneous, &user_total)),
                calculator: self.calculator,
                step_ms: self.step_ms,
                favor_early: self.favor_early,
            },
        )?;
        user_total.add_timeline(&allocation);
        let span = allocation.span().unwrap_or((0, 0));
        self.policy
            .check(&user_total, span, self.capacity, self.calculator)?;
        Ok(allocation)
    }

    /// Everything booked, over time.
    pub fn booked(&self) -> ResourceTimeline {
        ResourceTimeline::sum(self.bookings.iter().map(|booking| booking.allocation))
    }
}

#[cfg(test)]
mod tests {
    use super::super::reservation_definition::{RequestInterpreter, ReservationStage};
    use super::*;

    fn gb(memory_gb: u64) -> Resource {
        Resource::new(memory_gb * 1024, u32::try_from(memory_gb).unwrap())
    }

    fn definition(containers: i32, duration_ms: i64) -> ReservationDefinition {
        ReservationDefinition {
            arrival_ms: 0,
            deadline_ms: 10_000,
            stages: vec![ReservationStage {
                capability: gb(1),
                num_containers: containers,
                concurrency: containers,
                duration_ms,
            }],
            interpreter: RequestInterpreter::All,
            name: String::new(),
            priority: 0,
        }
    }

    fn plan(bookings: Vec<Booking<'_>>) -> Plan<'_> {
        Plan {
            capacity: gb(10),
            policy: SharingPolicy {
                instantaneous_max: 0.6,
                average: 0.5,
                window_ms: 10_000,
            },
            calculator: ResourceCalculator::Default,
            step_ms: 1_000,
            favor_early: false,
            bookings,
        }
    }

    #[test]
    fn a_second_reservation_goes_around_the_first() {
        let first = plan(vec![]).admit("alice", &definition(6, 4_000)).unwrap();
        assert_eq!(first, ResourceTimeline::of(6_000, 10_000, gb(6)));
        let booking = Booking {
            user: "alice",
            allocation: &first,
        };
        let second = plan(vec![booking])
            .admit("bob", &definition(6, 4_000))
            .unwrap();
        assert_eq!(second, ResourceTimeline::of(2_000, 6_000, gb(6)));
    }

    #[test]
    fn a_user_is_placed_where_the_policy_lets_them_and_refused_past_it() {
        // alice holds 5 of her 6 GiB at once over [5 s, 10 s): her next 5 GiB go before it,
        // where bob's go beside it.
        let first = plan(vec![]).admit("alice", &definition(5, 5_000)).unwrap();
        let bookings = vec![Booking {
            user: "alice",
            allocation: &first,
        }];
        let alices = plan(bookings.clone())
            .admit("alice", &definition(5, 4_000))
            .unwrap();
        assert_eq!(alices, ResourceTimeline::of(1_000, 5_000, gb(5)));
        let bobs = plan(bookings).admit("bob", &definition(5, 4_000)).unwrap();
        assert_eq!(bobs, ResourceTimeline::of(6_000, 10_000, gb(5)));
        // With both, alice holds 45 of the 50 GiB·s she may over the 10 s window: 6 more
        // break the average.
        let bookings = vec![
            Booking {
                user: "alice",
                allocation: &first,
            },
            Booking {
                user: "alice",
                allocation: &alices,
            },
        ];
        let refusal = plan(bookings)
            .admit("alice", &definition(1, 6_000))
            .unwrap_err();
        assert!(
            matches!(
                refusal,
                AdmissionRefusal::Policy(PolicyRefusal::Average { .. })
            ),
            "{refusal}"
        );
    }

    #[test]
    fn a_plan_with_no_room_refuses() {
        let full = ResourceTimeline::of(0, 10_000, gb(9));
        let bookings = vec![Booking {
            user: "bob",
            allocation: &full,
        }];
        let refusal = plan(bookings)
            .admit("alice", &definition(2, 1_000))
            .unwrap_err();
        assert!(matches!(refusal, AdmissionRefusal::NoRoom(_)), "{refusal}");
        assert!(refusal.to_string().contains("does not fit"), "{refusal}");
    }
}
