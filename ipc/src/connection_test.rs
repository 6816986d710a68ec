use std::sync::Arc;

use bytes::{Bytes, BytesMut};
use proptest::prelude::*;
use yarn_test_support::byte_mutation::mutations;

use super::*;
use crate::pb::rpc_response_header_proto::RpcStatusProto;
use crate::pb::{RpcResponseHeaderProto, UserInformationProto};
use crate::{RequestFrame, SaslMechanism, SaslRefusal, decode_delimited, put_frame, yarn_protocol};

const CLIENT_ID: [u8; 16] = [0x5a; 16];
const SIMPLE_PREAMBLE: &[u8] = b"hrpc\x09\x00\x00";
const SASL_PREAMBLE: &[u8] = b"hrpc\x09\x00\xdf";

fn simple_connection() -> IpcConnection {
    IpcConnection::new(Arc::new(AuthPolicy::simple_only()), 1024, None)
}

fn context_frame(user: Option<&str>) -> Bytes {
    RequestFrame::context(
        &CLIENT_ID,
        &IpcConnectionContextProto {
            user_info: Some(UserInformationProto {
                effective_user: user.map(str::to_owned),
                real_user: None,
            }),
            protocol: Some(yarn_protocol::APPLICATION_CLIENT_PROTOCOL.into()),
        },
    )
}

fn call_frame(call_id: i32, method: &str, request: &[u8]) -> Bytes {
    RequestFrame::call(
        &RequestFrame::header(call_id, 0, &CLIENT_ID),
        &RequestHeaderProto {
            method_name: method.into(),
            declaring_class_protocol_name: yarn_protocol::APPLICATION_CLIENT_PROTOCOL.into(),
            client_protocol_version: 1,
        },
        request,
    )
}

/// A frame holding the given delimited header and raw bytes after it.
fn frame_with(header: &RpcRequestHeaderProto, rest: &[u8]) -> Bytes {
    let mut body = BytesMut::new();
    crate::put_delimited(&mut body, header);
    body.extend_from_slice(rest);
    let mut out = BytesMut::new();
    put_frame(&mut out, &body);
    out.freeze()
}

fn feed(connection: &mut IpcConnection, chunks: &[&[u8]]) -> Vec<ConnectionAction> {
    chunks
        .iter()
        .flat_map(|chunk| connection.receive(chunk))
        .collect()
}

fn ready(connection: &mut IpcConnection) {
    let actions = feed(
        connection,
        &[SIMPLE_PREAMBLE, &context_frame(Some("alice"))],
    );
    assert!(actions.is_empty(), "{actions:?}");
}

/// The header and what follows it in a frame the connection sent.
fn response(bytes: &Bytes) -> (RpcResponseHeaderProto, Bytes) {
    let mut buf = BytesMut::from(&bytes[..]);
    let body = FrameDecoder::new(u32::MAX)
        .decode(&mut buf)
        .unwrap()
        .unwrap();
    assert!(buf.is_empty(), "one frame per send");
    ResponseFrame::decode(body).unwrap()
}

/// Asserts the actions are a FATAL answer then a close, and returns the answer's header.
fn must_fatal(actions: &[ConnectionAction]) -> RpcResponseHeaderProto {
    let [
        ConnectionAction::Send(bytes),
        ConnectionAction::Close(CloseReason::Fatal(failure)),
    ] = actions
    else {
        panic!("expected a FATAL answer and a close, got {actions:?}");
    };
    let (header, rest) = response(bytes);
    assert!(rest.is_empty(), "a failure has no body");
    assert_eq!(header.status(), RpcStatusProto::Fatal);
    assert_eq!(header.error_msg.as_deref(), Some(failure.message.as_str()));
    assert_eq!(header.server_ipc_version_num, Some(9));
    header
}

fn must_dispatch(actions: Vec<ConnectionAction>) -> Call {
    let mut actions = actions.into_iter();
    match (actions.next(), actions.next()) {
        (Some(ConnectionAction::Dispatch(call)), None) => call,
        other => panic!("expected one call, got {other:?}"),
    }
}

fn assert_fatal(
    header: &RpcResponseHeaderProto,
    call_id: i32,
    code: RpcErrorCodeProto,
    class: &str,
    message: &str,
) {
    assert_eq!(header.call_id, call_id as u32, "call id");
    assert_eq!(header.error_detail(), code);
    assert_eq!(header.exception_class_name.as_deref(), Some(class));
    let text = header.error_msg.as_deref().unwrap_or_default();
    assert!(
        text.contains(message),
        "{text:?} does not contain {message:?}"
    );
}

// --- SIMPLE connections -----------------------------------------------------------------------

#[test]
fn a_simple_client_gets_its_call_dispatched_with_its_claimed_user() {
    let mut connection = simple_connection();
    ready(&mut connection);
    let call = must_dispatch(connection.receive(&call_frame(0, "getNewApplication", b"\x0a\x01x")));
    assert_eq!(call.method, "getNewApplication");
    assert_eq!(call.protocol, yarn_protocol::APPLICATION_CLIENT_PROTOCOL);
    assert_eq!(call.client_protocol_version, 1);
    assert_eq!(call.request, &b"\x0a\x01x"[..]);
    assert_eq!(call.tag.call_id, 0);
    assert_eq!(call.tag.retry_count, 0);
    assert_eq!(call.tag.client_id, &CLIENT_ID[..]);
    assert_eq!(call.caller.user.as_deref(), Some("alice"));
    assert_eq!(call.caller.authentication, Authentication::Simple);
    assert_eq!(
        call.caller.connection_protocol.as_deref(),
        Some(yarn_protocol::APPLICATION_CLIENT_PROTOCOL)
    );
    assert!(!connection.is_closed());
}

#[test]
fn a_stream_cut_at_every_byte_reads_the_same() {
    let mut stream = SIMPLE_PREAMBLE.to_vec();
    stream.extend_from_slice(&context_frame(Some("alice")));
    stream.extend_from_slice(&RequestFrame::ping(&CLIENT_ID));
    stream.extend_from_slice(&call_frame(3, "getClusterMetrics", b""));
    stream.extend_from_slice(&call_frame(4, "getApplications", b"\x08\x01"));
    let mut connection = simple_connection();
    let mut methods = Vec::new();
    for byte in &stream {
        for action in connection.receive(std::slice::from_ref(byte)) {
            match action {
                ConnectionAction::Dispatch(call) => methods.push((call.tag.call_id, call.method)),
                other => panic!("unexpected {other:?}"),
            }
        }
    }
    assert_eq!(
        methods,
        [
            (3, "getClusterMetrics".to_owned()),
            (4, "getApplications".to_owned())
        ]
    );
}

#[test]
fn the_context_and_first_call_may_arrive_together_with_the_preamble() {
    let mut stream = SIMPLE_PREAMBLE.to_vec();
    stream.extend_from_slice(&context_frame(Some("bob")));
    stream.extend_from_slice(&call_frame(0, "getNewApplication", b""));
    let call = must_dispatch(simple_connection().receive(&stream));
    assert_eq!(call.caller.user.as_deref(), Some("bob"));
}

#[test]
fn a_ping_gets_no_answer_before_or_after_the_context() {
    let mut connection = simple_connection();
    assert!(
        feed(
            &mut connection,
            &[SIMPLE_PREAMBLE, &RequestFrame::ping(&CLIENT_ID)]
        )
        .is_empty()
    );
    ready_after_preamble(&mut connection);
    assert!(
        connection
            .receive(&RequestFrame::ping(&CLIENT_ID))
            .is_empty()
    );
    assert!(!connection.is_closed());
}

fn ready_after_preamble(connection: &mut IpcConnection) {
    assert!(connection.receive(&context_frame(Some("alice"))).is_empty());
}

#[test]
fn a_context_without_a_user_leaves_the_caller_unnamed() {
    let mut connection = simple_connection();
    feed(&mut connection, &[SIMPLE_PREAMBLE, &context_frame(None)]);
    assert_eq!(connection.caller().unwrap().user, None);
}

// --- the preamble ------------------------------------------------------------------------------

#[test]
fn a_peer_with_the_wrong_magic_is_closed_without_an_answer() {
    let actions = simple_connection().receive(b"\x16\x03\x01\x02\x00\x01\x00");
    let [ConnectionAction::Close(CloseReason::NotHadoopIpc(CodecError::WrongMagic { found }))] =
        actions.as_slice()
    else {
        panic!("{actions:?}");
    };
    assert_eq!(found, &[0x16, 0x03, 0x01, 0x02]);
}

#[test]
fn an_http_get_gets_a_plain_404() {
    let actions = simple_connection().receive(b"GET / HTTP/1.1\r\n\r\n");
    let [
        ConnectionAction::Send(text),
        ConnectionAction::Close(CloseReason::NotHadoopIpc(_)),
    ] = actions.as_slice()
    else {
        panic!("{actions:?}");
    };
    assert!(text.starts_with(b"HTTP/1.1 404 Not Found\r\n"));
}

#[test]
fn a_newer_ipc_version_gets_hadoops_version_mismatch() {
    let header = must_fatal(&simple_connection().receive(b"hrpc\x0a\x00\x00"));
    assert_fatal(
        &header,
        -1,
        RpcErrorCodeProto::FatalVersionMismatch,
        "org.apache.hadoop.ipc.RPC$VersionMismatch",
        "Server IPC version 9 cannot communicate with client version 10",
    );
}

#[test]
fn an_older_ipc_version_is_closed_without_a_version_9_answer() {
    let actions = simple_connection().receive(b"hrpc\x07\x00\x50");
    assert!(matches!(
        actions.as_slice(),
        [ConnectionAction::Close(CloseReason::NotHadoopIpc(
            CodecError::UnsupportedVersion { version: 7 }
        ))]
    ));
}

#[test]
fn an_unknown_auth_protocol_gets_an_ipc_exception() {
    let header = must_fatal(&simple_connection().receive(b"hrpc\x09\x00\x51"));
    assert_fatal(
        &header,
        -1,
        RpcErrorCodeProto::FatalUnauthorized,
        "org.apache.hadoop.ipc.IpcException",
        "Unknown auth protocol:81",
    );
}

#[test]
fn sasl_is_refused_when_only_simple_is_enabled() {
    let header = must_fatal(&simple_connection().receive(SASL_PREAMBLE));
    assert_fatal(
        &header,
        -1,
        RpcErrorCodeProto::FatalUnauthorized,
        "org.apache.hadoop.security.AccessControlException",
        "SASL authentication is not enabled.  Available:[SIMPLE]",
    );
    assert_eq!(header.client_id.as_deref(), Some(&b""[..]));
    assert_eq!(header.retry_count, Some(-1));
}

#[test]
fn simple_is_refused_when_only_sasl_is_enabled() {
    let policy = AuthPolicy::new(vec![Arc::new(TestToken) as Arc<dyn SaslMechanism>], false);
    let mut connection = IpcConnection::new(Arc::new(policy), 1024, None);
    let header = must_fatal(&connection.receive(SIMPLE_PREAMBLE));
    assert_fatal(
        &header,
        -1,
        RpcErrorCodeProto::FatalUnauthorized,
        "org.apache.hadoop.security.AccessControlException",
        "SIMPLE authentication is not enabled.  Available:[TOKEN]",
    );
}

// --- frames and headers ------------------------------------------------------------------------

#[test]
fn a_frame_over_the_limit_is_refused_as_soon_as_its_length_arrives() {
    let mut connection = simple_connection();
    ready(&mut connection);
    let header = must_fatal(&connection.receive(&1025_u32.to_be_bytes()));
    assert_fatal(
        &header,
        -1,
        RpcErrorCodeProto::FatalInvalidRpcHeader,
        "java.io.IOException",
        "a frame of 1025 bytes is longer than the maximum of 1024 bytes",
    );
    assert!(connection.is_closed());
    assert!(
        connection.receive(&[0; 2000]).is_empty(),
        "nothing is read after a close"
    );
}

#[test]
fn a_negative_frame_length_is_refused() {
    let mut connection = simple_connection();
    connection.receive(SIMPLE_PREAMBLE);
    let header = must_fatal(&connection.receive(&[0x80, 0, 0, 0]));
    assert_fatal(
        &header,
        -1,
        RpcErrorCodeProto::FatalInvalidRpcHeader,
        "java.io.IOException",
        "frame length -2147483648 is negative",
    );
}

#[test]
fn garbage_after_the_preamble_is_a_fatal_deserializing_error() {
    let mut connection = simple_connection();
    connection.receive(SIMPLE_PREAMBLE);
    let header = must_fatal(&connection.receive(b"\x00\x00\x00\x04\x03\xff\xff\xff"));
    assert_fatal(
        &header,
        -1,
        RpcErrorCodeProto::FatalDeserializingRequest,
        "org.apache.hadoop.ipc.RpcServerException",
        "Error decoding RpcRequestHeaderProto",
    );
}

#[test]
fn a_truncated_varint_in_a_frame_is_a_fatal_deserializing_error() {
    let mut connection = simple_connection();
    connection.receive(SIMPLE_PREAMBLE);
    let header = must_fatal(&connection.receive(b"\x00\x00\x00\x01\x80"));
    assert_fatal(
        &header,
        -1,
        RpcErrorCodeProto::FatalDeserializingRequest,
        "org.apache.hadoop.ipc.RpcServerException",
        "the length prefix of RpcRequestHeaderProto is cut off",
    );
}

#[test]
fn an_empty_frame_is_a_fatal_deserializing_error() {
    let mut connection = simple_connection();
    connection.receive(SIMPLE_PREAMBLE);
    must_fatal(&connection.receive(&[0, 0, 0, 0]));
}

#[test]
fn a_header_without_an_operation_is_invalid() {
    let mut connection = simple_connection();
    ready(&mut connection);
    let mut header = RequestFrame::header(5, 1, &CLIENT_ID);
    header.rpc_op = None;
    let answer = must_fatal(&connection.receive(&frame_with(&header, b"")));
    assert_fatal(
        &answer,
        5,
        RpcErrorCodeProto::FatalInvalidRpcHeader,
        "org.apache.hadoop.ipc.RpcServerException",
        "No rpc op in rpcRequestHeader",
    );
    assert_eq!(answer.retry_count, Some(1), "the retry count is echoed");
    assert_eq!(
        answer.client_id.as_deref(),
        Some(&b""[..]),
        "the client id is not"
    );
}

#[test]
fn only_the_final_packet_operation_is_served() {
    let mut connection = simple_connection();
    ready(&mut connection);
    let mut header = RequestFrame::header(5, 0, &CLIENT_ID);
    header.rpc_op = Some(OperationProto::RpcCloseConnection as i32);
    let answer = must_fatal(&connection.receive(&frame_with(&header, b"")));
    assert_fatal(
        &answer,
        5,
        RpcErrorCodeProto::FatalInvalidRpcHeader,
        "org.apache.hadoop.ipc.RpcServerException",
        "does not implement rpc header operation RPC_CLOSE_CONNECTION",
    );
}

#[test]
fn a_header_without_a_kind_is_invalid() {
    let mut connection = simple_connection();
    ready(&mut connection);
    let mut header = RequestFrame::header(5, 0, &CLIENT_ID);
    header.rpc_kind = None;
    let answer = must_fatal(&connection.receive(&frame_with(&header, b"")));
    assert_fatal(
        &answer,
        5,
        RpcErrorCodeProto::FatalInvalidRpcHeader,
        "org.apache.hadoop.ipc.RpcServerException",
        "No rpc kind in rpcRequestHeader",
    );
}

#[test]
fn a_writable_call_is_refused() {
    let mut connection = simple_connection();
    ready(&mut connection);
    let mut header = RequestFrame::header(6, 0, &CLIENT_ID);
    header.rpc_kind = Some(RpcKindProto::RpcWritable as i32);
    let answer = must_fatal(&connection.receive(&frame_with(&header, b"")));
    assert_fatal(
        &answer,
        6,
        RpcErrorCodeProto::FatalInvalidRpcHeader,
        "org.apache.hadoop.ipc.RpcServerException",
        "Unknown rpc kind in rpc header RPC_WRITABLE",
    );
}

#[test]
fn an_unknown_negative_call_id_is_invalid() {
    let mut connection = simple_connection();
    ready(&mut connection);
    let answer =
        must_fatal(&connection.receive(&frame_with(&RequestFrame::header(-7, -1, &[]), b"")));
    assert_fatal(
        &answer,
        -7,
        RpcErrorCodeProto::FatalInvalidRpcHeader,
        "org.apache.hadoop.ipc.RpcServerException",
        "Unknown out of band call #-7",
    );
}

#[test]
fn a_call_before_the_context_is_refused() {
    let mut connection = simple_connection();
    connection.receive(SIMPLE_PREAMBLE);
    let answer = must_fatal(&connection.receive(&call_frame(0, "getNewApplication", b"")));
    assert_fatal(
        &answer,
        0,
        RpcErrorCodeProto::FatalInvalidRpcHeader,
        "org.apache.hadoop.ipc.RpcServerException",
        "Connection context not established",
    );
}

#[test]
fn a_second_context_is_refused() {
    let mut connection = simple_connection();
    ready(&mut connection);
    let answer = must_fatal(&connection.receive(&context_frame(Some("mallory"))));
    assert_fatal(
        &answer,
        -3,
        RpcErrorCodeProto::FatalInvalidRpcHeader,
        "org.apache.hadoop.ipc.RpcServerException",
        "Connection context already processed",
    );
}

#[test]
fn a_context_that_does_not_parse_is_refused() {
    let mut connection = simple_connection();
    connection.receive(SIMPLE_PREAMBLE);
    let header = RequestFrame::header(CONNECTION_CONTEXT_CALL_ID, -1, &CLIENT_ID);
    let answer = must_fatal(&connection.receive(&frame_with(&header, b"\x03\x12\x09x")));
    assert_fatal(
        &answer,
        -3,
        RpcErrorCodeProto::FatalDeserializingRequest,
        "org.apache.hadoop.ipc.RpcServerException",
        "Error decoding IpcConnectionContextProto",
    );
}

#[test]
fn a_proxy_user_is_refused() {
    let mut connection = simple_connection();
    connection.receive(SIMPLE_PREAMBLE);
    let context = IpcConnectionContextProto {
        user_info: Some(UserInformationProto {
            effective_user: Some("alice".into()),
            real_user: Some("oozie".into()),
        }),
        protocol: None,
    };
    let answer = must_fatal(&connection.receive(&RequestFrame::context(&CLIENT_ID, &context)));
    assert_fatal(
        &answer,
        -3,
        RpcErrorCodeProto::FatalUnauthorized,
        "org.apache.hadoop.security.authorize.AuthorizationException",
        "User: oozie is not allowed to impersonate alice",
    );
}

#[test]
fn a_sasl_frame_on_a_simple_connection_is_refused() {
    let mut connection = simple_connection();
    connection.receive(SIMPLE_PREAMBLE);
    let negotiate = RpcSaslProto {
        state: SaslState::Negotiate as i32,
        ..Default::default()
    };
    let answer = must_fatal(&connection.receive(&RequestFrame::sasl(&negotiate)));
    assert_fatal(
        &answer,
        -33,
        RpcErrorCodeProto::FatalInvalidRpcHeader,
        "org.apache.hadoop.ipc.RpcServerException",
        "SASL protocol not requested by client",
    );
}

#[test]
fn a_call_whose_request_header_is_cut_is_refused_with_its_call_id() {
    let mut connection = simple_connection();
    ready(&mut connection);
    let header = RequestFrame::header(9, 0, &CLIENT_ID);
    let answer = must_fatal(&connection.receive(&frame_with(&header, b"\x20\x0a")));
    assert_fatal(
        &answer,
        9,
        RpcErrorCodeProto::FatalDeserializingRequest,
        "org.apache.hadoop.ipc.RpcServerException",
        "IPC server unable to read call parameters",
    );
}

#[test]
fn a_call_without_its_request_message_is_refused() {
    let mut connection = simple_connection();
    ready(&mut connection);
    let mut rest = BytesMut::new();
    crate::put_delimited(
        &mut rest,
        &RequestHeaderProto {
            method_name: "getClusterMetrics".into(),
            declaring_class_protocol_name: yarn_protocol::APPLICATION_CLIENT_PROTOCOL.into(),
            client_protocol_version: 1,
        },
    );
    let header = RequestFrame::header(10, 0, &CLIENT_ID);
    let answer = must_fatal(&connection.receive(&frame_with(&header, &rest)));
    assert_fatal(
        &answer,
        10,
        RpcErrorCodeProto::FatalDeserializingRequest,
        "org.apache.hadoop.ipc.RpcServerException",
        "the length prefix of the request message is cut off",
    );
}

// --- SASL, with a stand-in mechanism -----------------------------------------------------------

/// A TOKEN mechanism for tests: challenges with `nonce`, accepts the token `nonce:secret` and
/// answers `rspauth`, as DIGEST-MD5's shape is.
struct TestToken;

struct TestTokenExchange;

impl SaslMechanism for TestToken {
    fn method(&self) -> AuthMethod {
        AuthMethod::Token
    }
    fn protocol(&self) -> &str {
        ""
    }
    fn server_id(&self) -> &str {
        "default"
    }
    fn start(&self) -> Box<dyn SaslExchange> {
        Box::new(TestTokenExchange)
    }
}

impl SaslExchange for TestTokenExchange {
    fn initial_challenge(&mut self) -> Result<Option<Bytes>, SaslRefusal> {
        Ok(Some(Bytes::from_static(b"nonce")))
    }
    fn evaluate(&mut self, token: &[u8]) -> Result<SaslStep, SaslRefusal> {
        if token == b"nonce:secret" {
            Ok(SaslStep::Complete {
                token: Some(Bytes::from_static(b"rspauth")),
                user: SaslUser {
                    name: "appattempt_1_0001_000001".into(),
                    token_identifier: Some(Bytes::from_static(b"identifier")),
                },
            })
        } else if token == b"again" {
            Ok(SaslStep::Challenge(Bytes::from_static(b"nonce2")))
        } else {
            Err(SaslRefusal {
                class: ExceptionClass::InvalidToken,
                message: "token is not valid".into(),
            })
        }
    }
}

fn sasl_connection(simple: bool) -> IpcConnection {
    let policy = AuthPolicy::new(vec![Arc::new(TestToken) as Arc<dyn SaslMechanism>], simple);
    let mut connection = IpcConnection::new(Arc::new(policy), 1024, None);
    assert!(connection.receive(SASL_PREAMBLE).is_empty());
    connection
}

fn sasl_message(state: SaslState, auth: Option<&str>, token: Option<&[u8]>) -> Bytes {
    let auths = auth
        .map(|method| {
            let method = AuthMethod::from_name(method);
            vec![SaslAuth {
                method: method.map_or("BOGUS", AuthMethod::name).into(),
                mechanism: method.map_or("X", AuthMethod::mechanism).into(),
                protocol: (method == Some(AuthMethod::Token)).then(String::new),
                server_id: (method == Some(AuthMethod::Token)).then(|| "default".into()),
                challenge: None,
            }]
        })
        .unwrap_or_default();
    RequestFrame::sasl(&RpcSaslProto {
        state: state as i32,
        token: token.map(Bytes::copy_from_slice),
        auths,
        ..Default::default()
    })
}

/// The SASL answer in a single send.
fn must_sasl_reply(actions: &[ConnectionAction]) -> RpcSaslProto {
    let [ConnectionAction::Send(bytes)] = actions else {
        panic!("expected one SASL answer, got {actions:?}");
    };
    let (header, mut rest) = response(bytes);
    assert_eq!(header.call_id as i32, SASL_CALL_ID);
    assert_eq!(header.status(), RpcStatusProto::Success);
    let reply = decode_delimited(&mut rest, "RpcSaslProto").unwrap();
    assert!(rest.is_empty());
    reply
}

#[test]
fn negotiate_offers_token_with_its_first_challenge_and_simple() {
    let mut connection = sasl_connection(true);
    let reply =
        must_sasl_reply(&connection.receive(&sasl_message(SaslState::Negotiate, None, None)));
    assert_eq!(reply.state(), SaslState::Negotiate);
    let token = SaslAuth {
        method: "TOKEN".into(),
        mechanism: "DIGEST-MD5".into(),
        protocol: Some(String::new()),
        server_id: Some("default".into()),
        challenge: Some(Bytes::from_static(b"nonce")),
    };
    let simple = SaslAuth {
        method: "SIMPLE".into(),
        mechanism: String::new(),
        ..Default::default()
    };
    assert_eq!(reply.auths, [token, simple]);
}

#[test]
fn a_token_exchange_authenticates_the_caller() {
    let mut connection = sasl_connection(false);
    must_sasl_reply(&connection.receive(&sasl_message(SaslState::Negotiate, None, None)));
    let challenge = must_sasl_reply(&connection.receive(&sasl_message(
        SaslState::Initiate,
        Some("TOKEN"),
        Some(b"again"),
    )));
    assert_eq!(challenge.state(), SaslState::Challenge);
    assert_eq!(challenge.token.as_deref(), Some(&b"nonce2"[..]));
    let success = must_sasl_reply(&connection.receive(&sasl_message(
        SaslState::Response,
        None,
        Some(b"nonce:secret"),
    )));
    assert_eq!(success.state(), SaslState::Success);
    assert_eq!(success.token.as_deref(), Some(&b"rspauth"[..]));

    // A token client sends no user in its context.
    assert!(connection.receive(&context_frame(None)).is_empty());
    let call = must_dispatch(connection.receive(&call_frame(0, "allocate", b"")));
    assert_eq!(
        call.caller.user.as_deref(),
        Some("appattempt_1_0001_000001")
    );
    assert_eq!(
        call.caller.authentication,
        Authentication::Sasl {
            method: AuthMethod::Token,
            token_identifier: Some(Bytes::from_static(b"identifier")),
        }
    );
}

#[test]
fn a_bad_token_is_refused_with_the_mechanisms_exception() {
    let mut connection = sasl_connection(false);
    must_sasl_reply(&connection.receive(&sasl_message(SaslState::Negotiate, None, None)));
    let answer = must_fatal(&connection.receive(&sasl_message(
        SaslState::Initiate,
        Some("TOKEN"),
        Some(b"forged"),
    )));
    assert_fatal(
        &answer,
        -33,
        RpcErrorCodeProto::FatalUnauthorized,
        "org.apache.hadoop.security.token.SecretManager$InvalidToken",
        "token is not valid",
    );
}

#[test]
fn a_client_picking_simple_from_the_offer_continues_unauthenticated() {
    let mut connection = sasl_connection(true);
    must_sasl_reply(&connection.receive(&sasl_message(SaslState::Negotiate, None, None)));
    assert!(
        connection
            .receive(&sasl_message(SaslState::Initiate, Some("SIMPLE"), None))
            .is_empty()
    );
    assert!(connection.receive(&context_frame(Some("carol"))).is_empty());
    let caller = connection.caller().unwrap();
    assert_eq!(caller.user.as_deref(), Some("carol"));
    assert_eq!(caller.authentication, Authentication::Simple);
    // It is a SIMPLE connection now: more SASL is refused.
    let answer = must_fatal(&connection.receive(&sasl_message(SaslState::Negotiate, None, None)));
    assert_fatal(
        &answer,
        -33,
        RpcErrorCodeProto::FatalInvalidRpcHeader,
        "org.apache.hadoop.ipc.RpcServerException",
        "SASL protocol not requested by client",
    );
}

#[test]
fn a_method_not_offered_is_refused_naming_what_is_available() {
    let mut connection = sasl_connection(true);
    must_sasl_reply(&connection.receive(&sasl_message(SaslState::Negotiate, None, None)));
    let answer = must_fatal(&connection.receive(&sasl_message(
        SaslState::Initiate,
        Some("KERBEROS"),
        Some(b"ticket"),
    )));
    assert_fatal(
        &answer,
        -33,
        RpcErrorCodeProto::FatalUnauthorized,
        "org.apache.hadoop.security.AccessControlException",
        "KERBEROS authentication is not enabled.  Available:[TOKEN, SIMPLE]",
    );
}

#[test]
fn simple_is_not_taken_from_a_sasl_client_unless_offered() {
    let mut connection = sasl_connection(false);
    must_sasl_reply(&connection.receive(&sasl_message(SaslState::Negotiate, None, None)));
    let answer =
        must_fatal(&connection.receive(&sasl_message(SaslState::Initiate, Some("SIMPLE"), None)));
    assert_fatal(
        &answer,
        -33,
        RpcErrorCodeProto::FatalUnauthorized,
        "org.apache.hadoop.security.AccessControlException",
        "SIMPLE authentication is not enabled.  Available:[TOKEN]",
    );
}

#[test]
fn an_initiate_without_a_negotiate_gets_the_offer() {
    let mut connection = sasl_connection(false);
    let reply = must_sasl_reply(&connection.receive(&sasl_message(
        SaslState::Initiate,
        Some("KERBEROS"),
        Some(b"ticket"),
    )));
    assert_eq!(reply.state(), SaslState::Negotiate);
}

#[test]
fn a_second_negotiate_is_refused() {
    let mut connection = sasl_connection(false);
    must_sasl_reply(&connection.receive(&sasl_message(SaslState::Negotiate, None, None)));
    let answer = must_fatal(&connection.receive(&sasl_message(SaslState::Negotiate, None, None)));
    assert_fatal(
        &answer,
        -33,
        RpcErrorCodeProto::FatalUnauthorized,
        "org.apache.hadoop.security.AccessControlException",
        "Client already attempted negotiation",
    );
}

#[test]
fn an_initiate_with_two_auths_is_malformed() {
    let mut connection = sasl_connection(false);
    let mut message = RpcSaslProto {
        state: SaslState::Initiate as i32,
        ..Default::default()
    };
    message.auths = vec![SaslAuth::default(), SaslAuth::default()];
    let answer = must_fatal(&connection.receive(&RequestFrame::sasl(&message)));
    assert_fatal(
        &answer,
        -33,
        RpcErrorCodeProto::FatalUnauthorized,
        "javax.security.sasl.SaslException",
        "Client mechanism is malformed",
    );
}

#[test]
fn an_initiate_without_a_token_is_refused() {
    let mut connection = sasl_connection(false);
    must_sasl_reply(&connection.receive(&sasl_message(SaslState::Negotiate, None, None)));
    let answer =
        must_fatal(&connection.receive(&sasl_message(SaslState::Initiate, Some("TOKEN"), None)));
    assert_fatal(
        &answer,
        -33,
        RpcErrorCodeProto::FatalUnauthorized,
        "javax.security.sasl.SaslException",
        "Client did not send a token",
    );
}

#[test]
fn a_response_before_any_method_is_refused() {
    let mut connection = sasl_connection(false);
    let answer =
        must_fatal(&connection.receive(&sasl_message(SaslState::Response, None, Some(b"x"))));
    assert_fatal(
        &answer,
        -33,
        RpcErrorCodeProto::FatalUnauthorized,
        "javax.security.sasl.SaslException",
        "before choosing a method",
    );
}

#[test]
fn server_states_from_a_client_are_refused() {
    for state in [SaslState::Success, SaslState::Challenge] {
        let mut connection = sasl_connection(false);
        let answer = must_fatal(&connection.receive(&sasl_message(state, None, None)));
        assert_fatal(
            &answer,
            -33,
            RpcErrorCodeProto::FatalUnauthorized,
            "javax.security.sasl.SaslException",
            &format!("Client sent unsupported state {}", state.as_str_name()),
        );
    }
}

#[test]
fn wrapped_data_is_refused() {
    let mut connection = sasl_connection(false);
    let answer = must_fatal(&connection.receive(&sasl_message(SaslState::Wrap, None, Some(b"x"))));
    assert_fatal(
        &answer,
        -33,
        RpcErrorCodeProto::FatalInvalidRpcHeader,
        "javax.security.sasl.SaslException",
        "Server is not wrapping data",
    );
}

#[test]
fn the_context_during_sasl_is_refused() {
    let mut connection = sasl_connection(false);
    must_sasl_reply(&connection.receive(&sasl_message(SaslState::Negotiate, None, None)));
    let answer = must_fatal(&connection.receive(&context_frame(None)));
    assert_fatal(
        &answer,
        -3,
        RpcErrorCodeProto::FatalInvalidRpcHeader,
        "org.apache.hadoop.ipc.RpcServerException",
        "Connection header sent during SASL negotiation",
    );
}

#[test]
fn sasl_after_success_is_refused() {
    let mut connection = sasl_connection(false);
    // A client may initiate an offered method without negotiating first, as with Hadoop.
    let success = must_sasl_reply(&connection.receive(&sasl_message(
        SaslState::Initiate,
        Some("TOKEN"),
        Some(b"nonce:secret"),
    )));
    assert_eq!(success.state(), SaslState::Success);
    let answer =
        must_fatal(&connection.receive(&sasl_message(SaslState::Response, None, Some(b"x"))));
    assert_fatal(
        &answer,
        -33,
        RpcErrorCodeProto::FatalInvalidRpcHeader,
        "javax.security.sasl.SaslException",
        "Negotiation is already complete",
    );
}

#[test]
fn a_token_client_claiming_another_user_is_refused() {
    let mut connection = sasl_connection(false);
    connection.receive(&sasl_message(SaslState::Negotiate, None, None));
    connection.receive(&sasl_message(
        SaslState::Initiate,
        Some("TOKEN"),
        Some(b"nonce:secret"),
    ));
    let answer = must_fatal(&connection.receive(&context_frame(Some("root"))));
    assert_fatal(
        &answer,
        -3,
        RpcErrorCodeProto::FatalUnauthorized,
        "org.apache.hadoop.security.AccessControlException",
        "Authenticated user (appattempt_1_0001_000001) doesn't match what the client claims to be (root)",
    );
}

// --- whatever a peer sends ---------------------------------------------------------------------

fn valid_stream() -> Vec<u8> {
    let mut stream = SIMPLE_PREAMBLE.to_vec();
    stream.extend_from_slice(&context_frame(Some("alice")));
    stream.extend_from_slice(&RequestFrame::ping(&CLIENT_ID));
    stream.extend_from_slice(&call_frame(0, "getNewApplication", b"\x0a\x03abc"));
    stream.extend_from_slice(&call_frame(1, "submitApplication", b""));
    stream
}

/// Feeds `stream` in `cut`-byte pieces and checks the connection's invariants: nothing after a
/// close, a close is last, every send is a well-formed frame (or the HTTP answer).
fn check_invariants(connection: &mut IpcConnection, stream: &[u8], cut: usize) {
    let mut closed = false;
    for piece in stream.chunks(cut.max(1)) {
        let actions = connection.receive(piece);
        if closed {
            assert!(actions.is_empty(), "actions after a close: {actions:?}");
        }
        for (index, action) in actions.iter().enumerate() {
            match action {
                ConnectionAction::Send(bytes) if bytes.starts_with(b"HTTP/1.1") => {}
                ConnectionAction::Send(bytes) => drop(response(bytes)),
                ConnectionAction::Dispatch(_) => {}
                ConnectionAction::Close(_) => {
                    assert_eq!(index, actions.len() - 1, "close is the last action");
                    closed = true;
                }
            }
        }
        assert_eq!(closed, connection.is_closed());
    }
}

proptest! {
    #[test]
    fn a_mutated_stream_never_panics(changes in mutations(), cut in 1_usize..64) {
        let mut stream = valid_stream();
        for change in &changes {
            change.apply(&mut stream);
        }
        check_invariants(&mut simple_connection(), &stream, cut);
        let mut sasl = sasl_connection(true);
        let mut sasl_stream = sasl_message(SaslState::Negotiate, None, None).to_vec();
        let initiate = sasl_message(SaslState::Initiate, Some("TOKEN"), Some(b"nonce:secret"));
        sasl_stream.extend_from_slice(&initiate);
        sasl_stream.extend_from_slice(&context_frame(None));
        for change in &changes {
            change.apply(&mut sasl_stream);
        }
        check_invariants(&mut sasl, &sasl_stream, cut);
    }

    #[test]
    fn random_bytes_never_panic(
        bytes in proptest::collection::vec(any::<u8>(), 0..512),
        cut in 1_usize..64,
    ) {
        check_invariants(&mut simple_connection(), &bytes, cut);
        let mut after_preamble = SIMPLE_PREAMBLE.to_vec();
        after_preamble.extend_from_slice(&bytes);
        check_invariants(&mut simple_connection(), &after_preamble, cut);
    }
}
