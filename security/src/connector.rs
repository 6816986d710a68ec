//! The client side of the transport: TLS dialing for tonic channels, and channel construction
//! with the inter-node keepalive and timeout policy.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use http::Uri;
use hyper_util::rt::TokioIo;
use rustls::ClientConfig;
use rustls::pki_types::ServerName;
use tokio::net::TcpStream;
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
        }
    }
}

impl tower::Service<Uri> for TlsConnector {
    type Response = TokioIo<TlsStream<TcpStream>>;
    type Error = Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Error>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Error>> {
        Poll::Ready(Ok(()))
    }

    /// Dials and handshakes; cancelling the future closes the socket.
    ///
    /// Errors: [`Error::InvalidAddress`] without a host and port, [`Error::Dial`] when TCP
    /// fails, [`Error::TlsHandshake`] when the server's certificate does not verify or the
    /// server refuses us during the handshake. With TLS 1.3 a server's refusal of *our*
    /// certificate may only surface on the first request.
    fn call(&mut self, uri: Uri) -> Self::Future {
        let connector = self.connector.clone();
        Box::pin(async move {
            let (host, port) = host_and_port(&uri)?;
            let address = format!("{host}:{port}");
            let server_name =
                ServerName::try_from(host.clone()).map_err(|_| Error::InvalidAddress {
                    address: uri.to_string(),
                    reason: "the host is neither a DNS name nor an IP address",
                })?;
            let tcp = TcpStream::connect((host.as_str(), port))
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
            let tls = connector
                .connect(server_name, tcp)
                .await
                .map_err(|source| Error::TlsHandshake { address, source })?;
            Ok(TokioIo::new(tls))
        })
    }
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
}

impl Default for ChannelOptions {
    /// 5 s to connect, 30 s per request, a PING every 10 s answered within 20 s.
    fn default() -> Self {
        ChannelOptions {
            connect_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(30),
            keep_alive_interval: Duration::from_secs(10),
            keep_alive_timeout: Duration::from_secs(20),
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
                .connect_with_connector(TlsConnector::new(config))
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
        Some(config) => endpoint.connect_with_connector_lazy(TlsConnector::new(config)),
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
        .tcp_nodelay(true);
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
}
