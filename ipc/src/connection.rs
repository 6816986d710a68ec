//! One connection's protocol, as a pure state machine: bytes in, actions out.

use std::net::SocketAddr;
use std::sync::Arc;

use bytes::{Bytes, BytesMut};

use crate::delimited::{decode_delimited, take_delimited};
use crate::frame::FrameDecoder;
use crate::pb::rpc_request_header_proto::OperationProto;
use crate::pb::rpc_response_header_proto::RpcErrorCodeProto;
use crate::pb::rpc_sasl_proto::{SaslAuth, SaslState};
use crate::pb::{
    IpcConnectionContextProto, RequestHeaderProto, RpcKindProto, RpcRequestHeaderProto,
    RpcSaslProto,
};
use crate::{
    AuthMethod, AuthPolicy, AuthProtocol, Authentication, Call, CallTag, Caller, CodecError,
    ExceptionClass, PREAMBLE_LEN, Preamble, ResponseFrame, RpcFailure, SaslExchange, SaslStep,
    SaslUser,
};
use crate::{CONNECTION_CONTEXT_CALL_ID, IPC_VERSION, PING_CALL_ID, SASL_CALL_ID};

/// What an HTTP client that hit the IPC port gets back, as Hadoop answers a `GET ` there.
const HTTP_ON_IPC_PORT: &[u8] = b"HTTP/1.1 404 Not Found\r\n\
Content-Type: text/plain\r\n\
Connection: close\r\n\r\n\
This port speaks Hadoop IPC, not HTTP. The web UI and REST API are on the webapp address.\r\n";

/// What the shell must do next, in order.
#[derive(Debug)]
pub enum ConnectionAction {
    /// Write these bytes to the peer (a whole frame, or the HTTP answer).
    Send(Bytes),
    /// Give this call to the dispatcher and write [`ResponseFrame::success`] or
    /// [`ResponseFrame::failure`] for it when it returns, in whatever order calls finish.
    Dispatch(Call),
    /// Stop reading, drop calls in flight, write what was sent before this, then close. Always
    /// the last action; the connection ignores any bytes given to it afterwards.
    Close(CloseReason),
}

/// Why a connection closed itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CloseReason {
    /// The peer does not speak Hadoop IPC version 9 (wrong magic, or a version too old to be
    /// answered in version 9's format); nothing or only the HTTP answer was sent.
    NotHadoopIpc(CodecError),
    /// A FATAL answer was sent.
    Fatal(RpcFailure),
}

/// The protocol of one Hadoop IPC connection, server side: the preamble, an optional SASL
/// exchange, the connection context (call id -3), then calls; pings (call id -4) at any time
/// after the preamble get no answer.
///
/// Pure: it owns no socket, spawns nothing and reads no clock. The shell feeds it what it reads
/// and carries out the [`ConnectionAction`]s it returns. What it buffers is bounded by the
/// preamble or the frame being read (at most [`MAX_SETUP_FRAME_LENGTH`] before the connection
/// context, the maximum data length after) plus what was fed last.
///
/// Whatever a peer sends, it never panics: a malformed preamble, frame or header ends the
/// connection with the FATAL answer Hadoop's server would give (or none, where Hadoop gives
/// none), and a call the dispatcher cannot serve is an ERROR that leaves the connection open.
pub struct IpcConnection {
    frames: FrameDecoder,
    auth: Arc<AuthPolicy>,
    peer: Option<SocketAddr>,
    buffer: BytesMut,
    phase: Phase,
}

/// The longest frame read before the connection context: SASL messages and the context are a
/// few KiB (Hadoop's DIGEST-MD5 response is at most 4 KiB), so an unauthenticated peer cannot
/// make the server hold `ipc.maximum.data.length` bytes.
pub const MAX_SETUP_FRAME_LENGTH: u32 = 64 * 1024;

enum Phase {
    /// Waiting for the 7 bytes of the preamble.
    Preamble,
    /// A SASL exchange is under way (the preamble asked for SASL).
    Sasl(Negotiation),
    /// Authentication is settled; waiting for the connection context.
    Context(Settled),
    /// The context is read; calls are served.
    Calls(Arc<Caller>),
    /// A close action was returned; nothing more is read.
    Closed,
}

/// The server's side of a SASL exchange in progress.
#[derive(Default)]
struct Negotiation {
    sent_negotiate: bool,
    exchange: Option<(AuthMethod, Box<dyn SaslExchange>)>,
}

/// How authentication ended, before the context names a user.
enum Settled {
    /// SIMPLE: from the preamble, or a SASL client that picked SIMPLE from the offer.
    Simple,
    /// A SASL exchange completed.
    Sasl(AuthMethod, SaslUser),
}

impl IpcConnection {
    /// A connection that has read nothing yet. `max_data_length` is the longest frame accepted
    /// (`ipc.maximum.data.length`); `peer` is passed on to calls.
    pub fn new(auth: Arc<AuthPolicy>, max_data_length: u32, peer: Option<SocketAddr>) -> Self {
        IpcConnection {
            frames: FrameDecoder::new(max_data_length),
            auth,
            peer,
            buffer: BytesMut::new(),
            phase: Phase::Preamble,
        }
    }

    /// Takes the bytes the peer sent next and returns what to do, in order. Returns nothing
    /// once a [`ConnectionAction::Close`] was returned.
    pub fn receive(&mut self, bytes: &[u8]) -> Vec<ConnectionAction> {
        let mut actions = Vec::new();
        if self.is_closed() {
            return actions;
        }
        self.buffer.extend_from_slice(bytes);
        while !self.is_closed() {
            if matches!(self.phase, Phase::Preamble) {
                if self.buffer.len() < PREAMBLE_LEN {
                    break;
                }
                let mut preamble = [0_u8; PREAMBLE_LEN];
                preamble.copy_from_slice(&self.buffer.split_to(PREAMBLE_LEN));
                self.read_preamble(&preamble, &mut actions);
                continue;
            }
            // Until the caller is known, frames are set-up messages (SASL, the connection
            // context) of a few KiB: nobody unauthenticated may make the server buffer more.
            let frames = match self.phase {
                Phase::Calls(_) => self.frames,
                _ => FrameDecoder::new(self.frames.max_length().min(MAX_SETUP_FRAME_LENGTH)),
            };
            match frames.decode(&mut self.buffer) {
                Ok(Some(frame)) => self.read_frame(frame, &mut actions),
                Ok(None) => break,
                Err(err) => self.close_fatal(
                    CallTag::connection(),
                    RpcFailure::fatal(
                        RpcErrorCodeProto::FatalInvalidRpcHeader,
                        ExceptionClass::IoException,
                        err.to_string(),
                    ),
                    &mut actions,
                ),
            }
        }
        actions
    }

    /// Whether a close action was returned.
    pub fn is_closed(&self) -> bool {
        matches!(self.phase, Phase::Closed)
    }

    /// The caller, once the connection context is read.
    pub fn caller(&self) -> Option<&Arc<Caller>> {
        match &self.phase {
            Phase::Calls(caller) => Some(caller),
            _ => None,
        }
    }

    fn read_preamble(&mut self, bytes: &[u8; PREAMBLE_LEN], actions: &mut Vec<ConnectionAction>) {
        let preamble = match Preamble::decode(bytes) {
            Ok(preamble) => preamble,
            Err(err) => return self.refuse_preamble(err, actions),
        };
        match preamble.auth_protocol {
            AuthProtocol::None if !self.auth.allows_simple() => self.refuse_auth("SIMPLE", actions),
            AuthProtocol::Sasl if !self.auth.allows_sasl() => self.refuse_auth("SASL", actions),
            AuthProtocol::None => self.phase = Phase::Context(Settled::Simple),
            AuthProtocol::Sasl => self.phase = Phase::Sasl(Negotiation::default()),
        }
    }

    /// Hadoop answers a bad magic or version with a FATAL `VersionMismatch` on call id -1 when
    /// the version byte is 9 or more (a client that reads version 9 headers), and an HTTP
    /// `GET` with a plain-text 404. yarn-ha does the same, except that it sends nothing to a
    /// peer whose magic is wrong: it is not a Hadoop client.
    fn refuse_preamble(&mut self, err: CodecError, actions: &mut Vec<ConnectionAction>) {
        match err {
            CodecError::UnsupportedVersion { version } if version as i8 >= IPC_VERSION as i8 => {
                let message = format!(
                    "Server IPC version {IPC_VERSION} cannot communicate with client version {version}"
                );
                let failure = RpcFailure::fatal(
                    RpcErrorCodeProto::FatalVersionMismatch,
                    ExceptionClass::VersionMismatch,
                    message,
                );
                self.close_fatal(CallTag::connection(), failure, actions);
            }
            CodecError::UnknownAuthProtocol { code } => {
                let failure = RpcFailure::fatal(
                    RpcErrorCodeProto::FatalUnauthorized,
                    ExceptionClass::IpcException,
                    format!("Unknown auth protocol:{code}"),
                );
                self.close_fatal(CallTag::connection(), failure, actions);
            }
            err => {
                if matches!(err, CodecError::WrongMagic { found } if found == *b"GET ") {
                    actions.push(ConnectionAction::Send(Bytes::from_static(HTTP_ON_IPC_PORT)));
                }
                self.close(CloseReason::NotHadoopIpc(err), actions);
            }
        }
    }

    fn refuse_auth(&mut self, what: &str, actions: &mut Vec<ConnectionAction>) {
        let message = format!(
            "{what} authentication is not enabled.  Available:{}",
            self.auth.enabled_list()
        );
        let failure = RpcFailure::fatal(
            RpcErrorCodeProto::FatalUnauthorized,
            ExceptionClass::AccessControlException,
            message,
        );
        self.close_fatal(CallTag::connection(), failure, actions);
    }

    fn read_frame(&mut self, mut frame: Bytes, actions: &mut Vec<ConnectionAction>) {
        let header: RpcRequestHeaderProto =
            match decode_delimited(&mut frame, "RpcRequestHeaderProto") {
                Ok(header) => header,
                Err(err) => {
                    let failure = undecodable("RpcRequestHeaderProto", &err);
                    return self.close_fatal(CallTag::connection(), failure, actions);
                }
            };
        if let Err(message) = check_header(&header) {
            return self.close_fatal(CallTag::refusing(&header), invalid_header(message), actions);
        }
        match header.call_id {
            CONNECTION_CONTEXT_CALL_ID => self.read_context(&header, frame, actions),
            SASL_CALL_ID => self.read_sasl(&header, frame, actions),
            PING_CALL_ID => {}
            call_id if call_id < 0 => {
                let failure = invalid_header(format!("Unknown out of band call #{call_id}"));
                self.close_fatal(CallTag::refusing(&header), failure, actions);
            }
            _ => self.read_call(&header, frame, actions),
        }
    }

    fn read_context(
        &mut self,
        header: &RpcRequestHeaderProto,
        mut frame: Bytes,
        actions: &mut Vec<ConnectionAction>,
    ) {
        let tag = CallTag::refusing(header);
        let settled = match std::mem::replace(&mut self.phase, Phase::Closed) {
            Phase::Context(settled) => settled,
            Phase::Sasl(_) => {
                let failure = invalid_header("Connection header sent during SASL negotiation");
                return self.close_fatal(tag, failure, actions);
            }
            _ => {
                let failure = invalid_header("Connection context already processed");
                return self.close_fatal(tag, failure, actions);
            }
        };
        let context: IpcConnectionContextProto =
            match decode_delimited(&mut frame, "IpcConnectionContextProto") {
                Ok(context) => context,
                Err(err) => {
                    let failure = undecodable("IpcConnectionContextProto", &err);
                    return self.close_fatal(tag, failure, actions);
                }
            };
        let user_info = context.user_info.unwrap_or_default();
        let claimed = user_info.effective_user.filter(|user| !user.is_empty());
        // yarn-ha has no proxy users: a client acting for someone else is refused as Hadoop
        // refuses a real user that hadoop.proxyuser.* does not allow.
        if let Some(real) = user_info.real_user.filter(|user| !user.is_empty()) {
            let failure = RpcFailure::fatal(
                RpcErrorCodeProto::FatalUnauthorized,
                ExceptionClass::AuthorizationException,
                format!(
                    "User: {real} is not allowed to impersonate {}",
                    claimed.as_deref().unwrap_or("")
                ),
            );
            return self.close_fatal(tag, failure, actions);
        }
        let (user, authentication) = match settled {
            Settled::Simple => (claimed, Authentication::Simple),
            Settled::Sasl(method, sasl_user) => {
                if let Some(claimed) = claimed.filter(|claimed| *claimed != sasl_user.name) {
                    let failure = RpcFailure::fatal(
                        RpcErrorCodeProto::FatalUnauthorized,
                        ExceptionClass::AccessControlException,
                        format!(
                            "Authenticated user ({}) doesn't match what the client claims to be ({claimed})",
                            sasl_user.name
                        ),
                    );
                    return self.close_fatal(tag, failure, actions);
                }
                let authentication = Authentication::Sasl {
                    method,
                    token_identifier: sasl_user.token_identifier,
                };
                (Some(sasl_user.name), authentication)
            }
        };
        self.phase = Phase::Calls(Arc::new(Caller {
            user,
            authentication,
            connection_protocol: context.protocol,
            peer: self.peer,
        }));
    }

    fn read_sasl(
        &mut self,
        header: &RpcRequestHeaderProto,
        mut frame: Bytes,
        actions: &mut Vec<ConnectionAction>,
    ) {
        let tag = CallTag::refusing(header);
        let negotiation = match &mut self.phase {
            Phase::Sasl(negotiation) => Some(negotiation),
            Phase::Context(Settled::Sasl(..)) => None,
            Phase::Calls(caller)
                if matches!(caller.authentication, Authentication::Sasl { .. }) =>
            {
                None
            }
            _ => {
                let failure = invalid_header("SASL protocol not requested by client");
                return self.close_fatal(tag, failure, actions);
            }
        };
        let message: RpcSaslProto = match decode_delimited(&mut frame, "RpcSaslProto") {
            Ok(message) => message,
            Err(err) => {
                let failure = undecodable("RpcSaslProto", &err);
                return self.close_fatal(tag, failure, actions);
            }
        };
        if message.state == SaslState::Wrap as i32 {
            let failure = RpcFailure::fatal(
                RpcErrorCodeProto::FatalInvalidRpcHeader,
                ExceptionClass::SaslException,
                "Server is not wrapping data",
            );
            return self.close_fatal(tag, failure, actions);
        }
        let Some(negotiation) = negotiation else {
            let failure = RpcFailure::fatal(
                RpcErrorCodeProto::FatalInvalidRpcHeader,
                ExceptionClass::SaslException,
                "Negotiation is already complete",
            );
            return self.close_fatal(tag, failure, actions);
        };
        match negotiate(&self.auth, negotiation, &message) {
            Ok(SaslOutcome::Reply(reply)) => {
                actions.push(ConnectionAction::Send(ResponseFrame::sasl(&reply)));
            }
            Ok(SaslOutcome::SwitchToSimple) => self.phase = Phase::Context(Settled::Simple),
            Ok(SaslOutcome::Authenticated {
                method,
                user,
                reply,
            }) => {
                actions.push(ConnectionAction::Send(ResponseFrame::sasl(&reply)));
                self.phase = Phase::Context(Settled::Sasl(method, user));
            }
            Err((class, message)) => {
                let failure =
                    RpcFailure::fatal(RpcErrorCodeProto::FatalUnauthorized, class, message);
                self.close_fatal(tag, failure, actions);
            }
        }
    }

    fn read_call(
        &mut self,
        header: &RpcRequestHeaderProto,
        mut frame: Bytes,
        actions: &mut Vec<ConnectionAction>,
    ) {
        let tag = CallTag::refusing(header);
        let Phase::Calls(caller) = &self.phase else {
            let failure = invalid_header("Connection context not established");
            return self.close_fatal(tag, failure, actions);
        };
        let kind = header
            .rpc_kind
            .and_then(|kind| RpcKindProto::try_from(kind).ok());
        if kind != Some(RpcKindProto::RpcProtocolBuffer) {
            let name = kind.map_or("unknown", |kind| kind.as_str_name());
            let failure = invalid_header(format!("Unknown rpc kind in rpc header {name}"));
            return self.close_fatal(tag, failure, actions);
        }
        let parts = decode_delimited::<RequestHeaderProto>(&mut frame, "RequestHeaderProto")
            .and_then(|request_header| {
                let request = take_delimited(&mut frame, "the request message")?;
                Ok((request_header, request))
            });
        let (request_header, request) = match parts {
            Ok(parts) => parts,
            Err(err) => {
                let failure = RpcFailure::fatal(
                    RpcErrorCodeProto::FatalDeserializingRequest,
                    ExceptionClass::RpcServerException,
                    format!("IPC server unable to read call parameters: {err}"),
                );
                return self.close_fatal(tag, failure, actions);
            }
        };
        actions.push(ConnectionAction::Dispatch(Call {
            tag: CallTag::answering(header),
            protocol: request_header.declaring_class_protocol_name,
            method: request_header.method_name,
            client_protocol_version: request_header.client_protocol_version,
            request,
            caller: Arc::clone(caller),
        }));
    }

    fn close_fatal(
        &mut self,
        tag: CallTag,
        failure: RpcFailure,
        actions: &mut Vec<ConnectionAction>,
    ) {
        actions.push(ConnectionAction::Send(ResponseFrame::failure(
            &tag, &failure,
        )));
        self.close(CloseReason::Fatal(failure), actions);
    }

    fn close(&mut self, reason: CloseReason, actions: &mut Vec<ConnectionAction>) {
        actions.push(ConnectionAction::Close(reason));
        self.phase = Phase::Closed;
        self.buffer = BytesMut::new();
    }
}

/// Hadoop's checks of every request header, whatever its call id.
fn check_header(header: &RpcRequestHeaderProto) -> Result<(), String> {
    let op = header
        .rpc_op
        .and_then(|op| OperationProto::try_from(op).ok());
    match op {
        None => return Err("IPC Server: No rpc op in rpcRequestHeader".into()),
        Some(OperationProto::RpcFinalPacket) => {}
        Some(op) => {
            return Err(format!(
                "IPC Server does not implement rpc header operation {}",
                op.as_str_name()
            ));
        }
    }
    let kind = header
        .rpc_kind
        .and_then(|kind| RpcKindProto::try_from(kind).ok());
    if kind.is_none() {
        return Err("IPC Server: No rpc kind in rpcRequestHeader".into());
    }
    Ok(())
}

fn invalid_header(message: impl Into<String>) -> RpcFailure {
    RpcFailure::fatal(
        RpcErrorCodeProto::FatalInvalidRpcHeader,
        ExceptionClass::RpcServerException,
        message,
    )
}

fn undecodable(message: &str, err: &CodecError) -> RpcFailure {
    RpcFailure::fatal(
        RpcErrorCodeProto::FatalDeserializingRequest,
        ExceptionClass::RpcServerException,
        format!("Error decoding {message}: {err}"),
    )
}

/// Where one SASL message leaves the exchange.
enum SaslOutcome {
    /// Send this answer and wait for the client's next message.
    Reply(RpcSaslProto),
    /// The client picked SIMPLE from the offer: no answer, the context comes next.
    SwitchToSimple,
    /// Send this SUCCESS answer; the context comes next.
    Authenticated {
        method: AuthMethod,
        user: SaslUser,
        reply: RpcSaslProto,
    },
}

/// One step of the server's SASL state machine, as Hadoop's server runs it. An error is the
/// exception class and message of the FATAL (`FATAL_UNAUTHORIZED`) answer.
fn negotiate(
    policy: &AuthPolicy,
    negotiation: &mut Negotiation,
    message: &RpcSaslProto,
) -> Result<SaslOutcome, (ExceptionClass, String)> {
    let state = SaslState::try_from(message.state).ok();
    match state {
        Some(SaslState::Negotiate) => {
            if negotiation.sent_negotiate {
                return Err((
                    ExceptionClass::AccessControlException,
                    "Client already attempted negotiation".into(),
                ));
            }
            Ok(SaslOutcome::Reply(offer(policy, negotiation)?))
        }
        Some(SaslState::Initiate) => {
            let [chosen] = message.auths.as_slice() else {
                return Err((
                    ExceptionClass::SaslException,
                    "Client mechanism is malformed".into(),
                ));
            };
            let offered = offers(policy)
                .iter()
                .any(|offered| same_auth(offered, chosen));
            let method = AuthMethod::from_name(&chosen.method).filter(|_| offered);
            let Some(method) = method else {
                if negotiation.sent_negotiate {
                    return Err((
                        ExceptionClass::AccessControlException,
                        format!(
                            "{} authentication is not enabled.  Available:{}",
                            chosen.method,
                            policy.enabled_list()
                        ),
                    ));
                }
                // A client that guessed without asking gets the offer, as from Hadoop.
                return Ok(SaslOutcome::Reply(offer(policy, negotiation)?));
            };
            if method == AuthMethod::Simple {
                return Ok(SaslOutcome::SwitchToSimple);
            }
            if negotiation
                .exchange
                .as_ref()
                .is_none_or(|(started, _)| *started != method)
            {
                let mechanism = policy
                    .sasl_mechanism(method)
                    .expect("an offered SASL method has its mechanism");
                negotiation.exchange = Some((method, mechanism.start()));
            }
            evaluate(negotiation, message)
        }
        Some(SaslState::Response) => evaluate(negotiation, message),
        _ => {
            let name =
                state.map_or_else(|| message.state.to_string(), |s| s.as_str_name().to_owned());
            Err((
                ExceptionClass::SaslException,
                format!("Client sent unsupported state {name}"),
            ))
        }
    }
}

/// The NEGOTIATE answer: every enabled method, the first SASL one with its first challenge.
fn offer(
    policy: &AuthPolicy,
    negotiation: &mut Negotiation,
) -> Result<RpcSaslProto, (ExceptionClass, String)> {
    let mut auths = offers(policy);
    if let Some(first) = policy.sasl_mechanisms().first() {
        let mut exchange = first.start();
        let challenge = exchange
            .initial_challenge()
            .map_err(|refusal| (refusal.class, refusal.message))?;
        auths[0].challenge = challenge;
        negotiation.exchange = Some((first.method(), exchange));
    }
    negotiation.sent_negotiate = true;
    Ok(RpcSaslProto {
        state: SaslState::Negotiate as i32,
        auths,
        ..Default::default()
    })
}

/// What the server offers, without challenges.
fn offers(policy: &AuthPolicy) -> Vec<SaslAuth> {
    let mut auths: Vec<SaslAuth> = policy
        .sasl_mechanisms()
        .iter()
        .map(|mechanism| SaslAuth {
            method: mechanism.method().name().to_owned(),
            mechanism: mechanism.method().mechanism().to_owned(),
            protocol: Some(mechanism.protocol().to_owned()),
            server_id: Some(mechanism.server_id().to_owned()),
            challenge: None,
        })
        .collect();
    if policy.allows_simple() {
        auths.push(SaslAuth {
            method: AuthMethod::Simple.name().to_owned(),
            mechanism: AuthMethod::Simple.mechanism().to_owned(),
            ..Default::default()
        });
    }
    auths
}

/// Whether the client's choice is one of the offers; the client clears the challenge.
fn same_auth(offered: &SaslAuth, chosen: &SaslAuth) -> bool {
    offered.method == chosen.method
        && offered.mechanism == chosen.mechanism
        && offered.protocol == chosen.protocol
        && offered.server_id == chosen.server_id
}

fn evaluate(
    negotiation: &mut Negotiation,
    message: &RpcSaslProto,
) -> Result<SaslOutcome, (ExceptionClass, String)> {
    let Some((method, exchange)) = negotiation.exchange.as_mut() else {
        return Err((
            ExceptionClass::SaslException,
            "Client sent a SASL response before choosing a method".into(),
        ));
    };
    let Some(token) = message.token.as_ref() else {
        return Err((
            ExceptionClass::SaslException,
            "Client did not send a token".into(),
        ));
    };
    let step = exchange
        .evaluate(token)
        .map_err(|refusal| (refusal.class, refusal.message))?;
    Ok(match step {
        SaslStep::Challenge(challenge) => SaslOutcome::Reply(RpcSaslProto {
            state: SaslState::Challenge as i32,
            token: Some(challenge),
            ..Default::default()
        }),
        SaslStep::Complete { token, user } => SaslOutcome::Authenticated {
            method: *method,
            user,
            reply: RpcSaslProto {
                state: SaslState::Success as i32,
                token,
                ..Default::default()
            },
        },
    })
}

#[cfg(test)]
#[path = "connection_test.rs"]
mod tests;
