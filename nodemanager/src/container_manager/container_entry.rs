//! [`ContainerEntry`]: one container as the container manager knows it.

use yarn_proto::pb;

use crate::executor::{ContainerHandle, KillRequest};
use crate::state_store::ContainerRecord;

/// Where a container is in its life on this node.
#[derive(Debug, Clone)]
pub(super) enum EntryState {
    /// Accepted and waiting in the container scheduler's queue.
    Scheduled,
    /// The scheduler started it; the runner has not launched it yet.
    Launching,
    /// Launched (or re-acquired after a restart).
    Running {
        /// Stops and watches the container.
        handle: ContainerHandle,
    },
    /// Ended, or refused, shed or stopped before it ran; kept until the ResourceManager has
    /// acknowledged it.
    Completed {
        /// The exit status reported.
        exit_code: i32,
        /// Why it ended.
        diagnostics: String,
    },
}

/// A container accepted by this node: what it runs, under which token, and where it stands.
///
/// Kept by the container manager until the ResourceManager lists it in
/// `containers_to_be_removed_from_nm` after its completion.
#[derive(Debug, Clone)]
pub(super) struct ContainerEntry {
    /// What was accepted, as the state store keeps it; the execution type and token version
    /// follow promotions and demotions.
    pub(super) record: ContainerRecord,
    /// The latest container token's identifier, for what statuses report beyond the record
    /// (priority, creation time, allocation request id).
    pub(super) identifier: pb::ContainerTokenIdentifierProto,
    /// Where it stands.
    pub(super) state: EntryState,
    /// The stop under way, if the container was told to die.
    pub(super) kill: Option<KillRequest>,
}

impl ContainerEntry {
    /// A container just accepted into the scheduler's care.
    pub(super) fn scheduled(
        record: ContainerRecord,
        identifier: pb::ContainerTokenIdentifierProto,
    ) -> Self {
        Self {
            record,
            identifier,
            state: EntryState::Scheduled,
            kill: None,
        }
    }

    /// Whether the container has ended.
    pub(super) fn is_completed(&self) -> bool {
        matches!(self.state, EntryState::Completed { .. })
    }

    /// Ends the container with `exit_code` and `diagnostics`; an entry already completed keeps
    /// what was reported first.
    pub(super) fn complete(&mut self, exit_code: i32, diagnostics: String) {
        if !self.is_completed() {
            self.state = EntryState::Completed {
                exit_code,
                diagnostics,
            };
        }
    }

    /// The handle of a running container.
    pub(super) fn handle(&self) -> Option<&ContainerHandle> {
        match &self.state {
            EntryState::Running { handle } => Some(handle),
            EntryState::Scheduled | EntryState::Launching | EntryState::Completed { .. } => None,
        }
    }
}
