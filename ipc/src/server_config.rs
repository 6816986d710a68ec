//! The server's settings.

use std::sync::Arc;
use std::time::Duration;

use crate::{AuthPolicy, DEFAULT_MAX_DATA_LENGTH};

/// How an [`IpcServer`](crate::IpcServer) serves connections. The daemon builds it from its
/// typed configuration; nothing here reads configuration files.
#[derive(Debug, Clone)]
pub struct IpcServerConfig {
    /// Which authentication methods connections may use.
    pub auth: Arc<AuthPolicy>,
    /// The longest frame accepted, in bytes (`ipc.maximum.data.length`; Hadoop's default,
    /// 128 MiB, by default). A connection buffers at most one frame of this size plus one read.
    pub max_data_length: u32,
    /// Calls of one connection served at once. When this many are in flight, the connection
    /// stops reading until one finishes, so a client cannot queue unbounded work.
    pub max_calls_per_connection: usize,
    /// Connections [`IpcServer::serve`](crate::IpcServer::serve) holds open at once; at the
    /// limit it stops accepting (new connections wait in the listen backlog). Connections
    /// handed over through `serve_connection` are the caller's to count.
    pub max_connections: usize,
    /// A connection that has not completed its set-up (preamble, SASL, connection context)
    /// this long after it was handed to the server is closed, however much it sends meanwhile:
    /// an unauthenticated peer cannot hold a connection slot by trickling bytes.
    pub setup_timeout: Duration,
    /// A connection with no call in flight that sends nothing for this long is closed.
    /// Hadoop's client closes its own idle connections after 10 s and pings while it waits.
    pub idle_timeout: Duration,
    /// After a FATAL answer, how long to wait for it to be written and for the client to close
    /// its side, so the answer is not lost to a reset; also how long answers to calls may take
    /// to go out after the client closed its side.
    pub linger: Duration,
}

impl IpcServerConfig {
    /// The defaults, with `auth`: 128 MiB frames, 128 calls per connection, 1024 connections,
    /// 10 seconds to set up, 2 minutes idle, 2 seconds linger.
    pub fn new(auth: AuthPolicy) -> Self {
        IpcServerConfig {
            auth: Arc::new(auth),
            max_data_length: DEFAULT_MAX_DATA_LENGTH,
            max_calls_per_connection: 128,
            max_connections: 1024,
            setup_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(120),
            linger: Duration::from_secs(2),
        }
    }
}
