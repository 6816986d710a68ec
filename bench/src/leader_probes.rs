//! [`LeaderProbes`]: the two probes `yarn-ha bench rest` runs on the leader side by side.

use std::time::Duration;

use tokio::sync::watch;

use crate::commit_probe::CommitProbe;
use crate::heartbeat_probe::HeartbeatProbe;
use crate::probe::{ProbeTally, sample_until};

/// What both probes measured over one stretch.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProbeTallies {
    /// The heartbeats of one simulated node (the node tracker's lock).
    pub heartbeat: ProbeTally,
    /// The Raft writes (the state's write lock).
    pub commit: ProbeTally,
}

/// A node's heartbeats and a client's Raft writes, each timed one call at a time, both at
/// once.
#[derive(Debug)]
pub(crate) struct LeaderProbes {
    pub(crate) heartbeat: HeartbeatProbe,
    pub(crate) commit: CommitProbe,
}

impl LeaderProbes {
    /// Runs both probes until `stop` turns true (see [`sample_until`]).
    pub(crate) async fn sample_until(&mut self, stop: watch::Receiver<bool>) -> ProbeTallies {
        let (heartbeat, commit) = tokio::join!(
            sample_until(&mut self.heartbeat, stop.clone()),
            sample_until(&mut self.commit, stop)
        );
        ProbeTallies { heartbeat, commit }
    }

    /// Runs both probes for `duration`.
    pub(crate) async fn sample_for(&mut self, duration: Duration) -> ProbeTallies {
        let (stop, stopped) = watch::channel(false);
        let ((), tallies) = tokio::join!(
            async move {
                tokio::time::sleep(duration).await;
                // The probes hold receivers until they return.
                let _ = stop.send(true);
            },
            self.sample_until(stopped)
        );
        tallies
    }
}
