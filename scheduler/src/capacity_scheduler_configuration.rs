//! [`CapacitySchedulerConfiguration`]: the validated queue hierarchy and global limits.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

use yarn_conf::Verdict;

use crate::Resource;
use crate::access_control_list::AccessControlList;
use crate::application_lifetime::ApplicationLifetime;
use crate::auto_created_queues::{
    AutoQueueCreation, CreatedAs, CreatedQueues, CreationMethod, configured_parent, expand,
    listed_in_file, queue_expiration,
};
use crate::effective_capacity::nominal_shares;
use crate::error::SchedulerError;
use crate::heartbeat_assignments::{HeartbeatAssignments, heartbeat_key_warnings};
use crate::locality_delay::LocalityDelay;
use crate::managed_parent_queues::{self, ManagedParent, configured_managed_parent};
use crate::node_labels::NodeLabels;
use crate::ordering_policy::OrderingPolicy;
use crate::placement_rules::{
    MAPPING_RULE_FORMAT_KEY, MAPPING_RULE_JSON_FILE_KEY, MAPPING_RULE_JSON_KEY, PlacementRules,
    QUEUE_MAPPINGS_KEY, QUEUE_MAPPINGS_OVERRIDE_KEY, RuleSources,
};
use crate::property_reader::{PREFIX, PropertyReader, invalid};
use crate::queue_acl::QueueAcl;
use crate::queue_capacity::{CapacityEntry, QueueCapacity, ResourceType};
use crate::queue_conf::QueueConf;
use crate::queue_node_labels::{self, QueueNodeLabels};
use crate::queue_ordering_policy::QueueOrderingPolicy;
use crate::queue_property::{
    QueueProperty, USER_LIMIT_PREFIXES, USER_MAX_PARALLEL_APPS, USER_MAX_PARALLEL_APPS_SUFFIX,
    USER_WEIGHT_SUFFIX, configured_queue, key_verdict, user_settings_prefix,
};
use crate::queue_state::QueueState;
use crate::reservation::{
    ReservationQueueConf, ReservationQueueSize, default_queue_capacity, default_queue_name,
    reservation_queue_conf,
};
use crate::resource_calculator::{RESOURCE_CALCULATOR_KEY, ResourceCalculator};
use crate::scheduler_settings::{
    MAXIMUM_ALLOCATION_MB_KEY, MAXIMUM_ALLOCATION_VCORES_KEY, SchedulerSettings,
};

/// The path of the root queue.
pub const ROOT: &str = "root";
/// What every warning about a key an earlier version committed and this one refuses says, so
/// that the leader can log those apart.
pub const EARLIER_COMMIT: &str = "in force from an earlier commit";
/// `yarn.scheduler.capacity.legacy-queue-mode.enabled`.
pub const LEGACY_QUEUE_MODE_KEY: &str = "yarn.scheduler.capacity.legacy-queue-mode.enabled";
/// How far children's capacities may stray from 100 before the hierarchy is rejected.
pub const CAPACITY_EPSILON: f64 = 1e-6;

const DEFAULT_MAXIMUM_APPLICATIONS: u32 = 10_000;
const DEFAULT_MAXIMUM_AM_RESOURCE_PERCENT: f64 = 0.1;
/// The name of the leaf [`CapacitySchedulerConfiguration::check_templates`] creates.
const TEMPLATE_PROBE: &str = "auto-created-leaf";
const FRACTION: &str = "a fraction between 0 and 1 (0.1 = 10%)";
const COUNT: &str = "a non-negative 32-bit integer";

/// The CapacityScheduler's configuration: the resolved properties of `capacity-scheduler.xml`
/// (the map the RM replicates through Raft), the `yarn-site.xml` [`SchedulerSettings`], and the
/// queue tree derived and validated from them.
///
/// Construction validates everything up front, so a value of this type always describes a
/// usable hierarchy: `root` exists, every listed queue has a valid capacity, the capacity rules
/// of the queue mode hold (in legacy mode one mode among siblings and percentage children
/// summing to 100; in flexible mode percentages of each resource type summing to at most 100),
/// capacities never exceed comparable maximum capacities, per-queue maximum allocations stay within
/// the cluster maximum, every number parsed, and every per-queue key names a queue of the
/// hierarchy. A Hadoop key the scheduler does not honour is refused when its value asks for what
/// the scheduler does not do, and is otherwise kept as a [`warnings`](Self::warnings) line, as is
/// every key the scheduler does not know: none is ignored silently.
#[derive(Debug, Clone, PartialEq)]
pub struct CapacitySchedulerConfiguration {
    properties: BTreeMap<String, String>,
    settings: SchedulerSettings,
    resource_calculator: ResourceCalculator,
    locality_delay: LocalityDelay,
    heartbeat_assignments: Option<HeartbeatAssignments>,
    maximum_applications: u32,
    maximum_am_resource_percent: f64,
    user_max_parallel_apps_default: Option<u32>,
    user_max_parallel_apps: BTreeMap<String, u32>,
    legacy: bool,
    queues: BTreeMap<String, QueueConf>,
    paths_by_name: BTreeMap<String, Vec<String>>,
    placement_rules: PlacementRules,
    /// The queues created by submissions that this configuration holds.
    dynamic_queues: CreatedQueues,
    warnings: Vec<String>,
}

impl CapacitySchedulerConfiguration {
    /// Builds and validates the configuration.
    ///
    /// Keys read (prefix `yarn.scheduler.capacity.`): `resource-calculator`,
    /// `legacy-queue-mode.enabled` (true), `node-locality-delay` (40),
    /// `rack-locality-additional-delay` (-1), `rack-locality-full-reset` (true),
    /// `schedule-asynchronously.enable` (true, unlike Hadoop) and the `per-node-heartbeat.*`
    /// limits ([`HeartbeatAssignments`]),
    /// `maximum-applications` (10000), `maximum-am-resource-percent` (0.1), `max-parallel-apps`,
    /// `user.max-parallel-apps`, `user-settings.<user>.max-parallel-apps` (also accepted as
    /// `user.<user>.max-parallel-apps`), `minimum-user-limit-percent` (100) and
    /// `user-limit-factor` (1) as defaults for every queue, and per queue path: `queues`,
    /// `capacity`, `maximum-capacity`, `state`, `acl_submit_applications`,
    /// `acl_administer_queue`, `minimum-user-limit-percent`, `user-limit-factor`,
    /// `user-settings.<user>.weight`, `maximum-applications`, `max-parallel-apps`,
    /// `maximum-am-resource-percent`, `maximum-allocation-mb`, `maximum-allocation-vcores`,
    /// `default-application-priority`, `disable_preemption`,
    /// `intra-queue-preemption.disable_preemption`, `ordering-policy`,
    /// `ordering-policy.fair.enable-size-based-weight` and the reservation keys (`reservable`
    /// and those of a plan queue). Capacities take every mode of [`QueueCapacity`].
    ///
    /// A key `yarn.scheduler.capacity.root[.<queue>...].<suffix>` with one of those per-queue
    /// suffixes must name a queue that the `queues` lists lead to from `root`, whatever its
    /// value: a key for a queue that is not listed (a typo, or a queue removed from its
    /// parent's list but not from the file) is refused rather than silently ignored. Every other
    /// key is judged by `yarn_conf::unhonoured`: refused (a positive
    /// `maximum-application-lifetime`), or kept as a warning. The placement rules
    /// (`mapping-rule-format`, `mapping-rule-json`, `queue-mappings`,
    /// `queue-mappings-override.enable`, and the application-name rules of the settings) are
    /// parsed into [`PlacementRules`].
    ///
    /// # Errors
    ///
    /// The first problem found, each naming the key or queue and the numbers involved:
    /// [`SchedulerError::UnknownResourceCalculator`], [`SchedulerError::InvalidValue`] (bad
    /// number, percentage outside 0..=100, bad state),
    /// [`SchedulerError::UnhonouredKey`],
    /// [`SchedulerError::CapacityVectorInLegacyMode`], [`SchedulerError::QueueRule`] (modes
    /// mixed against the queue mode's rules, children promised more than the parent, a policy
    /// setting for a policy the queue does not use),
    /// [`SchedulerError::QueueNotInHierarchy`],
    /// [`SchedulerError::InvalidAllocationRange`], [`SchedulerError::InvalidQueueName`],
    /// [`SchedulerError::DuplicateQueue`], [`SchedulerError::MissingCapacity`],
    /// [`SchedulerError::CapacityAboveMaximum`], [`SchedulerError::ChildCapacitySum`],
    /// [`SchedulerError::RunningChildOfStoppedParent`] and
    /// [`SchedulerError::MaximumAllocationAboveCluster`].
    pub fn new(
        properties: BTreeMap<String, String>,
        settings: SchedulerSettings,
    ) -> Result<Self, SchedulerError> {
        Self::build(
            properties,
            settings,
            Unhonoured::Refuse,
            CreatedQueues::new(),
        )
    }

    /// Builds the configuration already committed to the replicated state, as
    /// [`new`](Self::new) does but keeping a key that is refused now as a warning: an earlier
    /// version may have committed it, and the queues in force must keep scheduling until
    /// `-refreshQueues` commits a file without it.
    ///
    /// # Errors
    ///
    /// Those of [`new`](Self::new) but [`SchedulerError::UnhonouredKey`].
    pub fn committed(
        properties: BTreeMap<String, String>,
        settings: SchedulerSettings,
    ) -> Result<Self, SchedulerError> {
        Self::build(properties, settings, Unhonoured::Warn, CreatedQueues::new())
    }

    /// This configuration with the queues `dynamic` (full paths) created by submissions
    /// added under their parents, each configured by its parent's templates
    /// ([`expand`](crate::auto_created_queues)), and the queues created before that are not
    /// in `dynamic` gone. A created queue whose parent no longer creates queues is left out
    /// with a warning. Keys are judged as for a configuration in force
    /// ([`committed`](Self::committed)).
    ///
    /// # Errors
    ///
    /// Those of [`committed`](Self::committed), should the templates configure a queue the
    /// rules refuse.
    pub fn with_dynamic_queues(&self, dynamic: CreatedQueues) -> Result<Self, SchedulerError> {
        Self::build(
            self.properties.clone(),
            self.settings.clone(),
            Unhonoured::Warn,
            dynamic,
        )
    }

    /// The queues created by submissions that this configuration holds.
    pub fn dynamic_queues(&self) -> &CreatedQueues {
        &self.dynamic_queues
    }

    /// Refuses templates that configure a queue the rules refuse, as a file is loaded rather
    /// than at the first submission: each queue that creates queues is built with one leaf
    /// created under it (holding its capacity, under a managed parent).
    fn check_templates(&self) -> Result<(), SchedulerError> {
        for parent in self.queues.values() {
            let kind = match (parent.auto_queue_creation, parent.managed_parent) {
                (Some(_), _) => CreatedAs::Leaf,
                (None, Some(_)) => CreatedAs::GuaranteedLeaf,
                (None, None) => continue,
            };
            let probe = CreatedQueues::from([(format!("{}.{TEMPLATE_PROBE}", parent.path), kind)]);
            Self::build(
                self.properties.clone(),
                self.settings.clone(),
                Unhonoured::Refuse,
                probe,
            )
            .map_err(|source| SchedulerError::AutoCreatedQueueTemplate {
                parent: parent.path.clone(),
                legacy: kind == CreatedAs::GuaranteedLeaf,
                source: Box::new(source),
            })?;
        }
        Ok(())
    }

    fn build(
        properties: BTreeMap<String, String>,
        settings: SchedulerSettings,
        unhonoured: Unhonoured,
        dynamic: CreatedQueues,
    ) -> Result<Self, SchedulerError> {
        settings.validate()?;
        let with_created_queues = !dynamic.is_empty();
        let (expanded, dropped) = expand(&properties, &dynamic);
        let reader = PropertyReader::new(&expanded);
        let mut warnings = judge_unread_keys(&reader, unhonoured)?;
        let locality_delay = keep_earlier(
            LocalityDelay::from_reader(&reader),
            unhonoured,
            &mut warnings,
            LocalityDelay::default(),
        )?;
        let heartbeat_assignments = keep_earlier(
            HeartbeatAssignments::from_reader(&reader, &mut warnings),
            unhonoured,
            &mut warnings,
            None,
        )?;
        warnings.extend(heartbeat_key_warnings(&properties).into_values());
        // Each begins with its key: in key order, as the file's keys are judged.
        warnings.sort();
        let resource_calculator = match reader.get(RESOURCE_CALCULATOR_KEY) {
            None => ResourceCalculator::Default,
            Some(value) => ResourceCalculator::from_class_name(value)?,
        };
        let maximum_applications = reader
            .parse::<u32>(&QueueProperty::MaximumApplications.global_key(), COUNT)?
            .unwrap_or(DEFAULT_MAXIMUM_APPLICATIONS);
        let maximum_am_resource_percent = reader
            .float_in(
                &QueueProperty::MaximumAmResourcePercent.global_key(),
                FRACTION,
                |v| (0.0..=1.0).contains(&v),
            )?
            .unwrap_or(DEFAULT_MAXIMUM_AM_RESOURCE_PERCENT);
        let user_max_parallel_apps_default =
            reader.parse::<u32>(&format!("{PREFIX}{USER_MAX_PARALLEL_APPS}"), COUNT)?;
        let mut user_max_parallel_apps = BTreeMap::new();
        // Both spellings are accepted; the latter wins.
        for prefix in USER_LIMIT_PREFIXES {
            let prefix = format!("{PREFIX}{prefix}");
            for (user, _) in reader.with_prefix_and_suffix(&prefix, USER_MAX_PARALLEL_APPS_SUFFIX) {
                let key = format!("{prefix}{user}{USER_MAX_PARALLEL_APPS_SUFFIX}");
                if let Some(limit) = reader.parse::<u32>(&key, COUNT)? {
                    user_max_parallel_apps.insert(user.to_string(), limit);
                }
            }
        }

        let [rule_format, queue_mappings, rules_json, rules_json_file] = [
            MAPPING_RULE_FORMAT_KEY,
            QUEUE_MAPPINGS_KEY,
            MAPPING_RULE_JSON_KEY,
            MAPPING_RULE_JSON_FILE_KEY,
        ]
        .map(|key| reader.get(key).map(str::to_owned));
        let override_specified = keep_earlier(
            reader.boolean(QUEUE_MAPPINGS_OVERRIDE_KEY),
            unhonoured,
            &mut warnings,
            None,
        )?
        .unwrap_or(false);
        let legacy = reader.boolean(LEGACY_QUEUE_MODE_KEY)?.unwrap_or(true);
        // Read by the leader's deletion policy; checked here as the file loads.
        keep_earlier(
            queue_expiration(&properties).map(drop),
            unhonoured,
            &mut warnings,
            (),
        )?;
        let dynamic: CreatedQueues = dynamic
            .into_iter()
            .filter(|(path, _)| {
                !dropped.iter().any(|(gone, _)| gone == path) && !listed_in_file(&properties, path)
            })
            .collect();
        let mut builder = TreeBuilder {
            reader: &reader,
            dynamic: &dynamic,
            settings: &settings,
            legacy,
            unhonoured,
            maximum_am_resource_percent,
            queues: BTreeMap::new(),
            warnings: RefCell::new(warnings),
        };
        builder.build()?;
        let mut warnings = builder.warnings.take();
        warnings.extend(managed_parent_queues::stray_template_warnings(
            &reader,
            |path| {
                builder
                    .queues
                    .get(path)
                    .is_some_and(|queue| queue.managed_parent.is_some())
            },
        ));
        warnings.extend(
            dropped
                .into_iter()
                .map(|(path, why)| format!("the auto-created queue {path} is gone: {why}")),
        );
        let nominal = nominal_shares(&builder.queues, resource_calculator);
        for (path, (capacity, maximum)) in nominal {
            if let Some(queue) = builder.queues.get_mut(&path) {
                queue.absolute_capacity = capacity;
                queue.absolute_maximum_capacity = maximum;
            }
        }
        let queues = builder.queues;
        let mut conf = Self {
            properties,
            settings,
            resource_calculator,
            locality_delay,
            heartbeat_assignments,
            maximum_applications,
            maximum_am_resource_percent,
            user_max_parallel_apps_default,
            user_max_parallel_apps,
            legacy,
            queues,
            paths_by_name: BTreeMap::new(),
            placement_rules: PlacementRules::default(),
            dynamic_queues: dynamic,
            warnings,
        };
        conf.place_reservation_queues(&BTreeMap::new());
        // Probes are built with a created queue: none of them probes again.
        if unhonoured == Unhonoured::Refuse && !with_created_queues {
            conf.check_templates()?;
        }
        // A rule in force whose queue a later commit removed (or one of this replica's
        // application-name rules the committed queues lack) must not stop a new leader from
        // scheduling: it is kept with a warning until a refresh settles it.
        let mut warnings = Vec::new();
        let sources = RuleSources {
            format: rule_format.as_deref(),
            queue_mappings: queue_mappings.as_deref(),
            app_name_mappings: conf.settings.app_name_mappings.as_deref(),
            json: rules_json.as_deref(),
            json_file: rules_json_file.as_deref(),
            override_specified,
        };
        conf.placement_rules = PlacementRules::parse(
            &sources,
            &conf,
            unhonoured == Unhonoured::Warn,
            &mut warnings,
        )?;
        conf.warnings.extend(warnings);
        Ok(conf)
    }

    /// This configuration with the reservation queues of each plan queue set to `plans` (by
    /// plan queue path).
    ///
    /// Every `reservable` leaf of the configured tree runs as a plan queue: a parent of its
    /// default reservation queue ([`default_queue_name`]) and of one queue per reservation
    /// listed for it, in the order listed; the default queue takes what they leave
    /// ([`default_queue_capacity`]). A plan queue not listed has only its default queue, at
    /// 100 percent. A listed path that is not a plan queue, and a reservation queue named as
    /// the default queue or listed twice, are left out: the sizes come from the replicated
    /// plan, which a configuration refresh may have left behind.
    pub fn with_reservation_queues(
        &self,
        plans: &BTreeMap<String, Vec<ReservationQueueSize>>,
    ) -> Self {
        let mut conf = self.clone();
        conf.place_reservation_queues(plans);
        conf
    }

    fn place_reservation_queues(&mut self, plans: &BTreeMap<String, Vec<ReservationQueueSize>>) {
        let plan_paths: Vec<String> = self
            .queues
            .values()
            .filter(|queue| queue.reservation.is_some())
            .map(|queue| queue.path.clone())
            .collect();
        for path in plan_paths {
            let Some(plan) = self.queues.get(&path).cloned() else {
                continue;
            };
            for child in &plan.children {
                self.queues.remove(child);
            }
            let default_name = default_queue_name(&plan.name);
            let mut seen = BTreeSet::from([default_name.clone()]);
            let sizes: Vec<&ReservationQueueSize> = plans
                .get(&path)
                .into_iter()
                .flatten()
                .filter(|size| seen.insert(size.name.clone()))
                .collect();
            let default_capacity = default_queue_capacity(sizes.iter().copied());
            let children: Vec<QueueConf> = std::iter::once(reservation_queue_conf(
                &plan,
                &default_name,
                default_capacity,
                100.0,
            ))
            .chain(sizes.iter().map(|size| {
                reservation_queue_conf(&plan, &size.name, size.capacity, size.maximum_capacity)
            }))
            .collect();
            if let Some(plan) = self.queues.get_mut(&path) {
                plan.children = children.iter().map(|child| child.path.clone()).collect();
            }
            for child in children {
                self.queues.insert(child.path.clone(), child);
            }
        }
        self.paths_by_name.clear();
        for queue in self.queues.values() {
            self.paths_by_name
                .entry(queue.name.clone())
                .or_default()
                .push(queue.path.clone());
        }
    }

    /// The properties this configuration was built from.
    pub fn properties(&self) -> &BTreeMap<String, String> {
        &self.properties
    }

    /// One line per key the scheduler accepted and ignores: Hadoop keys it does not honour
    /// whose values it need not refuse, and keys it does not know, each named.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The placement rules: the JSON rules, or the legacy `queue-mappings` and the
    /// application-name rules of `yarn-site.xml`.
    pub fn placement_rules(&self) -> &PlacementRules {
        &self.placement_rules
    }

    /// The `yarn-site.xml` settings the configuration was built with.
    pub fn settings(&self) -> &SchedulerSettings {
        &self.settings
    }

    /// The calculator selected by `yarn.scheduler.capacity.resource-calculator`.
    pub fn resource_calculator(&self) -> ResourceCalculator {
        self.resource_calculator
    }

    /// The per-heartbeat limits of heartbeat-driven scheduling, `None` when scheduling is
    /// asynchronous (`schedule-asynchronously.enable`, true unless set to false).
    pub fn heartbeat_assignments(&self) -> Option<HeartbeatAssignments> {
        self.heartbeat_assignments
    }

    /// Delay scheduling as `node-locality-delay`, `rack-locality-additional-delay` and
    /// `rack-locality-full-reset` set it.
    pub fn locality_delay(&self) -> LocalityDelay {
        self.locality_delay
    }

    /// `yarn.scheduler.capacity.maximum-applications`.
    pub fn maximum_applications(&self) -> u32 {
        self.maximum_applications
    }

    /// `yarn.scheduler.capacity.legacy-queue-mode.enabled` (true): siblings share one capacity
    /// mode, percentages sum to 100, and capacity vectors are refused.
    pub fn legacy_queue_mode(&self) -> bool {
        self.legacy
    }

    /// Every queue by path, a parent before its children.
    pub(crate) fn queue_map(&self) -> &BTreeMap<String, QueueConf> {
        &self.queues
    }

    /// `yarn.scheduler.capacity.maximum-am-resource-percent`, as a fraction.
    pub fn maximum_am_resource_percent(&self) -> f64 {
        self.maximum_am_resource_percent
    }

    /// How many applications `user` may run at once across the cluster; `None` = unlimited.
    pub fn user_max_parallel_apps(&self, user: &str) -> Option<u32> {
        self.user_max_parallel_apps
            .get(user)
            .copied()
            .or(self.user_max_parallel_apps_default)
    }

    /// The queue at `path`.
    pub fn queue(&self, path: &str) -> Option<&QueueConf> {
        self.queues.get(path)
    }

    /// Every queue, in path order (a parent before its children).
    pub fn queues(&self) -> impl Iterator<Item = &QueueConf> {
        self.queues.values()
    }

    /// Resolves a queue given as a full path or, as YARN accepts, as a bare name that
    /// identifies exactly one queue. `Err` carries every path with that name when the name is
    /// ambiguous (empty when nothing matches).
    pub fn resolve(&self, name: &str) -> Result<&QueueConf, Vec<String>> {
        if let Some(queue) = self.queues.get(name) {
            return Ok(queue);
        }
        match self.paths_by_name.get(name).map(Vec::as_slice) {
            Some([path]) => self.queues.get(path).ok_or_else(Vec::new),
            Some(paths) => Err(paths.to_vec()),
            None => Err(Vec::new()),
        }
    }

    /// The path from `root` down to `path`, inclusive; empty if `path` is unknown.
    pub fn ancestry(&self, path: &str) -> Vec<&QueueConf> {
        let mut chain = Vec::new();
        let mut next = self.queues.get(path);
        while let Some(queue) = next {
            chain.push(queue);
            next = queue
                .parent
                .as_deref()
                .and_then(|parent| self.queues.get(parent));
        }
        chain.reverse();
        chain
    }

    /// Checks that every label a queue names (in `accessible-node-labels`, a label capacity
    /// or `default-node-label-expression`) is one of the cluster's `labels`, as a refresh must:
    /// a queue promised a partition that does not exist would never get it.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::QueueRule`] naming the first such queue (parents first), the key that
    /// names the label, and the label.
    pub fn check_labels_exist(&self, labels: &NodeLabels) -> Result<(), SchedulerError> {
        for queue in self.queues() {
            let Some(label) = queue
                .node_labels
                .named_labels()
                .find(|label| !labels.contains(label))
            else {
                continue;
            };
            let capacity_key = format!(
                "{PREFIX}{}.accessible-node-labels.{label}.capacity",
                queue.path
            );
            let expression_key = QueueProperty::DefaultNodeLabelExpression.key(&queue.path);
            let key = if self.properties.contains_key(&capacity_key) {
                capacity_key
            } else if self.properties.get(&expression_key).map(|v| v.trim()) == Some(label) {
                expression_key
            } else {
                QueueProperty::AccessibleNodeLabels.key(&queue.path)
            };
            return Err(SchedulerError::QueueRule {
                key,
                rule: format!(
                    "{} names label {label}, which is not a cluster node label: add it with \
                     rmadmin -addToClusterNodeLabels first",
                    queue.path
                ),
            });
        }
        Ok(())
    }

    /// Whether `user` in `groups` holds `acl` on the queue at `path`: always when
    /// `yarn.acl.enable` is false; otherwise when the right (or, for submission, the
    /// administer right, which implies it) is granted on the queue or any ancestor.
    pub fn has_access(&self, path: &str, acl: QueueAcl, user: &str, groups: &[String]) -> bool {
        !self.settings.acl_enable || self.grants(path, acl, user, groups)
    }

    /// Whether the queue ACLs grant `user` in `groups` `acl` on the queue at `path`, whatever
    /// `yarn.acl.enable` says: on the queue or any ancestor (or, for submission, the
    /// administer right, which implies it).
    pub fn grants(&self, path: &str, acl: QueueAcl, user: &str, groups: &[String]) -> bool {
        let granted = |right: QueueAcl| {
            self.ancestry(path).iter().any(|queue| {
                queue
                    .acl(right)
                    .is_some_and(|list| list.is_allowed(user, groups))
            })
        };
        granted(acl) || (acl == QueueAcl::SubmitApplications && granted(QueueAcl::AdministerQueue))
    }
}

/// `read`, or, for a configuration already in force (`Unhonoured::Warn`) whose value this
/// binary no longer accepts (an earlier one only warned about the key), `default` for the whole
/// group of keys `read` covers, with a warning: the queues in force keep scheduling until a
/// refresh corrects the file.
fn keep_earlier<T>(
    read: Result<T, SchedulerError>,
    unhonoured: Unhonoured,
    warnings: &mut Vec<String>,
    default: T,
) -> Result<T, SchedulerError> {
    match read {
        Err(err) if unhonoured == Unhonoured::Warn => {
            warnings.push(format!(
                "{err}; {EARLIER_COMMIT}, yarn-ha's defaults for its group of keys are used \
                 until -refreshQueues commits a file without it"
            ));
            Ok(default)
        }
        other => other,
    }
}

/// What becomes of a key the scheduler refuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unhonoured {
    /// The configuration is refused: a file an operator is about to put in force.
    Refuse,
    /// The key is kept as a warning: a configuration already in force.
    Warn,
}

/// The warnings for every key the scheduler does not read, by [`key_verdict`].
///
/// # Errors
///
/// [`SchedulerError::UnhonouredKey`] for the first key (in key order) that is refused, when
/// `unhonoured` says so.
fn judge_unread_keys(
    reader: &PropertyReader<'_>,
    unhonoured: Unhonoured,
) -> Result<Vec<String>, SchedulerError> {
    let mut warnings = Vec::new();
    for key in reader.keys() {
        let value = reader.get(key).unwrap_or_default();
        match key_verdict(key, value) {
            Verdict::Honoured => {}
            Verdict::Warned(warning) => warnings.push(warning),
            Verdict::Refused(reason) if unhonoured == Unhonoured::Warn => warnings.push(format!(
                "{key} = {value:?} is {EARLIER_COMMIT} but ignored: {reason}; \
                 run -refreshQueues with a file without it"
            )),
            Verdict::Refused(reason) => {
                return Err(SchedulerError::UnhonouredKey {
                    key: key.to_owned(),
                    value: value.to_owned(),
                    reason,
                });
            }
        }
    }
    Ok(warnings)
}

/// Walks the hierarchy from `root`, parsing and validating each queue.
struct TreeBuilder<'a> {
    reader: &'a PropertyReader<'a>,
    /// The queues created by submissions, configured by [`expand`].
    dynamic: &'a CreatedQueues,
    settings: &'a SchedulerSettings,
    legacy: bool,
    unhonoured: Unhonoured,
    maximum_am_resource_percent: f64,
    queues: BTreeMap<String, QueueConf>,
    /// Keys ignored: the configuration's warnings so far (shared by the queue parsers, which
    /// borrow the builder).
    warnings: RefCell<Vec<String>>,
}

impl TreeBuilder<'_> {
    fn build(&mut self) -> Result<(), SchedulerError> {
        let mut pending = vec![ROOT.to_string()];
        while let Some(path) = pending.pop() {
            let queue = self.parse_queue(&path)?;
            pending.extend(queue.children.iter().rev().cloned());
            self.queues.insert(path, queue);
        }
        for queue in self.queues.values() {
            self.check_children(queue)?;
        }
        self.check_keys_name_configured_queues()
    }

    /// Refuses the first per-queue key (in key order) whose queue the tree does not hold,
    /// naming the deepest configured queue on its path and that queue's children. For a
    /// configuration in force, such a key is a warning: an earlier version may have committed
    /// it when it read fewer per-queue keys.
    fn check_keys_name_configured_queues(&self) -> Result<(), SchedulerError> {
        for key in self.reader.keys() {
            let Some(path) = configured_queue(key)
                .or_else(|| configured_parent(key))
                .or_else(|| configured_managed_parent(key))
            else {
                continue;
            };
            if self.queues.contains_key(path) {
                continue;
            }
            // `configured_queue` only returns paths whose first component is root, which always
            // exists, so some later component is the first one missing.
            let mut parent = ROOT;
            for component in path.split('.').skip(1) {
                let candidate = &path[..parent.len() + 1 + component.len()];
                if !self.queues.contains_key(candidate) {
                    break;
                }
                parent = candidate;
            }
            let listed = self.queues.get(parent).map_or_else(String::new, |queue| {
                queue
                    .children
                    .iter()
                    .map(|child| child.rsplit('.').next().unwrap_or(child))
                    .collect::<Vec<_>>()
                    .join(",")
            });
            let err = SchedulerError::QueueNotInHierarchy {
                key: key.to_string(),
                queue: path.to_string(),
                parent: parent.to_string(),
                listed,
            };
            if self.unhonoured == Unhonoured::Refuse {
                return Err(err);
            }
            self.warnings.borrow_mut().push(format!(
                "{err}; {EARLIER_COMMIT}, the key is ignored until -refreshQueues \
                 commits a file without it"
            ));
        }
        Ok(())
    }

    fn parse_queue(&self, path: &str) -> Result<QueueConf, SchedulerError> {
        let reader = self.reader;
        let parent = path.rsplit_once('.').map(|(parent, _)| parent.to_string());
        let parent_conf = parent.as_deref().and_then(|parent| self.queues.get(parent));
        let name = path.rsplit('.').next().unwrap_or(path).to_string();

        let children = self.parse_children(path)?;
        let auto_queue_creation = AutoQueueCreation::read(reader, path)?;
        let managed_parent = ManagedParent::read(reader, path)?;
        if managed_parent.is_some() {
            self.check_managed_parent(path, &children, auto_queue_creation.is_some())?;
        }
        let leaf = children.is_empty() && auto_queue_creation.is_none() && managed_parent.is_none();

        let (capacity, maximum_capacity) = match parent_conf {
            None => (QueueCapacity::FULL, QueueCapacity::FULL),
            Some(_) => self.parse_capacities(path)?,
        };

        let state_key = QueueProperty::State.key(path);
        let state = match reader.get(&state_key) {
            None => parent_conf.map_or(QueueState::Running, |p| p.state),
            Some(value) => match QueueState::parse_configured(value) {
                Some(state) => state,
                None => return Err(invalid(&state_key, value, "RUNNING or STOPPED")),
            },
        };
        if let Some(parent) = parent_conf {
            if parent.state == QueueState::Stopped && state == QueueState::Running {
                return Err(SchedulerError::RunningChildOfStoppedParent {
                    queue: path.to_string(),
                    parent: parent.path.clone(),
                });
            }
        }

        let acl = |right: QueueAcl| match reader.get_untrimmed(&QueueProperty::Acl(right).key(path))
        {
            Some(value) => Some(AccessControlList::parse(value)),
            None if parent_conf.is_none() => Some(AccessControlList::everyone()),
            None => None,
        };

        let minimum_user_limit_percent = self.queue_or_global_float(
            path,
            QueueProperty::MinimumUserLimitPercent,
            "a percentage greater than 0 and at most 100",
            |v| v > 0.0 && v <= 100.0,
        )?;
        let minimum_user_limit_percent = minimum_user_limit_percent.unwrap_or(100.0);
        let user_limit_factor = self
            .queue_or_global_float(
                path,
                QueueProperty::UserLimitFactor,
                "-1 or a non-negative factor",
                |v| v == -1.0 || v >= 0.0,
            )?
            .unwrap_or(1.0);

        let mut user_weights = BTreeMap::new();
        let weight_prefix = user_settings_prefix(path);
        for (user, _) in reader.with_prefix_and_suffix(&weight_prefix, USER_WEIGHT_SUFFIX) {
            let key = format!("{weight_prefix}{user}{USER_WEIGHT_SUFFIX}");
            if let Some(weight) = reader.float_in(&key, "a positive weight", |v| v > 0.0)? {
                user_weights.insert(user.to_string(), weight);
            }
        }

        let maximum_applications =
            reader.parse::<u32>(&QueueProperty::MaximumApplications.key(path), COUNT)?;

        let max_parallel_apps =
            match reader.parse::<u32>(&QueueProperty::MaxParallelApps.key(path), COUNT)? {
                Some(limit) => Some(limit),
                None => reader.parse::<u32>(&QueueProperty::MaxParallelApps.global_key(), COUNT)?,
            };

        let maximum_am_resource_percent = reader
            .float_in(
                &QueueProperty::MaximumAmResourcePercent.key(path),
                FRACTION,
                |v| (0.0..=1.0).contains(&v),
            )?
            .unwrap_or(self.maximum_am_resource_percent);

        let inherited_allocation =
            parent_conf.map_or(self.settings.maximum_allocation, |p| p.maximum_allocation);
        let cluster_maximum = self.settings.maximum_allocation;
        let memory_key = QueueProperty::MaximumAllocationMb.key(path);
        let memory =
            match reader.parse::<u64>(&memory_key, "a non-negative integer number of MiB")? {
                Some(memory) if memory > cluster_maximum.memory_mb => {
                    return Err(SchedulerError::MaximumAllocationAboveCluster {
                        queue: path.to_string(),
                        key: memory_key,
                        value: memory,
                        cluster_key: MAXIMUM_ALLOCATION_MB_KEY,
                        cluster_maximum: cluster_maximum.memory_mb,
                    });
                }
                Some(memory) => memory,
                None => inherited_allocation.memory_mb,
            };
        let vcores_key = QueueProperty::MaximumAllocationVcores.key(path);
        let vcores = match reader.parse::<u32>(
            &vcores_key,
            "a non-negative integer number of virtual cores",
        )? {
            Some(vcores) if vcores > cluster_maximum.vcores => {
                return Err(SchedulerError::MaximumAllocationAboveCluster {
                    queue: path.to_string(),
                    key: vcores_key,
                    value: u64::from(vcores),
                    cluster_key: MAXIMUM_ALLOCATION_VCORES_KEY,
                    cluster_maximum: u64::from(cluster_maximum.vcores),
                });
            }
            Some(vcores) => vcores,
            None => inherited_allocation.vcores,
        };

        let default_application_priority = reader
            .parse::<i32>(
                &QueueProperty::DefaultApplicationPriority.key(path),
                "a 32-bit integer",
            )?
            .unwrap_or(0);

        let lifetime_key = |property: QueueProperty| {
            reader.parse::<i64>(
                &property.key(path),
                "a whole number of seconds (0: none; below 0: the parent's)",
            )
        };
        let application_lifetime = ApplicationLifetime::resolve(
            path,
            parent_conf.map(|p| &p.application_lifetime),
            lifetime_key(QueueProperty::MaximumApplicationLifetime)?,
            lifetime_key(QueueProperty::DefaultApplicationLifetime)?,
        )?;
        if leaf && application_lifetime.default_without_maximum() {
            self.warnings.borrow_mut().push(format!(
                "{} (set here or on an ancestor) takes effect only under a \
                 maximum-application-lifetime, as in Hadoop, and {path} has none: its \
                 applications that ask for no lifetime run unlimited",
                QueueProperty::DefaultApplicationLifetime.key(path)
            ));
        }

        // Both inherited from the parent when unset; Hadoop reads booleans regardless of case.
        let inherited_flag = |property: QueueProperty, of_parent: fn(&QueueConf) -> bool| {
            let key = property.key(path);
            match reader.get(&key) {
                Some(value) if value.eq_ignore_ascii_case("true") => Ok(true),
                Some(value) if value.eq_ignore_ascii_case("false") => Ok(false),
                Some(value) => Err(invalid(&key, value, "true or false")),
                None => Ok(parent_conf.is_some_and(of_parent)),
            }
        };
        let disable_preemption =
            inherited_flag(QueueProperty::DisablePreemption, |p| p.disable_preemption)?;
        let intra_queue_disable_preemption =
            inherited_flag(QueueProperty::IntraQueueDisablePreemption, |p| {
                p.intra_queue_disable_preemption
            })?;

        let reservation = ReservationQueueConf::read(reader, path, leaf)?;
        let (ordering_policy, queue_ordering_policy) =
            match self.parse_ordering_policy(path, leaf, reservation.is_some()) {
                Ok(policies) => policies,
                // Earlier versions accepted and ignored these keys: a configuration in force keeps
                // scheduling as it did, saying so.
                Err(err) if self.unhonoured == Unhonoured::Warn => {
                    self.warnings.borrow_mut().push(format!(
                        "{err}; {EARLIER_COMMIT}, {path} orders its applications fifo and its \
                         children by utilization until -refreshQueues commits a file without it"
                    ));
                    (OrderingPolicy::Fifo, QueueOrderingPolicy::Utilization)
                }
                Err(err) => return Err(err),
            };
        let priority = self.parse_priority(path, parent_conf)?;
        let node_labels = QueueNodeLabels::read(reader, path, parent_conf.map(|p| &p.node_labels))?;

        Ok(QueueConf {
            path: path.to_string(),
            name,
            parent,
            children,
            capacity,
            maximum_capacity,
            // The nominal shares need every sibling: set once the tree is built.
            absolute_capacity: 0.0,
            absolute_maximum_capacity: 0.0,
            state,
            acl_submit_applications: acl(QueueAcl::SubmitApplications),
            acl_administer_queue: acl(QueueAcl::AdministerQueue),
            minimum_user_limit_percent,
            user_limit_factor,
            user_weights,
            maximum_applications,
            max_parallel_apps,
            maximum_am_resource_percent,
            maximum_allocation: Resource::new(memory, vcores),
            default_application_priority,
            application_lifetime,
            disable_preemption,
            intra_queue_disable_preemption,
            ordering_policy,
            queue_ordering_policy,
            priority,
            reservation,
            node_labels,
            auto_queue_creation,
            managed_parent,
            creation_method: match parent_conf {
                _ if !self.dynamic.contains_key(path) => CreationMethod::Static,
                Some(parent) if parent.managed_parent.is_some() => CreationMethod::DynamicLegacy,
                _ => CreationMethod::DynamicFlexible,
            },
        })
    }

    /// The queue's `priority` (0 when unset), with a warning when no `priority-utilization`
    /// parent will weigh it. Earlier versions accepted any value and ignored it: a committed
    /// configuration's value that does not parse counts as 0, with a warning.
    fn parse_priority(
        &self,
        path: &str,
        parent_conf: Option<&QueueConf>,
    ) -> Result<i32, SchedulerError> {
        let key = QueueProperty::Priority.key(path);
        let priority = match self.reader.parse::<i32>(&key, "a 32-bit integer") {
            Ok(priority) => priority.unwrap_or(0),
            Err(err) if self.unhonoured == Unhonoured::Warn => {
                self.warnings.borrow_mut().push(format!(
                    "{err}; {EARLIER_COMMIT}, {path} has priority 0 until -refreshQueues \
                     commits a file without it"
                ));
                0
            }
            Err(err) => return Err(err),
        };
        let weighed =
            parent_conf.is_some_and(|parent| parent.queue_ordering_policy.respects_priority());
        if priority != 0 && !weighed {
            self.warnings.borrow_mut().push(format!(
                "{key} = {priority} takes effect only under a parent whose ordering-policy is \
                 priority-utilization, and {path}'s parent orders its children by utilization \
                 (or it is root): ignored"
            ));
        }
        Ok(priority)
    }

    /// Hadoop's rules on a managed parent at `path`: it lists no configured child (its
    /// children are all created) and does not also create queues the flexible way.
    fn check_managed_parent(
        &self,
        path: &str,
        children: &[String],
        flexible: bool,
    ) -> Result<(), SchedulerError> {
        if flexible {
            return Err(SchedulerError::QueueRule {
                key: format!("{PREFIX}{path}{}enabled", managed_parent_queues::INFIX),
                rule: format!(
                    "{path} creates queues both the legacy way (auto-create-child-queue.enabled) \
                     and the flexible way (auto-queue-creation-v2.enabled); enable one"
                ),
            });
        }
        if let Some(configured) = children
            .iter()
            .find(|child| !self.dynamic.contains_key(*child))
        {
            return Err(SchedulerError::QueueRule {
                key: QueueProperty::Queues.key(path),
                rule: format!(
                    "{path} is a managed parent (auto-create-child-queue.enabled), which may \
                     have no configured child queue, but it lists {configured}"
                ),
            });
        }
        Ok(())
    }

    /// The children listed under `<path>.queues`: trimmed, empty entries dropped, each a plain
    /// name listed once.
    fn parse_children(&self, path: &str) -> Result<Vec<String>, SchedulerError> {
        let Some(list) = self.reader.get(&QueueProperty::Queues.key(path)) else {
            return Ok(Vec::new());
        };
        let mut seen = BTreeSet::new();
        let mut children = Vec::new();
        for name in list
            .split(',')
            .map(str::trim)
            .filter(|name| !name.is_empty())
        {
            if name.contains('.') || name.chars().any(char::is_whitespace) {
                return Err(SchedulerError::InvalidQueueName {
                    parent: path.to_string(),
                    name: name.to_string(),
                });
            }
            if !seen.insert(name) {
                return Err(SchedulerError::DuplicateQueue {
                    parent: path.to_string(),
                    queue: name.to_string(),
                });
            }
            children.push(format!("{path}.{name}"));
        }
        Ok(children)
    }

    fn queue_or_global_float(
        &self,
        path: &str,
        property: QueueProperty,
        expected: &'static str,
        valid: impl Fn(f64) -> bool + Copy,
    ) -> Result<Option<f64>, SchedulerError> {
        match self.reader.float_in(&property.key(path), expected, valid)? {
            Some(value) => Ok(Some(value)),
            None => self
                .reader
                .float_in(&property.global_key(), expected, valid),
        }
    }

    /// The `ordering-policy` of the queue at `path`: one of Hadoop's leaf policies on a leaf,
    /// `utilization` or `priority-utilization` on a parent, fifo on a reservable queue; `fair.enable-size-based-weight`
    /// means something only with `fair`, and is warned about elsewhere.
    fn parse_ordering_policy(
        &self,
        path: &str,
        leaf: bool,
        reservable: bool,
    ) -> Result<(OrderingPolicy, QueueOrderingPolicy), SchedulerError> {
        let reader = self.reader;
        let key = QueueProperty::OrderingPolicy.key(path);
        let weight_key = QueueProperty::FairSizeBasedWeight.key(path);
        let size_based_weight = match reader.get(&weight_key) {
            None => None,
            Some(value) if value.eq_ignore_ascii_case("true") => Some(true),
            Some(value) if value.eq_ignore_ascii_case("false") => Some(false),
            Some(value) => return Err(invalid(&weight_key, value, "true or false")),
        };
        let (policy, queue_policy) = match (reader.get(&key), leaf) {
            (None, _) => (OrderingPolicy::Fifo, QueueOrderingPolicy::Utilization),
            (Some(value), true) => (
                OrderingPolicy::parse_leaf(&key, value, size_based_weight.unwrap_or(false))?,
                QueueOrderingPolicy::Utilization,
            ),
            (Some(value), false) => (
                OrderingPolicy::Fifo,
                QueueOrderingPolicy::parse_parent(&key, value)?,
            ),
        };
        if size_based_weight.is_some() && !matches!(policy, OrderingPolicy::Fair { .. }) {
            // As Hadoop, which ignores it there; but not silently.
            self.warnings.borrow_mut().push(format!(
                "{weight_key} applies to the fair ordering policy only, and {path} does not \
                 order its applications fairly: ignored"
            ));
        }
        if reservable && policy != OrderingPolicy::Fifo {
            return Err(SchedulerError::QueueRule {
                key,
                rule: format!(
                    "{path} is reservable, and as in Hadoop its reservations' queues serve their \
                     applications fifo"
                ),
            });
        }
        Ok((policy, queue_policy))
    }

    /// The queue's `capacity` (required) and `maximum-capacity` (all of the parent when unset
    /// or `-1`). In legacy queue mode both use one mode: an absolute capacity takes an absolute
    /// maximum, a percentage or weight a percentage. A maximum below the capacity is refused
    /// where the two compare without a cluster (two percentages, or two absolute resources).
    fn parse_capacities(
        &self,
        path: &str,
    ) -> Result<(QueueCapacity, QueueCapacity), SchedulerError> {
        let reader = self.reader;
        let capacity_key = QueueProperty::Capacity.key(path);
        let capacity = match reader.get(&capacity_key) {
            Some(value) => QueueCapacity::parse(&capacity_key, value, self.legacy)?,
            None => {
                return Err(SchedulerError::MissingCapacity {
                    queue: path.to_string(),
                    key: capacity_key,
                });
            }
        };
        let maximum_key = QueueProperty::MaximumCapacity.key(path);
        let Some(maximum_value) = reader.get(&maximum_key) else {
            return Ok((capacity, QueueCapacity::FULL));
        };
        let maximum = QueueCapacity::parse_maximum(&maximum_key, maximum_value, self.legacy)?;
        let absolute = |capacity: &QueueCapacity| matches!(capacity, QueueCapacity::Absolute(_));
        if self.legacy
            && maximum != QueueCapacity::FULL
            && absolute(&capacity) != absolute(&maximum)
        {
            return Err(SchedulerError::QueueRule {
                key: maximum_key,
                rule: format!(
                    "in legacy queue mode a queue's capacity and maximum-capacity use one mode, \
                     but capacity is {} ({capacity}) and maximum-capacity {} ({maximum})",
                    capacity.mode(),
                    maximum.mode()
                ),
            });
        }
        let above = match (capacity, maximum) {
            (QueueCapacity::Percentage(min), QueueCapacity::Percentage(max)) => min > max,
            (QueueCapacity::Absolute(min), QueueCapacity::Absolute(max)) => {
                min.memory_mb > max.memory_mb || min.vcores > max.vcores
            }
            _ => false,
        };
        if above {
            return Err(SchedulerError::CapacityAboveMaximum {
                queue: path.to_string(),
                capacity: capacity.to_string(),
                maximum_capacity: maximum.to_string(),
            });
        }
        Ok((capacity, maximum))
    }

    /// The share of `label`'s partition the queue at `path` is guaranteed, percent: its
    /// capacity for the label times each ancestor's.
    fn absolute_label_capacity(&self, path: &str, label: &str) -> f64 {
        let mut share = 100.0;
        let mut next = Some(path);
        while let Some(queue) = next.and_then(|path| self.queues.get(path)) {
            if queue.parent.is_some() {
                share *= queue.node_labels.capacity(label).capacity / 100.0;
            }
            next = queue.parent.as_deref();
        }
        share
    }

    /// The rules on a parent's children's capacities. In legacy queue mode the children use
    /// one mode, the same kind as the parent (absolute under an absolute parent, percentages or
    /// weights under any other but `root`), percentages sum to 100 (or to 0 under a parent of
    /// capacity 0) and absolute resources fit in an absolute parent's. Outside it, modes mix
    /// freely and, per resource type, percentages sum to at most 100.
    fn check_children(&self, queue: &QueueConf) -> Result<(), SchedulerError> {
        if queue.is_leaf() {
            return Ok(());
        }
        let children: Vec<&QueueConf> = queue
            .children
            .iter()
            .filter_map(|child| self.queues.get(child))
            .collect();
        let Some(first) = children.first() else {
            return Ok(());
        };
        let labelled: Vec<(&str, &QueueNodeLabels)> = children
            .iter()
            .map(|child| (child.path.as_str(), &child.node_labels))
            .collect();
        // A managed parent's created leaves hold their capacity or none, and a flexible
        // parent's come and go: together they hold at most all of a partition.
        let managed = queue.managed_parent.is_some();
        queue_node_labels::check_children(
            &queue.path,
            |label| self.absolute_label_capacity(&queue.path, label),
            &labelled,
            queue.creates_queues(),
        )?;
        let capacity_key = |child: &QueueConf| QueueProperty::Capacity.key(&child.path);
        // In either mode, as Hadoop: an absolute maximum within the parent's absolute maximum.
        if let QueueCapacity::Absolute(parent_maximum) = queue.maximum_capacity {
            for child in &children {
                if let QueueCapacity::Absolute(maximum) = child.maximum_capacity
                    && (maximum.memory_mb > parent_maximum.memory_mb
                        || maximum.vcores > parent_maximum.vcores)
                {
                    return Err(SchedulerError::QueueRule {
                        key: QueueProperty::MaximumCapacity.key(&child.path),
                        rule: format!(
                            "{} may use at most {}, more than its parent {} may ({})",
                            child.path, child.maximum_capacity, queue.path, queue.maximum_capacity
                        ),
                    });
                }
            }
        }
        if !self.legacy {
            for resource in ResourceType::ALL {
                let percentages: f64 = children
                    .iter()
                    .filter_map(|child| match child.capacity.entry(resource) {
                        CapacityEntry::Percentage(percent) => Some(percent),
                        _ => None,
                    })
                    .sum();
                if percentages > 100.0 + CAPACITY_EPSILON {
                    return Err(SchedulerError::QueueRule {
                        key: capacity_key(first),
                        rule: format!(
                            "the children of {} ({}) give {percentages} percent of its {} in \
                             percentages, more than 100",
                            queue.path,
                            queue.children.join(","),
                            resource.name()
                        ),
                    });
                }
            }
            return Ok(());
        }
        // Hadoop's classification: a child of 0 percent has no mode, so it may sit beside
        // weights or absolute resources.
        let kind = |capacity: &QueueCapacity| match capacity {
            QueueCapacity::Percentage(percent) if *percent > 0.0 => Some("percentage"),
            QueueCapacity::Percentage(_) => None,
            other => Some(other.mode()),
        };
        let classified: Vec<(&QueueConf, &str)> = children
            .iter()
            .filter_map(|child| kind(&child.capacity).map(|kind| (*child, kind)))
            .collect();
        if let Some(&(first, first_kind)) = classified.first()
            && let Some(&(other, _)) = classified.iter().find(|(_, kind)| *kind != first_kind)
        {
            return Err(SchedulerError::QueueRule {
                key: capacity_key(other),
                rule: format!(
                    "in legacy queue mode the children of {} use one capacity mode, but {} is \
                     {} and {} {}; set yarn.scheduler.capacity.legacy-queue-mode.enabled=false \
                     to mix modes",
                    queue.path,
                    first.path,
                    described(first.capacity),
                    other.path,
                    described(other.capacity)
                ),
            });
        }
        let (named, children_kind) = classified.first().copied().unwrap_or((first, "percentage"));
        let parent_absolute = matches!(queue.capacity, QueueCapacity::Absolute(_));
        if queue.parent.is_some() && parent_absolute != (children_kind == "absolute") {
            return Err(SchedulerError::QueueRule {
                key: capacity_key(named),
                rule: format!(
                    "in legacy queue mode a queue and its children both use absolute resources \
                     or neither does, but {} is {} and its child {} {}",
                    queue.path,
                    described(queue.capacity),
                    named.path,
                    described(named.capacity)
                ),
            });
        }
        match (queue.capacity, children_kind) {
            (QueueCapacity::Absolute(parent), "absolute") => {
                let sum = children
                    .iter()
                    .fold(Resource::ZERO, |sum, child| match child.capacity {
                        QueueCapacity::Absolute(amount) => sum.saturating_add(amount),
                        _ => sum,
                    });
                if sum.memory_mb > parent.memory_mb || sum.vcores > parent.vcores {
                    return Err(SchedulerError::QueueRule {
                        key: capacity_key(named),
                        rule: format!(
                            "the children of {} ({}) are guaranteed [memory={},vcores={}] \
                             together, more than its capacity {}",
                            queue.path,
                            queue.children.join(","),
                            sum.memory_mb,
                            sum.vcores,
                            queue.capacity
                        ),
                    });
                }
            }
            (_, "percentage") => {
                let sum: f64 = children
                    .iter()
                    .filter_map(|child| match child.capacity {
                        QueueCapacity::Percentage(percent) => Some(percent),
                        _ => None,
                    })
                    .sum();
                // As in Hadoop: under a parent of capacity 0, or one given a weight.
                let zero_parent = matches!(
                    queue.capacity,
                    QueueCapacity::Percentage(0.0) | QueueCapacity::Weight(_)
                );
                let zero_allowed = zero_parent && sum.abs() <= CAPACITY_EPSILON;
                let within = managed && sum <= 100.0 + CAPACITY_EPSILON;
                if (sum - 100.0).abs() > CAPACITY_EPSILON && !zero_allowed && !within {
                    return Err(SchedulerError::ChildCapacitySum {
                        parent: queue.path.clone(),
                        sum,
                        children: queue.children.join(","),
                    });
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// A capacity for messages, with its mode: "a weight (2w)", "an absolute ([memory=...])".
fn described(capacity: QueueCapacity) -> String {
    let mode = capacity.mode();
    let article = if mode.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {mode} ({capacity})")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue_conf::ApplicationLimits;

    pub(crate) fn props(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (format!("{PREFIX}{k}"), v.to_string()))
            .collect()
    }

    fn three_level() -> BTreeMap<String, String> {
        props(&[
            ("root.queues", "a, b"),
            ("root.a.capacity", "40"),
            ("root.a.maximum-capacity", "60"),
            ("root.b.capacity", "60"),
            ("root.a.queues", "a1,a2"),
            ("root.a.a1.capacity", "25"),
            ("root.a.a2.capacity", "75"),
            ("root.a.a2.maximum-capacity", "80"),
        ])
    }

    fn must_build(properties: BTreeMap<String, String>) -> CapacitySchedulerConfiguration {
        CapacitySchedulerConfiguration::new(properties, SchedulerSettings::default()).unwrap()
    }

    fn must_fail(properties: BTreeMap<String, String>) -> String {
        CapacitySchedulerConfiguration::new(properties, SchedulerSettings::default())
            .unwrap_err()
            .to_string()
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn a_value_refused_now_but_committed_earlier_keeps_the_queues_scheduling() {
        let mut properties = three_level();
        properties.extend(props(&[
            ("node-locality-delay", "forty"),
            ("schedule-asynchronously.enable", "sometimes"),
        ]));
        let message = must_fail(properties.clone());
        assert!(message.contains("node-locality-delay"), "{message}");
        let committed =
            CapacitySchedulerConfiguration::committed(properties, SchedulerSettings::default())
                .unwrap();
        assert_eq!(committed.locality_delay(), LocalityDelay::default());
        assert_eq!(committed.heartbeat_assignments(), None);
        for key in ["node-locality-delay", "schedule-asynchronously.enable"] {
            assert!(
                committed
                    .warnings()
                    .iter()
                    .any(|w| w.contains(key) && w.contains(EARLIER_COMMIT)),
                "{key}: {:?}",
                committed.warnings()
            );
        }
    }

    #[test]
    fn absolute_capacities_multiply_down_a_three_level_tree() {
        let conf = must_build(three_level());
        let a = conf.queue("root.a").unwrap();
        let a1 = conf.queue("root.a.a1").unwrap();
        let a2 = conf.queue("root.a.a2").unwrap();
        let b = conf.queue("root.b").unwrap();
        assert_eq!(a.children, vec!["root.a.a1", "root.a.a2"]);
        assert!(close(a.absolute_capacity, 40.0) && close(a.absolute_maximum_capacity, 60.0));
        assert!(close(a1.absolute_capacity, 10.0));
        assert!(close(a1.absolute_maximum_capacity, 60.0));
        assert!(close(a2.absolute_capacity, 30.0));
        assert!(close(a2.absolute_maximum_capacity, 48.0));
        assert!(close(b.absolute_maximum_capacity, 100.0));
        // Scaled maximum-applications and the per-user share follow YARN's formula.
        let limits = |queue: &QueueConf| {
            queue.application_limits(conf.maximum_applications(), queue.absolute_capacity)
        };
        assert_eq!(
            limits(a1),
            ApplicationLimits {
                queue: 1000,
                per_user: 1000
            }
        );
        assert_eq!(limits(b).queue, 6000);
    }

    #[test]
    fn resolves_bare_names_unless_ambiguous() {
        let mut p = three_level();
        p.extend(props(&[
            ("root.b.queues", "a1"),
            ("root.b.a1.capacity", "100"),
        ]));
        let conf = must_build(p);
        assert_eq!(conf.resolve("a2").unwrap().path, "root.a.a2");
        assert_eq!(conf.resolve("root.b.a1").unwrap().path, "root.b.a1");
        assert_eq!(
            conf.resolve("a1").unwrap_err(),
            vec!["root.a.a1".to_string(), "root.b.a1".to_string()]
        );
        assert!(conf.resolve("nope").unwrap_err().is_empty());
    }

    #[test]
    fn children_must_sum_to_100() {
        let mut p = three_level();
        p.insert(format!("{PREFIX}root.a.a2.capacity"), "70".into());
        let message = must_fail(p);
        assert!(message.contains("root.a"), "{message}");
        assert!(message.contains("95"), "{message}");
    }

    #[test]
    fn capacity_above_maximum_is_rejected_with_both_numbers() {
        let mut p = three_level();
        p.insert(format!("{PREFIX}root.b.maximum-capacity"), "50".into());
        let message = must_fail(p);
        assert!(
            message.contains("root.b") && message.contains("60") && message.contains("50"),
            "{message}"
        );
    }

    #[test]
    fn out_of_range_and_malformed_values_name_key_value_and_expectation() {
        let mut p = three_level();
        p.insert(format!("{PREFIX}root.b.capacity"), "160".into());
        let message = must_fail(p);
        assert!(
            message.contains("yarn.scheduler.capacity.root.b.capacity"),
            "{message}"
        );
        assert!(
            message.contains("160") && message.contains("between 0 and 100"),
            "{message}"
        );

        let mut p = three_level();
        p.insert(format!("{PREFIX}root.a.a1.user-limit-factor"), "two".into());
        let message = must_fail(p);
        assert!(message.contains("root.a.a1.user-limit-factor"), "{message}");
        assert!(message.contains("\"two\""), "{message}");

        let mut p = three_level();
        p.insert(format!("{PREFIX}root.a.a1.capacity"), "2w".into());
        let message = must_fail(p);
        // A weight beside a percentage: legacy queue mode does not mix modes under one parent.
        assert!(
            message.contains("root.a.a2.capacity")
                && message.contains("root.a.a1 is a weight (2w)")
                && message.contains("legacy-queue-mode.enabled=false"),
            "{message}"
        );
    }

    #[test]
    fn a_queue_listed_twice_and_missing_capacities_are_rejected() {
        let mut p = three_level();
        p.insert(format!("{PREFIX}root.a.queues"), "a1,a2,a1".into());
        let message = must_fail(p);
        assert!(
            message.contains("a1") && message.contains("root.a"),
            "{message}"
        );
        assert!(message.contains("more than once"), "{message}");

        let mut p = three_level();
        p.remove(&format!("{PREFIX}root.a.a1.capacity"));
        let message = must_fail(p);
        assert!(
            message.contains("root.a.a1") && message.contains("no capacity"),
            "{message}"
        );
    }

    #[test]
    fn unknown_resource_calculator_is_rejected() {
        let mut p = three_level();
        p.insert(RESOURCE_CALCULATOR_KEY.to_string(), "my.Calculator".into());
        let message = must_fail(p);
        assert!(message.contains(RESOURCE_CALCULATOR_KEY) && message.contains("my.Calculator"));
    }

    #[test]
    fn per_queue_maximum_allocation_is_inherited_and_capped_by_the_cluster() {
        let mut p = three_level();
        p.insert(
            format!("{PREFIX}root.a.maximum-allocation-mb"),
            "4096".into(),
        );
        let conf = must_build(p.clone());
        assert_eq!(
            conf.queue("root.a.a1").unwrap().maximum_allocation,
            Resource::new(4096, 4)
        );
        p.insert(
            format!("{PREFIX}root.b.maximum-allocation-vcores"),
            "8".into(),
        );
        let message = must_fail(p);
        assert!(
            message.contains("root.b.maximum-allocation-vcores"),
            "{message}"
        );
        assert!(
            message.contains("yarn.scheduler.maximum-allocation-vcores"),
            "{message}"
        );
    }

    #[test]
    fn stopped_state_is_inherited_and_running_children_of_stopped_parents_are_rejected() {
        let mut p = three_level();
        p.insert(format!("{PREFIX}root.a.state"), "STOPPED".into());
        let conf = must_build(p.clone());
        assert_eq!(conf.queue("root.a.a1").unwrap().state, QueueState::Stopped);
        p.insert(format!("{PREFIX}root.a.a1.state"), "RUNNING".into());
        let message = must_fail(p);
        assert!(
            message.contains("root.a.a1") && message.contains("root.a"),
            "{message}"
        );
    }

    #[test]
    fn acls_inherit_from_ancestors_and_administer_implies_submit() {
        let mut p = three_level();
        p.insert(format!("{PREFIX}root.acl_submit_applications"), " ".into());
        p.insert(format!("{PREFIX}root.acl_administer_queue"), "boss".into());
        p.insert(
            format!("{PREFIX}root.a.acl_submit_applications"),
            "alice devs".into(),
        );
        let settings = SchedulerSettings {
            acl_enable: true,
            ..SchedulerSettings::default()
        };
        let conf = CapacitySchedulerConfiguration::new(p, settings).unwrap();
        let submit = QueueAcl::SubmitApplications;
        assert!(conf.has_access("root.a.a1", submit, "alice", &[]));
        assert!(conf.has_access("root.a.a2", submit, "carol", &["devs".to_string()]));
        assert!(!conf.has_access("root.b", submit, "alice", &[]));
        assert!(conf.has_access("root.b", submit, "boss", &[]));
        assert!(!conf.has_access("root.a.a1", QueueAcl::AdministerQueue, "alice", &[]));
    }

    #[test]
    fn user_settings_are_read() {
        let mut p = three_level();
        p.extend(props(&[
            ("root.a.a1.user-settings.alice.weight", "1.5"),
            ("user.max-parallel-apps", "3"),
            ("user-settings.bob.max-parallel-apps", "1"),
            ("max-parallel-apps", "7"),
            ("root.b.max-parallel-apps", "2"),
        ]));
        let conf = must_build(p);
        assert!(close(
            conf.queue("root.a.a1").unwrap().user_weight("alice"),
            1.5
        ));
        assert!(close(
            conf.queue("root.a.a1").unwrap().user_weight("bob"),
            1.0
        ));
        assert_eq!(conf.user_max_parallel_apps("bob"), Some(1));
        assert_eq!(conf.user_max_parallel_apps("carol"), Some(3));
        assert_eq!(conf.queue("root.b").unwrap().max_parallel_apps, Some(2));
        assert_eq!(conf.queue("root.a").unwrap().max_parallel_apps, Some(7));
    }
}
