//! The client side of Hadoop IPC: [`IpcClient`] opens a connection (SIMPLE, or SASL TOKEN with
//! DIGEST-MD5) and makes calls one after another, with the crate's codec.

mod client_auth;
mod client_error;
mod digest_response;
mod frame_stream;
mod ipc_client;
mod token_handshake;

pub use client_auth::ClientAuth;
pub use client_error::ClientError;
pub use digest_response::DigestResponse;
pub use ipc_client::IpcClient;
