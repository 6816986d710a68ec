//! [`KernelNetwork`]: network faults made by the kernel, for the netns network mode: a cgroup
//! per daemon, iptables rules ([`PacketFilter`]) that drop partitioned packets, and netem on the
//! loopback device for latency.
//!
//! It only ever runs in a network namespace of the run's own ([`enter_private_network`]), so
//! its rules and qdiscs touch no other process's network and vanish with the run.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use tokio::io::AsyncWriteExt;
use tokio::process::Command;
use tokio::sync::Mutex;

use crate::network_rules::NetworkRules;
use crate::packet_filter::{FilteredDaemon, PacketFilter, link_delay};

/// Set once [`enter_private_network`] moved this process into a namespace of its own: the only
/// place [`KernelNetwork`] may change iptables rules and qdiscs.
static IN_PRIVATE_NETWORK: AtomicBool = AtomicBool::new(false);

/// Packets netem holds at once while it delays them.
const NETEM_LIMIT: &str = "100000";

/// This namespace's switch for liberal TCP window tracking in conntrack.
const CONNTRACK_TCP_BE_LIBERAL: &str = "/proc/sys/net/netfilter/nf_conntrack_tcp_be_liberal";

/// How long [`KernelNetwork`]'s drop waits for the processes of its cgroups to be gone.
const CGROUP_REMOVE_TIMEOUT: Duration = Duration::from_secs(2);

/// A daemon to tell apart: its id and every TCP port it listens on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelPeer {
    /// Its rm id or NodeManager name.
    pub id: String,
    /// Its ports.
    pub ports: Vec<u16>,
}

/// The kernel side of a netns chaos run.
///
/// Guarantees: the packet filter marks connections before any daemon starts, so every
/// connection of the run is known; [`set_rules`](Self::set_rules) replaces the filter in one
/// `iptables-restore` transaction; dropping it kills what still runs in its cgroups and removes
/// them, leaving (with a warning) any whose processes are not gone within 2 s.
#[derive(Debug)]
pub struct KernelNetwork {
    filter: PacketFilter,
    run_cgroup: PathBuf,
    cgroups: BTreeMap<String, PathBuf>,
    rules: Mutex<NetworkRules>,
    delay_missing: Option<String>,
}

impl KernelNetwork {
    /// Makes a cgroup for each of `daemons` under this process's cgroup, loads the marking
    /// rules and an empty filter, and finds out whether the kernel can delay packets (netem).
    ///
    /// # Errors
    ///
    /// When this process has not entered a network namespace of its own (the rules would reach
    /// the host), `/proc` cannot be read, cgroup2 is not mounted, a cgroup cannot be made, the
    /// daemons cannot be told apart ([`PacketFilter::new`]), `iptables-restore` fails, or
    /// conntrack's liberal tracking cannot be switched on.
    pub async fn start(daemons: Vec<KernelPeer>) -> anyhow::Result<Self> {
        ensure_private_network()?;
        let mountinfo = std::fs::read_to_string("/proc/self/mountinfo")
            .context("reading /proc/self/mountinfo")?;
        let membership =
            std::fs::read_to_string("/proc/self/cgroup").context("reading /proc/self/cgroup")?;
        let (own_dir, own_path) =
            locate_cgroup(&mountinfo, &membership).map_err(anyhow::Error::msg)?;
        let run = format!("yarn-ha-chaos-{}", std::process::id());
        let run_path = if own_path.is_empty() {
            run.clone()
        } else {
            format!("{own_path}/{run}")
        };
        let filtered = daemons
            .iter()
            .map(|daemon| FilteredDaemon {
                id: daemon.id.clone(),
                cgroup: format!("{run_path}/{}", daemon.id),
                ports: daemon.ports.clone(),
            })
            .collect();
        let filter = PacketFilter::new(filtered).map_err(anyhow::Error::msg)?;
        let run_cgroup = own_dir.join(&run);
        create_dir(&run_cgroup)?;
        // From here on, dropping `network` removes whatever cgroups were made.
        let mut network = Self {
            filter,
            run_cgroup,
            cgroups: BTreeMap::new(),
            rules: Mutex::new(NetworkRules::healthy()),
            delay_missing: None,
        };
        for daemon in daemons {
            let dir = network.run_cgroup.join(&daemon.id);
            create_dir(&dir)?;
            network.cgroups.insert(daemon.id, dir);
        }
        network.delay_missing = netem_missing().await;
        restore(
            "the connection marking rules",
            &network.filter.marking_script(),
        )
        .await?;
        restore(
            "the empty filter",
            &network.filter.rules_script(&NetworkRules::healthy()),
        )
        .await?;
        // Conntrack counts the packets the filter drops as sent; strict TCP window tracking could
        // then mark later segments INVALID, and INVALID packets carry no mark, so no rule would
        // select them. Liberal tracking keeps every segment of a known connection marked.
        std::fs::write(CONNTRACK_TCP_BE_LIBERAL, "1")
            .with_context(|| format!("writing 1 to {CONNTRACK_TCP_BE_LIBERAL}"))?;
        Ok(network)
    }

    /// The cgroup every daemon's cgroup is in.
    pub fn run_cgroup(&self) -> &Path {
        &self.run_cgroup
    }

    /// The cgroup daemon `id` runs in.
    pub fn cgroup(&self, id: &str) -> Option<&Path> {
        self.cgroups.get(id).map(PathBuf::as_path)
    }

    /// Why links cannot be slowed (the kernel has no netem qdisc, or `tc` is missing); `None`
    /// when they can.
    pub fn delay_missing(&self) -> Option<&str> {
        self.delay_missing.as_deref()
    }

    /// Puts `rules` in force: the filter's drops, and netem's delay on the loopback device.
    ///
    /// # Errors
    ///
    /// When a delay is asked for one link alone or where netem is missing, or `iptables-restore`
    /// or `tc` fails; the rules in force are then unknown, and healthy rules should be set.
    pub async fn set_rules(&self, rules: NetworkRules) -> anyhow::Result<()> {
        let mut current = self.rules.lock().await;
        let delay = link_delay(&rules).map_err(anyhow::Error::msg)?;
        let previous = link_delay(&current).map_err(anyhow::Error::msg)?;
        if let (Some(_), Some(missing)) = (delay, &self.delay_missing) {
            anyhow::bail!("cannot delay packets: {missing}");
        }
        restore("the filter rules", &self.filter.rules_script(&rules)).await?;
        match delay {
            Some(delay) if Some(delay) != previous => {
                let delay = format!("{}ms", delay.as_millis());
                // netem's default queue of 1,000 packets would itself drop packets under load.
                let netem = [
                    "qdisc",
                    "replace",
                    "dev",
                    "lo",
                    "root",
                    "netem",
                    "delay",
                    &delay,
                    "limit",
                    NETEM_LIMIT,
                ];
                tool("tc", &netem, None).await?;
            }
            None if previous.is_some() => {
                tool("tc", &["qdisc", "del", "dev", "lo", "root"], None).await?;
            }
            _ => {}
        }
        *current = rules;
        Ok(())
    }
}

impl Drop for KernelNetwork {
    /// Kills whatever still runs in the daemons' cgroups (`cgroup.kill`, on kernels that have
    /// it: a cluster dropped without being stopped), then removes them and the run's cgroup,
    /// waiting a moment for killed processes to leave; a cgroup still busy after that is left
    /// behind with a warning. After [`ChaosCluster::stop`](super::ChaosCluster::stop) every
    /// cgroup is already empty and nothing waits.
    fn drop(&mut self) {
        for dir in self.cgroups.values() {
            // Absent before Linux 5.14; the processes are then left to their owners' drops.
            let _ = std::fs::write(dir.join("cgroup.kill"), "1");
        }
        let deadline = Instant::now() + CGROUP_REMOVE_TIMEOUT;
        for dir in self.cgroups.values().chain([&self.run_cgroup]) {
            loop {
                match std::fs::remove_dir(dir) {
                    Ok(()) => break,
                    Err(err) if err.kind() == io::ErrorKind::NotFound => break,
                    Err(_) if Instant::now() < deadline => {
                        std::thread::sleep(Duration::from_millis(20));
                    }
                    Err(err) => {
                        tracing::warn!("leaving the cgroup {} behind: {err}", dir.display());
                        break;
                    }
                }
            }
        }
    }
}

/// Refuses to touch a network namespace [`enter_private_network`] did not make.
fn ensure_private_network() -> anyhow::Result<()> {
    anyhow::ensure!(
        IN_PRIVATE_NETWORK.load(Ordering::SeqCst),
        "the netns network mode runs in a network namespace of its own, and this process has \
         not entered one (run it through `yarn-ha chaos run --network netns`, which does)"
    );
    Ok(())
}

/// Where this process's cgroup v2 is, from `/proc/self/mountinfo` and `/proc/self/cgroup`: its
/// directory under the cgroup2 mount, and its path as `iptables -m cgroup --path` takes it
/// (relative to the cgroup namespace's root, without the leading `/`; empty for the root).
fn locate_cgroup(mountinfo: &str, membership: &str) -> Result<(PathBuf, String), String> {
    // `id parent major:minor root mount-point options ... - fstype source options`
    let (root, mount) = mountinfo
        .lines()
        .find_map(|line| {
            let (fields, filesystem) = line.split_once(" - ")?;
            let mut fields = fields.split_whitespace().skip(3);
            let (root, mount) = (fields.next()?, fields.next()?);
            (filesystem.split_whitespace().next()? == "cgroup2").then_some((root, mount))
        })
        .ok_or("cgroup2 is not mounted; the netns network mode tells daemons apart by cgroups")?;
    let own = membership
        .lines()
        .find_map(|line| line.strip_prefix("0::"))
        .ok_or("/proc/self/cgroup names no cgroup2 membership")?;
    // The mount may show a subtree (a bind mount, or a container's view): its root is the part
    // of the path the mount point stands for.
    let below_mount = Path::new(own).strip_prefix(root).map_err(|_| {
        format!(
            "this process's cgroup {own} is outside the cgroup2 mount at {mount}, which shows \
             {root}"
        )
    })?;
    Ok((
        Path::new(mount).join(below_mount),
        own.trim_matches('/').to_owned(),
    ))
}

fn create_dir(dir: &Path) -> anyhow::Result<()> {
    match std::fs::create_dir(dir) {
        Err(err) if err.kind() != io::ErrorKind::AlreadyExists => {
            Err(err).with_context(|| format!("creating the cgroup {}", dir.display()))
        }
        _ => Ok(()),
    }
}

/// Feeds `script` (`what` it is, for errors) to `iptables-restore`, which replaces the tables it
/// names at once. `-w` waits for the xtables lock, which the legacy backend shares with the
/// host's firewall tools.
async fn restore(what: &str, script: &str) -> anyhow::Result<()> {
    tool("iptables-restore", &["-w"], Some(script))
        .await
        .with_context(|| format!("loading {what}:\n{script}"))
}

/// Why netem cannot delay packets here, found by adding it to the loopback device and removing
/// it again; `None` when it can.
async fn netem_missing() -> Option<String> {
    let probe = [
        "qdisc", "replace", "dev", "lo", "root", "netem", "delay", "0ms",
    ];
    match tool("tc", &probe, None).await {
        Ok(()) => tool("tc", &["qdisc", "del", "dev", "lo", "root"], None)
            .await
            .err()
            .map(|err| format!("{err:#}")),
        Err(err) => Some(format!("{err:#}")),
    }
}

/// Runs `program` with `args`, writing `input` to its standard input.
///
/// # Errors
///
/// When it cannot be started (not installed, say) or exits unsuccessfully; the message names
/// the command and quotes what it printed.
async fn tool(program: &str, args: &[&str], input: Option<&str>) -> anyhow::Result<()> {
    let command_line = std::iter::once(program)
        .chain(args.iter().copied())
        .collect::<Vec<_>>()
        .join(" ");
    let mut child = Command::new(program)
        .args(args)
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .with_context(|| format!("running `{command_line}` (is it installed?)"))?;
    if let (Some(input), Some(mut stdin)) = (input, child.stdin.take()) {
        stdin
            .write_all(input.as_bytes())
            .await
            .with_context(|| format!("writing to `{command_line}`"))?;
    }
    let output = child
        .wait_with_output()
        .await
        .with_context(|| format!("waiting for `{command_line}`"))?;
    anyhow::ensure!(
        output.status.success(),
        "`{command_line}` failed ({}): {}",
        output.status,
        String::from_utf8_lossy(&output.stderr).trim()
    );
    Ok(())
}

/// Moves this process into a network namespace of its own whose loopback device is up, for
/// the netns network mode. Every thread and process started afterwards shares it; it vanishes,
/// with every rule made in it, when the last of them exits.
///
/// Must run before any other thread starts (before the Tokio runtime is built): a namespace
/// entered by one thread of several would not be the others'.
///
/// # Errors
///
/// When this process is not root with the capabilities it needs, already runs more than one
/// thread, the kernel refuses the namespace, or `ip` cannot bring the loopback device up.
pub fn enter_private_network() -> anyhow::Result<()> {
    // SAFETY: geteuid(2) takes no arguments and cannot fail.
    let euid = unsafe { libc::geteuid() };
    let status =
        std::fs::read_to_string("/proc/self/status").context("reading /proc/self/status")?;
    let missing = missing_capabilities(&status);
    anyhow::ensure!(
        euid == 0 && missing.is_empty(),
        "--network netns needs root with CAP_SYS_ADMIN and CAP_NET_ADMIN (it makes a network \
         namespace, cgroups and iptables rules); this process runs as uid {euid}{}. Run it as \
         root (a container must be granted both), or use --network proxy",
        if missing.is_empty() {
            String::new()
        } else {
            format!(" without {}", missing.join(" and "))
        }
    );
    let threads = status
        .lines()
        .find_map(|line| line.strip_prefix("Threads:"))
        .and_then(|count| count.trim().parse::<u32>().ok())
        .context("/proc/self/status names no thread count")?;
    anyhow::ensure!(
        threads == 1,
        "a network namespace must be entered before any other thread starts; this process \
         runs {threads} threads"
    );
    // SAFETY: unshare(2) with CLONE_NEWNET only changes this (single) thread's namespace.
    if unsafe { libc::unshare(libc::CLONE_NEWNET) } != 0 {
        return Err(io::Error::last_os_error()).context("unshare(CLONE_NEWNET)");
    }
    let up = std::process::Command::new("ip")
        .args(["link", "set", "lo", "up"])
        .stdin(Stdio::null())
        .output()
        .context("running `ip link set lo up` (is iproute2 installed?)")?;
    anyhow::ensure!(
        up.status.success(),
        "`ip link set lo up` failed ({}): {}",
        up.status,
        String::from_utf8_lossy(&up.stderr).trim()
    );
    IN_PRIVATE_NETWORK.store(true, Ordering::SeqCst);
    Ok(())
}

/// The capabilities the netns mode needs that the effective set in `status` (the text of
/// `/proc/self/status`) lacks; all of them when it names no effective set.
fn missing_capabilities(status: &str) -> Vec<&'static str> {
    const NEEDED: [(&str, u32); 2] = [("CAP_NET_ADMIN", 12), ("CAP_SYS_ADMIN", 21)];
    let effective = status
        .lines()
        .find_map(|line| line.strip_prefix("CapEff:"))
        .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
        .unwrap_or(0);
    NEEDED
        .into_iter()
        .filter(|(_, bit)| effective & (1 << bit) == 0)
        .map(|(name, _)| name)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_capabilities_missing_are_named() {
        let full = "Name:\tyarn-ha\nCapEff:\t000001fffeffffff\n";
        assert!(missing_capabilities(full).is_empty());
        // A container's default set: no CAP_SYS_ADMIN, no CAP_NET_ADMIN.
        let docker = "CapEff:\t00000000a80425fb\n";
        assert_eq!(
            missing_capabilities(docker),
            ["CAP_NET_ADMIN", "CAP_SYS_ADMIN"]
        );
        assert_eq!(missing_capabilities("Name:\tx\n").len(), 2);
    }

    #[test]
    fn the_cgroup_is_found_under_the_mount_that_shows_it() {
        let hybrid = "35 25 0:30 / /sys/fs/cgroup/unified rw,relatime shared:10 - cgroup2 cgroup2 rw\n\
                      36 25 0:31 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n";
        assert_eq!(
            locate_cgroup(hybrid, "1:cpu:/\n0::/\n").unwrap(),
            (PathBuf::from("/sys/fs/cgroup/unified"), String::new())
        );
        let unified = "30 23 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
        assert_eq!(
            locate_cgroup(unified, "0::/user.slice/session-1.scope\n").unwrap(),
            (
                PathBuf::from("/sys/fs/cgroup/user.slice/session-1.scope"),
                "user.slice/session-1.scope".to_owned()
            )
        );
        // A mount showing a subtree: its root stands for the mount point.
        let subtree = "40 30 0:26 /ci/job /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
        assert_eq!(
            locate_cgroup(subtree, "0::/ci/job/runner\n").unwrap(),
            (
                PathBuf::from("/sys/fs/cgroup/runner"),
                "ci/job/runner".to_owned()
            )
        );
        let outside = locate_cgroup(subtree, "0::/other\n").unwrap_err();
        assert!(outside.contains("outside the cgroup2 mount"), "{outside}");
        let v1_only = "36 25 0:31 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n";
        assert!(
            locate_cgroup(v1_only, "0::/\n")
                .unwrap_err()
                .contains("not mounted")
        );
    }

    #[tokio::test]
    async fn no_rule_is_loaded_outside_a_namespace_the_harness_made() {
        // A test process never enters one, so this must stop before any cgroup or rule.
        let peer = KernelPeer {
            id: "rm1".to_owned(),
            ports: vec![8030],
        };
        let err = KernelNetwork::start(vec![peer]).await.unwrap_err();
        assert!(
            format!("{err:#}").contains("has not entered one"),
            "{err:#}"
        );
    }
}
