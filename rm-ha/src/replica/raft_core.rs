//! [`RaftCore`]: the Raft half of a replica, which the replica process and the deterministic
//! simulation both run.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use openraft::{Config, Raft, SnapshotPolicy};
use rand::rngs::StdRng;
use tokio_util::sync::CancellationToken;
use yarn_security::Authorizer;

use super::election_timer::ElectionTimer;
use super::leadership_transfer::LeadershipTransfer;
use super::member_changes::MemberChanges;
use crate::error::{Error, Record};
use crate::operations::RmError;
use crate::raft_types::{RmNode, RmNodeId, RmTypeConfig, node_id_of};
use crate::state_machine::StateView;
use crate::storage::{Failpoints, RmLogStore, RmStateMachineStore, StorageEngine};
use crate::telemetry::RmMetrics;
use crate::{RaftGrpcNetworkFactory, RaftGrpcService, RmConfig};

/// One replica's Raft stores on a [`StorageEngine`], its openraft node, the gRPC service its
/// peers call, and its election timer.
///
/// The replica process serves the service over mutual TLS and builds its front doors and
/// leader services on top; the simulation serves it over a simulated network on a simulated
/// disk. Both run exactly this code, so what the simulation finds about elections, replication
/// and durability holds for the replica.
pub struct RaftCore {
    /// The openraft node.
    pub raft: Raft<RmTypeConfig>,
    /// The applied state.
    pub state: StateView,
    /// The replica's clients of its peers.
    pub network: RaftGrpcNetworkFactory,
    /// The service its peers call.
    pub service: RaftGrpcService,
    config: Arc<RmConfig>,
    metrics: Arc<RmMetrics>,
    authorizer: Authorizer,
    #[cfg(feature = "failpoints")]
    failpoints: Failpoints,
}

impl RaftCore {
    /// Opens the stores on `engine`, starts openraft with `network`, and bootstraps the group
    /// if this is the first configured rm-id and the storage is pristine (never otherwise: a
    /// replica with any Raft state rejoins with it). Raft calls must come from a verified
    /// certificate unless `authorizer` says the transport has none.
    ///
    /// # Errors
    ///
    /// Storage errors opening the stores, [`Error::RaftConfig`] for timings openraft refuses,
    /// [`Error::RaftStart`] and [`Error::Bootstrap`].
    pub async fn start<E: StorageEngine>(
        config: Arc<RmConfig>,
        engine: &E,
        network: RaftGrpcNetworkFactory,
        failpoints: Failpoints,
        authorizer: Authorizer,
    ) -> Result<Self, Error> {
        Self::start_measured(
            config,
            engine,
            network,
            failpoints,
            authorizer,
            Arc::new(RmMetrics::new()),
        )
        .await
    }

    /// [`start`](Self::start), recording storage and apply figures in `metrics`.
    pub(crate) async fn start_measured<E: StorageEngine>(
        config: Arc<RmConfig>,
        engine: &E,
        network: RaftGrpcNetworkFactory,
        failpoints: Failpoints,
        authorizer: Authorizer,
        metrics: Arc<RmMetrics>,
    ) -> Result<Self, Error> {
        let node_id = node_id_of(&config.rm_id);
        // Whatever an earlier run wrote and did not sync is made durable before Raft reads it:
        // a vote or an entry found now is relied on as if acknowledged (sled's open syncs its
        // files the same way).
        engine.flush().await.map_err(|source| Error::Storage {
            record: Record::Log,
            source,
        })?;
        let log_store = RmLogStore::new(engine)?
            .with_failpoints(failpoints)
            .with_metrics(Arc::clone(&metrics));
        let state_machine = RmStateMachineStore::new(engine)?
            .with_failpoints(failpoints)
            .with_metrics(Arc::clone(&metrics));
        let state = state_machine.state_view();
        let raft = Raft::new(
            node_id,
            openraft_config(&config)?,
            network.clone(),
            log_store,
            state_machine,
        )
        .await
        .map_err(|source| Error::RaftStart {
            source: Box::new(source),
        })?;
        bootstrap(&config, &raft).await?;
        let service = RaftGrpcService::new(
            raft.clone(),
            config.rm_id.clone(),
            config.ha.members.iter().map(|m| m.rm_id.clone()),
            authorizer,
        );
        Ok(Self {
            raft,
            state,
            network,
            service,
            config,
            metrics,
            authorizer,
            #[cfg(feature = "failpoints")]
            failpoints,
        })
    }

    /// The replica's configuration.
    pub(crate) fn config(&self) -> &Arc<RmConfig> {
        &self.config
    }

    /// Where the replica's figures are recorded.
    pub(crate) fn metrics(&self) -> Arc<RmMetrics> {
        Arc::clone(&self.metrics)
    }

    /// Who may call the replica's services.
    pub(crate) fn authorizer(&self) -> Authorizer {
        self.authorizer
    }

    /// The failpoints the replica runs with.
    #[cfg(feature = "failpoints")]
    pub(crate) fn failpoints(&self) -> Failpoints {
        self.failpoints
    }

    /// Starts elections with pre-vote until `shutdown` is cancelled or openraft stops, drawing
    /// the random election timeouts from `rng`.
    pub fn run_elections(
        &self,
        rng: StdRng,
        shutdown: CancellationToken,
    ) -> impl Future<Output = ()> + Send + 'static {
        let timer = ElectionTimer {
            raft: self.raft.clone(),
            network: self.network.clone(),
            rm_id: self.config.rm_id.clone(),
            settings: self.config.raft,
            hold: self.service.election_hold(),
            rng,
        };
        timer.run(shutdown)
    }

    /// Hands leadership from this replica, the leader, to the voter `target_rm_id`, as
    /// `rmadmin -transferLeadership` does.
    ///
    /// # Errors
    ///
    /// As [`LeadershipTransfer::transfer_to`]: a failed precondition, or the target did not
    /// become leader.
    pub async fn transfer_leadership(&self, target_rm_id: &str) -> Result<(), RmError> {
        self.leadership_transfer()
            .transfer_to(node_id_of(target_rm_id), target_rm_id)
            .await
    }

    /// This replica's membership changes, waiting at most `catch_up_timeout` for a learner.
    pub fn member_changes(&self, catch_up_timeout: Duration) -> MemberChanges {
        MemberChanges {
            raft: self.raft.clone(),
            rm_id: self.config.rm_id.clone(),
            catch_up_timeout,
        }
    }

    /// The transfer of leadership away from this replica.
    pub(crate) fn leadership_transfer(&self) -> LeadershipTransfer {
        LeadershipTransfer {
            raft: self.raft.clone(),
            network: self.network.clone(),
            node_id: node_id_of(&self.config.rm_id),
            settings: self.config.raft,
            hold: self.service.election_hold(),
        }
    }
}

/// openraft's configuration from the replica's settings.
fn openraft_config(config: &RmConfig) -> Result<Arc<Config>, Error> {
    let millis = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
    let raft = &config.raft;
    let openraft = Config {
        cluster_name: config.cluster_id.clone(),
        heartbeat_interval: millis(raft.heartbeat_interval),
        election_timeout_min: millis(raft.election_timeout_min),
        election_timeout_max: millis(raft.election_timeout_max),
        // The replica's ElectionTimer starts elections, after a pre-vote openraft 0.9 lacks.
        enable_elect: false,
        snapshot_policy: SnapshotPolicy::LogsSinceLast(raft.snapshot_log_entries),
        // Keep a little log behind each snapshot so a briefly lagging follower catches up from
        // the log instead of needing the whole snapshot.
        max_in_snapshot_log_to_keep: raft.snapshot_log_entries.min(1_000),
        ..Config::default()
    };
    openraft
        .validate()
        .map(Arc::new)
        .map_err(|source| Error::RaftConfig {
            source: Box::new(source),
        })
}

/// Initializes the group exactly once: only the first configured rm-id does it, and only when
/// its storage holds no Raft state at all. Every other replica, and this one on any later
/// start, joins through replication from the leader.
async fn bootstrap(config: &RmConfig, raft: &Raft<RmTypeConfig>) -> Result<(), Error> {
    let first = &config.ha.members[0].rm_id;
    let initialized = raft
        .is_initialized()
        .await
        .map_err(|err| Error::RaftStopped {
            reason: err.to_string(),
        })?;
    if initialized {
        tracing::info!(rm_id = %config.rm_id, "found Raft state; rejoining the group");
        return Ok(());
    }
    if config.rm_id != *first {
        tracing::info!(
            rm_id = %config.rm_id,
            %first,
            "no Raft state; waiting to be contacted by the group that {first} initializes"
        );
        return Ok(());
    }
    let members: BTreeMap<RmNodeId, RmNode> = config
        .raft_members()
        .map(|node| (node_id_of(&node.rm_id), node))
        .collect();
    tracing::info!(rm_id = %config.rm_id, members = members.len(), "initializing a new Raft group");
    raft.initialize(members)
        .await
        .map_err(|err| Error::Bootstrap {
            reason: err.to_string(),
        })
}
