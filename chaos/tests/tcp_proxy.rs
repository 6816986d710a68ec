//! The fault-injecting TCP proxy on 127.0.0.1 against a real upstream: it passes bytes both
//! ways, blackholes (accepts, forwards nothing, never dials the upstream, closes what was
//! open), delays in order, drops one direction only, and heals; and `/proc` names the process
//! behind a connection.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::time::{Instant, timeout};
use yarn_chaos::{
    LinkEffect, LinkRule, NetworkRules, Peer, PeerSelector, ProcSources, SourceResolver, TcpProxy,
};

const DEADLINE: Duration = Duration::from_secs(10);

/// What the upstream says first on every connection, before echoing.
const GREETING: &[u8] = b"hello\n";

/// An upstream that greets, then echoes, counting connections and bytes received.
struct Upstream {
    address: SocketAddr,
    connections: Arc<AtomicUsize>,
    received: Arc<AtomicUsize>,
}

async fn upstream() -> Upstream {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let connections = Arc::new(AtomicUsize::new(0));
    let received = Arc::new(AtomicUsize::new(0));
    let (count, bytes) = (Arc::clone(&connections), Arc::clone(&received));
    tokio::spawn(async move {
        loop {
            let (mut stream, _) = listener.accept().await.unwrap();
            count.fetch_add(1, Ordering::SeqCst);
            let bytes = Arc::clone(&bytes);
            tokio::spawn(async move {
                if stream.write_all(GREETING).await.is_err() {
                    return;
                }
                let mut buffer = [0_u8; 1024];
                loop {
                    match stream.read(&mut buffer).await {
                        Ok(0) | Err(_) => return,
                        Ok(read) => {
                            bytes.fetch_add(read, Ordering::SeqCst);
                            if stream.write_all(&buffer[..read]).await.is_err() {
                                return;
                            }
                        }
                    }
                }
            });
        }
    });
    Upstream {
        address,
        connections,
        received,
    }
}

/// Every caller is the NodeManager nm1.
struct AlwaysNm1;

impl SourceResolver for AlwaysNm1 {
    fn resolve(&self, _: SocketAddr, _: SocketAddr) -> Peer {
        Peer::Daemon("nm1".into())
    }
}

fn rule(from: PeerSelector, to: PeerSelector, effect: LinkEffect) -> LinkRule {
    LinkRule { from, to, effect }
}

fn daemon(id: &str) -> PeerSelector {
    PeerSelector::Daemon(id.into())
}

/// Reads exactly `expected.len()` bytes within the deadline and compares them.
async fn expect(stream: &mut TcpStream, expected: &[u8]) {
    let mut buffer = vec![0_u8; expected.len()];
    timeout(DEADLINE, stream.read_exact(&mut buffer))
        .await
        .expect("bytes arrive in time")
        .expect("the connection stays open");
    assert_eq!(buffer, expected);
}

/// Asserts nothing arrives for a while (the bytes are held or lost, not slow).
async fn expect_silence(stream: &mut TcpStream) {
    let mut buffer = [0_u8; 64];
    match timeout(Duration::from_millis(300), stream.read(&mut buffer)).await {
        Err(_) => {}
        Ok(read) => panic!("expected silence, got {read:?}"),
    }
}

/// Waits until the proxy closes `stream` (EOF or reset).
async fn expect_closed(stream: &mut TcpStream) {
    let deadline = Instant::now() + DEADLINE;
    let mut buffer = [0_u8; 64];
    loop {
        let remaining = deadline.saturating_duration_since(Instant::now());
        match timeout(remaining, stream.read(&mut buffer)).await {
            Ok(Ok(0) | Err(_)) => return,
            Ok(Ok(_)) => continue,
            Err(_) => panic!("the proxy did not close the connection"),
        }
    }
}

async fn wait_until(what: &str, check: impl Fn() -> bool) {
    let deadline = Instant::now() + DEADLINE;
    while !check() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_proxy_passes_blackholes_delays_drops_one_way_and_heals() {
    let upstream = upstream().await;
    let (rules, receiver) = watch::channel(Arc::new(NetworkRules::healthy()));
    let proxy = TcpProxy::bind(
        "127.0.0.1:0".parse().unwrap(),
        upstream.address,
        Peer::Daemon("rm1".into()),
        receiver,
        Arc::new(AlwaysNm1),
    )
    .await
    .unwrap();
    let front = proxy.address();
    assert!(front.ip().is_loopback());

    // --- pass: both directions, in order
    let mut open = TcpStream::connect(front).await.unwrap();
    expect(&mut open, GREETING).await;
    open.write_all(b"ping").await.unwrap();
    expect(&mut open, b"ping").await;

    // --- delay: bytes still arrive, in order, but not at once; the connection stays open
    rules.send_replace(Arc::new(NetworkRules::new(vec![rule(
        PeerSelector::Anyone,
        PeerSelector::Anyone,
        LinkEffect::Delay(Duration::from_millis(1_500)),
    )])));
    open.write_all(b"slow").await.unwrap();
    expect_silence(&mut open).await;
    expect(&mut open, b"slow").await;

    // --- blackhole: the open connection is closed; a new one is accepted but goes nowhere
    rules.send_replace(Arc::new(NetworkRules::new(vec![
        rule(daemon("nm1"), PeerSelector::Anyone, LinkEffect::Drop),
        rule(PeerSelector::Anyone, daemon("nm1"), LinkEffect::Drop),
    ])));
    expect_closed(&mut open).await;
    let dialed = upstream.connections.load(Ordering::SeqCst);
    let mut held = TcpStream::connect(front).await.unwrap();
    held.write_all(b"lost").await.unwrap();
    expect_silence(&mut held).await;
    assert_eq!(
        upstream.connections.load(Ordering::SeqCst),
        dialed,
        "a blackholed connection must never reach the upstream"
    );

    // --- heal: the held connection is closed, a new one passes again
    rules.send_replace(Arc::new(NetworkRules::healthy()));
    expect_closed(&mut held).await;
    let mut healed = TcpStream::connect(front).await.unwrap();
    expect(&mut healed, GREETING).await;
    healed.write_all(b"back").await.unwrap();
    expect(&mut healed, b"back").await;

    // --- one way, caller to upstream lost: the greeting arrives, what the caller sends does not
    rules.send_replace(Arc::new(NetworkRules::new(vec![rule(
        daemon("nm1"),
        daemon("rm1"),
        LinkEffect::Drop,
    )])));
    expect_closed(&mut healed).await;
    let received = upstream.received.load(Ordering::SeqCst);
    let mut mute = TcpStream::connect(front).await.unwrap();
    expect(&mut mute, GREETING).await;
    mute.write_all(b"unheard").await.unwrap();
    expect_silence(&mut mute).await;
    assert_eq!(upstream.received.load(Ordering::SeqCst), received);

    // --- one way, upstream to caller lost: what the caller sends arrives, no answer comes back
    rules.send_replace(Arc::new(NetworkRules::new(vec![rule(
        daemon("rm1"),
        PeerSelector::Anyone,
        LinkEffect::Drop,
    )])));
    expect_closed(&mut mute).await;
    let mut deaf = TcpStream::connect(front).await.unwrap();
    deaf.write_all(b"heard").await.unwrap();
    wait_until("the upstream to receive the caller's bytes", || {
        upstream.received.load(Ordering::SeqCst) >= received + 5
    })
    .await;
    expect_silence(&mut deaf).await;

    // --- dropping the proxy closes what it carried and stops listening
    drop(proxy);
    expect_closed(&mut deaf).await;
    let refused = timeout(DEADLINE, TcpStream::connect(front)).await.unwrap();
    assert!(refused.is_err(), "the front still accepts: {refused:?}");
}

#[tokio::test]
async fn a_proxy_refuses_to_listen_beyond_loopback() {
    let (_rules, receiver) = watch::channel(Arc::new(NetworkRules::healthy()));
    let err = TcpProxy::bind(
        "0.0.0.0:0".parse().unwrap(),
        "127.0.0.1:1".parse().unwrap(),
        Peer::Daemon("rm1".into()),
        receiver,
        Arc::new(AlwaysNm1),
    )
    .await
    .unwrap_err();
    assert!(err.to_string().contains("loopback"), "{err}");
}

/// A `bash` holding a connection to `port` open, started in `dir`.
fn connected_shell(port: u16, dir: &Path) -> std::process::Child {
    std::process::Command::new("bash")
        .args([
            "-c",
            &format!("exec 3<>/dev/tcp/127.0.0.1/{port}; exec sleep 30"),
        ])
        .current_dir(dir)
        .spawn()
        .expect("bash is installed")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn proc_names_the_harness_a_daemon_and_a_process_in_a_daemon_directory() {
    let dir = tempfile::tempdir().unwrap();
    let nm2_dir = dir.path().join("nm2");
    let container_dir = nm2_dir.join("local/container_1");
    std::fs::create_dir_all(&container_dir).unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = listener.local_addr().unwrap();

    let mut daemon_process = connected_shell(server.port(), dir.path());
    let daemon_pid = daemon_process.id();
    let mut container_process = connected_shell(server.port(), &container_dir);
    let resolver = Arc::new(ProcSources::new(
        vec![("nm2".to_owned(), nm2_dir.clone())],
        Arc::new(move || BTreeMap::from([(daemon_pid, "nm7".to_owned())])),
    ));

    let mut callers = Vec::new();
    for _ in 0..2 {
        let (stream, caller) = timeout(DEADLINE, listener.accept()).await.unwrap().unwrap();
        callers.push((stream, caller));
    }
    let own = TcpStream::connect(server).await.unwrap();
    let (_own_accepted, own_caller) = listener.accept().await.unwrap();
    assert_eq!(own_caller, own.local_addr().unwrap());

    let mut placed = Vec::new();
    for (_, caller) in &callers {
        let (resolver, caller) = (Arc::clone(&resolver), *caller);
        placed.push(
            tokio::task::spawn_blocking(move || resolver.resolve(caller, server))
                .await
                .unwrap(),
        );
    }
    placed.sort();
    assert_eq!(
        placed,
        [Peer::Daemon("nm2".into()), Peer::Daemon("nm7".into())]
    );
    let resolver_own = Arc::clone(&resolver);
    let me = tokio::task::spawn_blocking(move || resolver_own.resolve(own_caller, server))
        .await
        .unwrap();
    assert_eq!(me, Peer::Harness);
    let unknown = resolver.resolve("127.0.0.1:9".parse().unwrap(), server);
    assert_eq!(unknown, Peer::Unknown);

    for child in [&mut daemon_process, &mut container_process] {
        child.kill().unwrap();
        child.wait().unwrap();
    }
}
