//! Container preemption: the decisions of Hadoop's `ProportionalCapacityPreemptionPolicy`, as
//! pure functions of a snapshot of the queues.
//!
//! A round takes the queue tree with each queue's guarantee, maximum, usage and demand
//! ([`PreemptionQueue`]) and computes, level by level, the share of its parent's resources each
//! queue would hold if the cluster were divided fairly now ([`IdealAssignment`]): every queue
//! gets what it uses up to its guarantee, and what is left is offered to the queues that still
//! ask for more, most underserved (lowest share of its guarantee) first, in proportion to their
//! guarantees and never beyond a queue's maximum capacity. A leaf that uses more than its ideal
//! share is over-served by the difference; the round reclaims at most
//! `total_preemption_per_round` of the cluster per level, ignores a leaf within
//! `max_ignored_over_capacity` of its guarantee (the dead zone that keeps queues from
//! oscillating around the balance), and asks only `natural_termination_factor` of the rest,
//! since containers also end on their own ([`PreemptionSettings`]).
//!
//! [`select_candidates`] then picks the containers that give it back from each such leaf, least
//! important applications and containers first, ApplicationMasters last, and
//! [`PreemptionWaits`] keeps when each was first chosen: a container is announced to its
//! ApplicationMaster when first chosen and killed when still chosen `max_wait_before_kill`
//! later.
//!
//! With intra-queue preemption on, [`select_within_leaf`] then has each leaf take back from
//! its own applications for its more important ones, or for users above their user limit
//! for those below it ([`IntraQueueSettings`]); a `fair` leaf takes from the applications above
//! an equal share for those below it.
//!
//! Nothing here reads a clock, draws random numbers or does I/O: the same snapshot always gives
//! the same targets, which is what lets a leader's decisions be replayed and checked.
//!
//! Differences from Hadoop: one partition (yarn-ha has no node labels), no queue priorities in
//! the ordering of underserved queues (ties go to the queue whose path sorts first, where
//! Hadoop's heap order is arbitrary), and the resource calculator compares against the whole
//! cluster at every level, where Hadoop passes the parent's ideal share as the "cluster" of its
//! comparisons (the two agree for the memory-only calculator).

mod candidate_selection;
mod ideal_assignment;
#[cfg(test)]
mod ideal_assignment_tests;
mod intra_queue_fair;
mod intra_queue_selection;
mod intra_queue_settings;
#[cfg(test)]
mod intra_queue_tests;
mod leaf_containers;
mod preemption_queue;
mod preemption_settings;
mod preemption_snapshot;
mod preemption_waits;

pub use candidate_selection::select_candidates;
pub use ideal_assignment::{IdealAssignment, QueueTarget};
pub use intra_queue_selection::select_within_leaf;
pub use intra_queue_settings::{
    IntraQueueOrder, IntraQueueSettings, MAX_ALLOWABLE_LIMIT_KEY, MINIMUM_THRESHOLD_KEY,
    PREEMPTION_ORDER_POLICY_KEY,
};
pub use leaf_containers::{LeafContainers, RunningApplication, RunningContainer};
pub use preemption_queue::PreemptionQueue;
pub use preemption_settings::PreemptionSettings;
pub use preemption_snapshot::{PreemptionDecision, PreemptionSnapshot};
pub use preemption_waits::{PreemptionWaits, WaitVerdicts};
