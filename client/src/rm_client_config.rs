//! The typed settings of an RM client, read once from the configuration.

use std::time::Duration;

use yarn_conf::{Configuration, HostPort, RmEndpoints, RmHaConfig, keys};
use yarn_proto::token_metadata::AMRM_PROXY_ADDRESS_ENV;
use yarn_security::{ChannelOptions, Dialer, TlsConfig};

use crate::{Error, RetryPolicy};

/// How long one attempt of an RM call may take, connecting included, before it counts as failed.
///
/// Not a configuration key: Hadoop's RM client has no equivalent either, and an answer from a
/// healthy replica takes milliseconds; 10 s leaves room for a replica that is busy committing
/// while still failing over well before an operator gives up.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(10);

/// The longest time dialing plus the TLS handshake may take, within the call deadline.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// The member name the AMRMProxy gets when it stands for the RM group, in logs and errors.
pub const AMRM_PROXY_ID: &str = "amrmproxy";

/// Everything an [`RmClient`](crate::RmClient) needs: the replicas, the TLS identity, and the
/// failover rules.
#[derive(Debug, Clone)]
pub struct RmClientConfig {
    /// The replicas, in `yarn.resourcemanager.ha.rm-ids` order.
    pub ha: RmHaConfig,
    /// The client's mutual-TLS setting (`yarn.tls.*`).
    pub tls: TlsConfig,
    /// The first pause between failovers (`yarn.client.failover-sleep-base-ms`).
    pub sleep_base: Duration,
    /// The longest pause between failovers (`yarn.client.failover-sleep-max-ms`).
    pub sleep_max: Duration,
    /// Failovers one call may make (`yarn.client.failover-max-attempts`).
    pub max_failovers: u32,
    /// The deadline of each attempt; [`DEFAULT_CALL_TIMEOUT`] unless changed in code.
    pub call_timeout: Duration,
    /// How long an [`NmClient`](crate::NmClient) retries a node that is not ready yet
    /// (`yarn.client.nodemanager-connect.max-wait-ms`).
    pub nm_connect_max_wait: Duration,
    /// The pause between those retries (`yarn.client.nodemanager-connect.retry-interval-ms`).
    pub nm_connect_retry_interval: Duration,
    /// How clients of this configuration reach replicas and nodes; `None` (from a
    /// configuration) dials with `tls` and [`channel_options`](Self::channel_options). The
    /// deterministic simulation sets its network here.
    pub dialer: Option<Dialer>,
    /// The seed of the jitter of failover pauses; `None` (from a configuration) seeds from the
    /// operating system. The simulation seeds it so that a run replays exactly.
    pub jitter_seed: Option<u64>,
}

impl RmClientConfig {
    /// Reads the member list, the TLS setting (opening its files) and the failover keys, and
    /// validates them.
    ///
    /// # Errors
    ///
    /// [`Error::Conf`] for a bad member list or failover value, [`Error::TlsSetting`] for an
    /// unusable TLS setting, and what [`validate`](Self::validate) returns.
    pub fn from_conf(conf: &Configuration) -> Result<Self, Error> {
        let ha = RmHaConfig::from_conf(conf)?;
        let tls = TlsConfig::from_conf(conf).map_err(|source| Error::TlsSetting {
            source: Box::new(source),
        })?;
        let config = Self {
            ha,
            tls,
            sleep_base: conf.get_duration(&keys::CLIENT_FAILOVER_SLEEP_BASE_MS)?,
            sleep_max: conf.get_duration(&keys::CLIENT_FAILOVER_SLEEP_MAX_MS)?,
            max_failovers: conf.get_u32(&keys::CLIENT_FAILOVER_MAX_ATTEMPTS)?,
            call_timeout: DEFAULT_CALL_TIMEOUT,
            nm_connect_max_wait: conf
                .get_duration(&keys::CLIENT_NODEMANAGER_CONNECT_MAX_WAIT_MS)?,
            nm_connect_retry_interval: conf
                .get_duration(&keys::CLIENT_NODEMANAGER_CONNECT_RETRY_INTERVAL_MS)?,
            dialer: None,
            jitter_seed: None,
        };
        config.validate()?;
        Ok(config)
    }

    /// [`from_conf`](Self::from_conf) for an ApplicationMaster: when its NodeManager named an
    /// AMRMProxy in `YARN_AMRM_PROXY_ADDRESS`, every call goes to that proxy, which stands
    /// for the whole RM group (it fails over on the AM's behalf); otherwise to the RMs.
    ///
    /// # Errors
    ///
    /// Those of [`from_conf`](Self::from_conf); [`Error::AmrmProxyAddress`] when the variable
    /// is set but is not `host:port`.
    pub fn for_application_master(conf: &Configuration) -> Result<Self, Error> {
        let config = Self::from_conf(conf)?;
        match std::env::var(AMRM_PROXY_ADDRESS_ENV) {
            Ok(value) if !value.is_empty() => {
                let address =
                    value
                        .parse::<HostPort>()
                        .map_err(|source| Error::AmrmProxyAddress {
                            variable: AMRM_PROXY_ADDRESS_ENV,
                            value: value.clone(),
                            source,
                        })?;
                Ok(config.through_amrm_proxy(address))
            }
            _ => Ok(config),
        }
    }

    /// These settings with the RM group replaced by one AMRMProxy at `address`, serving every
    /// service there.
    pub fn through_amrm_proxy(mut self, address: HostPort) -> Self {
        self.ha = RmHaConfig {
            enabled: false,
            members: vec![RmEndpoints {
                rm_id: AMRM_PROXY_ID.to_owned(),
                client: address.clone(),
                scheduler: address.clone(),
                resource_tracker: address.clone(),
                admin: address.clone(),
                webapp: address.clone(),
                raft: address,
            }],
        };
        self
    }

    /// Checks the values that parse but cannot work together.
    ///
    /// # Errors
    ///
    /// [`Error::FailoverSleepInverted`] when the base pause exceeds the maximum,
    /// [`Error::ZeroCallTimeout`] for a zero deadline.
    pub fn validate(&self) -> Result<(), Error> {
        if self.sleep_base > self.sleep_max {
            return Err(Error::FailoverSleepInverted {
                base: self.sleep_base,
                max: self.sleep_max,
            });
        }
        if self.call_timeout.is_zero() {
            return Err(Error::ZeroCallTimeout);
        }
        Ok(())
    }

    /// The retry rules these settings describe.
    pub fn retry_policy(&self) -> RetryPolicy {
        RetryPolicy::new(self.sleep_base, self.sleep_max, self.max_failovers)
    }

    /// Channel options with the call deadline as request timeout.
    pub fn channel_options(&self) -> ChannelOptions {
        ChannelOptions {
            connect_timeout: CONNECT_TIMEOUT.min(self.call_timeout),
            request_timeout: self.call_timeout,
            ..ChannelOptions::default()
        }
    }

    /// How clients of this configuration reach a replica: [`dialer`](Self::dialer) when set,
    /// else mutual TLS per `tls` with [`channel_options`](Self::channel_options).
    pub fn dialer(&self) -> Dialer {
        self.dialer
            .clone()
            .unwrap_or_else(|| Dialer::tls(&self.tls, self.channel_options()))
    }

    /// The configured rm ids, in order.
    pub fn rm_ids(&self) -> Vec<String> {
        self.ha.members.iter().map(|m| m.rm_id.clone()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conf() -> Configuration {
        let mut conf = Configuration::new();
        conf.set("yarn.resourcemanager.ha.enabled", "true");
        conf.set("yarn.resourcemanager.ha.rm-ids", "rm1,rm2");
        conf.set("yarn.resourcemanager.hostname.rm1", "h1");
        conf.set("yarn.resourcemanager.hostname.rm2", "h2");
        conf.set("yarn.tls.enabled", "false");
        conf
    }

    #[test]
    fn reads_the_failover_keys_with_hadoop_defaults() {
        let config = RmClientConfig::from_conf(&conf()).unwrap();
        assert_eq!(config.rm_ids(), ["rm1", "rm2"]);
        assert_eq!(config.sleep_base, Duration::from_millis(100));
        assert_eq!(config.sleep_max, Duration::from_millis(2000));
        assert_eq!(config.max_failovers, 15);
        assert_eq!(config.call_timeout, DEFAULT_CALL_TIMEOUT);
        assert!(!config.tls.is_enabled());
        assert_eq!(
            config.channel_options().request_timeout,
            DEFAULT_CALL_TIMEOUT
        );

        let mut conf = conf();
        conf.set("yarn.client.failover-sleep-base-ms", "5");
        conf.set("yarn.client.failover-max-attempts", "2");
        let config = RmClientConfig::from_conf(&conf).unwrap();
        assert_eq!(config.sleep_base, Duration::from_millis(5));
        assert_eq!(config.max_failovers, 2);
    }

    #[test]
    fn an_inverted_sleep_range_is_refused_naming_both_keys() {
        let mut conf = conf();
        conf.set("yarn.client.failover-sleep-base-ms", "3000");
        let err = RmClientConfig::from_conf(&conf).unwrap_err();
        assert!(
            matches!(err, Error::FailoverSleepInverted { .. }),
            "{err:?}"
        );
        let message = err.to_string();
        assert!(
            message.contains("yarn.client.failover-sleep-base-ms (3000 ms)"),
            "{message}"
        );
        assert!(
            message.contains("yarn.client.failover-sleep-max-ms (2000 ms)"),
            "{message}"
        );
    }

    #[test]
    fn bad_values_and_missing_tls_files_are_reported_with_their_key() {
        let mut bad = conf();
        bad.set("yarn.client.failover-max-attempts", "-1");
        let err = RmClientConfig::from_conf(&bad).unwrap_err();
        assert!(matches!(err, Error::Conf(_)), "{err:?}");
        assert!(
            err.to_string()
                .contains("yarn.client.failover-max-attempts"),
            "{err}"
        );

        let mut no_tls = conf();
        no_tls.set("yarn.tls.enabled", "true");
        let err = RmClientConfig::from_conf(&no_tls).unwrap_err();
        assert!(matches!(err, Error::TlsSetting { .. }), "{err:?}");
        assert!(err.to_string().contains("yarn.tls.ca-cert"), "{err}");
    }

    #[test]
    fn a_zero_call_timeout_is_refused() {
        let mut config = RmClientConfig::from_conf(&conf()).unwrap();
        config.call_timeout = Duration::ZERO;
        assert!(matches!(config.validate(), Err(Error::ZeroCallTimeout)));
    }

    #[test]
    fn through_the_amrm_proxy_every_call_goes_to_the_proxy_alone() {
        let config = RmClientConfig::from_conf(&conf())
            .unwrap()
            .through_amrm_proxy("nm1:8049".parse().unwrap());
        assert_eq!(config.rm_ids(), [AMRM_PROXY_ID]);
        let proxy = &config.ha.members[0];
        assert_eq!(proxy.scheduler.to_string(), "nm1:8049");
        assert_eq!(proxy.client, proxy.scheduler);
        assert_eq!(
            config.sleep_max,
            Duration::from_millis(2000),
            "failover keys kept"
        );
    }
}
