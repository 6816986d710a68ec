//! The replicated application table's records.

use serde::{Deserialize, Serialize};

/// An application's lifecycle state, YARN's `YarnApplicationState` from submission on (`NEW`
/// and `NEW_SAVING` exist only before the submission is committed, so they are never stored).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ApplicationState {
    /// Committed and waiting for the scheduler to accept it into its queue (YARN's
    /// `SUBMITTED`); the leader's scheduler admits or rejects it with
    /// [`Admission`](super::Admission).
    Submitted,
    /// Accepted by the scheduler; waiting for its AM container.
    Accepted,
    /// Its AM has registered.
    Running,
    /// Its AM unregistered successfully.
    Finished,
    /// Failed, for instance after exhausting its attempts.
    Failed,
    /// Killed by a user or an administrator.
    Killed,
}

/// One submitted application, as every replica stores it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApplicationRecord {
    /// The id's sequence number; the id's cluster timestamp is the state's.
    pub sequence: i32,
    /// The user who submitted it: the name in the client certificate.
    pub user: String,
    /// The application name (`N/A` when the client gave none).
    pub name: String,
    /// The queue it was submitted to (`default` when the client gave none).
    pub queue: String,
    /// The application type (`YARN` when the client gave none).
    pub application_type: String,
    /// The application tags, lower-cased as YARN does.
    pub tags: Vec<String>,
    /// When the leader accepted the submission, in milliseconds since the Unix epoch.
    pub submit_time_ms: i64,
    /// Where it is in its lifecycle.
    pub state: ApplicationState,
    /// The effective priority the scheduler admitted it with (the requested one or the queue
    /// default, capped by `yarn.cluster.max-application-priority`); 0 until admitted.
    pub priority: i32,
    /// The current attempt's id (attempts count from 1); 0 until the application is admitted.
    pub current_attempt: i32,
    /// Why the application is where it is, for instance why the scheduler rejected it.
    pub diagnostics: String,
    /// The client's `ApplicationSubmissionContextProto`, protobuf-encoded, kept whole so that
    /// the AM can be launched from it on any future leader.
    pub submission_context: Vec<u8>,
}
