//! [`RestClient`]: one HTTP/2 connection over the cluster's mutual TLS to a ResourceManager's
//! web address, for timing REST calls.

use std::time::Duration;

use anyhow::Context;
use http_body_util::{BodyExt, Empty};
use hyper::body::Bytes;
use hyper::client::conn::http2::SendRequest;
use hyper::{Request, StatusCode};
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio::net::TcpStream;
use tokio_rustls::rustls::pki_types::ServerName;
use yarn_security::TlsConfig;

/// The longest one request may take, answer body included, before it counts as failed.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// The longest dialing plus the TLS handshake may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// One answer: its status and its whole body.
#[derive(Debug, Clone)]
pub struct RestAnswer {
    /// The HTTP status.
    pub status: StatusCode,
    /// The body, as sent (the API compresses nothing).
    pub body: Bytes,
}

/// One HTTP/2 connection to `https://<address>`, presenting a certificate of the cluster.
///
/// Guarantees: the connection is made (TCP, TLS and the HTTP/2 preface) before
/// [`connect`](Self::connect) returns, so no request timed later pays for it; with TLS 1.3 the
/// server may still refuse the certificate afterwards, which the first request reports.
/// Requests on one client are sent one at a time, so each concurrent client is its own
/// connection. Clones share the connection; its task ends when the last of them is dropped.
#[derive(Debug, Clone)]
pub struct RestClient {
    address: String,
    sender: SendRequest<Empty<Bytes>>,
}

impl RestClient {
    /// Connects to `address` (`host:port`) with `tls`'s client certificate.
    ///
    /// # Errors
    ///
    /// When `tls` is disabled, `address` has no port, or the connection or the HTTP/2
    /// handshake fails or takes longer than 10 seconds.
    pub async fn connect(address: &str, tls: &TlsConfig) -> anyhow::Result<Self> {
        let config = tls
            .client_config()
            .context("the REST benchmark speaks mutual TLS, but TLS is disabled")?;
        let host = address
            .rsplit_once(':')
            .map(|(host, _)| host.trim_start_matches('[').trim_end_matches(']'))
            .with_context(|| format!("the web address {address:?} has no port"))?;
        let server_name = ServerName::try_from(host.to_owned())
            .with_context(|| format!("the host of the web address {address:?}"))?;
        let handshake = async {
            let tcp = TcpStream::connect(address).await?;
            // Requests are small and latency-bound: never wait to coalesce writes.
            tcp.set_nodelay(true)?;
            let tls = tokio_rustls::TlsConnector::from(config)
                .connect(server_name, tcp)
                .await?;
            let (sender, connection) =
                hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(tls))
                    .await?;
            tokio::spawn(async move {
                if let Err(err) = connection.await {
                    tracing::debug!(%err, "a REST benchmark connection ended");
                }
            });
            anyhow::Ok(sender)
        };
        let sender = tokio::time::timeout(CONNECT_TIMEOUT, handshake)
            .await
            .with_context(|| format!("connecting to {address} took over {CONNECT_TIMEOUT:?}"))?
            .with_context(|| format!("connecting to https://{address}"))?;
        Ok(Self {
            address: address.to_owned(),
            sender,
        })
    }

    /// `GET path` (with its query), answer read to the end.
    ///
    /// # Errors
    ///
    /// When the request cannot be sent, the answer or its body fails, or the whole exchange
    /// takes longer than [`REQUEST_TIMEOUT`]. A status other than 200 is an answer, not an
    /// error.
    pub async fn get(&mut self, path: &str) -> anyhow::Result<RestAnswer> {
        let exchange = async {
            let request = Request::get(format!("https://{}{path}", self.address))
                .header(hyper::header::ACCEPT, "application/json")
                .body(Empty::new())?;
            self.sender.ready().await?;
            let response = self.sender.send_request(request).await?;
            let status = response.status();
            let body = response.into_body().collect().await?.to_bytes();
            anyhow::Ok(RestAnswer { status, body })
        };
        tokio::time::timeout(REQUEST_TIMEOUT, exchange)
            .await
            .with_context(|| format!("GET {path} took over {REQUEST_TIMEOUT:?}"))?
            .with_context(|| format!("GET {path}"))
    }

    /// `GET path`, insisting on 200.
    ///
    /// # Errors
    ///
    /// Those of [`get`](Self::get), and any other status (the message quotes the body's start).
    pub async fn get_ok(&mut self, path: &str) -> anyhow::Result<Bytes> {
        let answer = self.get(path).await?;
        anyhow::ensure!(
            answer.status == StatusCode::OK,
            "GET {path} answered {}: {}",
            answer.status,
            String::from_utf8_lossy(&answer.body[..answer.body.len().min(400)])
        );
        Ok(answer.body)
    }
}
