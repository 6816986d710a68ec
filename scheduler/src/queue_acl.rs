//! [`QueueAcl`]: the two rights a queue ACL grants.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A right on a queue, as YARN's `QueueACL`. Administering a queue implies submitting to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum QueueAcl {
    /// Submit applications to the queue (`acl_submit_applications`).
    SubmitApplications,
    /// Administer the queue and its applications (`acl_administer_queue`).
    AdministerQueue,
}

impl QueueAcl {
    /// The per-queue property suffix that configures this right.
    pub const fn key_suffix(&self) -> &'static str {
        match self {
            Self::SubmitApplications => "acl_submit_applications",
            Self::AdministerQueue => "acl_administer_queue",
        }
    }
}

/// Prints YARN's name: `SUBMIT_APPLICATIONS` or `ADMINISTER_QUEUE`.
impl fmt::Display for QueueAcl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::SubmitApplications => "SUBMIT_APPLICATIONS",
            Self::AdministerQueue => "ADMINISTER_QUEUE",
        })
    }
}
