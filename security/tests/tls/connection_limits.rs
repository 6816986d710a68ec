//! The listener's limits, as configured: connections per identity, handshakes at once, idle
//! time. Clients here are raw sockets, so each connection is one the test controls.

use std::sync::Arc;
use std::time::Duration;

use rustls::ClientConfig;
use rustls::pki_types::ServerName;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::net::TcpStream;
use tokio::time::{Instant, timeout};
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;
use yarn_security::{ConnectionLimits, Role, TlsConfig};

use crate::support::{TestServer, conf_for, must_make_pki, must_serve_alice};

/// How long a test waits for what must happen before declaring it stuck; a guard against
/// hanging, far above the time anything here takes.
const STUCK: Duration = Duration::from_secs(20);

/// What the server did with a connection.
#[derive(Debug, PartialEq, Eq)]
enum Fate {
    /// It serves it: its HTTP/2 server speaks first, with its SETTINGS frame.
    Served,
    /// It closed it.
    Closed,
}

/// Opens a connection to `server` and completes the TLS handshake presenting `client`'s
/// certificate. With TLS 1.3 the client is done before the server has checked anything.
async fn must_handshake(server: &TestServer, client: Arc<ClientConfig>) -> TlsStream<TcpStream> {
    let tcp = TcpStream::connect(server.addr).await.unwrap();
    let name = ServerName::try_from("127.0.0.1").unwrap();
    TlsConnector::from(client).connect(name, tcp).await.unwrap()
}

/// Waits for the server to either speak on `stream` or close it.
async fn fate(stream: &mut (impl AsyncRead + Unpin)) -> Fate {
    let mut byte = [0; 1];
    let read = timeout(STUCK, stream.read(&mut byte))
        .await
        .expect("the server neither served nor closed the connection");
    match read {
        Ok(0) | Err(_) => Fate::Closed,
        Ok(_) => Fate::Served,
    }
}

/// Reads and discards whatever the server sends until it closes `stream`.
async fn must_be_closed(stream: &mut (impl AsyncRead + Unpin)) {
    let mut buffer = [0; 1024];
    let closed = async {
        while let Ok(read) = stream.read(&mut buffer).await {
            if read == 0 {
                break;
            }
        }
    };
    timeout(STUCK, closed)
        .await
        .expect("the server kept an idle connection open");
}

#[tokio::test]
async fn connections_beyond_the_per_identity_limit_are_closed_and_other_identities_get_in() {
    let pki = must_make_pki();
    let tls = pki.tls_config_with(
        Role::ResourceManager,
        "rm1",
        &[("yarn.tls.max-connections-per-identity", "3")],
    );
    let server = TestServer::start(&tls).await;
    let h1 = pki
        .tls_config(Role::NodeManager, "h1")
        .client_config()
        .unwrap();

    tracing::info!("--- h1 opens five connections, one after another");
    let mut served = Vec::new();
    let mut closed = 0;
    for _ in 0..5 {
        let mut stream = must_handshake(&server, h1.clone()).await;
        match fate(&mut stream).await {
            Fate::Served => served.push(stream),
            Fate::Closed => closed += 1,
        }
    }
    assert_eq!((served.len(), closed), (3, 2));

    tracing::info!("--- another identity still gets in while h1 holds its three");
    must_serve_alice(&pki, &server).await;

    tracing::info!("--- a connection that ends gives its place back");
    drop(served.pop());
    // The server learns of the close on its own time: retry until h1 is let in again.
    let deadline = Instant::now() + STUCK;
    loop {
        let mut stream = must_handshake(&server, h1.clone()).await;
        if fate(&mut stream).await == Fate::Served {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "h1 was not let in again after closing a connection"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    drop(served);
}

#[tokio::test]
async fn a_tls_connection_that_carries_no_bytes_is_closed_after_the_idle_time() {
    let pki = must_make_pki();
    let tls = pki.tls_config_with(
        Role::ResourceManager,
        "rm1",
        &[("ipc.client.connection.maxidletime", "50")],
    );
    assert_eq!(
        tls.connection_limits().idle_timeout,
        Duration::from_millis(100),
        "twice the client idle time, as Hadoop's server"
    );
    let server = TestServer::start(&tls).await;
    let alice = pki.tls_config(Role::User, "alice").client_config().unwrap();

    let mut stream = must_handshake(&server, alice).await;
    assert_eq!(fate(&mut stream).await, Fate::Served);
    // Say nothing, not even the HTTP/2 preface: the server must hang up.
    must_be_closed(&mut stream).await;
    assert!(server.is_serving());
}

#[tokio::test]
async fn a_plaintext_connection_that_carries_no_bytes_is_closed_after_the_idle_time() {
    let mut conf = conf_for(&yarn_security::TlsFiles {
        ca_cert: "/nonexistent/ca.pem".into(),
        cert: "/nonexistent/cert.pem".into(),
        key: "/nonexistent/key.pem".into(),
    });
    conf.set("yarn.tls.enabled", "false");
    conf.set("ipc.client.connection.maxidletime", "50");
    let server = TestServer::start(&TlsConfig::from_conf(&conf).unwrap()).await;

    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    assert_eq!(fate(&mut stream).await, Fate::Served);
    must_be_closed(&mut stream).await;
    assert!(server.is_serving());
}

#[tokio::test]
async fn clients_beyond_the_pending_handshake_limit_wait_and_are_then_served() {
    let pki = must_make_pki();
    let tls = pki.tls_config_with(
        Role::ResourceManager,
        "rm1",
        &[("yarn.tls.max-pending-handshakes", "2")],
    );
    let limits = tls.connection_limits();
    assert_eq!(limits.max_pending_handshakes, 2);
    let server = TestServer::start_with(&tls, |incoming| {
        incoming.with_limits(ConnectionLimits {
            handshake_timeout: Duration::from_millis(200),
            ..limits
        })
    })
    .await;

    // Four clients that never start their handshake: two hold both places until they time out,
    // two more wait behind them.
    let mut silent = Vec::new();
    for _ in 0..4 {
        silent.push(TcpStream::connect(server.addr).await.unwrap());
    }

    must_serve_alice(&pki, &server).await;
    drop(silent);
}
