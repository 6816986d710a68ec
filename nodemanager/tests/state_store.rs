//! The NodeManager state store on a real sled directory: what it stores survives closing and
//! reopening the directory, recovered containers come back in queue and start order, replay
//! records prune by expiry, damaged records are refused by name, and a disabled store keeps
//! nothing.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::time::{Duration, Instant};

use yarn_conf::Configuration;
use yarn_nodemanager::container_scheduler::{ContainerRequest, ExecutionType, Resources};
use yarn_nodemanager::state_store::{
    CompletedRetention, ContainerRecord, ContainerRecordState, FORMAT_VERSION, MasterKeyPair,
    RecoveredState, StoredRecord,
};
use yarn_nodemanager::{Error, NmConfig, NmStateStore};
use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, ContainerId};
use yarn_security::{MasterKey, TokenKind};

/// How long a dropped store may keep its directory locked before a test gives up.
const LOCK_RELEASE_DEADLINE: Duration = Duration::from_secs(10);
const POLL_INTERVAL: Duration = Duration::from_millis(10);

fn container(sequence: i64) -> ContainerId {
    let attempt = ApplicationAttemptId::new(ApplicationId::new(1_700_000_000_000, 1), 1);
    ContainerId::new(attempt, 2, sequence).unwrap()
}

fn record(sequence: i64, execution_type: ExecutionType) -> ContainerRecord {
    ContainerRecord {
        container_id: container(sequence),
        user: "alice".to_owned(),
        commands: vec!["sleep".to_owned(), sequence.to_string()],
        environment: HashMap::from([("HOME_DIR".to_owned(), format!("/h/{sequence}"))]),
        resources: Resources::new(1024, 1),
        execution_type,
        token_version: 0,
        container_token_identifier: vec![0x0A, 0x03, sequence as u8],
        tokens: vec![0x12, 0x02, sequence as u8, 0xFF],
        local_resources: std::collections::BTreeMap::new(),
    }
}

/// Opens the store under `dir`, waiting while a store dropped just before still holds sled's
/// lock (sled releases it from a background thread).
fn must_open(dir: &Path) -> NmStateStore {
    let deadline = Instant::now() + LOCK_RELEASE_DEADLINE;
    loop {
        match NmStateStore::open(dir) {
            Ok(store) => return store,
            Err(Error::StateStoreLocked { .. }) if Instant::now() < deadline => {
                std::thread::sleep(POLL_INTERVAL);
            }
            Err(e) => panic!("cannot open the state store at {}: {e}", dir.display()),
        }
    }
}

/// Drops `store` and opens its directory again, as a restarted NodeManager does.
fn must_reopen(store: NmStateStore, dir: &Path) -> NmStateStore {
    drop(store);
    must_open(dir)
}

/// Opens the raw sled database under `dir`, waiting for the store's lock to be released.
fn must_open_sled(dir: &Path) -> sled::Db {
    let deadline = Instant::now() + LOCK_RELEASE_DEADLINE;
    loop {
        match sled::open(dir) {
            Ok(db) => return db,
            Err(e) if Instant::now() < deadline && e.to_string().contains("lock") => {
                std::thread::sleep(POLL_INTERVAL);
            }
            Err(e) => panic!("cannot open sled at {}: {e}", dir.display()),
        }
    }
}

fn ids(containers: &[yarn_nodemanager::state_store::RecoveredContainer]) -> Vec<ContainerId> {
    containers.iter().map(|c| c.record.container_id).collect()
}

#[tokio::test]
async fn everything_written_survives_reopening_the_directory() {
    let dir = tempfile::tempdir().unwrap();
    let store = must_open(dir.path());
    assert!(store.is_enabled());

    let queued = record(1, ExecutionType::Opportunistic);
    let running = record(2, ExecutionType::Guaranteed);
    let completed = record(3, ExecutionType::Guaranteed);
    for r in [&queued, &running, &completed] {
        store.store_container_queued(r).await.unwrap();
    }
    let promoted = ContainerRequest {
        version: 1,
        ..ContainerRequest::new(
            queued.container_id,
            ExecutionType::Guaranteed,
            Resources::new(2048, 2),
        )
    };
    store
        .store_container_updated(&promoted, &[7, 7])
        .await
        .unwrap();
    store
        .store_container_running(running.container_id, 4242, 1_000)
        .await
        .unwrap();
    store
        .store_container_completed(
            completed.container_id,
            -105,
            "Container killed by the AM.",
            2_000,
        )
        .await
        .unwrap();

    let container_keys = MasterKeyPair {
        current: MasterKey::new(5, [5; MasterKey::LEN]),
        previous: Some(MasterKey::new(4, [4; MasterKey::LEN])),
    };
    let nm_keys = MasterKeyPair {
        current: MasterKey::new(9, [9; MasterKey::LEN]),
        previous: None,
    };
    store
        .store_master_keys(TokenKind::Container, &container_keys)
        .await
        .unwrap();
    store
        .store_master_keys(TokenKind::Nm, &nm_keys)
        .await
        .unwrap();
    assert!(
        !store
            .record_replay(running.container_id, 90_000)
            .await
            .unwrap()
    );
    store.store_rm_epoch(3).await.unwrap();
    store.store_heartbeat_response_id(41).await.unwrap();

    let store = must_reopen(store, dir.path());
    let state = store.load().unwrap();

    assert_eq!(ids(&state.queued), [queued.container_id]);
    let recovered = &state.queued[0];
    assert_eq!(recovered.state, ContainerRecordState::Queued);
    let expected_promoted = ContainerRecord {
        execution_type: ExecutionType::Guaranteed,
        resources: Resources::new(2048, 2),
        token_version: 1,
        container_token_identifier: vec![7, 7],
        ..queued.clone()
    };
    assert_eq!(recovered.record, expected_promoted);
    assert_eq!(recovered.record.container_request(), promoted);

    assert_eq!(state.running.len(), 1);
    assert_eq!(state.running[0].record, running);
    assert_eq!(
        state.running[0].state,
        ContainerRecordState::Running {
            pid: 4242,
            started_at_ms: 1_000
        }
    );
    assert_eq!(state.completed.len(), 1);
    assert_eq!(state.completed[0].record, completed);
    assert_eq!(
        state.completed[0].state,
        ContainerRecordState::Completed {
            exit_code: -105,
            diagnostics: "Container killed by the AM.".to_owned(),
            completed_at_ms: 2_000
        }
    );

    assert_eq!(
        state.master_keys,
        HashMap::from([
            (TokenKind::Container, container_keys),
            (TokenKind::Nm, nm_keys)
        ])
    );
    assert_eq!(
        state.replays,
        BTreeMap::from([(running.container_id, 90_000)])
    );
    assert_eq!(state.rm_epoch, Some(3));
    assert_eq!(state.last_heartbeat_response_id, Some(41));
}

#[tokio::test]
async fn queued_containers_return_in_queue_order_and_running_ones_in_start_order() {
    let dir = tempfile::tempdir().unwrap();
    let store = must_open(dir.path());
    // Accepted in an order unlike the ids' own, so that sorting by id would be caught.
    let accepted = [3, 1, 5, 2, 4];
    for sequence in accepted {
        store
            .store_container_queued(&record(sequence, ExecutionType::Opportunistic))
            .await
            .unwrap();
    }
    // Started in an order unlike acceptance: 5 before 3.
    store
        .store_container_running(container(5), 505, 10)
        .await
        .unwrap();
    store
        .store_container_running(container(3), 303, 20)
        .await
        .unwrap();

    let store = must_reopen(store, dir.path());
    // Containers accepted after the restart queue behind those accepted before it.
    store
        .store_container_queued(&record(6, ExecutionType::Opportunistic))
        .await
        .unwrap();
    let state = store.load().unwrap();

    assert_eq!(
        ids(&state.queued),
        [container(1), container(2), container(4), container(6)]
    );
    assert_eq!(ids(&state.running), [container(5), container(3)]);
    let pids: Vec<u32> = state
        .running
        .iter()
        .map(|c| c.reacquire_spec().unwrap().pid)
        .collect();
    assert_eq!(pids, [505, 303]);
    assert_eq!(state.running[0].reacquire_spec().unwrap().memory_mb, 1024);
    assert!(state.queued.iter().all(|c| c.reacquire_spec().is_none()));
}

#[tokio::test]
async fn replay_records_are_kept_until_their_token_expires() {
    let dir = tempfile::tempdir().unwrap();
    let store = must_open(dir.path());
    assert!(!store.record_replay(container(1), 100).await.unwrap());
    assert!(store.record_replay(container(1), 100).await.unwrap());
    assert!(!store.record_replay(container(2), 200).await.unwrap());
    assert!(!store.record_replay(container(3), 150).await.unwrap());

    // A token is valid up to its expiry instant, so only container 1's record goes at 150.
    assert_eq!(store.prune_replays(150).await.unwrap(), 1);
    assert!(!store.is_replayed(&container(1)).unwrap());
    assert!(store.is_replayed(&container(2)).unwrap());
    assert!(store.is_replayed(&container(3)).unwrap());

    let store = must_reopen(store, dir.path());
    assert_eq!(
        store.load().unwrap().replays,
        BTreeMap::from([(container(2), 200), (container(3), 150)])
    );
    assert!(
        store.record_replay(container(2), 200).await.unwrap(),
        "a token used before the restart is still a replay after it"
    );
    assert_eq!(store.prune_replays(1_000).await.unwrap(), 2);
    assert!(store.load().unwrap().replays.is_empty());
}

#[tokio::test]
async fn of_two_concurrent_uses_of_one_token_exactly_one_is_first() {
    let dir = tempfile::tempdir().unwrap();
    let store = must_open(dir.path());
    let (a, b) = tokio::join!(
        store.record_replay(container(1), 100),
        store.record_replay(container(1), 100)
    );
    let mut outcomes = [a.unwrap(), b.unwrap()];
    outcomes.sort_unstable();
    assert_eq!(outcomes, [false, true]);
}

#[tokio::test]
async fn a_record_in_an_unknown_format_version_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let store = must_open(dir.path());
    let id = container(1);
    store
        .store_container_queued(&record(1, ExecutionType::Guaranteed))
        .await
        .unwrap();
    drop(store);

    // What a newer NodeManager would leave behind: the same record in the next format version.
    let db = must_open_sled(dir.path());
    let tree = db.open_tree("containers").unwrap();
    let key = id.to_string();
    let mut value = tree.get(&key).unwrap().unwrap().to_vec();
    value[0] = FORMAT_VERSION + 1;
    tree.insert(&key, value).unwrap();
    db.flush().unwrap();
    drop(tree);
    drop(db);

    let store = must_open(dir.path());
    let err = store.load().unwrap_err();
    assert_eq!(
        err,
        Error::UnsupportedRecordVersion {
            record: StoredRecord::Container {
                container_id: key.clone()
            },
            found: FORMAT_VERSION + 1,
            expected: FORMAT_VERSION,
        }
    );
    let message = err.to_string();
    assert!(message.contains(&key), "{message}");
    assert!(
        message.contains(&format!("version {}", FORMAT_VERSION + 1))
            && message.contains(&format!("expected {FORMAT_VERSION}")),
        "{message}"
    );
    // A state change reads the record too, and refuses it the same way.
    assert!(matches!(
        store.store_container_running(id, 1234, 0).await,
        Err(Error::UnsupportedRecordVersion { .. })
    ));
}

#[tokio::test]
async fn impossible_state_changes_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let store = must_open(dir.path());
    let r = record(1, ExecutionType::Guaranteed);
    let id = r.container_id;

    assert_eq!(
        store.store_container_running(id, 10, 0).await,
        Err(Error::ContainerRecordMissing { container_id: id })
    );
    store.store_container_queued(&r).await.unwrap();
    assert_eq!(
        store.store_container_queued(&r).await,
        Err(Error::ContainerRecordExists { container_id: id })
    );
    store.store_container_running(id, 10, 0).await.unwrap();
    assert_eq!(
        store.store_container_running(id, 11, 5).await,
        Err(Error::InvalidContainerTransition {
            container_id: id,
            from: "RUNNING",
            to: "RUNNING"
        })
    );
    store
        .store_container_completed(id, 0, "", 100)
        .await
        .unwrap();
    assert_eq!(
        store.store_container_completed(id, 1, "again", 200).await,
        Err(Error::InvalidContainerTransition {
            container_id: id,
            from: "COMPLETED",
            to: "COMPLETED"
        })
    );
    let state = store.load().unwrap();
    assert_eq!(
        state.completed[0].state,
        ContainerRecordState::Completed {
            exit_code: 0,
            diagnostics: String::new(),
            completed_at_ms: 100
        },
        "the first completion stays"
    );
}

#[tokio::test]
async fn completed_records_go_when_removed_or_past_their_retention() {
    let dir = tempfile::tempdir().unwrap();
    let store = must_open(dir.path());
    for sequence in 1..=4 {
        store
            .store_container_queued(&record(sequence, ExecutionType::Guaranteed))
            .await
            .unwrap();
    }
    store
        .store_container_completed(container(1), 0, "", 1_000)
        .await
        .unwrap();
    store
        .store_container_completed(container(2), 0, "", 5_000)
        .await
        .unwrap();
    store
        .store_container_running(container(3), 33, 0)
        .await
        .unwrap();
    store.remove_container(container(4)).await.unwrap();
    // Removing what is already gone is not an error.
    store.remove_container(container(4)).await.unwrap();

    let retention = CompletedRetention::new(Duration::from_secs(2));
    assert_eq!(store.prune_completed(retention, 4_000).await.unwrap(), 1);

    let store = must_reopen(store, dir.path());
    let state = store.load().unwrap();
    assert_eq!(ids(&state.completed), [container(2)]);
    assert_eq!(ids(&state.running), [container(3)]);
    assert!(state.queued.is_empty());
}

#[tokio::test]
async fn a_directory_in_use_is_refused_as_locked() {
    let dir = tempfile::tempdir().unwrap();
    let _store = must_open(dir.path());
    let err = NmStateStore::open(dir.path()).unwrap_err();
    assert_eq!(
        err,
        Error::StateStoreLocked {
            path: dir.path().to_path_buf()
        }
    );
    assert!(
        err.to_string().contains(&dir.path().display().to_string()),
        "{err}"
    );
}

#[tokio::test]
async fn a_disabled_store_keeps_nothing_but_still_detects_replays() {
    let dir = tempfile::tempdir().unwrap();
    let recovery_dir = dir.path().join("recovery");
    let mut conf = Configuration::new();
    conf.set("yarn.nodemanager.recovery.enabled", "false");
    conf.set(
        "yarn.nodemanager.recovery.dir",
        recovery_dir.to_str().unwrap(),
    );
    let config = NmConfig::from_conf(&conf).unwrap();
    let store = NmStateStore::from_config(&config).unwrap();
    assert!(!store.is_enabled());

    let r = record(1, ExecutionType::Guaranteed);
    store.store_container_queued(&r).await.unwrap();
    store
        .store_container_running(r.container_id, 1, 0)
        .await
        .unwrap();
    store
        .store_container_completed(r.container_id, 0, "", 0)
        .await
        .unwrap();
    let keys = MasterKeyPair {
        current: MasterKey::new(1, [1; MasterKey::LEN]),
        previous: None,
    };
    store
        .store_master_keys(TokenKind::Container, &keys)
        .await
        .unwrap();
    store.store_rm_epoch(4).await.unwrap();
    store.store_heartbeat_response_id(9).await.unwrap();

    // Replay protection does not depend on recovery.
    assert!(!store.record_replay(r.container_id, 100).await.unwrap());
    assert!(store.record_replay(r.container_id, 100).await.unwrap());
    assert!(store.is_replayed(&r.container_id).unwrap());
    assert_eq!(store.prune_replays(101).await.unwrap(), 1);
    assert!(!store.is_replayed(&r.container_id).unwrap());

    assert_eq!(store.load().unwrap(), RecoveredState::default());
    assert!(!recovery_dir.exists(), "a disabled store touched the disk");
}

#[tokio::test]
async fn an_enabled_config_opens_the_recovery_directory() {
    let dir = tempfile::tempdir().unwrap();
    let recovery_dir = dir.path().join("recovery");
    let mut conf = Configuration::new();
    conf.set(
        "yarn.nodemanager.recovery.dir",
        recovery_dir.to_str().unwrap(),
    );
    let config = NmConfig::from_conf(&conf).unwrap();
    let store = NmStateStore::from_config(&config).unwrap();
    assert!(store.is_enabled());
    store.store_rm_epoch(8).await.unwrap();

    let store = must_reopen(store, &recovery_dir);
    assert_eq!(store.load().unwrap().rm_epoch, Some(8));
}

#[tokio::test]
async fn a_store_grown_past_its_data_is_rewritten_when_opened_and_keeps_every_record() {
    let dir = tempfile::tempdir().unwrap();
    let store = must_open(dir.path());
    for sequence in 1..=3 {
        store
            .store_container_queued(&record(sequence, ExecutionType::Guaranteed))
            .await
            .unwrap();
    }
    store
        .store_container_running(container(2), 202, 10)
        .await
        .unwrap();
    drop(store);
    {
        // About 90 MB through a window of the last 300 values (9 MB), as records come and go
        // over a NodeManager's life: sled keeps the space the removed ones took.
        let db = must_open_sled(dir.path());
        let churn = db.open_tree("churn").unwrap();
        for round in 0..3_000u32 {
            churn
                .insert(round.to_be_bytes(), vec![round as u8; 30 << 10])
                .unwrap();
            if let Some(gone) = round.checked_sub(300) {
                churn.remove(gone.to_be_bytes()).unwrap();
            }
            if round % 50 == 0 {
                db.flush().unwrap();
            }
        }
        // Then most of the window goes too, leaving ten values.
        for gone in 2_700..2_990u32 {
            churn.remove(gone.to_be_bytes()).unwrap();
        }
        db.flush().unwrap();
    }
    let grown = yarn_sled_sync::disk_use(dir.path()).unwrap().apparent;
    assert!(grown > 16 << 20, "the store only took {grown} bytes");

    let store = must_open(dir.path());
    let rewritten = yarn_sled_sync::disk_use(dir.path()).unwrap().apparent;
    assert!(rewritten * 2 < grown, "{grown} bytes became {rewritten}");
    let state = store.load().unwrap();
    assert_eq!(ids(&state.queued), [container(1), container(3)]);
    assert_eq!(ids(&state.running), [container(2)]);
    assert_eq!(state.running[0].reacquire_spec().unwrap().pid, 202);
}
