//! How many connections a listener takes on and how long it keeps them.

use std::time::Duration;

use yarn_conf::keys::{
    IPC_CLIENT_CONNECTION_MAXIDLETIME, TLS_MAX_CONNECTIONS_PER_IDENTITY, TLS_MAX_PENDING_HANDSHAKES,
};
use yarn_conf::{ConfError, Configuration, Key};

/// How long a client may take to complete the TLS handshake before it is dropped.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// The bounds every [`Incoming`](crate::Incoming) enforces, so that neither one client nor one
/// certificate can hold a listener or use up the process's file descriptors.
///
/// Every bound holds per listener: a process with several (the ResourceManager has five) admits
/// as much again on each. Built once from configuration ([`from_conf`](Self::from_conf)), or
/// [`Default`] for the keys' defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// How many TLS handshakes run at once (`yarn.tls.max-pending-handshakes`, at least 1).
    ///
    /// At the limit the listener stops accepting and further clients wait in the kernel's accept
    /// queue rather than being dropped: there they hold no file descriptor, and each waits at
    /// most until a handshake ahead of it completes or times out, whereas a client dropped at
    /// once would simply fail.
    pub max_pending_handshakes: usize,
    /// How long a client may take to complete the TLS handshake (10 s; not configurable).
    pub handshake_timeout: Duration,
    /// How many connections one certificate identity (role and name) may hold open at once
    /// (`yarn.tls.max-connections-per-identity`, at least 1). One more is closed right after its
    /// handshake. Plaintext connections carry no identity and are not counted.
    pub max_connections_per_identity: usize,
    /// How long a connection may carry no bytes, in either direction, before it is closed:
    /// twice `ipc.client.connection.maxidletime`, as Hadoop's IPC server does, so that a client
    /// closing its own idle connections normally does so first.
    ///
    /// Any bytes count, HTTP/2 PINGs and their acknowledgements included, where Hadoop counts
    /// calls: yarn-ha's clients PING every 10 s even while idle, so what this closes is
    /// connections that send nothing at all, such as a client holding sockets open without
    /// using them. A third-party client without keepalive that waits longer than this for one
    /// slow call would see its connection closed.
    pub idle_timeout: Duration,
}

impl ConnectionLimits {
    /// Reads `yarn.tls.max-pending-handshakes`, `yarn.tls.max-connections-per-identity` and
    /// `ipc.client.connection.maxidletime`.
    ///
    /// # Errors
    ///
    /// [`ConfError::InvalidValue`] naming the key when a value is not a non-negative integer or
    /// is 0, and the errors of a `${...}` reference that does not resolve.
    pub fn from_conf(conf: &Configuration) -> Result<Self, ConfError> {
        let max_idle_ms = positive(conf, &IPC_CLIENT_CONNECTION_MAXIDLETIME)?;
        Ok(ConnectionLimits {
            max_pending_handshakes: positive(conf, &TLS_MAX_PENDING_HANDSHAKES)? as usize,
            handshake_timeout: HANDSHAKE_TIMEOUT,
            max_connections_per_identity: positive(conf, &TLS_MAX_CONNECTIONS_PER_IDENTITY)?
                as usize,
            idle_timeout: Duration::from_millis(2 * u64::from(max_idle_ms)),
        })
    }
}

impl Default for ConnectionLimits {
    /// The limits of the keys' defaults: 128 handshakes at once, 10 s for each, 1,024
    /// connections per identity, closed after 20 s without bytes.
    fn default() -> Self {
        ConnectionLimits::from_conf(&Configuration::new())
            .expect("the defaults of the connection-limit keys are positive integers")
    }
}

/// The value of `key`, which must be at least 1: none of these limits can be turned off, and 0
/// would stop a listener from serving anyone.
fn positive(conf: &Configuration, key: &Key) -> Result<u32, ConfError> {
    let value = conf.get_u32(key)?;
    if value == 0 {
        return Err(conf.invalid_value(key, value, "at least 1"));
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_documented_ones() {
        assert_eq!(
            ConnectionLimits::default(),
            ConnectionLimits {
                max_pending_handshakes: 128,
                handshake_timeout: Duration::from_secs(10),
                max_connections_per_identity: 1024,
                idle_timeout: Duration::from_secs(20),
            }
        );
    }

    #[test]
    fn reads_the_keys_and_closes_idle_connections_after_twice_the_client_idle_time() {
        let mut conf = Configuration::new();
        conf.set("yarn.tls.max-pending-handshakes", "4");
        conf.set("yarn.tls.max-connections-per-identity", "3");
        conf.set("ipc.client.connection.maxidletime", "250");
        assert_eq!(
            ConnectionLimits::from_conf(&conf).unwrap(),
            ConnectionLimits {
                max_pending_handshakes: 4,
                handshake_timeout: Duration::from_secs(10),
                max_connections_per_identity: 3,
                idle_timeout: Duration::from_millis(500),
            }
        );
    }

    #[test]
    fn zero_is_refused_naming_the_key() {
        for key in [
            "yarn.tls.max-pending-handshakes",
            "yarn.tls.max-connections-per-identity",
            "ipc.client.connection.maxidletime",
        ] {
            let mut conf = Configuration::new();
            conf.set(key, "0");
            let err = ConnectionLimits::from_conf(&conf).unwrap_err();
            assert!(
                matches!(&err, ConfError::InvalidValue { key: named, .. } if named == key),
                "{err:?}"
            );
            assert!(err.to_string().contains("at least 1"), "{err}");
        }
    }

    #[test]
    fn a_negative_value_is_refused_naming_the_key() {
        let mut conf = Configuration::new();
        conf.set("yarn.tls.max-connections-per-identity", "-1");
        let err = ConnectionLimits::from_conf(&conf).unwrap_err();
        assert!(
            err.to_string()
                .contains("yarn.tls.max-connections-per-identity"),
            "{err}"
        );
    }
}
