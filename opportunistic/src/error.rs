//! The one error type of the opportunistic crate.

use crate::Resource;

/// Invalid input to the opportunistic logic.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A load comparator name that is neither QUEUE_LENGTH nor QUEUE_WAIT_TIME.
    #[error("unknown load comparator {value:?}: expected QUEUE_LENGTH or QUEUE_WAIT_TIME")]
    UnknownLoadComparator {
        /// The value as given.
        value: String,
    },
    /// Queue-limit bounds where the minimum exceeds the maximum.
    #[error("queue limit minimum {min} is greater than maximum {max}")]
    InvalidQueueLimitBounds {
        /// The configured minimum.
        min: i32,
        /// The configured maximum.
        max: i32,
    },
    /// A scheduler key with host or rack asks but no `"*"` ask, so no total container count.
    #[error(
        "opportunistic asks at priority {priority}, allocation request id \
         {allocation_request_id} have no \"*\" ask giving the total container count"
    )]
    MissingAnyAsk {
        /// The key's priority.
        priority: i32,
        /// The key's allocation request id.
        allocation_request_id: i64,
    },
    /// Two asks with the same scheduler key and resource name in one allocation call.
    #[error(
        "two opportunistic asks at priority {priority}, allocation request id \
         {allocation_request_id} name the same resource {resource_name:?}"
    )]
    DuplicateAsk {
        /// The key's priority.
        priority: i32,
        /// The key's allocation request id.
        allocation_request_id: i64,
        /// The resource name both asks give.
        resource_name: String,
    },
    /// A host or rack ask whose container size differs from its key's `"*"` ask.
    #[error(
        "opportunistic ask at priority {priority}, allocation request id \
         {allocation_request_id}, resource {resource_name:?} has capability {found}: expected \
         {expected}, the capability of the \"*\" ask"
    )]
    CapabilityMismatch {
        /// The key's priority.
        priority: i32,
        /// The key's allocation request id.
        allocation_request_id: i64,
        /// The host or rack the mismatched ask names.
        resource_name: String,
        /// The `"*"` ask's capability.
        expected: Resource,
        /// The mismatched ask's capability.
        found: Resource,
    },
    /// A node listed twice among the allocator's candidates, which would let it take two
    /// containers per round.
    #[error("node {node_id:?} appears more than once among the opportunistic candidate nodes")]
    DuplicateCandidateNode {
        /// The repeated node id.
        node_id: String,
    },
}
