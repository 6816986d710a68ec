//! [`ManagerCore`]: what the container manager and its runner task share.

use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard, PoisonError};

use tokio::sync::{mpsc, watch};
use yarn_proto::ids::NodeId;

use super::{ManagerState, Work};
use crate::NmStateStore;
use crate::container_scheduler::{ContainerRequest, SchedulerAction};
use crate::node_status_updater::Connection;
use crate::token_check::NmTokenKeys;

/// The container manager's shared state: the books under one lock, the token keys, the state
/// store, the node's connection with the ResourceManager, and the queue of [`Work`] for the
/// runner task.
#[derive(Debug)]
pub(super) struct ManagerCore {
    /// This node.
    pub(super) node_id: NodeId,
    /// This node's web port, for containers' `NM_HTTP_PORT`.
    pub(super) http_port: u16,
    /// The first of `yarn.nodemanager.log-dirs`, which receives containers' output.
    pub(super) log_root: PathBuf,
    /// The NodeManager state store.
    pub(super) store: NmStateStore,
    /// Whether the node may start containers, and under which RM epoch.
    pub(super) connection: watch::Receiver<Connection>,
    // std Mutex: held only for bookkeeping, never across an .await.
    state: Mutex<ManagerState>,
    // std Mutex: held only to check or install keys, never across an .await.
    keys: Mutex<NmTokenKeys>,
    work: mpsc::UnboundedSender<Work>,
    // Bumped after every decision, so that a waiter never misses a completion.
    changes: watch::Sender<u64>,
}

impl ManagerCore {
    /// A core over `state` and `keys`, and the receiving end of its work queue.
    ///
    /// The queue is unbounded so that work can be queued under the lock without waiting; it
    /// holds at most a few entries per container the node knows, since every piece of work is
    /// about one container or one key.
    pub(super) fn new(
        node_id: NodeId,
        http_port: u16,
        log_root: PathBuf,
        store: NmStateStore,
        connection: watch::Receiver<Connection>,
        state: ManagerState,
        keys: NmTokenKeys,
    ) -> (Self, mpsc::UnboundedReceiver<Work>) {
        let (work, queue) = mpsc::unbounded_channel();
        let core = Self {
            node_id,
            http_port,
            log_root,
            store,
            connection,
            state: Mutex::new(state),
            keys: Mutex::new(keys),
            work,
            changes: watch::Sender::new(0),
        };
        (core, queue)
    }

    /// Runs `decide` on the books under the lock, then books every scheduler action it pushed,
    /// in order, and queues their work before the lock is released, so the runner carries out
    /// decisions in the order they were taken.
    pub(super) fn decide<R>(
        &self,
        decide: impl FnOnce(&mut ManagerState, &mut Vec<SchedulerAction>) -> R,
    ) -> R {
        let mut state = self.lock_state();
        let mut actions = Vec::new();
        let result = decide(&mut state, &mut actions);
        for action in actions {
            if let Some(work) = state.apply(action) {
                self.send(work);
            }
        }
        drop(state);
        self.changes
            .send_modify(|version| *version = version.wrapping_add(1));
        result
    }

    /// Stores a container's update; a failed write is logged, as the update is in force and
    /// only a restart before the next write of the container would forget it.
    pub(super) async fn store_update(&self, request: &ContainerRequest, identifier: &[u8]) {
        if let Err(err) = self
            .store
            .store_container_updated(request, identifier)
            .await
        {
            tracing::error!(container_id = %request.id, %err, "cannot store a container update");
        }
    }

    /// Reads the books under the lock.
    pub(super) fn read<R>(&self, read: impl FnOnce(&ManagerState) -> R) -> R {
        read(&self.lock_state())
    }

    /// Reads or changes the token keys under their lock.
    pub(super) fn with_keys<R>(&self, with: impl FnOnce(&mut NmTokenKeys) -> R) -> R {
        with(&mut self.keys.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Queues work for the runner. Once the runner is gone (the manager is being dropped)
    /// nothing is left to do it, and the work is dropped.
    pub(super) fn send(&self, work: Work) {
        if self.work.send(work).is_err() {
            tracing::debug!("container manager runner gone; dropping work");
        }
    }

    /// A receiver that sees a change after every decision from now on.
    pub(super) fn changes(&self) -> watch::Receiver<u64> {
        self.changes.subscribe()
    }

    fn lock_state(&self) -> MutexGuard<'_, ManagerState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
