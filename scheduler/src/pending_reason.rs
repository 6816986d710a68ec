//! [`PendingReason`]: why an accepted application is not running yet.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::Resource;

/// Why an accepted application stays pending (ACCEPTED but not active), checked in YARN's
/// order: an attempt must exist, `max-parallel-apps` (user, then the queue and its ancestors)
/// must leave room, the cluster must have resources, then the queue and user AM limits
/// (`maximum-am-resource-percent`) must fit the AM.
///
/// Prints a diagnostic in the spirit of YARN's AM launch diagnostics, with the numbers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum PendingReason {
    /// No attempt has been added yet.
    WaitingForAttempt,
    /// No node is registered in the partition the AM goes to (the default partition, unless
    /// the application names a label).
    ClusterResourceEmpty,
    /// A queue on the path has reached `max-parallel-apps`.
    QueueParallelLimit {
        /// The queue at its limit.
        queue: String,
        /// Its limit.
        limit: u32,
    },
    /// The user has reached `max-parallel-apps`.
    UserParallelLimit {
        /// The user.
        user: String,
        /// The user's limit.
        limit: u32,
    },
    /// The queue's AM limit would be exceeded.
    QueueAmLimit {
        /// The leaf queue.
        queue: String,
        /// The AM's resource.
        am_resource: Resource,
        /// AM resources already running in the queue.
        am_used: Resource,
        /// The queue's AM limit.
        am_limit: Resource,
    },
    /// The user's AM limit in the queue would be exceeded.
    UserAmLimit {
        /// The leaf queue.
        queue: String,
        /// The user.
        user: String,
        /// The AM's resource.
        am_resource: Resource,
        /// The user's AM resources already running in the queue.
        am_used: Resource,
        /// The user's AM limit.
        am_limit: Resource,
    },
}

impl fmt::Display for PendingReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::WaitingForAttempt => f.write_str("Waiting for an application attempt."),
            Self::ClusterResourceEmpty => f.write_str("Cluster's resource is empty."),
            Self::QueueParallelLimit { queue, limit } => write!(
                f,
                "Application is not runnable: queue {queue} reached max-parallel-apps {limit}."
            ),
            Self::UserParallelLimit { user, limit } => write!(
                f,
                "Application is not runnable: user {user} reached max-parallel-apps {limit}."
            ),
            Self::QueueAmLimit {
                queue,
                am_resource,
                am_used,
                am_limit,
            } => write!(
                f,
                "Queue's AM resource limit exceeded. Details: queue = {queue}; AM resource \
                 request = {am_resource}; queue AM resource usage = {am_used}; queue resource \
                 limit for AM = {am_limit}."
            ),
            Self::UserAmLimit {
                queue,
                user,
                am_resource,
                am_used,
                am_limit,
            } => write!(
                f,
                "User's AM resource limit exceeded. Details: queue = {queue}; user = {user}; AM \
                 resource request = {am_resource}; user AM resource usage = {am_used}; user AM \
                 resource limit of the queue = {am_limit}."
            ),
        }
    }
}
