//! Scenario tests of the CapacityScheduler, in the style of YARN's TestLeafQueue,
//! TestParentQueue and TestCapacityScheduler: feed events, run passes, assert the decisions.

mod acquisitions;
mod activities;
mod application_limits;
mod applications;
mod auto_created_queues;
mod capacity_modes;
mod configuration;
mod heartbeat_assignments;
mod invariants;
mod locality;
mod managed_parent_queues;
mod mock;
mod moves;
mod node_labels;
mod ordering;
mod placement_rules;
mod preemption;
mod promotions;
mod queues;
mod recovery;
mod refresh;
mod reservation_queues;
mod resizes;
mod resources;
mod users;
