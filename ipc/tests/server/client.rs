//! A raw Hadoop IPC client for tests, written from the crate's codec as Hadoop 3's `Client`
//! frames its requests: it sends whatever bytes a test wants, well-formed or not, and asserts
//! on every header. Tests of well-behaved sessions use the crate's `IpcClient` instead.

use std::time::Duration;

use bytes::{Bytes, BytesMut};
use prost::Message;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use yarn_ipc::pb::rpc_response_header_proto::RpcStatusProto;
use yarn_ipc::pb::{
    IpcConnectionContextProto, RequestHeaderProto, RpcResponseHeaderProto, RpcSaslProto,
    UserInformationProto,
};
use yarn_ipc::{AuthProtocol, FrameDecoder, Preamble, RequestFrame, ResponseFrame};

/// How long a test waits for the server before it fails.
const PATIENCE: Duration = Duration::from_secs(10);

pub const CLIENT_ID: [u8; 16] = *b"yarn-ha-ipc-test";

pub struct TestClient<S> {
    stream: S,
    buffer: BytesMut,
}

/// One answer: its header and, on SUCCESS, the answer message.
#[derive(Debug)]
pub struct Answer {
    pub header: RpcResponseHeaderProto,
    pub body: Option<Bytes>,
}

impl<S: AsyncRead + AsyncWrite + Unpin> TestClient<S> {
    pub fn new(stream: S) -> Self {
        TestClient {
            stream,
            buffer: BytesMut::new(),
        }
    }

    pub async fn send(&mut self, bytes: &[u8]) {
        self.stream
            .write_all(bytes)
            .await
            .expect("the server takes bytes");
    }

    /// Sends `bytes`, or says why the server would not take them (it closed the connection).
    pub async fn try_send(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.stream.write_all(bytes).await
    }

    /// Sends the SIMPLE preamble and a context naming `user`.
    pub async fn open_simple(&mut self, user: &str) {
        let preamble = Preamble {
            service_class: 0,
            auth_protocol: AuthProtocol::None,
        };
        self.send(&preamble.encode()).await;
        let context = IpcConnectionContextProto {
            user_info: Some(UserInformationProto {
                effective_user: Some(user.into()),
                real_user: None,
            }),
            protocol: Some(yarn_ipc::yarn_protocol::APPLICATION_CLIENT_PROTOCOL.into()),
        };
        self.send(&RequestFrame::context(&CLIENT_ID, &context))
            .await;
    }

    /// Sends one call of `protocol.method` with `request`, retry count 0.
    pub async fn call(&mut self, call_id: i32, protocol: &str, method: &str, request: &[u8]) {
        let frame = RequestFrame::call(
            &RequestFrame::header(call_id, 0, &CLIENT_ID),
            &RequestHeaderProto {
                method_name: method.into(),
                declaring_class_protocol_name: protocol.into(),
                client_protocol_version: 1,
            },
            request,
        );
        self.send(&frame).await;
    }

    /// Reads the next answer, failing the test if none comes in time.
    pub async fn answer(&mut self) -> Answer {
        let decoder = FrameDecoder::new(u32::MAX >> 1);
        loop {
            if let Some(frame) = decoder
                .decode(&mut self.buffer)
                .expect("the server frames well")
            {
                let (header, body) =
                    ResponseFrame::decode_answer(frame).expect("a header and a delimited answer");
                return Answer { header, body };
            }
            let read = tokio::time::timeout(PATIENCE, self.stream.read_buf(&mut self.buffer))
                .await
                .expect("an answer in time")
                .expect("the connection reads");
            assert!(
                read > 0,
                "the server closed the connection instead of answering"
            );
        }
    }

    /// Reads the next answer, which must be a SASL SUCCESS, and returns its SASL message.
    pub async fn sasl_answer(&mut self) -> RpcSaslProto {
        let answer = self.answer().await;
        assert_eq!(answer.header.call_id as i32, yarn_ipc::SASL_CALL_ID);
        assert_eq!(
            answer.header.status(),
            RpcStatusProto::Success,
            "{:?}",
            answer.header
        );
        let body = answer.body.expect("a SASL message");
        RpcSaslProto::decode(body).expect("a well-formed SASL message")
    }

    /// Asserts the server closes the connection with nothing more to say.
    pub async fn must_see_close(&mut self) {
        let mut rest = Vec::new();
        let read = tokio::time::timeout(PATIENCE, self.stream.read_to_end(&mut rest))
            .await
            .expect("the server closes in time");
        match read {
            Ok(_) => assert!(
                self.buffer.is_empty() && rest.is_empty(),
                "unexpected bytes before the close: {:?} {rest:?}",
                self.buffer
            ),
            Err(err) => assert_eq!(err.kind(), std::io::ErrorKind::ConnectionReset, "{err}"),
        }
    }

    /// Asserts nothing arrives within `wait` (for answers that must not come).
    pub async fn must_stay_silent(&mut self, wait: Duration) {
        let read = tokio::time::timeout(wait, self.stream.read_buf(&mut self.buffer)).await;
        assert!(
            read.is_err(),
            "the server sent something: {:?}",
            self.buffer
        );
    }
}
