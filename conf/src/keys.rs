//! Every configuration key the project reads, with its Hadoop name, default and type.
//!
//! Constant names follow Hadoop's `YarnConfiguration` (`RM_ADDRESS`, `NM_PMEM_MB`, ...); keys that
//! Hadoop does not have live under the same prefixes (`yarn.resourcemanager.ha.raft.*`,
//! `yarn.tls.*`). Units are part of the key name (`-ms`, `-secs`, `-mb`).
//!
//! Adding a key means adding it here, to [`ALL`], and to `conf/yarn-default.xml` with the same
//! default and a description, in the same change: a test fails when the two disagree.

use crate::key::{Key, KeyKind};

/// Whether ResourceManager high availability is on.
pub const RM_HA_ENABLED: Key = Key::new("yarn.resourcemanager.ha.enabled", "false", KeyKind::Bool);
/// The ids of the ResourceManagers in the HA group, e.g. `rm1,rm2,rm3`.
pub const RM_HA_IDS: Key = Key::new("yarn.resourcemanager.ha.rm-ids", "", KeyKind::List);
/// The id of this ResourceManager among [`RM_HA_IDS`].
pub const RM_HA_ID: Key = Key::new("yarn.resourcemanager.ha.id", "", KeyKind::String);
/// The cluster's name, shared by every ResourceManager of one HA group.
pub const RM_CLUSTER_ID: Key = Key::new(
    "yarn.resourcemanager.cluster-id",
    "yarn_cluster",
    KeyKind::String,
);
/// The ResourceManager host that the address keys derive from.
pub const RM_HOSTNAME: Key =
    Key::new("yarn.resourcemanager.hostname", "0.0.0.0", KeyKind::String).per_id();
/// The client endpoint (ApplicationClientProtocol).
pub const RM_ADDRESS: Key = Key::new(
    "yarn.resourcemanager.address",
    "${yarn.resourcemanager.hostname}:8032",
    KeyKind::HostPort,
)
.per_id();
/// The ApplicationMaster endpoint (ApplicationMasterProtocol).
pub const RM_SCHEDULER_ADDRESS: Key = Key::new(
    "yarn.resourcemanager.scheduler.address",
    "${yarn.resourcemanager.hostname}:8030",
    KeyKind::HostPort,
)
.per_id();
/// The NodeManager endpoint (registration and heartbeats).
pub const RM_RESOURCE_TRACKER_ADDRESS: Key = Key::new(
    "yarn.resourcemanager.resource-tracker.address",
    "${yarn.resourcemanager.hostname}:8031",
    KeyKind::HostPort,
)
.per_id();
/// The admin endpoint (`rmadmin`).
pub const RM_ADMIN_ADDRESS: Key = Key::new(
    "yarn.resourcemanager.admin.address",
    "${yarn.resourcemanager.hostname}:8033",
    KeyKind::HostPort,
)
.per_id();
/// The web UI and REST endpoint.
pub const RM_WEBAPP_ADDRESS: Key = Key::new(
    "yarn.resourcemanager.webapp.address",
    "${yarn.resourcemanager.hostname}:8088",
    KeyKind::HostPort,
)
.per_id();
/// The Raft peer endpoint between ResourceManagers.
pub const RM_HA_RAFT_ADDRESS: Key = Key::new(
    "yarn.resourcemanager.ha.raft.address",
    "${yarn.resourcemanager.hostname}:8035",
    KeyKind::HostPort,
)
.per_id();
/// Where a ResourceManager keeps its Raft log and snapshots.
pub const RM_HA_RAFT_STORAGE_DIR: Key = Key::new(
    "yarn.resourcemanager.ha.raft.storage-dir",
    "/tmp/yarn-ha/rm-raft",
    KeyKind::String,
);
/// Whether a lost leader is replaced without an operator: Raft elections run on their own and
/// rmadmin's manual transitions need `--forcemanual`.
pub const RM_HA_AUTOMATIC_FAILOVER_ENABLED: Key = Key::new(
    "yarn.resourcemanager.ha.automatic-failover.enabled",
    "true",
    KeyKind::Bool,
);
/// How often the Raft leader sends heartbeats to followers.
pub const RM_HA_RAFT_HEARTBEAT_INTERVAL_MS: Key = Key::new(
    "yarn.resourcemanager.ha.raft.heartbeat-interval-ms",
    "50",
    KeyKind::Duration,
);
/// The lower bound of a follower's randomised election timeout.
pub const RM_HA_RAFT_ELECTION_TIMEOUT_MIN_MS: Key = Key::new(
    "yarn.resourcemanager.ha.raft.election-timeout-min-ms",
    "200",
    KeyKind::Duration,
);
/// The upper bound of a follower's randomised election timeout; also the leader lease.
pub const RM_HA_RAFT_ELECTION_TIMEOUT_MAX_MS: Key = Key::new(
    "yarn.resourcemanager.ha.raft.election-timeout-max-ms",
    "300",
    KeyKind::Duration,
);
/// A replica snapshots its state after this many log entries since the last snapshot.
pub const RM_HA_RAFT_SNAPSHOT_LOG_ENTRIES: Key = Key::new(
    "yarn.resourcemanager.ha.raft.snapshot-log-entries",
    "10000",
    KeyKind::Long,
);
/// How long one Raft RPC between replicas may take before the peer counts as unreachable.
pub const RM_HA_RAFT_RPC_TIMEOUT_MS: Key = Key::new(
    "yarn.resourcemanager.ha.raft.rpc-timeout-ms",
    "1000",
    KeyKind::Duration,
);
/// How often NodeManagers heartbeat, as dictated by the ResourceManager.
pub const RM_NM_HEARTBEAT_INTERVAL_MS: Key = Key::new(
    "yarn.resourcemanager.nodemanagers.heartbeat-interval-ms",
    "1000",
    KeyKind::Duration,
);
/// How long without a heartbeat before a NodeManager is declared lost.
pub const RM_NM_EXPIRY_INTERVAL_MS: Key = Key::new(
    "yarn.nm.liveness-monitor.expiry-interval-ms",
    "600000",
    KeyKind::Duration,
);
/// How long without an allocate call before an ApplicationMaster attempt is declared lost.
pub const RM_AM_EXPIRY_INTERVAL_MS: Key = Key::new(
    "yarn.am.liveness-monitor.expiry-interval-ms",
    "600000",
    KeyKind::Duration,
);
/// How often the leader kills the applications whose lifetime has ended.
pub const RM_APPLICATION_TIMEOUTS_MONITOR_INTERVAL_MS: Key = Key::new(
    "yarn.resourcemanager.application-timeouts.monitor.interval-ms",
    "3000",
    KeyKind::Duration,
);
/// The most ApplicationMaster attempts an application gets.
pub const RM_AM_MAX_ATTEMPTS: Key =
    Key::new("yarn.resourcemanager.am.max-attempts", "2", KeyKind::Int);
/// How long a new leader waits for NodeManagers to resync before scheduling.
pub const RM_WORK_PRESERVING_RECOVERY_SCHEDULING_WAIT_MS: Key = Key::new(
    "yarn.resourcemanager.work-preserving-recovery.scheduling-wait-ms",
    "10000",
    KeyKind::Duration,
);
/// How often the AMRMToken master key rolls.
pub const RM_AMRM_TOKEN_MASTER_KEY_ROLLING_INTERVAL_SECS: Key = Key::new(
    "yarn.resourcemanager.am-rm-tokens.master-key-rolling-interval-secs",
    "86400",
    KeyKind::Duration,
);
/// How often the container token master key rolls.
pub const RM_CONTAINER_TOKEN_MASTER_KEY_ROLLING_INTERVAL_SECS: Key = Key::new(
    "yarn.resourcemanager.container-tokens.master-key-rolling-interval-secs",
    "86400",
    KeyKind::Duration,
);
/// How often the NM token master key rolls.
pub const RM_NMTOKEN_MASTER_KEY_ROLLING_INTERVAL_SECS: Key = Key::new(
    "yarn.resourcemanager.nm-tokens.master-key-rolling-interval-secs",
    "86400",
    KeyKind::Duration,
);
/// How long an allocated container may stay unlaunched before it is reclaimed.
pub const RM_CONTAINER_ALLOC_EXPIRY_INTERVAL_MS: Key = Key::new(
    "yarn.resourcemanager.rm.container-allocation.expiry-interval-ms",
    "600000",
    KeyKind::Duration,
);
/// How many finished applications the ResourceManager keeps; the oldest beyond it are
/// forgotten.
pub const RM_MAX_COMPLETED_APPLICATIONS: Key = Key::new(
    "yarn.resourcemanager.max-completed-applications",
    "1000",
    KeyKind::Int,
);
/// How many finished applications the state store keeps; yarn-ha's state store is its
/// replicated state, so the smaller of this and the in-memory figure applies.
pub const RM_STATE_STORE_MAX_COMPLETED_APPLICATIONS: Key = Key::new(
    "yarn.resourcemanager.state-store.max-completed-applications",
    "${yarn.resourcemanager.max-completed-applications}",
    KeyKind::Int,
);
/// Whether every container update (increases and promotions too, not only decreases and
/// demotions) reaches the NodeManager in its heartbeat.
pub const RM_AUTO_UPDATE_CONTAINERS: Key = Key::new(
    "yarn.resourcemanager.auto-update.containers",
    "false",
    KeyKind::Bool,
);
/// Whether node labels (partitions) may be used: the admin verbs that change them, and asks
/// that name one. Off, every node is in the default partition.
pub const NODE_LABELS_ENABLED: Key = Key::new("yarn.node-labels.enabled", "false", KeyKind::Bool);
/// Where the CapacityScheduler's queue configuration lives: `file` (capacity-scheduler.xml,
/// changed by `-refreshQueues`), or a mutable store (`memory`, `leveldb`, `zk`, `fs`), which in
/// yarn-ha is the replicated state itself, changed through the mutation API.
pub const SCHEDULER_CONFIGURATION_STORE_CLASS: Key = Key::new(
    "yarn.scheduler.configuration.store.class",
    "file",
    KeyKind::String,
);
/// Who may change the queue configuration through the mutation API: Hadoop's default policy
/// (administrators) or its queue-admin policy.
pub const SCHEDULER_CONFIGURATION_MUTATION_ACL_POLICY_CLASS: Key = Key::new(
    "yarn.scheduler.configuration.mutation.acl-policy.class",
    "org.apache.hadoop.yarn.server.resourcemanager.scheduler.DefaultConfigurationMutationACLPolicy",
    KeyKind::String,
);
/// How many queue configurations a change replaced the replicated state keeps, to be read
/// and restored; 0 keeps none.
pub const SCHEDULER_CONFIGURATION_MAX_VERSION: Key = Key::new(
    "yarn.scheduler.configuration.max.version",
    "100",
    KeyKind::Int,
);
/// The first pause of a client between failover attempts; later pauses grow exponentially.
pub const CLIENT_FAILOVER_SLEEP_BASE_MS: Key = Key::new(
    "yarn.client.failover-sleep-base-ms",
    "100",
    KeyKind::Duration,
);
/// The longest pause of a client between failover attempts.
pub const CLIENT_FAILOVER_SLEEP_MAX_MS: Key = Key::new(
    "yarn.client.failover-sleep-max-ms",
    "2000",
    KeyKind::Duration,
);
/// How many times a client fails over before it gives up on a call.
pub const CLIENT_FAILOVER_MAX_ATTEMPTS: Key =
    Key::new("yarn.client.failover-max-attempts", "15", KeyKind::Int);
/// How long a client keeps retrying a NodeManager that is not ready for a call yet (it has not
/// registered with the RM that issued the container's token).
pub const CLIENT_NODEMANAGER_CONNECT_MAX_WAIT_MS: Key = Key::new(
    "yarn.client.nodemanager-connect.max-wait-ms",
    "180000",
    KeyKind::Duration,
);
/// The pause between those retries.
pub const CLIENT_NODEMANAGER_CONNECT_RETRY_INTERVAL_MS: Key = Key::new(
    "yarn.client.nodemanager-connect.retry-interval-ms",
    "10000",
    KeyKind::Duration,
);
/// The CapacityScheduler's placement rules by application name: `name:queue` entries.
pub const QUEUE_PLACEMENT_RULES_APP_NAME: Key = Key::new(
    "yarn.scheduler.queue-placement-rules.app-name",
    "",
    KeyKind::String,
);
/// Whether ACLs are checked.
pub const YARN_ACL_ENABLE: Key = Key::new("yarn.acl.enable", "false", KeyKind::Bool);
/// Who may administer the cluster, in `users groups` ACL form.
pub const YARN_ADMIN_ACL: Key = Key::new("yarn.admin.acl", "*", KeyKind::String);
/// How a user's groups are found for group entries of ACLs: a Hadoop mapping class name.
pub const HADOOP_SECURITY_GROUP_MAPPING: Key = Key::new(
    "hadoop.security.group.mapping",
    "org.apache.hadoop.security.JniBasedUnixGroupsMappingWithFallback",
    KeyKind::String,
);
/// Fixed groups for some users, ahead of the mapping: `user=group1,group2;user2=;`.
pub const HADOOP_USER_GROUP_STATIC_MAPPING_OVERRIDES: Key = Key::new(
    "hadoop.user.group.static.mapping.overrides",
    "dr.who=;",
    KeyKind::String,
);
/// How long a user's groups are remembered.
pub const HADOOP_SECURITY_GROUPS_CACHE_SECS: Key = Key::new(
    "hadoop.security.groups.cache.secs",
    "300",
    KeyKind::Duration,
);
/// How long a user found in no group is remembered as such.
pub const HADOOP_SECURITY_GROUPS_NEGATIVE_CACHE_SECS: Key = Key::new(
    "hadoop.security.groups.negative-cache.secs",
    "30",
    KeyKind::Duration,
);
/// The pause between two asynchronous scheduling passes of the leader. Hadoop reads it from
/// `capacity-scheduler.xml`; here it is a `yarn-site.xml` setting of each replica, since it
/// only paces the leader and need not be replicated.
pub const SCHEDULER_ASYNC_SCHEDULING_INTERVAL_MS: Key = Key::new(
    "yarn.scheduler.capacity.schedule-asynchronously.scheduling-interval-ms",
    "5",
    KeyKind::Duration,
);
/// The smallest container, in MB; asks are rounded up to a multiple of it.
pub const SCHEDULER_MINIMUM_ALLOCATION_MB: Key =
    Key::new("yarn.scheduler.minimum-allocation-mb", "1024", KeyKind::Int);
/// The largest container, in MB; larger asks are rejected.
pub const SCHEDULER_MAXIMUM_ALLOCATION_MB: Key =
    Key::new("yarn.scheduler.maximum-allocation-mb", "8192", KeyKind::Int);
/// The smallest container, in virtual cores.
pub const SCHEDULER_MINIMUM_ALLOCATION_VCORES: Key = Key::new(
    "yarn.scheduler.minimum-allocation-vcores",
    "1",
    KeyKind::Int,
);
/// The largest container, in virtual cores; larger asks are rejected.
pub const SCHEDULER_MAXIMUM_ALLOCATION_VCORES: Key = Key::new(
    "yarn.scheduler.maximum-allocation-vcores",
    "4",
    KeyKind::Int,
);
/// The highest application priority; higher ones are lowered to it.
pub const CLUSTER_MAX_APPLICATION_PRIORITY: Key =
    Key::new("yarn.cluster.max-application-priority", "0", KeyKind::Int);
/// The most bytes of submission context replicated for one application; Hadoop bounds its
/// state store's per-application node with this key.
pub const RM_ZK_MAX_ZNODE_SIZE_BYTES: Key = Key::new(
    "yarn.resourcemanager.zk-max-znode-size.bytes",
    "1048576",
    KeyKind::Int,
);
/// The most tags one application may carry.
pub const APPLICATION_MAX_TAGS: Key = Key::new("yarn.application.max-tags", "10", KeyKind::Int);
/// The longest application tag, in characters.
pub const APPLICATION_MAX_TAG_LENGTH: Key =
    Key::new("yarn.application.max-tag.length", "100", KeyKind::Int);
/// How many thousand characters (times 1024) of an attempt's diagnostics are kept.
pub const APP_ATTEMPT_DIAGNOSTICS_LIMIT_KC: Key =
    Key::new("yarn.app.attempt.diagnostics.limit.kc", "64", KeyKind::Int);
/// The most asks one allocate may carry (yarn-ha only: Hadoop has no such bound).
pub const RM_SCHEDULER_MAX_ASKS_PER_ALLOCATE: Key = Key::new(
    "yarn.resourcemanager.scheduler.max-asks-per-allocate",
    "20000",
    KeyKind::Int,
);
/// The NodeManager host that its address keys derive from.
pub const NM_HOSTNAME: Key = Key::new("yarn.nodemanager.hostname", "0.0.0.0", KeyKind::String);
/// The NodeManager container manager endpoint.
pub const NM_ADDRESS: Key = Key::new(
    "yarn.nodemanager.address",
    "${yarn.nodemanager.hostname}:8041",
    KeyKind::HostPort,
);
/// The NodeManager web UI and REST endpoint.
pub const NM_WEBAPP_ADDRESS: Key = Key::new(
    "yarn.nodemanager.webapp.address",
    "${yarn.nodemanager.hostname}:8042",
    KeyKind::HostPort,
);
/// Memory the NodeManager offers to containers.
pub const NM_PMEM_MB: Key = Key::new(
    "yarn.nodemanager.resource.memory-mb",
    "8192",
    KeyKind::SizeMb,
);
/// Virtual cores the NodeManager offers to containers.
pub const NM_VCORES: Key = Key::new("yarn.nodemanager.resource.cpu-vcores", "8", KeyKind::Int);
/// Directories for container working files.
pub const NM_LOCAL_DIRS: Key = Key::new(
    "yarn.nodemanager.local-dirs",
    "/tmp/yarn-ha/nm-local-dir",
    KeyKind::List,
);
/// Where the NodeManager keeps state that survives its restart.
pub const NM_RECOVERY_DIR: Key = Key::new(
    "yarn.nodemanager.recovery.dir",
    "/tmp/yarn-ha/nm-recovery",
    KeyKind::String,
);
/// Whether the NodeManager keeps its state in `yarn.nodemanager.recovery.dir` so that a restart
/// re-acquires running containers instead of losing them.
pub const NM_RECOVERY_ENABLED: Key =
    Key::new("yarn.nodemanager.recovery.enabled", "true", KeyKind::Bool);
/// Where containers' stdout and stderr go, one directory per application and container.
pub const NM_LOG_DIRS: Key = Key::new(
    "yarn.nodemanager.log-dirs",
    "/tmp/yarn-ha/nm-logs",
    KeyKind::List,
);
/// How long a stopped container has between SIGTERM and SIGKILL.
pub const NM_SLEEP_DELAY_BEFORE_SIGKILL_MS: Key = Key::new(
    "yarn.nodemanager.sleep-delay-before-sigkill.ms",
    "250",
    KeyKind::Duration,
);
/// Whether a container whose process tree's resident memory exceeds its allocation is killed.
pub const NM_PMEM_CHECK_ENABLED: Key =
    Key::new("yarn.nodemanager.pmem-check-enabled", "true", KeyKind::Bool);
/// How often the container monitor measures containers' memory.
pub const NM_CONTAINER_MONITOR_INTERVAL_MS: Key = Key::new(
    "yarn.nodemanager.container-monitor.interval-ms",
    "3000",
    KeyKind::Duration,
);
/// Whether containers' memory must be limited with cgroup v2 (`memory.max`): `true` refuses to
/// start the NodeManager when the cgroup is unusable; `false` uses cgroup v2 when it is usable
/// and the resident-memory check otherwise.
pub const NM_MEMORY_RESOURCE_ENABLED: Key = Key::new(
    "yarn.nodemanager.resource.memory.enabled",
    "false",
    KeyKind::Bool,
);
/// Where the cgroup v2 hierarchy is mounted.
pub const NM_LINUX_CONTAINER_CGROUPS_MOUNT_PATH: Key = Key::new(
    "yarn.nodemanager.linux-container-executor.cgroups.mount-path",
    "/sys/fs/cgroup",
    KeyKind::String,
);
/// The cgroup, below the mount path, delegated to the NodeManager; containers' cgroups are
/// created inside it.
pub const NM_LINUX_CONTAINER_CGROUPS_HIERARCHY: Key = Key::new(
    "yarn.nodemanager.linux-container-executor.cgroups.hierarchy",
    "/hadoop-yarn",
    KeyKind::String,
);
/// How containers run: `default` (real processes) or `simulated` (for scale tests).
pub const NM_CONTAINER_EXECUTOR_CLASS: Key = Key::new(
    "yarn.nodemanager.container-executor.class",
    "default",
    KeyKind::String,
);
/// The NodeManager's environment variables a container gets unless its launch context sets
/// them (written `NAME=${NAME:-"value"}` in the launch script).
pub const NM_ENV_WHITELIST: Key = Key::new(
    "yarn.nodemanager.env-whitelist",
    "JAVA_HOME,HADOOP_COMMON_HOME,HADOOP_HDFS_HOME,HADOOP_CONF_DIR,CLASSPATH_PREPEND_DISTCACHE,\
     HADOOP_YARN_HOME,HADOOP_HOME,PATH,LANG,TZ",
    KeyKind::List,
);
/// `NAME=VALUE` pairs, comma-separated, forced into every container's environment; `$NAME` in
/// a value stands for the container's or else the NodeManager's variable.
pub const NM_ADMIN_USER_ENV: Key = Key::new(
    "yarn.nodemanager.admin-env",
    "MALLOC_ARENA_MAX=$MALLOC_ARENA_MAX",
    KeyKind::String,
);
/// Every container's `HOME`.
pub const NM_USER_HOME_DIR: Key =
    Key::new("yarn.nodemanager.user-home-dir", "/home/", KeyKind::String);
/// Whether the RM places OPPORTUNISTIC asks itself on the least-loaded nodes; otherwise they
/// are allocated as GUARANTEED containers.
pub const RM_OPPORTUNISTIC_CONTAINER_ALLOCATION_ENABLED: Key = Key::new(
    "yarn.resourcemanager.opportunistic-container-allocation.enabled",
    "false",
    KeyKind::Bool,
);
/// Whether the RM runs the scheduling edit policies of [`RM_SCHEDULER_MONITOR_POLICIES`]
/// (container preemption, the periodic refresh of `capacity-scheduler.xml`).
pub const RM_SCHEDULER_ENABLE_MONITORS: Key = Key::new(
    "yarn.resourcemanager.scheduler.monitor.enable",
    "false",
    KeyKind::Bool,
);
/// The scheduling edit policies the RM runs, by Hadoop class name.
pub const RM_SCHEDULER_MONITOR_POLICIES: Key = Key::new(
    "yarn.resourcemanager.scheduler.monitor.policies",
    "org.apache.hadoop.yarn.server.resourcemanager.monitor.capacity.ProportionalCapacityPreemptionPolicy",
    KeyKind::List,
);
/// Milliseconds between two clean-ups of the leader's recorded activities.
pub const RM_ACTIVITIES_MANAGER_CLEANUP_INTERVAL_MS: Key = Key::new(
    "yarn.resourcemanager.activities-manager.cleanup-interval-ms",
    "5000",
    KeyKind::Long,
);
/// Milliseconds a recorded scheduling pass is kept.
pub const RM_ACTIVITIES_MANAGER_SCHEDULER_ACTIVITIES_TTL_MS: Key = Key::new(
    "yarn.resourcemanager.activities-manager.scheduler-activities.ttl-ms",
    "600000",
    KeyKind::Long,
);
/// Milliseconds an application's recorded activities are kept after the last one.
pub const RM_ACTIVITIES_MANAGER_APP_ACTIVITIES_TTL_MS: Key = Key::new(
    "yarn.resourcemanager.activities-manager.app-activities.ttl-ms",
    "600000",
    KeyKind::Long,
);
/// The most activities kept per application (the newest).
pub const RM_ACTIVITIES_MANAGER_APP_ACTIVITIES_MAX_QUEUE_LENGTH: Key = Key::new(
    "yarn.resourcemanager.activities-manager.app-activities.max-queue-length",
    "100",
    KeyKind::Int,
);
/// Milliseconds between two checks of `capacity-scheduler.xml` by the queue auto-refresh
/// policy; the file is committed again when it changed since the last check.
pub const QUEUE_AUTO_REFRESH_MONITORING_INTERVAL: Key = Key::new(
    "yarn.scheduler.capacity.queue.auto.refresh.monitoring-interval",
    "5000",
    KeyKind::Long,
);
/// Milliseconds between two rounds of the queue management policy, which gives the leaves of
/// managed parents their capacity or takes it back.
pub const QUEUE_MANAGEMENT_MONITORING_INTERVAL: Key = Key::new(
    "yarn.resourcemanager.monitor.capacity.queue-management.monitoring-interval",
    "1500",
    KeyKind::Long,
);
/// Milliseconds between two rounds of the proportional preemption policy.
pub const PREEMPTION_MONITORING_INTERVAL: Key = Key::new(
    "yarn.resourcemanager.monitor.capacity.preemption.monitoring_interval",
    "3000",
    KeyKind::Long,
);
/// Milliseconds between asking an application to give a container back and killing it.
pub const PREEMPTION_WAIT_TIME_BEFORE_KILL: Key = Key::new(
    "yarn.resourcemanager.monitor.capacity.preemption.max_wait_before_kill",
    "15000",
    KeyKind::Long,
);
/// The most one round preempts, as a fraction of the cluster.
pub const PREEMPTION_TOTAL_PREEMPTION_PER_ROUND: Key = Key::new(
    "yarn.resourcemanager.monitor.capacity.preemption.total_preemption_per_round",
    "0.1",
    KeyKind::Float,
);
/// How far above its guarantee a queue may be before anything is taken from it.
pub const PREEMPTION_MAX_IGNORED_OVER_CAPACITY: Key = Key::new(
    "yarn.resourcemanager.monitor.capacity.preemption.max_ignored_over_capacity",
    "0.1",
    KeyKind::Float,
);
/// The fraction of what a queue is over-served by that one round takes back.
pub const PREEMPTION_NATURAL_TERMINATION_FACTOR: Key = Key::new(
    "yarn.resourcemanager.monitor.capacity.preemption.natural_termination_factor",
    "0.2",
    KeyKind::Float,
);
/// Whether the preemption policy only computes, without asking for or killing containers.
pub const PREEMPTION_OBSERVE_ONLY: Key = Key::new(
    "yarn.resourcemanager.monitor.capacity.preemption.observe_only",
    "false",
    KeyKind::Bool,
);
/// Whether the preemption policy also preempts within a queue, by application priority and
/// user limit.
pub const PREEMPTION_INTRA_QUEUE_ENABLED: Key = Key::new(
    "yarn.resourcemanager.monitor.capacity.preemption.intra-queue-preemption.enabled",
    "false",
    KeyKind::Bool,
);
/// The fraction of its guarantee a queue must use before it preempts among its own
/// applications.
pub const PREEMPTION_INTRA_QUEUE_MINIMUM_THRESHOLD: Key = Key::new(
    "yarn.resourcemanager.monitor.capacity.preemption.intra-queue-preemption.minimum-threshold",
    "0.5",
    KeyKind::Float,
);
/// The most a queue takes back from its own applications in one round, as a fraction of its
/// guarantee.
pub const PREEMPTION_INTRA_QUEUE_MAX_ALLOWABLE_LIMIT: Key = Key::new(
    "yarn.resourcemanager.monitor.capacity.preemption.intra-queue-preemption.max-allowable-limit",
    "0.2",
    KeyKind::Float,
);
/// Who gives first within a queue: `userlimit_first` or `priority_first`.
pub const PREEMPTION_INTRA_QUEUE_ORDER_POLICY: Key = Key::new(
    "yarn.resourcemanager.monitor.capacity.preemption.intra-queue-preemption.preemption-order-policy",
    "userlimit_first",
    KeyKind::String,
);
/// Whether preemption also frees nodes for reserved containers; yarn-ha's scheduler reserves
/// none, so only false is accepted.
pub const PREEMPTION_SELECT_BASED_ON_RESERVED_CONTAINERS: Key = Key::new(
    "yarn.resourcemanager.monitor.capacity.preemption.select_based_on_reserved_containers",
    "false",
    KeyKind::Bool,
);
/// Whether the RM runs the ReservationSystem: users reserve capacity of reservable queues ahead
/// of time.
pub const RM_RESERVATION_SYSTEM_ENABLE: Key = Key::new(
    "yarn.resourcemanager.reservation-system.enable",
    "false",
    KeyKind::Bool,
);
/// The ReservationSystem's class; for the CapacityScheduler, Hadoop's (and the only one yarn-ha
/// has) is `CapacityReservationSystem`.
pub const RM_RESERVATION_SYSTEM_CLASS: Key = Key::new(
    "yarn.resourcemanager.reservation-system.class",
    "org.apache.hadoop.yarn.server.resourcemanager.reservation.CapacityReservationSystem",
    KeyKind::String,
);
/// The plan follower's class; for the CapacityScheduler, `CapacitySchedulerPlanFollower`.
pub const RM_RESERVATION_SYSTEM_PLAN_FOLLOWER: Key = Key::new(
    "yarn.resourcemanager.reservation-system.plan.follower",
    "org.apache.hadoop.yarn.server.resourcemanager.reservation.CapacitySchedulerPlanFollower",
    KeyKind::String,
);
/// Milliseconds between two runs of the plan follower, and the time step of every plan.
pub const RM_RESERVATION_SYSTEM_PLAN_FOLLOWER_TIME_STEP: Key = Key::new(
    "yarn.resourcemanager.reservation-system.planfollower.time-step",
    "1000",
    KeyKind::Long,
);
/// Whether reservations are placed as early as their arrival allows (true) or as late as their
/// deadline allows.
pub const RM_RESERVATION_SYSTEM_FAVOR_EARLY_ALLOCATION: Key = Key::new(
    "yarn.resourcemanager.reservation-system.favor-early-allocation",
    "true",
    KeyKind::Bool,
);
/// Whether the per-queue reservation ACLs apply (with `yarn.acl.enable`); yarn-ha does not
/// enforce them yet, so only false is accepted.
pub const YARN_ACL_RESERVATION_ENABLE: Key =
    Key::new("yarn.acl.reservation-enable", "false", KeyKind::Bool);
/// How many least-loaded nodes the opportunistic allocator uses (and sends to NMs).
pub const RM_OPPORTUNISTIC_CONTAINER_ALLOCATION_NODES_USED: Key = Key::new(
    "yarn.resourcemanager.opportunistic-container-allocation.nodes-used",
    "10",
    KeyKind::Int,
);
/// Most OPPORTUNISTIC containers placed for one AM per scheduling round; -1 for no cap.
pub const RM_OPPORTUNISTIC_MAX_ALLOCATION_PER_AM_HEARTBEAT: Key = Key::new(
    "yarn.resourcemanager.opportunistic.max.container-allocation.per.am.heartbeat",
    "-1",
    KeyKind::Int,
);
/// How often the RM re-ranks NodeManagers by load.
pub const NM_CONTAINER_QUEUING_SORTING_NODES_INTERVAL_MS: Key = Key::new(
    "yarn.resourcemanager.nm-container-queuing.sorting-nodes-interval-ms",
    "1000",
    KeyKind::Duration,
);
/// The load metric nodes are ranked by: QUEUE_LENGTH or QUEUE_WAIT_TIME.
pub const NM_CONTAINER_QUEUING_LOAD_COMPARATOR: Key = Key::new(
    "yarn.resourcemanager.nm-container-queuing.load-comparator",
    "QUEUE_LENGTH",
    KeyKind::String,
);
/// k in the queue limit `mean + k * stdev` sent to NodeManagers.
pub const NM_CONTAINER_QUEUING_LIMIT_STDEV: Key = Key::new(
    "yarn.resourcemanager.nm-container-queuing.queue-limit-stdev",
    "1.0",
    KeyKind::Float,
);
/// The smallest queue limit sent to NodeManagers.
pub const NM_CONTAINER_QUEUING_MIN_QUEUE_LENGTH: Key = Key::new(
    "yarn.resourcemanager.nm-container-queuing.min-queue-length",
    "5",
    KeyKind::Int,
);
/// The largest queue limit sent to NodeManagers.
pub const NM_CONTAINER_QUEUING_MAX_QUEUE_LENGTH: Key = Key::new(
    "yarn.resourcemanager.nm-container-queuing.max-queue-length",
    "15",
    KeyKind::Int,
);
/// The smallest queue wait-time limit sent to NodeManagers under the `QUEUE_WAIT_TIME`
/// comparator.
pub const NM_CONTAINER_QUEUING_MIN_QUEUE_WAIT_TIME_MS: Key = Key::new(
    "yarn.resourcemanager.nm-container-queuing.min-queue-wait-time-ms",
    "10",
    KeyKind::Int,
);
/// The largest queue wait-time limit sent to NodeManagers under the `QUEUE_WAIT_TIME`
/// comparator.
pub const NM_CONTAINER_QUEUING_MAX_QUEUE_WAIT_TIME_MS: Key = Key::new(
    "yarn.resourcemanager.nm-container-queuing.max-queue-wait-time-ms",
    "100",
    KeyKind::Int,
);
/// How many OPPORTUNISTIC containers a NodeManager may queue; 0 disables queuing.
pub const NM_OPPORTUNISTIC_CONTAINERS_MAX_QUEUE_LENGTH: Key = Key::new(
    "yarn.nodemanager.opportunistic-containers-max-queue-length",
    "0",
    KeyKind::Int,
);
/// Whether the NodeManager runs the AMRMProxy in front of ApplicationMasters.
pub const AMRM_PROXY_ENABLED: Key =
    Key::new("yarn.nodemanager.amrmproxy.enabled", "false", KeyKind::Bool);
/// The AMRMProxy endpoint.
pub const AMRM_PROXY_ADDRESS: Key = Key::new(
    "yarn.nodemanager.amrmproxy.address",
    "0.0.0.0:8049",
    KeyKind::HostPort,
);
/// Whether OPPORTUNISTIC containers are placed by the AMRMProxy on the ApplicationMaster's node.
pub const DIST_SCHEDULING_ENABLED: Key = Key::new(
    "yarn.nodemanager.distributed-scheduling.enabled",
    "false",
    KeyKind::Bool,
);
/// How many ApplicationMaster calls the AMRMProxy serves at once (Hadoop's RPC handler count for
/// the proxy); further calls wait for a free slot.
pub const AMRM_PROXY_CLIENT_THREAD_COUNT: Key = Key::new(
    "yarn.nodemanager.amrmproxy.client.thread-count",
    "3",
    KeyKind::Int,
);
/// The AMRMProxy's interceptors, first to last, by name (`default`, `distributed-scheduler`,
/// `throttle`, or one registered by the NodeManager); the last one must talk to an RM.
pub const AMRM_PROXY_INTERCEPTOR_CLASS_PIPELINE: Key = Key::new(
    "yarn.nodemanager.amrmproxy.interceptor-class.pipeline",
    "default",
    KeyKind::List,
);
/// The steady rate of allocate calls the `throttle` interceptor lets through per application.
pub const AMRM_PROXY_THROTTLE_MAX_ALLOCATES_PER_SECOND: Key = Key::new(
    "yarn.nodemanager.amrmproxy.throttle.max-allocates-per-second",
    "10",
    KeyKind::Float,
);
/// How many allocate calls the `throttle` interceptor lets through back to back before the rate
/// applies.
pub const AMRM_PROXY_THROTTLE_BURST: Key = Key::new(
    "yarn.nodemanager.amrmproxy.throttle.burst",
    "20",
    KeyKind::Int,
);
/// The longest the `throttle` interceptor holds an allocate call back; a call that would wait
/// longer is refused with RESOURCE_EXHAUSTED.
pub const AMRM_PROXY_THROTTLE_MAX_DELAY_MS: Key = Key::new(
    "yarn.nodemanager.amrmproxy.throttle.max-delay-ms",
    "1000",
    KeyKind::Duration,
);
/// Whether every endpoint uses mutual TLS.
pub const TLS_ENABLED: Key = Key::new("yarn.tls.enabled", "true", KeyKind::Bool);
/// PEM file with the cluster CA certificate.
pub const TLS_CA_CERT: Key = Key::new("yarn.tls.ca-cert", "", KeyKind::String);
/// PEM file with this daemon's or user's certificate.
pub const TLS_CERT: Key = Key::new("yarn.tls.cert", "", KeyKind::String);
/// PEM file with the private key of [`TLS_CERT`]; it must have mode 0600.
pub const TLS_KEY: Key = Key::new("yarn.tls.key", "", KeyKind::String);
/// How many TLS handshakes each listener runs at once; further clients wait to be accepted.
pub const TLS_MAX_PENDING_HANDSHAKES: Key =
    Key::new("yarn.tls.max-pending-handshakes", "128", KeyKind::Int);
/// How many connections one certificate (role and name) may hold open to each listener.
pub const TLS_MAX_CONNECTIONS_PER_IDENTITY: Key = Key::new(
    "yarn.tls.max-connections-per-identity",
    "1024",
    KeyKind::Int,
);
/// How web callers are known; only Hadoop's `simple` (certificates over HTTPS, `user.name`
/// without TLS) is supported, and another value is refused rather than ignored.
pub const HADOOP_HTTP_AUTHENTICATION_TYPE: Key =
    Key::new("hadoop.http.authentication.type", "simple", KeyKind::String);
/// Whether a web caller that proves no name (no client certificate over HTTPS, no `user.name`
/// without TLS) may read, as `dr.who`. Off by default, unlike Hadoop: secure by default.
pub const HADOOP_HTTP_AUTHENTICATION_SIMPLE_ANONYMOUS_ALLOWED: Key = Key::new(
    "hadoop.http.authentication.simple.anonymous.allowed",
    "false",
    KeyKind::Bool,
);
/// Hadoop's IPC client idle time, in milliseconds (read as an integer, as Hadoop does, so the
/// name carries no unit): servers close a connection that carried no bytes for twice this.
pub const IPC_CLIENT_CONNECTION_MAXIDLETIME: Key =
    Key::new("ipc.client.connection.maxidletime", "10000", KeyKind::Int);

/// Whether the ResourceManagers' client and scheduler ports, the NodeManagers' port and the
/// AMRMProxy's port also speak Hadoop's own RPC (IPC version 9), for Hadoop's client libraries
/// and Spark. Off by default: plain Hadoop IPC is not encrypted.
pub const HADOOP_IPC_ENABLED: Key = Key::new("yarn.hadoop-ipc.enabled", "false", KeyKind::Bool);
/// Whether Hadoop IPC callers without a token (YarnClient's submit, report, kill) are served
/// under the user name they claim, with no proof, as Hadoop's `simple` authentication does.
/// Off by default, and only read when `yarn.hadoop-ipc.enabled` is true; ApplicationMasters and
/// NodeManager clients always prove themselves with their tokens.
pub const HADOOP_IPC_SIMPLE_AUTHENTICATION_ENABLED: Key = Key::new(
    "yarn.hadoop-ipc.simple-authentication.enabled",
    "false",
    KeyKind::Bool,
);
/// The largest Hadoop IPC frame a server reads, in bytes (Hadoop's default: 128 MiB).
pub const IPC_MAXIMUM_DATA_LENGTH: Key =
    Key::new("ipc.maximum.data.length", "134217728", KeyKind::Int);
/// Hadoop's RPC authentication: only `simple` (tokens for ApplicationMasters and NodeManager
/// clients, a claimed name for clients) is supported; `kerberos` is refused at start-up.
pub const HADOOP_SECURITY_AUTHENTICATION: Key =
    Key::new("hadoop.security.authentication", "simple", KeyKind::String);
/// Hadoop's SASL quality of protection: only `authentication` is supported (yarn-ha does not
/// wrap Hadoop IPC traffic); `integrity` and `privacy` are refused at start-up.
pub const HADOOP_RPC_PROTECTION: Key =
    Key::new("hadoop.rpc.protection", "authentication", KeyKind::String);
/// How the ResourceManager finds a NodeManager's rack: Hadoop's
/// `org.apache.hadoop.net.ScriptBasedMapping` (the default) or `org.apache.hadoop.net.TableMapping`;
/// any other class is refused at start-up.
pub const NET_TOPOLOGY_NODE_SWITCH_MAPPING_IMPL: Key = Key::new(
    "net.topology.node.switch.mapping.impl",
    "org.apache.hadoop.net.ScriptBasedMapping",
    KeyKind::String,
);
/// The script the script mapping runs with node addresses as arguments, printing one rack each;
/// unset puts every node on `/default-rack`.
pub const NET_TOPOLOGY_SCRIPT_FILE_NAME: Key =
    Key::new("net.topology.script.file.name", "", KeyKind::String);
/// The most addresses the script mapping passes to one run of the script. At least 1.
pub const NET_TOPOLOGY_SCRIPT_NUMBER_ARGS: Key =
    Key::new("net.topology.script.number.args", "100", KeyKind::Int);
/// The `address rack` table the table mapping reads; unset puts every node on `/default-rack`.
pub const NET_TOPOLOGY_TABLE_FILE_NAME: Key =
    Key::new("net.topology.table.file.name", "", KeyKind::String);

/// Every per-id endpoint of a ResourceManager, in the order of [`crate::RmEndpoints`]' fields.
pub const RM_ENDPOINT_KEYS: [Key; 6] = [
    RM_ADDRESS,
    RM_SCHEDULER_ADDRESS,
    RM_RESOURCE_TRACKER_ADDRESS,
    RM_ADMIN_ADDRESS,
    RM_WEBAPP_ADDRESS,
    RM_HA_RAFT_ADDRESS,
];

/// Every key above, in declaration order.
pub const ALL: &[Key] = &[
    RM_HA_ENABLED,
    RM_HA_IDS,
    RM_HA_ID,
    RM_CLUSTER_ID,
    RM_HOSTNAME,
    RM_ADDRESS,
    RM_SCHEDULER_ADDRESS,
    RM_RESOURCE_TRACKER_ADDRESS,
    RM_ADMIN_ADDRESS,
    RM_WEBAPP_ADDRESS,
    RM_HA_RAFT_ADDRESS,
    RM_HA_RAFT_STORAGE_DIR,
    RM_HA_AUTOMATIC_FAILOVER_ENABLED,
    RM_HA_RAFT_HEARTBEAT_INTERVAL_MS,
    RM_HA_RAFT_ELECTION_TIMEOUT_MIN_MS,
    RM_HA_RAFT_ELECTION_TIMEOUT_MAX_MS,
    RM_HA_RAFT_SNAPSHOT_LOG_ENTRIES,
    RM_HA_RAFT_RPC_TIMEOUT_MS,
    RM_NM_HEARTBEAT_INTERVAL_MS,
    RM_NM_EXPIRY_INTERVAL_MS,
    RM_AM_EXPIRY_INTERVAL_MS,
    RM_APPLICATION_TIMEOUTS_MONITOR_INTERVAL_MS,
    RM_AM_MAX_ATTEMPTS,
    RM_WORK_PRESERVING_RECOVERY_SCHEDULING_WAIT_MS,
    RM_AMRM_TOKEN_MASTER_KEY_ROLLING_INTERVAL_SECS,
    RM_CONTAINER_TOKEN_MASTER_KEY_ROLLING_INTERVAL_SECS,
    RM_NMTOKEN_MASTER_KEY_ROLLING_INTERVAL_SECS,
    RM_CONTAINER_ALLOC_EXPIRY_INTERVAL_MS,
    RM_AUTO_UPDATE_CONTAINERS,
    NODE_LABELS_ENABLED,
    SCHEDULER_CONFIGURATION_STORE_CLASS,
    SCHEDULER_CONFIGURATION_MUTATION_ACL_POLICY_CLASS,
    SCHEDULER_CONFIGURATION_MAX_VERSION,
    RM_MAX_COMPLETED_APPLICATIONS,
    RM_STATE_STORE_MAX_COMPLETED_APPLICATIONS,
    CLIENT_FAILOVER_SLEEP_BASE_MS,
    CLIENT_FAILOVER_SLEEP_MAX_MS,
    CLIENT_FAILOVER_MAX_ATTEMPTS,
    CLIENT_NODEMANAGER_CONNECT_MAX_WAIT_MS,
    CLIENT_NODEMANAGER_CONNECT_RETRY_INTERVAL_MS,
    RM_OPPORTUNISTIC_CONTAINER_ALLOCATION_ENABLED,
    RM_OPPORTUNISTIC_CONTAINER_ALLOCATION_NODES_USED,
    RM_OPPORTUNISTIC_MAX_ALLOCATION_PER_AM_HEARTBEAT,
    RM_SCHEDULER_ENABLE_MONITORS,
    RM_SCHEDULER_MONITOR_POLICIES,
    QUEUE_AUTO_REFRESH_MONITORING_INTERVAL,
    QUEUE_MANAGEMENT_MONITORING_INTERVAL,
    RM_ACTIVITIES_MANAGER_CLEANUP_INTERVAL_MS,
    RM_ACTIVITIES_MANAGER_SCHEDULER_ACTIVITIES_TTL_MS,
    RM_ACTIVITIES_MANAGER_APP_ACTIVITIES_TTL_MS,
    RM_ACTIVITIES_MANAGER_APP_ACTIVITIES_MAX_QUEUE_LENGTH,
    PREEMPTION_MONITORING_INTERVAL,
    PREEMPTION_WAIT_TIME_BEFORE_KILL,
    PREEMPTION_TOTAL_PREEMPTION_PER_ROUND,
    PREEMPTION_MAX_IGNORED_OVER_CAPACITY,
    PREEMPTION_NATURAL_TERMINATION_FACTOR,
    PREEMPTION_OBSERVE_ONLY,
    PREEMPTION_INTRA_QUEUE_ENABLED,
    PREEMPTION_INTRA_QUEUE_MINIMUM_THRESHOLD,
    PREEMPTION_INTRA_QUEUE_MAX_ALLOWABLE_LIMIT,
    PREEMPTION_INTRA_QUEUE_ORDER_POLICY,
    PREEMPTION_SELECT_BASED_ON_RESERVED_CONTAINERS,
    RM_RESERVATION_SYSTEM_ENABLE,
    RM_RESERVATION_SYSTEM_CLASS,
    RM_RESERVATION_SYSTEM_PLAN_FOLLOWER,
    RM_RESERVATION_SYSTEM_PLAN_FOLLOWER_TIME_STEP,
    RM_RESERVATION_SYSTEM_FAVOR_EARLY_ALLOCATION,
    YARN_ACL_RESERVATION_ENABLE,
    NM_CONTAINER_QUEUING_SORTING_NODES_INTERVAL_MS,
    NM_CONTAINER_QUEUING_LOAD_COMPARATOR,
    NM_CONTAINER_QUEUING_LIMIT_STDEV,
    NM_CONTAINER_QUEUING_MIN_QUEUE_LENGTH,
    NM_CONTAINER_QUEUING_MAX_QUEUE_LENGTH,
    NM_CONTAINER_QUEUING_MIN_QUEUE_WAIT_TIME_MS,
    NM_CONTAINER_QUEUING_MAX_QUEUE_WAIT_TIME_MS,
    QUEUE_PLACEMENT_RULES_APP_NAME,
    YARN_ACL_ENABLE,
    YARN_ADMIN_ACL,
    HADOOP_SECURITY_GROUP_MAPPING,
    HADOOP_USER_GROUP_STATIC_MAPPING_OVERRIDES,
    HADOOP_SECURITY_GROUPS_CACHE_SECS,
    HADOOP_SECURITY_GROUPS_NEGATIVE_CACHE_SECS,
    SCHEDULER_ASYNC_SCHEDULING_INTERVAL_MS,
    SCHEDULER_MINIMUM_ALLOCATION_MB,
    SCHEDULER_MAXIMUM_ALLOCATION_MB,
    SCHEDULER_MINIMUM_ALLOCATION_VCORES,
    SCHEDULER_MAXIMUM_ALLOCATION_VCORES,
    CLUSTER_MAX_APPLICATION_PRIORITY,
    RM_ZK_MAX_ZNODE_SIZE_BYTES,
    APPLICATION_MAX_TAGS,
    APPLICATION_MAX_TAG_LENGTH,
    RM_SCHEDULER_MAX_ASKS_PER_ALLOCATE,
    APP_ATTEMPT_DIAGNOSTICS_LIMIT_KC,
    NM_HOSTNAME,
    NM_ADDRESS,
    NM_WEBAPP_ADDRESS,
    NM_PMEM_MB,
    NM_VCORES,
    NM_LOCAL_DIRS,
    NM_RECOVERY_DIR,
    NM_RECOVERY_ENABLED,
    NM_LOG_DIRS,
    NM_SLEEP_DELAY_BEFORE_SIGKILL_MS,
    NM_PMEM_CHECK_ENABLED,
    NM_CONTAINER_MONITOR_INTERVAL_MS,
    NM_MEMORY_RESOURCE_ENABLED,
    NM_LINUX_CONTAINER_CGROUPS_MOUNT_PATH,
    NM_LINUX_CONTAINER_CGROUPS_HIERARCHY,
    NM_CONTAINER_EXECUTOR_CLASS,
    NM_ENV_WHITELIST,
    NM_ADMIN_USER_ENV,
    NM_USER_HOME_DIR,
    NM_OPPORTUNISTIC_CONTAINERS_MAX_QUEUE_LENGTH,
    AMRM_PROXY_ENABLED,
    AMRM_PROXY_ADDRESS,
    DIST_SCHEDULING_ENABLED,
    AMRM_PROXY_CLIENT_THREAD_COUNT,
    AMRM_PROXY_INTERCEPTOR_CLASS_PIPELINE,
    AMRM_PROXY_THROTTLE_MAX_ALLOCATES_PER_SECOND,
    AMRM_PROXY_THROTTLE_BURST,
    AMRM_PROXY_THROTTLE_MAX_DELAY_MS,
    TLS_ENABLED,
    TLS_CA_CERT,
    TLS_CERT,
    TLS_KEY,
    TLS_MAX_PENDING_HANDSHAKES,
    TLS_MAX_CONNECTIONS_PER_IDENTITY,
    HADOOP_HTTP_AUTHENTICATION_TYPE,
    HADOOP_HTTP_AUTHENTICATION_SIMPLE_ANONYMOUS_ALLOWED,
    IPC_CLIENT_CONNECTION_MAXIDLETIME,
    HADOOP_IPC_ENABLED,
    HADOOP_IPC_SIMPLE_AUTHENTICATION_ENABLED,
    IPC_MAXIMUM_DATA_LENGTH,
    HADOOP_SECURITY_AUTHENTICATION,
    HADOOP_RPC_PROTECTION,
    NET_TOPOLOGY_NODE_SWITCH_MAPPING_IMPL,
    NET_TOPOLOGY_SCRIPT_FILE_NAME,
    NET_TOPOLOGY_SCRIPT_NUMBER_ARGS,
    NET_TOPOLOGY_TABLE_FILE_NAME,
];

/// The declared key named `name` (without any `.<id>` suffix), if there is one.
pub fn find(name: &str) -> Option<&'static Key> {
    ALL.iter().find(|key| key.name == name)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    #[test]
    fn names_are_unique_and_use_hadoop_prefixes() {
        let names: BTreeSet<&str> = ALL.iter().map(|key| key.name.as_ref()).collect();
        assert_eq!(names.len(), ALL.len(), "a key is declared twice in ALL");
        for name in names {
            // hadoop.*, ipc.* and net.topology.* keys are Hadoop's core-site ones the daemons
            // read (groups, web and RPC authentication, the connection idle time, the IPC frame
            // limit, the rack mapping).
            assert!(
                name.starts_with("yarn.")
                    || name.starts_with("hadoop.security.group")
                    || name.starts_with("hadoop.user.group.")
                    || name.starts_with("hadoop.http.authentication.")
                    || name == IPC_CLIENT_CONNECTION_MAXIDLETIME.name
                    || name == IPC_MAXIMUM_DATA_LENGTH.name
                    || name == HADOOP_SECURITY_AUTHENTICATION.name
                    || name == HADOOP_RPC_PROTECTION.name
                    || name.starts_with("net.topology."),
                "{name} is not under yarn. or one of Hadoop's core-site keys we read"
            );
        }
    }

    #[test]
    fn duration_and_size_keys_carry_their_unit_in_the_name() {
        for key in ALL {
            match key.kind {
                KeyKind::Duration => assert!(
                    [".ms", "-ms", ".secs", "-secs"]
                        .iter()
                        .any(|unit| key.name.ends_with(unit)),
                    "{key} has no unit"
                ),
                KeyKind::SizeMb => assert!(key.name.ends_with("-mb"), "{key} has no unit"),
                _ => {}
            }
        }
    }

    #[test]
    fn find_returns_declared_keys_only() {
        assert_eq!(find("yarn.resourcemanager.address"), Some(&RM_ADDRESS));
        assert_eq!(find("yarn.resourcemanager.address.rm1"), None);
    }
}
