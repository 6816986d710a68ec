//! Hadoop IPC for yarn-ha: the server side of Hadoop's own RPC (IPC version 9,
//! `ProtobufRpcEngine2`), so that Hadoop's YarnClient, AMRMClient and NMClient, and Spark on
//! YARN, can talk to yarn-ha unchanged; and a minimal client ([`IpcClient`]: SIMPLE or SASL
//! TOKEN, sequential calls) built from the same codec and digest, for yarn-ha's own tools and
//! tests.
//!
//! This crate is the protocol core only. It knows framing, connection set-up and call routing,
//! not YARN's operations: a daemon gives it a [`Dispatcher`] that decodes each call's request
//! message, runs the operation and encodes the answer. It depends on no other workspace crate.
//!
//! ```text
//!  Hadoop client ──TCP──▶ IpcServer::serve (listener) or ::serve_connection (a stream a daemon
//!                         │  accepted itself, e.g. after Protocol::sniff on a shared port)
//!                         ▼
//!                ConnectionHandler (one task per connection; calls and writer in owned sets)
//!                         │ bytes                                  ▲ frames, in the order
//!                         ▼                                        │ calls finish
//!                IpcConnection (pure state machine) ── Send ───────┤
//!                  "hrpc" 9 <class> <auth>  ─ Preamble             │
//!                  [SASL, call id -33]      ─ AuthPolicy: SaslMechanism / SaslExchange
//!                  context, call id -3      ─ Caller (user, how it was proven, protocol)
//!                  ping, call id -4         ─ no answer            │
//!                  calls, call id >= 0      ─ Dispatch(Call) ──▶ Dispatcher::call
//!                  anything malformed       ─ FATAL answer, Close      │
//!                                                                      ▼
//!                                      Ok(answer bytes)  ─▶ ResponseFrame::success
//!                                      Err(CallError)    ─▶ CallError::to_failure ─▶
//!                                                           ResponseFrame::failure (ERROR)
//! ```
//!
//! # Wire format
//!
//! A connection opens with a 7-byte [`Preamble`]. Then every client frame is a 4-byte
//! big-endian length ([`FrameDecoder`], limited by `ipc.maximum.data.length`) holding
//! varint-delimited messages: an `RpcRequestHeaderProto`, then, by call id, an
//! `RpcSaslProto` (-33), an `IpcConnectionContextProto` (-3), nothing (-4, a ping) or a
//! `RequestHeaderProto` and the request message (calls). Server frames ([`ResponseFrame`])
//! hold an `RpcResponseHeaderProto`, then the answer on SUCCESS only. The messages are in
//! [`pb`], compiled from yarn-ha's own proto2 files under `proto/`, which declare Hadoop's
//! fields with Hadoop's names, numbers, types, labels and defaults.
//!
//! # Errors
//!
//! - Bytes that are not Hadoop IPC are [`CodecError`]s; a connection answers them with the
//!   FATAL response Hadoop gives (or none where Hadoop gives none) and closes. Nothing a peer
//!   sends panics.
//! - A call that cannot be served is a [`CallError`], answered as an ERROR on an open
//!   connection. [`CallError::to_failure`] is the one mapping to Hadoop exception classes
//!   ([`ExceptionClass`]) and error codes.
//!
//! # Authentication
//!
//! [`AuthPolicy`] says which methods a server enables. SIMPLE is implemented; SASL methods
//! plug in as [`SaslMechanism`]s: TOKEN with DIGEST-MD5 is [`TokenSasl`], checking tokens
//! against the daemon's [`TokenSecrets`]; KERBEROS would be another. With no SASL
//! mechanism, a client that asks for SASL is refused with a FATAL `AccessControlException`
//! rather than downgraded to SIMPLE as a SIMPLE-only Hadoop server would.

mod auth_method;
mod auth_policy;
mod call;
mod call_error;
mod call_tag;
mod caller;
mod client;
mod codec_error;
mod connection;
mod connection_handler;
mod delimited;
mod digest_directives;
mod digest_md5;
mod dispatcher;
mod exception_class;
mod frame;
mod preamble;
mod request_frame;
mod response_frame;
mod rpc_failure;
mod sasl;
mod server;
mod server_config;
mod sniff;
mod token_exchange;
mod token_sasl;
mod token_secrets;
pub mod yarn_protocol;

pub use auth_method::AuthMethod;
pub use auth_policy::AuthPolicy;
pub use call::Call;
pub use call_error::CallError;
pub use call_tag::CallTag;
pub use caller::{Authentication, Caller};
pub use client::{ClientAuth, ClientError, DigestResponse, IpcClient};
pub use codec_error::CodecError;
pub use connection::{CloseReason, ConnectionAction, IpcConnection, MAX_SETUP_FRAME_LENGTH};
pub use delimited::{decode_delimited, put_delimited, put_delimited_bytes, take_delimited};
pub use dispatcher::Dispatcher;
pub use exception_class::ExceptionClass;
pub use frame::{DEFAULT_MAX_DATA_LENGTH, FrameDecoder, LENGTH_PREFIX_LEN, put_frame};
pub use preamble::{AuthProtocol, IPC_VERSION, MAGIC, PREAMBLE_LEN, Preamble};
pub use request_frame::RequestFrame;
pub use response_frame::ResponseFrame;
pub use rpc_failure::RpcFailure;
pub use sasl::{SaslExchange, SaslMechanism, SaslRefusal, SaslStep, SaslUser};
pub use server::IpcServer;
pub use server_config::IpcServerConfig;
pub use sniff::Protocol;
pub use token_sasl::TokenSasl;
pub use token_secrets::{TokenSecret, TokenSecrets};

/// The call id of the connection context.
pub const CONNECTION_CONTEXT_CALL_ID: i32 = -3;

/// The call id of a ping, which gets no answer.
pub const PING_CALL_ID: i32 = -4;

/// The call id of SASL messages, in both directions.
pub const SASL_CALL_ID: i32 = -33;

/// Hadoop's IPC messages, package `hadoop.common`, generated by prost from `proto/`. Proto2
/// `optional` fields are `Option`s with accessors returning Hadoop's defaults (`retry_count()`
/// is -1 when absent); `required` fields are plain values.
#[allow(clippy::all, missing_docs)]
pub mod pb {
    include!(concat!(env!("OUT_DIR"), "/hadoop.common.rs"));
}
