//! The one error type of the opportunistic crate.

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
}
