//! The ReservationSystem's decisions: what a user may reserve in a reservable queue, and where
//! in time it goes (Hadoop's `reservation` and `reservation.planning` packages).
//!
//! A user defines a reservation ([`ReservationDefinition`]): stages of gangs of containers, each
//! for a duration, between an arrival and a deadline. [`Plan::admit`] places it in the queue's
//! plan as late as it fits ([`place`], Hadoop's default greedy agent) and checks that the user's
//! reservations keep the queue's [`SharingPolicy`] (Hadoop's `CapacityOverTimePolicy`); the
//! allocation it returns, a [`ResourceTimeline`], is what the leader commits.
//!
//! Nothing here reads a clock or does I/O: the same plan and definition always give the same
//! allocation, so a new leader reaches the decisions the old one would have.

mod greedy_agent;
mod plan;
mod replanner;
mod reservation_definition;
mod reservation_queue_conf;
mod reservation_queues;
mod resource_timeline;
mod sharing_policy;

pub use greedy_agent::{PlacementRefusal, PlanCapacity, place};
pub use plan::{AdmissionRefusal, Booking, Plan};
pub use replanner::{ReplannedReservation, replan};
pub use reservation_definition::{
    DefinitionRefusal, MAX_HORIZON_MS, MAX_STAGES, RequestInterpreter, ReservationDefinition,
    ReservationStage,
};
pub(crate) use reservation_queue_conf::ReservationProperty;
pub use reservation_queue_conf::ReservationQueueConf;
pub(crate) use reservation_queues::reservation_queue_conf;
pub use reservation_queues::{
    DEFAULT_QUEUE_SUFFIX, FollowedReservation, ReservationQueueSize, default_queue_capacity,
    default_queue_name, retain_queues_in_use, size_reservation_queues,
};
pub use resource_timeline::{ResourceArea, ResourceTimeline};
pub use sharing_policy::{PolicyRefusal, SharingPolicy};
