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

use super::network_rules::NetworkRules;
use super::packet_filter::{FilteredDaemon, PacketFilter, link_delay};

/// Set once [`enter_private_network`] moved this process into a namespace of its own: the only
/// place [`KernelNetwork`] may change iptables rules and qdiscs.
static IN_PRIVATE_NETWORK: AtomicBool = AtomicBool::new(false);

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
/// `iptables-restore` transaction; dropping it removes the cgroups it made once their
/// processes are gone.
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
    /// the host), cgroup2 is not mounted, a cgroup cannot be made, the daemons cannot be told apart
    /// ([`PacketFilter::new`]), or `iptables-restore` fails.
    pub async fn start(daemons: Vec<KernelPeer>) -> anyhow::Result<Self> {
        ensure_private_network()?;
        let (mount, own) = own_cgroup()?;
        let relative_run = format!("{own}/yarn-ha-chaos-{}", std::process::id())
            .trim_start_matches('/')
            .to_owned();
        let run_cgroup = mount.join(&relative_run);
        create_dir(&run_cgroup)?;
        let mut cgroups = BTreeMap::new();
        let mut filtered = Vec::new();
        for daemon in daemons {
            let dir = run_cgroup.join(&daemon.id);
            create_dir(&dir)?;
            cgroups.insert(daemon.id.clone(), dir);
            filtered.push(FilteredDaemon {
                cgroup: format!("{relative_run}/{}", daemon.id),
                id: daemon.id,
                ports: daemon.ports,
            });
        }
        let network = Self {
            filter: PacketFilter::new(filtered).map_err(anyhow::Error::msg)?,
            run_cgroup,
            cgroups,
            rules: Mutex::new(NetworkRules::healthy()),
            delay_missing: netem_missing().await,
        };
        restore(&network.filter.marking_script()).await?;
        restore(&network.filter.rules_script(&NetworkRules::healthy())).await?;
        Ok(network)
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
        restore(&self.filter.rules_script(&rules)).await?;
        match delay {
            Some(delay) if Some(delay) != previous => {
                let delay = format!("{}ms", delay.as_millis());
                tool(
                    "tc",
                    &[
                        "qdisc", "replace", "dev", "lo", "root", "netem", "delay", &delay,
                    ],
                    None,
                )
                .await?;
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
    /// Removes the daemons' cgroups, then the run's, waiting a moment for killed processes to
    /// leave them; a cgroup still busy after that is left behind with a warning.
    fn drop(&mut self) {
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

/// Where cgroup2 is mounted and this process's cgroup under it (`/` for the root).
fn own_cgroup() -> anyhow::Result<(PathBuf, String)> {
    let mountinfo =
        std::fs::read_to_string("/proc/self/mountinfo").context("reading /proc/self/mountinfo")?;
    let mount = mountinfo
        .lines()
        .find_map(|line| {
            // `id parent major:minor root mount-point options ... - fstype source options`
            let (fields, filesystem) = line.split_once(" - ")?;
            let mount_point = fields.split_whitespace().nth(4)?;
            (filesystem.split_whitespace().next()? == "cgroup2").then(|| PathBuf::from(mount_point))
        })
        .context(
            "cgroup2 is not mounted; the netns network mode tells daemons apart by their cgroups",
        )?;
    let cgroups =
        std::fs::read_to_string("/proc/self/cgroup").context("reading /proc/self/cgroup")?;
    let own = cgroups
        .lines()
        .find_map(|line| line.strip_prefix("0::"))
        .context("/proc/self/cgroup names no cgroup2 membership")?;
    Ok((mount, own.trim_end_matches('/').to_owned()))
}

fn create_dir(dir: &Path) -> anyhow::Result<()> {
    match std::fs::create_dir(dir) {
        Err(err) if err.kind() != io::ErrorKind::AlreadyExists => {
            Err(err).with_context(|| format!("creating the cgroup {}", dir.display()))
        }
        _ => Ok(()),
    }
}

/// Feeds `script` to `iptables-restore`, which replaces the tables it names at once.
async fn restore(script: &str) -> anyhow::Result<()> {
    tool("iptables-restore", &[], Some(script)).await
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
/// When this process is not root, already runs more than one thread, the kernel refuses the
/// namespace, or `ip` cannot bring the loopback device up.
pub fn enter_private_network() -> anyhow::Result<()> {
    // SAFETY: geteuid(2) takes no arguments and cannot fail.
    let euid = unsafe { libc::geteuid() };
    anyhow::ensure!(
        euid == 0,
        "--network netns needs root (it makes a network namespace, cgroups and iptables \
         rules); this process runs as uid {euid}. Run it as root, or use --network proxy"
    );
    let status =
        std::fs::read_to_string("/proc/self/status").context("reading /proc/self/status")?;
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

#[cfg(test)]
mod tests {
    use super::*;

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
