//! [`NetworkRules`]: which bytes between which processes the proxies hold back or delay.

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// One end of a proxied connection: the process that opened it (found by
/// [`super::ProcSources`]) or the daemon it leads to.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Peer {
    /// A daemon of the cluster, or a process running in one of a NodeManager's containers
    /// (counted as that NodeManager).
    Daemon(String),
    /// The harness itself: the workload's clients.
    Harness,
    /// A process the proxy could not place (it ended before it was looked up, say).
    Unknown,
}

impl fmt::Display for Peer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Peer::Daemon(id) => f.write_str(id),
            Peer::Harness => f.write_str("harness"),
            Peer::Unknown => f.write_str("unknown"),
        }
    }
}

/// Which peers a rule applies to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PeerSelector {
    /// Exactly this daemon.
    Daemon(String),
    /// Every peer, the harness and unplaced processes included.
    Anyone,
}

impl PeerSelector {
    /// Whether `peer` is selected.
    pub fn matches(&self, peer: &Peer) -> bool {
        match self {
            PeerSelector::Anyone => true,
            PeerSelector::Daemon(id) => matches!(peer, Peer::Daemon(daemon) if daemon == id),
        }
    }
}

impl fmt::Display for PeerSelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PeerSelector::Daemon(id) => f.write_str(id),
            PeerSelector::Anyone => f.write_str("*"),
        }
    }
}

/// What happens to bytes travelling one way between two peers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    /// They are forwarded at once.
    #[default]
    Pass,
    /// They are read and thrown away, as a partitioned network loses packets.
    Drop,
    /// They are forwarded this long after they arrived, in order.
    Delay(Duration),
}

impl Direction {
    /// Whether bytes are lost.
    pub fn drops(self) -> bool {
        self == Direction::Drop
    }
}

/// The effect of one rule on the bytes it selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LinkEffect {
    /// Lose them.
    Drop,
    /// Hold each chunk this long.
    Delay(Duration),
}

/// Bytes travelling from a peer `from` selects to a peer `to` selects get `effect`. Rules are
/// one-way: a partition is two rules, a one-way partition one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkRule {
    /// The sending side.
    pub from: PeerSelector,
    /// The receiving side.
    pub to: PeerSelector,
    /// What happens to the bytes.
    pub effect: LinkEffect,
}

impl fmt::Display for LinkRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.effect {
            LinkEffect::Drop => write!(f, "{} -> {}: drop", self.from, self.to),
            LinkEffect::Delay(delay) => {
                write!(f, "{} -> {}: +{} ms", self.from, self.to, delay.as_millis())
            }
        }
    }
}

/// The rules in force. Pure: the proxies ask it what to do with each chunk and each new
/// connection.
///
/// Guarantee: a direction matched by any `Drop` rule drops, whatever else matches; otherwise it
/// is delayed by the longest matching delay; with no matching rule it passes. So adding a rule
/// never makes the network healthier.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NetworkRules {
    rules: Vec<LinkRule>,
}

impl NetworkRules {
    /// No rules: everything passes.
    pub fn healthy() -> Self {
        Self::default()
    }

    /// These rules in force together.
    pub fn new(rules: Vec<LinkRule>) -> Self {
        Self { rules }
    }

    /// The rules, in the order given.
    pub fn rules(&self) -> &[LinkRule] {
        &self.rules
    }

    /// Whether nothing is held back or delayed.
    pub fn is_healthy(&self) -> bool {
        self.rules.is_empty()
    }

    /// What happens to bytes `from` sends to `to`.
    pub fn direction(&self, from: &Peer, to: &Peer) -> Direction {
        let mut direction = Direction::Pass;
        for rule in &self.rules {
            if !(rule.from.matches(from) && rule.to.matches(to)) {
                continue;
            }
            match rule.effect {
                LinkEffect::Drop => return Direction::Drop,
                LinkEffect::Delay(delay) => {
                    direction = match direction {
                        Direction::Delay(longest) if longest >= delay => direction,
                        _ => Direction::Delay(delay),
                    };
                }
            }
        }
        direction
    }

    /// Both directions of a connection `client` opened to `server`: (client to server, server
    /// to client).
    pub fn connection(&self, client: &Peer, server: &Peer) -> (Direction, Direction) {
        (
            self.direction(client, server),
            self.direction(server, client),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn daemon(id: &str) -> Peer {
        Peer::Daemon(id.to_owned())
    }

    fn rule(from: PeerSelector, to: PeerSelector, effect: LinkEffect) -> LinkRule {
        LinkRule { from, to, effect }
    }

    #[test]
    fn without_rules_everything_passes() {
        let rules = NetworkRules::healthy();
        assert!(rules.is_healthy());
        assert_eq!(
            rules.connection(&Peer::Harness, &daemon("rm1")),
            (Direction::Pass, Direction::Pass)
        );
    }

    #[test]
    fn a_one_way_rule_drops_one_direction_of_connections_opened_either_way() {
        let rules = NetworkRules::new(vec![rule(
            PeerSelector::Daemon("rm1".into()),
            PeerSelector::Anyone,
            LinkEffect::Drop,
        )]);
        // rm1 dialing rm2: its requests are lost, rm2's answers would pass.
        assert_eq!(
            rules.connection(&daemon("rm1"), &daemon("rm2")),
            (Direction::Drop, Direction::Pass)
        );
        // rm2 dialing rm1: the requests arrive, rm1's answers are lost.
        assert_eq!(
            rules.connection(&daemon("rm2"), &daemon("rm1")),
            (Direction::Pass, Direction::Drop)
        );
        assert_eq!(
            rules.connection(&daemon("rm2"), &daemon("rm3")),
            (Direction::Pass, Direction::Pass)
        );
    }

    #[test]
    fn drop_beats_delay_and_the_longest_delay_wins() {
        let ms = Duration::from_millis;
        let rules = NetworkRules::new(vec![
            rule(
                PeerSelector::Anyone,
                PeerSelector::Anyone,
                LinkEffect::Delay(ms(50)),
            ),
            rule(
                PeerSelector::Daemon("nm1".into()),
                PeerSelector::Anyone,
                LinkEffect::Delay(ms(200)),
            ),
            rule(
                PeerSelector::Anyone,
                PeerSelector::Daemon("rm3".into()),
                LinkEffect::Drop,
            ),
        ]);
        assert_eq!(
            rules.direction(&daemon("nm1"), &daemon("rm1")),
            Direction::Delay(ms(200))
        );
        assert_eq!(
            rules.direction(&Peer::Harness, &daemon("rm1")),
            Direction::Delay(ms(50))
        );
        assert_eq!(
            rules.direction(&daemon("nm1"), &daemon("rm3")),
            Direction::Drop
        );
        assert_eq!(
            rules.direction(&Peer::Unknown, &daemon("rm3")),
            Direction::Drop
        );
    }
}
