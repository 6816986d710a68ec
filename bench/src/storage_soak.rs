//! `bench storage`: how much disk the Raft storage on sled takes under steady writes with
//! snapshots and purges, against the data it really holds.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use openraft::ServerState;
use rand::SeedableRng;
use rand::rngs::StdRng;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use yarn_conf::Configuration;
use yarn_rm_ha::replica::RaftCore;
use yarn_rm_ha::state_machine::{CommandV1, RmCommand};
use yarn_rm_ha::storage::{DurableDb, Failpoints, open_db};
use yarn_rm_ha::{RaftGrpcNetworkFactory, RmConfig};
use yarn_security::Authorizer;
use yarn_sled_sync::{disk_use, live_bytes};

use crate::storage_soak_report::{StorageSample, StorageSoakReport};

/// Concurrent writers, so that appends share syncs as a loaded leader's do.
const WRITERS: usize = 16;

/// What `bench storage` runs.
#[derive(Debug, Clone)]
pub struct StorageSoakOptions {
    /// Where the storage goes (default: a temporary directory, removed at the end).
    pub dir: Option<PathBuf>,
    /// How long to write.
    pub duration: Duration,
    /// Bytes of queue configuration each entry carries.
    pub entry_bytes: usize,
    /// How often disk use is sampled.
    pub sample_every: Duration,
}

/// Runs a one-replica Raft group (the real `RaftCore` on sled with fdatasync, the shipped
/// snapshot policy of 10,000 entries) and writes as fast as `WRITERS` writers can for
/// `duration`: each entry replaces the queue configuration with `entry_bytes` of properties, so
/// the state stays one configuration while the log turns over, is snapshotted and purged.
/// Every `sample_every` it records the bytes of the storage directory's files (apparent and
/// allocated) beside the live bytes: every key and value sled holds.
///
/// # Errors
///
/// A storage directory that cannot be made or opened, or a replica that does not start.
pub fn storage_soak(options: &StorageSoakOptions) -> anyhow::Result<StorageSoakReport> {
    let temporary;
    let dir = match &options.dir {
        Some(dir) => {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
            dir.clone()
        }
        None => {
            temporary = tempfile::tempdir().context("creating a temporary directory")?;
            temporary.path().to_path_buf()
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the runtime")?;
    runtime.block_on(soak(&dir, options))
}

async fn soak(dir: &Path, options: &StorageSoakOptions) -> anyhow::Result<StorageSoakReport> {
    let mut conf = Configuration::new();
    conf.set("yarn.resourcemanager.ha.enabled", "true");
    conf.set("yarn.resourcemanager.ha.rm-ids", "rm1");
    conf.set("yarn.resourcemanager.hostname.rm1", "127.0.0.1");
    conf.set(
        "yarn.resourcemanager.ha.raft.storage-dir",
        &dir.display().to_string(),
    );
    let config = Arc::new(RmConfig::from_conf(&conf, Some("rm1"))?);
    let db = open_db(dir, &Failpoints::default())?;
    // A group of one dials no one.
    let network = RaftGrpcNetworkFactory::dialing_with(
        "rm1",
        yarn_security::Dialer::new(|address: &str| {
            Err(yarn_security::Error::InvalidAddress {
                address: address.to_owned(),
                reason: "a group of one has no peers",
            })
        }),
    );
    let core = RaftCore::start(
        Arc::clone(&config),
        &db,
        network,
        Failpoints::default(),
        Authorizer::new(false),
    )
    .await?;
    let shutdown = CancellationToken::new();
    let mut tasks = JoinSet::new();
    tasks.spawn(core.run_elections(StdRng::from_os_rng(), shutdown.clone()));
    let mut metrics = core.raft.metrics();
    tokio::time::timeout(
        Duration::from_secs(30),
        metrics.wait_for(|m| m.state == ServerState::Leader),
    )
    .await
    .context("the replica did not elect itself within 30 s")??;
    drop(metrics);

    let properties = queue_properties(options.entry_bytes);
    let started = Instant::now();
    let deadline = started + options.duration;
    for _ in 0..WRITERS {
        let raft = core.raft.clone();
        let state = core.state.clone();
        let properties = properties.clone();
        tasks.spawn(async move {
            while Instant::now() < deadline {
                let expected = state.read(|s| s.queue_config_version);
                let command = RmCommand::V1(CommandV1::SetQueueConfiguration {
                    expected,
                    properties: properties.clone(),
                });
                if raft.client_write(command).await.is_err() {
                    return;
                }
            }
        });
    }
    let mut samples = Vec::new();
    let mut next = started;
    while Instant::now() < deadline {
        next += options.sample_every;
        tokio::time::sleep_until(next.min(deadline).into()).await;
        samples.push(sample(dir, &db, &core, started.elapsed())?);
    }
    shutdown.cancel();
    while tasks.join_next().await.is_some() {}
    let _ = core.raft.shutdown().await;
    Ok(StorageSoakReport {
        entry_bytes: options.entry_bytes,
        duration: options.duration,
        samples,
    })
}

/// One queue configuration of about `bytes` bytes.
fn queue_properties(bytes: usize) -> BTreeMap<String, String> {
    let mut properties = BTreeMap::new();
    let mut size = 0;
    let mut queue = 0;
    while size < bytes {
        let key = format!("yarn.scheduler.capacity.root.q{queue}.capacity");
        size += key.len() + 2;
        properties.insert(key, "10".to_owned());
        queue += 1;
    }
    properties
}

fn sample(
    dir: &Path,
    db: &DurableDb,
    core: &RaftCore,
    at: Duration,
) -> anyhow::Result<StorageSample> {
    let disk = disk_use(dir).with_context(|| format!("measuring {}", dir.display()))?;
    let live = live_bytes(db.db())?;
    let metrics = core.raft.metrics().borrow().clone();
    Ok(StorageSample {
        at,
        last_log_index: metrics.last_log_index.unwrap_or(0),
        purged_index: metrics.purged.map_or(0, |id| id.index),
        live_bytes: live,
        apparent_bytes: disk.apparent,
        allocated_bytes: disk.allocated,
    })
}
