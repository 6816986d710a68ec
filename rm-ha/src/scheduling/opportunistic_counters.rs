//! [`OpportunisticCounters`]: the leader's counts of opportunistic containers, for operators.

use std::sync::{Arc, Mutex, PoisonError};

/// How many opportunistic containers this leadership saw asked for and allocated.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OpportunisticCounts {
    /// Containers newly asked for in OPPORTUNISTIC asks the RM's own allocator serves (asks of
    /// ApplicationMasterProtocol.Allocate, or that an AMRMProxy forwarded): an ask that only
    /// repeats or lowers an outstanding count adds nothing.
    pub requested_centrally: u64,
    /// OPPORTUNISTIC containers the RM's allocator placed and committed.
    pub allocated_centrally: u64,
    /// OPPORTUNISTIC containers AMRMProxies placed themselves (distributed scheduling) and the
    /// RM recorded; repeated reports of one container count once.
    pub allocated_distributed: u64,
}

/// The [`OpportunisticCounts`] of the current leadership, tagged with its epoch.
///
/// Soft state, like YARN's RM metrics: counts start at zero on every new leader (and on a
/// replica that leads again), and a follower reports zeros. Shared by the ApplicationMaster
/// service, the scheduling loop and the client service that reports them in GetClusterMetrics.
#[derive(Debug, Clone, Default)]
pub struct OpportunisticCounters {
    inner: Arc<Mutex<(u64, OpportunisticCounts)>>,
}

impl OpportunisticCounters {
    /// Runs `f` on the counts of `epoch`, zeroing them first if they belonged to another epoch.
    pub fn with<R>(&self, epoch: u64, f: impl FnOnce(&mut OpportunisticCounts) -> R) -> R {
        // Plain integers: a panic elsewhere cannot leave them half-written.
        let mut guard = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        if guard.0 != epoch {
            *guard = (epoch, OpportunisticCounts::default());
        }
        f(&mut guard.1)
    }

    /// The counts of `epoch`: zeros if this replica holds none for it.
    pub fn get(&self, epoch: u64) -> OpportunisticCounts {
        let guard = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        if guard.0 == epoch {
            guard.1
        } else {
            OpportunisticCounts::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_belong_to_one_leadership() {
        let counters = OpportunisticCounters::default();
        counters.with(4, |counts| counts.allocated_distributed += 3);
        assert_eq!(counters.get(4).allocated_distributed, 3);
        assert_eq!(counters.get(5), OpportunisticCounts::default());
        counters.with(5, |counts| counts.requested_centrally += 1);
        assert_eq!(counters.get(4), OpportunisticCounts::default(), "reset");
        assert_eq!(counters.get(5).requested_centrally, 1);
    }
}
