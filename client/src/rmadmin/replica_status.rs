//! What `-getAllServiceState` learned of one replica.

use super::ServiceState;
use crate::{Error, Failure};

/// One replica's line of the `-getAllServiceState` report.
///
/// Only a replica that could not be reached is `Unreachable`: one that answered with a refusal
/// or an error did answer, and hiding that behind "unreachable" would send an operator looking
/// for a network problem when the certificate or the ACL is wrong.
#[derive(Debug)]
pub enum ReplicaStatus {
    /// It reported its HA state.
    Answered(ServiceState),
    /// It could not be reached, or did not answer within the call deadline; the error says
    /// which. A report, not a failure of the command: finding replicas down is what the
    /// command is for.
    Unreachable(Error),
    /// It refused this caller (`PERMISSION_DENIED`, `UNAUTHENTICATED`, a refused certificate),
    /// or this client refused its certificate. The command fails.
    Refused(Error),
    /// Any other failure: an error status, a reply outside the protocol, an unusable address.
    /// The command fails.
    Failed(Error),
}

impl ReplicaStatus {
    /// The status of a replica whose `GetServiceStatus` call returned `result`.
    pub fn of(result: Result<ServiceState, Error>) -> Self {
        let err = match result {
            Ok(state) => return Self::Answered(state),
            Err(err) => err,
        };
        match err.status().map(Failure::classify) {
            Some(Failure::NotSent | Failure::MaybeExecuted) => Self::Unreachable(err),
            Some(Failure::Refused { .. }) => Self::Refused(err),
            // Every replica answers GetServiceStatus itself, so even a not-leader refusal is an
            // answer, and an anomalous one.
            Some(Failure::NotLeader { .. } | Failure::Final) | None => Self::Failed(err),
        }
    }

    /// The word the report prints: the HA state, `unreachable`, `refused` or `failed`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Answered(state) => state.as_str(),
            Self::Unreachable(_) => "unreachable",
            Self::Refused(_) => "refused",
            Self::Failed(_) => "failed",
        }
    }

    /// The error that makes the command fail: `Some` for [`Refused`](Self::Refused) and
    /// [`Failed`](Self::Failed).
    pub fn into_failure(self) -> Option<Error> {
        match self {
            Self::Answered(_) | Self::Unreachable(_) => None,
            Self::Refused(err) | Self::Failed(err) => Some(err),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io;

    use tonic::Status;
    use yarn_security::CertificateRefusal;

    use super::*;

    fn call_failed(status: Status) -> Error {
        Error::CallFailed {
            rm_id: "rm1".to_owned(),
            address: "10.0.0.1:8033".to_owned(),
            attempts: 1,
            status: Box::new(status),
        }
    }

    fn status_of(result: Result<ServiceState, Error>) -> &'static str {
        ReplicaStatus::of(result).as_str()
    }

    #[test]
    fn only_replicas_that_gave_no_answer_are_unreachable() {
        let refused_connect = Status::from_error(Box::new(tonic::ConnectError(Box::new(
            io::Error::from(io::ErrorKind::ConnectionRefused),
        ))));
        for status in [
            refused_connect,
            Status::deadline_exceeded("no answer within the call deadline"),
            Status::unavailable("shutting down"),
        ] {
            let status = ReplicaStatus::of(Err(call_failed(status)));
            assert_eq!(status.as_str(), "unreachable");
            assert!(status.into_failure().is_none());
        }
        assert_eq!(status_of(Ok(ServiceState::Standby)), "standby");
    }

    #[test]
    fn refusals_of_the_caller_or_of_a_certificate_are_refusals() {
        let refused = [
            call_failed(Status::permission_denied(
                "certificate nodemanager/h1 may not call the admin protocol (allowed: user)",
            )),
            call_failed(Status::unauthenticated("no client certificate")),
            Error::CertificateRefused {
                rm_id: "rm1".to_owned(),
                address: "10.0.0.1:8033".to_owned(),
                refusal: CertificateRefusal::PeerSignedByAnotherCa,
                status: Box::new(Status::from_error(Box::new(tonic::ConnectError(Box::new(
                    io::Error::new(
                        io::ErrorKind::InvalidData,
                        rustls::Error::InvalidCertificate(rustls::CertificateError::BadSignature),
                    ),
                ))))),
            },
        ];
        for err in refused {
            let message = err.to_string();
            let status = ReplicaStatus::of(Err(err));
            assert_eq!(status.as_str(), "refused", "{message}");
            assert_eq!(
                status.into_failure().map(|err| err.to_string()),
                Some(message)
            );
        }
    }

    #[test]
    fn other_answers_are_failures() {
        let failed = [
            call_failed(Status::internal("bug")),
            Error::InvalidResponse {
                rm_id: "rm1".to_owned(),
                rpc: "GetServiceStatus",
                field: "state",
                value: "42".to_owned(),
            },
        ];
        for err in failed {
            let status = ReplicaStatus::of(Err(err));
            assert_eq!(status.as_str(), "failed");
            assert!(status.into_failure().is_some());
        }
        assert!(
            ReplicaStatus::of(Ok(ServiceState::Active))
                .into_failure()
                .is_none()
        );
    }
}
