//! [`Dialer`]: how a daemon reaches another, as a value its callers can swap.

use std::fmt;
use std::sync::Arc;

use tonic::transport::Channel;

use crate::{ChannelOptions, Error, TlsConfig, connect_lazy};

type Dial = dyn Fn(&str) -> Result<Channel, Error> + Send + Sync;

/// Makes lazily connected channels to `host:port` addresses. A daemon's dialer is
/// [`Dialer::tls`]; the deterministic simulation hands the same code one over its simulated
/// network instead. Clones share the dialing function.
#[derive(Clone)]
pub struct Dialer(Arc<Dial>);

impl Dialer {
    /// A dialer calling `dial`.
    pub fn new(dial: impl Fn(&str) -> Result<Channel, Error> + Send + Sync + 'static) -> Self {
        Self(Arc::new(dial))
    }

    /// The dialer of a daemon: [`connect_lazy`] with `tls` (presenting the daemon's own
    /// certificate when TLS is on) and `options`.
    pub fn tls(tls: &TlsConfig, options: ChannelOptions) -> Self {
        let client_config = tls.client_config();
        Self::new(move |address| connect_lazy(address, client_config.clone(), &options))
    }

    /// A channel to `address`, connecting on first use.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidAddress`] when the address is not `host:port`.
    pub fn dial(&self, address: &str) -> Result<Channel, Error> {
        (self.0)(address)
    }
}

impl fmt::Debug for Dialer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Dialer")
    }
}
