//! [`Dialer`]: how a daemon reaches another, as a value its callers can swap.

use std::sync::Arc;

use tonic::transport::Channel;

use crate::{ChannelOptions, Error, TlsConfig, connect_lazy};

/// Makes a lazily connected channel to `host:port`. A daemon's dialer is [`tls_dialer`]; the
/// deterministic simulation hands the same code one over its simulated network instead.
///
/// # Errors
///
/// [`Error::InvalidAddress`] when the address is not `host:port`.
pub type Dialer = Arc<dyn Fn(&str) -> Result<Channel, Error> + Send + Sync>;

/// The dialer of a daemon: [`connect_lazy`] with `tls` (presenting the daemon's own
/// certificate when TLS is on) and `options`.
pub fn tls_dialer(tls: &TlsConfig, options: ChannelOptions) -> Dialer {
    let client_config = tls.client_config();
    Arc::new(move |address| connect_lazy(address, client_config.clone(), &options))
}
