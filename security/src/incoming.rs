//! The server side of the transport: a stream of accepted, authenticated connections for tonic.
//!
//! ```text
//! TcpListener ──accept──▶ handshake task (deadline) ──ok──▶ identity under its limit?
//!   (paused while          │ (at most max-pending-         │ yes             │ no
//!    handshakes are        │  handshakes at once)          ▼                 ▼
//!    at their limit)       │          PeerConnection ──▶ tonic Server      dropped
//!                          │          (ConnectInfo = PeerInfo; closed
//!                          │           when idle past its timeout)
//!                          └─fail/timeout──▶ dropped
//! ```
//!
//! Every refusal is logged with the peer address, at most one line per reason per 10 s.
//!
//! A listener shared with Hadoop IPC ([`Incoming::sharing_with_hadoop_ipc`]) first reads a
//! connection's opening bytes without taking them: one that opens with Hadoop's `hrpc` is handed
//! over whole to the Hadoop IPC server, any other goes on as above.
//!
//! Use it as `Server::builder().add_service(svc).serve_with_incoming_shutdown(incoming, signal)`.

use std::future::Future;
use std::io;
use std::mem::Discriminant;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use rustls::ServerConfig;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio::time::Sleep;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::server::TlsStream;
use tokio_stream::Stream;
use yarn_ipc::Protocol;

use crate::identity_connections::IdentityConnections;
use crate::log_throttle::LogThrottle;
use crate::refusal::Refusal;
use crate::{Caller, ConnectionLimits, PeerConnection, PeerIdentity, TlsConfig};

/// Pause after a failed `accept` (e.g. out of file descriptors) so the loop does not spin.
const ACCEPT_ERROR_BACKOFF: Duration = Duration::from_millis(100);
/// At most one log line per kind of refused connection per listener in this time, so a client
/// that retries a refused handshake in a loop cannot flood the log.
const REFUSAL_LOG_INTERVAL: Duration = Duration::from_secs(10);

/// How often a listener shared with Hadoop IPC looks again at a connection whose first bytes
/// are a beginning of `hrpc` but too few to decide.
const SNIFF_RETRY: Duration = Duration::from_millis(5);

/// What a handshake task hands back: the client's address, and what it opened or why it was
/// refused.
type Handshake = (SocketAddr, Result<Opened, Refusal>);

/// A connection a handshake task got ready.
enum Opened {
    /// Mutual TLS, with the client's identity (`None` when it presented no certificate).
    Tls(Box<TlsStream<TcpStream>>, Option<PeerIdentity>),
    /// Plaintext gRPC on a listener shared with Hadoop IPC.
    Plain(TcpStream),
    /// Hadoop IPC, now the Hadoop IPC server's.
    HandedOver,
}

/// Where a listener shared with Hadoop IPC sends the connections that speak it: the accepted
/// stream, none of its bytes taken, and the client's address.
pub type HadoopIpcHandoff = mpsc::Sender<(TcpStream, SocketAddr)>;

/// The accepted connections of one listener, as a stream tonic can serve.
///
/// Guarantees, under its [`ConnectionLimits`] (the configured ones through
/// [`Incoming::new`]):
/// - TLS handshakes run concurrently in tasks owned by this stream, each under a deadline, so a
///   slow or hostile client never delays anyone else's accept; at most
///   `max_pending_handshakes` run at once, and further clients wait to be accepted;
/// - one certificate identity holds at most `max_connections_per_identity` of the connections
///   this stream yielded and the server still holds; one more is dropped right after its
///   handshake, so no identity can crowd the others out;
/// - a TLS client that presents no certificate is dropped, unless the stream admits anonymous
///   clients ([`admitting_anonymous`](Self::admitting_anonymous), for web endpoints only);
///   those then count together as one identity under the same limit;
/// - a yielded connection that carries no bytes for `idle_timeout` is closed (see
///   [`PeerConnection`]);
/// - a failed or timed-out handshake, a verified certificate whose subject carries no
///   identity, or an identity at its limit, is skipped and never ends the stream; it is logged
///   with the peer address and the reason, at most one line per kind of reason every 10 s,
///   which counts the refusals it did not log;
/// - a failed `accept` is yielded as an `Err` item (tonic logs and continues), after which
///   accepting pauses briefly;
/// - the stream never ends on its own; dropping it (tonic does on shutdown) aborts the
///   handshakes in flight and closes the listener.
pub struct Incoming {
    listener: TcpListener,
    acceptor: Option<TlsAcceptor>,
    admits_anonymous: bool,
    limits: ConnectionLimits,
    handshakes: JoinSet<Handshake>,
    identities: IdentityConnections,
    accept_backoff: Option<Pin<Box<Sleep>>>,
    refusal_log: LogThrottle<Discriminant<Refusal>>,
    hadoop_ipc: Option<HadoopIpcHandoff>,
}

impl std::fmt::Debug for Incoming {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Incoming")
            .field("local_addr", &self.listener.local_addr().ok())
            .field("tls", &self.acceptor.is_some())
            .field("admits_anonymous", &self.admits_anonymous)
            .field("pending_handshakes", &self.handshakes.len())
            .field("limits", &self.limits)
            .field("hadoop_ipc", &self.hadoop_ipc.is_some())
            .finish_non_exhaustive()
    }
}

/// Serves mutual TLS on `listener` with `server_config` (see [`crate::tls::server_config`]).
pub fn tls_incoming(listener: TcpListener, server_config: Arc<ServerConfig>) -> Incoming {
    Incoming::with_acceptor(listener, Some(TlsAcceptor::from(server_config)))
}

/// Serves plaintext on `listener`: every [`PeerInfo`](crate::PeerInfo) has no identity.
///
/// Only for `yarn.tls.enabled=false`, an explicit operator opt-out.
pub fn plaintext_incoming(listener: TcpListener) -> Incoming {
    Incoming::with_acceptor(listener, None)
}

impl Incoming {
    /// Serves `listener` the way `tls` says: mutual TLS when enabled, plaintext when disabled,
    /// under its [`connection_limits`](TlsConfig::connection_limits).
    pub fn new(listener: TcpListener, tls: &TlsConfig) -> Self {
        match tls.server_config() {
            Some(config) => tls_incoming(listener, config),
            None => plaintext_incoming(listener),
        }
        .with_limits(tls.connection_limits())
    }

    fn with_acceptor(listener: TcpListener, acceptor: Option<TlsAcceptor>) -> Self {
        let limits = ConnectionLimits::default();
        Incoming {
            listener,
            acceptor,
            admits_anonymous: false,
            limits,
            handshakes: JoinSet::new(),
            identities: IdentityConnections::new(limits.max_connections_per_identity),
            accept_backoff: None,
            refusal_log: LogThrottle::new(REFUSAL_LOG_INTERVAL),
            hadoop_ipc: None,
        }
    }

    /// Shares the listener with Hadoop IPC: a connection whose first bytes are `hrpc` goes to
    /// `handoff` untouched, under the same handshake deadline and limit on handshakes at once;
    /// every other connection is served as before (mutual TLS, or plaintext gRPC). A connection
    /// the Hadoop IPC server has no room for (its channel is full or closed) is dropped.
    pub fn sharing_with_hadoop_ipc(mut self, handoff: HadoopIpcHandoff) -> Self {
        self.hadoop_ipc = Some(handoff);
        self
    }

    /// Admits TLS clients that present no certificate, as connections without identity
    /// ([`PeerInfo::identity`](crate::PeerInfo::identity) `None`), all of them together under
    /// one identity's connection limit. The server configuration must let them complete the
    /// handshake ([`TlsConfig::anonymous_server_config`]); a certificate that is presented is
    /// still verified by it. Only for web endpoints, whose handlers let such callers read and
    /// nothing more; RPC endpoints never admit them.
    pub fn admitting_anonymous(mut self) -> Self {
        self.admits_anonymous = true;
        self
    }

    /// Replaces the limits ([`ConnectionLimits::default`] unless built by [`Incoming::new`]);
    /// counts below 1 count as 1.
    pub fn with_limits(mut self, limits: ConnectionLimits) -> Self {
        self.limits = ConnectionLimits {
            max_pending_handshakes: limits.max_pending_handshakes.max(1),
            max_connections_per_identity: limits.max_connections_per_identity.max(1),
            ..limits
        };
        self.identities = IdentityConnections::new(self.limits.max_connections_per_identity);
        self
    }

    /// The limits the listener enforces.
    pub fn limits(&self) -> ConnectionLimits {
        self.limits
    }

    /// The address the listener is bound to.
    ///
    /// # Errors
    ///
    /// The operating system's error, as from [`TcpListener::local_addr`].
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Accepts what is ready; yields at once for plaintext or a failed accept.
    fn poll_accept(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<PeerConnection>> {
        if let Some(backoff) = &mut self.accept_backoff {
            if backoff.as_mut().poll(cx).is_pending() {
                return Poll::Pending;
            }
            self.accept_backoff = None;
        }
        while self.handshakes.len() < self.limits.max_pending_handshakes {
            let (stream, remote_addr) = match self.listener.poll_accept(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Ok(accepted)) => accepted,
                Poll::Ready(Err(err)) => {
                    tracing::warn!(error = %err, "accepting a connection failed; pausing accepts");
                    self.accept_backoff = Some(Box::pin(tokio::time::sleep(ACCEPT_ERROR_BACKOFF)));
                    return Poll::Ready(Err(err));
                }
            };
            // gRPC messages are small and latency-bound: never wait to coalesce writes.
            if let Err(err) = stream.set_nodelay(true) {
                tracing::debug!(peer = %remote_addr, error = %err, "could not set TCP_NODELAY");
            }
            if self.acceptor.is_none() && self.hadoop_ipc.is_none() {
                return Poll::Ready(Ok(PeerConnection::plain(
                    stream,
                    remote_addr,
                    self.limits.idle_timeout,
                )));
            }
            let handshake = open(
                self.acceptor.clone(),
                self.hadoop_ipc.clone(),
                stream,
                remote_addr,
                self.limits.handshake_timeout,
            );
            self.handshakes
                .spawn(async move { (remote_addr, handshake.await) });
        }
        // At the limit: the join set wakes us when a handshake finishes and frees a slot.
        Poll::Pending
    }

    /// The gRPC connection of a client whose handshake succeeded, unless it presented no
    /// certificate to a stream that does not admit anonymous clients, or its identity is at its
    /// limit; `None` for a connection handed over to Hadoop IPC.
    fn admit(
        &self,
        opened: Opened,
        remote_addr: SocketAddr,
    ) -> Result<Option<PeerConnection>, Refusal> {
        let (tls, identity) = match opened {
            Opened::Tls(tls, identity) => (tls, identity),
            Opened::Plain(stream) => {
                return Ok(Some(PeerConnection::plain(
                    stream,
                    remote_addr,
                    self.limits.idle_timeout,
                )));
            }
            Opened::HandedOver => return Ok(None),
        };
        let caller = match identity {
            Some(identity) => Caller::Peer(identity),
            None if self.admits_anonymous => Caller::Anonymous,
            None => return Err(Refusal::NoCertificate),
        };
        let limit = self.identities.limit();
        match (self.identities.try_admit(&caller), caller) {
            (Some(slot), caller) => Ok(Some(PeerConnection::tls(
                tls,
                remote_addr,
                caller.identity().cloned(),
                slot,
                self.limits.idle_timeout,
            ))),
            (None, Caller::Peer(identity)) => Err(Refusal::TooManyConnections { identity, limit }),
            (None, Caller::Anonymous) => Err(Refusal::TooManyAnonymousConnections { limit }),
        }
    }

    /// Logs `refusal` of the client at `peer`, unless a refusal of its kind was logged less than
    /// [`REFUSAL_LOG_INTERVAL`] ago; bare I/O failures only at debug level.
    fn log_refusal(&mut self, peer: SocketAddr, refusal: &Refusal) {
        if !refusal.is_noteworthy() {
            tracing::debug!(%peer, "{refusal}; connection dropped");
            return;
        }
        let Some(suppressed) = self
            .refusal_log
            .admit(std::mem::discriminant(refusal), Instant::now())
        else {
            return;
        };
        // Which port refused matters: the limits hold per listener.
        let listener = match self.listener.local_addr() {
            Ok(address) => address.to_string(),
            Err(err) => err.to_string(),
        };
        tracing::warn!(%peer, %listener, suppressed, "{refusal}; connection dropped");
    }
}

impl Stream for Incoming {
    type Item = io::Result<PeerConnection>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        loop {
            // Accept first so that handshakes spawned now are in the join set polled below, which
            // registers the waker that reports their completion. Accept again after every
            // handshake that ends without a connection: it freed a place, and while handshakes
            // were at their limit nothing registered the listener for a wake-up.
            if let Poll::Ready(result) = this.poll_accept(cx) {
                return Poll::Ready(Some(result));
            }
            match this.handshakes.poll_join_next(cx) {
                Poll::Ready(Some(Ok((remote_addr, handshake)))) => {
                    let admitted = handshake.and_then(|opened| this.admit(opened, remote_addr));
                    match admitted {
                        Ok(Some(connection)) => return Poll::Ready(Some(Ok(connection))),
                        Ok(None) => {}
                        // Dropping the refused stream closes the connection.
                        Err(refusal) => this.log_refusal(remote_addr, &refusal),
                    }
                }
                Poll::Ready(Some(Err(err))) => {
                    tracing::error!(error = %err, "TLS handshake task failed");
                }
                Poll::Ready(None) | Poll::Pending => return Poll::Pending,
            }
        }
    }
}

/// Opens one accepted connection under `timeout`: hands it to Hadoop IPC when the listener is
/// shared and it opens with `hrpc`, else runs the TLS handshake (or, without TLS, leaves it
/// plain).
async fn open(
    acceptor: Option<TlsAcceptor>,
    hadoop_ipc: Option<HadoopIpcHandoff>,
    stream: TcpStream,
    remote_addr: SocketAddr,
    timeout: Duration,
) -> Result<Opened, Refusal> {
    let deadline = tokio::time::Instant::now() + timeout;
    if let Some(handoff) = hadoop_ipc
        && sniff(&stream, deadline, timeout).await? == Protocol::HadoopIpc
    {
        return match handoff.try_send((stream, remote_addr)) {
            Ok(()) => Ok(Opened::HandedOver),
            Err(_) => Err(Refusal::HadoopIpcBusy),
        };
    }
    match acceptor {
        Some(acceptor) => {
            let remaining = deadline.saturating_duration_since(tokio::time::Instant::now());
            let (tls, identity) = handshake(acceptor, stream, remaining, timeout).await?;
            Ok(Opened::Tls(tls, identity))
        }
        None => Ok(Opened::Plain(stream)),
    }
}

/// Which protocol `stream` opens with, from bytes read without taking them, by `deadline`.
async fn sniff(
    stream: &TcpStream,
    deadline: tokio::time::Instant,
    timeout: Duration,
) -> Result<Protocol, Refusal> {
    let mut first = [0u8; yarn_ipc::MAGIC.len()];
    loop {
        let peeked = tokio::time::timeout_at(deadline, stream.peek(&mut first))
            .await
            .map_err(|_| Refusal::HandshakeTimeout { timeout })?
            .map_err(|source| Refusal::HandshakeFailed { source })?;
        if peeked == 0 {
            return Err(Refusal::HandshakeFailed {
                source: io::ErrorKind::UnexpectedEof.into(),
            });
        }
        match Protocol::sniff(&first[..peeked]) {
            // A peek returns at once while any byte is waiting, so wait a little before asking
            // again rather than spinning on a client that sent part of its preamble.
            Protocol::Incomplete => {
                if tokio::time::Instant::now() + SNIFF_RETRY > deadline {
                    return Err(Refusal::HandshakeTimeout { timeout });
                }
                tokio::time::sleep(SNIFF_RETRY).await;
            }
            protocol => return Ok(protocol),
        }
    }
}

/// Runs one server-side handshake under `timeout` and reads the client's identity from its
/// certificate, `None` when it presented none (which the server configuration decided to
/// allow, and [`Incoming::admit`] decides again).
async fn handshake(
    acceptor: TlsAcceptor,
    stream: TcpStream,
    remaining: Duration,
    timeout: Duration,
) -> Result<(Box<TlsStream<TcpStream>>, Option<PeerIdentity>), Refusal> {
    let tls = match tokio::time::timeout(remaining, acceptor.accept(stream)).await {
        Err(_) => return Err(Refusal::HandshakeTimeout { timeout }),
        Ok(Err(err)) => return Err(Refusal::of_handshake_error(err)),
        Ok(Ok(tls)) => tls,
    };
    let identity = tls
        .get_ref()
        .1
        .peer_certificates()
        .and_then(|chain| chain.first())
        .map(|leaf| PeerIdentity::from_der(leaf))
        .transpose()
        .map_err(|source| Refusal::NoIdentity { source })?;
    Ok((Box::new(tls), identity))
}
