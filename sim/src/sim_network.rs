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
//! Partitions are [`Cuts`], not turmoil's own: turmoil drops the bytes a partition catches in
//! the middle of a TCP stream and delivers the later ones, which no real TCP connection does
//! (it retransmits until the link heals). A cut link holds every write in its direction until
//! it is repaired, as TCP's retransmissions do, so the byte streams stay whole.

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use futures_util::Stream;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tonic::transport::server::Connected;
use tonic::transport::{Endpoint, Uri};
use yarn_security::{Dialer, PeerIdentity, PeerInfo, Role};

/// The links the harness has cut, by sending and receiving host, shared by every host of a
/// run.
#[derive(Clone, Debug, Default)]
pub(crate) struct Cuts {
    inner: Arc<Mutex<CutLinks>>,
}

#[derive(Debug, Default)]
struct CutLinks {
    /// How many faults in force cut each link: overlapping partitions end with the last.
    cut: BTreeMap<(String, String), u32>,
    /// Writers held by a cut, woken at every repair.
    held: Vec<Waker>,
}

impl Cuts {
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
                Some(cuts) if *cuts > 1 => {
                    *cuts -= 1;
                    return;
                }
                _ => links.cut.remove(&link),
            };
            std::mem::take(&mut links.held)
        };
        held.into_iter().for_each(Waker::wake);
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
pub(crate) fn dialer(local: String, cuts: Cuts, rpc_timeout: Duration) -> Dialer {
    Dialer::new(move |address: &str| {
        let endpoint = Endpoint::from_shared(format!("http://{address}"))
            .map_err(|_| yarn_security::Error::InvalidAddress {
                address: address.to_owned(),
                reason: "expected host:port",
            })?
            .connect_timeout(rpc_timeout)
            .timeout(rpc_timeout);
        let local = local.clone();
        let cuts = cuts.clone();
        Ok(
            endpoint.connect_with_connector_lazy(tower::service_fn(move |uri: Uri| {
                let local = local.clone();
                let cuts = cuts.clone();
                async move {
                    let authority = uri.authority().map(ToString::to_string).unwrap_or_default();
                    let peer = uri.host().unwrap_or_default().to_owned();
                    let stream = turmoil::net::TcpStream::connect(authority).await?;
                    Ok::<_, io::Error>(TokioIo::new(SimStream::new(stream, local, peer, cuts)))
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
    cuts: Cuts,
    listener: turmoil::net::TcpListener,
    hosts: Hosts,
) -> impl Stream<Item = io::Result<SimStream>> {
    let state = (local, cuts, listener, hosts.by_address(), hosts.replicas);
    futures_util::stream::unfold(
        state,
        |(local, cuts, listener, names, replicas)| async move {
            let accepted = listener.accept().await.map(|(stream, remote_addr)| {
                let peer = names.get(&remote_addr.ip()).cloned().unwrap_or_default();
                let identity = replicas.contains(&peer).then(|| PeerIdentity {
                    role: Role::ResourceManager,
                    name: peer.clone(),
                });
                SimStream::new(stream, local.clone(), peer, cuts.clone()).with_identity(identity)
            });
            Some((accepted, (local, cuts, listener, names, replicas)))
        },
    )
}

/// One end of a simulated TCP connection from host `local` to host `peer`, whose writes wait
/// while the link from `local` to `peer` is cut.
pub(crate) struct SimStream {
    stream: turmoil::net::TcpStream,
    local: String,
    peer: String,
    cuts: Cuts,
    /// The other end as a server sees it: its address, and for a replica the identity its
    /// certificate would prove.
    info: PeerInfo,
}

impl SimStream {
    fn new(stream: turmoil::net::TcpStream, local: String, peer: String, cuts: Cuts) -> Self {
        let remote_addr = stream
            .peer_addr()
            .unwrap_or_else(|_| (std::net::Ipv4Addr::UNSPECIFIED, 0).into());
        let info = PeerInfo {
            remote_addr,
            identity: None,
        };
        Self {
            stream,
            local,
            peer,
            cuts,
            info,
        }
    }
}

impl SimStream {
    /// The stream, as a server sees it, from a caller proving `identity`.
    fn with_identity(mut self, identity: Option<PeerIdentity>) -> Self {
        self.info.identity = identity;
        self
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
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for SimStream {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if self
            .cuts
            .poll_open(&self.local, &self.peer, cx)
            .is_pending()
        {
            return Poll::Pending;
        }
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}
