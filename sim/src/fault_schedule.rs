//! [`FaultSchedule`]: the faults of one run, drawn from its seed.

use std::time::Duration;

use rand::Rng;
use rand::rngs::StdRng;

/// A fault the harness injects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// The replica's process dies; its machine keeps what it wrote.
    Crash {
        /// The replica.
        host: String,
    },
    /// The machines lose power at once, as a rack does: their processes die and their disks
    /// keep only what was synced (and a seeded part of the rest).
    PowerLoss {
        /// The replicas.
        hosts: Vec<String>,
    },
    /// Nothing passes between `a` and `b`, either way.
    Partition {
        /// One side.
        a: String,
        /// The other side.
        b: String,
    },
    /// Nothing passes from `from` to `to`; the other way works.
    OneWayPartition {
        /// The sender cut off.
        from: String,
        /// The receiver.
        to: String,
    },
    /// Messages between `a` and `b` are held, then delivered late and all at once.
    Hold {
        /// One side.
        a: String,
        /// The other side.
        b: String,
    },
    /// Every link's latency rises to as much as the given bound.
    SlowNetwork {
        /// The new bound on one message's latency.
        max_latency: Duration,
    },
    /// The replica's disk syncs slowly.
    SlowDisk {
        /// The replica.
        host: String,
    },
    /// The operator asks the leader to hand leadership to `to`.
    TransferLeadership {
        /// The replica to lead.
        to: String,
    },
    /// The operator removes `host` from the Raft group, and adds it back when the fault is
    /// undone.
    RemoveMember {
        /// The replica.
        host: String,
    },
    /// The replica's clock jumps ahead at once, as when its virtual machine was frozen and
    /// resumed: every timer due meanwhile fires together.
    ClockJump {
        /// The replica.
        host: String,
        /// By how much.
        by: Duration,
    },
    /// The NodeManager's machine loses power and boots again: its NodeManager and every
    /// container on it are gone, and it registers again empty.
    NodeReboot {
        /// The node.
        host: String,
    },
    /// An ApplicationMaster process is killed: the one with the lowest container id on the
    /// node or, if none runs there, on the next node that runs one. Its node and its
    /// NodeManager live on.
    AmCrash {
        /// The node looked at first.
        host: String,
    },
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fault::Crash { host } => write!(f, "crash {host}"),
            Fault::PowerLoss { hosts } => write!(f, "power loss {}", hosts.join(",")),
            Fault::Partition { a, b } => write!(f, "partition {a} <-> {b}"),
            Fault::OneWayPartition { from, to } => write!(f, "partition {from} -> {to}"),
            Fault::Hold { a, b } => write!(f, "hold {a} <-> {b}"),
            Fault::SlowNetwork { max_latency } => write!(f, "slow network up to {max_latency:?}"),
            Fault::SlowDisk { host } => write!(f, "slow disk {host}"),
            Fault::TransferLeadership { to } => write!(f, "ask for leadership to move to {to}"),
            Fault::RemoveMember { host } => write!(f, "ask for {host} to leave the group"),
            Fault::ClockJump { host, by } => write!(f, "clock of {host} jumps ahead {by:?}"),
            Fault::NodeReboot { host } => write!(f, "reboot node {host}"),
            Fault::AmCrash { host } => write!(f, "kill an ApplicationMaster, from {host} on"),
        }
    }
}

/// A fault at a simulated time, undone after `lasting` (a crashed replica restarts, a
/// partition heals, held messages are delivered, latencies return to normal).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScheduledFault {
    /// When it strikes.
    pub at: Duration,
    /// What it is.
    pub fault: Fault,
    /// How long until it is undone.
    pub lasting: Duration,
}

/// Every fault of a run, in time order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FaultSchedule {
    /// The faults.
    pub faults: Vec<ScheduledFault>,
}

impl FaultSchedule {
    /// Draws faults for `hosts` from `rng`, one every 0.2 to 1.5 s from 0.5 s until `until`,
    /// each lasting 0.1 to 2 s. A power loss takes out one machine or a majority at once; a
    /// leadership transfer may name the leader itself.
    pub fn draw(rng: &mut StdRng, hosts: &[String], until: Duration) -> Self {
        let mut faults = Vec::new();
        let mut at = Duration::from_millis(500);
        loop {
            at += Duration::from_millis(rng.random_range(200..1_500));
            if at >= until {
                return Self { faults };
            }
            let lasting = Duration::from_millis(rng.random_range(100..2_000));
            let fault = draw_fault(rng, hosts);
            faults.push(ScheduledFault { at, fault, lasting });
        }
    }

    /// Draws the faults of the NodeManagers `nodes` and of the `client` from `rng` and merges
    /// them in time order: one every 0.5 to 2.5 s until `until`, each lasting 0.1 to 2 s. A
    /// node reboots (when `reboots` allows it, else its link is cut instead), or a node or the
    /// client loses its link to one of the `replicas` (both ways, one way, or held). Half the
    /// runs also kill one ApplicationMaster, at a time drawn from 0.5 s to `until`.
    pub fn with_cluster_faults(
        mut self,
        rng: &mut StdRng,
        nodes: &[String],
        client: &str,
        replicas: &[String],
        until: Duration,
        reboots: bool,
    ) -> Self {
        if nodes.is_empty() {
            return self;
        }
        let mut at = Duration::ZERO;
        loop {
            at += Duration::from_millis(rng.random_range(500..2_500));
            if at >= until {
                break;
            }
            let lasting = Duration::from_millis(rng.random_range(100..2_000));
            let node = nodes[rng.random_range(0..nodes.len())].clone();
            let replica = replicas[rng.random_range(0..replicas.len())].clone();
            let fault = match rng.random_range(0..8) {
                0..=2 if reboots => Fault::NodeReboot { host: node },
                0..=3 => Fault::Partition {
                    a: node,
                    b: replica,
                },
                4 => Fault::OneWayPartition {
                    from: node,
                    to: replica,
                },
                5 => Fault::OneWayPartition {
                    from: replica,
                    to: node,
                },
                6 => Fault::Hold {
                    a: node,
                    b: replica,
                },
                _ => Fault::Partition {
                    a: client.to_owned(),
                    b: replica,
                },
            };
            self.faults.push(ScheduledFault { at, fault, lasting });
        }
        // Half the runs kill an ApplicationMaster once, drawn last to keep the faults above.
        let until_ms = u64::try_from(until.as_millis()).unwrap_or(u64::MAX);
        if until_ms > 500 && rng.random_bool(0.5) {
            let at = Duration::from_millis(rng.random_range(500..until_ms));
            let host = nodes[rng.random_range(0..nodes.len())].clone();
            self.faults.push(ScheduledFault {
                at,
                fault: Fault::AmCrash { host },
                lasting: Duration::ZERO,
            });
        }
        // Stable: a replica fault keeps its place before a cluster fault at the same time.
        self.faults.sort_by_key(|fault| fault.at);
        self
    }
}

fn draw_fault(rng: &mut StdRng, hosts: &[String]) -> Fault {
    let pick = |rng: &mut StdRng| hosts[rng.random_range(0..hosts.len())].clone();
    let pair = |rng: &mut StdRng| {
        let a = rng.random_range(0..hosts.len());
        let b = (a + rng.random_range(1..hosts.len())) % hosts.len();
        (hosts[a].clone(), hosts[b].clone())
    };
    match rng.random_range(0..10) {
        0 => Fault::Crash { host: pick(rng) },
        1 => {
            let count = if rng.random_bool(0.5) {
                1
            } else {
                hosts.len() / 2 + 1
            };
            let first = rng.random_range(0..hosts.len());
            let hosts = (0..count)
                .map(|i| hosts[(first + i) % hosts.len()].clone())
                .collect();
            Fault::PowerLoss { hosts }
        }
        2 => {
            let (a, b) = pair(rng);
            Fault::Partition { a, b }
        }
        3 => {
            let (from, to) = pair(rng);
            Fault::OneWayPartition { from, to }
        }
        4 => {
            let (a, b) = pair(rng);
            Fault::Hold { a, b }
        }
        5 => Fault::SlowNetwork {
            max_latency: Duration::from_millis(rng.random_range(20..400)),
        },
        6 => Fault::SlowDisk { host: pick(rng) },
        7 => Fault::TransferLeadership { to: pick(rng) },
        8 => Fault::RemoveMember { host: pick(rng) },
        _ => Fault::ClockJump {
            host: pick(rng),
            by: Duration::from_millis(rng.random_range(50..3_000)),
        },
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;

    #[test]
    fn one_seed_draws_one_schedule_and_every_kind_of_fault_occurs() {
        let hosts: Vec<String> = ["rm1", "rm2", "rm3"].map(String::from).to_vec();
        let until = Duration::from_secs(60);
        let draw = |seed| FaultSchedule::draw(&mut StdRng::seed_from_u64(seed), &hosts, until);
        assert_eq!(draw(11), draw(11));
        assert_ne!(draw(11), draw(12));
        let schedule = draw(11);
        assert!(schedule.faults.windows(2).all(|w| w[0].at < w[1].at));
        assert!(schedule.faults.iter().all(|f| f.at < until));
        let kinds: std::collections::HashSet<_> = schedule
            .faults
            .iter()
            .map(|f| std::mem::discriminant(&f.fault))
            .collect();
        assert_eq!(kinds.len(), 10, "{schedule:?}");
        assert!(
            schedule
                .faults
                .iter()
                .any(|f| matches!(&f.fault, Fault::PowerLoss { hosts } if hosts.len() == 2))
        );
    }
}
