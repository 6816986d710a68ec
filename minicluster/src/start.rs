//! `minicluster start`: launches the cluster of a manifest, reports the leader, and supervises
//! until SIGINT, SIGTERM or SIGHUP.

use std::path::Path;
use std::time::Duration;

use anyhow::Context;
use tokio::signal::unix::{SignalKind, signal};

use crate::cluster_manifest::ClusterManifest;
use crate::cluster_state::ClusterState;
use crate::daemon_addresses::daemon_addresses;
use crate::daemon_role::DaemonRole;
use crate::daemon_spec::DaemonSpec;
use crate::leader_probe::{Leader, LeaderProbe};
use crate::mini_cluster::{DEFAULT_STOP_TIMEOUT, MiniCluster};

/// How long `start` waits for a ResourceManager to report ACTIVE before saying none did.
pub const LEADER_WAIT: Duration = Duration::from_secs(15);

/// What happens during [`start`], in this order: `Started`, then `LeaderElected` or `NoLeader`
/// (unless the cluster is stopped first), then `Stopped`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StartEvent {
    /// Every daemon was spawned and `cluster.json` written.
    Started(ClusterState),
    /// A ResourceManager reported ACTIVE.
    LeaderElected(Leader),
    /// No ResourceManager reported ACTIVE within this long; the cluster keeps running.
    NoLeader {
        /// How long the replicas were asked.
        waited: Duration,
    },
    /// SIGINT, SIGTERM or SIGHUP arrived and every daemon has exited; the final state.
    Stopped(ClusterState),
}

/// Runs the cluster laid out in `base_dir` with the `yarn-ha` executable `exe` until the process
/// receives SIGINT, SIGTERM or SIGHUP, then stops it and returns its final state. `report` is told what
/// happens (see [`StartEvent`]). Blocks the calling thread; it runs its own Tokio runtime.
///
/// Each daemon runs as `<exe> resourcemanager --rm-id <id> --conf-dir <dir>` or
/// `<exe> nodemanager --conf-dir <dir>` (see [`DaemonSpec::yarn_ha`]), with output appended to
/// `<base>/logs/<id>.log`. Daemons that exit are recorded and not restarted; a restart request
/// ([`super::restart`]) starts one again.
///
/// # Errors
///
/// When the manifest cannot be read, a daemon's configuration has invalid addresses, the client
/// TLS settings cannot be loaded, or launching fails (see [`MiniCluster::launch`]); and when
/// supervising or stopping fails (see [`MiniCluster::run`]).
pub fn start(
    base_dir: &Path,
    exe: &Path,
    mut report: impl FnMut(StartEvent),
) -> anyhow::Result<ClusterState> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("creating the supervisor's runtime")?;
    runtime.block_on(supervise(base_dir, exe, &mut report))
}

async fn supervise(
    base_dir: &Path,
    exe: &Path,
    report: &mut impl FnMut(StartEvent),
) -> anyhow::Result<ClusterState> {
    // Installed before any daemon starts: from here on these signals are queued for the
    // shutdown below instead of killing the supervisor mid-launch and orphaning daemons.
    // SIGHUP counts too, so closing the terminal stops the cluster rather than orphaning it.
    let mut interrupt = signal(SignalKind::interrupt()).context("installing the SIGINT handler")?;
    let mut terminate =
        signal(SignalKind::terminate()).context("installing the SIGTERM handler")?;
    let mut hangup = signal(SignalKind::hangup()).context("installing the SIGHUP handler")?;
    let manifest = ClusterManifest::read(base_dir)?;
    let specs = manifest
        .daemons
        .iter()
        .map(|daemon| {
            let addresses = daemon_addresses(daemon)?;
            Ok(DaemonSpec::yarn_ha(
                exe,
                daemon,
                manifest.log_file(&daemon.id),
                addresses,
            ))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let admin_addresses: Vec<(String, String)> = specs
        .iter()
        .filter(|spec| spec.role == DaemonRole::ResourceManager)
        .filter_map(|spec| {
            let admin = spec.addresses.get("admin")?;
            Some((spec.id.clone(), admin.clone()))
        })
        .collect();
    let mut probe = LeaderProbe::new(&manifest.client_conf_dir, admin_addresses)?;
    let cluster = MiniCluster::launch(
        &manifest.base_dir,
        &manifest.client_conf_dir,
        specs,
        DEFAULT_STOP_TIMEOUT,
    )
    .await?;
    report(StartEvent::Started(cluster.state().clone()));

    let shutdown = async {
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = terminate.recv() => {}
            _ = hangup.recv() => {}
        }
    };
    let run = cluster.run(shutdown);
    tokio::pin!(run);
    tokio::select! {
        stopped = &mut run => {
            let state = stopped?;
            report(StartEvent::Stopped(state.clone()));
            return Ok(state);
        }
        leader = probe.find_leader(LEADER_WAIT) => report(match leader {
            Some(leader) => StartEvent::LeaderElected(leader),
            None => StartEvent::NoLeader { waited: LEADER_WAIT },
        }),
    }
    let state = run.await?;
    report(StartEvent::Stopped(state.clone()));
    Ok(state)
}
