//! [`ApplicationContext`]: what every interceptor of one chain knows about its application.

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use yarn_proto::ids::ApplicationAttemptId;
use yarn_proto::pb;

use crate::NodeContext;

/// The application attempt a chain serves, handed to each interceptor once by
/// [`RequestInterceptor::init`](crate::RequestInterceptor::init).
///
/// Cheap to clone, and every clone shares the same RM AMRMToken: when an interceptor that talks
/// to the RM receives a rolled token and calls [`set_rm_token`](Self::set_rm_token), the others
/// (and the proxy, which persists it) see the new one. Clones also share the answer of a
/// distributed-scheduling registration made again on the AM's behalf
/// ([`put_distributed_reregistration`](Self::put_distributed_reregistration)).
#[derive(Clone)]
pub struct ApplicationContext {
    attempt: ApplicationAttemptId,
    user: String,
    /// Held only to read or replace the token, never across an `.await`.
    rm_token: Arc<Mutex<pb::TokenProto>>,
    /// Held only to put or take the answer, never across an `.await`.
    distributed_reregistration:
        Arc<Mutex<Option<pb::RegisterDistributedSchedulingAmResponseProto>>>,
    node: Arc<dyn NodeContext>,
}

impl ApplicationContext {
    /// The context of `attempt`, submitted by `user`, whose RM-issued AMRMToken is `rm_token`,
    /// running on the node `node` describes.
    pub fn new(
        attempt: ApplicationAttemptId,
        user: impl Into<String>,
        rm_token: pb::TokenProto,
        node: Arc<dyn NodeContext>,
    ) -> Self {
        Self {
            attempt,
            user: user.into(),
            rm_token: Arc::new(Mutex::new(rm_token)),
            distributed_reregistration: Arc::new(Mutex::new(None)),
            node,
        }
    }

    /// The application attempt.
    pub fn attempt(&self) -> ApplicationAttemptId {
        self.attempt
    }

    /// The user who submitted the application.
    pub fn user(&self) -> &str {
        &self.user
    }

    /// The hosting node.
    pub fn node(&self) -> &Arc<dyn NodeContext> {
        &self.node
    }

    /// The AMRMToken the RM issued for the attempt, the newest one seen. Interceptors present it
    /// to the RM; it never goes to the ApplicationMaster.
    pub fn rm_token(&self) -> pb::TokenProto {
        self.rm_token
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Replaces the RM AMRMToken (after the RM rolled its key) and says whether it changed, so
    /// the caller knows when to persist it.
    pub fn set_rm_token(&self, token: pb::TokenProto) -> bool {
        let mut current = self.rm_token.lock().unwrap_or_else(PoisonError::into_inner);
        if *current == token {
            return false;
        }
        *current = token;
        true
    }

    /// Leaves the answer of a distributed-scheduling registration that the interceptor talking
    /// to the RM made again on the AM's behalf (after an RM failover it hides from the AM) for
    /// the interceptor that places OPPORTUNISTIC containers, which must count container ids
    /// from the new `container_id_start` and adopt the new sizes and nodes. A newer answer
    /// replaces one not yet taken.
    pub fn put_distributed_reregistration(
        &self,
        response: pb::RegisterDistributedSchedulingAmResponseProto,
    ) {
        *self
            .distributed_reregistration
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(response);
    }

    /// Takes the answer [`put_distributed_reregistration`](Self::put_distributed_reregistration)
    /// left, if any: each answer is taken once.
    pub fn take_distributed_reregistration(
        &self,
    ) -> Option<pb::RegisterDistributedSchedulingAmResponseProto> {
        self.distributed_reregistration
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }
}

impl fmt::Debug for ApplicationContext {
    /// Shows the RM token's kind and service only: its password is a secret.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let token = self.rm_token.lock().unwrap_or_else(PoisonError::into_inner);
        f.debug_struct("ApplicationContext")
            .field("attempt", &self.attempt.to_string())
            .field("user", &self.user)
            .field("rm_token_kind", &token.kind)
            .field("rm_token_service", &token.service)
            .field("node", &self.node.node_id().to_string())
            .finish()
    }
}
