//! [`RestoredContainers`]: the containers and keys a restarted NodeManager takes back from its
//! state store.

use std::collections::{BTreeMap, HashMap};

use prost::Message;
use yarn_proto::ids::ContainerId;
use yarn_proto::pb;
use yarn_security::TokenKind;

use super::{ContainerEntry, EntryState, Work};
use crate::ContainerExecutor;
use crate::container_scheduler::{ContainerScheduler, KILLED_BY_CONTAINER_SCHEDULER};
use crate::executor::{ContainerExit, ContainerHandle};
use crate::state_store::{ContainerRecordState, MasterKeyPair, RecoveredContainer};
use crate::token_check::{NmKeyKind, NmTokenKeys};

/// The containers of a [`RecoveredState`](crate::state_store::RecoveredState), back in the
/// container manager's books and the container scheduler.
#[derive(Debug, Default)]
pub(super) struct RestoredContainers {
    /// Every container, by id.
    pub(super) containers: BTreeMap<ContainerId, ContainerEntry>,
    /// The handles of re-acquired containers, for the runner to watch.
    pub(super) running: Vec<ContainerHandle>,
    /// Completions to store, of containers that could not be taken back.
    pub(super) work: Vec<Work>,
}

impl RestoredContainers {
    /// Takes the containers back, as YARN's NodeManager recovers them:
    ///
    /// - running ones (in launch order) are re-acquired by pid and handed to the scheduler as
    ///   running; one that has ended meanwhile comes back with its exit (or as lost, exit code
    ///   154, with a diagnostic saying why) and completes like any other, and one whose pid
    ///   cannot be re-acquired completes at once as lost;
    /// - queued ones (in acceptance order) go back into the scheduler's queues; one that no
    ///   longer fits the node completes with the scheduler's exit status and the reason;
    /// - completed ones are kept to be reported until the ResourceManager acknowledges them.
    ///
    /// The caller ends the scheduler's recovery afterwards.
    pub(super) fn restore(
        running: Vec<RecoveredContainer>,
        queued: Vec<RecoveredContainer>,
        completed: Vec<RecoveredContainer>,
        scheduler: &mut ContainerScheduler,
        executor: &ContainerExecutor,
    ) -> Self {
        let mut restored = Self::default();
        for container in running {
            let mut entry = restored_entry(&container);
            let container_id = entry.record.container_id;
            let reacquired = match container.reacquire_spec() {
                Some(spec) => executor.reacquire(spec).map_err(|err| err.to_string()),
                None => Err("no pid was stored for it".to_owned()),
            };
            let recovered = reacquired.and_then(|handle| {
                scheduler
                    .recover_running(entry.record.container_request())
                    .map(|()| handle)
                    .map_err(|err| err.to_string())
            });
            match recovered {
                Ok(handle) => {
                    entry.state = EntryState::Running {
                        handle: handle.clone(),
                    };
                    restored.running.push(handle);
                }
                Err(reason) => {
                    let diagnostics = format!(
                        "Container {container_id} could not be re-acquired after a NodeManager \
                         restart: {reason}. It is reported as lost (exit code {}).",
                        ContainerExit::LOST
                    );
                    restored.fail(&mut entry, ContainerExit::LOST, diagnostics);
                }
            }
            restored.containers.insert(container_id, entry);
        }
        for container in queued {
            let mut entry = restored_entry(&container);
            if let Err(err) = scheduler.recover_queued(entry.record.container_request()) {
                restored.fail(&mut entry, KILLED_BY_CONTAINER_SCHEDULER, err.to_string());
            }
            restored.containers.insert(entry.record.container_id, entry);
        }
        for container in completed {
            let entry = restored_entry(&container);
            restored.containers.insert(entry.record.container_id, entry);
        }
        restored
    }

    /// Completes a container that cannot be taken back, and queues the storing of that.
    fn fail(&mut self, entry: &mut ContainerEntry, exit_code: i32, diagnostics: String) {
        tracing::warn!(container_id = %entry.record.container_id, %diagnostics, "container not recovered");
        entry.complete(exit_code, diagnostics.clone());
        self.work.push(Work::StoreCompleted {
            container_id: entry.record.container_id,
            exit_code,
            diagnostics,
        });
    }
}

/// The entry of a stored container, in its stored state; a running one stays `Scheduled` until
/// it is re-acquired.
fn restored_entry(container: &RecoveredContainer) -> ContainerEntry {
    let record = container.record.clone();
    let identifier =
        pb::ContainerTokenIdentifierProto::decode(record.container_token_identifier.as_slice())
            .unwrap_or_else(|err| {
                // Only what statuses report beyond the record (priority, creation time) is lost.
                tracing::warn!(container_id = %record.container_id, %err, "stored container token identifier does not decode");
                pb::ContainerTokenIdentifierProto::default()
            });
    let mut entry = ContainerEntry::scheduled(record, identifier);
    if let ContainerRecordState::Completed {
        exit_code,
        diagnostics,
        ..
    } = &container.state
    {
        entry.complete(*exit_code, diagnostics.clone());
    }
    entry
}

/// The token keys as last persisted; kinds other than container and NM tokens are ignored.
pub(super) fn restored_keys(master_keys: HashMap<TokenKind, MasterKeyPair>) -> NmTokenKeys {
    let mut keys = NmTokenKeys::new();
    for (token_kind, pair) in master_keys {
        if let Some(kind) = NmKeyKind::ALL
            .into_iter()
            .find(|kind| kind.token_kind() == token_kind)
        {
            keys.restore(kind, pair.current, pair.previous);
        }
    }
    keys
}
