//! Whether a connection failed because TLS refused a certificate, read from its error chain.

use std::error::Error as StdError;
use std::io;

use rustls::{AlertDescription, CertificateError};

/// A TLS handshake that failed over a certificate: the peer refused the one this side presented,
/// or this side could not verify the peer's.
///
/// Unlike a refused connection or a timeout this is a verdict, not an accident: the same
/// certificates meet the same verdict on every attempt and at every peer of the same PKI, so
/// retrying cannot help.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CertificateRefusal {
    /// The peer refused this side's certificate (or its absence) with a fatal alert. A
    /// certificate from another CA draws `UnknownCA`, or `DecryptError` when that CA bears the
    /// same name as the peer's (the signature then fails to verify); an expired one draws
    /// `CertificateExpired`, none at all `CertificateRequired`.
    RefusedByPeer {
        /// The alert the peer sent.
        alert: AlertDescription,
    },
    /// The peer's certificate is not signed by a CA this side trusts: its issuer is unknown, or
    /// its signature was made with another key (another CA of the same name).
    PeerSignedByAnotherCa,
    /// The peer's certificate chains to a trusted CA but still did not verify.
    PeerCertificateInvalid {
        /// rustls's account of why, e.g. expired, or not valid for the name dialed.
        reason: String,
    },
}

/// The alerts rustls sends when it refuses a peer's certificate (its mapping of
/// `CertificateError` to alerts, plus `CertificateRequired` for no certificate at all).
/// `DecryptError` also answers a `CertificateVerify` signature that the certificate's key did
/// not make: a key that does not belong to the certificate, which is as much a refusal.
const CERTIFICATE_ALERTS: [AlertDescription; 9] = [
    AlertDescription::BadCertificate,
    AlertDescription::UnsupportedCertificate,
    AlertDescription::CertificateRevoked,
    AlertDescription::CertificateExpired,
    AlertDescription::CertificateUnknown,
    AlertDescription::UnknownCA,
    AlertDescription::DecryptError,
    AlertDescription::AccessDenied,
    AlertDescription::CertificateRequired,
];

impl CertificateRefusal {
    /// The refusal recorded by `err` or by an error in its `source()` chain, `None` when there
    /// is none (a refused connection, a timeout, a handshake that failed for another reason).
    ///
    /// Looks inside every `io::Error` of the chain too: tokio-rustls reports rustls's errors
    /// wrapped in one, and an `io::Error`'s `source()` skips the error it wraps.
    pub fn find(err: &(dyn StdError + 'static)) -> Option<Self> {
        let mut cause = Some(err);
        while let Some(err) = cause {
            let wrapped = err
                .downcast_ref::<io::Error>()
                .and_then(io::Error::get_ref)
                .map(|inner| inner as &(dyn StdError + 'static));
            let rustls_error = err
                .downcast_ref::<rustls::Error>()
                .or_else(|| wrapped.and_then(|inner| inner.downcast_ref::<rustls::Error>()));
            if let Some(refusal) = rustls_error.and_then(Self::of_rustls) {
                return Some(refusal);
            }
            cause = err.source();
        }
        None
    }

    /// Whether this is the verdict a certificate from another CA draws: from the peer
    /// `UnknownCA`, or `DecryptError` when that CA bears the name of the peer's own; on this
    /// side [`PeerSignedByAnotherCa`](Self::PeerSignedByAnotherCa).
    pub fn points_to_another_ca(&self) -> bool {
        match self {
            Self::RefusedByPeer { alert } => matches!(
                alert,
                AlertDescription::UnknownCA | AlertDescription::DecryptError
            ),
            Self::PeerSignedByAnotherCa => true,
            Self::PeerCertificateInvalid { .. } => false,
        }
    }

    /// The refusal a rustls error stands for, if it is one.
    fn of_rustls(err: &rustls::Error) -> Option<Self> {
        match err {
            rustls::Error::AlertReceived(alert) if CERTIFICATE_ALERTS.contains(alert) => {
                Some(Self::RefusedByPeer { alert: *alert })
            }
            rustls::Error::InvalidCertificate(
                CertificateError::UnknownIssuer | CertificateError::BadSignature,
            ) => Some(Self::PeerSignedByAnotherCa),
            rustls::Error::InvalidCertificate(reason) => Some(Self::PeerCertificateInvalid {
                reason: reason.to_string(),
            }),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Error;

    /// `rustls_error` as a tonic call returns it when the connector's handshake failed: in an
    /// `io::Error`, in the connector's error, in tonic's connect error, in a status.
    fn failed_call(rustls_error: rustls::Error) -> tonic::Status {
        let handshake = Error::TlsHandshake {
            address: "127.0.0.1:8033".to_owned(),
            source: io::Error::new(io::ErrorKind::InvalidData, rustls_error),
        };
        tonic::Status::from_error(Box::new(tonic::ConnectError(Box::new(handshake))))
    }

    #[test]
    fn a_peers_certificate_alert_anywhere_in_the_chain_is_its_refusal_of_ours() {
        for alert in CERTIFICATE_ALERTS {
            let status = failed_call(rustls::Error::AlertReceived(alert));
            assert_eq!(
                CertificateRefusal::find(&status),
                Some(CertificateRefusal::RefusedByPeer { alert }),
                "{alert:?}"
            );
        }
        let bare = io::Error::new(
            io::ErrorKind::InvalidData,
            rustls::Error::AlertReceived(AlertDescription::UnknownCA),
        );
        assert_eq!(
            CertificateRefusal::find(&bare),
            Some(CertificateRefusal::RefusedByPeer {
                alert: AlertDescription::UnknownCA
            })
        );
    }

    #[test]
    fn an_unknown_issuer_or_foreign_signature_is_another_ca_and_the_rest_keeps_its_reason() {
        for error in [
            CertificateError::UnknownIssuer,
            CertificateError::BadSignature,
        ] {
            let status = failed_call(rustls::Error::InvalidCertificate(error));
            assert_eq!(
                CertificateRefusal::find(&status),
                Some(CertificateRefusal::PeerSignedByAnotherCa)
            );
        }
        let status = failed_call(rustls::Error::InvalidCertificate(
            CertificateError::NotValidForName,
        ));
        assert_eq!(
            CertificateRefusal::find(&status),
            Some(CertificateRefusal::PeerCertificateInvalid {
                reason: CertificateError::NotValidForName.to_string()
            })
        );
    }

    #[test]
    fn only_the_verdicts_on_a_foreign_signature_point_to_another_ca() {
        let refused = |alert| CertificateRefusal::RefusedByPeer { alert };
        for refusal in [
            refused(AlertDescription::UnknownCA),
            refused(AlertDescription::DecryptError),
            CertificateRefusal::PeerSignedByAnotherCa,
        ] {
            assert!(refusal.points_to_another_ca(), "{refusal:?}");
        }
        for refusal in [
            refused(AlertDescription::CertificateExpired),
            refused(AlertDescription::CertificateRequired),
            CertificateRefusal::PeerCertificateInvalid {
                reason: "expired".to_owned(),
            },
        ] {
            assert!(!refusal.points_to_another_ca(), "{refusal:?}");
        }
    }

    #[test]
    fn failures_that_are_no_certificate_verdict_are_not_refusals() {
        let not_certificates = [
            failed_call(rustls::Error::AlertReceived(
                AlertDescription::HandshakeFailure,
            )),
            failed_call(rustls::Error::AlertReceived(AlertDescription::CloseNotify)),
            failed_call(rustls::Error::NoApplicationProtocol),
            tonic::Status::from_error(Box::new(tonic::ConnectError(Box::new(io::Error::from(
                io::ErrorKind::ConnectionRefused,
            ))))),
            tonic::Status::permission_denied("certificate nodemanager/h1 may not call"),
        ];
        for status in not_certificates {
            assert_eq!(CertificateRefusal::find(&status), None, "{status:?}");
        }
    }
}
