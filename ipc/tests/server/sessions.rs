//! Whole sessions against a server on 127.0.0.1: what a Hadoop client sees, header by header.

use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use yarn_ipc::pb::rpc_response_header_proto::{RpcErrorCodeProto, RpcStatusProto};
use yarn_ipc::yarn_protocol::APPLICATION_CLIENT_PROTOCOL;
use yarn_ipc::{AuthPolicy, IpcServer, IpcServerConfig, Protocol, RequestFrame};

use crate::client::{Answer, CLIENT_ID, TestClient};
use crate::dispatcher::TestDispatcher;

/// A server on a port of its own, stopped when dropped.
pub(crate) struct RunningServer {
    addr: SocketAddr,
    dispatcher: TestDispatcher,
    shutdown: CancellationToken,
    tasks: JoinSet<()>,
}

impl RunningServer {
    pub(crate) async fn start(config: IpcServerConfig) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("a free port");
        let addr = listener.local_addr().expect("bound");
        let dispatcher = TestDispatcher::default();
        let server = IpcServer::new(dispatcher.clone(), config);
        let shutdown = CancellationToken::new();
        let mut tasks = JoinSet::new();
        let token = shutdown.clone();
        tasks.spawn(async move { server.serve(listener, token).await });
        RunningServer {
            addr,
            dispatcher,
            shutdown,
            tasks,
        }
    }

    pub(crate) fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The permits `slow` calls wait for.
    pub(crate) fn release(&self) -> &Semaphore {
        &self.dispatcher.release
    }

    pub(crate) async fn client(&self) -> TestClient<TcpStream> {
        TestClient::new(
            TcpStream::connect(self.addr)
                .await
                .expect("the server accepts"),
        )
    }

    /// A client past the preamble and context, as `alice`.
    async fn simple_client(&self) -> TestClient<TcpStream> {
        let mut client = self.client().await;
        client.open_simple("alice").await;
        client
    }
}

impl Drop for RunningServer {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

fn config() -> IpcServerConfig {
    let mut config = IpcServerConfig::new(AuthPolicy::simple_only());
    config.max_data_length = 64 * 1024;
    config
}

pub(crate) fn assert_success(answer: &Answer, call_id: i32, body: &[u8]) {
    let header = &answer.header;
    assert_eq!(header.status(), RpcStatusProto::Success, "{header:?}");
    assert_eq!(header.call_id, call_id as u32);
    assert_eq!(header.server_ipc_version_num, Some(9));
    assert_eq!(
        header.client_id.as_deref(),
        Some(&CLIENT_ID[..]),
        "the client id is echoed"
    );
    assert_eq!(header.retry_count, Some(0), "the retry count is echoed");
    assert_eq!(header.exception_class_name, None);
    assert_eq!(answer.body.as_deref(), Some(body));
}

pub(crate) fn assert_failure(
    answer: &Answer,
    status: RpcStatusProto,
    call_id: i32,
    code: RpcErrorCodeProto,
    class: &str,
    message: &str,
) {
    let header = &answer.header;
    assert_eq!(header.status(), status, "{header:?}");
    assert_eq!(header.call_id, call_id as u32);
    assert_eq!(header.server_ipc_version_num, Some(9));
    assert_eq!(header.error_detail(), code);
    assert_eq!(header.exception_class_name.as_deref(), Some(class));
    let text = header.error_msg.as_deref().unwrap_or_default();
    assert!(text.contains(message), "{text:?} lacks {message:?}");
    assert_eq!(answer.body, None, "a failure carries no answer");
}

#[tokio::test]
async fn a_simple_session_calls_fails_pings_and_carries_on() {
    let server = RunningServer::start(config()).await;
    let mut client = server.simple_client().await;

    tracing::info!("--- a served call echoes the call id, client id and retry count");
    client
        .call(0, APPLICATION_CLIENT_PROTOCOL, "echo", b"\x0a\x02hi")
        .await;
    assert_success(&client.answer().await, 0, b"\x0a\x02hi");
    client
        .call(1, APPLICATION_CLIENT_PROTOCOL, "whoami", b"")
        .await;
    assert_success(&client.answer().await, 1, b"alice");

    tracing::info!("--- an unknown method is an ERROR and the connection stays open");
    client
        .call(2, APPLICATION_CLIENT_PROTOCOL, "getFrobs", b"")
        .await;
    let answer = client.answer().await;
    assert_failure(
        &answer,
        RpcStatusProto::Error,
        2,
        RpcErrorCodeProto::ErrorNoSuchMethod,
        "org.apache.hadoop.ipc.RpcNoSuchMethodException",
        "Unknown method getFrobs called on org.apache.hadoop.yarn.api.ApplicationClientProtocolPB protocol.",
    );
    assert_eq!(answer.header.client_id.as_deref(), Some(&CLIENT_ID[..]));

    tracing::info!("--- an unknown protocol is an ERROR too");
    client
        .call(3, "org.example.FrobProtocolPB", "frob", b"")
        .await;
    assert_failure(
        &client.answer().await,
        RpcStatusProto::Error,
        3,
        RpcErrorCodeProto::ErrorNoSuchProtocol,
        "org.apache.hadoop.ipc.RpcNoSuchProtocolException",
        "Unknown protocol: org.example.FrobProtocolPB",
    );

    tracing::info!("--- an operation's refusal names its exception class");
    client
        .call(4, APPLICATION_CLIENT_PROTOCOL, "standby", b"")
        .await;
    assert_failure(
        &client.answer().await,
        RpcStatusProto::Error,
        4,
        RpcErrorCodeProto::ErrorApplication,
        "org.apache.hadoop.ipc.StandbyException",
        "rm1 is in standby state",
    );
    client
        .call(5, APPLICATION_CLIENT_PROTOCOL, "badRequest", b"")
        .await;
    assert_failure(
        &client.answer().await,
        RpcStatusProto::Error,
        5,
        RpcErrorCodeProto::ErrorRpcServer,
        "org.apache.hadoop.ipc.RpcServerException",
        "badRequest: the request does not parse",
    );

    tracing::info!("--- a dispatcher that panics still answers its client, with an ERROR");
    client
        .call(6, APPLICATION_CLIENT_PROTOCOL, "panic", b"")
        .await;
    assert_failure(
        &client.answer().await,
        RpcStatusProto::Error,
        6,
        RpcErrorCodeProto::ErrorRpcServer,
        "org.apache.hadoop.ipc.RpcServerException",
        "the server failed while serving this call",
    );

    tracing::info!("--- a ping gets no answer: the next frame answers the next call");
    client.send(&RequestFrame::ping(&CLIENT_ID)).await;
    client
        .call(6, APPLICATION_CLIENT_PROTOCOL, "echo", b"after ping")
        .await;
    assert_success(&client.answer().await, 6, b"after ping");
}

#[tokio::test]
async fn calls_of_one_connection_are_answered_as_they_finish() {
    let server = RunningServer::start(config()).await;
    let mut client = server.simple_client().await;
    client
        .call(1, APPLICATION_CLIENT_PROTOCOL, "slow", b"")
        .await;
    client
        .call(2, APPLICATION_CLIENT_PROTOCOL, "echo", b"quick")
        .await;
    assert_success(&client.answer().await, 2, b"quick");
    server.dispatcher.release.add_permits(1);
    assert_success(&client.answer().await, 1, b"slow");
}

#[tokio::test]
async fn a_connection_at_its_call_limit_stops_reading() {
    let mut config = config();
    config.max_calls_per_connection = 1;
    let server = RunningServer::start(config).await;
    let mut client = server.simple_client().await;
    client
        .call(1, APPLICATION_CLIENT_PROTOCOL, "slow", b"")
        .await;
    client
        .call(2, APPLICATION_CLIENT_PROTOCOL, "echo", b"waits")
        .await;
    // The echo is not even read while the slow call holds the only slot; an answer to it
    // now would mean the limit does not hold. (A missing answer is what is asserted; the
    // wait only bounds how long the test looks for one.)
    client.must_stay_silent(Duration::from_millis(300)).await;
    server.dispatcher.release.add_permits(1);
    assert_success(&client.answer().await, 1, b"slow");
    assert_success(&client.answer().await, 2, b"waits");
}

#[tokio::test]
async fn a_frame_over_the_limit_gets_a_fatal_answer_and_a_close() {
    let server = RunningServer::start(config()).await;
    let mut client = server.simple_client().await;
    client
        .call(0, APPLICATION_CLIENT_PROTOCOL, "echo", b"fine")
        .await;
    assert_success(&client.answer().await, 0, b"fine");

    let too_long = 64 * 1024 + 1;
    client.send(&(too_long as u32).to_be_bytes()).await;
    client.send(&vec![0_u8; 4096]).await;
    let answer = client.answer().await;
    assert_failure(
        &answer,
        RpcStatusProto::Fatal,
        -1,
        RpcErrorCodeProto::FatalInvalidRpcHeader,
        "java.io.IOException",
        "a frame of 65537 bytes is longer than the maximum of 65536 bytes (ipc.maximum.data.length)",
    );
    assert_eq!(answer.header.call_id, 0xFFFF_FFFF);
    client.must_see_close().await;

    tracing::info!("--- the server serves the next connection");
    let mut other = server.simple_client().await;
    other
        .call(0, APPLICATION_CLIENT_PROTOCOL, "echo", b"still here")
        .await;
    assert_success(&other.answer().await, 0, b"still here");
}

#[tokio::test]
async fn garbage_after_the_preamble_gets_a_fatal_answer_and_a_close() {
    let server = RunningServer::start(config()).await;
    let mut client = server.client().await;
    client.send(b"hrpc\x09\x00\x00").await;
    client.send(b"\x00\x00\x00\x05garbage and more").await;
    assert_failure(
        &client.answer().await,
        RpcStatusProto::Fatal,
        -1,
        RpcErrorCodeProto::FatalDeserializingRequest,
        "org.apache.hadoop.ipc.RpcServerException",
        "Error decoding RpcRequestHeaderProto",
    );
    client.must_see_close().await;
}

#[tokio::test]
async fn a_sasl_client_is_refused_by_a_simple_only_server() {
    let server = RunningServer::start(config()).await;
    let mut client = server.client().await;
    client.send(b"hrpc\x09\x00\xdf").await;
    // Hadoop's client sends its NEGOTIATE at once, without waiting.
    client
        .send(&RequestFrame::sasl(&yarn_ipc::pb::RpcSaslProto {
            state: yarn_ipc::pb::rpc_sasl_proto::SaslState::Negotiate as i32,
            ..Default::default()
        }))
        .await;
    let answer = client.answer().await;
    assert_failure(
        &answer,
        RpcStatusProto::Fatal,
        -1,
        RpcErrorCodeProto::FatalUnauthorized,
        "org.apache.hadoop.security.AccessControlException",
        "SASL authentication is not enabled.  Available:[SIMPLE]",
    );
    assert_eq!(answer.header.client_id.as_deref(), Some(&b""[..]));
    assert_eq!(answer.header.retry_count, Some(-1));
    client.must_see_close().await;
}

#[tokio::test]
async fn a_peer_that_is_not_hadoop_is_closed_without_an_answer() {
    let server = RunningServer::start(config()).await;
    let mut client = server.client().await;
    client.send(b"\x16\x03\x01\x00\x05hello").await;
    client.must_see_close().await;
}

#[tokio::test]
async fn an_idle_connection_is_closed() {
    let mut config = config();
    config.idle_timeout = Duration::from_millis(100);
    let server = RunningServer::start(config).await;
    let mut client = server.client().await;
    client.must_see_close().await;
}

#[tokio::test]
async fn shutdown_closes_connections_and_drops_calls_in_flight() {
    let mut server = RunningServer::start(config()).await;
    let mut client = server.simple_client().await;
    client
        .call(1, APPLICATION_CLIENT_PROTOCOL, "slow", b"")
        .await;
    client
        .call(2, APPLICATION_CLIENT_PROTOCOL, "echo", b"before")
        .await;
    assert_success(&client.answer().await, 2, b"before");

    server.shutdown.cancel();
    client.must_see_close().await;
    let served = tokio::time::timeout(Duration::from_secs(10), server.tasks.join_next())
        .await
        .expect("serve returns after shutdown");
    assert!(served.expect("the serve task ran").is_ok());
    assert!(
        TcpStream::connect(server.addr).await.is_err(),
        "the listener is closed"
    );
}

#[tokio::test]
async fn a_connection_sniffed_elsewhere_is_served_with_its_read_ahead() {
    let (ours, theirs) = tokio::io::duplex(64 * 1024);
    let dispatcher = TestDispatcher::default();
    let server = IpcServer::new(dispatcher, config());
    let shutdown = CancellationToken::new();
    let mut tasks = JoinSet::new();

    tracing::info!("--- a daemon reads the first bytes, sniffs them and hands the stream over");
    let mut client = TestClient::new(theirs);
    client.open_simple("dave").await;
    let mut ours = ours;
    let mut first = [0_u8; 4];
    tokio::io::AsyncReadExt::read_exact(&mut ours, &mut first)
        .await
        .expect("the preamble's start");
    assert_eq!(Protocol::sniff(&first), Protocol::HadoopIpc);
    let token = shutdown.clone();
    tasks.spawn(async move {
        server
            .serve_connection(ours, None, Bytes::copy_from_slice(&first), token)
            .await
    });

    client
        .call(0, APPLICATION_CLIENT_PROTOCOL, "whoami", b"")
        .await;
    assert_success(&client.answer().await, 0, b"dave");
    shutdown.cancel();
    while tasks.join_next().await.is_some() {}
}

#[tokio::test]
async fn connections_handed_over_by_another_listener_are_served_until_the_senders_go() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a free port");
    let addr = listener.local_addr().expect("bound");
    let server = IpcServer::new(TestDispatcher::default(), config());
    let (handoff, handed_over) = tokio::sync::mpsc::channel(4);
    let shutdown = CancellationToken::new();
    let mut tasks = JoinSet::new();
    let token = shutdown.clone();
    tasks.spawn(async move { server.serve_handed_over(handed_over, token).await });

    tracing::info!("--- the listener's owner accepts and hands the stream over untouched");
    let connect = TcpStream::connect(addr);
    let (accepted, connected) = tokio::join!(listener.accept(), connect);
    let (stream, peer) = accepted.expect("accepted");
    handoff
        .send((stream, peer))
        .await
        .expect("the server takes it");
    let mut client = TestClient::new(connected.expect("connected"));
    client.open_simple("erin").await;
    client
        .call(0, APPLICATION_CLIENT_PROTOCOL, "whoami", b"")
        .await;
    assert_success(&client.answer().await, 0, b"erin");

    tracing::info!("--- without senders the server closes its connections and returns");
    drop(handoff);
    client.must_see_close().await;
    let served = tokio::time::timeout(Duration::from_secs(10), tasks.join_next())
        .await
        .expect("serve_handed_over returns once every sender is gone");
    assert!(served.expect("the serve task ran").is_ok());
    assert!(!shutdown.is_cancelled(), "the caller's token is left alone");
}

#[tokio::test]
async fn a_peer_that_never_finishes_its_set_up_is_closed_however_much_it_trickles() {
    let mut config = config();
    config.setup_timeout = Duration::from_millis(500);
    let server = RunningServer::start(config).await;
    let mut client = server.client().await;
    // The preamble, then a connection-context frame that never completes, a byte at a time.
    client.send(b"hrpc\x09\x00\x00").await;
    client.send(&[0, 0, 0x10, 0]).await;
    let trickle = async {
        for _ in 0..40 {
            tokio::time::sleep(Duration::from_millis(100)).await;
            if client.try_send(&[0]).await.is_err() {
                return;
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(10), trickle)
        .await
        .expect("the trickle ends");
    client.must_see_close().await;
}

#[tokio::test]
async fn a_set_up_frame_beyond_the_set_up_limit_is_refused_before_it_is_read() {
    let server = RunningServer::start(IpcServerConfig::new(AuthPolicy::simple_only())).await;
    let mut client = server.client().await;
    client.send(b"hrpc\x09\x00\x00").await;
    let length = yarn_ipc::MAX_SETUP_FRAME_LENGTH + 1;
    client.send(&length.to_be_bytes()).await;
    let answer = client.answer().await;
    assert_eq!(
        answer.header.status(),
        RpcStatusProto::Fatal,
        "{:?}",
        answer.header
    );
    assert!(
        answer
            .header
            .error_msg
            .as_deref()
            .unwrap_or_default()
            .contains(&length.to_string()),
        "{:?}",
        answer.header
    );
    client.must_see_close().await;
}
