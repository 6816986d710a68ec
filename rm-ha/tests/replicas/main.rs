//! The real ResourceManager replica, three (or four) of them in this process over mutual TLS:
//! leadership, refusals with hints, failover without loss, deposed leaders, membership changes,
//! leadership transfer and recovery from storage.

mod applications;
mod distributed_scheduling;
mod failover;
mod link;
mod membership;
mod pre_vote;
mod promotion;
mod resource_tracker;
mod restart;
mod scheduling;
mod support;
