//! The replicated state and the commands that change it.

mod admission;
mod application;
mod application_lifecycle;
mod application_lifetimes;
mod attempt_failures;
mod auto_created_queues;
mod cluster_node_labels;
mod command;
mod completed_applications;
mod container;
mod container_resize;
mod container_table;
mod container_update;
mod container_updates;
mod master_keys;
mod preemption_round;
mod queue_config_history;
mod remote_allocation;
mod reservation_table;
mod response;
mod retired_applications;
mod state;
mod state_digest;
mod state_format_1;
mod state_view;
#[cfg(test)]
pub(crate) mod test_fixtures;

pub use admission::Admission;
pub use application::{
    ApplicationRecord, ApplicationState, AttemptRecord, AttemptState, FinalStatus,
};
pub use application_lifecycle::{KILLED_AFTER_APP_COMPLETION, KILLED_BY_RESOURCEMANAGER};
pub use application_lifetimes::LIFETIME_EXCEEDED;
pub use attempt_failures::{APPLY_RULES, PREEMPTED, am_exit_counts};
pub use command::{CommandV1, RmCommand};
pub use container::{
    ContainerCompletion, ContainerKey, ContainerRecord, ContainerState, ExecutionType,
};
pub use container_resize::ContainerResize;
pub use container_table::{
    ABORTED, AllocationRejection, ContainerTable, LOST_NODE_DIAGNOSTIC, epoch_start,
};
pub use container_update::{ContainerUpdate, ContainerUpdateRejection};
pub use master_keys::{
    MasterKeyChange, MasterKeyKind, MasterKeyPair, MasterKeyRejection, MasterKeys, StoredMasterKey,
};
pub use preemption_round::ContainerWaits;
pub use queue_config_history::QueueConfigHistory;
pub use remote_allocation::RemoteAllocationRejection;
pub use reservation_table::{
    ReservationChange, ReservationQueueShare, ReservationRecord, ReservationTable,
};
pub use response::RmResponse;
pub use retired_applications::{RetiredApplications, RetiredCounts};
pub use state::RmState;
pub use state_digest::{AppliedPosition, StateDigest};
pub(crate) use state_format_1::RmStateFormat1;
pub use state_view::StateView;
