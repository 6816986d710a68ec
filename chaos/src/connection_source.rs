//! Which process opened a TCP connection to a proxy: the daemon, container or harness whose
//! traffic it carries.
//!
//! Every daemon dials the same front for a given ResourceManager endpoint (so the leader hints
//! replicas hand out stay inside the proxies), so a proxy cannot tell its callers apart by the
//! port they dialed. It asks the kernel instead, through `/proc` (Linux, no privileges needed
//! for processes of the same user):
//!
//! ```text
//!  accepted connection from 127.0.0.1:<client port> on 127.0.0.1:<front port>
//!   ─▶ /proc/net/tcp{,6}: the socket whose local port is the client port and whose remote
//!      port is the front port ─▶ its inode
//!   ─▶ /proc/<pid>/fd/*: the process holding socket:[inode] (the cluster's daemons and the
//!      harness are looked at first, then every process)
//!   ─▶ that process or its nearest ancestor that is a daemon (by pid), the harness, or runs
//!      in a daemon's directory (a container's working directory lies under its NodeManager's)
//! ```

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::network_rules::Peer;

/// How far up the process tree a connection's owner is traced.
const MAX_ANCESTORS: usize = 64;

/// Finds the peer that opened a connection. Blocking: proxies call it on a blocking thread.
pub trait SourceResolver: Send + Sync + 'static {
    /// The peer that opened the connection from `client` to `server` (the address it reached),
    /// or [`Peer::Unknown`].
    fn resolve(&self, client: SocketAddr, server: SocketAddr) -> Peer;
}

/// The pids of the cluster's daemons right now, by pid.
pub type DaemonPids = Arc<dyn Fn() -> BTreeMap<u32, String> + Send + Sync>;

/// A [`SourceResolver`] reading `/proc`.
pub struct ProcSources {
    harness_pid: u32,
    daemon_dirs: Vec<(String, PathBuf)>,
    daemon_pids: DaemonPids,
}

impl ProcSources {
    /// Places connections of the processes `daemon_pids` names, of processes working inside
    /// one of `daemon_dirs` (daemon id, the daemon's directory), and of this process (the
    /// harness), together with their descendants.
    pub fn new(daemon_dirs: Vec<(String, PathBuf)>, daemon_pids: DaemonPids) -> Self {
        Self {
            harness_pid: std::process::id(),
            daemon_dirs,
            daemon_pids,
        }
    }

    /// The peer a process stands for: itself or its nearest placeable ancestor.
    fn place(&self, pid: u32, daemons: &BTreeMap<u32, String>) -> Peer {
        let mut current = pid;
        for _ in 0..MAX_ANCESTORS {
            if let Some(id) = daemons.get(&current) {
                return Peer::Daemon(id.clone());
            }
            if current == self.harness_pid {
                return Peer::Harness;
            }
            if let Ok(cwd) = std::fs::read_link(format!("/proc/{current}/cwd"))
                && let Some((id, _)) = self
                    .daemon_dirs
                    .iter()
                    .find(|(_, dir)| cwd.starts_with(dir))
            {
                return Peer::Daemon(id.clone());
            }
            match parent_pid(current) {
                Some(parent) if parent > 1 => current = parent,
                _ => break,
            }
        }
        Peer::Unknown
    }
}

impl SourceResolver for ProcSources {
    fn resolve(&self, client: SocketAddr, server: SocketAddr) -> Peer {
        let Some(inode) = socket_inode(client, server) else {
            return Peer::Unknown;
        };
        let daemons = (self.daemon_pids)();
        let first: Vec<u32> = daemons.keys().copied().chain([self.harness_pid]).collect();
        match socket_owner(inode, &first) {
            Some(pid) => self.place(pid, &daemons),
            None => Peer::Unknown,
        }
    }
}

/// The inode of the socket that connects from `client` to `server`.
fn socket_inode(client: SocketAddr, server: SocketAddr) -> Option<u64> {
    ["/proc/net/tcp", "/proc/net/tcp6"]
        .iter()
        .find_map(|table| {
            let text = std::fs::read_to_string(table).ok()?;
            text.lines().skip(1).find_map(|line| {
                let entry = parse_tcp_line(line)?;
                (entry.local_port == client.port()
                    && entry.remote_port == server.port()
                    && entry.inode != 0)
                    .then_some(entry.inode)
            })
        })
}

/// One row of `/proc/net/tcp`: the ports and the socket's inode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct TcpEntry {
    local_port: u16,
    remote_port: u16,
    inode: u64,
}

/// Parses a row of `/proc/net/tcp` or `/proc/net/tcp6`:
/// `sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...`, addresses as
/// `<hex address>:<hex port>`.
fn parse_tcp_line(line: &str) -> Option<TcpEntry> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let port = |field: &str| {
        let (_, port) = field.rsplit_once(':')?;
        u16::from_str_radix(port, 16).ok()
    };
    Some(TcpEntry {
        local_port: port(fields.get(1)?)?,
        remote_port: port(fields.get(2)?)?,
        inode: fields.get(9)?.parse().ok()?,
    })
}

/// The process that holds socket `inode` open: one of `first` if any, else any process this
/// user may inspect.
fn socket_owner(inode: u64, first: &[u32]) -> Option<u32> {
    let target = format!("socket:[{inode}]");
    let holds = |pid: u32| {
        let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
            return false;
        };
        fds.flatten().any(|fd| {
            std::fs::read_link(fd.path()).is_ok_and(|link| link.as_os_str() == target.as_str())
        })
    };
    if let Some(pid) = first.iter().copied().find(|pid| holds(*pid)) {
        return Some(pid);
    }
    std::fs::read_dir("/proc")
        .ok()?
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .find(|pid| holds(*pid))
}

/// The parent of process `pid`, from `/proc/<pid>/stat`.
fn parent_pid(pid: u32) -> Option<u32> {
    let stat =
        std::fs::read_to_string(Path::new("/proc").join(pid.to_string()).join("stat")).ok()?;
    parse_parent(&stat)
}

/// The parent pid in a `/proc/<pid>/stat` line: `pid (comm) state ppid ...`, where the command
/// name may itself hold spaces and parentheses, so the fields are counted after the last `)`.
fn parse_parent(stat: &str) -> Option<u32> {
    let (_, rest) = stat.rsplit_once(')')?;
    rest.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tcp_rows_give_ports_and_inode() {
        let row = "   1: 0100007F:8A01 0100007F:ABE4 01 00000000:00000000 00:00000000 \
                   00000000  1000        0 4242 1 0000000000000000 20 4 30 10 -1";
        assert_eq!(
            parse_tcp_line(row),
            Some(TcpEntry {
                local_port: 0x8A01,
                remote_port: 0xABE4,
                inode: 4242
            })
        );
        let v6 = "   0: 0000000000000000FFFF00000100007F:1F90 \
                  0000000000000000FFFF00000100007F:D431 01 00000000:00000000 00:00000000 \
                  00000000  1000        0 77 1 0000000000000000 20 4 30 10 -1";
        assert_eq!(
            parse_tcp_line(v6).map(|e| (e.local_port, e.inode)),
            Some((8080, 77))
        );
        assert_eq!(parse_tcp_line("  sl  local_address rem_address"), None);
    }

    #[test]
    fn the_parent_is_read_after_the_command_name_whatever_it_holds() {
        assert_eq!(parse_parent("42 (yarn-ha) S 7 42 42 0"), Some(7));
        assert_eq!(parse_parent("43 (a) b (c)) R 9 1"), Some(9));
        assert_eq!(parse_parent("garbage"), None);
    }
}
