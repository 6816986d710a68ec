//! The NodeManager's container manager: the ContainerManagementProtocol service, the thin async
//! shell around the [`ContainerScheduler`](crate::container_scheduler::ContainerScheduler), and
//! recovery after a NodeManager restart, after YARN's `ContainerManagerImpl`.
//!
//! [`ContainerManager`] is the shared core. Each RPC checks its containers one by one (one bad
//! container never fails the batch), then takes the one std mutex around the scheduler and the
//! container entries, asks the scheduler, and hands the resulting
//! [`SchedulerAction`](crate::container_scheduler::SchedulerAction)s, in the order they were
//! decided, to a single runner task. That task does all the slow work in that same order
//! (launches, kills, state-store writes) and waits for every container to exit, feeding
//! completions back to the scheduler through the same path.
//!
//! ```text
//!  AM ── StartContainers ──> ContainerManagerService ──> ContainerManager::start_one
//!        (NM token in the       (role check)               admit_start, container token,
//!         request metadata)                                NM token, replay record, store queued
//!                                                                  │
//!                              ┌── lock: ManagerState { ContainerScheduler, entries } ──┐
//!                              │   schedule / stop / update / set_queuing_limit          │
//!                              └──── SchedulerActions, in order ──> Work (mpsc) ─────────┘
//!                                                                  │
//!                                                                  v
//!                         ActionRunner: launch ─> store running ─> wait ─> store completed
//!                                       kill (SIGTERM, SIGKILL)         └─> container_completed
//!                                       store completed / keys / removals     (back to the lock)
//!
//!  NodeStatusUpdater <── NodeStatusSource: statuses, queue load, keys, heartbeat response
//! ```
//!
//! The application master's NM token travels in the gRPC metadata under
//! [`NM_TOKEN_METADATA_KEY`](yarn_proto::token_metadata::NM_TOKEN_METADATA_KEY); every start,
//! stop, status and update must carry one for the application of the container it names.

mod action_runner;
mod container_entry;
#[allow(clippy::module_inception)]
mod container_manager;
mod container_manager_dispatcher;
mod container_manager_service;
mod container_refusal;
mod container_report;
mod container_update;
mod launch_context;
mod manager_core;
mod manager_state;
mod node_status;
mod recovery;
mod status;
mod work;

use action_runner::ActionRunner;
use container_entry::{ContainerEntry, EntryState};
use manager_core::ManagerCore;
use manager_state::ManagerState;
use recovery::RestoredContainers;
use work::Work;

pub use container_manager::{
    ContainerManager, KILLED_BY_APPMASTER_DIAGNOSTIC, KILLED_BY_RESOURCEMANAGER_DIAGNOSTIC,
};
pub use container_manager_dispatcher::ContainerManagerDispatcher;
pub use container_manager_service::ContainerManagerService;
pub use container_refusal::ContainerRefusal;
pub use container_report::ContainerReport;
