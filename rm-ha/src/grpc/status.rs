//! The one mapping of [`RmError`] to the gRPC statuses the ResourceManager answers with.

use tonic::Status;
use tonic::metadata::MetadataValue;
use yarn_proto::token_metadata::{not_registered, remote_containers_refused};
use yarn_proto::{LEADER_HINT_HEADER, NOT_LEADER_HEADER};

use crate::operations::{NotLeader, RmError};

/// Each error becomes the status code a gRPC client acts on, with the error's message:
/// - [`RmError::NotLeader`]: `UNAVAILABLE` carrying [`NOT_LEADER_HEADER`] (the refusing
///   replica's rm-id), and [`LEADER_HINT_HEADER`] with the leader's address of the same
///   service when it is known;
/// - [`RmError::NotRegistered`] and [`RmError::ContainersRefused`]: the statuses of
///   [`not_registered`] and [`remote_containers_refused`], which AMs and AMRMProxies detect;
/// - the others: the one code each names (`NOT_FOUND`, `INVALID_ARGUMENT`,
///   `PERMISSION_DENIED`, ...), see the match below.
impl From<RmError> for Status {
    fn from(err: RmError) -> Self {
        let message = err.to_string();
        match err {
            RmError::NotLeader(refusal) => not_leader(&refusal, message),
            RmError::ApplicationNotFound { .. }
            | RmError::AttemptNotFound { .. }
            | RmError::ContainerNotFound { .. }
            | RmError::NotFound { .. } => Status::not_found(message),
            RmError::InvalidRequest { .. } => Status::invalid_argument(message),
            RmError::AccessDenied { .. } => Status::permission_denied(message),
            RmError::Unauthenticated { .. } => Status::unauthenticated(message),
            RmError::NotRegistered { .. } => not_registered(message),
            RmError::PreconditionFailed { .. } => Status::failed_precondition(message),
            RmError::Conflict { .. } => Status::aborted(message),
            RmError::Exhausted { .. } => Status::resource_exhausted(message),
            RmError::Unavailable { .. } => Status::unavailable(message),
            RmError::TimedOut { .. } => Status::deadline_exceeded(message),
            RmError::Unsupported { .. } => Status::unimplemented(message),
            RmError::ContainersRefused { refused, .. } => {
                remote_containers_refused(message, &refused)
            }
            RmError::Internal { .. } => Status::internal(message),
        }
    }
}

fn not_leader(refusal: &NotLeader, message: String) -> Status {
    let mut status = Status::unavailable(message);
    // rm-ids and host:port values are visible ASCII (the configuration checks them), so these
    // conversions only fail on values that could not have been configured.
    if let Ok(value) = MetadataValue::try_from(refusal.replica.as_str()) {
        status.metadata_mut().insert(NOT_LEADER_HEADER, value);
    }
    if let Some(value) = refusal
        .hint
        .as_ref()
        .and_then(|hint| MetadataValue::try_from(hint.to_string()).ok())
    {
        status.metadata_mut().insert(LEADER_HINT_HEADER, value);
    }
    status
}

#[cfg(test)]
mod tests {
    use tonic::Code;
    use yarn_proto::ids::ApplicationId;
    use yarn_proto::token_metadata::{is_not_registered, refused_remote_containers};

    use super::*;

    fn message(text: &str) -> String {
        text.to_owned()
    }

    /// The code each error answers with is what clients decide on (resend, re-register, give
    /// up), so it is pinned here, and the message travels unchanged.
    #[test]
    fn each_error_answers_with_its_code_and_its_message() {
        let id = ApplicationId::new(5, 1);
        let cases = [
            (RmError::ApplicationNotFound { id }, Code::NotFound),
            (
                RmError::NotFound {
                    message: message("q"),
                },
                Code::NotFound,
            ),
            (RmError::invalid("ask", "too many"), Code::InvalidArgument),
            (
                RmError::AccessDenied {
                    user: "bob".into(),
                    right: "MODIFY_APP".into(),
                    message: message("bob may not"),
                },
                Code::PermissionDenied,
            ),
            (
                RmError::Unauthenticated {
                    message: message("no token"),
                },
                Code::Unauthenticated,
            ),
            (RmError::precondition("finished"), Code::FailedPrecondition),
            (
                RmError::Conflict {
                    message: message("raced"),
                },
                Code::Aborted,
            ),
            (
                RmError::Exhausted {
                    message: message("ids"),
                },
                Code::ResourceExhausted,
            ),
            (RmError::unavailable("no quorum"), Code::Unavailable),
            (
                RmError::TimedOut {
                    message: message("slow"),
                },
                Code::DeadlineExceeded,
            ),
            (
                RmError::Unsupported {
                    message: message("later"),
                },
                Code::Unimplemented,
            ),
            (RmError::internal("bug"), Code::Internal),
        ];
        for (err, code) in cases {
            let text = err.to_string();
            let status = Status::from(err);
            assert_eq!(status.code(), code, "{text}");
            assert_eq!(status.message(), text);
            assert!(status.metadata().get(NOT_LEADER_HEADER).is_none(), "{text}");
        }
        assert_eq!(
            Status::from(RmError::ApplicationNotFound { id }).message(),
            "Application with id 'application_5_0001' doesn't exist in RM."
        );
    }

    /// What AMs and AMRMProxies detect by header, not by code, keeps its header.
    #[test]
    fn not_registered_and_refused_containers_keep_the_headers_clients_detect() {
        let not_registered = Status::from(RmError::NotRegistered {
            message: message("register again"),
        });
        assert!(is_not_registered(&not_registered));
        let refused = Status::from(RmError::ContainersRefused {
            refused: vec![3, 9],
            message: message("two refused"),
        });
        assert_eq!(refused.code(), Code::InvalidArgument);
        assert_eq!(refused_remote_containers(&refused), Some(vec![3, 9]));
    }

    /// A not-leader refusal is UNAVAILABLE with the marker, and the hint when one is known.
    #[test]
    fn not_leader_carries_the_marker_and_the_hint() {
        let refusal = NotLeader {
            replica: "rm2".into(),
            service: "client",
            leader: Some("rm1".into()),
            hint: Some(yarn_proto::LeaderHint {
                rm_id: "rm1".into(),
                address: "h1:8032".into(),
            }),
        };
        let status = Status::from(RmError::NotLeader(refusal));
        assert_eq!(status.code(), Code::Unavailable);
        let header = |key| status.metadata().get(key).and_then(|v| v.to_str().ok());
        assert_eq!(header(NOT_LEADER_HEADER), Some("rm2"));
        assert_eq!(header(LEADER_HINT_HEADER), Some("rm1=h1:8032"));
        assert!(status.message().contains("h1:8032"), "{}", status.message());
    }
}
