//! Who may call what: the peer's certificate role checked against each endpoint's allowed roles.

use tonic::{Request, Status};

use crate::{PeerIdentity, PeerInfo, Role, TlsConfig};

/// The connection information tonic attached to `request`, if it arrived through
/// [`Incoming`](crate::Incoming).
pub fn peer_info<T>(request: &Request<T>) -> Option<&PeerInfo> {
    request.extensions().get::<PeerInfo>()
}

/// The verified identity of the peer that sent `request`; `None` over plaintext or when the
/// server was not fed by [`Incoming`](crate::Incoming).
pub fn peer_identity<T>(request: &Request<T>) -> Option<&PeerIdentity> {
    peer_info(request).and_then(|info| info.identity.as_ref())
}

/// Requires that `request` came over mutual TLS from a certificate whose role is in `allowed`.
///
/// `endpoint` names the protocol for the refusal message, e.g. `"admin"` or
/// `"resource tracker"`. Returns the caller's identity.
///
/// # Errors
///
/// - `UNAUTHENTICATED` when the request carries no certificate identity;
/// - `PERMISSION_DENIED` naming the presented role and name, the endpoint and the allowed
///   roles, e.g. `certificate nodemanager/h1 may not call the admin protocol (allowed: user)`.
pub fn authorize<T>(
    request: &Request<T>,
    allowed: &[Role],
    endpoint: &'static str,
) -> Result<PeerIdentity, Status> {
    match peer_identity(request) {
        Some(identity) => check_role(identity, allowed, endpoint).map(|()| identity.clone()),
        None => Err(Status::unauthenticated(format!(
            "the {endpoint} protocol requires a client certificate signed by the cluster CA; \
             none was presented"
        ))),
    }
}

/// The caller of an endpoint, as far as the transport can tell.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Caller {
    /// A peer with a verified certificate whose role the endpoint allows.
    Peer(PeerIdentity),
    /// Anyone: over a plaintext listener (`yarn.tls.enabled=false`), or a client without a
    /// certificate of a web listener that admits them (Hadoop's anonymous reads). Hadoop calls
    /// this user `dr.who`.
    Anonymous,
}

impl Caller {
    /// The caller's identity, `None` when anonymous.
    pub fn identity(&self) -> Option<&PeerIdentity> {
        match self {
            Caller::Peer(identity) => Some(identity),
            Caller::Anonymous => None,
        }
    }
}

/// A server's role policy, constructed once per server from its TLS setting.
///
/// Policy: with TLS enabled, every call must carry a certificate identity whose role the
/// endpoint allows ([`authorize`]). With TLS disabled there is no identity to check, and since
/// plaintext is an explicit operator opt-out, every call is allowed as [`Caller::Anonymous`];
/// name-based checks (an NM reporting only for itself, ACLs) then have nothing to compare and
/// callers must treat anonymous accordingly. An identity that is somehow present is still
/// checked, so this never lets a wrong role through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Authorizer {
    tls_enabled: bool,
}

impl Authorizer {
    /// The policy for a server whose transport has TLS `tls_enabled`.
    pub fn new(tls_enabled: bool) -> Self {
        Authorizer { tls_enabled }
    }

    /// The policy for a server whose transport is built from `tls`.
    pub fn for_tls(tls: &TlsConfig) -> Self {
        Authorizer::new(tls.is_enabled())
    }

    /// Whether calls must carry a certificate identity.
    pub fn tls_enabled(&self) -> bool {
        self.tls_enabled
    }

    /// Checks `request` against `allowed` for `endpoint` under this policy.
    ///
    /// # Errors
    ///
    /// As [`authorize`]; over plaintext only a present identity with a wrong role is refused.
    pub fn authorize<T>(
        &self,
        request: &Request<T>,
        allowed: &[Role],
        endpoint: &'static str,
    ) -> Result<Caller, Status> {
        match peer_identity(request) {
            None if !self.tls_enabled => Ok(Caller::Anonymous),
            _ => authorize(request, allowed, endpoint).map(Caller::Peer),
        }
    }
}

fn check_role(identity: &PeerIdentity, allowed: &[Role], endpoint: &str) -> Result<(), Status> {
    if allowed.contains(&identity.role) {
        return Ok(());
    }
    let allowed = allowed
        .iter()
        .map(|role| role.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    Err(Status::permission_denied(format!(
        "certificate {identity} may not call the {endpoint} protocol (allowed: {allowed})"
    )))
}

#[cfg(test)]
mod tests {
    use std::net::SocketAddr;

    use tonic::Code;

    use super::*;

    fn request_from(identity: Option<PeerIdentity>) -> Request<()> {
        let mut request = Request::new(());
        let remote_addr: SocketAddr = "127.0.0.1:4000".parse().unwrap();
        request.extensions_mut().insert(PeerInfo {
            remote_addr,
            identity,
        });
        request
    }

    fn nodemanager() -> PeerIdentity {
        PeerIdentity {
            role: Role::NodeManager,
            name: "h1".to_owned(),
        }
    }

    #[test]
    fn allowed_role_returns_the_identity() {
        let request = request_from(Some(nodemanager()));
        let identity = authorize(&request, &[Role::NodeManager], "resource tracker").unwrap();
        assert_eq!(identity, nodemanager());
    }

    #[test]
    fn wrong_role_is_denied_with_who_what_and_allowed() {
        let request = request_from(Some(nodemanager()));
        let status = authorize(&request, &[Role::User], "admin").unwrap_err();
        assert_eq!(status.code(), Code::PermissionDenied);
        assert_eq!(
            status.message(),
            "certificate nodemanager/h1 may not call the admin protocol (allowed: user)"
        );
    }

    #[test]
    fn missing_identity_is_unauthenticated_when_tls_is_on() {
        let status = Authorizer::new(true)
            .authorize(&request_from(None), &[Role::User], "admin")
            .unwrap_err();
        assert_eq!(status.code(), Code::Unauthenticated);
        let status = authorize(&Request::new(()), &[Role::User], "admin").unwrap_err();
        assert_eq!(status.code(), Code::Unauthenticated);
    }

    #[test]
    fn plaintext_callers_are_anonymous_but_wrong_roles_still_fail() {
        let authorizer = Authorizer::new(false);
        let caller = authorizer
            .authorize(&request_from(None), &[Role::User], "admin")
            .unwrap();
        assert_eq!(caller, Caller::Anonymous);
        assert_eq!(caller.identity(), None);
        let status = authorizer
            .authorize(&request_from(Some(nodemanager())), &[Role::User], "admin")
            .unwrap_err();
        assert_eq!(status.code(), Code::PermissionDenied);
    }
}
