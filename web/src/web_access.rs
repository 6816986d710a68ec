//! [`WebAccess`]: who may use a daemon's web endpoint without naming themselves, and the rule
//! that names the [`RemoteUser`] of each request.

use axum::http::{Method, Uri};
use serde::Deserialize;
use yarn_conf::{ConfError, Configuration, keys};
use yarn_security::{Caller, PeerIdentity, Role};

use crate::{AccessRefusal, RemoteUser};

/// The only web authentication type yarn-ha has (`hadoop.http.authentication.type`).
const SIMPLE: &str = "simple";

/// How a daemon's web endpoint knows its callers, from Hadoop's
/// `hadoop.http.authentication.*` keys.
///
/// Over HTTPS a caller is the user its client certificate names; with `yarn.tls.enabled=false`
/// it is the `user.name` of Hadoop's pseudo authentication. A caller that names no user (no
/// certificate, no `user.name`) is anonymous, `dr.who`, and is served only when
/// [`anonymous_reads`](Self::anonymous_reads) is on and the request is a read (GET or HEAD):
/// writes always need a name. Off by default, unlike Hadoop, whose default is on: the cluster
/// is secure by default, and an operator turns it on for the tools that cannot present a
/// certificate.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WebAccess {
    /// `hadoop.http.authentication.simple.anonymous.allowed`: whether anonymous callers may
    /// read. Over HTTPS it also decides whether a client without a certificate completes the
    /// handshake at all.
    pub anonymous_reads: bool,
}

impl WebAccess {
    /// Reads `hadoop.http.authentication.simple.anonymous.allowed` (default false).
    ///
    /// # Errors
    ///
    /// [`ConfError`] naming the key when it is not a boolean, or when
    /// `hadoop.http.authentication.type` is anything but `simple`: a Kerberos (SPNEGO) setting
    /// yarn-ha would not honour is refused rather than ignored.
    pub fn from_conf(conf: &Configuration) -> Result<Self, ConfError> {
        let kind = conf.get_string(&keys::HADOOP_HTTP_AUTHENTICATION_TYPE)?;
        if kind != SIMPLE {
            return Err(conf.invalid_value(
                &keys::HADOOP_HTTP_AUTHENTICATION_TYPE,
                kind,
                "simple, the only web authentication yarn-ha has: callers are known by their \
                 client certificates over HTTPS, by user.name without TLS",
            ));
        }
        Ok(Self {
            anonymous_reads: conf
                .get_bool(&keys::HADOOP_HTTP_AUTHENTICATION_SIMPLE_ANONYMOUS_ALLOWED)?,
        })
    }

    /// The user a request with `method` and `uri` is served as, from the `caller` its
    /// connection proved, on an endpoint that speaks TLS or not (`tls`):
    ///
    /// - a certificate's identity whatever the request (a `user.name` in the query is ignored:
    ///   the certificate names the caller);
    /// - over HTTPS without a certificate: [`Caller::Anonymous`] for a read when anonymous
    ///   reads are on, otherwise [`AccessRefusal::CertificateRequired`] (the `user.name` of
    ///   pseudo authentication proves nothing and is ignored over HTTPS);
    /// - over plain HTTP: the user `user.name` names, or [`Caller::Anonymous`] for a read when
    ///   anonymous reads are on, otherwise [`AccessRefusal::UserNameRequired`].
    ///
    /// # Errors
    ///
    /// [`AccessRefusal`], as above, and [`AccessRefusal::InvalidUserName`] for a plain HTTP
    /// query whose `user.name` cannot be read.
    pub fn remote_user(
        &self,
        tls: bool,
        caller: &Caller,
        method: &Method,
        uri: &Uri,
    ) -> Result<RemoteUser, AccessRefusal> {
        if let Caller::Peer(identity) = caller {
            return Ok(RemoteUser(Caller::Peer(identity.clone())));
        }
        if !tls {
            if let Some(name) = pseudo_user_name(uri)? {
                return Ok(RemoteUser(Caller::Peer(PeerIdentity {
                    role: Role::User,
                    name,
                })));
            }
        }
        if self.anonymous_reads && is_read(method) {
            return Ok(RemoteUser(Caller::Anonymous));
        }
        let request = format!("{method} {}", uri.path());
        let anonymous_reads = self.anonymous_reads;
        Err(if tls {
            AccessRefusal::CertificateRequired {
                request,
                anonymous_reads,
            }
        } else {
            AccessRefusal::UserNameRequired {
                request,
                anonymous_reads,
            }
        })
    }
}

/// Whether `method` only reads: GET, and HEAD, which axum answers with GET's handler.
fn is_read(method: &Method) -> bool {
    method == Method::GET || method == Method::HEAD
}

#[derive(Deserialize)]
struct PseudoAuth {
    #[serde(rename = "user.name")]
    user_name: Option<String>,
}

/// The non-empty `user.name` of `uri`'s query, if any.
fn pseudo_user_name(uri: &Uri) -> Result<Option<String>, AccessRefusal> {
    let query = uri.query().unwrap_or_default();
    let pseudo: PseudoAuth =
        serde_urlencoded::from_str(query).map_err(|err| AccessRefusal::InvalidUserName {
            reason: err.to_string(),
        })?;
    Ok(pseudo.user_name.filter(|name| !name.is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALLOWED: WebAccess = WebAccess {
        anonymous_reads: true,
    };
    const REFUSED: WebAccess = WebAccess {
        anonymous_reads: false,
    };

    fn alice() -> Caller {
        Caller::Peer(PeerIdentity {
            role: Role::User,
            name: "alice".to_owned(),
        })
    }

    fn served(
        access: WebAccess,
        tls: bool,
        caller: &Caller,
        method: Method,
        uri: &str,
    ) -> Result<Caller, AccessRefusal> {
        let uri: Uri = uri.parse().unwrap();
        access
            .remote_user(tls, caller, &method, &uri)
            .map(|RemoteUser(caller)| caller)
    }

    #[test]
    fn anonymous_reads_are_off_by_default_and_read_from_hadoops_key() {
        assert_eq!(
            WebAccess::from_conf(&Configuration::new()).unwrap(),
            REFUSED
        );
        let mut conf = Configuration::new();
        conf.set(
            keys::HADOOP_HTTP_AUTHENTICATION_SIMPLE_ANONYMOUS_ALLOWED
                .name
                .as_ref(),
            "true",
        );
        assert_eq!(WebAccess::from_conf(&conf).unwrap(), ALLOWED);
    }

    #[test]
    fn an_authentication_type_other_than_simple_is_refused_by_name() {
        let mut conf = Configuration::new();
        conf.set(
            keys::HADOOP_HTTP_AUTHENTICATION_TYPE.name.as_ref(),
            "kerberos",
        );
        let err = WebAccess::from_conf(&conf).unwrap_err().to_string();
        assert!(
            err.contains("hadoop.http.authentication.type") && err.contains("kerberos"),
            "{err}"
        );
    }

    #[test]
    fn a_certificate_names_the_caller_of_any_request_whatever_user_name_says() {
        for access in [ALLOWED, REFUSED] {
            for method in [Method::GET, Method::POST, Method::PUT] {
                assert_eq!(
                    served(
                        access,
                        true,
                        &alice(),
                        method,
                        "/ws/v1/cluster/apps?user.name=bob"
                    ),
                    Ok(alice())
                );
            }
        }
    }

    #[test]
    fn over_https_a_client_without_certificate_only_reads_and_only_when_allowed() {
        for method in [Method::GET, Method::HEAD] {
            assert_eq!(
                served(
                    ALLOWED,
                    true,
                    &Caller::Anonymous,
                    method,
                    "/ws/v1/cluster/info"
                ),
                Ok(Caller::Anonymous)
            );
        }
        // user.name proves nothing over HTTPS.
        assert_eq!(
            served(
                ALLOWED,
                true,
                &Caller::Anonymous,
                Method::GET,
                "/ws/v1/cluster/apps?user.name=alice"
            ),
            Ok(Caller::Anonymous)
        );
        let write = served(
            ALLOWED,
            true,
            &Caller::Anonymous,
            Method::POST,
            "/ws/v1/cluster/apps/new-application?user.name=alice",
        )
        .unwrap_err();
        assert_eq!(
            write,
            AccessRefusal::CertificateRequired {
                request: "POST /ws/v1/cluster/apps/new-application".to_owned(),
                anonymous_reads: true,
            }
        );
        assert_eq!(write.status_and_exception().0, 401);
        assert_eq!(
            write.to_string(),
            "POST /ws/v1/cluster/apps/new-application needs a client certificate signed by \
             the cluster CA; a caller that names no user may only read (GET or HEAD), as dr.who"
        );
        let read = served(
            REFUSED,
            true,
            &Caller::Anonymous,
            Method::GET,
            "/ws/v1/cluster/info",
        )
        .unwrap_err();
        assert!(
            read.to_string()
                .contains("hadoop.http.authentication.simple.anonymous.allowed is false"),
            "{read}"
        );
    }

    #[test]
    fn without_tls_user_name_names_the_caller_and_anonymous_follows_the_key() {
        let named = Caller::Peer(PeerIdentity {
            role: Role::User,
            name: "alice".to_owned(),
        });
        for access in [ALLOWED, REFUSED] {
            for method in [Method::GET, Method::PUT] {
                assert_eq!(
                    served(
                        access,
                        false,
                        &Caller::Anonymous,
                        method,
                        "/x?a=1&user.name=alice"
                    ),
                    Ok(named.clone())
                );
            }
        }
        assert_eq!(
            served(
                ALLOWED,
                false,
                &Caller::Anonymous,
                Method::GET,
                "/x?user.name="
            ),
            Ok(Caller::Anonymous)
        );
        let refused = served(
            REFUSED,
            false,
            &Caller::Anonymous,
            Method::GET,
            "/ws/v1/cluster/apps",
        )
        .unwrap_err();
        assert_eq!(
            refused,
            AccessRefusal::UserNameRequired {
                request: "GET /ws/v1/cluster/apps".to_owned(),
                anonymous_reads: false,
            }
        );
        assert!(
            refused
                .to_string()
                .starts_with("Unable to obtain user name, user not authenticated"),
            "{refused}"
        );
        let write = served(ALLOWED, false, &Caller::Anonymous, Method::DELETE, "/x").unwrap_err();
        assert!(
            matches!(
                write,
                AccessRefusal::UserNameRequired {
                    anonymous_reads: true,
                    ..
                }
            ),
            "{write:?}"
        );
    }

    #[test]
    fn a_user_name_given_twice_is_a_bad_request_naming_it() {
        let refused = served(
            ALLOWED,
            false,
            &Caller::Anonymous,
            Method::GET,
            "/x?user.name=a&user.name=b",
        )
        .unwrap_err();
        assert!(
            matches!(refused, AccessRefusal::InvalidUserName { .. }),
            "{refused:?}"
        );
        assert_eq!(refused.status_and_exception().0, 400);
        assert!(refused.to_string().starts_with("user.name"), "{refused}");
    }
}
