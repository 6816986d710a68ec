//! The NodeManager's container scheduler: a pure core that decides which containers start, wait
//! in a queue, are refused or are killed, after YARN's `ContainerScheduler`.
//!
//! [`ContainerScheduler`] takes events from the container manager, the executors and the RM's
//! heartbeat responses, and returns [`SchedulerAction`]s. It owns no I/O, no clock and no task;
//! the async shell launches, kills and reports containers, persists queue changes, and feeds
//! completions back.
//!
//! ```text
//!   start request ────> schedule ───────────┐
//!   stop request ─────> stop ───────────────┤
//!   token update ─────> update ─────────────┤                      Start, Queue, Reject,
//!   RM queuing limit ─> set_queuing_limit ──┼─> ContainerScheduler ─> Kill, Shed,
//!   process exit ─────> container_completed ┤           │             RemoveFromQueue
//!   NM restart ───────> recover_* ──────────┘           │                   │
//!                                                       │                   v
//!   NM heartbeat <──── opportunistic_status <───────────┘        async shell: executor,
//!                                                                  NM state store, statuses
//! ```

mod container_request;
mod execution_type;
mod opportunistic_status;
mod resources;
mod scheduler;
mod scheduler_action;
#[cfg(test)]
mod scheduler_test;

pub use container_request::ContainerRequest;
pub use execution_type::ExecutionType;
pub use opportunistic_status::OpportunisticContainersStatus;
pub use resources::Resources;
pub use scheduler::{ContainerScheduler, SchedulingState};
pub use scheduler_action::{
    DEQUEUED_DIAGNOSTIC, KILLED_BY_CONTAINER_SCHEDULER, KILLED_FOR_GUARANTEED_DIAGNOSTIC,
    QUEUE_FULL_DIAGNOSTIC, SchedulerAction,
};
