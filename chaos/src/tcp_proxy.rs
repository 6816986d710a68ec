//! [`TcpProxy`]: a fault-injecting TCP proxy in front of one endpoint.
//!
//! ```text
//!  caller ──TCP──▶ TcpProxy (front, 127.0.0.1) ──TCP──▶ upstream (the real endpoint)
//!                   │ on accept: SourceResolver names the caller (a Peer)
//!                   │ per chunk, per direction: NetworkRules::direction(from, to)
//!                   │   Pass: forward now · Delay(d): forward d later, in order · Drop: discard
//!                   │ both directions dropped at accept: hold the caller, never dial upstream
//!                   └ rules change to or from a drop: close the connection (its byte stream
//!                     lost data, so TLS above it is broken; the caller reconnects)
//! ```
//!
//! The proxy forwards bytes, not messages: TLS runs end to end through it, so it never sees a
//! key or a request.

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, mpsc, watch};
use tokio::task::{JoinHandle, JoinSet};
use tokio::time::{Instant, sleep_until, timeout};

use crate::connection_source::SourceResolver;
use crate::network_rules::{Direction, NetworkRules, Peer};

/// Connections one proxy carries at a time; more are refused (closed at once).
pub const MAX_CONNECTIONS: usize = 256;

/// How long dialing the upstream may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

/// Bytes read at a time.
const CHUNK: usize = 16 * 1024;

/// Chunks queued per direction while they wait out a delay; a full queue stops reading, so a
/// delayed link cannot make the proxy buffer without bound.
const QUEUED_CHUNKS: usize = 64;

/// The rules every proxy of a cluster follows; a change reaches every connection at once.
pub type RulesReceiver = watch::Receiver<Arc<NetworkRules>>;

/// A listening proxy. Dropping it stops it: the accept task and every connection task are
/// aborted, which closes every socket it holds.
#[derive(Debug)]
pub struct TcpProxy {
    address: SocketAddr,
    task: JoinHandle<()>,
}

impl TcpProxy {
    /// Listens on `listen` (a loopback address) and forwards each accepted connection to
    /// `upstream`, which is the daemon `destination`, under `rules`. `sources` names each
    /// caller.
    ///
    /// # Errors
    ///
    /// When `listen` is not a loopback address or cannot be bound (in use, say).
    pub async fn bind(
        listen: SocketAddr,
        upstream: SocketAddr,
        destination: Peer,
        rules: RulesReceiver,
        sources: Arc<dyn SourceResolver>,
    ) -> io::Result<Self> {
        if !listen.ip().is_loopback() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("a chaos proxy listens on loopback only, not on {listen}"),
            ));
        }
        let listener = TcpListener::bind(listen).await?;
        let address = listener.local_addr()?;
        let link = Arc::new(Link {
            upstream,
            destination,
            sources,
        });
        let task = tokio::spawn(accept_loop(listener, link, rules));
        Ok(Self { address, task })
    }

    /// The address it listens on.
    pub fn address(&self) -> SocketAddr {
        self.address
    }
}

impl Drop for TcpProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// What every connection of one proxy shares.
struct Link {
    upstream: SocketAddr,
    destination: Peer,
    sources: Arc<dyn SourceResolver>,
}

async fn accept_loop(listener: TcpListener, link: Arc<Link>, rules: RulesReceiver) {
    // Owned by this task: aborting it drops the set, which aborts every connection.
    let mut connections = JoinSet::new();
    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, caller)) => {
                    let Ok(slot) = Arc::clone(&slots).try_acquire_owned() else {
                        tracing::warn!(%caller, "chaos proxy full; refusing a connection");
                        continue;
                    };
                    let (link, rules) = (Arc::clone(&link), rules.clone());
                    connections.spawn(async move {
                        serve(stream, caller, link, rules).await;
                        drop(slot);
                    });
                }
                Err(err) => {
                    // Out of descriptors, say: concerns this connection; pause, then go on.
                    tracing::warn!("chaos proxy accept failed: {err}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
}

async fn serve(client: TcpStream, caller: SocketAddr, link: Arc<Link>, mut rules: RulesReceiver) {
    let Ok(front) = client.local_addr() else {
        return;
    };
    let sources = Arc::clone(&link.sources);
    let source = tokio::task::spawn_blocking(move || sources.resolve(caller, front))
        .await
        .unwrap_or(Peer::Unknown);
    let directions = rules
        .borrow_and_update()
        .connection(&source, &link.destination);
    tracing::debug!(
        %caller,
        %source,
        destination = %link.destination,
        ?directions,
        "chaos proxy connection"
    );
    if directions.0.drops() && directions.1.drops() {
        hold(client, &mut rules).await;
        return;
    }
    let upstream = match timeout(CONNECT_TIMEOUT, TcpStream::connect(link.upstream)).await {
        Ok(Ok(upstream)) => upstream,
        // The daemon is down or not listening yet: closing the caller's connection is what a
        // refused connection looks like through a proxy.
        _ => return,
    };
    // Small RPCs must not wait for Nagle's algorithm, or every hop adds latency.
    let _ = client.set_nodelay(true);
    let _ = upstream.set_nodelay(true);
    let (client_read, client_write) = client.into_split();
    let (upstream_read, upstream_write) = upstream.into_split();
    let forward = pump(
        client_read,
        upstream_write,
        (source.clone(), link.destination.clone()),
        rules.clone(),
    );
    let backward = pump(
        upstream_read,
        client_write,
        (link.destination.clone(), source.clone()),
        rules.clone(),
    );
    tokio::select! {
        _ = async { tokio::join!(forward, backward) } => {}
        () = broken_by_change(&mut rules, &source, &link.destination, directions) => {}
    }
}

/// Holds a blackholed connection: reads and discards what the caller sends, forwards nothing,
/// and closes it when the rules change (so the caller reconnects under the new rules) or the
/// caller leaves.
async fn hold(mut client: TcpStream, rules: &mut RulesReceiver) {
    let mut buffer = vec![0_u8; CHUNK];
    loop {
        tokio::select! {
            read = client.read(&mut buffer) => match read {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            },
            // A change (or the rules' owner going away with the proxies) ends the hold.
            _ = rules.changed() => return,
        }
    }
}

/// Resolves when the rules change in a way that involves dropping bytes on this connection:
/// the stream lost (or is about to lose) bytes, so the connection must go.
async fn broken_by_change(
    rules: &mut RulesReceiver,
    source: &Peer,
    destination: &Peer,
    mut current: (Direction, Direction),
) {
    loop {
        if rules.changed().await.is_err() {
            return;
        }
        let next = rules.borrow_and_update().connection(source, destination);
        let drops = |(a, b): (Direction, Direction)| a.drops() || b.drops();
        if next != current && (drops(current) || drops(next)) {
            return;
        }
        current = next;
    }
}

/// Copies one direction, `from` to `to`, chunk by chunk under the rules: dropped chunks are
/// discarded, delayed ones queued with their due time, and the write side shut down when the
/// read side ends.
async fn pump(
    mut reader: impl AsyncRead + Unpin,
    mut writer: impl AsyncWrite + Unpin,
    (from, to): (Peer, Peer),
    rules: RulesReceiver,
) {
    let (queue, mut due) = mpsc::channel::<(Instant, Vec<u8>)>(QUEUED_CHUNKS);
    let read = async move {
        let mut buffer = vec![0_u8; CHUNK];
        loop {
            let read = match reader.read(&mut buffer).await {
                Ok(0) | Err(_) => return,
                Ok(read) => read,
            };
            let direction = rules.borrow().direction(&from, &to);
            let at = match direction {
                Direction::Drop => continue,
                Direction::Pass => Instant::now(),
                Direction::Delay(delay) => Instant::now() + delay,
            };
            if queue.send((at, buffer[..read].to_vec())).await.is_err() {
                return;
            }
        }
    };
    let write = async move {
        while let Some((at, chunk)) = due.recv().await {
            sleep_until(at).await;
            if writer.write_all(&chunk).await.is_err() {
                return;
            }
        }
        let _ = writer.shutdown().await;
    };
    tokio::join!(read, write);
}
