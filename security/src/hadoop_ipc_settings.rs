//! Whether and how the daemons speak Hadoop's own RPC beside their mutual-TLS gRPC.

use yarn_conf::keys::{
    HADOOP_IPC_ENABLED, HADOOP_IPC_SIMPLE_AUTHENTICATION_ENABLED, HADOOP_RPC_PROTECTION,
    HADOOP_SECURITY_AUTHENTICATION, IPC_MAXIMUM_DATA_LENGTH,
};
use yarn_conf::{ConfError, Configuration};

/// The Hadoop IPC settings every daemon reads at start-up.
///
/// Hadoop IPC shares each RPC port with gRPC: a connection that opens with `hrpc` is served as
/// Hadoop IPC, one that opens a TLS handshake as before. Enabling it never weakens the TLS
/// side. What it admits:
/// - ApplicationMasters and NodeManager clients prove themselves with their AMRMToken or NM
///   token over SASL DIGEST-MD5, whatever `simple_authentication` says;
/// - clients without a token (submit, report, kill) only when `simple_authentication` is on,
///   under the user name they claim.
///
/// Hadoop IPC is not encrypted (`hadoop.rpc.protection` is `authentication`): an operator who
/// enables it binds the ports to a trusted network.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HadoopIpcSettings {
    /// `yarn.hadoop-ipc.enabled`.
    pub enabled: bool,
    /// `yarn.hadoop-ipc.simple-authentication.enabled`.
    pub simple_authentication: bool,
    /// `ipc.maximum.data.length`: the largest frame read, in bytes.
    pub max_data_length: u32,
}

impl HadoopIpcSettings {
    /// Reads the settings and refuses what yarn-ha cannot honour: Kerberos
    /// (`hadoop.security.authentication`), SASL integrity or privacy (`hadoop.rpc.protection`),
    /// simple authentication without Hadoop IPC, and a frame limit of 0.
    ///
    /// # Errors
    ///
    /// [`ConfError::InvalidValue`] naming the key, its value and where it was set.
    pub fn from_conf(conf: &Configuration) -> Result<Self, ConfError> {
        let authentication = conf.get_string(&HADOOP_SECURITY_AUTHENTICATION)?;
        if !authentication.eq_ignore_ascii_case("simple") {
            return Err(conf.invalid_value(
                &HADOOP_SECURITY_AUTHENTICATION,
                &authentication,
                "simple: yarn-ha authenticates its own clients with certificates and Hadoop's \
                 with tokens or claimed names; Kerberos (SASL GSSAPI) is not supported yet",
            ));
        }
        let protection = conf.get_string(&HADOOP_RPC_PROTECTION)?;
        if !protection.eq_ignore_ascii_case("authentication") {
            return Err(conf.invalid_value(
                &HADOOP_RPC_PROTECTION,
                &protection,
                "authentication: yarn-ha does not wrap Hadoop IPC for integrity or privacy; \
                 its own transport is mutual TLS",
            ));
        }
        let enabled = conf.get_bool(&HADOOP_IPC_ENABLED)?;
        let simple_authentication = conf.get_bool(&HADOOP_IPC_SIMPLE_AUTHENTICATION_ENABLED)?;
        if simple_authentication && !enabled {
            return Err(conf.invalid_value(
                &HADOOP_IPC_SIMPLE_AUTHENTICATION_ENABLED,
                simple_authentication,
                format!(
                    "false while {} is false: simple authentication is Hadoop IPC's",
                    HADOOP_IPC_ENABLED.name
                ),
            ));
        }
        let max_data_length = conf.get_u32(&IPC_MAXIMUM_DATA_LENGTH)?;
        if max_data_length == 0 {
            return Err(conf.invalid_value(
                &IPC_MAXIMUM_DATA_LENGTH,
                max_data_length,
                "at least 1",
            ));
        }
        Ok(HadoopIpcSettings {
            enabled,
            simple_authentication,
            max_data_length,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conf(pairs: &[(&str, &str)]) -> Configuration {
        let mut conf = Configuration::new();
        for (key, value) in pairs {
            conf.set(key, value);
        }
        conf
    }

    #[test]
    fn hadoop_ipc_is_off_by_default() {
        let settings = HadoopIpcSettings::from_conf(&Configuration::new()).unwrap();
        assert_eq!(
            settings,
            HadoopIpcSettings {
                enabled: false,
                simple_authentication: false,
                max_data_length: 128 * 1024 * 1024,
            }
        );
    }

    #[test]
    fn simple_authentication_is_taken_with_hadoop_ipc() {
        let settings = HadoopIpcSettings::from_conf(&conf(&[
            ("yarn.hadoop-ipc.enabled", "true"),
            ("yarn.hadoop-ipc.simple-authentication.enabled", "true"),
            ("ipc.maximum.data.length", "1048576"),
        ]))
        .unwrap();
        assert!(settings.enabled && settings.simple_authentication);
        assert_eq!(settings.max_data_length, 1_048_576);
    }

    #[test]
    fn what_cannot_be_honoured_is_refused_by_name() {
        for (pairs, key) in [
            (
                &[("hadoop.security.authentication", "kerberos")][..],
                "hadoop.security.authentication",
            ),
            (
                &[("hadoop.rpc.protection", "privacy")][..],
                "hadoop.rpc.protection",
            ),
            (
                &[("yarn.hadoop-ipc.simple-authentication.enabled", "true")][..],
                "yarn.hadoop-ipc.simple-authentication.enabled",
            ),
            (
                &[("ipc.maximum.data.length", "0")][..],
                "ipc.maximum.data.length",
            ),
        ] {
            let err = HadoopIpcSettings::from_conf(&conf(pairs)).unwrap_err();
            assert!(err.to_string().contains(key), "{err}");
        }
    }
}
