//! [`LaunchSettings`]: what every container's launch script takes from the NodeManager
//! rather than from the container: its configuration and its own environment.

use std::collections::HashMap;
use std::path::Path;

use super::launch_expansion::{add_opens_options, java_major_version};
use crate::NmConfig;

/// The node-wide inputs of [`LaunchScript::build`](super::LaunchScript::build), read once when
/// the executor starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LaunchSettings {
    /// `yarn.nodemanager.env-whitelist`: the NodeManager's variables a container gets unless
    /// its launch context sets them, in order.
    pub(crate) env_whitelist: Vec<String>,
    /// `yarn.nodemanager.admin-env`: `NAME=VALUE` pairs, comma-separated, forced into every
    /// container.
    pub(crate) admin_env: String,
    /// `yarn.nodemanager.user-home-dir`: every container's `HOME`.
    pub(crate) user_home_dir: String,
    /// The NodeManager's own environment: the values of whitelisted variables, and what `$NAME`
    /// in the admin environment falls back to.
    pub(crate) nm_environment: HashMap<String, String>,
    /// What `<ADD_OPENS>` becomes (see
    /// [`add_opens_options`](super::launch_expansion::add_opens_options)).
    pub(crate) add_opens: &'static str,
}

impl LaunchSettings {
    /// The settings of `config`, with `nm_environment` as the NodeManager's environment and
    /// `<ADD_OPENS>` chosen for the JDK whose `release` file `read_release` returns for the
    /// NodeManager's `JAVA_HOME` (no `JAVA_HOME`, or no readable release file, counts as a JDK
    /// before 17: the options stay out).
    pub(crate) fn new(
        config: &NmConfig,
        nm_environment: HashMap<String, String>,
        read_release: impl FnOnce(&Path) -> Option<String>,
    ) -> Self {
        let java_home = nm_environment
            .get("JAVA_HOME")
            .filter(|home| !home.is_empty());
        let java_major = java_home
            .and_then(|home| read_release(&Path::new(home).join("release")))
            .and_then(|release| java_major_version(&release));
        match (java_home, java_major) {
            (Some(home), Some(major)) => {
                tracing::info!(java_home = %home, major, "containers' JDK");
            }
            (Some(home), None) => tracing::warn!(
                java_home = %home,
                "cannot tell the version of the JDK in JAVA_HOME (no readable release file); \
                 <ADD_OPENS> in containers' commands stands for nothing"
            ),
            (None, _) => tracing::info!(
                "JAVA_HOME is not set for the NodeManager: containers get none, so Java \
                 applications (Spark, MapReduce) cannot start unless they set it themselves"
            ),
        }
        Self {
            env_whitelist: config.env_whitelist.clone(),
            admin_env: config.admin_env.clone(),
            user_home_dir: config.user_home_dir.clone(),
            nm_environment,
            add_opens: add_opens_options(java_major),
        }
    }

    /// The settings of a NodeManager process: `config`, the process's environment and the
    /// release file of its `JAVA_HOME`.
    pub(crate) fn of_process(config: &NmConfig) -> Self {
        Self::new(config, std::env::vars().collect(), |path| {
            std::fs::read_to_string(path).ok()
        })
    }
}

#[cfg(test)]
mod tests {
    use yarn_conf::Configuration;

    use super::*;
    use crate::executor::launch_expansion::JDK17_PLUS_OPTIONS;

    fn config() -> NmConfig {
        NmConfig::from_conf(&Configuration::new()).unwrap()
    }

    #[test]
    fn hadoops_defaults_are_taken_from_the_configuration() {
        let settings = LaunchSettings::new(&config(), HashMap::new(), |_| None);
        assert_eq!(
            settings.env_whitelist,
            [
                "JAVA_HOME",
                "HADOOP_COMMON_HOME",
                "HADOOP_HDFS_HOME",
                "HADOOP_CONF_DIR",
                "CLASSPATH_PREPEND_DISTCACHE",
                "HADOOP_YARN_HOME",
                "HADOOP_HOME",
                "PATH",
                "LANG",
                "TZ"
            ]
        );
        assert_eq!(settings.admin_env, "MALLOC_ARENA_MAX=$MALLOC_ARENA_MAX");
        assert_eq!(settings.user_home_dir, "/home/");
        assert_eq!(settings.add_opens, "");
    }

    #[test]
    fn add_opens_follows_the_jdk_in_java_home() {
        let environment = HashMap::from([("JAVA_HOME".to_owned(), "/opt/jdk".to_owned())]);
        let settings = LaunchSettings::new(&config(), environment.clone(), |path| {
            assert_eq!(path, Path::new("/opt/jdk/release"));
            Some("JAVA_VERSION=\"17.0.12\"\n".to_owned())
        });
        assert_eq!(settings.add_opens, JDK17_PLUS_OPTIONS);
        let settings = LaunchSettings::new(&config(), environment.clone(), |_| {
            Some("JAVA_VERSION=\"1.8.0_292\"\n".to_owned())
        });
        assert_eq!(settings.add_opens, "");
        let settings = LaunchSettings::new(&config(), environment, |_| None);
        assert_eq!(settings.add_opens, "");
    }
}
