//! The server side of the transport: a stream of accepted, authenticated connections for tonic.
//!
//! ```text
//! TcpListener ──accept──▶ handshake task (deadline) ──ok──▶ PeerConnection ──▶ tonic Server
//!                              │ (one per connection,           (ConnectInfo = PeerInfo,
//!                              │  run concurrently)              in every request's extensions)
//!                              └─fail/timeout──▶ dropped; logged with the peer address, at
//!                                                most one line per reason per 10 s
//! ```
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
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;
use tokio::time::Sleep;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::server::TlsStream;
use tokio_stream::Stream;
use tonic::transport::server::Connected;

use crate::log_throttle::LogThrottle;
use crate::refusal::Refusal;
use crate::{PeerIdentity, TlsConfig};

/// How long a client may take to complete the TLS handshake before it is dropped.
pub const DEFAULT_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// How many handshakes may be in flight before accepting pauses (the kernel backlog then holds
/// further clients).
pub const DEFAULT_MAX_PENDING_HANDSHAKES: usize = 1024;
/// Pause after a failed `accept` (e.g. out of file descriptors) so the loop does not spin.
const ACCEPT_ERROR_BACKOFF: Duration = Duration::from_millis(100);
/// At most one log line per kind of refused connection per listener in this time, so a client
/// that retries a refused handshake in a loop cannot flood the log.
const REFUSAL_LOG_INTERVAL: Duration = Duration::from_secs(10);

/// What a handshake task hands back: the client's address, and its authenticated stream and
/// identity or why it was refused.
type Handshake = (
    SocketAddr,
    Result<(Box<TlsStream<TcpStream>>, PeerIdentity), Refusal>,
);

/// What a handler knows about the connection its request arrived on.
///
/// tonic stores it in every request's extensions; read it with
/// [`peer_info`](crate::peer_info) or [`peer_identity`](crate::peer_identity).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PeerInfo {
    /// The client's address.
    pub remote_addr: SocketAddr,
    /// The identity of the client's verified certificate; always present over TLS, `None` on a
    /// plaintext listener (`yarn.tls.enabled=false`).
    pub identity: Option<PeerIdentity>,
}

/// One accepted connection, TLS-authenticated or plaintext, ready for tonic.
pub struct PeerConnection {
    stream: Transport,
    info: PeerInfo,
}

enum Transport {
    // Boxed: a TLS stream carries the whole rustls connection state.
    Tls(Box<TlsStream<TcpStream>>),
    Plain(TcpStream),
}

impl std::fmt::Debug for PeerConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let transport = match self.stream {
            Transport::Tls(_) => "tls",
            Transport::Plain(_) => "plaintext",
        };
        f.debug_struct("PeerConnection")
            .field("transport", &transport)
            .field("info", &self.info)
            .finish()
    }
}

impl PeerConnection {
    /// What tonic hands to handlers for this connection.
    pub fn info(&self) -> &PeerInfo {
        &self.info
    }
}

impl Connected for PeerConnection {
    type ConnectInfo = PeerInfo;

    fn connect_info(&self) -> PeerInfo {
        self.info.clone()
    }
}

impl AsyncRead for PeerConnection {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match &mut self.get_mut().stream {
            Transport::Tls(stream) => Pin::new(stream.as_mut()).poll_read(cx, buf),
            Transport::Plain(stream) => Pin::new(stream).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for PeerConnection {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match &mut self.get_mut().stream {
            Transport::Tls(stream) => Pin::new(stream.as_mut()).poll_write(cx, buf),
            Transport::Plain(stream) => Pin::new(stream).poll_write(cx, buf),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match &mut self.get_mut().stream {
            Transport::Tls(stream) => Pin::new(stream.as_mut()).poll_write_vectored(cx, bufs),
            Transport::Plain(stream) => Pin::new(stream).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match &self.stream {
            Transport::Tls(stream) => stream.is_write_vectored(),
            Transport::Plain(stream) => stream.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().stream {
            Transport::Tls(stream) => Pin::new(stream.as_mut()).poll_flush(cx),
            Transport::Plain(stream) => Pin::new(stream).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().stream {
            Transport::Tls(stream) => Pin::new(stream.as_mut()).poll_shutdown(cx),
            Transport::Plain(stream) => Pin::new(stream).poll_shutdown(cx),
        }
    }
}

/// The accepted connections of one listener, as a stream tonic can serve.
///
/// Guarantees:
/// - TLS handshakes run concurrently in tasks owned by this stream, each under a deadline, so a
///   slow or hostile client never delays anyone else's accept;
/// - a failed or timed-out handshake, or a verified certificate whose subject carries no
///   identity, is skipped and never ends the stream; it is logged with the peer address and
///   the reason, at most one line per kind of reason every 10 s, which counts the refusals it
///   did not log;
/// - a failed `accept` is yielded as an `Err` item (tonic logs and continues), after which
///   accepting pauses briefly;
/// - the stream never ends on its own; dropping it (tonic does on shutdown) aborts the
///   handshakes in flight and closes the listener.
pub struct Incoming {
    listener: TcpListener,
    acceptor: Option<TlsAcceptor>,
    handshakes: JoinSet<Handshake>,
    handshake_timeout: Duration,
    max_pending_handshakes: usize,
    accept_backoff: Option<Pin<Box<Sleep>>>,
    refusal_log: LogThrottle<Discriminant<Refusal>>,
}

impl std::fmt::Debug for Incoming {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Incoming")
            .field("local_addr", &self.listener.local_addr().ok())
            .field("tls", &self.acceptor.is_some())
            .field("pending_handshakes", &self.handshakes.len())
            .field("handshake_timeout", &self.handshake_timeout)
            .finish_non_exhaustive()
    }
}

/// Serves mutual TLS on `listener` with `server_config` (see [`crate::tls::server_config`]).
pub fn tls_incoming(listener: TcpListener, server_config: Arc<ServerConfig>) -> Incoming {
    Incoming::with_acceptor(listener, Some(TlsAcceptor::from(server_config)))
}

/// Serves plaintext on `listener`: every [`PeerInfo`] has no identity.
///
/// Only for `yarn.tls.enabled=false`, an explicit operator opt-out.
pub fn plaintext_incoming(listener: TcpListener) -> Incoming {
    Incoming::with_acceptor(listener, None)
}

impl Incoming {
    /// Serves `listener` the way `tls` says: mutual TLS when enabled, plaintext when disabled.
    pub fn new(listener: TcpListener, tls: &TlsConfig) -> Self {
        match tls.server_config() {
            Some(config) => tls_incoming(listener, config),
            None => plaintext_incoming(listener),
        }
    }

    fn with_acceptor(listener: TcpListener, acceptor: Option<TlsAcceptor>) -> Self {
        Incoming {
            listener,
            acceptor,
            handshakes: JoinSet::new(),
            handshake_timeout: DEFAULT_HANDSHAKE_TIMEOUT,
            max_pending_handshakes: DEFAULT_MAX_PENDING_HANDSHAKES,
            accept_backoff: None,
            refusal_log: LogThrottle::new(REFUSAL_LOG_INTERVAL),
        }
    }

    /// Replaces [`DEFAULT_HANDSHAKE_TIMEOUT`].
    pub fn handshake_timeout(mut self, timeout: Duration) -> Self {
        self.handshake_timeout = timeout;
        self
    }

    /// Replaces [`DEFAULT_MAX_PENDING_HANDSHAKES`] (at least 1).
    pub fn max_pending_handshakes(mut self, limit: usize) -> Self {
        self.max_pending_handshakes = limit.max(1);
        self
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
        while self.handshakes.len() < self.max_pending_handshakes {
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
            match &self.acceptor {
                None => {
                    return Poll::Ready(Ok(PeerConnection {
                        stream: Transport::Plain(stream),
                        info: PeerInfo {
                            remote_addr,
                            identity: None,
                        },
                    }));
                }
                Some(acceptor) => {
                    let handshake = handshake(acceptor.clone(), stream, self.handshake_timeout);
                    self.handshakes
                        .spawn(async move { (remote_addr, handshake.await) });
                }
            }
        }
        // At the limit: the join set wakes us when a handshake finishes and frees a slot.
        Poll::Pending
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
        // Accept first so that handshakes spawned now are in the join set polled below, which
        // registers the waker that reports their completion.
        if let Poll::Ready(result) = this.poll_accept(cx) {
            return Poll::Ready(Some(result));
        }
        loop {
            match this.handshakes.poll_join_next(cx) {
                Poll::Ready(Some(Ok((remote_addr, Ok((tls, identity)))))) => {
                    return Poll::Ready(Some(Ok(PeerConnection {
                        stream: Transport::Tls(tls),
                        info: PeerInfo {
                            remote_addr,
                            identity: Some(identity),
                        },
                    })));
                }
                Poll::Ready(Some(Ok((remote_addr, Err(refusal))))) => {
                    this.log_refusal(remote_addr, &refusal);
                }
                Poll::Ready(Some(Err(err))) => {
                    tracing::error!(error = %err, "TLS handshake task failed");
                }
                Poll::Ready(None) | Poll::Pending => return Poll::Pending,
            }
        }
    }
}

/// Runs one server-side handshake under `timeout` and reads the client's identity from its
/// certificate.
async fn handshake(
    acceptor: TlsAcceptor,
    stream: TcpStream,
    timeout: Duration,
) -> Result<(Box<TlsStream<TcpStream>>, PeerIdentity), Refusal> {
    let tls = match tokio::time::timeout(timeout, acceptor.accept(stream)).await {
        Err(_) => return Err(Refusal::HandshakeTimeout { timeout }),
        Ok(Err(err)) => return Err(Refusal::of_handshake_error(err)),
        Ok(Ok(tls)) => tls,
    };
    let leaf = tls
        .get_ref()
        .1
        .peer_certificates()
        .and_then(|chain| chain.first())
        .ok_or(Refusal::NoCertificate)?;
    let identity = PeerIdentity::from_der(leaf).map_err(|source| Refusal::NoIdentity { source })?;
    Ok((Box::new(tls), identity))
}
