//! One connection's task: feeds the state machine, runs its calls, writes its answers.

use std::collections::{HashMap, VecDeque};
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;

use bytes::{Bytes, BytesMut};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadHalf, WriteHalf};
use tokio::sync::mpsc;
use tokio::task::{self, JoinSet};
use tokio_util::sync::CancellationToken;

use crate::pb::rpc_response_header_proto::RpcErrorCodeProto;
use crate::{
    Call, CallTag, CloseReason, ConnectionAction, Dispatcher, ExceptionClass, IpcConnection,
    IpcServerConfig, ResponseFrame, RpcFailure,
};

/// How much is read from the socket at a time.
const READ_CHUNK: usize = 64 * 1024;

/// Serves one connection: reads bytes into its [`IpcConnection`], runs the calls it yields on
/// the dispatcher (at most `max_calls_per_connection` at once, answers written as they finish)
/// and carries out its sends and close.
///
/// The reading happens in the handler's own task; each call and the writer run in tasks of
/// sets the handler owns, so nothing outlives it. Frames go to the writer through a channel of
/// `max_calls_per_connection + 1` frames: a client that does not read its answers stops the
/// calls, then the reading, instead of growing a queue.
pub(crate) struct ConnectionHandler<D> {
    dispatcher: Arc<D>,
    config: Arc<IpcServerConfig>,
    connection: IpcConnection,
    peer: Option<SocketAddr>,
    shutdown: CancellationToken,
}

/// Why the reading stopped.
enum ReadEnd {
    /// The state machine closed the connection (after a FATAL answer, or a peer that does not
    /// speak Hadoop IPC).
    Closed(CloseReason),
    /// The peer closed its side.
    PeerClosed,
    /// Nothing arrived for `idle_timeout` with no call in flight.
    Idle,
    /// The set-up did not complete within `setup_timeout`.
    SetupTimedOut,
    /// The socket failed, or the writer did.
    Failed(io::Error),
    /// The server is shutting down.
    Shutdown,
}

impl<D: Dispatcher> ConnectionHandler<D> {
    pub(crate) fn new(
        dispatcher: Arc<D>,
        config: Arc<IpcServerConfig>,
        peer: Option<SocketAddr>,
        shutdown: CancellationToken,
    ) -> Self {
        let connection = IpcConnection::new(Arc::clone(&config.auth), config.max_data_length, peer);
        ConnectionHandler {
            dispatcher,
            config,
            connection,
            peer,
            shutdown,
        }
    }

    /// Serves the connection to its end. Cancellation: when `shutdown` fires, calls in flight
    /// are dropped and the socket closes without waiting for anything.
    pub(crate) async fn run<S>(mut self, stream: S, read_ahead: Bytes)
    where
        S: AsyncRead + AsyncWrite + Send + 'static,
    {
        let (mut reader, writer) = tokio::io::split(stream);
        let (frames, outgoing) = mpsc::channel(self.config.max_calls_per_connection + 1);
        let mut writing = JoinSet::new();
        writing.spawn(write_frames(writer, outgoing, self.shutdown.clone()));
        let mut calls = JoinSet::new();

        let end = self.read(&mut reader, read_ahead, frames, &mut calls).await;
        let peer = self.peer;
        match &end {
            ReadEnd::Closed(CloseReason::Fatal(failure)) => {
                let class = failure.class.java_name();
                let message = &failure.message;
                tracing::info!(?peer, class, %message, "Hadoop IPC connection refused");
            }
            ReadEnd::Closed(CloseReason::NotHadoopIpc(err)) => {
                tracing::info!(?peer, error = %err, "not a Hadoop IPC client");
            }
            ReadEnd::Failed(err) => {
                tracing::debug!(?peer, error = %err, "Hadoop IPC connection failed")
            }
            ReadEnd::Idle => tracing::debug!(?peer, "idle Hadoop IPC connection closed"),
            ReadEnd::SetupTimedOut => {
                tracing::info!(
                    ?peer,
                    "Hadoop IPC connection closed: its set-up took too long"
                )
            }
            ReadEnd::PeerClosed | ReadEnd::Shutdown => {}
        }

        // Calls in flight run to their end when only the client left; otherwise no answer can
        // follow (a FATAL answer was the last word, or the socket or the server is going away).
        if matches!(end, ReadEnd::PeerClosed) {
            tokio::select! {
                _ = self.shutdown.cancelled() => calls.abort_all(),
                _ = async { while calls.join_next().await.is_some() {} } => {}
            }
        } else {
            calls.abort_all();
        }
        while calls.join_next().await.is_some() {}

        // Every sender is gone now: the writer flushes what is queued, then half-closes.
        match end {
            ReadEnd::Shutdown | ReadEnd::Failed(_) | ReadEnd::SetupTimedOut => writing.abort_all(),
            ReadEnd::Closed(_) | ReadEnd::PeerClosed | ReadEnd::Idle => {
                if tokio::time::timeout(self.config.linger, writing.join_next())
                    .await
                    .is_err()
                {
                    writing.abort_all();
                }
            }
        }
        if let ReadEnd::Closed(_) = end {
            // Read what the client still sends until it closes, so that closing the socket with
            // unread bytes does not reset the connection before the client read the answer.
            let mut sink = vec![0_u8; READ_CHUNK];
            let drain = async { while matches!(reader.read(&mut sink).await, Ok(n) if n > 0) {} };
            let _ = tokio::time::timeout(self.config.linger, drain).await;
        }
    }

    /// Reads and carries out actions until the connection ends. Owns `frames` so that the
    /// writer sees the end of the channel once the calls holding clones are gone.
    async fn read<S: AsyncRead>(
        &mut self,
        reader: &mut ReadHalf<S>,
        read_ahead: Bytes,
        frames: mpsc::Sender<Bytes>,
        calls: &mut JoinSet<()>,
    ) -> ReadEnd {
        let max_calls = self.config.max_calls_per_connection.max(1);
        let mut pending: VecDeque<Call> = VecDeque::new();
        // The tag of each call in flight, to answer a call whose dispatcher panicked.
        let mut in_flight: HashMap<task::Id, CallTag> = HashMap::new();
        let mut buf = BytesMut::with_capacity(READ_CHUNK);
        let mut actions = self.connection.receive(&read_ahead);
        let setup_deadline = tokio::time::Instant::now() + self.config.setup_timeout;
        loop {
            for action in actions.drain(..) {
                match action {
                    ConnectionAction::Send(bytes) => {
                        if let Err(end) = send(&self.shutdown, &frames, bytes).await {
                            return end;
                        }
                    }
                    ConnectionAction::Dispatch(call) => pending.push_back(call),
                    ConnectionAction::Close(reason) => return ReadEnd::Closed(reason),
                }
            }
            while calls.len() < max_calls {
                let Some(call) = pending.pop_front() else {
                    break;
                };
                let tag = call.tag.clone();
                let task = calls.spawn(answer(Arc::clone(&self.dispatcher), call, frames.clone()));
                in_flight.insert(task.id(), tag);
            }
            let may_read = pending.is_empty() && calls.len() < max_calls;
            let idle = calls.is_empty();
            tokio::select! {
                _ = self.shutdown.cancelled() => return ReadEnd::Shutdown,
                Some(done) = calls.join_next_with_id(), if !calls.is_empty() => {
                    if let Some(frame) = self.reap(done, &mut in_flight) {
                        if let Err(end) = send(&self.shutdown, &frames, frame).await {
                            return end;
                        }
                    }
                }
                read = reader.read_buf(&mut buf), if may_read => match read {
                    Ok(0) => return ReadEnd::PeerClosed,
                    Ok(_) => {
                        actions = self.connection.receive(&buf);
                        buf.clear();
                    }
                    Err(err) => return ReadEnd::Failed(err),
                },
                _ = tokio::time::sleep(self.config.idle_timeout), if idle => return ReadEnd::Idle,
                _ = tokio::time::sleep_until(setup_deadline), if self.connection.caller().is_none() => {
                    return ReadEnd::SetupTimedOut;
                }
            }
        }
    }

    /// Forgets a finished call; for a call whose dispatcher panicked, returns the ERROR answer
    /// its client is owed.
    fn reap(
        &self,
        done: Result<(task::Id, ()), task::JoinError>,
        in_flight: &mut HashMap<task::Id, CallTag>,
    ) -> Option<Bytes> {
        let err = match done {
            Ok((id, ())) => {
                in_flight.remove(&id);
                return None;
            }
            Err(err) => err,
        };
        let tag = in_flight.remove(&err.id())?;
        if !err.is_panic() {
            return None;
        }
        tracing::error!(peer = ?self.peer, call_id = tag.call_id, "a Hadoop IPC call panicked");
        let failure = RpcFailure::error(
            RpcErrorCodeProto::ErrorRpcServer,
            ExceptionClass::RpcServerException,
            "the server failed while serving this call",
        );
        Some(ResponseFrame::failure(&tag, &failure))
    }
}

/// Queues a frame for the writer, unless the server shuts down first or the writer is gone.
async fn send(
    shutdown: &CancellationToken,
    frames: &mpsc::Sender<Bytes>,
    frame: Bytes,
) -> Result<(), ReadEnd> {
    tokio::select! {
        _ = shutdown.cancelled() => Err(ReadEnd::Shutdown),
        sent = frames.send(frame) => {
            sent.map_err(|_| ReadEnd::Failed(io::ErrorKind::BrokenPipe.into()))
        }
    }
}

/// Runs one call and queues its answer. If the writer is gone the answer is dropped: the
/// connection is closing.
async fn answer<D: Dispatcher>(dispatcher: Arc<D>, call: Call, frames: mpsc::Sender<Bytes>) {
    let tag = call.tag.clone();
    let frame = match dispatcher.call(call).await {
        Ok(answer) => ResponseFrame::success(&tag, &answer),
        Err(err) => ResponseFrame::failure(&tag, &err.to_failure()),
    };
    let _ = frames.send(frame).await;
}

/// Writes frames as they come until every sender is gone, then half-closes the socket.
async fn write_frames<S: AsyncWrite>(
    mut writer: WriteHalf<S>,
    mut frames: mpsc::Receiver<Bytes>,
    shutdown: CancellationToken,
) {
    loop {
        let frame = tokio::select! {
            _ = shutdown.cancelled() => return,
            frame = frames.recv() => frame,
        };
        let Some(frame) = frame else { break };
        let written = tokio::select! {
            _ = shutdown.cancelled() => return,
            written = writer.write_all(&frame) => written,
        };
        if written.is_err() {
            return;
        }
    }
    let _ = writer.shutdown().await;
}
