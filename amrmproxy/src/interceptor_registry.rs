//! [`InterceptorRegistry`]: the interceptors a pipeline may name, each with a factory.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use yarn_client::RmClient;

use crate::{
    DefaultRequestInterceptor, DistributedScheduler, Error, ProxyConfig, RequestInterceptor,
    ThrottleInterceptor,
};

/// The name of [`DefaultRequestInterceptor`] in a pipeline.
pub const DEFAULT_INTERCEPTOR: &str = "default";
/// The name of [`DistributedScheduler`] in a pipeline.
pub const DISTRIBUTED_SCHEDULER: &str = "distributed-scheduler";
/// The name of [`ThrottleInterceptor`] in a pipeline.
pub const THROTTLE_INTERCEPTOR: &str = "throttle";

/// Hadoop's class names of the built-ins, accepted in a pipeline so that a `yarn-site.xml`
/// written for Hadoop keeps working.
const HADOOP_CLASS_NAMES: [(&str, &str); 2] = [
    (
        "org.apache.hadoop.yarn.server.nodemanager.amrmproxy.DefaultRequestInterceptor",
        DEFAULT_INTERCEPTOR,
    ),
    (
        "org.apache.hadoop.yarn.server.nodemanager.scheduler.DistributedScheduler",
        DISTRIBUTED_SCHEDULER,
    ),
];

/// Makes a fresh interceptor for one application's chain.
pub type InterceptorFactory = Arc<dyn Fn() -> Box<dyn RequestInterceptor> + Send + Sync>;

/// Where an interceptor may stand in a pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InterceptorRole {
    /// Passes requests on to the next interceptor; never last.
    Intermediate,
    /// Talks to one or more ResourceManagers itself and never calls the next interceptor;
    /// always last.
    RmFacing,
}

/// Every interceptor a pipeline may name, by name, with its role and factory (Hadoop loads
/// classes by reflection; here the NodeManager registers factories at start-up).
#[derive(Clone, Default)]
pub struct InterceptorRegistry {
    entries: BTreeMap<String, (InterceptorRole, InterceptorFactory)>,
    aliases: BTreeMap<String, String>,
}

impl InterceptorRegistry {
    /// A registry with no interceptors.
    pub fn new() -> Self {
        Self::default()
    }

    /// A registry with the built-ins: [`DEFAULT_INTERCEPTOR`] (RM-facing, calling the RM group
    /// through `rm`, the scheduler service client), [`THROTTLE_INTERCEPTOR`] (with
    /// `config.throttle`) and [`DISTRIBUTED_SCHEDULER`]; Hadoop's class names of the first and
    /// last are accepted as aliases.
    pub fn with_builtins(config: &ProxyConfig, rm: Arc<RmClient>) -> Self {
        let mut registry = Self::new();
        let throttle = config.throttle;
        registry.insert(
            DEFAULT_INTERCEPTOR,
            InterceptorRole::RmFacing,
            Arc::new(move || Box::new(DefaultRequestInterceptor::new(Arc::clone(&rm)))),
        );
        registry.insert(
            THROTTLE_INTERCEPTOR,
            InterceptorRole::Intermediate,
            Arc::new(move || Box::new(ThrottleInterceptor::new(throttle))),
        );
        registry.insert(
            DISTRIBUTED_SCHEDULER,
            InterceptorRole::Intermediate,
            Arc::new(|| Box::new(DistributedScheduler::new())),
        );
        for (class, name) in HADOOP_CLASS_NAMES {
            registry.aliases.insert(class.to_owned(), name.to_owned());
        }
        registry
    }

    /// Registers `factory` under `name` with `role`; a federation interceptor, for example, is
    /// registered as [`InterceptorRole::RmFacing`] and named last in the pipeline.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInterceptorName`] for an empty name or one with `,`, `/` or whitespace;
    /// [`Error::InterceptorAlreadyRegistered`] when the name (or an alias) is taken.
    pub fn register<F>(
        &mut self,
        name: &str,
        role: InterceptorRole,
        factory: F,
    ) -> Result<(), Error>
    where
        F: Fn() -> Box<dyn RequestInterceptor> + Send + Sync + 'static,
    {
        let invalid = name.is_empty()
            || name
                .chars()
                .any(|c| c == ',' || c == '/' || c.is_whitespace());
        if invalid {
            return Err(Error::InvalidInterceptorName {
                name: name.to_owned(),
            });
        }
        if self.canonical(name).is_some() {
            return Err(Error::InterceptorAlreadyRegistered {
                name: name.to_owned(),
            });
        }
        self.insert(name, role, Arc::new(factory));
        Ok(())
    }

    /// The registered name `name` stands for (itself, or the built-in a Hadoop class name
    /// aliases), if any.
    pub fn canonical(&self, name: &str) -> Option<&str> {
        if let Some((known, _)) = self.entries.get_key_value(name) {
            return Some(known);
        }
        self.aliases.get(name).map(String::as_str)
    }

    /// The role of the interceptor registered as `name` (not an alias).
    pub fn role(&self, name: &str) -> Option<InterceptorRole> {
        self.entries.get(name).map(|(role, _)| *role)
    }

    /// Every registered name, sorted.
    pub fn names(&self) -> Vec<String> {
        self.entries.keys().cloned().collect()
    }

    /// The registered names of `role`, sorted.
    pub fn names_of(&self, role: InterceptorRole) -> Vec<String> {
        self.entries
            .iter()
            .filter(|(_, (r, _))| *r == role)
            .map(|(name, _)| name.clone())
            .collect()
    }

    /// A fresh interceptor of the kind registered as `name`, `None` if there is none.
    pub(crate) fn create(&self, name: &str) -> Option<Box<dyn RequestInterceptor>> {
        self.entries.get(name).map(|(_, factory)| factory())
    }

    fn insert(&mut self, name: &str, role: InterceptorRole, factory: InterceptorFactory) {
        self.entries.insert(name.to_owned(), (role, factory));
    }
}

impl fmt::Debug for InterceptorRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let roles: BTreeMap<&str, InterceptorRole> = self
            .entries
            .iter()
            .map(|(name, (role, _))| (name.as_str(), *role))
            .collect();
        f.debug_struct("InterceptorRegistry")
            .field("interceptors", &roles)
            .field("aliases", &self.aliases)
            .finish()
    }
}
