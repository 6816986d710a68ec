//! [`HadoopIpcShare`]: a Hadoop IPC server on a listener that also serves gRPC.

use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use yarn_ipc::{AuthPolicy, Dispatcher, IpcServer, IpcServerConfig};

use crate::{HadoopIpcSettings, Incoming};

/// How many accepted Hadoop IPC connections may wait for the IPC server to take them; one more
/// is dropped (see [`Incoming::sharing_with_hadoop_ipc`]).
const HANDOFF_BACKLOG: usize = 64;

/// The Hadoop IPC half of a shared listener, to be run beside the gRPC server of its
/// [`Incoming`].
pub struct HadoopIpcShare<D> {
    server: IpcServer<D>,
    handed_over: mpsc::Receiver<(TcpStream, std::net::SocketAddr)>,
}

impl<D: Dispatcher> HadoopIpcShare<D> {
    /// Shares `incoming`'s port with a Hadoop IPC server for `dispatcher` when `settings`
    /// enable Hadoop IPC (else returns `incoming` as it is and no server). The server's
    /// connections authenticate as `auth` allows within the port's TLS handshake time, carry
    /// frames of at most `ipc.maximum.data.length`, and are closed after the idle time of the
    /// port's gRPC connections.
    pub fn share(
        incoming: Incoming,
        settings: &HadoopIpcSettings,
        auth: AuthPolicy,
        dispatcher: D,
    ) -> (Incoming, Option<Self>) {
        if !settings.enabled {
            return (incoming, None);
        }
        let mut config = IpcServerConfig::new(auth);
        config.max_data_length = settings.max_data_length;
        config.idle_timeout = incoming.limits().idle_timeout;
        // Hadoop IPC's set-up is the counterpart of the TLS handshake, under the same bound.
        config.setup_timeout = incoming.limits().handshake_timeout;
        let (handoff, handed_over) = mpsc::channel(HANDOFF_BACKLOG);
        let share = HadoopIpcShare {
            server: IpcServer::new(dispatcher, config),
            handed_over,
        };
        (incoming.sharing_with_hadoop_ipc(handoff), Some(share))
    }

    /// Serves the connections handed over until `shutdown`, or until the [`Incoming`] is
    /// dropped (its gRPC server stopped); then closes them and returns.
    pub async fn serve(self, shutdown: CancellationToken) {
        self.server
            .serve_handed_over(self.handed_over, shutdown)
            .await;
    }

    /// [`serve`](Self::serve)s as a task of `tasks`, a daemon's set of server tasks, which it
    /// ends with `done`.
    pub fn serve_in<T: Send + 'static>(
        self,
        tasks: &mut JoinSet<T>,
        shutdown: &CancellationToken,
        done: T,
    ) {
        let shutdown = shutdown.clone();
        tasks.spawn(async move {
            self.serve(shutdown).await;
            done
        });
    }
}
