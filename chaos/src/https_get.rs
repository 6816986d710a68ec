//! A minimal HTTP/1.1 GET over mutual TLS, for the NodeManagers' REST API.

use std::sync::Arc;
use std::time::Duration;

use rustls::ClientConfig;
use rustls::pki_types::ServerName;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::time::timeout;
use tokio_rustls::TlsConnector;

use crate::network_mode::OBSERVER_ADDRESS;

/// The largest response read, so a misbehaving server cannot exhaust memory.
const MAX_RESPONSE: usize = 8 * 1024 * 1024;

/// `client` (the harness user's TLS settings) offering HTTP/1.1 by ALPN instead of gRPC's `h2`.
pub fn http1_client(client: &ClientConfig) -> Arc<ClientConfig> {
    let mut config = client.clone();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Arc::new(config)
}

/// `GET path` on `address` (`127.0.0.1:<port>`) over TLS with `client`, within `deadline`,
/// dialing from [`OBSERVER_ADDRESS`] as every observer does; returns the status code and the
/// body.
///
/// # Errors
///
/// A message naming the address and what failed: connecting, the handshake, the exchange, the
/// deadline, or a response that is not HTTP/1.1.
pub async fn https_get(
    address: &str,
    client: Arc<ClientConfig>,
    path: &str,
    deadline: Duration,
) -> Result<(u16, Vec<u8>), String> {
    let exchange = async {
        let (host, port) = address
            .rsplit_once(':')
            .and_then(|(host, port)| Some((host, port.parse::<u16>().ok()?)))
            .ok_or_else(|| format!("{address} is not a host:port address"))?;
        let tcp = yarn_security::dial(host, port, Some(OBSERVER_ADDRESS))
            .await
            .map_err(|err| format!("connecting to {address} from {OBSERVER_ADDRESS}: {err}"))?;
        // Every cluster certificate names localhost besides its own name.
        let server = ServerName::try_from("localhost").map_err(|err| err.to_string())?;
        let mut tls = TlsConnector::from(client)
            .connect(server, tcp)
            .await
            .map_err(|err| format!("TLS handshake with {address}: {err}"))?;
        let request =
            format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
        tls.write_all(request.as_bytes())
            .await
            .map_err(|err| format!("sending to {address}: {err}"))?;
        let mut raw = Vec::new();
        let mut buffer = [0_u8; 16 * 1024];
        loop {
            let read = match tls.read(&mut buffer).await {
                Ok(read) => read,
                // Servers may close without TLS's close_notify once the response is sent.
                Err(err) if err.kind() == std::io::ErrorKind::UnexpectedEof => 0,
                Err(err) => return Err(format!("reading from {address}: {err}")),
            };
            if read == 0 {
                break;
            }
            raw.extend_from_slice(&buffer[..read]);
            if raw.len() > MAX_RESPONSE {
                return Err(format!("{address} answered more than {MAX_RESPONSE} bytes"));
            }
        }
        parse_response(&raw).map_err(|err| format!("{address}: {err}"))
    };
    timeout(deadline, exchange)
        .await
        .map_err(|_| format!("{address} did not answer within {deadline:?}"))?
}

/// The status code and body of a whole HTTP/1.1 response (`Content-Length`, chunked, or
/// delimited by the connection's end).
fn parse_response(raw: &[u8]) -> Result<(u16, Vec<u8>), String> {
    let split = raw
        .windows(4)
        .position(|window| window == b"\r\n\r\n")
        .ok_or("the response has no end of headers")?;
    let head = std::str::from_utf8(&raw[..split]).map_err(|_| "the headers are not UTF-8")?;
    let body = &raw[split + 4..];
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let status = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse::<u16>().ok())
        .filter(|_| status_line.starts_with("HTTP/1."))
        .ok_or_else(|| format!("{status_line:?} is not an HTTP/1.1 status line"))?;
    let header = |name: &str| {
        head.split("\r\n").skip(1).find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.trim()
                .eq_ignore_ascii_case(name)
                .then(|| value.trim().to_owned())
        })
    };
    if header("transfer-encoding").is_some_and(|value| value.eq_ignore_ascii_case("chunked")) {
        return Ok((status, dechunk(body)?));
    }
    match header("content-length") {
        Some(length) => {
            let length: usize = length
                .parse()
                .map_err(|_| format!("Content-Length {length:?} is not a number"))?;
            let body = body
                .get(..length)
                .ok_or_else(|| format!("the body is shorter than its Content-Length {length}"))?;
            Ok((status, body.to_vec()))
        }
        None => Ok((status, body.to_vec())),
    }
}

/// The payload of a chunked body: `<hex size>\r\n<bytes>\r\n` ... `0\r\n\r\n`.
fn dechunk(mut body: &[u8]) -> Result<Vec<u8>, String> {
    let mut payload = Vec::new();
    loop {
        let line_end = body
            .windows(2)
            .position(|window| window == b"\r\n")
            .ok_or("a chunk size line has no end")?;
        let size_text =
            std::str::from_utf8(&body[..line_end]).map_err(|_| "a chunk size is not text")?;
        let size_text = size_text.split(';').next().unwrap_or_default().trim();
        let size = usize::from_str_radix(size_text, 16)
            .map_err(|_| format!("{size_text:?} is not a chunk size"))?;
        body = &body[line_end + 2..];
        if size == 0 {
            return Ok(payload);
        }
        let chunk = body.get(..size).ok_or("a chunk is cut short")?;
        payload.extend_from_slice(chunk);
        body = body.get(size + 2..).ok_or("a chunk has no end")?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn responses_with_a_length_chunks_or_neither_give_their_body() {
        let sized = b"HTTP/1.1 200 OK\r\ncontent-length: 4\r\n\r\n{}{}";
        assert_eq!(parse_response(sized), Ok((200, b"{}{}".to_vec())));
        let chunked =
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\n\r\n";
        assert_eq!(parse_response(chunked), Ok((200, b"abcde".to_vec())));
        let open = b"HTTP/1.1 404 Not Found\r\n\r\ngone";
        assert_eq!(parse_response(open), Ok((404, b"gone".to_vec())));
    }

    #[test]
    fn broken_responses_say_what_is_wrong() {
        assert!(
            parse_response(b"HTTP/1.1 200 OK\r\n")
                .unwrap_err()
                .contains("end of headers")
        );
        assert!(
            parse_response(b"SSH-2.0\r\n\r\n")
                .unwrap_err()
                .contains("status line")
        );
        let short = b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nabc";
        assert!(parse_response(short).unwrap_err().contains("shorter"));
    }
}
