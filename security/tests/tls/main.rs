//! Mutual TLS end to end: real sockets on 127.0.0.1, real rustls and a real tonic service.
//!
//! One test binary (with these modules) to save link time.

mod anonymous;
mod config;
mod connection_limits;
mod hadoop_ipc_sharing;
mod mutual_tls;
mod plaintext;
mod support;
