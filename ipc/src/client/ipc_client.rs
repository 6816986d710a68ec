//! [`IpcClient`]: one connection to a Hadoop IPC server, calls one after another.

use bytes::Bytes;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpStream, ToSocketAddrs};

use super::frame_stream::FrameStream;
use super::token_handshake::authenticate_with_token;
use crate::pb::{IpcConnectionContextProto, RequestHeaderProto, UserInformationProto};
use crate::yarn_protocol::YARN_PROTOCOL_VERSION;
use crate::{AuthProtocol, ClientAuth, ClientError, Preamble, RequestFrame};

/// What Hadoop 3's client sends as the retry count of a first attempt.
const FIRST_ATTEMPT: i32 = 0;

/// A Hadoop IPC (version 9, `ProtobufRpcEngine2`) client connection for one protocol, as
/// Hadoop 3's `Client` opens and uses it.
///
/// [`open`](Self::open) sends the preamble, authenticates ([`ClientAuth`]: SIMPLE names the
/// user in the connection context; TOKEN runs SASL DIGEST-MD5 and checks the server's proof)
/// and sends the connection context. [`call`](Self::call) then sends one call at a time and
/// waits for its answer: call ids count up from 0, every call carries the connection's random
/// 16-byte client id and retry count 0.
///
/// Guarantees:
/// - An answer is returned only for the call just sent (same call id); anything else is
///   [`ClientError::OutOfTurn`].
/// - An ERROR answer is [`ClientError::Remote`] with the server's Java exception class and
///   message, and the connection stays usable; a FATAL answer, an I/O or codec failure, or a
///   call future dropped before its answer arrived leaves the connection unusable: later calls
///   fail with [`ClientError::Broken`] without touching the wire.
/// - No timeout of its own: wrap calls in `tokio::time::timeout` (dropping the call breaks the
///   connection as above).
pub struct IpcClient<S = TcpStream> {
    stream: FrameStream<S>,
    protocol: String,
    client_id: [u8; 16],
    next_call_id: i32,
    broken: bool,
}

impl IpcClient<TcpStream> {
    /// Connects to `addr` over TCP (without Nagle's delay, as Hadoop's `ipc.client.tcpnodelay`
    /// default) and [`open`](Self::open)s the connection for `protocol`.
    ///
    /// # Errors
    ///
    /// [`ClientError::Io`] when the connection cannot be made; those of [`open`](Self::open).
    pub async fn connect(
        addr: impl ToSocketAddrs,
        protocol: &str,
        auth: &ClientAuth,
    ) -> Result<Self, ClientError> {
        let io = |source| ClientError::Io {
            during: "connecting",
            source,
        };
        let stream = TcpStream::connect(addr).await.map_err(io)?;
        stream.set_nodelay(true).map_err(io)?;
        Self::open(stream, protocol, auth).await
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> IpcClient<S> {
    /// Opens a connection on `stream` for `protocol` (such as
    /// [`APPLICATION_MASTER_PROTOCOL`](crate::yarn_protocol::APPLICATION_MASTER_PROTOCOL)):
    /// the preamble, the authentication `auth` asks for, then the connection context (which
    /// names the user under SIMPLE, and nobody under TOKEN: the token names the user).
    ///
    /// # Errors
    ///
    /// [`ClientError::Remote`] (FATAL) when the server refuses the authentication, with its
    /// exception class; the other [`ClientError`]s of the token exchange.
    pub async fn open(stream: S, protocol: &str, auth: &ClientAuth) -> Result<Self, ClientError> {
        let mut stream = FrameStream::new(stream);
        let auth_protocol = match auth {
            ClientAuth::Simple { .. } => AuthProtocol::None,
            ClientAuth::Token { .. } => AuthProtocol::Sasl,
        };
        let preamble = Preamble {
            service_class: 0,
            auth_protocol,
        };
        stream.send(&preamble.encode(), "opening").await?;
        let user_info = match auth {
            ClientAuth::Simple { user } => Some(UserInformationProto {
                effective_user: Some(user.clone()),
                real_user: None,
            }),
            ClientAuth::Token {
                identifier,
                password,
            } => {
                authenticate_with_token(&mut stream, identifier, password).await?;
                None
            }
        };
        let client_id: [u8; 16] = rand::random();
        let context = IpcConnectionContextProto {
            user_info,
            protocol: Some(protocol.to_owned()),
        };
        stream
            .send(&RequestFrame::context(&client_id, &context), "opening")
            .await?;
        Ok(IpcClient {
            stream,
            protocol: protocol.to_owned(),
            client_id,
            next_call_id: 0,
            broken: false,
        })
    }

    /// Calls `method` of the connection's protocol with `request`, an encoded request message,
    /// and returns the encoded response message.
    ///
    /// # Errors
    ///
    /// [`ClientError::Remote`] for the server's ERROR or FATAL answer;
    /// [`ClientError::Broken`] after an earlier failure; otherwise the I/O, codec and
    /// out-of-turn errors of a connection that is then unusable.
    pub async fn call(&mut self, method: &str, request: &[u8]) -> Result<Bytes, ClientError> {
        if self.broken {
            return Err(ClientError::Broken);
        }
        // Set until the answer is in: an error or a dropped future leaves it set.
        self.broken = true;
        let call_id = self.next_call_id;
        self.next_call_id = self.next_call_id.wrapping_add(1) & i32::MAX;
        let frame = RequestFrame::call(
            &RequestFrame::header(call_id, FIRST_ATTEMPT, &self.client_id),
            &RequestHeaderProto {
                method_name: method.to_owned(),
                declaring_class_protocol_name: self.protocol.clone(),
                client_protocol_version: YARN_PROTOCOL_VERSION,
            },
            request,
        );
        self.stream.send(&frame, "calling").await?;
        let (header, answer) = self.stream.answer("waiting for an answer").await?;
        let refusal = ClientError::check_status(&header);
        // A FATAL answer refuses the connection, whatever call id it carries (-1 for one
        // refused before any call was read); the connection stays broken.
        if let Err(fatal @ ClientError::Remote { fatal: true, .. }) = refusal {
            return Err(fatal);
        }
        if header.call_id as i32 != call_id {
            return Err(ClientError::OutOfTurn(format!(
                "the answer to call {call_id} came with call id {}",
                header.call_id as i32
            )));
        }
        if let Err(error) = refusal {
            self.broken = false;
            return Err(error);
        }
        let answer = answer.ok_or_else(|| {
            ClientError::OutOfTurn(format!("a SUCCESS answer to call {call_id} without a body"))
        })?;
        self.broken = false;
        Ok(answer)
    }

    /// The connection's client id, echoed in every answer.
    pub fn client_id(&self) -> &[u8; 16] {
        &self.client_id
    }

    /// The protocol every call names.
    pub fn protocol(&self) -> &str {
        &self.protocol
    }
}
