//! A TCP link between two replicas that the test can cut and heal: a real socket forwarder, so
//! the replicas' mutual TLS runs through it untouched. Dropping it closes its port and every
//! connection through it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;
use tokio::task::JoinHandle;

/// Forwards connections accepted on its own port to `target` until cut.
pub struct Link {
    /// The address dialers use instead of the target's.
    pub address: String,
    cut: Arc<AtomicBool>,
    cut_now: Arc<Notify>,
    accepting: JoinHandle<()>,
}

impl Link {
    /// Starts forwarding from a fresh 127.0.0.1 port to `target`.
    pub async fn start(target: String) -> Link {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind a link");
        let address = listener.local_addr().expect("link address").to_string();
        let cut = Arc::new(AtomicBool::new(false));
        let cut_now = Arc::new(Notify::new());
        let (flag, notify) = (cut.clone(), cut_now.clone());
        let accepting = tokio::spawn(async move {
            while let Ok((inbound, _)) = listener.accept().await {
                if flag.load(Ordering::SeqCst) {
                    continue; // dropped: the dialer sees the connection close
                }
                let (target, flag, notify) = (target.clone(), flag.clone(), notify.clone());
                tokio::spawn(forward(inbound, target, flag, notify));
            }
        });
        Link {
            address,
            cut,
            cut_now,
            accepting,
        }
    }

    /// Drops every open connection and every new one until [`Link::heal`].
    pub fn cut(&self) {
        self.cut.store(true, Ordering::SeqCst);
        self.cut_now.notify_waiters();
    }

    /// Lets connections through again.
    pub fn heal(&self) {
        self.cut.store(false, Ordering::SeqCst);
    }
}

impl Drop for Link {
    fn drop(&mut self) {
        self.accepting.abort();
        self.cut();
    }
}

async fn forward(mut inbound: TcpStream, target: String, flag: Arc<AtomicBool>, cut: Arc<Notify>) {
    // Registered before the flag is read, so a cut between the two is not missed.
    let cut_now = cut.notified();
    tokio::pin!(cut_now);
    cut_now.as_mut().enable();
    if flag.load(Ordering::SeqCst) {
        return;
    }
    let Ok(mut outbound) = TcpStream::connect(&target).await else {
        return;
    };
    tokio::select! {
        _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound) => {}
        () = cut_now => {}
    }
}
