//! [`Leadership`]: one epoch of this replica's leadership and the soft state only it holds.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Mutex, MutexGuard, PoisonError};

use yarn_proto::ids::ApplicationAttemptId;

use crate::applications::AmSession;
use crate::nodes::NodeTracker;
use crate::scheduling::{
    ActivitiesManager, ActivitiesSettings, OpportunisticCounts, SchedulerCell,
};

/// The leader's soft state for one epoch: the NodeManagers registered with it, the AM sessions
/// opened with it, its scheduler, its opportunistic counts and the activities it records.
///
/// Built when this replica, as leader of a term, has applied the first entry of its epoch, and
/// handed by the [`LeaderGate`](super::LeaderGate) to every handler while it serves; dropped
/// (once the last handler holding it finished) when the leadership ends. So a handler works on
/// the soft state of one epoch only, and a replica that leads again starts from nothing: every
/// node gets RESYNC and re-registers, every AM is told it is not registered and re-sends its
/// asks, and the scheduler is rebuilt from the replicated state.
///
/// Locking, the one story for all of it:
/// - the scheduler ([`SchedulerCell`]) is an async lock, held for a whole scheduling pass
///   (hundreds of milliseconds on thousands of nodes) or one handler's scheduler call; it is
///   taken before anything else;
/// - the node tracker, the sessions, the counts and the activities are plain mutexes, each held
///   for a short section that never blocks and never awaits, and never while another of the
///   four is held;
/// - the replicated state's lock ([`StateView`](crate::state_machine::StateView)) is the
///   innermost: it may be taken under any of these, and none of them is taken under it.
///
/// Every section leaves what it guards consistent (whole-value updates of the maps, plain
/// counters), so a panic elsewhere poisons nothing: the locks are taken through poisoning.
pub struct Leadership {
    term: u64,
    epoch: u64,
    nodes: Mutex<NodeTracker>,
    sessions: Mutex<BTreeMap<ApplicationAttemptId, AmSession>>,
    scheduler: SchedulerCell,
    counts: Mutex<OpportunisticCounts>,
    activities: Mutex<ActivitiesManager>,
}

impl Leadership {
    /// The leadership of `term` that began `epoch`, tracking nodes with `nodes` (empty, with
    /// the load monitor its opportunistic settings ask for) and keeping activities as
    /// `activities` says.
    pub fn new(term: u64, epoch: u64, nodes: NodeTracker, activities: ActivitiesSettings) -> Self {
        Self {
            term,
            epoch,
            nodes: Mutex::new(nodes),
            sessions: Mutex::default(),
            scheduler: SchedulerCell::default(),
            counts: Mutex::default(),
            activities: Mutex::new(ActivitiesManager::new(activities)),
        }
    }

    /// The Raft term of this leadership.
    pub fn term(&self) -> u64 {
        self.term
    }

    /// The epoch this leadership began: it numbers the leader's container ids and is the
    /// `rm_identifier` NodeManagers see.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// Runs `f` on the node tracker; `f` must not block.
    pub fn nodes<R>(&self, f: impl FnOnce(&mut NodeTracker) -> R) -> R {
        f(&mut relock(&self.nodes))
    }

    /// Runs `f` on the AM sessions opened with this leadership; `f` must not block.
    pub fn sessions<R>(
        &self,
        f: impl FnOnce(&mut BTreeMap<ApplicationAttemptId, AmSession>) -> R,
    ) -> R {
        f(&mut relock(&self.sessions))
    }

    /// The scheduler of this leadership.
    pub fn scheduler(&self) -> &SchedulerCell {
        &self.scheduler
    }

    /// Runs `f` on the opportunistic counts.
    pub fn count<R>(&self, f: impl FnOnce(&mut OpportunisticCounts) -> R) -> R {
        f(&mut relock(&self.counts))
    }

    /// Runs `f` on the activities recorded; `f` must not block.
    pub fn activities<R>(&self, f: impl FnOnce(&mut ActivitiesManager) -> R) -> R {
        f(&mut relock(&self.activities))
    }

    /// The opportunistic counts so far.
    pub fn counts(&self) -> OpportunisticCounts {
        *relock(&self.counts)
    }
}

impl fmt::Debug for Leadership {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Leadership")
            .field("term", &self.term)
            .field("epoch", &self.epoch)
            .finish_non_exhaustive()
    }
}

/// The guard of `mutex`, through poisoning (see [`Leadership`]).
fn relock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
