//! [`RackResolver`]: the rack of a NodeManager, from Hadoop's `net.topology.*` mapping.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use tokio::sync::{OnceCell, Semaphore};
use yarn_conf::keys::{
    NET_TOPOLOGY_NODE_SWITCH_MAPPING_IMPL, NET_TOPOLOGY_SCRIPT_FILE_NAME,
    NET_TOPOLOGY_SCRIPT_NUMBER_ARGS, NET_TOPOLOGY_TABLE_FILE_NAME,
};
use yarn_conf::{ConfError, Configuration};
use yarn_scheduler::DEFAULT_RACK;

/// Hadoop's script mapping, its default.
const SCRIPT_MAPPING: &str = "org.apache.hadoop.net.ScriptBasedMapping";
/// Hadoop's table mapping.
const TABLE_MAPPING: &str = "org.apache.hadoop.net.TableMapping";
/// How long one run of the topology script may take. Hadoop sets no limit; here a script that
/// hangs would hold its node's registration for good.
const SCRIPT_TIMEOUT: Duration = Duration::from_secs(30);
/// Topology scripts run at once: NodeManagers re-registering together after a failover wait
/// for a turn rather than start thousands of processes.
const SCRIPT_RUNS: usize = 4;
/// How long resolving a host name may take before the name itself is asked about.
const LOOKUP_TIMEOUT: Duration = Duration::from_secs(5);

/// Where racks come from, as `net.topology.node.switch.mapping.impl` selects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TopologyMapping {
    /// Every node on `/default-rack`: the script mapping without a script.
    DefaultRack,
    /// `net.topology.script.file.name`, run with one address and printing its rack.
    Script(PathBuf),
    /// `net.topology.table.file.name`: `address rack` lines.
    Table(PathBuf),
}

impl TopologyMapping {
    /// Reads the mapping's keys.
    ///
    /// # Errors
    ///
    /// A [`ConfError`] naming the key and where it was set for a mapping class yarn-ha does not
    /// implement (a custom Java class cannot run here, and placing every node on one rack
    /// instead would break the operator's topology silently), and for a script argument count
    /// below 1.
    pub fn from_conf(conf: &Configuration) -> Result<Self, ConfError> {
        let class = conf.get_string(&NET_TOPOLOGY_NODE_SWITCH_MAPPING_IMPL)?;
        let args = conf.get_i32(&NET_TOPOLOGY_SCRIPT_NUMBER_ARGS)?;
        if args < 1 {
            return Err(conf.invalid_value(&NET_TOPOLOGY_SCRIPT_NUMBER_ARGS, args, "at least 1"));
        }
        let file = |key| {
            conf.get_string(key)
                .map(|name| (!name.is_empty()).then(|| PathBuf::from(name)))
        };
        match class.as_str() {
            SCRIPT_MAPPING => {
                Ok(file(&NET_TOPOLOGY_SCRIPT_FILE_NAME)?.map_or(Self::DefaultRack, Self::Script))
            }
            TABLE_MAPPING => {
                Ok(file(&NET_TOPOLOGY_TABLE_FILE_NAME)?.map_or(Self::DefaultRack, Self::Table))
            }
            other => Err(conf.invalid_value(
                &NET_TOPOLOGY_NODE_SWITCH_MAPPING_IMPL,
                other,
                format!("{SCRIPT_MAPPING} or {TABLE_MAPPING}: yarn-ha runs no other mapping"),
            )),
        }
    }
}

/// Resolves NodeManager hosts to racks with a [`TopologyMapping`], as Hadoop's `RackResolver`
/// does: the host name is turned into its IP address when it resolves, the mapping is asked,
/// and the answer is cached for the life of the process.
///
/// Guarantees: resolving never fails. A script that fails, times out or prints something other
/// than one rack starting with `/` puts the node on `/default-rack` with a warning, and is
/// asked again at the node's next registration; the table is read once, and an unreadable
/// table puts every node on `/default-rack` with one warning.
#[derive(Debug)]
pub struct RackResolver {
    mapping: TopologyMapping,
    cache: Mutex<HashMap<String, String>>,
    table: OnceCell<HashMap<String, String>>,
    scripts: Semaphore,
}

impl RackResolver {
    /// A resolver using `mapping`.
    pub fn new(mapping: TopologyMapping) -> Self {
        Self {
            mapping,
            cache: Mutex::new(HashMap::new()),
            table: OnceCell::new(),
            scripts: Semaphore::new(SCRIPT_RUNS),
        }
    }

    /// The rack of the node on `host`.
    pub async fn resolve(&self, host: &str) -> String {
        // Without a mapping the answer needs no address: no lookup on the host's resolver
        // threads, which the deterministic simulation could not order.
        if self.mapping == TopologyMapping::DefaultRack {
            return DEFAULT_RACK.to_owned();
        }
        let address = address_of(host).await;
        let cached = self
            .cache
            .lock()
            .ok()
            .and_then(|c| c.get(&address).cloned());
        if let Some(rack) = cached {
            return rack;
        }
        let rack = match &self.mapping {
            TopologyMapping::DefaultRack => Some(DEFAULT_RACK.to_owned()),
            TopologyMapping::Script(script) => {
                // Never closed, so a permit always comes.
                let _turn = self.scripts.acquire().await;
                run_script(script, &address).await
            }
            TopologyMapping::Table(table) => {
                let table = self.table.get_or_init(|| read_table(table)).await;
                Some(
                    table
                        .get(&address)
                        .cloned()
                        .unwrap_or_else(|| DEFAULT_RACK.to_owned()),
                )
            }
        };
        match rack {
            Some(rack) => {
                if let Ok(mut cache) = self.cache.lock() {
                    cache.insert(address, rack.clone());
                }
                rack
            }
            None => DEFAULT_RACK.to_owned(),
        }
    }
}

/// `host`'s IP address, IPv4 first as Java's `InetAddress.getByName` answers, or `host` itself
/// when it does not resolve within [`LOOKUP_TIMEOUT`].
async fn address_of(host: &str) -> String {
    let lookup = tokio::time::timeout(LOOKUP_TIMEOUT, tokio::net::lookup_host((host, 0))).await;
    let Ok(Ok(addresses)) = lookup else {
        return host.to_owned();
    };
    let addresses: Vec<std::net::IpAddr> = addresses.map(|address| address.ip()).collect();
    addresses
        .iter()
        .find(|ip| ip.is_ipv4())
        .or_else(|| addresses.first())
        .map_or_else(|| host.to_owned(), ToString::to_string)
}

/// Runs `script address` and reads its rack; `None` (logged) when it cannot.
async fn run_script(script: &Path, address: &str) -> Option<String> {
    let run = tokio::process::Command::new(script)
        .arg(address)
        .kill_on_drop(true)
        .output();
    let failure = match tokio::time::timeout(SCRIPT_TIMEOUT, run).await {
        Err(_) => format!("took longer than {} s", SCRIPT_TIMEOUT.as_secs()),
        Ok(Err(err)) => format!("could not run: {err}"),
        Ok(Ok(output)) if !output.status.success() => format!("exited with {}", output.status),
        Ok(Ok(output)) => match parse_script_output(&String::from_utf8_lossy(&output.stdout)) {
            Ok(rack) => return Some(rack),
            Err(problem) => problem,
        },
    };
    tracing::warn!(
        script = %script.display(),
        %address,
        "the topology script {failure}; the node is on {DEFAULT_RACK}"
    );
    None
}

/// The one rack a script run for one address printed.
fn parse_script_output(stdout: &str) -> Result<String, String> {
    let racks: Vec<&str> = stdout.split_whitespace().collect();
    match racks.as_slice() {
        [rack] => normalize_rack(rack),
        _ => Err(format!(
            "printed {} values for 1 address: {:?}",
            racks.len(),
            stdout.trim()
        )),
    }
}

/// A rack as Hadoop's network topology takes it: starting with `/`, without a trailing `/`.
fn normalize_rack(rack: &str) -> Result<String, String> {
    if !rack.starts_with('/') {
        return Err(format!(
            "printed rack {rack:?}, which does not start with '/'"
        ));
    }
    let trimmed = rack
        .strip_suffix('/')
        .filter(|r| !r.is_empty())
        .unwrap_or(rack);
    Ok(trimmed.to_owned())
}

/// Reads the table at `path` (logging each line it skips), or an empty table when it cannot be
/// read.
async fn read_table(path: &Path) -> HashMap<String, String> {
    match tokio::fs::read_to_string(path).await {
        Ok(text) => parse_table(&text, path),
        Err(err) => {
            tracing::warn!(
                table = %path.display(),
                %err,
                "the topology table cannot be read; every node is on {DEFAULT_RACK}"
            );
            HashMap::new()
        }
    }
}

/// Hadoop's table format: `address rack` per line, blank lines and lines starting with `#`
/// skipped; any other line is skipped with a warning naming it.
fn parse_table(text: &str, path: &Path) -> HashMap<String, String> {
    let mut table = HashMap::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let columns: Vec<&str> = line.split_whitespace().collect();
        let parsed = match columns.as_slice() {
            [address, rack] => normalize_rack(rack).map(|rack| (*address, rack)),
            _ => Err("has not two columns".to_owned()),
        };
        match parsed {
            Ok((address, rack)) => {
                table.insert(address.to_owned(), rack);
            }
            Err(problem) => tracing::warn!(
                "{}:{}: skipped: the line {problem}: {line:?}",
                path.display(),
                number + 1
            ),
        }
    }
    table
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn conf(pairs: &[(&str, &str)]) -> Configuration {
        let mut conf = Configuration::new();
        for (key, value) in pairs {
            conf.set(key, value);
        }
        conf
    }

    #[test]
    fn the_mapping_follows_hadoop_keys_and_an_unknown_class_is_refused() {
        assert_eq!(
            TopologyMapping::from_conf(&conf(&[])).unwrap(),
            TopologyMapping::DefaultRack
        );
        assert_eq!(
            TopologyMapping::from_conf(&conf(&[("net.topology.script.file.name", "/t.sh")]))
                .unwrap(),
            TopologyMapping::Script("/t.sh".into())
        );
        assert_eq!(
            TopologyMapping::from_conf(&conf(&[
                ("net.topology.node.switch.mapping.impl", TABLE_MAPPING),
                ("net.topology.table.file.name", "/racks"),
            ]))
            .unwrap(),
            TopologyMapping::Table("/racks".into())
        );
        for (key, value) in [
            ("net.topology.node.switch.mapping.impl", "com.acme.RackMap"),
            ("net.topology.script.number.args", "0"),
        ] {
            let message = TopologyMapping::from_conf(&conf(&[(key, value)]))
                .unwrap_err()
                .to_string();
            assert!(
                message.contains(key) && message.contains(value),
                "{message}"
            );
        }
    }

    #[test]
    fn a_table_keeps_two_column_lines_with_a_rack() {
        let table = parse_table(
            "# address rack\n10.0.0.1 /r1\n\n10.0.0.2\t/r2/\n10.0.0.3 r3\n10.0.0.4 /r4 extra\n",
            Path::new("racks"),
        );
        assert_eq!(table.len(), 2);
        assert_eq!(table["10.0.0.1"], "/r1");
        assert_eq!(table["10.0.0.2"], "/r2");
    }

    #[test]
    fn script_output_must_be_one_rack() {
        assert_eq!(parse_script_output(" /dc1/r7\n").unwrap(), "/dc1/r7");
        for bad in ["", "/a /b", "rack1"] {
            assert!(parse_script_output(bad).is_err(), "{bad:?}");
        }
    }

    #[tokio::test]
    async fn a_script_places_nodes_and_a_failing_one_leaves_them_on_the_default_rack() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("topology.sh");
        std::fs::write(
            &script,
            "#!/bin/sh\ncase \"$1\" in 127.0.0.1) echo /rack-a ;; *) exit 3 ;; esac\n",
        )
        .unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let resolver = RackResolver::new(TopologyMapping::Script(script));
        assert_eq!(resolver.resolve("127.0.0.1").await, "/rack-a");
        assert_eq!(resolver.resolve("10.9.9.9").await, DEFAULT_RACK);
        let missing = RackResolver::new(TopologyMapping::Script(dir.path().join("absent")));
        assert_eq!(missing.resolve("127.0.0.1").await, DEFAULT_RACK);
    }

    #[tokio::test]
    async fn a_table_is_read_once_and_an_unreadable_one_places_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("racks");
        std::fs::write(&path, "127.0.0.1 /rack-b\n").unwrap();
        let resolver = RackResolver::new(TopologyMapping::Table(path.clone()));
        assert_eq!(resolver.resolve("127.0.0.1").await, "/rack-b");
        std::fs::write(&path, "10.1.1.1 /rack-c\n").unwrap();
        assert_eq!(
            resolver.resolve("10.1.1.1").await,
            DEFAULT_RACK,
            "read once"
        );
        let unreadable = RackResolver::new(TopologyMapping::Table(dir.path().join("absent")));
        assert_eq!(unreadable.resolve("127.0.0.1").await, DEFAULT_RACK);
    }
}
