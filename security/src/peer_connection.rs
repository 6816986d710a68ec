//! One accepted connection as the server sees it: its transport, its peer, and its limits.

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio_rustls::server::TlsStream;
use tonic::transport::server::Connected;

use crate::PeerIdentity;
use crate::identity_connections::ConnectionSlot;
use crate::idle_timer::IdleTimer;

/// What a handler knows about the connection its request arrived on.
///
/// tonic stores it in every request's extensions; read it with
/// [`peer_info`](crate::peer_info) or [`peer_identity`](crate::peer_identity).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PeerInfo {
    /// The client's address.
    pub remote_addr: SocketAddr,
    /// The identity of the client's verified certificate; `None` on a plaintext listener
    /// (`yarn.tls.enabled=false`) and for a client without a certificate on a web listener
    /// that admits them. A TLS listener of an RPC endpoint never admits such a client, so
    /// there it is always present.
    pub identity: Option<PeerIdentity>,
}

/// One accepted connection, TLS-authenticated or plaintext, ready for tonic.
///
/// Guarantees:
/// - once it has carried no bytes in either direction for its idle timeout, the read or write
///   the server is waiting on fails with [`io::ErrorKind::TimedOut`], so the server closes it
///   (see [`ConnectionLimits::idle_timeout`](crate::ConnectionLimits::idle_timeout));
/// - it holds its identity's place among the listener's connections until it is dropped.
pub struct PeerConnection {
    stream: Transport,
    info: PeerInfo,
    idle: IdleTimer,
    // Never read: dropping it with the connection gives the identity's place back.
    _slot: Option<ConnectionSlot>,
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
            .field("idle_timeout", &self.idle.timeout())
            .finish_non_exhaustive()
    }
}

impl PeerConnection {
    /// A TLS connection of `identity` (`None` for a client the listener admitted without a
    /// certificate), holding `slot` for as long as it lives.
    pub(crate) fn tls(
        stream: Box<TlsStream<TcpStream>>,
        remote_addr: SocketAddr,
        identity: Option<PeerIdentity>,
        slot: ConnectionSlot,
        idle_timeout: Duration,
    ) -> Self {
        PeerConnection {
            stream: Transport::Tls(stream),
            info: PeerInfo {
                remote_addr,
                identity,
            },
            idle: IdleTimer::new(idle_timeout),
            _slot: Some(slot),
        }
    }

    /// A plaintext connection, without identity.
    pub(crate) fn plain(
        stream: TcpStream,
        remote_addr: SocketAddr,
        idle_timeout: Duration,
    ) -> Self {
        PeerConnection {
            stream: Transport::Plain(stream),
            info: PeerInfo {
                remote_addr,
                identity: None,
            },
            idle: IdleTimer::new(idle_timeout),
            _slot: None,
        }
    }

    /// What tonic hands to handlers for this connection.
    pub fn info(&self) -> &PeerInfo {
        &self.info
    }

    /// Records bytes carried by a completed read or write.
    fn note(&mut self, bytes: usize) {
        if bytes > 0 {
            self.idle.record_activity();
        }
    }

    /// Passes `polled` through, except that an operation still pending on a connection idle
    /// past its timeout fails instead, which makes the server drop the connection. The timer is
    /// polled only while the transport is pending, so its wake-up joins the transport's.
    fn unless_idle<T>(
        &mut self,
        polled: Poll<io::Result<T>>,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<T>> {
        if polled.is_pending() && self.idle.poll_expired(cx).is_ready() {
            let timeout = self.idle.timeout();
            tracing::debug!(
                peer = %self.info.remote_addr,
                identity = ?self.info.identity,
                ?timeout,
                "closing a connection that carried no bytes for its idle timeout"
            );
            return Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!("connection carried no bytes for {timeout:?}"),
            )));
        }
        polled
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
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = match &mut this.stream {
            Transport::Tls(stream) => Pin::new(stream.as_mut()).poll_read(cx, buf),
            Transport::Plain(stream) => Pin::new(stream).poll_read(cx, buf),
        };
        if let Poll::Ready(Ok(())) = polled {
            this.note(buf.filled().len() - before);
        }
        this.unless_idle(polled, cx)
    }
}

impl AsyncWrite for PeerConnection {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let polled = match &mut this.stream {
            Transport::Tls(stream) => Pin::new(stream.as_mut()).poll_write(cx, buf),
            Transport::Plain(stream) => Pin::new(stream).poll_write(cx, buf),
        };
        if let Poll::Ready(Ok(written)) = polled {
            this.note(written);
        }
        this.unless_idle(polled, cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let polled = match &mut this.stream {
            Transport::Tls(stream) => Pin::new(stream.as_mut()).poll_write_vectored(cx, bufs),
            Transport::Plain(stream) => Pin::new(stream).poll_write_vectored(cx, bufs),
        };
        if let Poll::Ready(Ok(written)) = polled {
            this.note(written);
        }
        this.unless_idle(polled, cx)
    }

    fn is_write_vectored(&self) -> bool {
        match &self.stream {
            Transport::Tls(stream) => stream.is_write_vectored(),
            Transport::Plain(stream) => stream.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let polled = match &mut this.stream {
            Transport::Tls(stream) => Pin::new(stream.as_mut()).poll_flush(cx),
            Transport::Plain(stream) => Pin::new(stream).poll_flush(cx),
        };
        this.unless_idle(polled, cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().stream {
            Transport::Tls(stream) => Pin::new(stream.as_mut()).poll_shutdown(cx),
            Transport::Plain(stream) => Pin::new(stream).poll_shutdown(cx),
        }
    }
}
