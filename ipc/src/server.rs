//! The async shell: a listener, and connections handed over from elsewhere.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use crate::connection_handler::ConnectionHandler;
use crate::{Dispatcher, IpcServerConfig};

/// A Hadoop IPC server: reads connections with [`IpcConnection`](crate::IpcConnection) and
/// serves their calls through a [`Dispatcher`].
///
/// It takes its transport from outside: [`IpcServer::serve`] accepts on a listener the daemon
/// bound, and [`IpcServer::serve_connection`] serves one stream the daemon accepted itself (for
/// example after telling Hadoop IPC from TLS on a shared port with
/// [`Protocol::sniff`](crate::Protocol::sniff)).
pub struct IpcServer<D> {
    dispatcher: Arc<D>,
    config: Arc<IpcServerConfig>,
}

impl<D> Clone for IpcServer<D> {
    fn clone(&self) -> Self {
        IpcServer {
            dispatcher: Arc::clone(&self.dispatcher),
            config: Arc::clone(&self.config),
        }
    }
}

impl<D: Dispatcher> IpcServer<D> {
    /// A server for `dispatcher`.
    pub fn new(dispatcher: D, config: IpcServerConfig) -> Self {
        IpcServer {
            dispatcher: Arc::new(dispatcher),
            config: Arc::new(config),
        }
    }

    /// Accepts connections on `listener` and serves them until `shutdown` is cancelled, then
    /// stops accepting, drops the calls in flight, closes every connection and returns once
    /// all of them are gone. Accept errors (out of file descriptors, a connection reset before
    /// it was accepted) are logged and retried after a pause; they do not end the server.
    ///
    /// At most `max_connections` connections are open at once.
    pub async fn serve(&self, listener: TcpListener, shutdown: CancellationToken) {
        let slots = Arc::new(Semaphore::new(self.config.max_connections));
        let mut connections = JoinSet::new();
        loop {
            let slot = tokio::select! {
                _ = shutdown.cancelled() => break,
                slot = Arc::clone(&slots).acquire_owned() => {
                    slot.expect("the semaphore is never closed")
                }
            };
            let accepted = tokio::select! {
                _ = shutdown.cancelled() => break,
                accepted = listener.accept() => accepted,
            };
            // Reap finished connections so the set does not grow with the server's age.
            while connections.try_join_next().is_some() {}
            match accepted {
                Ok((stream, peer)) => {
                    if let Err(err) = stream.set_nodelay(true) {
                        tracing::debug!(%peer, error = %err, "could not set TCP_NODELAY");
                    }
                    let server = self.clone();
                    let shutdown = shutdown.clone();
                    connections.spawn(async move {
                        server
                            .serve_connection(stream, Some(peer), Bytes::new(), shutdown)
                            .await;
                        drop(slot);
                    });
                }
                Err(err) => {
                    tracing::warn!(error = %err, "Hadoop IPC accept failed; retrying");
                    tokio::select! {
                        _ = shutdown.cancelled() => break,
                        _ = tokio::time::sleep(Duration::from_millis(100)) => {}
                    }
                }
            }
        }
        while connections.join_next().await.is_some() {}
    }

    /// Serves the connections another listener hands over (see [`Protocol::sniff`](
    /// crate::Protocol::sniff)), with none of their bytes taken, until `shutdown` is cancelled
    /// or every sender is gone; then drops the calls in flight, closes every connection and
    /// returns once all of them are gone. At most `max_connections` are served at once; one
    /// more waits in the channel until a connection ends.
    pub async fn serve_handed_over(
        &self,
        mut handed_over: mpsc::Receiver<(TcpStream, SocketAddr)>,
        shutdown: CancellationToken,
    ) {
        // The connections end with this loop, whichever way it ends, and only they do: the
        // caller's token may stop more than this server.
        let shutdown = shutdown.child_token();
        let slots = Arc::new(Semaphore::new(self.config.max_connections));
        let mut connections = JoinSet::new();
        loop {
            let slot = tokio::select! {
                _ = shutdown.cancelled() => break,
                slot = Arc::clone(&slots).acquire_owned() => {
                    slot.expect("the semaphore is never closed")
                }
            };
            let (stream, peer) = tokio::select! {
                _ = shutdown.cancelled() => break,
                next = handed_over.recv() => match next {
                    Some(connection) => connection,
                    None => break,
                },
            };
            // Reap finished connections so the set does not grow with the server's age.
            while connections.try_join_next().is_some() {}
            let server = self.clone();
            let shutdown = shutdown.clone();
            connections.spawn(async move {
                server
                    .serve_connection(stream, Some(peer), Bytes::new(), shutdown)
                    .await;
                drop(slot);
            });
        }
        shutdown.cancel();
        while connections.join_next().await.is_some() {}
    }

    /// Serves one connection until it closes or `shutdown` is cancelled. `read_ahead` holds
    /// bytes already read from `stream` (such as the ones sniffed to choose this server); they
    /// are taken as the connection's first bytes. The outcome is logged, not returned: a
    /// connection's failure is its peer's business.
    pub async fn serve_connection<S>(
        &self,
        stream: S,
        peer: Option<SocketAddr>,
        read_ahead: Bytes,
        shutdown: CancellationToken,
    ) where
        S: AsyncRead + AsyncWrite + Send + 'static,
    {
        let handler = ConnectionHandler::new(
            Arc::clone(&self.dispatcher),
            Arc::clone(&self.config),
            peer,
            shutdown,
        );
        handler.run(stream, read_ahead).await;
    }
}
