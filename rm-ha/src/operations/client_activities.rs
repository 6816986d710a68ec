//! Hadoop's scheduler and application activities at the client door: what the leader's
//! scheduler decided, recorded on demand (see [`ActivitiesManager`](crate::scheduling::ActivitiesManager)).

use std::sync::Arc;
use std::time::Duration;

use yarn_proto::ids::{ApplicationId, NodeId};
use yarn_security::{Caller, now_ms};

use super::RmError;
use super::admin_acl::check_admin;
use super::client_operations::{ClientOperations, user_name};
use crate::scheduling::{RecordedActivity, RecordedPass};

/// The node a scheduler-activities read is about: `host:port`, or a host naming every node
/// on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum NodeFilter {
    /// One node.
    Node(NodeId),
    /// Every node on the host.
    Host(String),
}

impl NodeFilter {
    /// Whether `node` is one this filter names.
    pub(crate) fn names(&self, node: &NodeId) -> bool {
        match self {
            Self::Node(id) => id == node,
            Self::Host(host) => &node.host == host,
        }
    }
}

impl ClientOperations {
    /// Asks the leader to record its next scheduling pass that considers an application, and
    /// returns the pass it recorded before (`None` until one is), restricted to `node`'s
    /// allocations when one is named. For administrators (`yarn.admin.acl`): a pass shows
    /// every queue's and application's decisions.
    ///
    /// # Errors
    ///
    /// A refusal of an anonymous caller and of one who is not an administrator; Hadoop's `Cannot find node manager
    /// with given node id` when `node` names no registered node; not leader.
    pub(crate) async fn scheduler_activities(
        &self,
        caller: &Caller,
        node: Option<&NodeFilter>,
    ) -> Result<Option<Arc<RecordedPass>>, RmError> {
        let Caller::Peer(identity) = caller else {
            return Err(RmError::Unauthenticated {
                message: "Unable to obtain user name, user not authenticated: scheduler \
                          activities are for administrators; present a certificate (or \
                          user.name without TLS)"
                    .to_owned(),
            });
        };
        check_admin(&self.queues, identity).await?;
        let leadership = self.proposer.read_barrier().await?;
        if let Some(filter) = node {
            let known = leadership.nodes(|tracker| tracker.nodes().any(|(id, _)| filter.names(id)));
            if !known {
                return Err(RmError::NotFound {
                    message: "Cannot find node manager with given node id".to_owned(),
                });
            }
        }
        let now = now_ms();
        let pass = leadership.activities(|activities| {
            activities.want_next_pass();
            activities.last_pass(now)
        });
        // Filtered off the activities lock, which the scheduling pass takes.
        Ok(match (pass, node) {
            (Some(pass), Some(filter)) => {
                let mut pass = RecordedPass::clone(&pass);
                pass.records.retain(|record| {
                    record
                        .requests
                        .iter()
                        .any(|request| request.node.as_ref().is_some_and(|n| filter.names(n)))
                });
                Some(Arc::new(pass))
            }
            (pass, _) => pass,
        })
    }

    /// Hadoop's application activities: with `record_for`, records application `id`'s
    /// activities in the leader's passes for that long; with `get`, returns what is recorded,
    /// newest first (`None` when nothing ever was). For callers with VIEW_APP on the
    /// application.
    ///
    /// # Errors
    ///
    /// An unknown application; a refusal without VIEW_APP; Hadoop's `fail to get application
    /// activities after finished` for an application in a final state; a refresh while
    /// [`MAX_RECORDED_APPLICATIONS`](crate::scheduling::MAX_RECORDED_APPLICATIONS) others are
    /// recorded; not leader.
    pub(crate) async fn app_activities(
        &self,
        caller: &Caller,
        id: ApplicationId,
        record_for: Option<Duration>,
        get: bool,
    ) -> Result<Option<Vec<RecordedActivity>>, RmError> {
        let leadership = self.proposer.read_barrier().await?;
        self.check_view_access(&user_name(caller), id).await?;
        if self.application(id, |app| app.state.is_final())? {
            return Err(RmError::precondition(
                "fail to get application activities after finished",
            ));
        }
        let now = now_ms();
        leadership.activities(|activities| {
            if let Some(duration) = record_for {
                let millis = i64::try_from(duration.as_millis()).unwrap_or(i64::MAX);
                activities
                    .record_application(id, now, now.saturating_add(millis))
                    .map_err(RmError::precondition)?;
            }
            Ok(get.then(|| activities.application(id, now)).flatten())
        })
    }
}
