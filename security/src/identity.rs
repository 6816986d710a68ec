//! Who is on the other end of a mutual-TLS connection, read from its certificate.

use std::fmt;

use x509_parser::prelude::{FromDer, X509Certificate};
use x509_parser::x509::X509Name;

use crate::{Error, Role};

/// The role and name a verified peer certificate carries.
///
/// The encoding is the one [`crate::pki`] writes: the subject's single organizational unit (OU)
/// is the [`Role`] and its single common name (CN) is the name, e.g.
/// `CN=h1.example.com, OU=nodemanager, O=yarn-ha`. Only certificates that rustls has already
/// verified against the cluster CA should be trusted this way; parsing alone proves nothing.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PeerIdentity {
    /// What the peer is allowed to be.
    pub role: Role,
    /// The peer's name: an RM id, a NodeManager host name or a user name.
    pub name: String,
}

impl PeerIdentity {
    /// Reads the identity from a DER-encoded X.509 certificate.
    ///
    /// # Errors
    ///
    /// - [`Error::CertificateParse`] when the bytes are not an X.509 certificate;
    /// - [`Error::MissingIdentity`] when the subject has no, or more than one, CN or OU, or one
    ///   that is not a string; the error quotes the subject;
    /// - [`Error::UnknownRole`] when the OU is not one of the [`Role`] names.
    pub fn from_der(der: &[u8]) -> Result<Self, Error> {
        let (_, certificate) =
            X509Certificate::from_der(der).map_err(|err| Error::CertificateParse {
                reason: err.to_string(),
            })?;
        let subject = certificate.subject();
        let role = single_attribute(subject, subject.iter_organizational_unit(), "OU (role)")?;
        let name = single_attribute(subject, subject.iter_common_name(), "CN (name)")?;
        Ok(PeerIdentity {
            role: role.parse()?,
            name: name.to_owned(),
        })
    }
}

impl fmt::Display for PeerIdentity {
    /// Formats as `role/name`, e.g. `nodemanager/h1`, the form refusals quote.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.role, self.name)
    }
}

/// The one string value of a subject attribute; several values would make the identity ambiguous.
fn single_attribute<'a, 'n: 'a>(
    subject: &X509Name<'n>,
    mut values: impl Iterator<Item = &'a x509_parser::x509::AttributeTypeAndValue<'n>>,
    field: &'static str,
) -> Result<&'a str, Error> {
    let missing = || Error::MissingIdentity {
        subject: subject.to_string(),
        field,
    };
    let value = values.next().ok_or_else(missing)?;
    if values.next().is_some() {
        return Err(missing());
    }
    value.as_str().map_err(|_| missing())
}

#[cfg(test)]
mod tests {
    use rcgen::{CertificateParams, DnType, KeyPair};

    use super::*;

    fn self_signed(subject: &[(DnType, &str)]) -> Vec<u8> {
        let mut params = CertificateParams::default();
        params.distinguished_name = rcgen::DistinguishedName::new();
        for (kind, value) in subject {
            params.distinguished_name.push(kind.clone(), *value);
        }
        let key = KeyPair::generate().unwrap();
        params.self_signed(&key).unwrap().der().to_vec()
    }

    #[test]
    fn reads_role_from_ou_and_name_from_cn() {
        let der = self_signed(&[
            (DnType::CommonName, "h1.example.com"),
            (DnType::OrganizationalUnitName, "nodemanager"),
            (DnType::OrganizationName, "yarn-ha"),
        ]);
        let identity = PeerIdentity::from_der(&der).unwrap();
        assert_eq!(identity.role, Role::NodeManager);
        assert_eq!(identity.name, "h1.example.com");
        assert_eq!(identity.to_string(), "nodemanager/h1.example.com");
    }

    #[test]
    fn subject_without_role_is_refused_with_the_subject_quoted() {
        let der = self_signed(&[(DnType::CommonName, "alice")]);
        let err = PeerIdentity::from_der(&der).unwrap_err();
        assert!(
            matches!(&err, Error::MissingIdentity { field, .. } if field.starts_with("OU")),
            "{err:?}"
        );
        assert!(err.to_string().contains("CN=alice"), "{err}");
    }

    #[test]
    fn subject_without_name_is_refused() {
        let der = self_signed(&[(DnType::OrganizationalUnitName, "user")]);
        let err = PeerIdentity::from_der(&der).unwrap_err();
        assert!(
            matches!(&err, Error::MissingIdentity { field, .. } if field.starts_with("CN")),
            "{err:?}"
        );
    }

    #[test]
    fn unknown_role_is_refused() {
        let der = self_signed(&[
            (DnType::CommonName, "alice"),
            (DnType::OrganizationalUnitName, "admin"),
        ]);
        let err = PeerIdentity::from_der(&der).unwrap_err();
        assert!(matches!(&err, Error::UnknownRole { value } if value == "admin"));
    }

    #[test]
    fn garbage_is_a_parse_error() {
        let err = PeerIdentity::from_der(b"not a certificate").unwrap_err();
        assert!(matches!(err, Error::CertificateParse { .. }));
    }
}
