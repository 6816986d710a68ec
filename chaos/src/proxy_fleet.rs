//! [`ProxyFleet`]: one [`TcpProxy`] per front of a proxied cluster, under one set of rules.

use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::Context;
use tokio::sync::watch;
use yarn_minicluster::ProxyRoute;

use crate::connection_source::SourceResolver;
use crate::network_rules::{NetworkRules, Peer};
use crate::tcp_proxy::TcpProxy;

/// Every proxy of a cluster. [`set_rules`](Self::set_rules) changes what all of them do at
/// once. Dropping the fleet stops every proxy and closes every connection through them.
#[derive(Debug)]
pub struct ProxyFleet {
    rules: watch::Sender<Arc<NetworkRules>>,
    proxies: Vec<TcpProxy>,
}

impl ProxyFleet {
    /// Starts a proxy on every route's front, forwarding to its upstream, with healthy rules.
    ///
    /// # Errors
    ///
    /// When a route's address is not `ip:port` or a front cannot be bound (the message names
    /// the route).
    pub async fn start(
        routes: &[ProxyRoute],
        sources: Arc<dyn SourceResolver>,
    ) -> anyhow::Result<Self> {
        let (rules, receiver) = watch::channel(Arc::new(NetworkRules::healthy()));
        let mut proxies = Vec::with_capacity(routes.len());
        for route in routes {
            let what = || {
                format!(
                    "the {} proxy of {} ({} -> {})",
                    route.service, route.destination, route.listen, route.upstream
                )
            };
            let listen: SocketAddr = route.listen.parse().with_context(what)?;
            let upstream: SocketAddr = route.upstream.parse().with_context(what)?;
            let proxy = TcpProxy::bind(
                listen,
                upstream,
                Peer::Daemon(route.destination.clone()),
                receiver.clone(),
                Arc::clone(&sources),
            )
            .await
            .with_context(what)?;
            proxies.push(proxy);
        }
        Ok(Self { rules, proxies })
    }

    /// Puts `rules` in force on every proxy.
    pub fn set_rules(&self, rules: NetworkRules) {
        self.rules.send_replace(Arc::new(rules));
    }

    /// The rules in force.
    pub fn rules(&self) -> Arc<NetworkRules> {
        Arc::clone(&self.rules.borrow())
    }

    /// How many proxies run.
    pub fn len(&self) -> usize {
        self.proxies.len()
    }

    /// Whether no proxy runs (an unproxied layout).
    pub fn is_empty(&self) -> bool {
        self.proxies.is_empty()
    }
}
