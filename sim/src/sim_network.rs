//! Every connection of a simulated run on turmoil's simulated TCP: the real gRPC stack, without
//! TLS.
//!
//! What is bypassed: the TLS handshake and record layer. In a replica a caller's identity is
//! the verified name of its certificate; here a replica's is the name of the simulated host
//! whose address the connection comes from, which the simulated network cannot forge, so the
//! checks the Raft service makes on it (the caller is a current member, the ids in the payload
//! are the caller's own) run unchanged. NodeManagers, ApplicationMasters and clients connect
//! without an identity, as with `yarn.tls.enabled` false: the checks that compare a caller's
//! name with its request (a NodeManager reporting only for itself) have nothing to compare, and
//! the replicas' services accept anonymous callers, where a replica with TLS refuses them.
//!
//! Partitions are [`Links`], not turmoil's own: turmoil drops the bytes a partition catches in
//! the middle of a TCP stream and delivers the later ones, which no real TCP connection does
//! (it retransmits until the link heals). A cut link holds every write in its direction until
//! it is repaired, as TCP's retransmissions do, so the byte streams stay whole.

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use futures_util::Stream;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tonic::transport::server::Connected;
use tonic::transport::{Endpoint, Uri};
use turmoil::net::TcpStream;
use yarn_security::{Dialer, PeerIdentity, PeerInfo, Role};

/// The harness's hold on the network of a run, shared by every host: the links it has cut,
/// by sending and receiving host, and every open connection end, which the crash of its host
/// closes without a word, and which the crash of its peer's process, or the return of its
/// peer's machine, resets.
#[derive(Clone, Debug, Default)]
pub(crate) struct Links {
    inner: Arc<Mutex<CutLinks>>,
}

#[derive(Debug, Default)]
struct CutLinks {
    /// How many faults in force cut each link: overlapping partitions end with the last.
    cut: BTreeMap<(String, String), u32>,
    /// Writers held by a cut, woken at every repair and every reset.
    held: Vec<Waker>,
    /// Every open connection end, by the order it opened in.
    ends: BTreeMap<u64, End>,
    next_end: u64,
}

/// One connection end of host `host` to host `peer`.
#[derive(Debug)]
struct End {
    host: String,
    peer: String,
    stream: Weak<Mutex<Option<TcpStream>>>,
    /// Set when the peer's process crashed or its machine came back: every later call fails
    /// as a reset would.
    reset: bool,
    /// The reader waiting on it, woken by a reset.
    reader: Option<Waker>,
}

impl Links {
    fn lock(&self) -> MutexGuard<'_, CutLinks> {
        // Every update is one insert or removal, so a poisoned set is consistent.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Holds everything `from` sends to `to` until as many [`repair`](Self::repair)s.
    pub(crate) fn cut(&self, from: &str, to: &str) {
        *self
            .lock()
            .cut
            .entry((from.to_owned(), to.to_owned()))
            .or_default() += 1;
    }

    /// Ends one cut of the link from `from` to `to`; when none is left, what it held flows.
    pub(crate) fn repair(&self, from: &str, to: &str) {
        let held = {
            let mut links = self.lock();
            let link = (from.to_owned(), to.to_owned());
            match links.cut.get_mut(&link) {
                Some(count) if *count > 1 => {
                    *count -= 1;
                    return;
                }
                _ => links.cut.remove(&link),
            };
            std::mem::take(&mut links.held)
        };
        held.into_iter().for_each(Waker::wake);
    }

    /// Keeps `stream`, a connection end of `host` to `peer`, where [`silence`](Self::silence)
    /// and [`reset_peers_of`](Self::reset_peers_of) can reach it; returns its number and the
    /// stream's cell.
    fn open(
        &self,
        host: &str,
        peer: &str,
        stream: TcpStream,
    ) -> (u64, Arc<Mutex<Option<TcpStream>>>) {
        let cell = Arc::new(Mutex::new(Some(stream)));
        let mut links = self.lock();
        let id = links.next_end;
        links.next_end += 1;
        links.ends.insert(
            id,
            End {
                host: host.to_owned(),
                peer: peer.to_owned(),
                stream: Arc::downgrade(&cell),
                reset: false,
                reader: None,
            },
        );
        (id, cell)
    }

    /// Forgets end `id`, dropped by its host.
    fn close(&self, id: u64) {
        self.lock().ends.remove(&id);
    }

    /// Drops every connection end of `host` from outside the simulation, where turmoil sends
    /// nothing for them: no FIN, no RST. Called just before the host crashes, so that its own
    /// sockets vanish with it. It keeps replays exact: dropped by the crash, the ends would send
    /// their FINs in the order tokio drops a runtime's tasks, which hangs on task ids counted
    /// across the whole process, and each FIN draws its latency from the run's seeded
    /// generator.
    pub(crate) fn silence(&self, host: &str) {
        let streams: Vec<_> = {
            let mut links = self.lock();
            let ids: Vec<u64> = links
                .ends
                .iter()
                .filter(|(_, end)| end.host == host)
                .map(|(id, _)| *id)
                .collect();
            ids.iter()
                .filter_map(|id| links.ends.remove(id))
                .filter_map(|end| end.stream.upgrade())
                .collect()
        };
        for stream in streams {
            drop(stream.lock().unwrap_or_else(PoisonError::into_inner).take());
        }
    }

    /// Resets every connection end whose peer is `host`, in the order the ends opened in: its
    /// process just crashed while its machine lives on (the kernel answers for the dead
    /// process's sockets), or its machine is back from a power loss or a reboot (the new kernel
    /// answers the old connections' next segment).
    pub(crate) fn reset_peers_of(&self, host: &str) {
        let wakers: Vec<Waker> = {
            let mut links = self.lock();
            let mut wakers: Vec<Waker> = links
                .ends
                .values_mut()
                .filter(|end| end.peer == host)
                .filter_map(|end| {
                    end.reset = true;
                    end.reader.take()
                })
                .collect();
            wakers.append(&mut links.held);
            wakers
        };
        wakers.into_iter().for_each(Waker::wake);
    }

    /// An error when end `id` was reset; otherwise none, after keeping `reader` (when given)
    /// to be woken by a reset.
    fn check_reset(&self, id: u64, reader: Option<&Waker>) -> io::Result<()> {
        let mut links = self.lock();
        let Some(end) = links.ends.get_mut(&id) else {
            return Ok(());
        };
        if end.reset {
            return Err(io::Error::new(
                io::ErrorKind::ConnectionReset,
                format!("connection reset by {}", end.peer),
            ));
        }
        if let Some(reader) = reader {
            end.reader = Some(reader.clone());
        }
        Ok(())
    }

    /// Ready when the link from `from` to `to` is whole.
    fn poll_open(&self, from: &str, to: &str, cx: &Context<'_>) -> Poll<()> {
        let mut links = self.lock();
        if links.cut.contains_key(&(from.to_owned(), to.to_owned())) {
            links.held.push(cx.waker().clone());
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    }
}

/// A dialer for host `local` over the simulated network, with `rpc_timeout` on each request
/// and on connecting.
pub(crate) fn dialer(local: String, links: Links, rpc_timeout: Duration) -> Dialer {
    Dialer::new(move |address: &str| {
        let endpoint = Endpoint::from_shared(format!("http://{address}"))
            .map_err(|_| yarn_security::Error::InvalidAddress {
                address: address.to_owned(),
                reason: "expected host:port",
            })?
            .connect_timeout(rpc_timeout)
            .timeout(rpc_timeout);
        let local = local.clone();
        let links = links.clone();
        Ok(
            endpoint.connect_with_connector_lazy(tower::service_fn(move |uri: Uri| {
                let local = local.clone();
                let links = links.clone();
                async move {
                    let authority = uri.authority().map(ToString::to_string).unwrap_or_default();
                    let peer = uri.host().unwrap_or_default().to_owned();
                    let stream = TcpStream::connect(authority).await?;
                    Ok::<_, io::Error>(TokioIo::new(SimStream::new(stream, local, peer, links)))
                }
            })),
        )
    })
}

/// The simulated hosts, and which of them are replicas.
#[derive(Clone, Debug, Default)]
pub(crate) struct Hosts {
    /// Every host's name.
    pub(crate) all: Arc<Vec<String>>,
    /// The replicas' names: the hosts with a resourcemanager certificate.
    pub(crate) replicas: Arc<BTreeSet<String>>,
}

impl Hosts {
    /// Every host's name by its address; only within the simulation.
    fn by_address(&self) -> BTreeMap<IpAddr, String> {
        self.all
            .iter()
            .map(|name| (turmoil::lookup(name.as_str()), name.clone()))
            .collect()
    }
}

/// The connections host `local` accepts on a simulated listener, each from a replica carrying
/// its identity as a certificate would.
pub(crate) fn incoming(
    local: String,
    links: Links,
    listener: turmoil::net::TcpListener,
    hosts: Hosts,
) -> impl Stream<Item = io::Result<SimStream>> {
    let state = (local, links, listener, hosts.by_address(), hosts.replicas);
    futures_util::stream::unfold(
        state,
        |(local, links, listener, names, replicas)| async move {
            let accepted = listener.accept().await.map(|(stream, remote_addr)| {
                let peer = names.get(&remote_addr.ip()).cloned().unwrap_or_default();
                let identity = replicas.contains(&peer).then(|| PeerIdentity {
                    role: Role::ResourceManager,
                    name: peer.clone(),
                });
                SimStream::new(stream, local.clone(), peer, links.clone()).with_identity(identity)
            });
            Some((accepted, (local, links, listener, names, replicas)))
        },
    )
}

/// One end of a simulated TCP connection from host `local` to host `peer`, whose writes wait
/// while the link from `local` to `peer` is cut. Once [`Links::silence`] closed it, every call
/// fails with `NotConnected` (its host crashes before it could make one); once
/// [`Links::reset_peers_of`] reset it, with `ConnectionReset`.
pub(crate) struct SimStream {
    id: u64,
    stream: Arc<Mutex<Option<TcpStream>>>,
    local: String,
    peer: String,
    links: Links,
    /// The other end as a server sees it: its address, and for a replica the identity its
    /// certificate would prove.
    info: PeerInfo,
}

impl SimStream {
    fn new(stream: TcpStream, local: String, peer: String, links: Links) -> Self {
        let remote_addr = stream
            .peer_addr()
            .unwrap_or_else(|_| (std::net::Ipv4Addr::UNSPECIFIED, 0).into());
        let info = PeerInfo {
            remote_addr,
            identity: None,
        };
        let (id, stream) = links.open(&local, &peer, stream);
        Self {
            id,
            stream,
            local,
            peer,
            links,
            info,
        }
    }

    /// The stream, as a server sees it, from a caller proving `identity`.
    fn with_identity(mut self, identity: Option<PeerIdentity>) -> Self {
        self.info.identity = identity;
        self
    }

    /// Runs `poll` on the open stream, unless it was reset or closed.
    fn with_stream<T>(
        &self,
        poll: impl FnOnce(Pin<&mut TcpStream>) -> Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        if let Err(reset) = self.links.check_reset(self.id, None) {
            return Poll::Ready(Err(reset));
        }
        let mut stream = self.stream.lock().unwrap_or_else(PoisonError::into_inner);
        match stream.as_mut() {
            Some(stream) => poll(Pin::new(stream)),
            None => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::NotConnected,
                "the host crashed",
            ))),
        }
    }
}

impl Drop for SimStream {
    fn drop(&mut self) {
        self.links.close(self.id);
    }
}

impl Connected for SimStream {
    type ConnectInfo = PeerInfo;

    fn connect_info(&self) -> PeerInfo {
        self.info.clone()
    }
}

impl AsyncRead for SimStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let polled = self.with_stream(|stream| stream.poll_read(cx, buf));
        if polled.is_pending() {
            // A reset wakes the reader; checked again, it cannot have slipped in between, as
            // the harness resets only between simulation steps.
            if let Err(reset) = self.links.check_reset(self.id, Some(cx.waker())) {
                return Poll::Ready(Err(reset));
            }
        }
        polled
    }
}

impl AsyncWrite for SimStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if self
            .links
            .poll_open(&self.local, &self.peer, cx)
            .is_pending()
        {
            return Poll::Pending;
        }
        self.with_stream(|stream| stream.poll_write(cx, buf))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.with_stream(|stream| stream.poll_flush(cx))
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.with_stream(|stream| stream.poll_shutdown(cx))
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use tokio::io::AsyncReadExt;

    use super::*;

    /// A process crash on a machine that lives on resets its peers' connections at once; the
    /// crashed host's own ends vanish without a word.
    #[test]
    fn a_crashed_processs_peers_see_their_connections_reset() {
        let links = Links::default();
        let mut sim = turmoil::Builder::new()
            .simulation_duration(Duration::from_secs(5))
            .build();
        let server_links = links.clone();
        sim.host("server", move || {
            let links = server_links.clone();
            async move {
                let listener = turmoil::net::TcpListener::bind(("0.0.0.0", 9000)).await?;
                let (stream, _) = listener.accept().await?;
                let _end = SimStream::new(stream, "server".into(), "client".into(), links);
                std::future::pending::<()>().await;
                Ok(())
            }
        });
        let client_links = links.clone();
        sim.client("client", async move {
            let stream = TcpStream::connect(("server", 9000)).await?;
            let mut end = SimStream::new(stream, "client".into(), "server".into(), client_links);
            let mut byte = [0u8; 1];
            let err = end.read(&mut byte).await.expect_err("a reset");
            assert_eq!(err.kind(), io::ErrorKind::ConnectionReset, "{err}");
            Ok(())
        });
        while links.lock().ends.len() < 2 {
            sim.step().unwrap();
        }
        links.silence("server");
        sim.crash("server");
        links.reset_peers_of("server");
        assert_eq!(
            links
                .lock()
                .ends
                .values()
                .map(|end| end.host.as_str())
                .collect::<Vec<_>>(),
            ["client"],
            "the crashed host's own end is gone"
        );
        sim.run().unwrap();
    }
}
