//! [`ActionRunner`]: the task that carries out the container manager's decisions.

use std::collections::BTreeSet;
use std::sync::Arc;

use tokio::sync::mpsc;
use tokio::task::JoinSet;
use yarn_proto::ids::{ApplicationId, ContainerId};

use super::{EntryState, ManagerCore, Work};
use crate::executor::{ContainerExit, ContainerHandle};
use crate::{ContainerExecutor, Error};
use yarn_security::now_ms;

/// The exit status of a container whose launch failed (its directories, files or shell could
/// not be set up), as YARN reports a container whose launch threw.
pub(super) const LAUNCH_FAILED_EXIT_CODE: i32 = -1;

/// Pid stored for a container without a process (a simulated one): no re-acquisition can take
/// over pid 0, so a restarted NodeManager reports such a container lost.
const NO_PID: u32 = 0;

/// Owns the executor, does the container manager's [`Work`] one item at a time in queue order,
/// and waits for every launched or re-acquired container to exit.
///
/// Doing the work in one task, in order, is what keeps the executor and the state store in step
/// with the scheduler: a container is launched and stored running before any kill that was
/// decided after its start, and stored running before it is stored completed. A container's exit
/// is stored, then booked, then fed to the scheduler, whose next actions join the queue behind
/// the work already there.
pub(super) struct ActionRunner {
    core: Arc<ManagerCore>,
    executor: ContainerExecutor,
    queue: mpsc::UnboundedReceiver<Work>,
    exits: JoinSet<(ContainerId, Result<ContainerExit, Error>)>,
    /// Applications the ResourceManager reported finished whose cleanup waits for their
    /// last container on the node to end, as Hadoop's NodeManager waits before it removes an
    /// application's resources.
    finished_applications: BTreeSet<ApplicationId>,
}

impl ActionRunner {
    /// A runner for `core`'s queue, already watching the `running` containers (re-acquired
    /// after a restart).
    pub(super) fn new(
        core: Arc<ManagerCore>,
        executor: ContainerExecutor,
        queue: mpsc::UnboundedReceiver<Work>,
        running: Vec<ContainerHandle>,
    ) -> Self {
        let mut runner = Self {
            core,
            executor,
            queue,
            exits: JoinSet::new(),
            finished_applications: BTreeSet::new(),
        };
        for handle in running {
            runner.watch(handle);
        }
        runner
    }

    /// Runs until the queue closes, which happens only when the container manager is gone.
    ///
    /// It is aborted when the container manager is dropped, at any `.await`: the executor is
    /// then dropped with it, which leaves process containers running for a restarted
    /// NodeManager to re-acquire, and a write under way either happened or not (see the state
    /// store's durability contract).
    pub(super) async fn run(mut self) {
        loop {
            tokio::select! {
                work = self.queue.recv() => match work {
                    Some(work) => self.carry_out(work).await,
                    None => return,
                },
                Some(joined) = self.exits.join_next(), if !self.exits.is_empty() => match joined {
                    Ok((container_id, Ok(exit))) => self.exited(container_id, exit).await,
                    Ok((container_id, Err(err))) => {
                        tracing::debug!(%container_id, %err, "stopped watching a container");
                    }
                    Err(err) => tracing::error!(%err, "a container watch task failed"),
                },
            }
        }
    }

    async fn carry_out(&mut self, work: Work) {
        match work {
            Work::Launch { container_id } => self.launch(container_id).await,
            Work::Kill {
                container_id,
                request,
            } => {
                let handle = self.core.read(|state| {
                    state
                        .containers
                        .get(&container_id)
                        .and_then(|entry| entry.handle().cloned())
                });
                // No handle: the launch failed and the container is already complete.
                if let Some(handle) = handle {
                    handle.stop(request);
                }
            }
            Work::StoreCompleted {
                container_id,
                exit_code,
                diagnostics,
            } => {
                self.store_completed(container_id, exit_code, &diagnostics)
                    .await
            }
            Work::ApplyLimits {
                container_id,
                memory_mb,
            } => {
                let running = self.core.read(|state| {
                    state
                        .containers
                        .get(&container_id)
                        .is_some_and(|entry| entry.handle().is_some())
                });
                // One still launching starts with the size its record now holds.
                if running
                    && let Err(err) = self
                        .executor
                        .update_memory_limit(container_id, memory_mb)
                        .await
                {
                    tracing::error!(%container_id, memory_mb, %err, "cannot apply a resized container's memory limit");
                }
            }
            Work::StoreUpdate {
                request,
                identifier,
            } => self.core.store_update(&request, &identifier).await,
            Work::StoreKeys { kind, keys } => {
                if let Err(err) = self
                    .core
                    .store
                    .store_master_keys(kind.token_kind(), &keys)
                    .await
                {
                    tracing::error!(%kind, %err, "cannot persist master keys; a restart before the next key roll will not verify tokens signed under them");
                }
            }
            Work::ApplicationFinished { application_id } => {
                self.finished_applications.insert(application_id);
                self.clean_up_finished_applications().await;
            }
            Work::RemoveRecords { container_ids } => {
                for container_id in container_ids {
                    if let Err(err) = self.core.store.remove_container(container_id).await {
                        tracing::warn!(%container_id, %err, "cannot remove the record of a completed container");
                    }
                }
            }
        }
    }

    async fn launch(&mut self, container_id: ContainerId) {
        let (node, http_port) = (&self.core.node_id, self.core.http_port);
        let spec = self.core.read(|state| {
            state
                .containers
                .get(&container_id)
                .filter(|entry| matches!(entry.state, EntryState::Launching))
                .map(|entry| entry.record.launch_spec(&node.host, node.port, http_port))
        });
        let Some(spec) = spec else {
            tracing::warn!(%container_id, "not launching a container that is no longer waiting for its launch");
            return;
        };
        match self.executor.launch(spec).await {
            Ok(handle) => {
                let pid = handle.pid().unwrap_or(NO_PID);
                if let Err(err) = self
                    .core
                    .store
                    .store_container_running(container_id, pid, now_ms())
                    .await
                {
                    tracing::error!(%container_id, pid, %err, "cannot store a launched container; a restarted NodeManager will not re-acquire it");
                }
                let watched = handle.clone();
                self.core.decide(|state, _| state.launched(handle));
                self.watch(watched);
            }
            Err(err) => {
                tracing::warn!(%container_id, %err, "container launch failed");
                let exit = ContainerExit {
                    exit_code: LAUNCH_FAILED_EXIT_CODE,
                    diagnostics: format!("Container {container_id} could not be launched: {err}"),
                };
                self.exited(container_id, exit).await;
            }
        }
    }

    /// Stores a container's end, then books it and lets the scheduler start what now fits.
    async fn exited(&mut self, container_id: ContainerId, exit: ContainerExit) {
        self.store_completed(container_id, exit.exit_code, &exit.diagnostics)
            .await;
        self.core.decide(|state, actions| {
            state.completed(container_id, exit.exit_code, exit.diagnostics, actions);
        });
        self.clean_up_finished_applications().await;
    }

    /// Cleans up after every finished application with no container left to end on the node.
    async fn clean_up_finished_applications(&mut self) {
        let waiting = &self.finished_applications;
        let done: Vec<ApplicationId> = self.core.read(|state| {
            waiting
                .iter()
                .filter(|application_id| {
                    !state.containers.iter().any(|(container_id, entry)| {
                        container_id.application_id() == **application_id && !entry.is_completed()
                    })
                })
                .copied()
                .collect()
        });
        for application_id in done {
            self.finished_applications.remove(&application_id);
            self.executor.application_finished(application_id).await;
        }
    }

    async fn store_completed(&self, container_id: ContainerId, exit_code: i32, diagnostics: &str) {
        if let Err(err) = self
            .core
            .store
            .store_container_completed(container_id, exit_code, diagnostics, now_ms())
            .await
        {
            tracing::error!(%container_id, exit_code, %err, "cannot store a container's completion");
        }
    }

    fn watch(&mut self, handle: ContainerHandle) {
        self.exits.spawn(async move {
            let exit = handle.wait().await;
            (handle.container_id(), exit)
        });
    }
}
