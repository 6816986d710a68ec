//! The services only the serving leader runs.

use std::sync::Arc;
use std::time::Duration;

/// How long the initial queue-configuration commit waits before trying again.
const QUEUE_CONFIG_RETRY_INTERVAL: Duration = Duration::from_secs(1);
/// How often the AM launcher looks for AM containers to start: a tenth of the default NM
/// heartbeat, so launching adds little to an application's start.
const AM_LAUNCH_CHECK_INTERVAL: Duration = Duration::from_millis(100);

use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use yarn_security::Dialer;

use super::am_launcher::AmLauncher;
use super::am_liveness_monitor::AmLivenessMonitor;
use super::application_retirer::ApplicationRetirer;
use super::async_scheduler::{AsyncScheduler, PassThreads};
use super::auto_queue_deleter::AutoQueueDeleter;
use super::leadership::Leadership;
use super::lifetime_monitor::LifetimeMonitor;
use super::master_key_service::{MasterKeyService, SecretSource};
use super::nm_liveness_monitor::NmLivenessMonitor;
use super::plan_follower::PlanFollower;
use super::preemption_monitor::PreemptionMonitor;
use super::queue_file_committer::QueueFileCommitter;
use super::queue_manager::QueueManager;
use super::raft_proposer::RaftProposer;
use crate::RmConfig;
use crate::nodes::NodeTracker;
use crate::state_machine::StateView;
use crate::telemetry::RmMetrics;

/// Starts the leader-only services of one leadership, all under one cancellation token and in
/// one [`JoinSet`] the leadership owns (no service outlives it detached).
///
/// These are the token master-key roller, the NodeManager liveness monitor, the initial commit
/// of the queue configuration (and its auto-refresh when configured), the asynchronous scheduler, the AM launcher, the AM liveness
/// monitor, the application lifetime monitor, when `yarn.resourcemanager.scheduler.monitor.enable` is set the preemption monitor
/// and the removal of unused auto-created queues (each when its policy is listed),
/// and when `yarn.resourcemanager.reservation-system.enable` is set the plan follower. Every
/// service stops at its next
/// await point once the token is cancelled, and each only ever changes state through Raft
/// proposals, which a deposed leader cannot commit.
#[derive(Clone)]
pub(crate) struct LeaderServices {
    /// Every Raft write of the services goes through it.
    pub(crate) proposer: RaftProposer,
    pub(crate) state: StateView,
    pub(crate) config: Arc<RmConfig>,
    /// How often the master-key roller re-evaluates its schedule.
    pub(crate) key_check_interval: Duration,
    /// Where the scheduling loop records its passes.
    pub(crate) metrics: Arc<RmMetrics>,
    /// How the AM launcher reaches NodeManagers.
    pub(crate) dialer: Dialer,
    /// Where scheduling passes run.
    pub(crate) passes: PassThreads,
    /// Where new master keys' secrets come from.
    pub(crate) secrets: SecretSource,
    /// The replica's failpoints, for the scheduler's planted bug.
    #[cfg(feature = "failpoints")]
    pub(crate) failpoints: crate::storage::Failpoints,
}

impl LeaderServices {
    /// The empty node tracker a leadership starts with, ranking nodes by load when
    /// opportunistic containers are on.
    pub(crate) fn node_tracker(&self) -> NodeTracker {
        let opportunistic = &self.config.opportunistic;
        NodeTracker::with_load_monitor(opportunistic.load_monitor(), opportunistic.sorting_interval)
    }

    /// Spawns every leader-only service of `leadership`, into the set the leadership owns:
    /// they end when `token` is cancelled, or with the set.
    pub(crate) fn start(
        &self,
        leadership: &Arc<Leadership>,
        token: CancellationToken,
    ) -> JoinSet<()> {
        let epoch = leadership.epoch();
        let keys = MasterKeyService {
            proposer: self.proposer.clone(),
            state: self.state.clone(),
            config: self.config.clone(),
            check_interval: self.key_check_interval,
            secrets: self.secrets.generator(epoch),
        };
        let liveness = NmLivenessMonitor {
            proposer: self.proposer.clone(),
            state: self.state.clone(),
            leadership: Arc::clone(leadership),
            expiry: self.config.nm_expiry_interval,
            // A tenth of the expiry keeps a lost node's detection within 10% of the interval.
            check_interval: (self.config.nm_expiry_interval / 10).max(Duration::from_millis(100)),
        };
        let queues = QueueFileCommitter {
            proposer: self.proposer.clone(),
            state: self.state.clone(),
            source: self.config.queues.clone(),
            retry_interval: QUEUE_CONFIG_RETRY_INTERVAL,
            auto_refresh: self.config.queue_auto_refresh,
            passes: self.passes,
        };
        let scheduler = AsyncScheduler {
            proposer: self.proposer.clone(),
            state: self.state.clone(),
            leadership: Arc::clone(leadership),
            source: self.config.queues.clone(),
            interval: self.config.scheduling_interval,
            scheduling_wait: self.config.scheduling_wait,
            nodes_used: self.config.opportunistic.nodes_used,
            metrics: Arc::clone(&self.metrics),
            passes: self.passes,
            #[cfg(feature = "failpoints")]
            failpoints: self.failpoints,
        };
        let launcher = AmLauncher {
            proposer: self.proposer.clone(),
            state: self.state.clone(),
            leadership: Arc::clone(leadership),
            dialer: self.dialer.clone(),
            container_token_expiry: self.config.container_allocation_expiry,
            check_interval: AM_LAUNCH_CHECK_INTERVAL,
        };
        let am_liveness = AmLivenessMonitor {
            proposer: self.proposer.clone(),
            state: self.state.clone(),
            leadership: Arc::clone(leadership),
            expiry: self.config.am_expiry_interval,
            check_interval: (self.config.am_expiry_interval / 10).max(Duration::from_millis(100)),
        };
        let lifetimes = LifetimeMonitor {
            proposer: self.proposer.clone(),
            state: self.state.clone(),
            interval: self.config.application_timeouts_interval,
        };
        let retirer = ApplicationRetirer {
            proposer: self.proposer.clone(),
            state: self.state.clone(),
            keep: self.config.max_completed_applications,
        };
        let mut services = JoinSet::new();
        if self.config.preemption.enabled {
            let preemption = PreemptionMonitor {
                proposer: self.proposer.clone(),
                state: self.state.clone(),
                leadership: Arc::clone(leadership),
                source: self.config.queues.clone(),
                config: self.config.preemption,
                scheduling_wait: self.config.scheduling_wait,
                passes: self.passes,
            };
            let preemption_token = token.clone();
            services.spawn(async move { preemption.run(preemption_token).await });
        }
        if self.config.auto_queue_deletion {
            let deleter = AutoQueueDeleter {
                proposer: self.proposer.clone(),
                state: self.state.clone(),
            };
            let deleter_token = token.clone();
            services.spawn(async move { deleter.run(deleter_token).await });
        }
        if let Some(interval) = self.config.queue_management {
            let manager = QueueManager {
                proposer: self.proposer.clone(),
                state: self.state.clone(),
                interval,
            };
            let manager_token = token.clone();
            services.spawn(async move { manager.run(manager_token).await });
        }
        if self.config.reservations.enabled {
            let follower = PlanFollower {
                proposer: self.proposer.clone(),
                state: self.state.clone(),
                leadership: Arc::clone(leadership),
                source: self.config.queues.clone(),
                time_step: self.config.reservations.time_step,
                scheduling_wait: self.config.scheduling_wait,
                nm_expiry: self.config.nm_expiry_interval,
            };
            let follower_token = token.clone();
            services.spawn(async move { follower.run(follower_token).await });
        }
        let launcher_token = token.clone();
        services.spawn(async move { launcher.run(launcher_token).await });
        let am_liveness_token = token.clone();
        services.spawn(async move { am_liveness.run(am_liveness_token).await });
        let lifetimes_token = token.clone();
        services.spawn(async move { lifetimes.run(lifetimes_token).await });
        let retirer_token = token.clone();
        services.spawn(async move { retirer.run(retirer_token).await });
        let scheduler_token = token.clone();
        services.spawn(async move {
            tracing::debug!(epoch, "asynchronous scheduler started");
            scheduler.run(scheduler_token).await;
        });
        let queues_token = token.clone();
        services.spawn(async move { queues.run(queues_token).await });
        let liveness_token = token.clone();
        services.spawn(async move {
            tracing::debug!(epoch, "NodeManager liveness monitor started");
            liveness.run(liveness_token).await;
        });
        services.spawn(async move {
            tracing::debug!(epoch, "master-key roller started");
            keys.run(token).await;
            tracing::debug!(epoch, "master-key roller stopped");
        });
        services
    }
}
