//! [`HostActions`]: what the harness asks of one replica during a simulated run (an operator's
//! request to the leader, a jump of the host's clock), and the task on each replica that
//! carries it out.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use openraft::ServerState;
use yarn_rm_ha::RmNode;
use yarn_rm_ha::replica::RaftCore;

use crate::history::History;

/// How often a replica looks for actions addressed to it.
const POLL: Duration = Duration::from_millis(10);

/// Bound on one action, and on a learner catching up (it stays a learner after it).
const ACTION_TIMEOUT: Duration = Duration::from_secs(5);

/// A request to one replica.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum HostAction {
    /// `rmadmin -transitionToActive --forcemanual`: hand leadership to this replica.
    TransferTo(String),
    /// `rmadmin -removeFromCluster`: remove this voter from the group.
    RemoveVoter(String),
    /// `rmadmin -addToCluster`: add this replica as a learner and, once it caught up, promote
    /// it to voter.
    AddVoter(String),
    /// The host's monotonic clock jumps ahead by this much at once, as after the virtual
    /// machine was frozen: every timer due meanwhile fires together (election timeouts, the
    /// leader lease, RPC deadlines).
    ClockJump(Duration),
}

impl std::fmt::Display for HostAction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HostAction::TransferTo(target) => write!(f, "transfer leadership to {target}"),
            HostAction::RemoveVoter(rm_id) => write!(f, "remove {rm_id} from the group"),
            HostAction::AddVoter(rm_id) => write!(f, "add {rm_id} to the group"),
            HostAction::ClockJump(by) => write!(f, "clock jumps ahead {by:?}"),
        }
    }
}

/// Actions waiting for the replica they are addressed to, by rm-id. Shared by the harness,
/// which posts operators' requests to the replica it saw leading, and every replica, which
/// takes its own.
#[derive(Clone, Debug, Default)]
pub(crate) struct HostActions {
    inner: Arc<Mutex<BTreeMap<String, VecDeque<HostAction>>>>,
}

impl HostActions {
    fn lock(&self) -> MutexGuard<'_, BTreeMap<String, VecDeque<HostAction>>> {
        // Each update is one push or pop, so a poisoned queue is consistent.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Asks `rm_id` to carry out `action`.
    pub(crate) fn post(&self, rm_id: &str, action: HostAction) {
        self.lock()
            .entry(rm_id.to_owned())
            .or_default()
            .push_back(action);
    }

    fn take(&self, rm_id: &str) -> Option<HostAction> {
        self.lock().get_mut(rm_id).and_then(VecDeque::pop_front)
    }
}

/// Carries out, one at a time, the actions posted to this replica, recording each outcome. An
/// operator's request reaching a replica that no longer leads fails as it would for an
/// operator.
pub(crate) async fn serve_actions(
    core: Arc<RaftCore>,
    rm_id: String,
    queue: HostActions,
    members: BTreeMap<String, RmNode>,
    history: History,
) {
    loop {
        tokio::time::sleep(POLL).await;
        let Some(action) = queue.take(&rm_id) else {
            continue;
        };
        let outcome = tokio::time::timeout(ACTION_TIMEOUT, act(&core, &action, &members))
            .await
            .unwrap_or_else(|_| Err(format!("no outcome within {ACTION_TIMEOUT:?}")));
        let verdict = match outcome {
            Ok(()) => "done".to_owned(),
            Err(reason) => format!("failed: {reason}"),
        };
        history.record(turmoil::elapsed(), format!("{rm_id}: {action}: {verdict}"));
    }
}

async fn act(
    core: &RaftCore,
    action: &HostAction,
    members: &BTreeMap<String, RmNode>,
) -> Result<(), String> {
    let changes = core.member_changes(ACTION_TIMEOUT);
    match action {
        HostAction::TransferTo(target) => {
            // The admin protocol transfers only while its leader gate says it leads, which
            // follows openraft's server state.
            if core.raft.metrics().borrow().state != ServerState::Leader {
                return Err("not the leader".to_owned());
            }
            core.transfer_leadership(target)
                .await
                .map_err(|err| err.to_string())
        }
        HostAction::RemoveVoter(rm_id) => changes.remove(rm_id).await.map_err(|e| e.to_string()),
        HostAction::AddVoter(rm_id) => {
            let node = members
                .get(rm_id)
                .cloned()
                .ok_or_else(|| format!("{rm_id} is not a configured replica"))?;
            changes.add(node).await.map_err(|err| err.to_string())
        }
        HostAction::ClockJump(by) => {
            tokio::time::advance(*by).await;
            Ok(())
        }
    }
}
