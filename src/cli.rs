//! The command line: Hadoop's `yarn` verbs as subcommands of one binary.
//!
//! Hadoop's own CLI takes single-dash long options (`yarn rmadmin -getServiceState rm1`,
//! `yarn application -list`). [`hadoop_style_args`] rewrites those to clap's double-dash form
//! before parsing, so both spellings work and clap still rejects unknown flags with usage and
//! exit status 2.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use yarn_chaos::{DiskMode, NetworkMode, Profile, parse_duration};
use yarn_client::application_cli::{ApplicationStateArg, NodeStateArg};
use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, NodeId, ReservationId};
use yarn_proto::pb;
use yarn_sim::AmrmProxies;

/// yarn-ha: a highly available, YARN-compatible ResourceManager with Raft, mutual TLS and a chaos
/// harness.
#[derive(Debug, Parser)]
#[command(name = "yarn-ha", version, propagate_version = true)]
pub struct Cli {
    /// Directory holding yarn-site.xml and capacity-scheduler.xml (Hadoop's YARN_CONF_DIR).
    #[arg(long, global = true, env = "YARN_CONF_DIR", value_name = "DIR")]
    pub conf_dir: Option<PathBuf>,

    #[command(subcommand)]
    pub command: Command,
}

/// Every command of the binary, one per Hadoop verb plus yarn-ha's own tools.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run one ResourceManager replica (a member of the Raft group).
    Resourcemanager(ResourceManagerArgs),
    /// Run a NodeManager: registers with the RM, runs containers, hosts the AMRMProxy.
    Nodemanager(NodeManagerArgs),
    /// Administer the ResourceManagers: HA state, health, refreshes, Raft membership.
    Rmadmin(RmAdminArgs),
    /// List, inspect, kill and move applications.
    Application(ApplicationArgs),
    /// List and inspect NodeManagers.
    Node(NodeArgs),
    /// Cluster-wide queries: the node labels (`-lnl`).
    Cluster(ClusterArgs),
    /// List the attempts of an application.
    Applicationattempt(ApplicationAttemptArgs),
    /// List the containers of an application attempt.
    Container(ContainerArgs),
    /// Show queue status.
    Queue(QueueArgs),
    /// Change a mutable queue configuration (yarn.scheduler.configuration.store.class) as
    /// Hadoop's `yarn schedulerconf` does: add, remove and update queues, set global keys,
    /// format it back to capacity-scheduler.xml, or print it.
    Schedulerconf(SchedulerConfArgs),
    /// Placement rules: `convert` rewrites legacy queue mappings as JSON rules.
    #[command(subcommand)]
    Placement(PlacementCommand),
    /// Reserve capacity of a reservable queue ahead of time: create, submit, update, delete and
    /// list reservations (the ReservationSystem).
    #[command(subcommand)]
    Reservation(ReservationCommand),
    /// Watch the cluster: node and queue figures and the busiest applications, refreshed every
    /// few seconds (Hadoop's `yarn top`; press h for its keys, q to quit).
    Top(TopArgs),
    /// Run the distributed-shell sample application (Hadoop's flags: --shell_command,
    /// --num_containers, --container_memory, --container_type, --queue, ...).
    Dshell(WordArgs),
    /// Estimate pi with a map per container: `pi <maps> <samples> [--opportunistic_percent P]`.
    Pi(WordArgs),
    /// The distributed shell's ApplicationMaster, as the ResourceManager launches it.
    #[command(name = "dshell-am", hide = true)]
    DshellAm(WordArgs),
    /// The pi example's ApplicationMaster, as the ResourceManager launches it.
    #[command(name = "pi-am", hide = true)]
    PiAm(WordArgs),
    /// One map of the pi example, as its ApplicationMaster launches it.
    #[command(name = "pi-map", hide = true)]
    PiMap(WordArgs),
    /// Start a local cluster of real ResourceManager and NodeManager processes.
    #[command(subcommand)]
    Minicluster(MiniclusterCommand),
    /// Create the cluster CA and certificates for mutual TLS.
    #[command(subcommand)]
    Pki(PkiCommand),
    /// Read and check the Hadoop XML configuration.
    #[command(subcommand)]
    Conf(ConfCommand),
    /// Run seeded fault drills against a real cluster and check invariants.
    #[command(subcommand)]
    Chaos(ChaosCommand),
    /// Run the deterministic simulation: a ResourceManager group's real Raft code on simulated
    /// time, network and disks under seeded faults, checking invariants; exits 0 only if every
    /// seed passed. A failing seed replays exactly with --seed.
    Sim(SimArgs),
    /// Run benchmarks: Raft, the scheduler, allocation, the REST API.
    #[command(subcommand)]
    Bench(BenchCommand),
}

/// Arguments of `yarn-ha resourcemanager`.
#[derive(Debug, Args)]
pub struct ResourceManagerArgs {
    /// This replica's id, one of yarn.resourcemanager.ha.rm-ids (overrides yarn.resourcemanager.ha.id).
    #[arg(long = "rm-id", value_name = "RM_ID")]
    pub rm_id: Option<String>,
}

/// Arguments of `yarn-ha nodemanager`.
#[derive(Debug, Args)]
pub struct NodeManagerArgs {
    /// Run this many NodeManagers in this process with the simulated executor (no container
    /// processes), for load and scale tests; ports and directories are derived per node.
    #[arg(long = "simulate-nodes", value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub simulate_nodes: Option<u16>,
}

/// Arguments of `yarn-ha rmadmin`, with Hadoop's option names: exactly one operation, plus
/// `--forcemanual` for the manual transitions.
///
/// The operations form the group `operation`, declared by hand so that `--forcemanual` stays
/// outside it (a struct-level `#[group]` would take in every field).
#[derive(Debug, Args)]
#[group(skip)]
#[command(group(clap::ArgGroup::new("operation").required(true).multiple(false)))]
pub struct RmAdminArgs {
    /// Print the HA state (active or standby) of one RM.
    #[arg(long = "getServiceState", value_name = "RM_ID", group = "operation")]
    pub get_service_state: Option<String>,
    /// Print the admin address and HA state (active, standby or unreachable) of every RM in
    /// yarn.resourcemanager.ha.rm-ids.
    #[arg(long = "getAllServiceState", group = "operation")]
    pub get_all_service_state: bool,
    /// Check the health of one RM; silent when healthy, exits 1 with the reason otherwise.
    #[arg(long = "checkHealth", value_name = "RM_ID", group = "operation")]
    pub check_health: Option<String>,
    /// Hand Raft leadership to the given RM: `-transitionToActive [--forcemanual] RM_ID`
    /// (--forcemanual is needed under automatic failover).
    // One or two values, so that Hadoop's order (--forcemanual between the option and the id)
    // parses too; the adapter takes --forcemanual out of the values.
    #[arg(
        long = "transitionToActive",
        value_name = "RM_ID",
        num_args = 1..=2,
        allow_hyphen_values = true,
        group = "operation"
    )]
    pub transition_to_active: Option<Vec<String>>,
    /// Make the given RM standby, handing leadership to another voter if it leads:
    /// `-transitionToStandby [--forcemanual] RM_ID` (--forcemanual is needed under automatic
    /// failover).
    // Values as for -transitionToActive.
    #[arg(
        long = "transitionToStandby",
        value_name = "RM_ID",
        num_args = 1..=2,
        allow_hyphen_values = true,
        group = "operation"
    )]
    pub transition_to_standby: Option<Vec<String>>,
    /// Reload capacity-scheduler.xml on the leader and commit it.
    #[arg(long = "refreshQueues", group = "operation")]
    pub refresh_queues: bool,
    /// Reload the include and exclude node lists on the leader.
    #[arg(long = "refreshNodes", group = "operation")]
    pub refresh_nodes: bool,
    /// Reload yarn.admin.acl on the leader.
    #[arg(long = "refreshAdminAcls", group = "operation")]
    pub refresh_admin_acls: bool,
    /// Print the Raft members, the leader and the term.
    #[arg(long = "getClusterMembership", group = "operation")]
    pub get_cluster_membership: bool,
    /// Add an RM to the Raft group (as learner, then voter) and print the new membership.
    #[arg(
        long = "addToCluster",
        num_args = 2,
        value_names = ["RM_ID", "RAFT_ADDRESS"],
        group = "operation"
    )]
    pub add_to_cluster: Option<Vec<String>>,
    /// Remove an RM from the Raft voters and print the new membership.
    #[arg(long = "removeFromCluster", value_name = "RM_ID", group = "operation")]
    pub remove_from_cluster: Option<String>,
    /// Print one RM's digest of its replicated state with the log index and term it reflects
    /// (yarn-ha extension); RMs at the same index must print the same digest.
    #[arg(long = "getStateDigest", value_name = "RM_ID", group = "operation")]
    pub get_state_digest: Option<String>,
    /// Add cluster node labels: "label1(exclusive=true),label2(exclusive=false),label3"
    /// (exclusive unless said otherwise).
    #[arg(
        long = "addToClusterNodeLabels",
        value_name = "LABELS",
        group = "operation"
    )]
    pub add_to_cluster_node_labels: Option<String>,
    /// Remove cluster node labels, taking them off every node: "label1,label2".
    #[arg(
        long = "removeFromClusterNodeLabels",
        value_name = "LABELS",
        group = "operation"
    )]
    pub remove_from_cluster_node_labels: Option<String>,
    /// Set the label of nodes: "node1[:port]=label1 node2[:port]=label2" (without a port, every
    /// NodeManager on the host; without a label, none).
    #[arg(
        long = "replaceLabelsOnNode",
        value_name = "MAPPINGS",
        group = "operation"
    )]
    pub replace_labels_on_node: Option<String>,
    /// With -replaceLabelsOnNode: refuse the change if a node never registered.
    #[arg(long = "failOnUnknownNodes", requires = "replace_labels_on_node")]
    pub fail_on_unknown_nodes: bool,
    /// Allow -transitionToActive and -transitionToStandby while
    /// yarn.resourcemanager.ha.automatic-failover.enabled is true.
    #[arg(long = "forcemanual")]
    pub force_manual: bool,
}

/// Arguments of `yarn-ha application`, with Hadoop's option names: exactly one action, plus
/// the options that qualify it.
///
/// The actions form the group `action`, declared by hand so that the qualifying options stay
/// outside it (a struct-level `#[group]` would take in every field).
#[derive(Debug, Args)]
#[group(skip)]
#[command(group(clap::ArgGroup::new("action").required(true).multiple(false)))]
pub struct ApplicationArgs {
    /// List applications (filtered by -appStates, -appTypes, -appTags).
    #[arg(long, group = "action")]
    pub list: bool,
    /// Print the report of one application.
    #[arg(long, group = "action", value_name = "APPLICATION_ID")]
    pub status: Option<ApplicationId>,
    /// Kill one application.
    #[arg(long, group = "action", value_name = "APPLICATION_ID")]
    pub kill: Option<ApplicationId>,
    /// Move one application to the queue given by -queue.
    #[arg(
        long = "movetoqueue",
        group = "action",
        value_name = "APPLICATION_ID",
        requires = "queue"
    )]
    pub move_to_queue: Option<ApplicationId>,
    /// Target queue of -movetoqueue.
    #[arg(long, value_name = "QUEUE")]
    pub queue: Option<String>,
    /// Update the lifetime of the application given by -appId: it ends this many seconds
    /// from now (no later than its queue's maximum-application-lifetime allows).
    #[arg(
        long = "updateLifetime",
        group = "action",
        value_name = "TIMEOUT",
        requires = "app_id"
    )]
    pub update_lifetime: Option<u64>,
    /// The application of -updateLifetime.
    #[arg(long = "appId", value_name = "APPLICATION_ID")]
    pub app_id: Option<ApplicationId>,
    /// With -list: comma-separated application states, or ALL for every state (default:
    /// SUBMITTED,ACCEPTED,RUNNING).
    #[arg(long = "appStates", value_name = "STATES", value_delimiter = ',')]
    pub app_states: Vec<ApplicationStateArg>,
    /// With -list: comma-separated application types.
    #[arg(long = "appTypes", value_name = "TYPES", value_delimiter = ',')]
    pub app_types: Vec<String>,
    /// With -list: comma-separated application tags.
    #[arg(long = "appTags", value_name = "TAGS", value_delimiter = ',')]
    pub app_tags: Vec<String>,
}

/// Arguments of `yarn-ha node`, with Hadoop's option names: exactly one action, plus the
/// options that qualify `-list` (the group is declared as for [`ApplicationArgs`]).
#[derive(Debug, Args)]
#[group(skip)]
#[command(group(clap::ArgGroup::new("action").required(true).multiple(false)))]
pub struct NodeArgs {
    /// List nodes (RUNNING ones unless -states or -all).
    #[arg(long, group = "action")]
    pub list: bool,
    /// Print the report of one node.
    #[arg(long, group = "action", value_name = "NODE_ID")]
    pub status: Option<NodeId>,
    /// With -list: comma-separated node states (default: RUNNING).
    #[arg(long, value_name = "STATES", value_delimiter = ',')]
    pub states: Vec<NodeStateArg>,
    /// With -list: nodes in every state.
    #[arg(long)]
    pub all: bool,
    /// With -list: each node's resources and labels below its row.
    #[arg(long = "showDetails", requires = "list")]
    pub show_details: bool,
}

/// Arguments of `yarn-ha cluster`, with Hadoop's option names: one action.
#[derive(Debug, Args)]
#[group(skip)]
#[command(group(clap::ArgGroup::new("action").required(true).multiple(false)))]
pub struct ClusterArgs {
    /// List the cluster's node labels with their exclusivity.
    #[arg(long = "list-node-labels", alias = "lnl", group = "action")]
    pub list_node_labels: bool,
}

/// Arguments of `yarn-ha applicationattempt`, with Hadoop's option names.
#[derive(Debug, Args)]
pub struct ApplicationAttemptArgs {
    /// List the attempts of one application: id, state, AM container, tracking URL.
    #[arg(long, value_name = "APPLICATION_ID")]
    pub list: ApplicationId,
}

/// Arguments of `yarn-ha container`, with Hadoop's option names.
#[derive(Debug, Args)]
pub struct ContainerArgs {
    /// List the containers of one application attempt: id, times, state, host, log URL.
    #[arg(long, value_name = "APPLICATION_ATTEMPT_ID")]
    pub list: ApplicationAttemptId,
}

/// `yarn-ha reservation`.
#[derive(Debug, Subcommand)]
pub enum ReservationCommand {
    /// Print a new reservation id.
    Create,
    /// Submit a reservation to a reservable queue (under a new id unless --id is given).
    Submit {
        /// The reservable queue (a leaf name or a full path).
        #[arg(long, value_name = "QUEUE")]
        queue: String,
        /// The id from `reservation create`.
        #[arg(long, value_name = "RESERVATION_ID")]
        id: Option<ReservationId>,
        #[command(flatten)]
        definition: ReservationDefinitionArgs,
    },
    /// Replace a reservation's definition.
    Update {
        /// The reservation.
        #[arg(long, value_name = "RESERVATION_ID")]
        id: ReservationId,
        #[command(flatten)]
        definition: ReservationDefinitionArgs,
    },
    /// Delete a reservation.
    Delete {
        /// The reservation.
        #[arg(long, value_name = "RESERVATION_ID")]
        id: ReservationId,
    },
    /// List the reservations of a reservable queue.
    List {
        /// The reservable queue (a leaf name or a full path).
        #[arg(long, value_name = "QUEUE")]
        queue: String,
        /// Only this reservation.
        #[arg(long, value_name = "RESERVATION_ID")]
        id: Option<ReservationId>,
        /// Only reservations whose window ends after this (ms since the Unix epoch, or +DURATION).
        #[arg(long, value_name = "TIME")]
        start: Option<String>,
        /// Only reservations whose window starts by this (ms since the Unix epoch, or +DURATION).
        #[arg(long, value_name = "TIME")]
        end: Option<String>,
        /// Also print what the plan gives each reservation over time.
        #[arg(long)]
        allocations: bool,
    },
}

/// What to reserve: stages between an arrival and a deadline.
#[derive(Debug, Args)]
pub struct ReservationDefinitionArgs {
    /// The earliest any stage may start: ms since the Unix epoch, or +DURATION from now (+10m).
    #[arg(long, value_name = "TIME")]
    pub arrival: String,
    /// When every stage must have ended: ms since the Unix epoch, or +DURATION from now.
    #[arg(long, value_name = "TIME")]
    pub deadline: String,
    /// One stage, repeatable: memory=<MB>,vcores=<n>,containers=<n>,gang=<n>,duration=<10m>
    /// (vcores, containers and gang default to 1).
    #[arg(long = "request", value_name = "STAGE", required = true, value_parser = yarn_client::reservation::parse_request)]
    pub requests: Vec<pb::ReservationRequestProto>,
    /// How the stages combine: R_ALL, R_ANY, R_ORDER or R_ORDER_NO_GAP.
    #[arg(long, value_name = "INTERPRETER", default_value = "R_ALL", value_parser = parse_interpreter)]
    pub interpreter: pb::ReservationRequestInterpreterProto,
    /// The reservation's name.
    #[arg(long, value_name = "NAME", default_value = "")]
    pub name: String,
}

fn parse_interpreter(text: &str) -> Result<pb::ReservationRequestInterpreterProto, String> {
    pb::ReservationRequestInterpreterProto::from_str_name(text.trim())
        .ok_or_else(|| format!("{text:?} is not one of R_ALL, R_ANY, R_ORDER and R_ORDER_NO_GAP"))
}

/// Arguments of `yarn-ha queue`.
#[derive(Debug, Args)]
pub struct QueueArgs {
    /// Print the status of one queue (a leaf name or a full path such as root.default).
    #[arg(long, value_name = "QUEUE", required = true)]
    pub status: String,
}

/// Arguments of `yarn-ha top`, with Hadoop's option names (`-queues a,b -delay 5`), plus
/// yarn-ha's `--iterations`.
#[derive(Debug, Args)]
pub struct TopArgs {
    /// Comma-separated queues: only their applications, and only their figures in the header
    /// (default: every application, and the figures of the queues under root).
    #[arg(long, value_name = "QUEUES", value_delimiter = ',')]
    pub queues: Vec<String>,
    /// Comma-separated users: only their applications.
    #[arg(long, value_name = "USERS", value_delimiter = ',')]
    pub users: Vec<String>,
    /// Comma-separated application types: only applications of these types.
    #[arg(long, value_name = "TYPES", value_delimiter = ',')]
    pub types: Vec<String>,
    /// Characters per line (default: the terminal's width; unlimited when stdout is not a
    /// terminal).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub cols: Option<u16>,
    /// Lines per screen (default: the terminal's height; unlimited when stdout is not a
    /// terminal).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub rows: Option<u16>,
    /// Seconds between refreshes, 1 to 86400.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 3,
        value_parser = clap::value_parser!(u64).range(1..=86_400)
    )]
    pub delay: u64,
    /// Stop after this many refreshes (yarn-ha extension, for scripts and tests); without it,
    /// top runs until q, Ctrl-C or SIGTERM, or, when stdin is not a terminal, until stdin ends
    /// after the first refresh.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub iterations: Option<u64>,
}

/// The words of a sample application's command line, parsed by the application itself with
/// Hadoop's flag spellings.
#[derive(Debug, Args)]
pub struct WordArgs {
    /// The application's arguments.
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "ARGS"
    )]
    pub args: Vec<String>,
}

/// `yarn-ha minicluster ...`
#[derive(Debug, Subcommand)]
pub enum MiniclusterCommand {
    /// Lay out a new cluster directory: PKI, one conf dir per daemon on free loopback ports,
    /// capacity-scheduler.xml, and the manifest minicluster.json.
    Init(MiniclusterInitArgs),
    /// Run every daemon of the cluster as a child process until Ctrl-C or SIGTERM; records
    /// them in <DIR>/cluster.json.
    Start(MiniclusterStartArgs),
    /// Start one exited daemon again, through the running `minicluster start`.
    Restart(MiniclusterRestartArgs),
    /// On a temporary 3-RM, 3-NM cluster: run a distributed-shell job, SIGKILL the active
    /// ResourceManager mid-job, show the failover and the job finishing, clean up.
    Demo,
}

/// Arguments of `yarn-ha minicluster init`.
#[derive(Debug, Args)]
pub struct MiniclusterInitArgs {
    /// The cluster directory; must be new or empty.
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
    /// How many ResourceManager replicas (rm1, rm2, ...).
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub rms: usize,
    /// How many NodeManagers (nm1, nm2, ...).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub nms: usize,
    /// A property for every daemon's and the client's yarn-site.xml, such as
    /// `yarn.hadoop-ipc.enabled=true`; repeatable. Only keys yarn-ha declares are taken.
    #[arg(long = "set", value_name = "NAME=VALUE", value_parser = site_property)]
    pub site: Vec<(String, String)>,
}

/// Reads `NAME=VALUE` for `minicluster init --set`, refusing names yarn-ha does not declare so
/// that a misspelt key is not silently ignored.
fn site_property(argument: &str) -> Result<(String, String), String> {
    let (name, value) = argument
        .split_once('=')
        .ok_or_else(|| format!("{argument:?} is not NAME=VALUE"))?;
    let name = name.trim();
    // Per-id keys (yarn.resourcemanager.address.rm1) are declared without their id.
    let declared = yarn_conf::keys::find(name).is_some()
        || name
            .rsplit_once('.')
            .is_some_and(|(base, _)| yarn_conf::keys::find(base).is_some());
    if !declared {
        return Err(format!("{name} is not a key yarn-ha reads"));
    }
    Ok((name.to_owned(), value.trim().to_owned()))
}

/// Arguments of `yarn-ha minicluster start`.
#[derive(Debug, Args)]
pub struct MiniclusterStartArgs {
    /// The cluster directory made by `minicluster init`.
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
}

/// Arguments of `yarn-ha minicluster restart`.
#[derive(Debug, Args)]
pub struct MiniclusterRestartArgs {
    /// The cluster directory of the running `minicluster start`.
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
    /// The daemon to start again: an rm id (rm2) or NodeManager name (nm1).
    #[arg(value_name = "DAEMON_ID")]
    pub id: String,
}

/// `yarn-ha chaos ...`
#[derive(Debug, Subcommand)]
pub enum ChaosCommand {
    /// Start a cluster of real processes behind fault-injecting proxies (or, as root, with
    /// --network netns, in a network namespace of its own), run a workload, inject faults from a
    /// seeded schedule, heal, settle, check every invariant and write a report;
    /// exits 0 only if no invariant was violated. Prints its seed; the same seed gives the same
    /// fault schedule.
    Run(ChaosRunArgs),
    /// Name every fault and every invariant, one line each.
    List,
    /// For the harness: list the failpoints this binary takes in YARN_HA_FAILPOINTS and exit 0,
    /// or exit 1 if it was built without them (the disk faults need them).
    #[command(hide = true)]
    Failpoints,
}

/// Arguments of `yarn-ha chaos run`. Unset sizes come from the profile.
#[derive(Debug, Args)]
pub struct ChaosRunArgs {
    /// ci: 3 RMs, 2 NMs, 60 s of faults (about two minutes on two cores); soak: 3 RMs, 3 NMs,
    /// an hour of faults.
    #[arg(long, value_name = "ci|soak", default_value = "ci")]
    pub profile: Profile,
    /// ResourceManager replicas (3 to 9).
    #[arg(long, value_name = "N")]
    pub rms: Option<usize>,
    /// NodeManagers (1 to 9).
    #[arg(long, value_name = "N")]
    pub nms: Option<usize>,
    /// How long faults are injected: a number with ms, s, m or h (120s, 2m, 1h).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub duration: Option<Duration>,
    /// The faults to draw from, comma-separated (default: all; `yarn-ha chaos list` names them).
    #[arg(long, value_name = "FAULT,...")]
    pub faults: Option<String>,
    /// The seed of the fault schedule and the workload (default: a fresh one, printed).
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Also write the JSON report to this file.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// The run's directory, new or empty, kept afterwards with the logs (default: a new one in
    /// the temporary directory).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// How long jobs may take to finish once faults are over (default 90s); applications then
    /// get as long again, at most 60 s, to reach a final state.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub drain: Option<Duration>,
    /// How network faults are made. proxy: a fault-injecting TCP proxy in front of every
    /// ResourceManager endpoint, no privileges needed. netns (root only): the run gets a network
    /// namespace of its own and each daemon a cgroup; iptables drops partitioned packets on
    /// every connection between daemons, netem adds latency where the kernel has it.
    #[arg(long, value_name = "proxy|netns", default_value = "proxy")]
    pub network: NetworkMode,
    /// What the ResourceManagers' Raft storage lies on. real: directories on the host's file
    /// system. volatile (root with /dev/fuse): a FUSE file system per replica that holds what
    /// was written in memory until it is fsync'd, so the power-loss faults (power-loss,
    /// power-loss-all-rms) can drop every unsynced write; on real disks they are skipped.
    #[arg(long, value_name = "real|volatile", default_value = "real")]
    pub disks: DiskMode,
}

/// Arguments of `yarn-ha sim`. The planted bugs of `YARN_HA_FAILPOINTS` apply to every
/// simulated replica (test builds only).
#[derive(Debug, Args)]
pub struct SimArgs {
    /// How many seeds to run, from --first-seed on.
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub seeds: u64,
    /// The first seed of the batch.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub first_seed: u64,
    /// Run this one seed and print its whole trace, instead of a batch.
    #[arg(long, value_name = "N", conflicts_with_all = ["seeds", "first_seed"])]
    pub seed: Option<u64>,
    /// ResourceManager replicas (3 or 5).
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub replicas: usize,
    /// How long faults are injected in each run, in simulated time: a number with ms, s, m or
    /// h (default 4s).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub duration: Option<Duration>,
    /// NodeManagers in each simulated cluster (0 runs the replica group alone).
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub nodes: usize,
    /// Distributed shell applications submitted in each run, one a second; they need
    /// NodeManagers.
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub applications: usize,
    /// Keep NodeManager machines from rebooting (losing their containers) among the faults;
    /// their links and the client's still fail.
    #[arg(long)]
    pub no_node_reboots: bool,
    /// Which runs put their ApplicationMasters behind their nodes' AMRMProxies: drawn (each
    /// seed draws, so a batch covers both), always or never.
    #[arg(long, value_name = "drawn|always|never", default_value = "drawn")]
    pub amrm_proxies: AmrmProxies,
    /// Threads running seeds side by side (default: the available cores).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
}

/// `yarn-ha bench ...`
#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Start three ResourceManagers with mutual TLS and measure commit latency and
    /// throughput under concurrent proposers, then failover time (SIGKILL of the leader until
    /// a new leader commits a write). Prints a table, or JSON with --json.
    Raft(BenchRaftArgs),
    /// Allocation decisions per second of the CapacityScheduler core (no Raft, no I/O) on
    /// clusters of the given node counts with 100 queues and 1,000 applications.
    Scheduler(BenchSchedulerArgs),
    /// The locality delay scheduling achieves for asks naming hosts on a busy cluster (the
    /// real CapacityScheduler, simulated heartbeats): node-local, rack-local and off-switch
    /// shares, mean wait and makespan without delay, with Hadoop's defaults and with a rack
    /// delay. Prints a table.
    Locality(BenchLocalityArgs),
    /// One round of the proportional preemption policy on a full cluster (default 10,000
    /// nodes, 1,000 queues, 100,000 running containers): the snapshot that holds the
    /// scheduler, and the policy that runs without it. Prints one line.
    Preemption(BenchPreemptionArgs),
    /// Admission of a reservation into a plan that holds many (default 10,000): the copy of
    /// the bookings that holds the replicated state, and the placement and policy check that
    /// do not. Prints one line.
    Reservation(BenchReservationArgs),
    /// Time from an ApplicationMaster's allocate call to its containers in hand for
    /// GUARANTEED (via the AMRMProxy, direct over gRPC, direct over Hadoop IPC), distributed
    /// OPPORTUNISTIC and centralized OPPORTUNISTIC containers on real clusters; then task throughput and utilization of 1-second tasks at 0, 50 and 100%
    /// OPPORTUNISTIC, simulated with the real schedulers. Prints a table, or JSON with --json.
    Allocate(BenchAllocateArgs),
    /// The ApplicationMaster of `bench allocate`, as the ResourceManager launches it.
    #[command(name = "allocate-am", hide = true)]
    AllocateAm(BenchAllocateAmArgs),
    /// Load three ResourceManagers with applications and simulated NodeManagers, then time
    /// the REST API's application and node lists, one application and the cluster metrics
    /// (p50, p99, max, answer size), and a node's heartbeats on the leader meanwhile against
    /// an idle baseline. Prints a table, or JSON with --json.
    Rest(BenchRestArgs),
    /// Write to a one-replica Raft group on sled (fdatasync'd, snapshots and purges as
    /// shipped) for a while, sampling the storage directory's disk use against the live data
    /// it holds: sled's known growth under steady log purging. Prints a table.
    Storage(BenchStorageArgs),
}

/// Arguments of `yarn-ha bench locality`.
#[derive(Debug, Args)]
pub struct BenchLocalityArgs {
    /// Nodes.
    #[arg(long, value_name = "N", default_value_t = 400)]
    pub nodes: usize,
    /// Nodes per rack.
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub rack_size: usize,
    /// 1 GB containers per node.
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub slots: u64,
    /// Applications, all submitted at the start: many small jobs are where locality is hard.
    #[arg(long, value_name = "N", default_value_t = 400)]
    pub applications: usize,
    /// Tasks of each application, each naming the three nodes of its input.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub tasks: usize,
}

/// Arguments of `yarn-ha bench preemption`.
#[derive(Debug, Args)]
pub struct BenchPreemptionArgs {
    /// Nodes; together they hold exactly the running containers.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub nodes: usize,
    /// Leaf queues under root with equal guarantees: half fill the cluster, half ask.
    #[arg(long, value_name = "N", default_value_t = 1_000)]
    pub queues: usize,
    /// Running containers of 1 GB once the cluster is full.
    #[arg(long, value_name = "N", default_value_t = 100_000)]
    pub containers: usize,
    /// Rounds timed.
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub rounds: usize,
    /// Also preempt within queues: each busy queue gets an application at priority 1 asking
    /// for a tenth of its guarantee.
    #[arg(long)]
    pub intra_queue: bool,
}

/// Arguments of `yarn-ha bench reservation`.
#[derive(Debug, Args)]
pub struct BenchReservationArgs {
    /// Reservations in the plan before the timed admissions.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub reservations: usize,
    /// Admissions timed.
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub admissions: usize,
    /// The plan's capacity in GB.
    #[arg(long, value_name = "GB", default_value_t = 10_000)]
    pub capacity_gb: u64,
    /// Users the reservations belong to.
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub users: usize,
}

/// Arguments of `yarn-ha bench storage`.
#[derive(Debug, Args)]
pub struct BenchStorageArgs {
    /// Put the storage in this directory and keep it (default: a temporary directory).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// How long to write: a number with ms, s, m or h.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, default_value = "1h")]
    pub duration: Duration,
    /// Bytes of queue configuration each log entry carries.
    #[arg(long, value_name = "BYTES", default_value_t = 1024)]
    pub entry_bytes: usize,
    /// How often to sample the disk use.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, default_value = "60s")]
    pub sample_every: Duration,
}

/// Arguments of `yarn-ha bench rest`.
#[derive(Debug, Args)]
pub struct BenchRestArgs {
    /// Lay the cluster out in this new or empty directory and keep it (default: a temporary
    /// directory, removed at the end).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Applications in the state (one in 50 RUNNING, the others ACCEPTED).
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub apps: usize,
    /// Simulated NodeManagers registered with the leader.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub nodes: usize,
    /// Measured requests per endpoint, after one warm-up request per client.
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub requests: usize,
    /// Clients sending requests at the same time, each over its own HTTP/2 connection.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub concurrency: usize,
    /// Print the figures as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `yarn-ha bench allocate`.
#[derive(Debug, Args)]
pub struct BenchAllocateArgs {
    /// Lay the clusters out in this new or empty directory and keep it (default: a temporary
    /// directory, removed at the end).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Measured rounds per allocation path, after one warm-up round.
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub rounds: usize,
    /// Containers of 1 GB asked for in each round.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub containers: u32,
    /// NodeManagers in each latency cluster.
    #[arg(long, value_name = "N", default_value_t = 2)]
    pub nodes: usize,
    /// NodeManagers (8 slots of 1 GB each) in the simulated cluster.
    #[arg(long = "sim-nodes", value_name = "N", default_value_t = 20)]
    pub sim_nodes: usize,
    /// Simulated seconds per OPPORTUNISTIC share (the first 10 are not counted).
    #[arg(long = "sim-seconds", value_name = "SECS", default_value_t = 300)]
    pub sim_seconds: u64,
    /// Print the figures as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `yarn-ha bench allocate-am`.
#[derive(Debug, Args)]
pub struct BenchAllocateAmArgs {
    /// guaranteed or opportunistic.
    #[arg(long, value_name = "MODE")]
    pub mode: yarn_bench::AskedExecutionType,
    /// grpc or hadoop-ipc: the RPC spoken to the ApplicationMasterProtocol.
    #[arg(long, value_name = "TRANSPORT", default_value = "grpc")]
    pub transport: yarn_bench::AmrmTransport,
    /// Measured rounds, after one warm-up round.
    #[arg(long, value_name = "N")]
    pub rounds: usize,
    /// Containers asked for in each round.
    #[arg(long, value_name = "N")]
    pub containers: u32,
    /// Where to write the samples as JSON.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}

/// Arguments of `yarn-ha bench scheduler`.
#[derive(Debug, Args)]
pub struct BenchSchedulerArgs {
    /// Cluster sizes, comma-separated: one run each.
    #[arg(
        long,
        value_name = "N,...",
        value_delimiter = ',',
        default_value = "1000,10000"
    )]
    pub nodes: Vec<usize>,
    /// Leaf queues under root, with equal shares.
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub queues: usize,
    /// Applications, spread over the queues.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub applications: usize,
    /// Containers of 1 GB each application asks for.
    #[arg(long = "containers-per-app", value_name = "N", default_value_t = 200)]
    pub containers_per_application: u32,
    /// How the queues are configured: `percentage` (leaves of root with equal percentages) or
    /// `flexible` (absolute parents under a priority-utilization root, weighted fair leaves).
    #[arg(long, value_name = "LAYOUT", default_value = "percentage")]
    pub layout: yarn_bench::QueueLayout,
    /// Also run the full path: one unmanaged ApplicationMaster per application asking over the
    /// ApplicationMasterProtocol (see docs/benchmarks.md for what it shows on two cores).
    #[arg(long = "through-ams")]
    pub through_ams: bool,
    /// Run the core again recording every application's activities in every pass, as while a
    /// reader of the activities endpoints asks, to compare the pass time with recording off.
    #[arg(long)]
    pub activities: bool,
}

/// Arguments of `yarn-ha bench raft`.
#[derive(Debug, Args)]
pub struct BenchRaftArgs {
    /// Lay the cluster out in this new or empty directory and keep it (default: a temporary
    /// directory, removed at the end).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Numbers of concurrent proposers, comma-separated: one commit-latency run each.
    #[arg(
        long,
        value_name = "N,...",
        value_delimiter = ',',
        default_value = "1,16,256"
    )]
    pub proposers: Vec<usize>,
    /// Seconds each commit-latency run is measured, after a one-second warm-up.
    #[arg(long = "duration-secs", value_name = "SECS", default_value_t = 5)]
    pub duration_secs: u64,
    /// How many times the leader is killed.
    #[arg(long = "failover-trials", value_name = "N", default_value_t = 20)]
    pub failover_trials: usize,
    /// Print the figures as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// `yarn-ha pki ...`
#[derive(Debug, Subcommand)]
pub enum PkiCommand {
    /// Create the cluster CA and a certificate for every RM, NM host and user.
    Init(PkiInitArgs),
    /// Add one certificate signed by an existing cluster CA.
    Issue(PkiIssueArgs),
}

/// Arguments of `yarn-ha pki init`.
#[derive(Debug, Args)]
pub struct PkiInitArgs {
    /// Directory to write the CA, certificates and keys into (created if missing).
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
    /// ResourceManager ids, comma-separated.
    #[arg(long = "rm-ids", value_delimiter = ',', value_name = "IDS")]
    pub rm_ids: Vec<String>,
    /// NodeManager host names, comma-separated.
    #[arg(long = "nm-hosts", value_delimiter = ',', value_name = "HOSTS")]
    pub nm_hosts: Vec<String>,
    /// User names, comma-separated.
    #[arg(long, value_delimiter = ',', value_name = "USERS")]
    pub users: Vec<String>,
    /// Administrators, comma-separated: each gets a user certificate, and DIR/admin-acl.xml
    /// holds the yarn.acl.enable and yarn.admin.acl properties naming them, for every
    /// ResourceManager's yarn-site.xml.
    #[arg(long, value_delimiter = ',', value_name = "USERS")]
    pub admins: Vec<String>,
    /// Overwrite existing files.
    #[arg(long)]
    pub force: bool,
}

/// Arguments of `yarn-ha pki issue`.
#[derive(Debug, Args)]
pub struct PkiIssueArgs {
    /// Directory holding ca.pem and ca-key.pem.
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
    /// resourcemanager, nodemanager or user.
    #[arg(long)]
    pub role: yarn_security::Role,
    /// The RM id, NM host name or user name the certificate is for.
    #[arg(long)]
    pub name: String,
    /// Extra DNS names or IP addresses for the certificate, comma-separated.
    #[arg(long, value_delimiter = ',', value_name = "HOSTS")]
    pub hosts: Vec<String>,
    /// Also write FILE, a PKCS#12 bundle of the certificate, its key and the CA certificate,
    /// for importing into a browser. Its password comes from --pkcs12-password-file, else from
    /// the YARN_HA_PKCS12_PASSWORD environment variable; never from the command line, where
    /// other users of the host could read it.
    #[arg(long, value_name = "FILE")]
    pub pkcs12: Option<PathBuf>,
    /// The file whose first line is the PKCS#12 bundle's password.
    #[arg(
        long = "pkcs12-password-file",
        value_name = "FILE",
        requires = "pkcs12"
    )]
    pub pkcs12_password_file: Option<PathBuf>,
    /// Overwrite existing files.
    #[arg(long)]
    pub force: bool,
}

/// `yarn-ha conf ...`
#[derive(Debug, Subcommand)]
pub enum ConfCommand {
    /// Print the effective value of a key and where it came from.
    Get(ConfGetArgs),
    /// Validate yarn-site.xml and capacity-scheduler.xml; exits 1 with positioned messages.
    Check(ConfCheckArgs),
    /// Write the yarn-site.xml and core-site.xml a Hadoop client (YarnClient, spark-submit)
    /// needs to reach this cluster over Hadoop IPC, HA included.
    HadoopClient(ConfHadoopClientArgs),
}

/// Arguments of `yarn-ha schedulerconf`, Hadoop's options.
#[derive(Debug, Args)]
#[command(group(
    clap::ArgGroup::new("change")
        .multiple(true)
        .args(["add", "remove", "update", "global"])
        .conflicts_with_all(["format", "get_conf", "versions", "restore"])
))]
pub struct SchedulerConfArgs {
    /// Add queues with their keys: "root.a.b:capacity=10,state=RUNNING;root.a.c:capacity=0"
    /// (`\,` is a comma inside a value).
    #[arg(long = "add", visible_alias = "addQueues", value_name = "QUEUES")]
    pub add: Option<String>,
    /// Remove queues (each STOPPED, without running applications): "root.a.b;root.a.c".
    #[arg(long = "remove", visible_alias = "removeQueues", value_name = "QUEUES")]
    pub remove: Option<String>,
    /// Update queues' keys: "root.a:capacity=40,maximum-capacity=" (`key=` unsets the key).
    #[arg(long = "update", visible_alias = "updateQueues", value_name = "QUEUES")]
    pub update: Option<String>,
    /// Set global keys, full names: "yarn.scheduler.capacity.maximum-applications=500".
    #[arg(long = "global", visible_alias = "globalUpdates", value_name = "KEYS")]
    pub global: Option<String>,
    /// Commit capacity-scheduler.xml again in place of the configuration in force.
    #[arg(
        long = "format",
        visible_alias = "formatConfig",
        conflicts_with_all = ["get_conf", "versions", "restore"]
    )]
    pub format: bool,
    /// Print the configuration in force, or the kept VERSION, as Hadoop's XML.
    #[arg(
        long = "getconf",
        visible_alias = "getConf",
        value_name = "VERSION",
        num_args = 0..=1,
        conflicts_with_all = ["versions", "restore"]
    )]
    pub get_conf: Option<Option<u64>>,
    /// Print the version in force and the replaced versions kept
    /// (yarn.scheduler.configuration.max.version).
    #[arg(long = "versions", conflicts_with = "restore")]
    pub versions: bool,
    /// Commit the kept VERSION again as the next version, checked as a refresh.
    #[arg(long = "restore", value_name = "VERSION")]
    pub restore: Option<u64>,
}

/// `yarn-ha placement` subcommands.
#[derive(Debug, Subcommand)]
pub enum PlacementCommand {
    /// Print as a JSON rule document (`mapping-rule-format=json`) the legacy mappings read
    /// from FILE or standard input: a capacity-scheduler.xml (its
    /// yarn.scheduler.capacity.queue-mappings and yarn.scheduler.queue-placement-rules.app-name),
    /// or the entries themselves, comma- or line-separated: entries starting `u:` or `g:` (or
    /// of three parts) as user and group mappings, the others (`name:queue`) as
    /// application-name mappings.
    Convert(PlacementConvertArgs),
}

/// Arguments of `yarn-ha placement convert`.
#[derive(Debug, Args)]
pub struct PlacementConvertArgs {
    /// The file to read; standard input when absent.
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
}

/// Arguments of `yarn-ha conf hadoop-client`.
#[derive(Debug, Args)]
pub struct ConfHadoopClientArgs {
    /// The directory to write into (a Hadoop client's HADOOP_CONF_DIR); made if missing.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Point ApplicationMasters' scheduler address at this AMRMProxy instead of the
    /// ResourceManagers (`localhost:8049` when every node runs the proxy on its default port):
    /// for the configuration an AM reads on a node whose NodeManager fronts it.
    #[arg(long, value_name = "HOST:PORT", value_parser = clap::value_parser!(yarn_conf::HostPort))]
    pub amrmproxy: Option<yarn_conf::HostPort>,
}

/// Arguments of `yarn-ha conf check`.
#[derive(Debug, Args)]
pub struct ConfCheckArgs {
    /// Skip the checks that open files named by keys (certificates and keys), e.g. when checking
    /// a configuration away from the hosts it is meant for.
    #[arg(long = "no-files")]
    pub no_files: bool,
}

/// Arguments of `yarn-ha conf get`.
#[derive(Debug, Args)]
pub struct ConfGetArgs {
    /// The key, e.g. yarn.resourcemanager.ha.rm-ids.
    pub key: String,
}

/// Rewrites Hadoop's single-dash long options (`-getServiceState`) to clap's `--getServiceState`.
///
/// Only words of a dash and two or more characters starting with a letter are rewritten, so
/// negative numbers and single-letter short flags (`-h`) keep their meaning. The program name and
/// everything after a bare `--` are left alone.
pub fn hadoop_style_args<I>(args: I) -> Vec<String>
where
    I: IntoIterator<Item = String>,
{
    let mut out = Vec::new();
    let mut passthrough = false;
    for (index, arg) in args.into_iter().enumerate() {
        if index == 0 || passthrough {
            out.push(arg);
            continue;
        }
        if arg == "--" {
            passthrough = true;
            out.push(arg);
            continue;
        }
        let bytes = arg.as_bytes();
        let hadoop_long = bytes.len() > 2
            && bytes[0] == b'-'
            && bytes[1].is_ascii_alphabetic()
            && bytes[2] != b'=';
        if hadoop_long {
            out.push(format!("-{arg}"));
        } else {
            out.push(arg);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewrite(args: &[&str]) -> Vec<String> {
        hadoop_style_args(args.iter().map(|s| s.to_string()))
    }

    #[test]
    fn single_dash_long_options_become_double_dash() {
        assert_eq!(
            rewrite(&["yarn-ha", "rmadmin", "-getServiceState", "rm1"]),
            ["yarn-ha", "rmadmin", "--getServiceState", "rm1"]
        );
    }

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(rewrite(args))
    }

    /// The usage error for `args`, checked to exit with status 2 like every usage error.
    fn must_refuse(args: &[&str]) -> String {
        let err = parse(args).expect_err("the command line should be refused");
        assert_eq!(err.exit_code(), 2, "{args:?}: {err}");
        err.to_string()
    }

    #[test]
    fn bad_ids_are_usage_errors_naming_the_option_the_input_and_the_expected_form() {
        for (args, option, expected_form) in [
            (
                &["yarn-ha", "application", "-status", "foo"][..],
                "--status",
                "application_<clusterTimestamp>_<appId>",
            ),
            (
                &["yarn-ha", "application", "-kill", "foo"],
                "--kill",
                "application_<clusterTimestamp>_<appId>",
            ),
            (
                &[
                    "yarn-ha",
                    "application",
                    "-movetoqueue",
                    "foo",
                    "-queue",
                    "a",
                ],
                "--movetoqueue",
                "application_<clusterTimestamp>_<appId>",
            ),
            (
                &["yarn-ha", "applicationattempt", "-list", "foo"],
                "--list",
                "application_<clusterTimestamp>_<appId>",
            ),
            (
                // An application id where an attempt id belongs.
                &["yarn-ha", "container", "-list", "foo"],
                "--list",
                "appattempt_<clusterTimestamp>_<appId>_<attemptId>",
            ),
            (
                &["yarn-ha", "node", "-status", "foo"],
                "--status",
                "<host>:<port>",
            ),
        ] {
            let message = must_refuse(args);
            assert!(message.contains(option), "{args:?}: {message}");
            assert!(message.contains("\"foo\""), "{args:?}: {message}");
            assert!(message.contains(expected_form), "{args:?}: {message}");
        }
    }

    #[test]
    fn bad_state_words_are_usage_errors_naming_the_word_and_the_choices() {
        let message = must_refuse(&[
            "yarn-ha",
            "application",
            "-list",
            "-appStates",
            "RUNNING,DONE",
        ]);
        assert!(message.contains("\"DONE\""), "{message}");
        assert!(message.contains("ALL or one of NEW"), "{message}");
        let message = must_refuse(&["yarn-ha", "node", "-list", "-states", "BROKEN"]);
        assert!(message.contains("\"BROKEN\""), "{message}");
        assert!(message.contains("UNHEALTHY"), "{message}");
    }

    #[test]
    fn movetoqueue_needs_a_queue_and_each_command_one_action() {
        for args in [
            &[
                "yarn-ha",
                "application",
                "-movetoqueue",
                "application_1_0001",
            ][..],
            &[
                "yarn-ha",
                "application",
                "-list",
                "-kill",
                "application_1_0001",
            ],
            &["yarn-ha", "applicationattempt"],
            &["yarn-ha", "container"],
            &["yarn-ha", "node"],
        ] {
            must_refuse(args);
        }
    }

    #[test]
    fn hadoop_forms_of_the_user_commands_parse() {
        let cli = parse(&[
            "yarn-ha",
            "application",
            "-list",
            "-appStates",
            "running,ALL",
            "-appTypes",
            "MAPREDUCE,spark",
        ])
        .unwrap();
        let Command::Application(args) = cli.command else {
            panic!("not application: {cli:?}");
        };
        assert!(args.list);
        assert_eq!(
            args.app_states,
            [
                ApplicationStateArg::State(yarn_proto::pb::YarnApplicationStateProto::Running),
                ApplicationStateArg::All
            ]
        );
        assert_eq!(args.app_types, ["MAPREDUCE", "spark"]);

        let cli = parse(&[
            "yarn-ha",
            "container",
            "-list",
            "appattempt_1700000000000_0004_000002",
        ])
        .unwrap();
        let Command::Container(args) = cli.command else {
            panic!("not container: {cli:?}");
        };
        assert_eq!(
            args.list.to_string(),
            "appattempt_1700000000000_0004_000002"
        );

        let cli = parse(&["yarn-ha", "node", "-list", "-all", "-states", "LOST,new"]).unwrap();
        let Command::Node(args) = cli.command else {
            panic!("not node: {cli:?}");
        };
        assert!(args.list && args.all);
        assert_eq!(
            args.states,
            [
                NodeStateArg(yarn_proto::pb::NodeStateProto::NsLost),
                NodeStateArg(yarn_proto::pb::NodeStateProto::NsNew)
            ]
        );
    }

    #[test]
    fn top_takes_hadoops_options_and_refuses_bad_numbers_naming_the_option() {
        let cli = parse(&[
            "yarn-ha",
            "top",
            "-queues",
            "root.a,root.b",
            "-users",
            "alice",
            "-types",
            "spark",
            "-cols",
            "120",
            "-rows",
            "40",
            "-delay",
            "5",
            "--iterations",
            "2",
        ])
        .unwrap();
        let Command::Top(args) = cli.command else {
            panic!("not top: {cli:?}");
        };
        assert_eq!(args.queues, ["root.a", "root.b"]);
        assert_eq!(args.users, ["alice"]);
        assert_eq!(args.types, ["spark"]);
        assert_eq!((args.cols, args.rows), (Some(120), Some(40)));
        assert_eq!((args.delay, args.iterations), (5, Some(2)));

        let Command::Top(defaults) = parse(&["yarn-ha", "top"]).unwrap().command else {
            panic!("not top");
        };
        assert_eq!(
            (defaults.delay, defaults.iterations),
            (3, None),
            "Hadoop's 3 s"
        );

        for (args, option, value) in [
            (&["yarn-ha", "top", "-delay", "0"][..], "--delay", "0"),
            (&["yarn-ha", "top", "-delay", "soon"], "--delay", "soon"),
            (&["yarn-ha", "top", "-cols", "0"], "--cols", "0"),
            (&["yarn-ha", "top", "-rows", "70000"], "--rows", "70000"),
            (
                &["yarn-ha", "top", "--iterations", "0"],
                "--iterations",
                "0",
            ),
        ] {
            let message = must_refuse(args);
            assert!(message.contains(option), "{args:?}: {message}");
            assert!(
                message.contains(&format!("'{value}'")),
                "{args:?}: {message}"
            );
        }
    }

    #[test]
    fn short_flags_negative_numbers_and_passthrough_are_kept() {
        assert_eq!(
            rewrite(&["yarn-ha", "-h", "x", "-1", "--list", "--", "-keep"]),
            ["yarn-ha", "-h", "x", "-1", "--list", "--", "-keep"]
        );
    }
}
