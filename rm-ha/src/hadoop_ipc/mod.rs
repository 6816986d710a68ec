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

mod am_dispatcher;
mod call_refusal;
mod client_dispatcher;
mod records;
mod single_reports;

use std::sync::Arc;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use yarn_ipc::{AuthPolicy, Dispatcher, TokenSasl};
use yarn_security::{HadoopIpcSettings, HadoopIpcShare, Incoming};

pub(crate) use am_dispatcher::{AmDispatcher, AmrmTokenSecrets};
pub(crate) use client_dispatcher::ClientDispatcher;

use crate::error::Error;

/// `incoming`, sharing its port with a Hadoop IPC server for `dispatcher` when `settings`
/// enable Hadoop IPC (see [`HadoopIpcShare`]); the server runs in `tasks` until `shutdown`, or
/// until `incoming` is dropped.
pub(crate) fn share_port<D: Dispatcher>(
    incoming: Incoming,
    settings: &HadoopIpcSettings,
    auth: AuthPolicy,
    dispatcher: D,
    tasks: &mut JoinSet<Result<(), Error>>,
    shutdown: &CancellationToken,
) -> Incoming {
    let (incoming, share) = HadoopIpcShare::share(incoming, settings, auth, dispatcher);
    if let Some(share) = share {
        share.serve_in(tasks, shutdown, Ok(()));
    }
    incoming
}

/// How ApplicationMasters authenticate on the scheduler port: with their AMRMToken over SASL
/// DIGEST-MD5, never by a claimed name.
pub(crate) fn am_auth(secrets: AmrmTokenSecrets) -> AuthPolicy {
    AuthPolicy::new(vec![Arc::new(TokenSasl::new(Arc::new(secrets)))], false)
}

/// How a port's Hadoop IPC callers that hold no token may authenticate: by the name they claim
/// when the operator enabled simple authentication, else not at all.
pub(crate) fn client_auth(settings: &HadoopIpcSettings) -> AuthPolicy {
    AuthPolicy::new(Vec::new(), settings.simple_authentication)
}
