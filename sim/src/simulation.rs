//! [`Simulation`]: one seeded run of a replica group under faults, and its verdict.

use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, PoisonError};
use std::time::Duration;

use openraft::ServerState;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use yarn_client::RmClientConfig;
use yarn_conf::Configuration;
use yarn_nodemanager::NmConfig;
use yarn_proto::ids::{ApplicationId, ContainerId};
use yarn_rm_ha::storage::Failpoints;
use yarn_rm_ha::{RmConfig, Serving, node_id_of};
use yarn_security::SimulatedClock;

use crate::am_processes::AmProcesses;
use crate::amrm_proxies::AmrmProxies;
use crate::application_masters;
use crate::client_host::ClientHost;
use crate::error::SimError;
use crate::fault_schedule::{Fault, FaultSchedule};
use crate::history::History;
use crate::host_actions::{HostAction, HostActions};
use crate::node_host::{NM_PORT, NodeHost};
use crate::replica_host::{RAFT_PORT, Registry, ReplicaHost};
use crate::sim_disk::SimDisk;
use crate::sim_network::{self, Hosts, Links};

/// The simulated time one step advances.
const TICK: Duration = Duration::from_millis(1);

/// The normal bound on one message's latency.
const NORMAL_LATENCY: Duration = Duration::from_millis(5);

/// How often the harness looks at the replicas' roles.
const OBSERVE_EVERY: Duration = Duration::from_millis(5);

/// How often, once faults healed, the harness asks the leader to add back removed members.
const REJOIN_EVERY: Duration = Duration::from_secs(1);

/// The wall clock at the start of every run, in milliseconds since the Unix epoch
/// (2027-01-15): fixed, so that the times leaders write into commands, and the token expiries
/// derived from them, replay exactly.
const SIMULATED_EPOCH_MS: i64 = 1_800_000_000_000;

/// The client's simulated host.
const CLIENT_HOST: &str = "client";

/// Attempts an application gets (YARN's default): the ApplicationMaster a run kills is made
/// good by the next attempt.
const AM_MAX_ATTEMPTS: u32 = 2;

/// Each simulated NodeManager's resources.
const NODE_MEMORY_MB: &str = "2048";
const NODE_VCORES: &str = "4";

/// What a run looks like.
#[derive(Debug, Clone)]
pub struct SimOptions {
    /// Replicas in the group (3 or 5).
    pub replicas: usize,
    /// How long faults are injected.
    pub fault_time: Duration,
    /// How long the group has, once every fault is undone, to commit a new write and agree.
    pub heal_time: Duration,
    /// Failpoints every replica runs with: the planted bugs the simulation must find.
    pub failpoints: Failpoints,
    /// NodeManagers in the cluster.
    pub nodes: usize,
    /// Distributed shell applications the client submits, from the start of the run.
    pub applications: usize,
    /// The pause between two submissions.
    pub submit_every: Duration,
    /// Whether NodeManager machines reboot among the faults; the nodes' and the client's links
    /// to the replicas fail either way.
    pub node_reboots: bool,
    /// Which runs put their ApplicationMasters behind their nodes' AMRMProxies.
    pub amrm_proxies: AmrmProxies,
}

impl Default for SimOptions {
    /// Three replicas, three NodeManagers (which may reboot), four applications submitted a
    /// second apart (behind AMRMProxies in half the seeds), 4 s of faults, 30 s to recover.
    fn default() -> Self {
        Self {
            replicas: 3,
            fault_time: Duration::from_secs(4),
            heal_time: Duration::from_secs(30),
            failpoints: Failpoints::default(),
            nodes: 3,
            applications: 4,
            submit_every: Duration::from_secs(1),
            node_reboots: true,
            amrm_proxies: AmrmProxies::Drawn,
        }
    }
}

/// The outcome of one seed.
#[derive(Debug, Clone)]
pub struct SimOutcome {
    /// The seed.
    pub seed: u64,
    /// Faults, leaderships and acknowledged writes in simulated time order.
    pub trace: Vec<String>,
    /// Invariant violations; empty when the run passed.
    pub violations: Vec<String>,
    /// Writes the replicas acknowledged.
    pub acknowledged: usize,
    /// Simulated time the run took.
    pub simulated: Duration,
}

impl SimOutcome {
    /// Whether every invariant held.
    pub fn passed(&self) -> bool {
        self.violations.is_empty()
    }
}

/// Something to undo when its time comes.
#[derive(Debug, Clone)]
enum Undo {
    Restart(String),
    Repair(String, String),
    RepairOneWay(String, String),
    Release(String, String),
    NormalNetwork,
    NormalDisk(String),
    AddMember(String),
}

/// One seeded run: the cluster on turmoil's simulated network and [`SimDisk`]s, the faults of
/// [`FaultSchedule::draw`] and [`FaultSchedule::with_cluster_faults`], then every fault undone,
/// and the checks.
///
/// Invariants, checked as the run goes and at its end:
/// - leader ids never go backwards: within a term, a replica leads or serves only after those
///   with smaller node ids (openraft's leader ids are (term, node id));
/// - no container id is issued twice: none is launched on two nodes or at two sizes;
/// - no acknowledged write is lost: no sequence number is acknowledged twice, and the final
///   state's counter is past every acknowledged number;
/// - once faults heal, the group elects a leader and commits a new write within `heal_time`,
///   and within the same `heal_time` every application ends, FINISHED with SUCCEEDED unless
///   each of its failed tasks was on a node that rebooted (a start the node refused while it
///   was down); one whose ApplicationMaster was killed or lost must succeed in another
///   attempt;
/// - then every replica applies the same log and reaches the same state digest.
pub struct Simulation {
    seed: u64,
    options: SimOptions,
}

impl Simulation {
    /// The run of `seed` with `options`.
    pub fn new(seed: u64, options: SimOptions) -> Self {
        Self { seed, options }
    }

    /// Runs it to the end; the same seed and options always give the same outcome.
    ///
    /// # Errors
    ///
    /// [`SimError::Config`] when the replicas' configuration is invalid (a harness bug).
    pub fn run(self) -> Result<SimOutcome, SimError> {
        // Every host runs on this thread: their wall clock is the simulation's. Read outside a
        // host (a crashed host's tasks dropping), it keeps the last time a host saw.
        let last = Cell::new(SIMULATED_EPOCH_MS);
        let _clock = SimulatedClock::install(move || {
            if let Some(elapsed) = turmoil::sim_elapsed() {
                let elapsed = i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX);
                last.set(SIMULATED_EPOCH_MS.saturating_add(elapsed));
            }
            last.get()
        });
        let mut rng = StdRng::seed_from_u64(self.seed);
        let hosts: Vec<String> = (1..=self.options.replicas)
            .map(|i| format!("rm{i}"))
            .collect();
        let nodes: Vec<String> = (1..=self.options.nodes).map(|i| format!("nm{i}")).collect();
        let conf = group_conf(&hosts);
        let every_host = Hosts {
            all: Arc::new(
                hosts
                    .iter()
                    .chain(&nodes)
                    .cloned()
                    .chain([CLIENT_HOST.to_owned()])
                    .collect(),
            ),
            replicas: Arc::new(hosts.iter().cloned().collect()),
        };
        let mut sim = turmoil::Builder::new()
            .rng_seed(self.seed)
            .tick_duration(TICK)
            .min_message_latency(Duration::from_micros(200))
            .max_message_latency(NORMAL_LATENCY)
            .simulation_duration(self.options.fault_time + self.options.heal_time * 2)
            .build();
        let history = History::default();
        let registry = Registry::default();
        let writing = Arc::new(AtomicBool::new(true));
        let links = Links::default();
        let actions = HostActions::default();
        let mut disks = BTreeMap::new();
        for host in &hosts {
            let config = RmConfig::from_conf(&conf, Some(host))
                .map_err(|source| SimError::Config { source })?;
            let disk = SimDisk::new(rng.random());
            if !self.options.failpoints.syncs_flushes() {
                disk.plant_flushes_without_sync();
            }
            let replica = ReplicaHost {
                config: Arc::new(config),
                disk,
                failpoints: self.options.failpoints,
                seed: rng.random(),
                starts: Arc::new(AtomicU64::new(0)),
                registry: Arc::clone(&registry),
                history: history.clone(),
                links: links.clone(),
                hosts: every_host.clone(),
                actions: actions.clone(),
                writing: Arc::clone(&writing),
            };
            disks.insert(host.clone(), replica.disk.clone());
            sim.host(host.as_str(), move || replica.clone().run());
        }
        let schedule = FaultSchedule::draw(&mut rng, &hosts, self.options.fault_time);
        // Drawn after the schedule, so that seeds kept their faults when the cluster joined.
        let client_config = |host: &str, rng: &mut StdRng| {
            let mut client =
                RmClientConfig::from_conf(&conf).map_err(|err| SimError::ClusterConfig {
                    reason: err.to_string(),
                })?;
            client.dialer = Some(sim_network::dialer(
                host.to_owned(),
                links.clone(),
                client.call_timeout,
            ));
            client.jitter_seed = Some(rng.random());
            Ok::<_, SimError>(client)
        };
        let amrm_proxies = self.options.amrm_proxies.decide(&mut rng);
        let am_processes = AmProcesses::default();
        if amrm_proxies {
            history.record(
                Duration::ZERO,
                "every node runs its AMRMProxy; AMs call through it",
            );
        }
        for node in &nodes {
            let mut node_conf = conf.clone();
            node_conf.set(
                "yarn.nodemanager.amrmproxy.enabled",
                if amrm_proxies { "true" } else { "false" },
            );
            node_conf.set("yarn.nodemanager.address", &format!("{node}:{NM_PORT}"));
            node_conf.set("yarn.nodemanager.resource.memory-mb", NODE_MEMORY_MB);
            node_conf.set("yarn.nodemanager.resource.cpu-vcores", NODE_VCORES);
            let mut config =
                NmConfig::from_conf(&node_conf).map_err(|err| SimError::ClusterConfig {
                    reason: err.to_string(),
                })?;
            // No files: the simulated executor and a disabled store need none.
            config.local_dirs.clear();
            config.log_dirs.clear();
            let client = client_config(node, &mut rng)?;
            let host = NodeHost {
                name: node.clone(),
                config,
                programs: application_masters::programs(
                    node.clone(),
                    client.clone(),
                    history.clone(),
                    am_processes.clone(),
                ),
                client,
                links: links.clone(),
                hosts: every_host.clone(),
            };
            sim.host(node.as_str(), move || host.clone().run());
        }
        let client = ClientHost {
            client: client_config(CLIENT_HOST, &mut rng)?,
            history: history.clone(),
            applications: self.options.applications,
            submit_every: self.options.submit_every,
        };
        sim.client(CLIENT_HOST, client.run());
        // Drawn last, so that a seed keeps its replica faults and its cluster's draws.
        let schedule = schedule.with_cluster_faults(
            &mut rng,
            &nodes,
            CLIENT_HOST,
            &hosts,
            self.options.fault_time,
            self.options.node_reboots,
        );
        let mut harness = Harness {
            sim,
            history: history.clone(),
            registry,
            links,
            actions,
            am_processes,
            disks,
            down: BTreeSet::new(),
            undo: BTreeMap::new(),
            slow_networks: 0,
            slow_disks: BTreeMap::new(),
            next_look: Duration::ZERO,
            next_rejoin: Duration::ZERO,
        };
        let mut faults = schedule.faults.into_iter().peekable();
        while harness.sim.elapsed() < self.options.fault_time {
            while let Some(next) = faults.next_if(|f| f.at <= harness.sim.elapsed()) {
                harness.inject(&next.fault, next.lasting);
            }
            harness.undo_due();
            if !harness.step() {
                return Ok(harness.outcome(self.seed));
            }
        }
        harness.heal_all();
        let healed_at = harness.sim.elapsed();
        let acknowledged_before = history.acknowledged_count();
        let deadline = healed_at + self.options.heal_time;
        // A new write must commit: the group recovered.
        while history.acknowledged_count() == acknowledged_before {
            harness.rejoin_missing(&hosts);
            if harness.sim.elapsed() >= deadline {
                history.violation(
                    harness.sim.elapsed(),
                    format!(
                        "no write committed within {:?} after every fault healed",
                        self.options.heal_time
                    ),
                );
                return Ok(harness.outcome(self.seed));
            }
            if !harness.step() {
                return Ok(harness.outcome(self.seed));
            }
        }
        // The group recovered; the writers' load only slows what follows.
        writing.store(false, Ordering::Relaxed);
        // Every application must end, and succeed: every simulated task exits with 0.
        while harness.history.ended().len() < self.options.applications {
            harness.rejoin_missing(&hosts);
            if harness.sim.elapsed() >= deadline {
                history.violation(
                    harness.sim.elapsed(),
                    format!(
                        "{} of {} applications ended within {:?} after every fault healed",
                        harness.history.ended().len(),
                        self.options.applications,
                        self.options.heal_time
                    ),
                );
                harness.check_applications();
                return Ok(harness.outcome(self.seed));
            }
            if !harness.step() {
                return Ok(harness.outcome(self.seed));
            }
        }
        harness.check_applications();
        // Then every replica must apply the same log and agree.
        loop {
            harness.rejoin_missing(&hosts);
            if let Some(agreed) = harness.agreement(hosts.len()) {
                harness.check_final(&agreed);
                return Ok(harness.outcome(self.seed));
            }
            if harness.sim.elapsed() >= deadline {
                let positions = harness.positions();
                history.violation(
                    harness.sim.elapsed(),
                    format!(
                        "replicas did not converge within {:?} after every fault healed: \
                         applied {positions:?}",
                        self.options.heal_time
                    ),
                );
                return Ok(harness.outcome(self.seed));
            }
            if !harness.step() {
                return Ok(harness.outcome(self.seed));
            }
        }
    }
}

/// The configuration of a cluster of replicas `hosts`, each reached by its simulated host name,
/// without TLS (see `sim_network`) and with NodeManager recovery off (a simulated container
/// ends with its node).
fn group_conf(hosts: &[String]) -> Configuration {
    let mut conf = Configuration::new();
    conf.set(
        "yarn.resourcemanager.am.max-attempts",
        &AM_MAX_ATTEMPTS.to_string(),
    );
    conf.set("yarn.tls.enabled", "false");
    conf.set("yarn.nodemanager.recovery.enabled", "false");
    // Users belong to no group: the host's name service is outside the simulation.
    conf.set(
        "hadoop.security.group.mapping",
        "org.apache.hadoop.security.NullGroupsMapping",
    );
    // Below the task containers' size, so an AM container's id issued again for a task shows
    // in the sizes launched.
    conf.set("yarn.scheduler.minimum-allocation-mb", "128");
    conf.set("yarn.resourcemanager.ha.enabled", "true");
    conf.set("yarn.resourcemanager.ha.rm-ids", &hosts.join(","));
    conf.set("yarn.resourcemanager.cluster-id", "sim");
    // Snapshots and purges every few hundred entries, so runs exercise them.
    conf.set("yarn.resourcemanager.ha.raft.snapshot-log-entries", "200");
    for host in hosts {
        conf.set(&format!("yarn.resourcemanager.hostname.{host}"), host);
        conf.set(
            &format!("yarn.resourcemanager.ha.raft.address.{host}"),
            &format!("{host}:{RAFT_PORT}"),
        );
    }
    conf
}

/// The agreed end state: the position every replica applied and its digest.
struct Agreement {
    index: u64,
    digest: String,
    next_sequence: i32,
}

struct Harness<'a> {
    sim: turmoil::Sim<'a>,
    history: History,
    registry: Registry,
    links: Links,
    actions: HostActions,
    am_processes: AmProcesses,
    disks: BTreeMap<String, SimDisk>,
    down: BTreeSet<String>,
    undo: BTreeMap<Duration, Vec<Undo>>,
    /// Slow-network faults in force.
    slow_networks: u32,
    /// Slow-disk faults in force, by replica.
    slow_disks: BTreeMap<String, u32>,
    next_look: Duration,
    next_rejoin: Duration,
}

impl Harness<'_> {
    /// One step of simulated time, then a look at the replicas' roles. False when a replica's
    /// software failed, which is recorded as a violation.
    fn step(&mut self) -> bool {
        if let Err(err) = self.sim.step() {
            self.history
                .violation(self.sim.elapsed(), format!("a host failed: {err}"));
            return false;
        }
        let now = self.sim.elapsed();
        if now >= self.next_look {
            self.next_look = now + OBSERVE_EVERY;
            let running = self
                .registry
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .clone();
            for (rm_id, replica) in running {
                let metrics = replica.raft.metrics().borrow().clone();
                if metrics.state == ServerState::Leader {
                    self.history.leader_seen(now, &rm_id, metrics.current_term);
                }
                if let Serving::Leader(leadership) = &*replica.serving.borrow() {
                    self.history.serving_seen(now, &rm_id, leadership.term());
                }
            }
        }
        true
    }

    fn inject(&mut self, fault: &Fault, lasting: Duration) {
        let now = self.sim.elapsed();
        let mut detail = String::new();
        let undo = match fault {
            Fault::Crash { host } => {
                if !self.take_down(host) {
                    return;
                }
                // The machine lives on: its kernel resets the dead process's connections.
                self.links.reset_peers_of(host);
                // sled keeps what it has not flushed in the process: a crash may lose any of
                // the writes no flush covered; the kernel keeps the rest.
                detail = format!(": {} unflushed writes lost", self.disks[host].crash());
                vec![Undo::Restart(host.clone())]
            }
            Fault::NodeReboot { host } => {
                if !self.take_down(host) {
                    return;
                }
                self.am_processes.forget_node(host);
                self.strike_applications_on(host);
                vec![Undo::Restart(host.clone())]
            }
            Fault::AmCrash { host } => {
                let Some((node, container)) = self.am_processes.kill_one(host) else {
                    return;
                };
                // Ids come from the launch spec, so they parse.
                let application = container
                    .parse::<ContainerId>()
                    .map(|id| id.application_id().to_string())
                    .unwrap_or_default();
                detail = format!(": {container} on {node}, the AM of {application}");
                Vec::new()
            }
            Fault::PowerLoss { hosts } => {
                let mut undo = Vec::new();
                let mut lost = 0;
                for host in hosts {
                    // A machine whose process is down loses its unsynced writes too.
                    lost += self.disks[host].power_loss();
                    if self.take_down(host) {
                        undo.push(Undo::Restart(host.clone()));
                    }
                }
                detail = format!(": {lost} unsynced writes lost");
                undo
            }
            Fault::Partition { a, b } => {
                self.links.cut(a, b);
                self.links.cut(b, a);
                vec![Undo::Repair(a.clone(), b.clone())]
            }
            Fault::OneWayPartition { from, to } => {
                self.links.cut(from, to);
                vec![Undo::RepairOneWay(from.clone(), to.clone())]
            }
            Fault::Hold { a, b } => {
                self.sim.hold(a.as_str(), b.as_str());
                vec![Undo::Release(a.clone(), b.clone())]
            }
            Fault::SlowNetwork { max_latency } => {
                self.sim.set_max_message_latency(*max_latency);
                self.slow_networks += 1;
                vec![Undo::NormalNetwork]
            }
            Fault::SlowDisk { host } => {
                self.disks[host]
                    .set_sync_latency(Duration::from_millis(20), Duration::from_millis(300));
                *self.slow_disks.entry(host.clone()).or_default() += 1;
                vec![Undo::NormalDisk(host.clone())]
            }
            Fault::ClockJump { host, by } => {
                self.actions.post(host, HostAction::ClockJump(*by));
                Vec::new()
            }
            Fault::TransferLeadership { to } => {
                let Some(leader) = self.leader() else {
                    return;
                };
                if leader == *to {
                    // What `rmadmin -transitionToActive --forcemanual` answers at once.
                    detail = format!(" ({leader} leads already)");
                } else {
                    self.actions
                        .post(&leader, HostAction::TransferTo(to.clone()));
                    detail = format!(" (asked {leader})");
                }
                Vec::new()
            }
            Fault::RemoveMember { host } => {
                let Some(leader) = self.leader() else {
                    return;
                };
                self.actions
                    .post(&leader, HostAction::RemoveVoter(host.clone()));
                detail = format!(" (asked {leader})");
                vec![Undo::AddMember(host.clone())]
            }
        };
        self.history.record(now, format!("{fault}{detail}"));
        self.undo.entry(now + lasting).or_default().extend(undo);
    }

    /// Crashes `host` unless it is down already; whether it was up. Its own connection ends
    /// vanish without a word (see [`Links::silence`]); whether its peers hear of it is the
    /// fault's to say.
    fn take_down(&mut self, host: &str) -> bool {
        if !self.down.insert(host.to_owned()) {
            return false;
        }
        self.links.silence(host);
        self.sim.crash(host);
        self.registry
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(host);
        true
    }

    fn undo_due(&mut self) {
        let now = self.sim.elapsed();
        while let Some(entry) = self.undo.first_entry() {
            if *entry.key() > now {
                return;
            }
            for undo in entry.remove() {
                self.apply_undo(undo);
            }
        }
    }

    fn heal_all(&mut self) {
        let pending = std::mem::take(&mut self.undo);
        for undo in pending.into_values().flatten() {
            self.apply_undo(undo);
        }
        self.history
            .record(self.sim.elapsed(), "every fault healed");
    }

    fn apply_undo(&mut self, undo: Undo) {
        let now = self.sim.elapsed();
        let event = match undo {
            Undo::Restart(host) => {
                if !self.down.remove(&host) {
                    return;
                }
                // A node (replicas have disks) registers again empty: what the scheduler
                // placed on it while it was down is lost too.
                if !self.disks.contains_key(&host) {
                    self.strike_applications_on(&host);
                }
                // A machine back from a power loss or a reboot has no record of the
                // connections it had: its kernel answers their peers' next segment (a
                // retransmission, a window probe, a keepalive) with a reset. Without it a peer
                // whose writes wait on a full window never learns, and never dials again. (A
                // crashed process's connections were reset when it died.) The reset reaches a
                // peer even across a cut still in force, where a real one waits for a segment
                // to get through: harmless, as the peer's new connection is held by the cut.
                self.links.reset_peers_of(&host);
                self.sim.bounce(host.as_str());
                format!("restart {host}")
            }
            Undo::Repair(a, b) => {
                self.links.repair(&a, &b);
                self.links.repair(&b, &a);
                format!("repair {a} <-> {b}")
            }
            Undo::RepairOneWay(from, to) => {
                self.links.repair(&from, &to);
                format!("repair {from} -> {to}")
            }
            Undo::Release(a, b) => {
                self.sim.release(a.as_str(), b.as_str());
                format!("release {a} <-> {b}")
            }
            Undo::NormalNetwork => {
                // Overlapping slow-network faults: the last one to end restores the latency.
                self.slow_networks -= 1;
                if self.slow_networks > 0 {
                    return;
                }
                self.sim.set_max_message_latency(NORMAL_LATENCY);
                "network back to normal".to_owned()
            }
            Undo::NormalDisk(host) => {
                let slow = self.slow_disks.entry(host.clone()).or_default();
                *slow -= 1;
                if *slow > 0 {
                    return;
                }
                self.disks[&host]
                    .set_sync_latency(Duration::from_micros(100), Duration::from_millis(2));
                format!("disk of {host} back to normal")
            }
            Undo::AddMember(host) => {
                let Some(leader) = self.leader() else {
                    // No one to ask now; the end of the run asks again for every missing voter.
                    return;
                };
                self.actions
                    .post(&leader, HostAction::AddVoter(host.clone()));
                format!("ask for {host} to rejoin the group (asked {leader})")
            }
        };
        self.history.record(now, event);
    }

    /// Records that `node` rebooted, naming the applications with a container live on it in
    /// any running replica's state: those containers are lost, and their tasks run again.
    fn strike_applications_on(&self, node: &str) {
        let node_id = format!("{node}:{NM_PORT}");
        let running = self
            .registry
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let mut applications = BTreeSet::new();
        for replica in running.values() {
            replica.state.read(|state| {
                for record in state.containers.live_on(&node_id) {
                    let id =
                        ApplicationId::new(state.cluster_timestamp_ms, record.key.application_seq);
                    applications.insert(id.to_string());
                }
            });
        }
        self.history
            .struck_by_reboot(self.sim.elapsed(), node, applications);
    }

    /// The replica leading the newest term among those running, if one does.
    fn leader(&self) -> Option<String> {
        self.registry
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .filter_map(|(rm_id, r)| {
                let metrics = r.raft.metrics().borrow().clone();
                (metrics.state == ServerState::Leader)
                    .then(|| (metrics.current_term, rm_id.clone()))
            })
            .max()
            .map(|(_, rm_id)| rm_id)
    }

    /// Asks the leader to add back every configured replica that is not a voter of the group,
    /// at most once per `REJOIN_EVERY`: a member removed by a fault must rejoin before the
    /// replicas can agree.
    fn rejoin_missing(&mut self, hosts: &[String]) {
        let now = self.sim.elapsed();
        if now < self.next_rejoin {
            return;
        }
        self.next_rejoin = now + REJOIN_EVERY;
        let Some(leader) = self.leader() else {
            return;
        };
        let voters: BTreeSet<u64> = {
            let running = self.registry.lock().unwrap_or_else(PoisonError::into_inner);
            let metrics = running[&leader].raft.metrics().borrow().clone();
            metrics.membership_config.membership().voter_ids().collect()
        };
        for host in hosts {
            if !voters.contains(&node_id_of(host)) {
                self.actions
                    .post(&leader, HostAction::AddVoter(host.clone()));
                self.history.record(
                    now,
                    format!("ask for {host} to rejoin the group (asked {leader})"),
                );
            }
        }
    }

    /// Every replica's applied log index, by rm-id.
    fn positions(&self) -> BTreeMap<String, Option<u64>> {
        self.registry
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .map(|(rm_id, r)| (rm_id.clone(), r.state.applied().map(|p| p.index)))
            .collect()
    }

    /// The common end state, once all `replicas` run and vote, one leads, and every one
    /// applied the leader's last log entry.
    fn agreement(&self, replicas: usize) -> Option<Agreement> {
        let running = self
            .registry
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        if running.len() != replicas {
            return None;
        }
        let leader = running
            .values()
            .find(|r| r.raft.metrics().borrow().state == ServerState::Leader)?;
        let metrics = leader.raft.metrics().borrow().clone();
        let membership = metrics.membership_config.membership();
        if membership.voter_ids().count() != replicas || membership.learner_ids().count() != 0 {
            return None;
        }
        let last = metrics.last_log_index?;
        let mut digests = BTreeSet::new();
        let mut next_sequence = 0;
        for replica in running.values() {
            let digest = replica.state.digest().ok()?;
            if digest.applied.map(|p| p.index) != Some(last) {
                return None;
            }
            digests.insert(digest.hex());
            next_sequence = replica.state.read(|s| s.next_application_seq);
        }
        match digests.len() {
            1 => Some(Agreement {
                index: last,
                digest: digests.pop_first().unwrap_or_default(),
                next_sequence,
            }),
            _ => {
                self.history.violation(
                    self.sim.elapsed(),
                    format!(
                        "replicas applied log index {last} and hold different states: {digests:?}"
                    ),
                );
                Some(Agreement {
                    index: last,
                    digest: String::from("diverged"),
                    next_sequence,
                })
            }
        }
    }

    fn check_final(&self, agreed: &Agreement) {
        let now = self.sim.elapsed();
        self.history.record(
            now,
            format!(
                "every replica applied log index {} with digest {}",
                agreed.index, agreed.digest
            ),
        );
        if let Some(greatest) = self.history.greatest_acknowledged()
            && greatest >= agreed.next_sequence
        {
            self.history.violation(
                now,
                format!(
                    "sequence number {greatest} was acknowledged but the replicas' counter is \
                     at {}: an acknowledged write was lost",
                    agreed.next_sequence
                ),
            );
        }
    }

    /// Every application ended FINISHED and succeeded, except that one whose failed tasks were
    /// all on nodes that rebooted may have failed.
    fn check_applications(&self) {
        let now = self.sim.elapsed();
        for (application, ended) in self.history.ended() {
            // A killed ApplicationMaster is no excuse: a run kills one at most, and the next
            // attempt runs the application again from the start. Nor is one lost with its
            // node, whose attempt does not count; nor a task container lost with its node,
            // which the ApplicationMaster runs again.
            if self
                .history
                .failed_only_on_rebooted_nodes(&ended.diagnostics)
            {
                continue;
            }
            if ended.state != "FINISHED" || ended.status != "APP_SUCCEEDED" {
                self.history.violation(
                    now,
                    format!(
                        "{application} ended {} with final status {}, though every task \
                         succeeds: {}",
                        ended.state, ended.status, ended.diagnostics
                    ),
                );
            }
        }
    }

    fn outcome(&self, seed: u64) -> SimOutcome {
        SimOutcome {
            seed,
            trace: self.history.trace(),
            violations: self.history.violations(),
            acknowledged: self.history.acknowledged_count(),
            simulated: self.sim.elapsed(),
        }
    }
}
