//! [`Admission`]: the scheduler's verdict on a submitted application.

use serde::{Deserialize, Serialize};

/// What the leader's CapacityScheduler decided about one `Submitted` application, YARN's
/// `APP_ACCEPTED` or `APP_REJECTED`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Admission {
    /// Accepted into a leaf queue; its first attempt starts.
    Accepted {
        /// The application's sequence number.
        application_seq: i32,
        /// The full path of the leaf queue (a bare leaf name given at submission is resolved).
        queue: String,
        /// The effective priority.
        priority: i32,
    },
    /// Refused: the application fails with `diagnostics`.
    Rejected {
        /// The application's sequence number.
        application_seq: i32,
        /// The scheduler's reason, as the user will read it in the application report.
        diagnostics: String,
    },
}

impl Admission {
    /// The application the verdict is about.
    pub fn application_seq(&self) -> i32 {
        match self {
            Self::Accepted {
                application_seq, ..
            }
            | Self::Rejected {
                application_seq, ..
            } => *application_seq,
        }
    }
}
