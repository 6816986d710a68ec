//! [`UNHONOURED`]: the Hadoop keys yarn-ha knows and does not honour, each refused or warned
//! about by name, and [`Verdict`], what becomes of any key an operator sets.
//!
//! This is the one list of such keys, for both `yarn-site.xml` and `capacity-scheduler.xml`;
//! `conf/yarn-default.xml` prints it ([`documentation`]) and a test keeps the two equal. A key is
//! *refused* when running without it would break a promise the operator's file makes (a
//! scheduler, a partition, a placement rule): the daemon does not start and
//! `-refreshQueues` does not apply, naming the key, its value, where it was set and why. A key is
//! *warned* about when it only tunes a part of Hadoop yarn-ha does not have (ZooKeeper, the
//! timeline service, a thread pool): it is accepted and logged by name. A key neither declared
//! in [`crate::keys`] (or read by the CapacityScheduler) nor listed here is warned about as
//! unknown, so no key is ignored silently.

use std::fmt;

use crate::error::ConfError;
use crate::location::Location;
use crate::{Configuration, keys};

/// The placeholder in a [`Unhonoured::pattern`] for a queue path (`root` and any descendants).
const QUEUE_PATH: &str = "<queue-path>";
/// The placeholder for one dot-free component (a user, a label, a service name).
const ONE: &str = "<name>";
/// A pattern's last component when it matches every key under its prefix.
const ANY: &str = "*";
/// Components under which Hadoop nests keys of a queue that configure something else (labels,
/// templates, policies, users), which a `<queue-path>` never runs through.
const NESTED: [&str; 6] = [
    "accessible-node-labels",
    "leaf-queue-template",
    "auto-queue-creation-v2",
    "auto-create-child-queue",
    "ordering-policy",
    "user-settings",
];
/// The prefix of every key of `capacity-scheduler.xml`.
const CAPACITY_SCHEDULER_PREFIX: &str = "yarn.scheduler.capacity.";

/// The values of a refused key that keep Hadoop's behaviour as yarn-ha implements it; an unset
/// or blank value is always accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Accepted {
    /// Only unset or blank.
    Unset,
    /// One of these, compared case-insensitively after trimming.
    OneOf(&'static [&'static str]),
    /// A number no greater than zero, which Hadoop reads as "off".
    NotPositive,
}

impl Accepted {
    /// Whether `value` (trimmed) keeps the key harmless.
    pub fn accepts(self, value: &str) -> bool {
        let value = value.trim();
        if value.is_empty() {
            return true;
        }
        match self {
            Self::Unset => false,
            Self::OneOf(values) => values.iter().any(|v| v.eq_ignore_ascii_case(value)),
            Self::NotPositive => value.parse::<f64>().is_ok_and(|number| number <= 0.0),
        }
    }
}

impl fmt::Display for Accepted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unset => f.write_str("unset"),
            Self::OneOf(values) => write!(f, "unset or {}", values.join(" or ")),
            Self::NotPositive => f.write_str("unset or a number no greater than 0"),
        }
    }
}

/// What yarn-ha does with a key of [`UNHONOURED`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Treatment {
    /// Refused at start-up and at `-refreshQueues` unless its value is [`Accepted`].
    Refused(Accepted),
    /// Accepted, ignored and logged by name.
    Warned,
}

/// A Hadoop key, or family of keys, that yarn-ha does not honour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unhonoured {
    /// The key, where `<queue-path>` stands for `root` and any queue below it, `<name>` for one
    /// dot-free component, and a last component `*` for one or more components.
    pub pattern: &'static str,
    /// Refused or warned.
    pub treatment: Treatment,
    /// Why, in the operator's terms: what yarn-ha does instead.
    pub reason: &'static str,
}

const fn refused(pattern: &'static str, accepted: Accepted, reason: &'static str) -> Unhonoured {
    Unhonoured {
        pattern,
        treatment: Treatment::Refused(accepted),
        reason,
    }
}

const fn warned(pattern: &'static str, reason: &'static str) -> Unhonoured {
    Unhonoured {
        pattern,
        treatment: Treatment::Warned,
        reason,
    }
}

const CAPACITY_SCHEDULER: &str =
    "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler";
const CENTRALIZED_LABELS: &str = "node labels are set with rmadmin and kept in the \
                                  ResourceManagers' replicated state (centralized): NodeManagers \
                                  and providers do not set them";
const UNDERUTILIZED_PREEMPTION: &str = "tunes underutilized-preemption, which yarn-ha does not \
                                         do: under a priority-utilization parent, a child of \
                                         higher priority below its guarantee waits for a lower \
                                         one below its own to free resources rather than \
                                         preempting it";
const NO_ZOOKEEPER: &str =
    "yarn-ha replicates its state with Raft (yarn.resourcemanager.ha.raft.*), not ZooKeeper";
const NO_KERBEROS: &str = "yarn-ha's daemons authenticate with certificates (yarn.tls.*), not \
                           Kerberos";
const ALWAYS_RECOVERS: &str =
    "yarn-ha always recovers its state, work-preserving, from its Raft log";

/// Every key yarn-ha knows and does not honour, in the order `yarn-default.xml` prints them.
pub const UNHONOURED: &[Unhonoured] = &[
    // capacity-scheduler.xml: per queue.
    warned(
        "yarn.scheduler.capacity.<queue-path>.ordering-policy.*",
        "tunes an ordering policy; yarn-ha reads a queue's ordering-policy and, on a fair leaf, \
         ordering-policy.fair.enable-size-based-weight",
    ),
    refused(
        "yarn.scheduler.capacity.<queue-path>.acl_application_max_priority",
        Accepted::OneOf(&["*"]),
        "per-user limits on application priorities are not enforced: any user may ask for any \
         priority up to yarn.cluster.max-application-priority",
    ),
    warned(
        "yarn.scheduler.capacity.<queue-path>.auto-create-child-queue.*",
        "not a managed parent's setting (enabled, management-policy, max-queues, \
         fail-on-exceeding-parent-capacity)",
    ),
    warned(
        "yarn.scheduler.capacity.<queue-path>.auto-queue-creation-v2.*",
        "neither a flexible auto-creation setting (enabled, max-queues, maximum-queue-depth, \
         queue-auto-removal.enable) nor a template of a queue property yarn-ha reads",
    ),
    warned(
        "yarn.scheduler.capacity.<queue-path>.leaf-queue-template.*",
        "not a template of a queue property yarn-ha reads",
    ),
    refused(
        "yarn.scheduler.capacity.<queue-path>.maximum-allocation",
        Accepted::Unset,
        "a queue's largest container is read from maximum-allocation-mb and \
         maximum-allocation-vcores only",
    ),
    refused(
        "yarn.scheduler.capacity.<queue-path>.allow-zero-capacity-sum",
        Accepted::OneOf(&["false"]),
        "in legacy queue mode a parent's percentage children sum to 100 (or 0 under a parent \
         of capacity 0 or of a weight)",
    ),
    warned(
        "yarn.scheduler.capacity.<queue-path>.accessible-node-labels.*",
        "a queue's share of a partition is read from accessible-node-labels.<label>.capacity \
         and .maximum-capacity only",
    ),
    warned(
        "yarn.scheduler.capacity.<queue-path>.acl_submit_reservations",
        "reservation ACLs are not enforced (yarn.acl.reservation-enable must be false)",
    ),
    warned(
        "yarn.scheduler.capacity.<queue-path>.acl_administer_reservations",
        "reservation ACLs are not enforced (yarn.acl.reservation-enable must be false)",
    ),
    warned(
        "yarn.scheduler.capacity.<queue-path>.acl_list_reservations",
        "reservation ACLs are not enforced (yarn.acl.reservation-enable must be false)",
    ),
    // capacity-scheduler.xml: global.
    refused(
        "yarn.scheduler.queue-placement-rules",
        Accepted::OneOf(&[
            "user-group",
            "app-name",
            "user-group,app-name",
            "app-name,user-group",
        ]),
        "custom placement rule classes are not supported: the user-group and app-name rules \
         (both always loaded, user and group entries first, as in Hadoop 3.4) are",
    ),
    refused(
        "yarn.scheduler.capacity.workflow-priority-mappings",
        Accepted::Unset,
        "workflow priority mappings are not implemented: an application keeps the priority it \
         asks for, or its queue's default",
    ),
    warned(
        "yarn.scheduler.capacity.workflow-priority-mappings-override.enable",
        "workflow priority mappings are not implemented",
    ),
    refused(
        "yarn.scheduler.capacity.global-queue-max-application",
        Accepted::NotPositive,
        "a queue without maximum-applications takes yarn.scheduler.capacity.maximum-applications \
         scaled by its share of the cluster",
    ),
    warned(
        "yarn.scheduler.capacity.ordering-policy.*",
        UNDERUTILIZED_PREEMPTION,
    ),
    warned(
        "yarn.scheduler.capacity.user-metrics.enable",
        "yarn-ha publishes queue metrics, not per-user ones",
    ),
    refused(
        "yarn.scheduler.capacity.lazy-preemption-enabled",
        Accepted::OneOf(&["false"]),
        "preemption kills the containers it selects; lazy preemption is not implemented",
    ),
    warned(
        "yarn.scheduler.capacity.schedule-asynchronously.*",
        "the leader's loop schedules on one thread every \
         yarn.scheduler.capacity.schedule-asynchronously.scheduling-interval-ms as set in \
         yarn-site.xml; of these keys only schedule-asynchronously.enable is read, from \
         capacity-scheduler.xml",
    ),
    warned(
        "yarn.scheduler.capacity.multi-node-placement-enabled",
        "nodes are offered to the scheduler one at a time",
    ),
    warned(
        "yarn.scheduler.capacity.multi-node-sorting.*",
        "nodes are offered to the scheduler one at a time",
    ),
    warned(
        "yarn.scheduler.capacity.reservations-continue-look-all-nodes",
        "tunes the CapacityScheduler's container reservations, which yarn-ha does not make",
    ),
    warned(
        "yarn.scheduler.capacity.skip-allocate-on-nodes-with-reserved-containers",
        "tunes the CapacityScheduler's container reservations, which yarn-ha does not make",
    ),
    warned(
        "yarn.scheduler.capacity.application.fail-fast",
        "an application for a queue that no longer exists after a restart fails in any case",
    ),
    // yarn-site.xml: the ResourceManager.
    refused(
        "yarn.resourcemanager.scheduler.class",
        Accepted::OneOf(&[CAPACITY_SCHEDULER]),
        "the CapacityScheduler is the only scheduler yarn-ha has",
    ),
    refused(
        "yarn.node-labels.configuration-type",
        Accepted::OneOf(&["centralized"]),
        CENTRALIZED_LABELS,
    ),
    refused(
        "yarn.node-labels.exclusive-enforced-partitions",
        Accepted::Unset,
        "applications are not held to one partition: any ask may name any label its queue \
         may use",
    ),
    refused(
        "yarn.resourcemanager.node-labels.provider",
        Accepted::Unset,
        CENTRALIZED_LABELS,
    ),
    warned("yarn.resourcemanager.node-labels.*", CENTRALIZED_LABELS),
    refused(
        "yarn.nodemanager.node-labels.provider",
        Accepted::Unset,
        CENTRALIZED_LABELS,
    ),
    warned("yarn.nodemanager.node-labels.*", CENTRALIZED_LABELS),
    warned(
        "yarn.scheduler.configuration.*",
        "the mutable queue configuration store is the ResourceManagers' replicated state, with \
         no file, log, leveldb or ZooKeeper settings; of these keys only store.class, \
         mutation.acl-policy.class and max.version are read",
    ),
    warned(
        "yarn.node-labels.fs-store.*",
        "node labels are kept in the ResourceManagers' replicated state, not in a file store",
    ),
    warned(
        "yarn.node-labels.*",
        "tunes a part of Hadoop's node labels yarn-ha does not have",
    ),
    refused(
        "yarn.resourcemanager.nodes.include-path",
        Accepted::Unset,
        "every NodeManager that presents a valid certificate may register; include and exclude \
         files are not read",
    ),
    refused(
        "yarn.resourcemanager.nodes.exclude-path",
        Accepted::Unset,
        "every NodeManager that presents a valid certificate may register; include and exclude \
         files are not read",
    ),
    refused(
        "yarn.resourcemanager.placement-constraints.handler",
        Accepted::OneOf(&["disabled"]),
        "placement constraints (SchedulingRequests) are not implemented",
    ),
    refused(
        "yarn.resource-types",
        Accepted::Unset,
        "yarn-ha schedules memory and vcores only",
    ),
    warned(
        "yarn.resource-types.*",
        "yarn-ha schedules memory and vcores only",
    ),
    warned("yarn.resourcemanager.recovery.enabled", ALWAYS_RECOVERS),
    warned(
        "yarn.resourcemanager.work-preserving-recovery.enabled",
        ALWAYS_RECOVERS,
    ),
    warned("yarn.resourcemanager.store.class", ALWAYS_RECOVERS),
    warned("yarn.resourcemanager.zk-*", NO_ZOOKEEPER),
    warned("yarn.resourcemanager.zk-address", NO_ZOOKEEPER),
    warned(
        "yarn.resourcemanager.ha.automatic-failover.embedded",
        NO_ZOOKEEPER,
    ),
    warned(
        "yarn.resourcemanager.ha.automatic-failover.zk-base-path",
        NO_ZOOKEEPER,
    ),
    warned(
        "yarn.resourcemanager.leveldb-state-store.*",
        ALWAYS_RECOVERS,
    ),
    warned("yarn.resourcemanager.fs.state-store.*", ALWAYS_RECOVERS),
    warned("yarn.timeline-service.*", "yarn-ha has no timeline service"),
    warned(
        "yarn.webapp.ui2.enable",
        "yarn-ha serves its own web UI at the webapp address",
    ),
    warned("yarn.resourcemanager.principal", NO_KERBEROS),
    warned("yarn.resourcemanager.keytab", NO_KERBEROS),
    warned("yarn.nodemanager.principal", NO_KERBEROS),
    warned("yarn.nodemanager.keytab", NO_KERBEROS),
    warned(
        "yarn.http.policy",
        "yarn-ha's web endpoint follows yarn.tls.enabled: HTTPS with client certificates when on",
    ),
    // yarn-site.xml: the NodeManager.
    refused(
        "yarn.nodemanager.aux-services",
        Accepted::Unset,
        "the NodeManager runs no auxiliary services (MapReduce's shuffle, Spark's external \
         shuffle service)",
    ),
    refused(
        "yarn.nodemanager.aux-services.manifest",
        Accepted::Unset,
        "the NodeManager runs no auxiliary services (MapReduce's shuffle, Spark's external \
         shuffle service)",
    ),
    refused(
        "yarn.nodemanager.aux-services.manifest.enabled",
        Accepted::OneOf(&["false"]),
        "the NodeManager runs no auxiliary services (MapReduce's shuffle, Spark's external \
         shuffle service)",
    ),
    warned(
        "yarn.nodemanager.aux-services.*",
        "the NodeManager runs no auxiliary services",
    ),
    refused(
        "yarn.nodemanager.resource.detect-hardware-capabilities",
        Accepted::OneOf(&["false"]),
        "a NodeManager offers yarn.nodemanager.resource.memory-mb and .cpu-vcores as set",
    ),
    refused(
        "yarn.nodemanager.resource-plugins",
        Accepted::Unset,
        "GPUs, FPGAs and other devices are not scheduled",
    ),
    warned(
        "yarn.nodemanager.resource-plugins.*",
        "GPUs, FPGAs and other devices are not scheduled",
    ),
    refused(
        "yarn.nodemanager.health-checker.scripts",
        Accepted::Unset,
        "the NodeManager runs no health script, so a node that would fail it keeps taking \
         containers",
    ),
    refused(
        "yarn.nodemanager.health-checker.<name>.path",
        Accepted::Unset,
        "the NodeManager runs no health script, so a node that would fail it keeps taking \
         containers",
    ),
    warned(
        "yarn.nodemanager.health-checker.*",
        "the NodeManager runs no health checker",
    ),
    warned(
        "yarn.nodemanager.disk-health-checker.*",
        "the NodeManager does not check its disks",
    ),
    warned(
        "yarn.nodemanager.vmem-check-enabled",
        "containers are limited by physical memory only (yarn.nodemanager.pmem-check-enabled)",
    ),
    warned(
        "yarn.nodemanager.vmem-pmem-ratio",
        "containers are limited by physical memory only (yarn.nodemanager.pmem-check-enabled)",
    ),
    warned(
        "yarn.log-aggregation-enable",
        "container logs stay in yarn.nodemanager.log-dirs; they are not aggregated",
    ),
    warned(
        "yarn.log-aggregation.*",
        "container logs stay in yarn.nodemanager.log-dirs; they are not aggregated",
    ),
    warned(
        "yarn.nodemanager.remote-app-log-dir",
        "container logs stay in yarn.nodemanager.log-dirs; they are not aggregated",
    ),
    warned(
        "yarn.nodemanager.remote-app-log-dir-suffix",
        "container logs stay in yarn.nodemanager.log-dirs; they are not aggregated",
    ),
    warned("yarn.log.server.url", "yarn-ha has no log server"),
    warned(
        "yarn.nodemanager.linux-container-executor.*",
        "the NodeManager starts containers as its own user; only the cgroups mount-path and \
         hierarchy keys are read",
    ),
];

/// What becomes of one key set in a configuration file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// yarn-ha reads it and does what Hadoop does with it; also a refused key set to a value
    /// yarn-ha accepts, since yarn-ha then behaves as the value says.
    Honoured,
    /// Not started with, or not applied: why, with what yarn-ha accepts.
    Refused(String),
    /// Accepted and ignored: the warning to log.
    Warned(String),
}

/// The entry of [`UNHONOURED`] that `name` falls under; an exact pattern wins over a family.
pub fn find(name: &str) -> Option<&'static Unhonoured> {
    let matching = || {
        UNHONOURED
            .iter()
            .filter(|entry| matches(entry.pattern, name))
    };
    matching()
        .find(|entry| !entry.pattern.ends_with(ANY))
        .or_else(|| matching().next())
}

/// The verdict on `name = value` for a key yarn-ha does not read: by its entry in
/// [`UNHONOURED`], or a warning that the key is unknown.
pub fn judge_unread(name: &str, value: &str) -> Verdict {
    match find(name) {
        Some(entry) => entry.judge(name, value),
        None => Verdict::Warned(unknown_warning(name)),
    }
}

/// Which daemon judges a `yarn-site.xml` shared by every host: each refuses and warns about the
/// keys that concern it, so that a NodeManager key does not stop a ResourceManager.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Daemon {
    /// Every key but the NodeManager's own (`yarn.nodemanager.*`).
    ResourceManager,
    /// The NodeManager's own keys and the resource types it offers.
    NodeManager,
    /// Every key: `yarn-ha conf check`.
    Both,
}

impl Daemon {
    /// Whether this daemon judges `name`.
    pub fn concerns(self, name: &str) -> bool {
        let node_manager = name.starts_with("yarn.nodemanager.");
        match self {
            Self::Both => true,
            Self::ResourceManager => !node_manager,
            Self::NodeManager => node_manager || name.starts_with("yarn.resource-types"),
        }
    }
}

/// The verdict on `name = value` as set in `yarn-site.xml`: declared keys are honoured, and
/// their `.<rm-id>` forms for the ids of `rm_ids` (`None` when high availability is off, and
/// no such form is read); CapacityScheduler keys, which yarn-ha reads
/// from `capacity-scheduler.xml` only, are refused when `scheduler` (the scheduler's verdict)
/// would honour or refuse them there, since Hadoop would act on them; other keys are judged by
/// [`judge_unread`].
pub fn site_verdict(
    name: &str,
    value: &str,
    rm_ids: Option<&[String]>,
    scheduler: &dyn Fn(&str, &str) -> Verdict,
) -> Verdict {
    if keys::find(name).is_some() {
        return Verdict::Honoured;
    }
    if let Some((base, id)) = name.rsplit_once('.')
        && keys::find(base).is_some_and(|key| key.per_id)
    {
        return match rm_ids {
            Some(ids) if ids.iter().any(|listed| listed == id) => Verdict::Honoured,
            Some(_) => Verdict::Warned(format!(
                "{name} is for ResourceManager {id}, which yarn.resourcemanager.ha.rm-ids does \
                 not list, and is ignored"
            )),
            None => Verdict::Warned(format!(
                "{name} is for ResourceManager {id}, but yarn.resourcemanager.ha.enabled is \
                 false, so only the keys without an rm id are read; it is ignored"
            )),
        };
    }
    if name.starts_with(CAPACITY_SCHEDULER_PREFIX) {
        return match scheduler(name, value) {
            Verdict::Warned(warning) => Verdict::Warned(warning),
            Verdict::Honoured | Verdict::Refused(_) => Verdict::Refused(format!(
                "yarn-ha reads {CAPACITY_SCHEDULER_PREFIX}* keys from capacity-scheduler.xml \
                 only, where Hadoop reads them from yarn-site.xml too: move it there"
            )),
        };
    }
    judge_unread(name, value)
}

/// One key a configuration file sets, and what becomes of it.
#[derive(Debug, Clone)]
pub struct JudgedKey {
    /// The property name.
    pub name: String,
    /// Its value, references resolved when they resolve, trimmed.
    pub value: String,
    /// Where it was set.
    pub location: Option<Location>,
    /// Honoured, refused or warned.
    pub verdict: Verdict,
}

impl JudgedKey {
    /// The error a refused key stops a daemon with; `None` when it is not refused.
    pub fn refusal(&self) -> Option<ConfError> {
        match &self.verdict {
            Verdict::Refused(reason) => Some(ConfError::Unhonoured {
                key: self.name.clone(),
                value: self.value.clone(),
                reason: reason.clone(),
                location: self.location.clone(),
            }),
            _ => None,
        }
    }
}

/// The verdict on every key a configuration sets outside the built-in defaults, as a daemon
/// reports them at start-up and `conf check` lists them.
#[derive(Debug, Default)]
pub struct SiteReport {
    /// Every key the daemon judges, in name order.
    pub keys: Vec<JudgedKey>,
}

impl SiteReport {
    /// Judges every key set in `conf` that concerns `daemon`, CapacityScheduler keys through
    /// `scheduler` (the scheduler crate's verdict, which this crate cannot depend on).
    pub fn of(
        conf: &Configuration,
        daemon: Daemon,
        scheduler: &dyn Fn(&str, &str) -> Verdict,
    ) -> Self {
        let rm_ids = conf
            .get_bool(&keys::RM_HA_ENABLED)
            .unwrap_or(false)
            .then(|| conf.get_list(&keys::RM_HA_IDS).unwrap_or_default());
        let mut report = Self::default();
        for name in conf.names() {
            let location = conf.source(name);
            if location.is_some_and(|location| location.file == crate::DEFAULT_RESOURCE)
                || !daemon.concerns(name)
            {
                continue;
            }
            // A value whose references do not resolve is judged as written; reading it reports
            // the reference.
            let value = match conf.get(name) {
                Ok(Some(value)) => value,
                _ => conf.get_raw(name).unwrap_or_default().to_owned(),
            };
            report.keys.push(JudgedKey {
                verdict: site_verdict(name, &value, rm_ids.as_deref(), scheduler),
                name: name.to_owned(),
                value: value.trim().to_owned(),
                location: location.cloned(),
            });
        }
        report
    }

    /// Every refusal, each naming the key, its value, where it was set and why.
    pub fn refusals(&self) -> impl Iterator<Item = ConfError> + '_ {
        self.keys.iter().filter_map(JudgedKey::refusal)
    }

    /// Every warning, one line per key.
    pub fn warnings(&self) -> impl Iterator<Item = &str> {
        self.keys.iter().filter_map(|key| match &key.verdict {
            Verdict::Warned(warning) => Some(warning.as_str()),
            _ => None,
        })
    }

    /// The warnings, or the first refusal for daemons that stop at it.
    ///
    /// # Errors
    ///
    /// [`ConfError::Unhonoured`] when any key is refused.
    pub fn into_result(self) -> Result<Vec<String>, ConfError> {
        match self.refusals().next() {
            Some(refusal) => Err(refusal),
            None => Ok(self.warnings().map(str::to_owned).collect()),
        }
    }
}

impl Unhonoured {
    /// The verdict on `name = value` for a key under this entry.
    pub fn judge(&self, name: &str, value: &str) -> Verdict {
        match self.treatment {
            Treatment::Refused(accepted) if accepted.accepts(value) => Verdict::Honoured,
            Treatment::Refused(accepted) => Verdict::Refused(format!(
                "{}; yarn-ha accepts {name} only {accepted}",
                self.reason
            )),
            Treatment::Warned => Verdict::Warned(format!(
                "{name} is not honoured and is ignored: {}",
                self.reason
            )),
        }
    }
}

/// The warning for a `yarn.*` key yarn-ha neither reads nor lists.
pub fn unknown_warning(name: &str) -> String {
    format!(
        "{name} is not a key yarn-ha knows and is ignored (see conf/yarn-default.xml for the keys \
         it reads and those it does not honour)"
    )
}

/// The list as `conf/yarn-default.xml` documents it, one key per line.
pub fn documentation() -> String {
    let mut text = String::new();
    for entry in UNHONOURED {
        let treatment = match entry.treatment {
            Treatment::Refused(accepted) => format!("refused unless {accepted}"),
            Treatment::Warned => "warned".to_owned(),
        };
        text.push_str(&format!(
            "  {}\n    {treatment}: {}\n",
            entry.pattern, entry.reason
        ));
    }
    text
}

/// Whether `name` matches `pattern` (see [`Unhonoured::pattern`]).
fn matches(pattern: &str, name: &str) -> bool {
    let pattern: Vec<&str> = pattern.split('.').collect();
    let name: Vec<&str> = name.split('.').collect();
    matches_components(&pattern, &name)
}

fn matches_components(pattern: &[&str], name: &[&str]) -> bool {
    match (pattern.split_first(), name.split_first()) {
        (None, None) => true,
        (Some((&ANY, [])), Some(_)) => true,
        // A queue path never runs through a component Hadoop nests keys under, so that
        // `root.p.leaf-queue-template.ordering-policy` is a template key, not `p`'s own.
        (Some((&QUEUE_PATH, rest)), Some((&"root", mut tail))) => loop {
            if matches_components(rest, tail) {
                break true;
            }
            match tail.split_first() {
                Some((next, shorter)) if !NESTED.contains(next) => tail = shorter,
                _ => break false,
            }
        },
        (Some((&ONE, rest)), Some((_, tail))) => matches_components(rest, tail),
        // `zk-*` last matches every key whose component there starts with `zk-`.
        (Some((component, [])), Some((name, _))) if prefix_family(component, name) => true,
        (Some((component, rest)), Some((name, tail))) => {
            component == name && matches_components(rest, tail)
        }
        _ => false,
    }
}

/// Whether `component` is a family such as `zk-*` that `name` belongs to.
fn prefix_family(component: &str, name: &str) -> bool {
    component
        .strip_suffix(ANY)
        .is_some_and(|prefix| !prefix.is_empty() && name.starts_with(prefix))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str) -> &'static Unhonoured {
        find(name).unwrap_or_else(|| panic!("{name} is not listed"))
    }

    #[test]
    fn queue_path_patterns_match_any_queue_below_root_and_nothing_else() {
        let pattern = "yarn.scheduler.capacity.<queue-path>.acl_application_max_priority";
        for name in [
            "yarn.scheduler.capacity.root.acl_application_max_priority",
            "yarn.scheduler.capacity.root.a.acl_application_max_priority",
            "yarn.scheduler.capacity.root.a.b.c.acl_application_max_priority",
        ] {
            assert_eq!(entry(name).pattern, pattern, "{name}");
        }
        assert!(find("yarn.scheduler.capacity.default.acl_application_max_priority").is_none());
        assert_eq!(
            entry(
                "yarn.scheduler.capacity.root.a.ordering-policy.priority-utilization.\
                 underutilized-preemption.reserved-container-delay-ms"
            )
            .pattern,
            "yarn.scheduler.capacity.<queue-path>.ordering-policy.*"
        );
        let enabled = entry(
            "yarn.scheduler.capacity.ordering-policy.priority-utilization.underutilized-\
             preemption.enabled",
        );
        assert!(matches!(enabled.judge("k", "true"), Verdict::Warned(_)));
        assert_eq!(
            entry("yarn.scheduler.capacity.root.a.accessible-node-labels.gpu.weight").pattern,
            "yarn.scheduler.capacity.<queue-path>.accessible-node-labels.*"
        );
    }

    #[test]
    fn an_exact_entry_wins_over_a_family_and_prefixed_components_match() {
        assert_eq!(
            entry("yarn.resourcemanager.zk-address").pattern,
            "yarn.resourcemanager.zk-address"
        );
        assert_eq!(
            entry("yarn.resourcemanager.zk-timeout-ms").pattern,
            "yarn.resourcemanager.zk-*"
        );
        assert!(find("yarn.resourcemanager.zk").is_none());
        assert_eq!(
            entry("yarn.resourcemanager.zk-state-store.parent-path").pattern,
            "yarn.resourcemanager.zk-*"
        );
        // A template's keys are the template's, not the queue's own.
        assert_eq!(
            entry("yarn.scheduler.capacity.root.p.leaf-queue-template.ordering-policy").pattern,
            "yarn.scheduler.capacity.<queue-path>.leaf-queue-template.*"
        );
        assert_eq!(
            entry("yarn.scheduler.capacity.root.p.auto-queue-creation-v2.template.priority")
                .pattern,
            "yarn.scheduler.capacity.<queue-path>.auto-queue-creation-v2.*"
        );
        assert_eq!(
            entry("yarn.nodemanager.health-checker.script.path").treatment,
            Treatment::Refused(Accepted::Unset)
        );
        assert_eq!(
            entry("yarn.node-labels.configuration-type").treatment,
            Treatment::Refused(Accepted::OneOf(&["centralized"]))
        );
        assert_eq!(
            entry("yarn.node-labels.fs-store.root-dir").pattern,
            "yarn.node-labels.fs-store.*"
        );
    }

    fn refusal(verdict: Verdict) -> String {
        match verdict {
            Verdict::Refused(reason) => reason,
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn refusals_accept_hadoops_off_values_and_name_what_else_would_do() {
        let global = entry("yarn.scheduler.capacity.global-queue-max-application");
        for off in ["", " ", "-1", "0"] {
            assert_eq!(global.judge("k", off), Verdict::Honoured, "{off:?}");
        }
        let reason = refusal(global.judge("k", "3600"));
        assert!(
            reason.contains("scaled by its share of the cluster")
                && reason.ends_with("accepts k only unset or a number no greater than 0"),
            "{reason}"
        );
        let zero_sum = entry("yarn.scheduler.capacity.root.a.allow-zero-capacity-sum");
        assert_eq!(zero_sum.judge("k", " FALSE "), Verdict::Honoured);
        refusal(zero_sum.judge("k", "true"));
        refusal(judge_unread(
            "yarn.scheduler.queue-placement-rules",
            "fair-rule",
        ));
        assert_eq!(
            judge_unread("yarn.timeline-service.enabled", "true"),
            Verdict::Warned(
                "yarn.timeline-service.enabled is not honoured and is ignored: yarn-ha has no \
                 timeline service"
                    .to_owned()
            )
        );
        assert!(matches!(
            judge_unread("yarn.scheduler.capacity.root.a.capcity", "10"),
            Verdict::Warned(warning) if warning.contains("not a key yarn-ha knows")
        ));
    }

    /// A scheduler that reads `root.queues` only and warns about the rest.
    fn scheduler(name: &str, _: &str) -> Verdict {
        if name == "yarn.scheduler.capacity.root.queues" {
            Verdict::Honoured
        } else {
            Verdict::Warned(format!("{name} is warned about by the scheduler"))
        }
    }

    fn site(name: &str, value: &str) -> Verdict {
        site_verdict(
            name,
            value,
            Some(&["rm1".to_owned(), "rm2".to_owned()]),
            &scheduler,
        )
    }

    #[test]
    fn declared_keys_are_honoured_even_inside_a_listed_family() {
        let listed: Vec<&str> = keys::ALL
            .iter()
            .filter(|key| find(&key.name).is_some_and(|entry| !entry.pattern.ends_with(ANY)))
            .map(|key| key.name.as_ref())
            .collect();
        assert_eq!(listed, Vec::<&str>::new());
        for key in keys::ALL {
            assert_eq!(site(&key.name, "x"), Verdict::Honoured, "{key}");
        }
        assert!(find(&keys::NM_LINUX_CONTAINER_CGROUPS_MOUNT_PATH.name).is_some());
        for (i, entry) in UNHONOURED.iter().enumerate() {
            assert!(
                !UNHONOURED[..i].iter().any(|e| e.pattern == entry.pattern),
                "{} is listed twice",
                entry.pattern
            );
        }
    }

    #[test]
    fn site_keys_are_honoured_refused_or_warned() {
        for name in [
            "yarn.resourcemanager.am.max-attempts",
            "yarn.resourcemanager.address.rm2",
        ] {
            assert_eq!(site(name, "h:1"), Verdict::Honoured, "{name}");
        }
        assert_eq!(
            site("yarn.resourcemanager.scheduler.class", CAPACITY_SCHEDULER),
            Verdict::Honoured
        );
        for (name, says) in [
            ("yarn.resourcemanager.scheduler.class", "the only scheduler"),
            (
                "yarn.scheduler.capacity.root.queues",
                "capacity-scheduler.xml only, where Hadoop reads them from yarn-site.xml too",
            ),
        ] {
            assert!(
                matches!(site(name, "x"), Verdict::Refused(reason) if reason.contains(says)),
                "{name}"
            );
        }
        for (name, says) in [
            (
                "yarn.resourcemanager.am.max-atempts",
                "not a key yarn-ha knows",
            ),
            ("fs.defaultFS", "not a key yarn-ha knows"),
            ("yarn.resourcemanager.address.rm3", "rm-ids does not list"),
            (
                "yarn.scheduler.capacity.per-node-heartbeat.maximum-offswitch-assignments",
                "warned about by the scheduler",
            ),
        ] {
            assert!(
                matches!(site(name, "x"), Verdict::Warned(w) if w.contains(says)),
                "{name}"
            );
        }
    }

    #[test]
    fn per_id_keys_are_read_only_with_high_availability_on() {
        let verdict = site_verdict("yarn.resourcemanager.address.rm1", "h:1", None, &scheduler);
        assert!(
            matches!(&verdict, Verdict::Warned(w) if w.contains("ha.enabled is false")),
            "{verdict:?}"
        );
    }

    #[test]
    fn a_site_report_refuses_by_name_and_place_and_warns_the_rest() {
        let mut conf = Configuration::new();
        conf.set("yarn.node-labels.configuration-type", "distributed");
        conf.set("yarn.timeline-service.enabled", "true");
        conf.set("yarn.resourcemanager.scheduler.class", CAPACITY_SCHEDULER);
        conf.set("yarn.resourcemanager.am.max-atempts", "3");
        conf.set("yarn.resourcemanager.am.max-attempts", "3");
        conf.set("yarn.nodemanager.aux-services", "mapreduce_shuffle");
        let report = SiteReport::of(&conf, Daemon::ResourceManager, &scheduler);
        let refused: Vec<String> = report.refusals().map(|err| err.to_string()).collect();
        assert_eq!(
            refused.len(),
            1,
            "the NodeManager's key is not the RM's: {refused:?}"
        );
        assert!(
            refused[0].contains("yarn.node-labels.configuration-type")
                && refused[0].contains("\"distributed\"")
                && refused[0].contains(CENTRALIZED_LABELS),
            "{}",
            refused[0]
        );
        let warnings: Vec<&str> = report.warnings().collect();
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(
            warnings
                .iter()
                .any(|w| w.starts_with("yarn.resourcemanager.am.max-atempts is not a key")),
            "{warnings:?}"
        );
        assert!(report.into_result().is_err());

        let node_manager = SiteReport::of(&conf, Daemon::NodeManager, &scheduler);
        let refused: Vec<String> = node_manager.refusals().map(|err| err.to_string()).collect();
        assert_eq!(refused.len(), 1, "{refused:?}");
        assert!(
            refused[0].contains("yarn.nodemanager.aux-services"),
            "{}",
            refused[0]
        );
        assert_eq!(
            node_manager.warnings().count(),
            0,
            "the RM's keys are not the NM's"
        );
        assert_eq!(
            SiteReport::of(&conf, Daemon::Both, &scheduler)
                .refusals()
                .count(),
            2
        );
    }
}
