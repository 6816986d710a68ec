//! [`PacketFilter`]: [`NetworkRules`] as iptables rules, for the netns network mode.
//!
//! Every daemon runs in a cgroup of its own and listens on ports no other daemon uses, so a
//! connection's two ends are known when it opens, and conntrack keeps them in its mark:
//!
//! ```text
//!  mangle OUTPUT, first packet of a TCP connection (ctstate NEW):
//!    connmark bits 0-7  = the originator: the daemon whose cgroup sent it, else the harness
//!    connmark bits 8-15 = the server: the daemon listening on the destination port, else 0
//!  filter OUTPUT, every TCP packet:
//!    observers (127.0.0.2) and a daemon's connections to itself (its containers' calls)
//!      pass
//!    ctdir ORIGINAL: sent by the originator to the server  } a rule from A to B drops the
//!    ctdir REPLY:    sent by the server to the originator  } packets whose sender is A and
//!                                                          } whose receiver is B
//! ```
//!
//! Dropped packets are lost as on a real network: TCP retransmits them and the connection
//! lives on if the partition heals before it gives up. Pure: the scripts are fed to
//! `iptables-restore` by [`super::kernel_network::KernelNetwork`].

use std::collections::BTreeMap;
use std::fmt::Write;
use std::time::Duration;

use crate::network_mode::OBSERVER_ADDRESS;
use crate::network_rules::{LinkEffect, LinkRule, NetworkRules, PeerSelector};

/// The originator mark of a connection no daemon's cgroup opened: the harness's.
const HARNESS_MARK: u32 = 1;

/// The mark of the first daemon; the others follow.
const FIRST_DAEMON_MARK: u32 = 2;

/// The most daemons the filter tells apart: marks are one byte.
pub const MAX_FILTERED_DAEMONS: usize = 254;

/// The chain holding the rules in force.
const RULES_CHAIN: &str = "YARN_HA_CHAOS";

/// The chain marking new connections.
const MARK_CHAIN: &str = "YARN_HA_CHAOS_MARK";

/// `multiport` takes at most this many ports in one match.
const PORTS_PER_MATCH: usize = 15;

/// A daemon as the filter knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilteredDaemon {
    /// Its rm id or NodeManager name.
    pub id: String,
    /// Its cgroup, relative to the cgroup namespace's root (as `iptables -m cgroup --path`
    /// takes it).
    pub cgroup: String,
    /// Every TCP port it listens on.
    pub ports: Vec<u16>,
}

/// The daemons of one cluster and how to tell their packets apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PacketFilter {
    daemons: Vec<FilteredDaemon>,
}

impl PacketFilter {
    /// A filter for `daemons`.
    ///
    /// # Errors
    ///
    /// When there are more than [`MAX_FILTERED_DAEMONS`], two share an id or a port, a daemon
    /// listens on no port, or a cgroup path holds a quote or a line break.
    pub fn new(daemons: Vec<FilteredDaemon>) -> Result<Self, String> {
        if daemons.len() > MAX_FILTERED_DAEMONS {
            return Err(format!(
                "{} daemons; the packet filter tells at most {MAX_FILTERED_DAEMONS} apart",
                daemons.len()
            ));
        }
        let mut owners: BTreeMap<u16, &str> = BTreeMap::new();
        for (index, daemon) in daemons.iter().enumerate() {
            if daemons[..index].iter().any(|other| other.id == daemon.id) {
                return Err(format!("two daemons are named {}", daemon.id));
            }
            if daemon.ports.is_empty() {
                return Err(format!("{} listens on no port", daemon.id));
            }
            if daemon.cgroup.contains(['"', '\n', '\r']) {
                return Err(format!(
                    "the cgroup {:?} of {} holds a quote or a line break",
                    daemon.cgroup, daemon.id
                ));
            }
            for &port in &daemon.ports {
                if let Some(owner) = owners.insert(port, &daemon.id)
                    && owner != daemon.id
                {
                    return Err(format!(
                        "{owner} and {} both listen on port {port}",
                        daemon.id
                    ));
                }
            }
        }
        Ok(Self { daemons })
    }

    /// The `iptables-restore` input of the mangle table: marks every new TCP connection with
    /// its originator and its server. Loaded once, before any daemon starts.
    pub fn marking_script(&self) -> String {
        let mut script = String::from("*mangle\n");
        let _ = writeln!(script, ":{MARK_CHAIN} - [0:0]");
        let _ = writeln!(
            script,
            "-A OUTPUT -p tcp -m conntrack --ctstate NEW -j {MARK_CHAIN}"
        );
        let _ = writeln!(
            script,
            "-A {MARK_CHAIN} -j CONNMARK --set-xmark {HARNESS_MARK:#x}/0xff"
        );
        for (mark, daemon) in self.marked() {
            let _ = writeln!(
                script,
                "-A {MARK_CHAIN} -m cgroup --path \"{}\" -j CONNMARK --set-xmark {mark:#x}/0xff",
                daemon.cgroup
            );
            for ports in daemon.ports.chunks(PORTS_PER_MATCH) {
                let ports: Vec<String> = ports.iter().map(u16::to_string).collect();
                let _ = writeln!(
                    script,
                    "-A {MARK_CHAIN} -p tcp -m multiport --dports {} -j CONNMARK --set-xmark \
                     {:#x}/0xff00",
                    ports.join(","),
                    mark << 8
                );
            }
        }
        script.push_str("COMMIT\n");
        script
    }

    /// The `iptables-restore` input of the filter table with `rules` in force: it replaces the
    /// whole table at once, so no packet sees half of a change. Delays are not the filter's
    /// ([`link_delay`]).
    pub fn rules_script(&self, rules: &NetworkRules) -> String {
        let mut script = String::from("*filter\n");
        let _ = writeln!(script, ":{RULES_CHAIN} - [0:0]");
        let _ = writeln!(script, "-A OUTPUT -p tcp -j {RULES_CHAIN}");
        let _ = writeln!(script, "-A {RULES_CHAIN} -s {OBSERVER_ADDRESS} -j RETURN");
        let _ = writeln!(script, "-A {RULES_CHAIN} -d {OBSERVER_ADDRESS} -j RETURN");
        for (mark, _) in self.marked() {
            let _ = writeln!(
                script,
                "-A {RULES_CHAIN} -m connmark --mark {:#x}/0xffff -j RETURN",
                mark << 8 | mark
            );
        }
        for rule in rules.rules() {
            if rule.effect == LinkEffect::Drop {
                self.write_drop(&mut script, rule);
            }
        }
        script.push_str("COMMIT\n");
        script
    }

    /// The mark of the daemon `id`.
    fn daemon_mark(&self, id: &str) -> Option<u32> {
        self.marked()
            .find(|(_, daemon)| daemon.id == id)
            .map(|(mark, _)| mark)
    }

    fn marked(&self) -> impl Iterator<Item = (u32, &FilteredDaemon)> {
        (FIRST_DAEMON_MARK..).zip(&self.daemons)
    }

    /// The mark `selector` stands for: `Some(None)` for anyone, `None` when it names a daemon
    /// the filter does not know (whose packets the rule then cannot select).
    fn selected(&self, selector: &PeerSelector) -> Option<Option<u32>> {
        match selector {
            PeerSelector::Anyone => Some(None),
            PeerSelector::Daemon(id) => self.daemon_mark(id).map(Some),
        }
    }

    /// The two iptables rules dropping what `rule` selects: its packets on connections its
    /// sender opened, and its packets on connections its receiver opened.
    fn write_drop(&self, script: &mut String, rule: &LinkRule) {
        let (Some(from), Some(to)) = (self.selected(&rule.from), self.selected(&rule.to)) else {
            return;
        };
        // ORIGINAL: the sender opened it (low byte), the receiver serves it (high byte);
        // REPLY: the other way round.
        for (direction, originator, server) in [("ORIGINAL", from, to), ("REPLY", to, from)] {
            let (mut value, mut mask) = (0_u32, 0_u32);
            if let Some(mark) = originator {
                value |= mark;
                mask |= 0xff;
            }
            if let Some(mark) = server {
                value |= mark << 8;
                mask |= 0xff00;
            }
            let _ = write!(script, "-A {RULES_CHAIN} -m conntrack --ctdir {direction}");
            if mask != 0 {
                let _ = write!(script, " -m connmark --mark {value:#x}/{mask:#x}");
            }
            let _ = writeln!(script, " -j DROP");
        }
    }
}

/// The latency every link gets under `rules`: the longest delay they name, or `None`.
///
/// # Errors
///
/// When a delay is not between anyone and anyone: netem on the loopback device delays every
/// packet alike, so the netns mode cannot slow one link alone.
pub fn link_delay(rules: &NetworkRules) -> Result<Option<Duration>, String> {
    let mut longest: Option<Duration> = None;
    for rule in rules.rules() {
        let LinkEffect::Delay(delay) = rule.effect else {
            continue;
        };
        if rule.from != PeerSelector::Anyone || rule.to != PeerSelector::Anyone {
            return Err(format!(
                "{rule}: the netns network mode delays every link alike, not one link alone"
            ));
        }
        longest = longest.max(Some(delay));
    }
    Ok(longest)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn daemon(id: &str, ports: &[u16]) -> FilteredDaemon {
        FilteredDaemon {
            id: id.to_owned(),
            cgroup: format!("chaos/{id}"),
            ports: ports.to_vec(),
        }
    }

    fn filter() -> PacketFilter {
        PacketFilter::new(vec![
            daemon("rm1", &[8030, 8031]),
            daemon("rm2", &[8130]),
            daemon("nm1", &[9000]),
        ])
        .unwrap()
    }

    fn drop(from: PeerSelector, to: PeerSelector) -> LinkRule {
        LinkRule {
            from,
            to,
            effect: LinkEffect::Drop,
        }
    }

    fn drops(script: &str) -> Vec<&str> {
        script
            .lines()
            .filter(|line| line.ends_with("DROP"))
            .collect()
    }

    #[test]
    fn new_connections_are_marked_with_their_originator_and_their_server() {
        let script = filter().marking_script();
        assert!(script.starts_with("*mangle\n") && script.ends_with("COMMIT\n"));
        assert!(
            script.contains("-A OUTPUT -p tcp -m conntrack --ctstate NEW -j YARN_HA_CHAOS_MARK")
        );
        // The harness is the default originator; a daemon's cgroup overrides it after.
        let harness = script.find("--set-xmark 0x1/0xff\n").unwrap();
        let rm1 = script
            .find("-m cgroup --path \"chaos/rm1\" -j CONNMARK --set-xmark 0x2/0xff\n")
            .unwrap();
        assert!(harness < rm1);
        assert!(script.contains("--dports 8030,8031 -j CONNMARK --set-xmark 0x200/0xff00"));
        assert!(script.contains("--dports 9000 -j CONNMARK --set-xmark 0x400/0xff00"));
    }

    #[test]
    fn without_rules_only_the_exemptions_are_in_force() {
        let script = filter().rules_script(&NetworkRules::healthy());
        assert!(drops(&script).is_empty(), "{script}");
        assert!(script.contains("-s 127.0.0.2 -j RETURN"));
        assert!(script.contains("-d 127.0.0.2 -j RETURN"));
        // A daemon's connections to itself (rm1 = 2, nm1 = 4) are never cut.
        assert!(script.contains("--mark 0x202/0xffff -j RETURN"));
        assert!(script.contains("--mark 0x404/0xffff -j RETURN"));
    }

    #[test]
    fn a_one_way_rule_drops_the_senders_packets_in_both_connection_directions() {
        let rules = NetworkRules::new(vec![drop(
            PeerSelector::Daemon("rm1".into()),
            PeerSelector::Daemon("rm2".into()),
        )]);
        let script = filter().rules_script(&rules);
        assert_eq!(
            drops(&script),
            [
                // rm1 opened it to rm2: rm1's requests.
                "-A YARN_HA_CHAOS -m conntrack --ctdir ORIGINAL -m connmark --mark 0x302/0xffff -j DROP",
                // rm2 opened it to rm1: rm1's answers.
                "-A YARN_HA_CHAOS -m conntrack --ctdir REPLY -m connmark --mark 0x203/0xffff -j DROP",
            ]
        );
    }

    #[test]
    fn anyone_leaves_its_byte_unmatched() {
        let isolate = NetworkRules::new(vec![
            drop(PeerSelector::Daemon("nm1".into()), PeerSelector::Anyone),
            drop(PeerSelector::Anyone, PeerSelector::Daemon("nm1".into())),
        ]);
        assert_eq!(
            drops(&filter().rules_script(&isolate)),
            [
                "-A YARN_HA_CHAOS -m conntrack --ctdir ORIGINAL -m connmark --mark 0x4/0xff -j DROP",
                "-A YARN_HA_CHAOS -m conntrack --ctdir REPLY -m connmark --mark 0x400/0xff00 -j DROP",
                "-A YARN_HA_CHAOS -m conntrack --ctdir ORIGINAL -m connmark --mark 0x400/0xff00 -j DROP",
                "-A YARN_HA_CHAOS -m conntrack --ctdir REPLY -m connmark --mark 0x4/0xff -j DROP",
            ]
        );
        let everything = NetworkRules::new(vec![drop(PeerSelector::Anyone, PeerSelector::Anyone)]);
        assert_eq!(
            drops(&filter().rules_script(&everything)),
            [
                "-A YARN_HA_CHAOS -m conntrack --ctdir ORIGINAL -j DROP",
                "-A YARN_HA_CHAOS -m conntrack --ctdir REPLY -j DROP",
            ]
        );
    }

    #[test]
    fn a_rule_naming_an_unknown_daemon_selects_nothing() {
        let rules = NetworkRules::new(vec![drop(
            PeerSelector::Daemon("rm9".into()),
            PeerSelector::Anyone,
        )]);
        assert!(drops(&filter().rules_script(&rules)).is_empty());
    }

    #[test]
    fn delays_apply_to_every_link_or_are_refused() {
        let ms = Duration::from_millis;
        let delay = |from, to, millis| LinkRule {
            from,
            to,
            effect: LinkEffect::Delay(ms(millis)),
        };
        let every = NetworkRules::new(vec![
            delay(PeerSelector::Anyone, PeerSelector::Anyone, 40),
            delay(PeerSelector::Anyone, PeerSelector::Anyone, 90),
        ]);
        assert_eq!(link_delay(&every), Ok(Some(ms(90))));
        assert_eq!(link_delay(&NetworkRules::healthy()), Ok(None));
        let one = NetworkRules::new(vec![delay(
            PeerSelector::Daemon("rm1".into()),
            PeerSelector::Anyone,
            40,
        )]);
        assert!(link_delay(&one).unwrap_err().contains("every link alike"));
        // Delays never reach the packet filter.
        assert!(drops(&filter().rules_script(&every)).is_empty());
    }

    #[test]
    fn daemons_that_cannot_be_told_apart_are_refused() {
        let shared = PacketFilter::new(vec![daemon("rm1", &[80]), daemon("rm2", &[80])]);
        assert!(
            shared
                .unwrap_err()
                .contains("rm1 and rm2 both listen on port 80")
        );
        let twice = PacketFilter::new(vec![daemon("rm1", &[80]), daemon("rm1", &[81])]);
        assert!(twice.unwrap_err().contains("two daemons are named rm1"));
        let deaf = PacketFilter::new(vec![daemon("rm1", &[])]);
        assert!(deaf.unwrap_err().contains("no port"));
        let mut quoted = daemon("rm1", &[80]);
        quoted.cgroup = "a\"b".into();
        assert!(
            PacketFilter::new(vec![quoted])
                .unwrap_err()
                .contains("quote")
        );
    }

    #[test]
    fn long_port_lists_are_split_for_multiport() {
        let ports: Vec<u16> = (1000..1020).collect();
        let script = PacketFilter::new(vec![daemon("rm1", &ports)])
            .unwrap()
            .marking_script();
        assert_eq!(script.matches("-m multiport --dports").count(), 2);
    }
}
