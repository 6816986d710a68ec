//! The AMRMProxy's typed configuration.

use std::time::Duration;

use yarn_conf::{ConfError, Configuration, HostPort, keys};
use yarn_security::KeyRollingSchedule;

/// What the hosting NodeManager reads to decide whether and how to run the AMRMProxy.
///
/// Built once at start-up by [`ProxyConfig::from_conf`], which checks every value that can be
/// checked without knowing the interceptors the NodeManager registers; the pipeline's names are
/// checked against those by [`InterceptorPipeline::new`](crate::InterceptorPipeline::new).
#[derive(Debug, Clone, PartialEq)]
pub struct ProxyConfig {
    /// `yarn.nodemanager.amrmproxy.enabled`.
    pub enabled: bool,
    /// Where AMs on this node reach the proxy.
    pub address: HostPort,
    /// `yarn.nodemanager.distributed-scheduling.enabled`: opportunistic asks are placed by the
    /// proxy's DistributedScheduler without an RM round trip.
    pub distributed_scheduling: bool,
    /// `yarn.nodemanager.amrmproxy.client.thread-count`: how many AM calls are served at once
    /// (at least 1).
    pub client_thread_count: u32,
    /// `yarn.nodemanager.amrmproxy.interceptor-class.pipeline`: interceptor names, first to
    /// last, never empty.
    pub interceptor_pipeline: Vec<String>,
    /// The `throttle` interceptor's limits.
    pub throttle: ThrottleConfig,
    /// When the local AMRMToken master key rolls: Hadoop's
    /// `yarn.resourcemanager.am-rm-tokens.master-key-rolling-interval-secs` (the RM's key, which
    /// Hadoop's AMRMProxy reuses), with an activation delay of 1.5 times
    /// `yarn.am.liveness-monitor.expiry-interval-ms`, so every AM heartbeats at least once while
    /// both the old and the new key validate.
    pub key_rolling: KeyRollingSchedule,
}

/// The `throttle` interceptor's token bucket, per application.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ThrottleConfig {
    /// `yarn.nodemanager.amrmproxy.throttle.max-allocates-per-second`: refill rate, finite and
    /// above 0.
    pub max_allocates_per_second: f64,
    /// `yarn.nodemanager.amrmproxy.throttle.burst`: bucket size, at least 1.
    pub burst: u32,
    /// `yarn.nodemanager.amrmproxy.throttle.max-delay-ms`: the longest a call is held back
    /// before it is refused instead.
    pub max_delay: Duration,
}

impl ProxyConfig {
    /// Builds and validates the proxy configuration.
    ///
    /// Distributed scheduling runs inside the proxy, so enabling it without the proxy is refused
    /// rather than silently ignored.
    ///
    /// # Errors
    ///
    /// A [`ConfError`] naming the key, its value, where it was set and what was expected: for
    /// distributed scheduling without the proxy, a thread count of 0, an empty pipeline, a
    /// throttle rate that is not above 0, a burst of 0, or a key rolling interval that is not
    /// more than three times the AM expiry interval.
    pub fn from_conf(conf: &Configuration) -> Result<Self, ConfError> {
        let enabled = conf.get_bool(&keys::AMRM_PROXY_ENABLED)?;
        let distributed_scheduling = conf.get_bool(&keys::DIST_SCHEDULING_ENABLED)?;
        if distributed_scheduling && !enabled {
            return Err(conf.invalid_value(
                &keys::DIST_SCHEDULING_ENABLED,
                true,
                format!("false unless {} is true", keys::AMRM_PROXY_ENABLED.name),
            ));
        }
        let client_thread_count = conf.get_u32(&keys::AMRM_PROXY_CLIENT_THREAD_COUNT)?;
        if client_thread_count == 0 {
            return Err(conf.invalid_value(&keys::AMRM_PROXY_CLIENT_THREAD_COUNT, 0, "at least 1"));
        }
        let interceptor_pipeline = conf.get_list(&keys::AMRM_PROXY_INTERCEPTOR_CLASS_PIPELINE)?;
        if interceptor_pipeline.is_empty() {
            return Err(conf.invalid_value(
                &keys::AMRM_PROXY_INTERCEPTOR_CLASS_PIPELINE,
                "",
                "at least one interceptor name, the last one talking to a ResourceManager \
                 (for example default)",
            ));
        }
        Ok(Self {
            enabled,
            address: conf.get_host_port(&keys::AMRM_PROXY_ADDRESS)?,
            distributed_scheduling,
            client_thread_count,
            interceptor_pipeline,
            throttle: ThrottleConfig::from_conf(conf)?,
            key_rolling: key_rolling(conf)?,
        })
    }
}

impl ThrottleConfig {
    fn from_conf(conf: &Configuration) -> Result<Self, ConfError> {
        let rate_key = &keys::AMRM_PROXY_THROTTLE_MAX_ALLOCATES_PER_SECOND;
        let max_allocates_per_second = conf.get_f64(rate_key)?;
        if max_allocates_per_second <= 0.0 {
            return Err(conf.invalid_value(
                rate_key,
                max_allocates_per_second,
                "a number of calls per second above 0",
            ));
        }
        let burst = conf.get_u32(&keys::AMRM_PROXY_THROTTLE_BURST)?;
        if burst == 0 {
            return Err(conf.invalid_value(&keys::AMRM_PROXY_THROTTLE_BURST, 0, "at least 1"));
        }
        Ok(Self {
            max_allocates_per_second,
            burst,
            max_delay: conf.get_duration(&keys::AMRM_PROXY_THROTTLE_MAX_DELAY_MS)?,
        })
    }
}

/// Hadoop's AMRMProxyTokenSecretManager timing: the RM's AMRMToken rolling interval, and an
/// activation delay of 1.5 AM expiry intervals.
fn key_rolling(conf: &Configuration) -> Result<KeyRollingSchedule, ConfError> {
    let interval_key = &keys::RM_AMRM_TOKEN_MASTER_KEY_ROLLING_INTERVAL_SECS;
    let interval = conf.get_duration(interval_key)?;
    let expiry = conf.get_duration(&keys::RM_AM_EXPIRY_INTERVAL_MS)?;
    let interval_ms = i64::try_from(interval.as_millis()).unwrap_or(i64::MAX);
    let delay_ms = i64::try_from(expiry.as_millis())
        .unwrap_or(i64::MAX)
        .saturating_mul(3)
        / 2;
    KeyRollingSchedule::new(interval_ms, delay_ms).map_err(|_| {
        conf.invalid_value(
            interval_key,
            interval.as_secs(),
            format!(
                "more than 3 times {} ({} ms), so that the AMRMProxy's local AMRMTokens roll \
                 only after every ApplicationMaster heard of the next key",
                keys::RM_AM_EXPIRY_INTERVAL_MS.name,
                expiry.as_millis()
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proxy_is_off_by_default_on_port_8049_with_hadoop_defaults() {
        let config = ProxyConfig::from_conf(&Configuration::new()).unwrap();
        assert!(!config.enabled && !config.distributed_scheduling);
        assert_eq!(config.address.port, 8049);
        assert_eq!(config.client_thread_count, 3);
        assert_eq!(config.interceptor_pipeline, ["default"]);
        assert_eq!(config.key_rolling.rolling_interval_ms(), 86_400_000);
        assert_eq!(config.key_rolling.activation_delay_ms(), 900_000);
        assert_eq!(
            config.throttle,
            ThrottleConfig {
                max_allocates_per_second: 10.0,
                burst: 20,
                max_delay: Duration::from_secs(1),
            }
        );
    }

    #[test]
    fn distributed_scheduling_needs_the_proxy() {
        let mut conf = Configuration::new();
        conf.set("yarn.nodemanager.distributed-scheduling.enabled", "true");
        let err = ProxyConfig::from_conf(&conf).unwrap_err().to_string();
        assert!(err.contains("yarn.nodemanager.amrmproxy.enabled"), "{err}");
        conf.set("yarn.nodemanager.amrmproxy.enabled", "true");
        assert!(
            ProxyConfig::from_conf(&conf)
                .unwrap()
                .distributed_scheduling
        );
    }

    #[test]
    fn pipeline_is_read_in_order_and_may_not_be_empty() {
        let mut conf = Configuration::new();
        conf.set(
            "yarn.nodemanager.amrmproxy.interceptor-class.pipeline",
            " throttle , default ",
        );
        let config = ProxyConfig::from_conf(&conf).unwrap();
        assert_eq!(config.interceptor_pipeline, ["throttle", "default"]);

        conf.set(
            "yarn.nodemanager.amrmproxy.interceptor-class.pipeline",
            " , ",
        );
        let err = ProxyConfig::from_conf(&conf).unwrap_err().to_string();
        assert!(
            err.contains("yarn.nodemanager.amrmproxy.interceptor-class.pipeline"),
            "{err}"
        );
        assert!(err.contains("at least one interceptor"), "{err}");
    }

    #[test]
    fn bad_throttle_and_thread_values_name_their_key() {
        for (key, value) in [
            (
                "yarn.nodemanager.amrmproxy.throttle.max-allocates-per-second",
                "0",
            ),
            ("yarn.nodemanager.amrmproxy.throttle.burst", "0"),
            ("yarn.nodemanager.amrmproxy.client.thread-count", "0"),
            ("yarn.nodemanager.amrmproxy.throttle.max-delay-ms", "-5"),
        ] {
            let mut conf = Configuration::new();
            conf.set(key, value);
            let err = ProxyConfig::from_conf(&conf).unwrap_err().to_string();
            assert!(err.contains(key), "{key}: {err}");
        }
    }

    #[test]
    fn key_rolling_interval_must_exceed_three_am_expiry_intervals() {
        let mut conf = Configuration::new();
        conf.set("yarn.am.liveness-monitor.expiry-interval-ms", "1000");
        conf.set(
            "yarn.resourcemanager.am-rm-tokens.master-key-rolling-interval-secs",
            "3",
        );
        let err = ProxyConfig::from_conf(&conf).unwrap_err().to_string();
        assert!(
            err.contains("yarn.resourcemanager.am-rm-tokens.master-key-rolling-interval-secs"),
            "{err}"
        );
        assert!(err.contains("more than 3 times"), "{err}");

        conf.set(
            "yarn.resourcemanager.am-rm-tokens.master-key-rolling-interval-secs",
            "4",
        );
        let config = ProxyConfig::from_conf(&conf).unwrap();
        assert_eq!(config.key_rolling.activation_delay_ms(), 1_500);
    }
}
