//! [`WebServer`]: serves a daemon's web routes on its webapp address, over the same mutual TLS
//! as its RPC endpoints.

use std::future::IntoFuture;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::connect_info::Connected;
use axum::extract::{ConnectInfo, Request, State};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::serve::IncomingStream;
use rustls::ServerConfig;
use tokio::net::TcpListener;
use tokio_stream::StreamExt;
use tokio_util::sync::CancellationToken;
use yarn_security::{
    Caller, Incoming, PeerConnection, TlsConfig, plaintext_incoming, tls_incoming,
};

use crate::WebAccess;

/// The web server stopped with an error.
#[derive(Debug, thiserror::Error)]
#[error("the web server at {address} failed: {source}")]
pub struct ServeError {
    /// The served address.
    pub address: String,
    /// The server's reason.
    #[source]
    pub source: io::Error,
}

/// How long open web connections may take to finish once the node stops, before the server
/// stops waiting for them.
pub const WEB_SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// The ALPN protocols the web endpoint offers: HTTP/2 first, then HTTP/1.1 for browsers and
/// `curl --http1.1`.
const WEB_ALPN: [&[u8]; 2] = [b"h2", b"http/1.1"];

/// A daemon's web server (`yarn.nodemanager.webapp.address`,
/// `yarn.resourcemanager.webapp.address`).
///
/// Security: with `yarn.tls.enabled` (the default) it speaks HTTPS with the daemon's
/// certificate and, like the RPC endpoints, accepts only clients presenting a certificate from
/// the cluster CA; TLS 1.3 only, HTTP/1.1 or HTTP/2 by ALPN. When the [`WebAccess`] allows
/// anonymous reads, a client without a certificate completes the handshake too (all of them
/// together under one identity's connection limit), while a certificate that is presented is
/// verified as strictly. With `yarn.tls.enabled=false` it speaks plain HTTP to anyone.
/// Handshakes run under the transport's deadline and never hold up other clients (see
/// [`Incoming`]).
///
/// Before any route runs, every request is given its [`RemoteUser`](crate::RemoteUser) by
/// [`WebAccess::remote_user`], or refused there (401 for a caller that names no user and may
/// not do what it asks, 400 for an unreadable `user.name`): so no route of any daemon serves
/// an anonymous write, whatever its handler does. Routes also see the connection's caller as
/// [`WebCaller`].
pub struct WebServer {
    listener: WebListener,
    address: SocketAddr,
    router: Router,
}

impl std::fmt::Debug for WebServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebServer")
            .field("address", &self.address)
            .finish_non_exhaustive()
    }
}

impl WebServer {
    /// A server for `router` on the already bound `listener`, whose address is `address`, with
    /// the transport `tls` describes and the callers `access` admits.
    pub fn new(
        listener: TcpListener,
        address: SocketAddr,
        tls: &TlsConfig,
        access: WebAccess,
        router: Router,
    ) -> Self {
        let incoming = match web_server_config(tls, access) {
            Some(config) if access.anonymous_reads => {
                tls_incoming(listener, config).admitting_anonymous()
            }
            Some(config) => tls_incoming(listener, config),
            None => plaintext_incoming(listener),
        }
        .with_limits(tls.connection_limits());
        let rule = AccessRule {
            access,
            tls: tls.is_enabled(),
        };
        Self {
            listener: WebListener { incoming, address },
            address,
            router: router.layer(middleware::from_fn_with_state(rule, name_remote_user)),
        }
    }

    /// Serves until `shutdown` is cancelled, then stops accepting and lets open connections
    /// finish for up to [`WEB_SHUTDOWN_GRACE`]; connections still open then are left to end on
    /// their own, with the graceful close already asked of them.
    ///
    /// # Errors
    ///
    /// [`ServeError`] naming the address if the server fails.
    pub async fn run(self, shutdown: CancellationToken) -> Result<(), ServeError> {
        let address = self.address;
        tracing::info!(%address, "web server listening");
        let serve = axum::serve(
            self.listener,
            self.router
                .into_make_service_with_connect_info::<WebCaller>(),
        )
        .with_graceful_shutdown(shutdown.clone().cancelled_owned())
        .into_future();
        let grace_over = async {
            shutdown.cancelled().await;
            tokio::time::sleep(WEB_SHUTDOWN_GRACE).await;
        };
        tokio::select! {
            served = serve => served.map_err(|source| ServeError {
                address: address.to_string(),
                source,
            }),
            () = grace_over => {
                tracing::warn!(
                    %address,
                    grace = ?WEB_SHUTDOWN_GRACE,
                    "web connections still open after the shutdown grace; no longer waiting"
                );
                Ok(())
            }
        }
    }
}

/// The RPC endpoint's server configuration (node certificate, cluster CA for clients, TLS 1.3),
/// admitting clients without a certificate when `access` allows anonymous reads, with the
/// web's ALPN protocols instead of gRPC's `h2` alone, which would refuse HTTP/1.1 clients that
/// offer ALPN.
fn web_server_config(tls: &TlsConfig, access: WebAccess) -> Option<Arc<ServerConfig>> {
    let config = if access.anonymous_reads {
        tls.anonymous_server_config()
    } else {
        tls.server_config()
    };
    config.map(|rpc| {
        let mut config = ServerConfig::clone(&rpc);
        config.alpn_protocols = WEB_ALPN.iter().map(|protocol| protocol.to_vec()).collect();
        Arc::new(config)
    })
}

/// What the middleware naming each request's user decides with.
#[derive(Clone, Copy)]
struct AccessRule {
    access: WebAccess,
    tls: bool,
}

/// Names the request's [`RemoteUser`](crate::RemoteUser) in its extensions, or answers the
/// [`AccessRefusal`](crate::AccessRefusal) instead of the route.
async fn name_remote_user(
    State(rule): State<AccessRule>,
    ConnectInfo(web): ConnectInfo<WebCaller>,
    mut request: Request,
    next: Next,
) -> Response {
    match rule
        .access
        .remote_user(rule.tls, &web.caller, request.method(), request.uri())
    {
        Ok(user) => {
            request.extensions_mut().insert(user);
            next.run(request).await
        }
        Err(refusal) => refusal.into_response(),
    }
}

/// Who is calling on one web connection: the identity its client certificate proves, or
/// [`Caller::Anonymous`] on a plaintext endpoint or for a client without a certificate.
/// Handlers take it as `ConnectInfo<WebCaller>`; who a request is served as is its
/// [`RemoteUser`](crate::RemoteUser).
#[derive(Debug, Clone)]
pub struct WebCaller {
    /// The caller.
    pub caller: Caller,
    /// The peer's address.
    pub remote: SocketAddr,
}

impl Connected<IncomingStream<'_, WebListener>> for WebCaller {
    fn connect_info(stream: IncomingStream<'_, WebListener>) -> Self {
        let info = stream.io().info();
        Self {
            caller: info
                .identity
                .clone()
                .map_or(Caller::Anonymous, Caller::Peer),
            remote: *stream.remote_addr(),
        }
    }
}

/// The accepted, authenticated connections of the web address, for `axum::serve`.
pub struct WebListener {
    incoming: Incoming,
    address: SocketAddr,
}

impl axum::serve::Listener for WebListener {
    type Io = PeerConnection;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (PeerConnection, SocketAddr) {
        loop {
            match self.incoming.next().await {
                Some(Ok(connection)) => {
                    let remote = connection.info().remote_addr;
                    return (connection, remote);
                }
                // `Incoming` logged the failure and pauses its next accept.
                Some(Err(_)) => {}
                // `Incoming` never ends while its listener lives, which is as long as this.
                None => std::future::pending::<()>().await,
            }
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        Ok(self.address)
    }
}
