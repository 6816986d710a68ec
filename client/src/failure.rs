//! What a failed RM call proves about whether the server executed it.

use std::error::Error as StdError;
use std::io;

use tonic::{Code, Status};
use yarn_proto::{LEADER_HINT_HEADER, LeaderHint, NOT_LEADER_HEADER};
use yarn_security::CertificateRefusal;

/// A failed call, classified by what it proves about execution on the server.
///
/// The distinction decides retries: only the first two prove that nothing happened, so only they
/// allow resending a call that is not idempotent; the last two end a call at once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The replica refused because it is not the serving leader (`NOT_LEADER_HEADER` present):
    /// the call was not executed. `hint` is the leader it named, when the header parsed.
    NotLeader {
        /// The parsed `LEADER_HINT_HEADER`, `None` when absent or malformed.
        hint: Option<LeaderHint>,
    },
    /// The connection could not be set up (refused, unreachable, TLS handshake failed), so the
    /// request never left this process.
    NotSent,
    /// The transport failed or the deadline passed after the request may have been sent; the
    /// server may or may not have executed it.
    MaybeExecuted,
    /// The caller was refused: a handler answered `PERMISSION_DENIED` or `UNAUTHENTICATED`, or
    /// TLS refused a certificate (`certificate`: this client's by the replica, or the replica's
    /// by this client). Every replica holds the same ACLs and trusts the same CA, so no other
    /// attempt or replica can decide otherwise: as final as [`Failure::Final`], and apart from
    /// it so that an operator is told of a refusal.
    Refused {
        /// The TLS verdict, `None` for a handler's refusal.
        certificate: Option<CertificateRefusal>,
    },
    /// A definitive answer that another attempt cannot change (`INVALID_ARGUMENT`,
    /// `NOT_FOUND`, `FAILED_PRECONDITION`, `UNIMPLEMENTED`, ...).
    Final,
}

impl Failure {
    /// Classifies `status` as returned by a tonic call.
    ///
    /// Statuses a server sent carry no `source`; statuses tonic made from a local transport
    /// failure do, and their source chain says whether a certificate was refused, whether the
    /// failure was in connecting (no request sent) or later. A server's `UNAVAILABLE` or
    /// `DEADLINE_EXCEEDED` without the not-leader header proves nothing about execution, so it
    /// is [`Failure::MaybeExecuted`].
    pub fn classify(status: &Status) -> Failure {
        let metadata = status.metadata();
        if metadata.contains_key(NOT_LEADER_HEADER) {
            let hint = metadata
                .get(LEADER_HINT_HEADER)
                .and_then(|value| value.to_str().ok())
                .and_then(|value| value.parse::<LeaderHint>().ok());
            return Failure::NotLeader { hint };
        }
        if let Some(refusal) = CertificateRefusal::find(status) {
            return Failure::Refused {
                certificate: Some(refusal),
            };
        }
        if failed_while_connecting(status) {
            return Failure::NotSent;
        }
        let transport_failure = StdError::source(status).is_some();
        if transport_failure || matches!(status.code(), Code::Unavailable | Code::DeadlineExceeded)
        {
            return Failure::MaybeExecuted;
        }
        match status.code() {
            Code::PermissionDenied | Code::Unauthenticated => {
                Failure::Refused { certificate: None }
            }
            _ => Failure::Final,
        }
    }
}

/// Whether `status`'s cause chain shows a failure to set up the connection: tonic's
/// [`tonic::ConnectError`] (which wraps every error of the connector: dialing, TLS handshake) or
/// an I/O error that only a connect can produce.
fn failed_while_connecting(status: &Status) -> bool {
    let mut cause = StdError::source(status);
    while let Some(err) = cause {
        if err.is::<tonic::ConnectError>() {
            return true;
        }
        if let Some(io) = err.downcast_ref::<io::Error>() {
            if matches!(
                io.kind(),
                io::ErrorKind::ConnectionRefused
                    | io::ErrorKind::AddrNotAvailable
                    | io::ErrorKind::NetworkUnreachable
                    | io::ErrorKind::HostUnreachable
            ) {
                return true;
            }
        }
        cause = err.source();
    }
    false
}

#[cfg(test)]
mod tests {
    use tonic::metadata::MetadataValue;

    use super::*;

    fn not_leader(hint: Option<&str>) -> Status {
        let mut status = Status::unavailable("rm1 is not the leader");
        status
            .metadata_mut()
            .insert(NOT_LEADER_HEADER, MetadataValue::from_static("rm1"));
        if let Some(hint) = hint {
            status
                .metadata_mut()
                .insert(LEADER_HINT_HEADER, hint.parse().unwrap());
        }
        status
    }

    #[test]
    fn not_leader_header_means_not_executed_with_the_parsed_hint() {
        assert_eq!(
            Failure::classify(&not_leader(Some("rm2=10.0.0.2:8033"))),
            Failure::NotLeader {
                hint: Some(LeaderHint {
                    rm_id: "rm2".into(),
                    address: "10.0.0.2:8033".into()
                })
            }
        );
        assert_eq!(
            Failure::classify(&not_leader(None)),
            Failure::NotLeader { hint: None }
        );
        assert_eq!(
            Failure::classify(&not_leader(Some("garbage"))),
            Failure::NotLeader { hint: None },
            "a malformed hint is dropped, the refusal still proves non-execution"
        );
    }

    #[test]
    fn a_hint_without_the_not_leader_header_proves_nothing() {
        let mut status = Status::unavailable("lost");
        status
            .metadata_mut()
            .insert(LEADER_HINT_HEADER, "rm2=h:1".parse().unwrap());
        assert_eq!(Failure::classify(&status), Failure::MaybeExecuted);
    }

    #[test]
    fn connect_errors_anywhere_in_the_chain_mean_not_sent() {
        let refused = io::Error::from(io::ErrorKind::ConnectionRefused);
        let wrapped = tonic::ConnectError(Box::new(refused));
        assert_eq!(
            Failure::classify(&Status::from_error(Box::new(wrapped))),
            Failure::NotSent
        );
        let handshake = tonic::ConnectError(Box::new(io::Error::other("bad certificate")));
        assert_eq!(
            Failure::classify(&Status::from_error(Box::new(handshake))),
            Failure::NotSent
        );
        let unreachable = io::Error::from(io::ErrorKind::HostUnreachable);
        assert_eq!(
            Failure::classify(&Status::from_error(Box::new(unreachable))),
            Failure::NotSent
        );
    }

    #[test]
    fn transport_failures_after_sending_and_timeouts_may_have_executed() {
        let reset = io::Error::from(io::ErrorKind::ConnectionReset);
        assert_eq!(
            Failure::classify(&Status::from_error(Box::new(reset))),
            Failure::MaybeExecuted
        );
        let timeout = tonic::TimeoutExpired(());
        assert_eq!(
            Failure::classify(&Status::from_error(Box::new(timeout))),
            Failure::MaybeExecuted
        );
        for status in [
            Status::unavailable("overloaded"),
            Status::deadline_exceeded("slow"),
        ] {
            assert_eq!(Failure::classify(&status), Failure::MaybeExecuted);
        }
    }

    #[test]
    fn refused_callers_and_certificates_are_refusals() {
        for status in [
            Status::permission_denied("alice is not in yarn.admin.acl"),
            Status::unauthenticated("no client certificate"),
        ] {
            assert_eq!(
                Failure::classify(&status),
                Failure::Refused { certificate: None },
                "{status:?}"
            );
        }
        // A refusal is found before the connect error that carries it, which alone would
        // count as a failed connect and be retried.
        let alert = rustls::Error::AlertReceived(rustls::AlertDescription::UnknownCA);
        let handshake = yarn_security::Error::TlsHandshake {
            address: "10.0.0.1:8033".into(),
            source: io::Error::new(io::ErrorKind::InvalidData, alert),
        };
        let status = Status::from_error(Box::new(tonic::ConnectError(Box::new(handshake))));
        assert_eq!(
            Failure::classify(&status),
            Failure::Refused {
                certificate: Some(CertificateRefusal::RefusedByPeer {
                    alert: rustls::AlertDescription::UnknownCA
                })
            }
        );
    }

    #[test]
    fn other_server_answers_are_final() {
        for status in [
            Status::invalid_argument("bad"),
            Status::not_found("no such app"),
            Status::failed_precondition("unhealthy"),
            Status::unimplemented("later"),
            Status::internal("bug"),
        ] {
            assert_eq!(Failure::classify(&status), Failure::Final, "{status:?}");
        }
    }
}
