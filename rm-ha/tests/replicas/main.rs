//! The real ResourceManager replica, three (or four) of them in this process over mutual TLS:
//! leadership, refusals with hints, failover without loss, deposed leaders, membership changes,
//! leadership transfer, recovery from storage, state digests, unmanaged ApplicationMasters and
//! who may view an application.

mod applications;
mod auto_created_queues;
mod distributed_scheduling;
mod failover;
mod lifetimes;
mod managed_parent_queues;
mod membership;
mod node_labels;
mod placement;
mod pre_vote;
mod preemption;
mod promotion;
mod reservations;
mod resize;
mod resource_tracker;
mod restart;
mod retirement;
mod scheduler_conf;
mod scheduling;
mod state_digest;
mod submission_limits;
mod support;
mod test_am;
mod unmanaged_am;
mod view_access;
