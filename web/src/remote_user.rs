//! [`RemoteUser`]: who one web request is served as.

use yarn_security::Caller;

/// The user a web request is served as, decided by the [`WebServer`](crate::WebServer) under
/// its [`WebAccess`](crate::WebAccess) before any handler runs, and placed in the request's
/// extensions for handlers to read:
///
/// - [`Caller::Peer`]: the identity of the client's certificate over HTTPS, or, with
///   `yarn.tls.enabled=false`, a user named by Hadoop's pseudo authentication (`user.name`);
/// - [`Caller::Anonymous`]: Hadoop's `dr.who`, only ever for a read (GET or HEAD) that the
///   operator allowed anonymous callers; a request that would write never reaches a handler
///   as anonymous.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteUser(pub Caller);
