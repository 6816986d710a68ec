//! [`ContainerTable`]: every container allocated and not yet forgotten, replicated.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::{
    ContainerCompletion, ContainerKey, ContainerRecord, ContainerResize, ContainerState,
    ContainerUpdate, ContainerUpdateRejection, ExecutionType, RemoteAllocationRejection,
};

/// YARN's `ContainerExitStatus.ABORTED`: the container was released by the framework.
pub const ABORTED: i32 = -100;

/// YARN's diagnostic for a container whose node was declared LOST.
pub const LOST_NODE_DIAGNOSTIC: &str = "Container released on a *lost* node";

/// Why one allocation of a batch was not recorded. The rest of the batch is unaffected.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum AllocationRejection {
    /// The container id carries another epoch than the one in force: only the current leader
    /// allocates, so this is a deposed leader's proposal.
    StaleEpoch {
        /// The container.
        key: ContainerKey,
        /// The epoch in the id.
        epoch: i64,
        /// The epoch in force.
        current: u64,
    },
    /// The id is not above every id already issued to the application: issuing it could
    /// hand out one id twice.
    IdAlreadyIssued {
        /// The container.
        key: ContainerKey,
        /// The highest raw id issued to the application so far.
        last_issued: i64,
    },
    /// The application is unknown or already final.
    ApplicationNotLive {
        /// The container.
        key: ContainerKey,
    },
}

impl AllocationRejection {
    /// The container refused.
    pub fn key(&self) -> ContainerKey {
        match self {
            Self::StaleEpoch { key, .. }
            | Self::IdAlreadyIssued { key, .. }
            | Self::ApplicationNotLive { key } => *key,
        }
    }
}

/// The replicated container table.
///
/// Guarantees, enforced when applying (so a buggy or deposed proposer cannot break them):
/// a container id is recorded at most once, ever, per application (the RM's ids only grow);
/// only ids of the epoch in force are issued by the RM, and an AMRMProxy's only below that
/// epoch's first id, never over a recorded one; completion is final and idempotent; a
/// container's version only grows, by one per update.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContainerTable {
    containers: BTreeMap<ContainerKey, ContainerRecord>,
    /// The highest raw container id ever issued per application sequence number; it outlives
    /// the records so that an id is never issued again.
    last_issued: BTreeMap<i32, i64>,
    /// Containers an AMRMProxy placed itself (distributed scheduling): their AM got them from
    /// the proxy, and their ids come from the proxy's count down, not from `last_issued`.
    remotely_allocated: BTreeSet<ContainerKey>,
    /// The version of every container updated at least once; absent means version 0.
    versions: BTreeMap<ContainerKey, i32>,
    /// When each completion was recorded, in milliseconds since the Unix epoch, from the clock
    /// of the command that recorded it. Absent for containers completed before completion
    /// times were kept (snapshots of state format 1): their finish time is unknown.
    completed_at_ms: BTreeMap<ContainerKey, i64>,
}

impl ContainerTable {
    /// The container with this key, live or completed.
    pub fn get(&self, key: &ContainerKey) -> Option<&ContainerRecord> {
        self.containers.get(key)
    }

    /// Every container, ordered by application then id.
    pub fn iter(&self) -> impl Iterator<Item = &ContainerRecord> {
        self.containers.values()
    }

    /// Every container of one application, live or completed, in id order.
    pub fn of_application(&self, application_seq: i32) -> impl Iterator<Item = &ContainerRecord> {
        let first = ContainerKey {
            application_seq,
            container_id: i64::MIN,
        };
        let last = ContainerKey {
            application_seq,
            container_id: i64::MAX,
        };
        self.containers
            .range(first..=last)
            .map(|(_, record)| record)
    }

    /// The containers still holding resources on `node`.
    pub fn live_on<'a>(&'a self, node: &'a str) -> impl Iterator<Item = &'a ContainerRecord> {
        self.containers
            .values()
            .filter(move |record| record.node == node && record.is_live())
    }

    /// The highest raw container id the RM issued to an application, if any. Containers an
    /// AMRMProxy placed do not count: their ids lie below the epoch's first id.
    pub fn last_issued(&self, application_seq: i32) -> Option<i64> {
        self.last_issued.get(&application_seq).copied()
    }

    /// Whether an AMRMProxy placed the container itself (distributed scheduling), so its AM
    /// already has it from the proxy.
    pub fn is_remotely_allocated(&self, key: &ContainerKey) -> bool {
        self.remotely_allocated.contains(key)
    }

    /// When the container's completion was recorded, in milliseconds since the Unix epoch;
    /// `None` while it is live, and for a completion recorded before completion times were
    /// kept.
    pub fn completed_at_ms(&self, key: &ContainerKey) -> Option<i64> {
        self.completed_at_ms.get(key).copied()
    }

    /// The container's version: 0 when allocated, one more after each update (promotion,
    /// demotion). 0 for an unknown container.
    pub fn version(&self, key: &ContainerKey) -> i32 {
        self.versions.get(key).copied().unwrap_or(0)
    }

    /// Where an AMRMProxy registering for `application_seq` under `epoch` counts its container
    /// ids down from: the epoch's first id, `epoch << 40`, or, when AMRMProxies of the
    /// application already placed containers below it under this epoch (an earlier attempt, or
    /// this one before it registered again), the lowest of their ids.
    ///
    /// So ids handed out below the start never meet an id recorded for the application: not
    /// the RM's, which lie at or above the start of the epoch that issued them, nor those an
    /// earlier attempt's proxy placed in the same epoch (YARN keeps them apart by the attempt in
    /// the container id, which this table's key leaves out). Ids an earlier attempt's proxy
    /// placed but never got recorded may be handed out again: such a container never reached
    /// its AM, and no later report of it is accepted, its attempt being no longer current. A
    /// proxy of the same attempt that issued ids below the start must go on below those.
    ///
    /// The start lies in `((epoch - 1) << 40, epoch << 40]`, so `epoch` can be read back from
    /// it, until an application's proxies placed 2^40 containers in one epoch.
    pub fn remote_container_id_start(&self, epoch: u64, application_seq: i32) -> i64 {
        let start = epoch_start(epoch);
        let key = |container_id| ContainerKey {
            application_seq,
            container_id,
        };
        let epoch_ids =
            key(start.saturating_sub(1 << yarn_proto::ids::ContainerId::EPOCH_SHIFT))..key(start);
        self.remotely_allocated
            .range(epoch_ids)
            .next()
            .map_or(start, |lowest| lowest.container_id)
    }

    /// Checks `record`, placed by an AMRMProxy, against the table under `epoch`: whether it is
    /// already recorded as that same remote container (`Ok(true)`), or may be (`Ok(false)`).
    /// Only OPPORTUNISTIC task containers with an id in `0..epoch << 40` qualify, and only
    /// when the id is free.
    ///
    /// # Errors
    ///
    /// [`RemoteAllocationRejection::NotOpportunisticTask`],
    /// [`RemoteAllocationRejection::IdNotBelowEpochStart`],
    /// [`RemoteAllocationRejection::IdTaken`].
    pub(crate) fn check_remote(
        &self,
        epoch: u64,
        record: &ContainerRecord,
    ) -> Result<bool, RemoteAllocationRejection> {
        let key = record.key;
        if record.execution_type != ExecutionType::Opportunistic || record.is_am {
            return Err(RemoteAllocationRejection::NotOpportunisticTask { key });
        }
        let epoch_start = epoch_start(epoch);
        if !(0..epoch_start).contains(&key.container_id) {
            return Err(RemoteAllocationRejection::IdNotBelowEpochStart { key, epoch_start });
        }
        match self.containers.get(&key) {
            None => Ok(false),
            Some(existing)
                if self.remotely_allocated.contains(&key)
                    && existing.attempt_id == record.attempt_id
                    && existing.node == record.node =>
            {
                Ok(true)
            }
            Some(_) => Err(RemoteAllocationRejection::IdTaken { key }),
        }
    }

    /// Records a container an AMRMProxy placed, which [`check_remote`](Self::check_remote)
    /// accepted; `last_issued` is left alone.
    pub(crate) fn insert_remote(&mut self, record: &ContainerRecord) {
        self.remotely_allocated.insert(record.key);
        self.containers.insert(record.key, record.clone());
    }

    /// Changes a live container's execution type when `update` names its attempt (which
    /// `attempt_is_current` says is still its application's current one), its current version
    /// and another type, and returns its new version.
    ///
    /// # Errors
    ///
    /// The [`ContainerUpdateRejection`] saying why; the table is unchanged then.
    pub(crate) fn update_execution_type(
        &mut self,
        update: &ContainerUpdate,
        attempt_is_current: bool,
    ) -> Result<i32, ContainerUpdateRejection> {
        let key = update.key;
        let record = self.updatable(key, update.attempt_id, update.version, attempt_is_current)?;
        if record.execution_type == update.execution_type {
            return Err(ContainerUpdateRejection::AlreadyOfType {
                key,
                execution_type: update.execution_type,
            });
        }
        record.execution_type = update.execution_type;
        Ok(self.bump_version(key, update.version))
    }

    /// Changes a live GUARANTEED container's size when `resize` names its attempt (which
    /// `attempt_is_current` says is still its application's current one) and its current
    /// version, and returns its new version.
    ///
    /// # Errors
    ///
    /// The [`ContainerUpdateRejection`] saying why (an OPPORTUNISTIC container is
    /// [`ContainerUpdateRejection::AlreadyOfType`]: it holds nothing to resize); the table is
    /// unchanged then.
    pub(crate) fn resize(
        &mut self,
        resize: &ContainerResize,
        attempt_is_current: bool,
    ) -> Result<i32, ContainerUpdateRejection> {
        let key = resize.key;
        let record = self.updatable(key, resize.attempt_id, resize.version, attempt_is_current)?;
        if record.execution_type != ExecutionType::Guaranteed {
            return Err(ContainerUpdateRejection::AlreadyOfType {
                key,
                execution_type: record.execution_type,
            });
        }
        record.memory_mb = resize.memory_mb;
        record.vcores = resize.vcores;
        Ok(self.bump_version(key, resize.version))
    }

    /// The live non-AM container `key` of attempt `attempt_id` (current, as
    /// `attempt_is_current` says) at `version`, for an update to change.
    fn updatable(
        &mut self,
        key: ContainerKey,
        attempt_id: i32,
        version: i32,
        attempt_is_current: bool,
    ) -> Result<&mut ContainerRecord, ContainerUpdateRejection> {
        let current = self.version(&key);
        let record = self
            .containers
            .get_mut(&key)
            .ok_or(ContainerUpdateRejection::UnknownContainer { key })?;
        if !record.is_live() {
            return Err(ContainerUpdateRejection::ContainerCompleted { key });
        }
        if record.attempt_id != attempt_id || !attempt_is_current {
            return Err(ContainerUpdateRejection::OtherAttempt {
                key,
                attempt_id: record.attempt_id,
            });
        }
        if record.is_am {
            return Err(ContainerUpdateRejection::ApplicationMasterContainer { key });
        }
        if current != version {
            return Err(ContainerUpdateRejection::VersionMismatch {
                key,
                expected: version,
                current,
            });
        }
        Ok(record)
    }

    /// Moves `key` from `version` to the next one and returns it.
    fn bump_version(&mut self, key: ContainerKey, version: i32) -> i32 {
        let next = version.saturating_add(1);
        self.versions.insert(key, next);
        next
    }

    /// Forgets every container of `application_seq` and its id sequence, for an application
    /// retired from the state; returns the keys of the containers forgotten. Its sequence
    /// number is never handed out again, and allocations for an application the state no
    /// longer holds are refused, so no id can be issued twice.
    pub(crate) fn forget_application(&mut self, application_seq: i32) -> Vec<ContainerKey> {
        let keys: Vec<ContainerKey> = self
            .of_application(application_seq)
            .map(|record| record.key)
            .collect();
        for key in &keys {
            self.containers.remove(key);
            self.remotely_allocated.remove(key);
            self.versions.remove(key);
            self.completed_at_ms.remove(key);
        }
        self.last_issued.remove(&application_seq);
        keys
    }

    /// Records `record` if its id is of `epoch` and above every id the application was issued,
    /// `is_live_application` having said the application can still receive containers.
    pub(crate) fn allocate(
        &mut self,
        epoch: u64,
        is_live_application: bool,
        record: &ContainerRecord,
    ) -> Result<(), AllocationRejection> {
        let key = record.key;
        let id_epoch = key.container_id >> yarn_proto::ids::ContainerId::EPOCH_SHIFT;
        if u64::try_from(id_epoch).ok() != Some(epoch) {
            return Err(AllocationRejection::StaleEpoch {
                key,
                epoch: id_epoch,
                current: epoch,
            });
        }
        if !is_live_application {
            return Err(AllocationRejection::ApplicationNotLive { key });
        }
        if let Some(&last) = self.last_issued.get(&key.application_seq) {
            if key.container_id <= last {
                return Err(AllocationRejection::IdAlreadyIssued {
                    key,
                    last_issued: last,
                });
            }
        }
        self.last_issued
            .insert(key.application_seq, key.container_id);
        self.containers.insert(key, record.clone());
        Ok(())
    }

    /// PLANTED BUG (failpoint `plant.reissue-container-id`, `failpoints` feature only): records
    /// `record` as [`allocate`](Self::allocate) does but without checking its id's epoch or that
    /// it is above every id already issued, so it replaces any container recorded under it.
    #[cfg(feature = "failpoints")]
    pub(crate) fn allocate_unvalidated(
        &mut self,
        is_live_application: bool,
        record: &ContainerRecord,
    ) -> Result<(), AllocationRejection> {
        let key = record.key;
        if !is_live_application {
            return Err(AllocationRejection::ApplicationNotLive { key });
        }
        let last = self
            .last_issued
            .entry(key.application_seq)
            .or_insert(i64::MIN);
        *last = (*last).max(key.container_id);
        self.containers.insert(key, record.clone());
        Ok(())
    }

    /// Completes one container at `now_ms`, the recording command's clock. Returns whether
    /// anything changed: completing an unknown or an already completed container changes
    /// nothing, its first completion time included, so NodeManagers and AMs may repeat reports.
    pub(crate) fn complete(&mut self, completion: &ContainerCompletion, now_ms: i64) -> bool {
        match self.containers.get_mut(&completion.key) {
            Some(record) if record.is_live() => {
                record.state = ContainerState::Completed {
                    exit_status: completion.exit_status,
                    diagnostics: completion.diagnostics.clone(),
                };
                self.completed_at_ms.insert(completion.key, now_ms);
                true
            }
            _ => false,
        }
    }

    /// Completes every live container on `node` at `now_ms` as lost (YARN's ABORTED with its
    /// lost-node diagnostic) and returns their keys.
    pub(crate) fn complete_lost_node(&mut self, node: &str, now_ms: i64) -> Vec<ContainerKey> {
        let lost: Vec<ContainerKey> = self.live_on(node).map(|record| record.key).collect();
        for key in &lost {
            self.complete(
                &ContainerCompletion {
                    key: *key,
                    exit_status: ABORTED,
                    diagnostics: LOST_NODE_DIAGNOSTIC.to_owned(),
                },
                now_ms,
            );
        }
        lost
    }

    /// The table a snapshot of state format 1 holds, which kept no completion times.
    pub(super) fn from_format_1(
        containers: BTreeMap<ContainerKey, ContainerRecord>,
        last_issued: BTreeMap<i32, i64>,
        remotely_allocated: BTreeSet<ContainerKey>,
        versions: BTreeMap<ContainerKey, i32>,
    ) -> Self {
        Self {
            containers,
            last_issued,
            remotely_allocated,
            versions,
            completed_at_ms: BTreeMap::new(),
        }
    }
}

/// The first container id of `epoch`, `epoch << 40` (saturated for epochs no leader reaches):
/// the RM's ids of the epoch count up from it, and AMRMProxies count theirs down from it.
pub fn epoch_start(epoch: u64) -> i64 {
    i64::try_from(epoch)
        .ok()
        .filter(|&epoch| epoch <= yarn_proto::ids::ContainerId::MAX_EPOCH)
        .map_or(i64::MAX, |epoch| {
            epoch << yarn_proto::ids::ContainerId::EPOCH_SHIFT
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    const EPOCH: u64 = 3;

    fn key(application_seq: i32, sequence: i64) -> ContainerKey {
        ContainerKey {
            application_seq,
            container_id: ((EPOCH as i64) << 40) | sequence,
        }
    }

    fn record(key: ContainerKey, node: &str) -> ContainerRecord {
        ContainerRecord {
            key,
            attempt_id: 1,
            node: node.to_owned(),
            memory_mb: 1024,
            vcores: 1,
            execution_type: ExecutionType::Guaranteed,
            is_am: false,
            priority: 1,
            allocation_request_id: 0,
            allocated_at_ms: 10,
            state: ContainerState::Allocated,
        }
    }

    #[test]
    fn an_id_is_recorded_once_even_after_it_completed() {
        let mut table = ContainerTable::default();
        let first = key(1, 1);
        table.allocate(EPOCH, true, &record(first, "n1:1")).unwrap();
        assert_eq!(
            table.allocate(EPOCH, true, &record(first, "n2:1")),
            Err(AllocationRejection::IdAlreadyIssued {
                key: first,
                last_issued: first.container_id
            })
        );
        assert!(table.complete(
            &ContainerCompletion {
                key: first,
                exit_status: 0,
                diagnostics: String::new(),
            },
            20
        ));
        // Completion does not make the id reusable, and lower ids stay refused too.
        assert!(table.allocate(EPOCH, true, &record(first, "n1:1")).is_err());
        assert!(
            table
                .allocate(EPOCH, true, &record(key(1, 0), "n1:1"))
                .is_err()
        );
        // Other applications have their own sequence.
        table
            .allocate(EPOCH, true, &record(key(2, 1), "n1:1"))
            .unwrap();
        assert_eq!(table.get(&first).map(|r| r.node.as_str()), Some("n1:1"));
    }

    #[test]
    fn ids_of_another_epoch_or_of_dead_applications_are_refused() {
        let mut table = ContainerTable::default();
        let stale = key(1, 1);
        assert_eq!(
            table.allocate(EPOCH + 1, true, &record(stale, "n1:1")),
            Err(AllocationRejection::StaleEpoch {
                key: stale,
                epoch: EPOCH as i64,
                current: EPOCH + 1
            })
        );
        assert_eq!(
            table.allocate(EPOCH, false, &record(stale, "n1:1")),
            Err(AllocationRejection::ApplicationNotLive { key: stale })
        );
        assert_eq!(table.iter().count(), 0);
        assert_eq!(table.last_issued(1), None);
    }

    #[test]
    fn a_proxy_counts_below_every_id_proxies_of_its_application_placed_in_the_epoch() {
        let mut table = ContainerTable::default();
        let start = epoch_start(EPOCH);
        assert_eq!(table.remote_container_id_start(EPOCH, 1), start);
        // The RM's own ids (at and above the start) do not move it.
        table
            .allocate(EPOCH, true, &record(key(1, 1), "n1:1"))
            .unwrap();
        assert_eq!(table.remote_container_id_start(EPOCH, 1), start);

        let remote = |application_seq, container_id, attempt_id| ContainerRecord {
            attempt_id,
            execution_type: ExecutionType::Opportunistic,
            ..record(
                ContainerKey {
                    application_seq,
                    container_id,
                },
                "n1:1",
            )
        };
        // Attempt 1's proxy placed start-1..start-3; attempt 2 registers in the same epoch.
        for below in 1..=3 {
            table.insert_remote(&remote(1, start - below, 1));
        }
        assert_eq!(table.remote_container_id_start(EPOCH, 1), start - 3);
        // Other applications, and ids a proxy placed under an earlier epoch, do not count.
        assert_eq!(table.remote_container_id_start(EPOCH, 2), start);
        let earlier_epoch = epoch_start(EPOCH - 1) - 7;
        table.insert_remote(&remote(2, earlier_epoch, 1));
        assert_eq!(table.remote_container_id_start(EPOCH, 2), start);
        // A later epoch starts afresh.
        assert_eq!(
            table.remote_container_id_start(EPOCH + 1, 1),
            epoch_start(EPOCH + 1)
        );
    }

    #[test]
    fn a_lost_node_completes_only_its_live_containers_as_aborted() {
        let mut table = ContainerTable::default();
        for (sequence, node) in [(1, "n1:1"), (2, "n1:1"), (3, "n2:1")] {
            table
                .allocate(EPOCH, true, &record(key(1, sequence), node))
                .unwrap();
        }
        let done = ContainerCompletion {
            key: key(1, 2),
            exit_status: 0,
            diagnostics: "done".to_owned(),
        };
        assert!(table.complete(&done, 20));
        assert!(
            !table.complete(&done, 30),
            "a repeated report changes nothing"
        );

        assert_eq!(table.complete_lost_node("n1:1", 40), vec![key(1, 1)]);
        let lost = table.get(&key(1, 1)).unwrap();
        assert_eq!(
            lost.state,
            ContainerState::Completed {
                exit_status: ABORTED,
                diagnostics: LOST_NODE_DIAGNOSTIC.to_owned()
            }
        );
        // The earlier completion keeps its own status; the other node is untouched.
        assert!(matches!(
            &table.get(&key(1, 2)).unwrap().state,
            ContainerState::Completed { exit_status: 0, .. }
        ));
        assert!(table.get(&key(1, 3)).unwrap().is_live());
        assert!(table.complete_lost_node("n1:1", 50).is_empty());
        // Each completion keeps the time of the command that first recorded it.
        assert_eq!(table.completed_at_ms(&key(1, 2)), Some(20));
        assert_eq!(table.completed_at_ms(&key(1, 1)), Some(40));
        assert_eq!(table.completed_at_ms(&key(1, 3)), None, "still live");
    }
}
