//! [`AdminQueue`]: what an operator asks of the group's leader during a simulated run, and the
//! task on each replica that carries it out.

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

/// An operator's request to the leader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum AdminAction {
    /// `rmadmin -transitionToActive --forcemanual`: hand leadership to this replica.
    TransferTo(String),
    /// `rmadmin -removeFromCluster`: remove this voter from the group.
    RemoveVoter(String),
    /// `rmadmin -addToCluster`: add this replica as a learner and, once it caught up, promote
    /// it to voter.
    AddVoter(String),
}

impl std::fmt::Display for AdminAction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AdminAction::TransferTo(target) => write!(f, "transfer leadership to {target}"),
            AdminAction::RemoveVoter(rm_id) => write!(f, "remove {rm_id} from the group"),
            AdminAction::AddVoter(rm_id) => write!(f, "add {rm_id} to the group"),
        }
    }
}

/// Actions waiting for the replica they are addressed to, by rm-id. Shared by the harness,
/// which posts to the replica it saw leading, and every replica, which takes its own.
#[derive(Clone, Debug, Default)]
pub(crate) struct AdminQueue {
    inner: Arc<Mutex<BTreeMap<String, VecDeque<AdminAction>>>>,
}

impl AdminQueue {
    fn lock(&self) -> MutexGuard<'_, BTreeMap<String, VecDeque<AdminAction>>> {
        // Each update is one push or pop, so a poisoned queue is consistent.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Asks `rm_id` to carry out `action`.
    pub(crate) fn post(&self, rm_id: &str, action: AdminAction) {
        self.lock()
            .entry(rm_id.to_owned())
            .or_default()
            .push_back(action);
    }

    fn take(&self, rm_id: &str) -> Option<AdminAction> {
        self.lock().get_mut(rm_id).and_then(VecDeque::pop_front)
    }
}

/// Carries out, one at a time, the actions posted to this replica, recording each outcome. An
/// action reaching a replica that no longer leads fails as it would for an operator.
pub(crate) async fn serve_actions(
    core: Arc<RaftCore>,
    rm_id: String,
    queue: AdminQueue,
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
    action: &AdminAction,
    members: &BTreeMap<String, RmNode>,
) -> Result<(), String> {
    let changes = core.member_changes(ACTION_TIMEOUT);
    match action {
        AdminAction::TransferTo(target) => {
            // The admin protocol transfers only while its leader gate says it leads, which
            // follows openraft's server state.
            if core.raft.metrics().borrow().state != ServerState::Leader {
                return Err("not the leader".to_owned());
            }
            core.transfer_leadership(target)
                .await
                .map_err(|err| err.to_string())
        }
        AdminAction::RemoveVoter(rm_id) => changes.remove(rm_id).await.map_err(|e| e.to_string()),
        AdminAction::AddVoter(rm_id) => {
            let node = members
                .get(rm_id)
                .cloned()
                .ok_or_else(|| format!("{rm_id} is not a configured replica"))?;
            changes.add(node).await.map_err(|err| err.to_string())
        }
    }
}
