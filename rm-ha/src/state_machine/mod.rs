//! The replicated state and the commands that change it.

mod admission;
mod application;
mod application_lifecycle;
mod command;
mod container;
mod container_table;
mod master_keys;
mod response;
mod state;
mod state_view;
#[cfg(test)]
pub(crate) mod test_fixtures;

pub use admission::Admission;
pub use application::{
    ApplicationRecord, ApplicationState, AttemptRecord, AttemptState, FinalStatus,
};
pub use application_lifecycle::{KILLED_AFTER_APP_COMPLETION, KILLED_BY_RESOURCEMANAGER};
pub use command::{CommandV1, RmCommand};
pub use container::{
    ContainerCompletion, ContainerKey, ContainerRecord, ContainerState, ExecutionType,
};
pub use container_table::{ABORTED, AllocationRejection, ContainerTable, LOST_NODE_DIAGNOSTIC};
pub use master_keys::{
    MasterKeyChange, MasterKeyKind, MasterKeyPair, MasterKeyRejection, MasterKeys, StoredMasterKey,
};
pub use response::RmResponse;
pub use state::RmState;
pub use state_view::StateView;
