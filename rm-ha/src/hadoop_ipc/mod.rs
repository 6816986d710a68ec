//! Hadoop's own RPC on the ResourceManager's client and scheduler ports, beside gRPC, for
//! Hadoop's client libraries and Spark (`yarn.hadoop-ipc.enabled`).
//!
//! ```text
//!  port 8032 ─ Incoming ─┬─ TLS ──▶ gRPC ClientService ─────┐
//!                        └─ hrpc ─▶ IpcServer(ClientDispatcher) ┴─▶ ClientOperations
//! ```
//!
//! Each dispatcher is a thin adapter onto the operations the gRPC services call; requests and
//! answers are converted by `yarn_hadoop_records`, and [`RmError`](crate::operations::RmError)
//! becomes a Hadoop exception in one place (`call_refusal`).

mod call_refusal;
mod client_dispatcher;
mod records;

use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use yarn_ipc::{AuthPolicy, Dispatcher, IpcServer, IpcServerConfig};
use yarn_security::{HadoopIpcSettings, Incoming, TlsConfig};

pub(crate) use client_dispatcher::ClientDispatcher;

use crate::error::Error;

/// How many accepted Hadoop IPC connections may wait for the IPC server to take them.
const HANDOFF_BACKLOG: usize = 64;

/// `incoming`, sharing its port with a Hadoop IPC server for `dispatcher` when `settings`
/// enable Hadoop IPC; the server runs in `tasks` until `shutdown`, or until `incoming` is
/// dropped. Its connections authenticate as `auth` allows, are closed after the same idle time
/// as the port's gRPC connections, and carry frames of at most `ipc.maximum.data.length`.
pub(crate) fn share_port<D: Dispatcher>(
    incoming: Incoming,
    settings: &HadoopIpcSettings,
    tls: &TlsConfig,
    auth: AuthPolicy,
    dispatcher: D,
    tasks: &mut JoinSet<Result<(), Error>>,
    shutdown: &CancellationToken,
) -> Incoming {
    if !settings.enabled {
        return incoming;
    }
    let mut config = IpcServerConfig::new(auth);
    config.max_data_length = settings.max_data_length;
    config.idle_timeout = tls.connection_limits().idle_timeout;
    let server = IpcServer::new(dispatcher, config);
    let (handoff, handed_over) = mpsc::channel(HANDOFF_BACKLOG);
    let shutdown = shutdown.clone();
    tasks.spawn(async move {
        server.serve_handed_over(handed_over, shutdown).await;
        Ok(())
    });
    incoming.sharing_with_hadoop_ipc(handoff)
}

/// How a port's Hadoop IPC callers that hold no token may authenticate: by the name they claim
/// when the operator enabled simple authentication, else not at all.
pub(crate) fn client_auth(settings: &HadoopIpcSettings) -> AuthPolicy {
    AuthPolicy::new(Vec::new(), settings.simple_authentication)
}
