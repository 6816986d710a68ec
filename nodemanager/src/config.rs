//! The NodeManager's typed configuration.

use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use yarn_amrmproxy::ProxyConfig;
use yarn_conf::{ConfError, Configuration, HostPort, keys};
use yarn_security::HadoopIpcSettings;
use yarn_web::WebAccess;

use crate::executor::ExecutorKind;

/// Everything a NodeManager reads from `yarn-site.xml`, read once at start-up and validated.
#[derive(Debug, Clone, PartialEq)]
pub struct NmConfig {
    /// ContainerManagementProtocol endpoint; with the host it names the node (`NodeId`).
    pub address: HostPort,
    /// Web UI and REST endpoint.
    pub webapp_address: HostPort,
    /// Who the web endpoint serves without a name (`hadoop.http.authentication.*`).
    pub web_access: WebAccess,
    /// Whether `address` (and the AMRMProxy's) also speaks Hadoop IPC, for Hadoop's NMClient.
    pub hadoop_ipc: HadoopIpcSettings,
    /// Memory offered to containers, in MB.
    pub memory_mb: u64,
    /// Virtual cores offered to containers.
    pub vcores: u32,
    /// Directories containers' working directories are created in.
    pub local_dirs: Vec<PathBuf>,
    /// Where the NM keeps the state it recovers after a restart.
    pub recovery_dir: PathBuf,
    /// Whether the NM keeps its state in `recovery_dir`, so that a restart re-acquires running
    /// containers and keeps queued ones, token keys and replay records.
    pub recovery_enabled: bool,
    /// Opportunistic containers that may wait in the queue; 0 disables queuing.
    pub opportunistic_queue_length: u32,
    /// Directories containers' stdout and stderr go to, as `<dir>/<app>/<container>/`; the
    /// first one receives the files, all of them are listed in the container's `LOG_DIRS`.
    pub log_dirs: Vec<PathBuf>,
    /// Time a stopped container has between SIGTERM and SIGKILL; zero sends SIGKILL at once.
    pub sleep_delay_before_sigkill: Duration,
    /// Whether a container whose process tree's resident memory exceeds its allocation is
    /// killed.
    pub pmem_check_enabled: bool,
    /// How often the containers monitor measures memory; never zero.
    pub container_monitor_interval: Duration,
    /// Whether containers' memory must be limited with cgroup v2: `true` makes an unusable
    /// cgroup an error at start-up, `false` uses cgroup v2 only when it is usable (see
    /// [`MemoryEnforcement`](crate::executor::MemoryEnforcement)).
    pub cgroup_memory_enabled: bool,
    /// Where the cgroup v2 hierarchy is mounted; an absolute path.
    pub cgroups_mount_path: PathBuf,
    /// The cgroup below the mount path delegated to the NodeManager, such as `/hadoop-yarn`;
    /// never holds `..`, so [`cgroup_dir`](Self::cgroup_dir) stays below the mount path.
    pub cgroups_hierarchy: String,
    /// How containers run: real processes or simulated ones.
    pub executor_kind: ExecutorKind,
    /// The NodeManager's environment variables containers get unless their launch context sets
    /// them (`yarn.nodemanager.env-whitelist`).
    pub env_whitelist: Vec<String>,
    /// `NAME=VALUE` pairs forced into every container (`yarn.nodemanager.admin-env`).
    pub admin_env: String,
    /// Every container's `HOME` (`yarn.nodemanager.user-home-dir`).
    pub user_home_dir: String,
    /// The AMRMProxy (`yarn.nodemanager.amrmproxy.*`) and distributed scheduling.
    pub amrm_proxy: ProxyConfig,
}

impl NmConfig {
    /// Builds and validates the NodeManager configuration.
    ///
    /// A node must offer some memory and at least one vcore and name at least one local
    /// directory; otherwise it could never run a container and would only confuse the scheduler.
    ///
    /// # Errors
    ///
    /// A [`ConfError`] naming the key, its value, where it was set and what was expected.
    pub fn from_conf(conf: &Configuration) -> Result<Self, ConfError> {
        let config = Self {
            address: conf.get_host_port(&keys::NM_ADDRESS)?,
            webapp_address: conf.get_host_port(&keys::NM_WEBAPP_ADDRESS)?,
            web_access: WebAccess::from_conf(conf)?,
            hadoop_ipc: HadoopIpcSettings::from_conf(conf)?,
            memory_mb: conf.get_size_mb(&keys::NM_PMEM_MB)?,
            vcores: conf.get_u32(&keys::NM_VCORES)?,
            local_dirs: conf
                .get_list(&keys::NM_LOCAL_DIRS)?
                .into_iter()
                .map(PathBuf::from)
                .collect(),
            recovery_dir: PathBuf::from(conf.get_required_string(&keys::NM_RECOVERY_DIR)?),
            recovery_enabled: conf.get_bool(&keys::NM_RECOVERY_ENABLED)?,
            opportunistic_queue_length: conf
                .get_u32(&keys::NM_OPPORTUNISTIC_CONTAINERS_MAX_QUEUE_LENGTH)?,
            log_dirs: conf
                .get_list(&keys::NM_LOG_DIRS)?
                .into_iter()
                .map(PathBuf::from)
                .collect(),
            sleep_delay_before_sigkill: conf
                .get_duration(&keys::NM_SLEEP_DELAY_BEFORE_SIGKILL_MS)?,
            pmem_check_enabled: conf.get_bool(&keys::NM_PMEM_CHECK_ENABLED)?,
            container_monitor_interval: conf
                .get_duration(&keys::NM_CONTAINER_MONITOR_INTERVAL_MS)?,
            cgroup_memory_enabled: conf.get_bool(&keys::NM_MEMORY_RESOURCE_ENABLED)?,
            cgroups_mount_path: PathBuf::from(
                conf.get_required_string(&keys::NM_LINUX_CONTAINER_CGROUPS_MOUNT_PATH)?,
            ),
            cgroups_hierarchy: conf.get_string(&keys::NM_LINUX_CONTAINER_CGROUPS_HIERARCHY)?,
            executor_kind: executor_kind(conf)?,
            env_whitelist: conf.get_list(&keys::NM_ENV_WHITELIST)?,
            admin_env: conf.get_string(&keys::NM_ADMIN_USER_ENV)?,
            user_home_dir: conf.get_string(&keys::NM_USER_HOME_DIR)?,
            amrm_proxy: ProxyConfig::from_conf(conf)?,
        };
        if config.memory_mb == 0 {
            return Err(conf.invalid_value(&keys::NM_PMEM_MB, 0, "at least 1 MB"));
        }
        if config.vcores == 0 {
            return Err(conf.invalid_value(&keys::NM_VCORES, 0, "at least 1 vcore"));
        }
        if config.local_dirs.is_empty() {
            return Err(ConfError::Missing {
                key: keys::NM_LOCAL_DIRS.name.to_string(),
                expected: "at least one directory".to_owned(),
            });
        }
        if config.log_dirs.is_empty() {
            return Err(ConfError::Missing {
                key: keys::NM_LOG_DIRS.name.to_string(),
                expected: "at least one directory".to_owned(),
            });
        }
        // A zero period would make the monitor spin (and tokio's interval refuses it).
        if config.container_monitor_interval.is_zero() {
            return Err(conf.invalid_value(
                &keys::NM_CONTAINER_MONITOR_INTERVAL_MS,
                0,
                "at least 1 ms",
            ));
        }
        if !config.cgroups_mount_path.is_absolute() {
            return Err(conf.invalid_value(
                &keys::NM_LINUX_CONTAINER_CGROUPS_MOUNT_PATH,
                config.cgroups_mount_path.display(),
                "an absolute path",
            ));
        }
        // `..` would let the NodeManager create cgroups outside the subtree delegated to it.
        if Path::new(&config.cgroups_hierarchy)
            .components()
            .any(|part| matches!(part, Component::ParentDir))
        {
            return Err(conf.invalid_value(
                &keys::NM_LINUX_CONTAINER_CGROUPS_HIERARCHY,
                &config.cgroups_hierarchy,
                "a cgroup path below the mount path without '..', such as /hadoop-yarn",
            ));
        }
        Ok(config)
    }

    /// The cgroup delegated to the NodeManager: the hierarchy below the mount path, whether or
    /// not the hierarchy starts with `/` (Hadoop writes it with one).
    pub fn cgroup_dir(&self) -> PathBuf {
        self.cgroups_mount_path
            .join(self.cgroups_hierarchy.trim_start_matches('/'))
    }
}

/// Reads `yarn.nodemanager.container-executor.class`, refusing executors yarn-ha does not have
/// (such as Hadoop's `LinuxContainerExecutor`) rather than quietly running the default one.
fn executor_kind(conf: &Configuration) -> Result<ExecutorKind, ConfError> {
    let key = &keys::NM_CONTAINER_EXECUTOR_CLASS;
    let value = conf.get_string(key)?;
    ExecutorKind::parse(&value)
        .ok_or_else(|| conf.invalid_value(key, &value, ExecutorKind::EXPECTED))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_match_hadoop() {
        let config = NmConfig::from_conf(&Configuration::new()).unwrap();
        assert_eq!(config.address.port, 8041);
        assert_eq!(config.memory_mb, 8192);
        assert_eq!(config.vcores, 8);
        assert_eq!(config.opportunistic_queue_length, 0);
        assert_eq!(config.log_dirs, [PathBuf::from("/tmp/yarn-ha/nm-logs")]);
        assert_eq!(
            config.sleep_delay_before_sigkill,
            Duration::from_millis(250)
        );
        assert!(config.pmem_check_enabled);
        assert_eq!(config.container_monitor_interval, Duration::from_secs(3));
        assert_eq!(config.executor_kind, ExecutorKind::Default);
    }

    #[test]
    fn recovery_is_on_by_default_and_read_from_its_key() {
        let config = NmConfig::from_conf(&Configuration::new()).unwrap();
        assert!(config.recovery_enabled);
        assert_eq!(
            config.recovery_dir,
            PathBuf::from("/tmp/yarn-ha/nm-recovery")
        );

        let mut conf = Configuration::new();
        conf.set("yarn.nodemanager.recovery.enabled", "false");
        conf.set("yarn.nodemanager.recovery.dir", "/var/lib/nm");
        let config = NmConfig::from_conf(&conf).unwrap();
        assert!(!config.recovery_enabled);
        assert_eq!(config.recovery_dir, PathBuf::from("/var/lib/nm"));

        conf.set("yarn.nodemanager.recovery.enabled", "maybe");
        let err = NmConfig::from_conf(&conf).unwrap_err().to_string();
        assert!(
            err.contains("yarn.nodemanager.recovery.enabled") && err.contains("maybe"),
            "{err}"
        );
    }

    #[test]
    fn executor_settings_are_read_from_their_keys() {
        let mut conf = Configuration::new();
        conf.set("yarn.nodemanager.log-dirs", "/a, /b");
        conf.set("yarn.nodemanager.sleep-delay-before-sigkill.ms", "0");
        conf.set("yarn.nodemanager.pmem-check-enabled", "false");
        conf.set("yarn.nodemanager.container-monitor.interval-ms", "50");
        conf.set("yarn.nodemanager.container-executor.class", "simulated");
        let config = NmConfig::from_conf(&conf).unwrap();
        assert_eq!(config.log_dirs, [PathBuf::from("/a"), PathBuf::from("/b")]);
        assert_eq!(config.sleep_delay_before_sigkill, Duration::ZERO);
        assert!(!config.pmem_check_enabled);
        assert_eq!(config.container_monitor_interval, Duration::from_millis(50));
        assert_eq!(config.executor_kind, ExecutorKind::Simulated);
    }

    #[test]
    fn cgroup_memory_settings_default_to_hadoops_paths_and_auto_detection() {
        let config = NmConfig::from_conf(&Configuration::new()).unwrap();
        assert!(!config.cgroup_memory_enabled);
        assert_eq!(config.cgroups_mount_path, PathBuf::from("/sys/fs/cgroup"));
        assert_eq!(config.cgroups_hierarchy, "/hadoop-yarn");
        assert_eq!(
            config.cgroup_dir(),
            PathBuf::from("/sys/fs/cgroup/hadoop-yarn")
        );

        let mut conf = Configuration::new();
        conf.set("yarn.nodemanager.resource.memory.enabled", "true");
        conf.set(
            "yarn.nodemanager.linux-container-executor.cgroups.mount-path",
            "/cg",
        );
        conf.set(
            "yarn.nodemanager.linux-container-executor.cgroups.hierarchy",
            "yarn/nm1",
        );
        let config = NmConfig::from_conf(&conf).unwrap();
        assert!(config.cgroup_memory_enabled);
        assert_eq!(config.cgroup_dir(), PathBuf::from("/cg/yarn/nm1"));
    }

    #[test]
    fn cgroup_paths_that_could_leave_the_mount_are_refused() {
        for (key, value, expected) in [
            (
                "yarn.nodemanager.linux-container-executor.cgroups.hierarchy",
                "/hadoop-yarn/../../etc",
                "without '..'",
            ),
            (
                "yarn.nodemanager.linux-container-executor.cgroups.mount-path",
                "sys/fs/cgroup",
                "an absolute path",
            ),
        ] {
            let mut conf = Configuration::new();
            conf.set(key, value);
            let err = NmConfig::from_conf(&conf).unwrap_err().to_string();
            assert!(
                err.contains(key) && err.contains(value) && err.contains(expected),
                "{key}={value}: {err}"
            );
        }
    }

    #[test]
    fn hadoops_default_container_executor_class_means_the_default_executor() {
        let mut conf = Configuration::new();
        conf.set(
            "yarn.nodemanager.container-executor.class",
            "org.apache.hadoop.yarn.server.nodemanager.DefaultContainerExecutor",
        );
        let config = NmConfig::from_conf(&conf).unwrap();
        assert_eq!(config.executor_kind, ExecutorKind::Default);
    }

    #[test]
    fn an_unknown_executor_is_refused_naming_the_key_and_the_choices() {
        let mut conf = Configuration::new();
        let key = "yarn.nodemanager.container-executor.class";
        let class = "org.apache.hadoop.yarn.server.nodemanager.LinuxContainerExecutor";
        conf.set(key, class);
        let err = NmConfig::from_conf(&conf).unwrap_err().to_string();
        assert!(err.contains(key), "{err}");
        assert!(err.contains(class), "{err}");
        assert!(
            err.contains("default") && err.contains("simulated"),
            "{err}"
        );
    }

    #[test]
    fn a_node_that_could_run_nothing_is_refused() {
        for (key, value, expected) in [
            ("yarn.nodemanager.resource.memory-mb", "0", "at least 1 MB"),
            (
                "yarn.nodemanager.resource.cpu-vcores",
                "0",
                "at least 1 vcore",
            ),
            ("yarn.nodemanager.resource.cpu-vcores", "-2", "non-negative"),
            (
                "yarn.nodemanager.local-dirs",
                " , ",
                "at least one directory",
            ),
            ("yarn.nodemanager.log-dirs", ",", "at least one directory"),
            (
                "yarn.nodemanager.container-monitor.interval-ms",
                "0",
                "at least 1 ms",
            ),
            (
                "yarn.nodemanager.sleep-delay-before-sigkill.ms",
                "soon",
                "milliseconds",
            ),
            ("yarn.nodemanager.pmem-check-enabled", "yes", "true"),
        ] {
            let mut conf = Configuration::new();
            conf.set(key, value);
            let err = NmConfig::from_conf(&conf).unwrap_err().to_string();
            assert!(
                err.contains(key) && err.contains(expected),
                "{key}={value}: {err}"
            );
        }
    }
}
