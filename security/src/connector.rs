//! The client side of the transport: TLS dialing for tonic channels, and channel construction
//! with the inter-node keepalive and timeout policy.

use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use http::Uri;
use hyper_util::rt::TokioIo;
use rustls::ClientConfig;
use rustls::pki_types::ServerName;
use tokio::io::AsyncBufReadExt;
use tokio::net::{TcpSocket, TcpStream};
use tokio_rustls::client::TlsStream;
use tonic::transport::{Channel, Endpoint};

use crate::Error;

/// A [`tower::Service`] that dials a URI's host and port over TCP and runs the client TLS
/// handshake, for [`Endpoint::connect_with_connector`].
///
/// The server is verified against the host of the URI, which may be a DNS name or an IP
/// address (IPv6 in brackets). The URI's scheme is ignored. Clones share the configuration.
#[derive(Clone)]
pub struct TlsConnector {
    connector: tokio_rustls::TlsConnector,
    local_address: Option<IpAddr>,
}

impl std::fmt::Debug for TlsConnector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TlsConnector").finish_non_exhaustive()
    }
}

impl TlsConnector {
    /// A connector presenting and verifying what `config` says (see [`crate::tls::client_config`]).
    pub fn new(config: Arc<ClientConfig>) -> Self {
        TlsConnector {
            connector: tokio_rustls::TlsConnector::from(config),
            local_address: None,
        }
    }

    /// The same connector dialing from `local_address` (any port) when it is set, instead of
    /// the address the kernel would choose.
    pub fn with_local_address(mut self, local_address: Option<IpAddr>) -> Self {
        self.local_address = local_address;
        self
    }
}

impl tower::Service<Uri> for TlsConnector {
    type Response = TokioIo<TlsStream<TcpStream>>;
    type Error = Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Error>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Error>> {
        Poll::Ready(Ok(()))
    }

    /// Dials, handshakes, and waits for the server's first bytes; cancelling the future closes
    /// the socket.
    ///
    /// Returns only once the server has accepted this client's certificate. TLS 1.3 lets a
    /// client finish its handshake before the server has verified the client's certificate, so
    /// a server that refuses it says so (a fatal alert, then close) only afterwards, and a
    /// request sent in the meantime would fail as a broken pipe or a closed connection, like
    /// one to a server that went away. HTTP/2 servers speak first (their SETTINGS frame, which
    /// stays buffered for the HTTP/2 client), so waiting for it makes the server's verdict part
    /// of the handshake, for half a round trip more per new connection.
    ///
    /// Errors: [`Error::InvalidAddress`] without a host and port, [`Error::Dial`] when TCP
    /// fails, [`Error::TlsHandshake`] when the server's certificate does not verify, the
    /// server refuses this client's (the alert is in the source chain: see
    /// [`CertificateRefusal`](crate::CertificateRefusal)) or closes the connection without a
    /// word.
    fn call(&mut self, uri: Uri) -> Self::Future {
        let connector = self.connector.clone();
        let local_address = self.local_address;
        Box::pin(async move {
            let (host, port) = host_and_port(&uri)?;
            let address = format!("{host}:{port}");
            let server_name =
                ServerName::try_from(host.clone()).map_err(|_| Error::InvalidAddress {
                    address: uri.to_string(),
                    reason: "the host is neither a DNS name nor an IP address",
                })?;
            let tcp = dial(&host, port, local_address)
                .await
                .map_err(|source| Error::Dial {
                    address: address.clone(),
                    source,
                })?;
            // gRPC messages are small and latency-bound: never wait to coalesce writes.
            tcp.set_nodelay(true).map_err(|source| Error::Dial {
                address: address.clone(),
                source,
            })?;
            let mut tls = connector
                .connect(server_name, tcp)
                .await
                .map_err(|source| Error::TlsHandshake {
                    address: address.clone(),
                    source,
                })?;
            server_accepted(&mut tls)
                .await
                .map_err(|source| Error::TlsHandshake { address, source })?;
            Ok(TokioIo::new(tls))
        })
    }
}

/// Waits until the server has sent its first application bytes, which stay buffered in `tls`.
///
/// # Errors
///
/// The server's refusal as tokio-rustls reports it (`InvalidData` wrapping rustls's
/// `AlertReceived`), `UnexpectedEof` when the server closed without a word, or the socket's
/// error.
async fn server_accepted(tls: &mut TlsStream<TcpStream>) -> std::io::Result<()> {
    if tls.fill_buf().await?.is_empty() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            "the server closed the connection right after the TLS handshake",
        ));
    }
    Ok(())
}

/// A TCP connection to `host:port`, from `local_address` when it is set: to the first of the
/// host's addresses of the same family as the local one.
///
/// # Errors
///
/// When the host does not resolve (to an address of the local address's family), the local
/// address cannot be bound, or the connection fails.
pub async fn dial(
    host: &str,
    port: u16,
    local_address: Option<IpAddr>,
) -> std::io::Result<TcpStream> {
    let Some(local) = local_address else {
        return TcpStream::connect((host, port)).await;
    };
    let remote = tokio::net::lookup_host((host, port))
        .await?
        .find(|remote| remote.is_ipv4() == local.is_ipv4())
        .ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::AddrNotAvailable,
                format!("{host} has no address of the family of the local address {local}"),
            )
        })?;
    let socket = if local.is_ipv4() {
        TcpSocket::new_v4()?
    } else {
        TcpSocket::new_v6()?
    };
    socket.bind(SocketAddr::new(local, 0))?;
    socket.connect(remote).await
}

/// The host (IPv6 without brackets) and port of `uri`, which must carry both.
fn host_and_port(uri: &Uri) -> Result<(String, u16), Error> {
    let invalid = |reason| Error::InvalidAddress {
        address: uri.to_string(),
        reason,
    };
    let host = uri.host().ok_or_else(|| invalid("no host"))?;
    let port = uri.port_u16().ok_or_else(|| invalid("no port"))?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    Ok((host.to_owned(), port))
}

/// Timeouts and HTTP/2 keepalive of a channel to another cluster process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChannelOptions {
    /// Limit on dialing plus the TLS handshake.
    pub connect_timeout: Duration,
    /// Deadline of each request, sent to the server as `grpc-timeout` too.
    pub request_timeout: Duration,
    /// Interval of HTTP/2 PINGs, sent even while idle so a dead peer is noticed before use.
    pub keep_alive_interval: Duration,
    /// How long to wait for a PING acknowledgement before closing the connection.
    pub keep_alive_timeout: Duration,
    /// The address connections are made from; `None` lets the kernel choose. A chaos harness
    /// dials its observers from an address of their own so that packet filters can exempt them.
    pub local_address: Option<IpAddr>,
}

impl Default for ChannelOptions {
    /// 5 s to connect, 30 s per request, a PING every 10 s answered within 20 s.
    fn default() -> Self {
        ChannelOptions {
            connect_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(30),
            keep_alive_interval: Duration::from_secs(10),
            keep_alive_timeout: Duration::from_secs(20),
            local_address: None,
        }
    }
}

/// Connects to `address` and returns the channel once the connection is up.
///
/// `address` is `host:port`, optionally with an `http://` or `https://` scheme that is ignored:
/// with `tls` (from [`TlsConfig::client_config`](crate::TlsConfig::client_config)) the channel
/// speaks mutual TLS, without it plaintext. Requests carry the `https` scheme over TLS.
///
/// # Errors
///
/// [`Error::InvalidAddress`] for an address without host and port, [`Error::Connect`] when the
/// connection cannot be set up within `options.connect_timeout`.
pub async fn connect(
    address: &str,
    tls: Option<Arc<ClientConfig>>,
    options: &ChannelOptions,
) -> Result<Channel, Error> {
    let endpoint = endpoint(address, tls.is_some(), options)?;
    let connected = match tls {
        Some(config) => {
            endpoint
                .connect_with_connector(
                    TlsConnector::new(config).with_local_address(options.local_address),
                )
                .await
        }
        None => endpoint.connect().await,
    };
    connected.map_err(|source| Error::Connect {
        address: address.to_owned(),
        source,
    })
}

/// Like [`connect`], but returns at once; the connection is made on first use and remade after
/// failures, so this suits peers that may not be up yet.
///
/// # Errors
///
/// [`Error::InvalidAddress`] for an address without host and port.
pub fn connect_lazy(
    address: &str,
    tls: Option<Arc<ClientConfig>>,
    options: &ChannelOptions,
) -> Result<Channel, Error> {
    let endpoint = endpoint(address, tls.is_some(), options)?;
    Ok(match tls {
        Some(config) => endpoint.connect_with_connector_lazy(
            TlsConnector::new(config).with_local_address(options.local_address),
        ),
        None => endpoint.connect_lazy(),
    })
}

/// The tonic endpoint for `address` with `options` applied.
///
/// Over TLS the endpoint's own URI stays `http://`, because tonic refuses an `https` URI it has
/// no TLS configuration for; our [`TlsConnector`] does the TLS, and the request origin is set
/// to `https://` so servers see the truth.
fn endpoint(address: &str, tls: bool, options: &ChannelOptions) -> Result<Endpoint, Error> {
    let invalid = |reason| Error::InvalidAddress {
        address: address.to_owned(),
        reason,
    };
    let authority = address
        .strip_prefix("https://")
        .or_else(|| address.strip_prefix("http://"))
        .unwrap_or(address)
        .trim_end_matches('/');
    let uri: Uri = format!("http://{authority}")
        .parse()
        .map_err(|_| invalid("expected host:port"))?;
    host_and_port(&uri)?;
    if uri.path() != "/" {
        return Err(invalid("expected host:port without a path"));
    }
    let mut endpoint = Endpoint::from(uri)
        .connect_timeout(options.connect_timeout)
        .timeout(options.request_timeout)
        .http2_keep_alive_interval(options.keep_alive_interval)
        .keep_alive_timeout(options.keep_alive_timeout)
        .keep_alive_while_idle(true)
        .tcp_nodelay(true)
        .local_address(options.local_address);
    if tls {
        let origin: Uri = format!("https://{authority}")
            .parse()
            .map_err(|_| invalid("expected host:port"))?;
        endpoint = endpoint.origin(origin);
    }
    Ok(endpoint)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_and_port_strips_ipv6_brackets() {
        let uri: Uri = "http://[::1]:8032".parse().unwrap();
        assert_eq!(host_and_port(&uri).unwrap(), ("::1".to_owned(), 8032));
        let uri: Uri = "https://rm1.example.com:8033".parse().unwrap();
        assert_eq!(
            host_and_port(&uri).unwrap(),
            ("rm1.example.com".to_owned(), 8033)
        );
    }

    #[test]
    fn address_without_port_is_refused() {
        let err = endpoint("rm1.example.com", true, &ChannelOptions::default()).unwrap_err();
        assert!(
            matches!(&err, Error::InvalidAddress { address, reason: "no port" } if address.contains("rm1.example.com")),
            "{err:?}"
        );
    }

    #[test]
    fn tls_endpoint_uri_is_http_so_tonic_leaves_tls_to_the_connector() {
        let endpoint =
            endpoint("https://127.0.0.1:8032", true, &ChannelOptions::default()).unwrap();
        assert_eq!(endpoint.uri().to_string(), "http://127.0.0.1:8032/");
    }

    #[tokio::test]
    async fn dials_from_the_local_address_when_one_is_set() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let observer: IpAddr = "127.0.0.2".parse().unwrap();
        let (dialed, accepted) =
            tokio::join!(dial("127.0.0.1", port, Some(observer)), listener.accept());
        dialed.unwrap();
        assert_eq!(accepted.unwrap().1.ip(), observer);
        let (dialed, accepted) = tokio::join!(dial("127.0.0.1", port, None), listener.accept());
        dialed.unwrap();
        assert_eq!(accepted.unwrap().1.ip(), IpAddr::from([127, 0, 0, 1]));
        // An IPv4 local address cannot reach an IPv6-only host.
        let err = dial("::1", port, Some(observer)).await.unwrap_err();
        assert!(
            err.to_string().contains("no address of the family"),
            "{err}"
        );
    }
}
