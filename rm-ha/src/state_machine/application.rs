//! The replicated application table's records.

use serde::{Deserialize, Serialize};

/// An application's lifecycle state, YARN's `YarnApplicationState` from submission on (`NEW`
/// and `NEW_SAVING` exist only before the submission is committed, so they are never stored).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ApplicationState {
    /// Committed and waiting for the scheduler to accept it into its queue (YARN's
    /// `SUBMITTED`); the leader's scheduler admits or rejects it with
    /// [`Admission`](super::Admission).
    #[default]
    Submitted,
    /// Accepted by the scheduler; waiting for its AM container.
    Accepted,
    /// Its AM has registered.
    Running,
    /// Its AM unregistered, with the final status it reported.
    Finished,
    /// Failed: rejected at admission, or its last attempt failed.
    Failed,
    /// Killed by a user or an administrator.
    Killed,
}

impl ApplicationState {
    /// Whether the application is over: nothing changes its state any more.
    pub fn is_final(self) -> bool {
        matches!(self, Self::Finished | Self::Failed | Self::Killed)
    }
}

/// How an application ended, YARN's `FinalApplicationStatus`: what its AM reported when it
/// unregistered, or what the RM decided when it failed or was killed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum FinalStatus {
    /// Not ended, or ended without saying.
    #[default]
    Undefined,
    /// The application did its work.
    Succeeded,
    /// The application failed.
    Failed,
    /// The application was killed.
    Killed,
}

/// Where one application attempt is, YARN's `YarnApplicationAttemptState` reduced to what the
/// replicated state distinguishes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum AttemptState {
    /// Waiting for its AM container, or for the AM in it to register.
    #[default]
    Scheduled,
    /// Its AM registered.
    Running,
    /// Its AM unregistered.
    Finished,
    /// Its AM container completed before the AM unregistered, or the AM stopped heartbeating.
    Failed,
    /// Its application was killed.
    Killed,
}

/// One attempt of an application, kept for reports after it ended.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttemptRecord {
    /// The attempt's id within its application, from 1.
    pub attempt_id: i32,
    /// Where it is.
    pub state: AttemptState,
    /// When it began (the admission or the failure of its predecessor), in milliseconds since
    /// the Unix epoch.
    pub start_time_ms: i64,
    /// When it ended; 0 while it has not.
    pub finish_time_ms: i64,
    /// The host its AM registered from; empty before registration.
    pub host: String,
    /// The AM's RPC port as it registered it.
    pub rpc_port: i32,
    /// The tracking URL the AM registered or finished with.
    pub tracking_url: String,
    /// Why the attempt ended as it did.
    pub diagnostics: String,
}

/// One submitted application, as every replica stores it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
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
    /// How many attempts it may make: the submission's `max_app_attempts` when in
    /// `1..=yarn.resourcemanager.am.max-attempts`, otherwise that key's value.
    pub max_attempts: i32,
    /// How it ended; [`FinalStatus::Undefined`] while it runs.
    pub final_status: FinalStatus,
    /// When it reached a final state, in milliseconds since the Unix epoch; 0 before.
    pub finish_time_ms: i64,
    /// Its attempts in order; the last is the current one.
    pub attempts: Vec<AttemptRecord>,
    /// The client's `ApplicationSubmissionContextProto`, protobuf-encoded, kept whole so that
    /// the AM can be launched from it on any future leader. Serialized as a byte string
    /// (postcard writes it exactly as a sequence of bytes, so stored logs and snapshots read
    /// the same) so that a megabyte is copied, not visited byte by byte, on every encoding.
    #[serde(with = "serde_bytes")]
    pub submission_context: Vec<u8>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_submission_context_encodes_as_it_did_before_it_was_a_byte_string() {
        let context: Vec<u8> = (0..=255).cycle().take(1_000).collect();
        let record = ApplicationRecord {
            submission_context: context.clone(),
            ..ApplicationRecord::default()
        };
        let encoded = postcard::to_stdvec(&record).expect("encode the record");
        let as_sequence = postcard::to_stdvec(&context).expect("encode the bytes as a sequence");
        assert!(
            encoded.ends_with(&as_sequence),
            "the record's last field is written as a plain sequence of bytes"
        );
        let decoded: ApplicationRecord = postcard::from_bytes(&encoded).expect("decode");
        assert_eq!(decoded.submission_context, context);
    }
}
