//! `yarn-ha conf hadoop-client`: the configuration a Hadoop client (YarnClient, spark-submit)
//! needs to use this cluster over Hadoop IPC.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, bail};
use yarn_conf::writer::site_xml;
use yarn_conf::{Configuration, HostPort, RmHaConfig, keys};
use yarn_security::HadoopIpcSettings;

/// Hadoop's provider that tries the configured ResourceManagers in turn on a
/// `StandbyException` or a lost connection.
const FAILOVER_PROXY_PROVIDER: &str =
    "org.apache.hadoop.yarn.client.ConfiguredRMFailoverProxyProvider";

/// A Hadoop client's `yarn-site.xml` and `core-site.xml`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HadoopClientSites {
    /// Where the ResourceManagers take clients and ApplicationMasters, HA included.
    pub yarn_site: String,
    /// Hadoop's authentication (simple, with tokens for AMs) and a local default file system.
    pub core_site: String,
}

impl HadoopClientSites {
    /// The sites for the cluster `conf` describes.
    ///
    /// # Errors
    ///
    /// When the cluster does not serve Hadoop IPC, or its configuration does not read.
    /// With `amrmproxy`, ApplicationMasters' scheduler addresses name that AMRMProxy instead of
    /// the ResourceManagers: an AM behind a proxy holds a token only the proxy accepts.
    pub fn for_cluster(conf: &Configuration, amrmproxy: Option<&HostPort>) -> anyhow::Result<Self> {
        let ipc = HadoopIpcSettings::from_conf(conf)?;
        if !ipc.enabled {
            bail!(
                "this cluster does not serve Hadoop IPC: set {}=true on every daemon first",
                keys::HADOOP_IPC_ENABLED.name
            );
        }
        let ha = RmHaConfig::from_conf(conf)?;
        let cluster_id = conf.get_string(&keys::RM_CLUSTER_ID)?;
        let mut yarn: Vec<(String, String)> =
            vec![(keys::RM_CLUSTER_ID.name.to_string(), cluster_id)];
        if ha.enabled {
            let ids: Vec<&str> = ha.members.iter().map(|m| m.rm_id.as_str()).collect();
            yarn.push((keys::RM_HA_ENABLED.name.to_string(), "true".to_owned()));
            yarn.push((keys::RM_HA_IDS.name.to_string(), ids.join(",")));
            yarn.push((
                "yarn.client.failover-proxy-provider".to_owned(),
                FAILOVER_PROXY_PROVIDER.to_owned(),
            ));
            for member in &ha.members {
                let id = &member.rm_id;
                yarn.push((
                    format!("{}.{id}", keys::RM_HOSTNAME.name),
                    member.client.host.clone(),
                ));
                yarn.push((
                    format!("{}.{id}", keys::RM_ADDRESS.name),
                    member.client.to_string(),
                ));
                yarn.push((
                    format!("{}.{id}", keys::RM_SCHEDULER_ADDRESS.name),
                    amrmproxy.unwrap_or(&member.scheduler).to_string(),
                ));
                yarn.push((
                    format!("{}.{id}", keys::RM_WEBAPP_ADDRESS.name),
                    member.webapp.to_string(),
                ));
            }
        } else {
            let member = &ha.members[0];
            yarn.push((
                keys::RM_HOSTNAME.name.to_string(),
                member.client.host.clone(),
            ));
            yarn.push((keys::RM_ADDRESS.name.to_string(), member.client.to_string()));
            yarn.push((
                keys::RM_SCHEDULER_ADDRESS.name.to_string(),
                amrmproxy.unwrap_or(&member.scheduler).to_string(),
            ));
            yarn.push((
                keys::RM_WEBAPP_ADDRESS.name.to_string(),
                member.webapp.to_string(),
            ));
        }
        let (authentication, protection) = (
            keys::HADOOP_SECURITY_AUTHENTICATION,
            keys::HADOOP_RPC_PROTECTION,
        );
        let core = [
            (authentication.name.as_ref(), "simple"),
            (protection.name.as_ref(), "authentication"),
            // A single-host test cluster shares one file system: Spark stages its files there.
            ("fs.defaultFS", "file:///"),
        ];
        Ok(HadoopClientSites {
            yarn_site: site_xml(yarn.iter().map(|(k, v)| (k.as_str(), v.as_str()))),
            core_site: site_xml(core),
        })
    }
}

/// Writes the sites into `out` (made if missing) and says what it wrote.
pub fn run(
    conf_dir: Option<&Path>,
    out: &Path,
    amrmproxy: Option<&HostPort>,
) -> anyhow::Result<ExitCode> {
    let dir = conf_dir.context(
        "conf hadoop-client needs the cluster's configuration: pass --conf-dir DIR or set YARN_CONF_DIR",
    )?;
    let conf = Configuration::load_dir(dir)?;
    let sites = HadoopClientSites::for_cluster(&conf, amrmproxy)?;
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    for (name, text) in [
        ("yarn-site.xml", &sites.yarn_site),
        ("core-site.xml", &sites.core_site),
    ] {
        let path = out.join(name);
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
        println!("wrote {}", path.display());
    }
    println!(
        "use it with HADOOP_CONF_DIR={} (Hadoop IPC is not encrypted: keep it on a trusted network)",
        out.display()
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cluster(pairs: &[(&str, &str)]) -> Configuration {
        let mut conf = Configuration::new();
        conf.set("yarn.resourcemanager.cluster-id", "c1");
        for (key, value) in pairs {
            conf.set(key, value);
        }
        conf
    }

    fn parse(xml: &str) -> Configuration {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("yarn-site.xml"), xml).unwrap();
        Configuration::load_dir(dir.path()).unwrap()
    }

    #[test]
    fn an_ha_cluster_names_every_replica_for_hadoops_failover() {
        let conf = cluster(&[
            ("yarn.hadoop-ipc.enabled", "true"),
            ("yarn.resourcemanager.ha.enabled", "true"),
            ("yarn.resourcemanager.ha.rm-ids", "rm1,rm2"),
            ("yarn.resourcemanager.hostname.rm1", "h1"),
            ("yarn.resourcemanager.hostname.rm2", "h2"),
            ("yarn.resourcemanager.address.rm2", "h2:9032"),
        ]);
        let sites = HadoopClientSites::for_cluster(&conf, None).unwrap();
        let client = parse(&sites.yarn_site);
        let value = |name: &str| client.get(name).unwrap();
        assert_eq!(
            value("yarn.resourcemanager.ha.enabled").as_deref(),
            Some("true")
        );
        assert_eq!(
            value("yarn.resourcemanager.ha.rm-ids").as_deref(),
            Some("rm1,rm2")
        );
        assert_eq!(
            value("yarn.resourcemanager.address.rm1").as_deref(),
            Some("h1:8032")
        );
        assert_eq!(
            value("yarn.resourcemanager.address.rm2").as_deref(),
            Some("h2:9032")
        );
        assert_eq!(
            value("yarn.resourcemanager.scheduler.address.rm2").as_deref(),
            Some("h2:8030")
        );
        assert_eq!(
            value("yarn.resourcemanager.cluster-id").as_deref(),
            Some("c1")
        );
        assert!(sites.core_site.contains("<value>simple</value>"));
    }

    #[test]
    fn a_single_replica_uses_the_plain_keys() {
        let conf = cluster(&[
            ("yarn.hadoop-ipc.enabled", "true"),
            ("yarn.resourcemanager.hostname", "h9"),
        ]);
        let sites = HadoopClientSites::for_cluster(&conf, None).unwrap();
        let client = parse(&sites.yarn_site);
        assert_eq!(
            client
                .get("yarn.resourcemanager.address")
                .unwrap()
                .as_deref(),
            Some("h9:8032")
        );
        assert!(!sites.yarn_site.contains("yarn.resourcemanager.ha"));
    }

    #[test]
    fn behind_an_amrmproxy_every_scheduler_address_is_the_proxys() {
        let conf = cluster(&[
            ("yarn.hadoop-ipc.enabled", "true"),
            ("yarn.resourcemanager.ha.enabled", "true"),
            ("yarn.resourcemanager.ha.rm-ids", "rm1,rm2"),
            ("yarn.resourcemanager.hostname.rm1", "h1"),
            ("yarn.resourcemanager.hostname.rm2", "h2"),
        ]);
        let proxy: HostPort = "localhost:8049".parse().unwrap();
        let sites = HadoopClientSites::for_cluster(&conf, Some(&proxy)).unwrap();
        let client = parse(&sites.yarn_site);
        for id in ["rm1", "rm2"] {
            let key = format!("yarn.resourcemanager.scheduler.address.{id}");
            assert_eq!(client.get(&key).unwrap().as_deref(), Some("localhost:8049"));
        }
        assert_eq!(
            client
                .get("yarn.resourcemanager.address.rm2")
                .unwrap()
                .as_deref(),
            Some("h2:8032"),
            "clients still reach the ResourceManagers"
        );
    }

    #[test]
    fn a_cluster_without_hadoop_ipc_is_refused_naming_the_key() {
        let err = HadoopClientSites::for_cluster(&cluster(&[]), None).unwrap_err();
        assert!(
            err.to_string().contains("yarn.hadoop-ipc.enabled=true"),
            "{err}"
        );
    }
}
