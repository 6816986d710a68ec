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
/// by sending and receiving host, and every host's open connections, which a crash of the host
/// closes without a word.
#[derive(Clone, Debug, Default)]
pub(crate) struct Links {
    inner: Arc<Mutex<CutLinks>>,
}

#[derive(Debug, Default)]
struct CutLinks {
    /// How many faults in force cut each link: overlapping partitions end with the last.
    cut: BTreeMap<(String, String), u32>,
    /// Writers held by a cut, woken at every repair.
    held: Vec<Waker>,
    /// Each host's connection ends, for [`Links::silence`].
    open: BTreeMap<String, Vec<Weak<Mutex<Option<TcpStream>>>>>,
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

    /// Keeps `stream`, a connection end of `host`, where [`silence`](Self::silence) can close
    /// it.
    fn open(&self, host: &str, stream: TcpStream) -> Arc<Mutex<Option<TcpStream>>> {
        let cell = Arc::new(Mutex::new(Some(stream)));
        let mut links = self.lock();
        let open = links.open.entry(host.to_owned()).or_default();
        open.retain(|end| end.strong_count() > 0);
        open.push(Arc::downgrade(&cell));
        cell
    }

    /// Drops every connection end of `host` from outside the simulation, where turmoil sends
    /// nothing for them: no FIN, no RST. Called just before the host crashes, so that it dies
    /// as a machine losing power does, its peers learning of it from a timeout or from the RST
    /// its next incarnation answers. It also keeps replays exact: dropped by the crash, the
    /// ends would send their FINs in the order tokio drops a runtime's tasks, which hangs on
    /// task ids counted across the whole process, and each FIN draws its latency from the
    /// run's seeded generator.
    pub(crate) fn silence(&self, host: &str) {
        let ends = self.lock().open.remove(host).unwrap_or_default();
        for end in ends.iter().filter_map(Weak::upgrade) {
            drop(end.lock().unwrap_or_else(PoisonError::into_inner).take());
        }
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
/// fails with `NotConnected`; the host crashes before it could make one.
pub(crate) struct SimStream {
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
        Self {
            stream: links.open(&local, stream),
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

    /// Runs `poll` on the open stream.
    fn with_stream<T>(
        &self,
        poll: impl FnOnce(Pin<&mut TcpStream>) -> Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
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
        self.with_stream(|stream| stream.poll_read(cx, buf))
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
