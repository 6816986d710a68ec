//! The Raft storage against openraft's conformance suite, plus restart recovery.

use std::collections::{BTreeMap, BTreeSet};

use openraft::storage::{RaftLogStorage, RaftLogStorageExt, RaftStateMachine};
use openraft::testing::{StoreBuilder, Suite, log_id};
use openraft::{Entry, EntryPayload, Membership, RaftLogReader, RaftSnapshotBuilder, StorageError};
use tempfile::TempDir;
use yarn_rm_ha::state_machine::{AppliedPosition, CommandV1, RmCommand, RmResponse};
use yarn_rm_ha::storage::{Failpoints, RmLogStore, RmStateMachineStore, open_db};
use yarn_rm_ha::{RmNode, RmNodeId, RmTypeConfig};

/// Opens both stores on a fresh sled database in a temporary directory that lives as long as
/// the suite's guard value.
struct SledStoreBuilder;

impl StoreBuilder<RmTypeConfig, RmLogStore, RmStateMachineStore, TempDir> for SledStoreBuilder {
    async fn build(
        &self,
    ) -> Result<(TempDir, RmLogStore, RmStateMachineStore), StorageError<RmNodeId>> {
        let dir = tempfile::tempdir().expect("create temp dir");
        let (log, sm) = open(&dir);
        Ok((dir, log, sm))
    }
}

/// Opens the stores in `dir` (`open_db` waits for a store of this process just dropped to
/// release its lock).
fn open(dir: &TempDir) -> (RmLogStore, RmStateMachineStore) {
    let db = open_db(dir.path(), &Failpoints::default())
        .unwrap_or_else(|err| panic!("open sled in {}: {err}", dir.path().display()));
    let log = RmLogStore::new(&db).expect("open log store");
    let sm = RmStateMachineStore::new(&db).expect("open state machine");
    (log, sm)
}

#[test]
fn openraft_conformance_suite_passes() {
    Suite::test_all(SledStoreBuilder).expect("openraft storage suite");
}

fn command(index: u64, cmd: CommandV1) -> Entry<RmTypeConfig> {
    Entry {
        log_id: log_id(1, 1, index),
        payload: EntryPayload::Normal(RmCommand::V1(cmd)),
    }
}

fn membership() -> Membership<RmNodeId, RmNode> {
    let node = RmNode {
        rm_id: "rm1".to_owned(),
        raft_address: "127.0.0.1:8033".to_owned(),
    };
    Membership::new(vec![BTreeSet::from([1])], BTreeMap::from([(1, node)]))
}

fn entries() -> Vec<Entry<RmTypeConfig>> {
    vec![
        Entry {
            log_id: log_id(1, 1, 1),
            payload: EntryPayload::Membership(membership()),
        },
        command(
            2,
            CommandV1::BeginEpoch {
                leader_rm_id: "rm1".to_owned(),
                now_ms: 1_700_000_000_000,
            },
        ),
        command(3, CommandV1::AllocateApplicationIds { count: 5 }),
        command(
            4,
            CommandV1::SetQueueConfiguration {
                expected: 0,
                properties: BTreeMap::from([(
                    "yarn.scheduler.capacity.root.queues".to_owned(),
                    "default".to_owned(),
                )]),
            },
        ),
    ]
}

#[tokio::test]
async fn restart_recovers_snapshot_and_keeps_log_readable() {
    let dir = tempfile::tempdir().unwrap();
    let (before_digest, later_entry) = {
        let (mut log, mut sm) = open(&dir);
        log.blocking_append(entries()).await.unwrap();
        let responses = sm.apply(entries()).await.unwrap();
        assert_eq!(
            responses[2],
            RmResponse::ApplicationIdsAllocated { first: 1, count: 5 }
        );
        let snapshot = sm
            .get_snapshot_builder()
            .await
            .build_snapshot()
            .await
            .unwrap();
        assert_eq!(snapshot.meta.last_log_id, Some(log_id(1, 1, 4)));

        // Applied after the snapshot: must come back from the log, not from the snapshot.
        let later = command(
            5,
            CommandV1::SetNodeDecommissioned {
                node: "nm1:8041".to_owned(),
                decommissioned: true,
            },
        );
        log.blocking_append([later.clone()]).await.unwrap();
        sm.apply([later.clone()]).await.unwrap();
        (sm.state().digest().unwrap(), later)
    };

    let (mut log, mut sm) = open(&dir);
    let (last_applied, stored_membership) = sm.applied_state().await.unwrap();
    assert_eq!(last_applied, Some(log_id(1, 1, 4)));
    assert_eq!(stored_membership.log_id(), &Some(log_id(1, 1, 1)));
    assert_eq!(stored_membership.membership(), &membership());
    let state = sm.state();
    assert_eq!(state.epoch, 1);
    assert_eq!(state.cluster_timestamp_ms, 1_700_000_000_000);
    assert_eq!(state.next_application_seq, 6);
    assert_eq!(state.queue_config_version, 1);
    assert_eq!(
        state.queue_config["yarn.scheduler.capacity.root.queues"],
        "default"
    );
    assert!(state.decommissioned_nodes.is_empty());

    let log_state = log.get_log_state().await.unwrap();
    assert_eq!(log_state.last_log_id, Some(log_id(1, 1, 5)));
    let replay = log.try_get_log_entries(5..).await.unwrap();
    assert_eq!(replay.len(), 1);
    assert_eq!(replay[0].log_id, later_entry.log_id);
    sm.apply(replay).await.unwrap();
    assert_eq!(sm.state().digest().unwrap(), before_digest);

    let all = log.try_get_log_entries(1..=5).await.unwrap();
    let indexes: Vec<u64> = all.iter().map(|e| e.log_id.index).collect();
    assert_eq!(indexes, [1, 2, 3, 4, 5]);
}

#[tokio::test]
async fn applying_installing_a_snapshot_and_reopening_give_one_digest_per_index() {
    let source = tempfile::tempdir().unwrap();
    let (snapshot, at_snapshot, later, at_later) = {
        let (mut log, mut sm) = open(&source);
        log.blocking_append(entries()).await.unwrap();
        sm.apply(entries()).await.unwrap();
        let at_snapshot = sm.state_view().digest().unwrap();
        assert_eq!(
            at_snapshot.applied,
            Some(AppliedPosition { term: 1, index: 4 })
        );
        let snapshot = sm
            .get_snapshot_builder()
            .await
            .build_snapshot()
            .await
            .unwrap();
        let later = command(
            5,
            CommandV1::SetNodeDecommissioned {
                node: "nm1:8041".to_owned(),
                decommissioned: true,
            },
        );
        log.blocking_append([later.clone()]).await.unwrap();
        sm.apply([later.clone()]).await.unwrap();
        let at_later = sm.state_view().digest().unwrap();
        assert_ne!(at_later.sha256, at_snapshot.sha256);
        (snapshot, at_snapshot, later, at_later)
    };

    // A replica that never saw the entries installs the snapshot, then applies the next one.
    let installer = tempfile::tempdir().unwrap();
    let (_log, mut other) = open(&installer);
    other
        .install_snapshot(&snapshot.meta, snapshot.snapshot)
        .await
        .unwrap();
    assert_eq!(other.state_view().digest().unwrap(), at_snapshot);
    other.apply([later.clone()]).await.unwrap();
    assert_eq!(other.state_view().digest().unwrap(), at_later);

    // The first replica restarts: its snapshot, then its log.
    let (mut log, mut sm) = open(&source);
    assert_eq!(sm.state_view().digest().unwrap(), at_snapshot);
    sm.apply(log.try_get_log_entries(5..).await.unwrap())
        .await
        .unwrap();
    assert_eq!(sm.state_view().digest().unwrap(), at_later);
}

#[tokio::test]
async fn purge_persists_last_purged_across_restart() {
    let dir = tempfile::tempdir().unwrap();
    {
        let (mut log, _sm) = open(&dir);
        log.blocking_append(entries()).await.unwrap();
        log.purge(log_id(1, 1, 2)).await.unwrap();
    }
    {
        let (mut log, _sm) = open(&dir);
        let log_state = log.get_log_state().await.unwrap();
        assert_eq!(log_state.last_purged_log_id, Some(log_id(1, 1, 2)));
        assert_eq!(log_state.last_log_id, Some(log_id(1, 1, 4)));
        let left = log.try_get_log_entries(0..10).await.unwrap();
        let indexes: Vec<u64> = left.iter().map(|e| e.log_id.index).collect();
        assert_eq!(indexes, [3, 4]);

        // Purging everything leaves the last log id at the purge point, not at "no log".
        log.purge(log_id(1, 1, 4)).await.unwrap();
    }
    let (mut log, _sm) = open(&dir);
    let log_state = log.get_log_state().await.unwrap();
    assert_eq!(log_state.last_purged_log_id, Some(log_id(1, 1, 4)));
    assert_eq!(log_state.last_log_id, Some(log_id(1, 1, 4)));
}

#[tokio::test]
async fn vote_survives_restart() {
    let dir = tempfile::tempdir().unwrap();
    let vote = openraft::Vote::new_committed(3, 2);
    {
        let (mut log, _sm) = open(&dir);
        log.save_vote(&vote).await.unwrap();
    }
    let (mut log, _sm) = open(&dir);
    assert_eq!(log.read_vote().await.unwrap(), Some(vote));
}

#[tokio::test]
async fn a_store_grown_by_purging_is_rewritten_when_opened_and_keeps_its_log() {
    let dir = tempfile::tempdir().unwrap();
    let properties: BTreeMap<String, String> = (0..60)
        .map(|q| {
            (
                format!("yarn.scheduler.capacity.root.q{q}.capacity"),
                "2".to_owned(),
            )
        })
        .collect();
    let mut next = 1;
    {
        let (mut log, _sm) = open(&dir);
        // About 90 MB through the log, a thousand entries kept: as a replica's purges leave it.
        for _ in 0..30 {
            let batch: Vec<_> = (next..next + 1_000)
                .map(|index| {
                    let cmd = CommandV1::SetQueueConfiguration {
                        expected: index,
                        properties: properties.clone(),
                    };
                    command(index, cmd)
                })
                .collect();
            next += 1_000;
            log.blocking_append(batch).await.unwrap();
            log.purge(log_id(1, 1, next - 1_001)).await.unwrap();
        }
    }
    let grown = yarn_sled_sync::disk_use(dir.path()).unwrap().apparent;
    assert!(grown > 16 << 20, "the store only took {grown} bytes");
    let (mut log, _sm) = open(&dir);
    let rewritten = yarn_sled_sync::disk_use(dir.path()).unwrap().apparent;
    assert!(rewritten * 2 < grown, "{grown} bytes became {rewritten}");
    let state = log.get_log_state().await.unwrap();
    assert_eq!(state.last_log_id, Some(log_id(1, 1, next - 1)));
    assert_eq!(state.last_purged_log_id, Some(log_id(1, 1, next - 1_001)));
    let kept = log.try_get_log_entries(0..next).await.unwrap();
    assert_eq!(kept.len(), 1_000);
    assert_eq!(kept[0].log_id.index, next - 1_000);
}
