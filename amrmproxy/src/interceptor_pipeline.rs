//! [`InterceptorPipeline`]: the validated list of interceptors every application's chain is
//! built from.

use crate::interceptor_registry::DISTRIBUTED_SCHEDULER;
use crate::{
    ApplicationContext, Error, InterceptorChain, InterceptorRegistry, InterceptorRole, ProxyConfig,
};

/// The key errors name: `yarn_conf::keys::AMRM_PROXY_INTERCEPTOR_CLASS_PIPELINE` (a test keeps
/// them equal), as a `&'static str`.
const PIPELINE_KEY: &str = "yarn.nodemanager.amrmproxy.interceptor-class.pipeline";

/// The interceptor names of `yarn.nodemanager.amrmproxy.interceptor-class.pipeline`, checked
/// against a registry once, when the NodeManager starts, so that no application start can fail
/// on a configuration mistake.
///
/// Guarantees of a built pipeline:
/// - every name is registered, and none appears twice;
/// - the last interceptor talks to a ResourceManager ([`InterceptorRole::RmFacing`]) and no
///   other one does, so every request reaches the end of the chain and an answer comes back;
/// - with distributed scheduling on, [`DISTRIBUTED_SCHEDULER`] comes first (moved there if it
///   was listed elsewhere, added if it was not), as Hadoop prepends its `DistributedScheduler`.
#[derive(Debug, Clone)]
pub struct InterceptorPipeline {
    names: Vec<String>,
    registry: InterceptorRegistry,
}

impl InterceptorPipeline {
    /// The pipeline `config` names, built from `registry`.
    ///
    /// # Errors
    ///
    /// Those of [`InterceptorPipeline::new`].
    pub fn from_config(config: &ProxyConfig, registry: InterceptorRegistry) -> Result<Self, Error> {
        Self::new(
            &config.interceptor_pipeline,
            config.distributed_scheduling,
            registry,
        )
    }

    /// The pipeline of `names` (first to last; registered names or Hadoop class names of the
    /// built-ins), with [`DISTRIBUTED_SCHEDULER`] first when `distributed_scheduling`.
    ///
    /// # Errors
    ///
    /// Each naming the key and the configured value: [`Error::UnknownInterceptor`],
    /// [`Error::EmptyPipeline`], [`Error::DuplicateInterceptor`],
    /// [`Error::RmFacingInterceptorNotLast`], [`Error::LastInterceptorNotRmFacing`].
    pub fn new(
        names: &[String],
        distributed_scheduling: bool,
        registry: InterceptorRegistry,
    ) -> Result<Self, Error> {
        let key = PIPELINE_KEY;
        let value = names.join(",");
        let unknown = |name: &str| Error::UnknownInterceptor {
            key,
            value: value.clone(),
            name: name.to_owned(),
            known: registry.names(),
        };
        let mut canonical = Vec::with_capacity(names.len() + 1);
        if distributed_scheduling {
            registry
                .role(DISTRIBUTED_SCHEDULER)
                .ok_or_else(|| unknown(DISTRIBUTED_SCHEDULER))?;
            canonical.push(DISTRIBUTED_SCHEDULER.to_owned());
        }
        for name in names {
            let known = registry.canonical(name).ok_or_else(|| unknown(name))?;
            // Listing it as well as enabling distributed scheduling must not run it twice.
            if !(distributed_scheduling && known == DISTRIBUTED_SCHEDULER) {
                canonical.push(known.to_owned());
            }
        }
        let Some(last) = canonical.last() else {
            return Err(Error::EmptyPipeline { key });
        };
        for (index, name) in canonical.iter().enumerate() {
            if canonical[..index].contains(name) {
                return Err(Error::DuplicateInterceptor {
                    key,
                    value,
                    name: name.clone(),
                });
            }
            let rm_facing = registry.role(name) == Some(InterceptorRole::RmFacing);
            if rm_facing && index + 1 < canonical.len() {
                return Err(Error::RmFacingInterceptorNotLast {
                    key,
                    value,
                    name: name.clone(),
                });
            }
        }
        if registry.role(last) != Some(InterceptorRole::RmFacing) {
            return Err(Error::LastInterceptorNotRmFacing {
                key,
                value,
                last: last.clone(),
                rm_facing: registry.names_of(InterceptorRole::RmFacing),
            });
        }
        Ok(Self {
            names: canonical,
            registry,
        })
    }

    /// The interceptors' registered names, first to last.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// A new chain for `context`'s attempt: one fresh interceptor per name, each initialized
    /// with the context, first to last.
    ///
    /// # Errors
    ///
    /// The first interceptor's `init` failure; the interceptors already initialized are shut
    /// down again.
    pub fn build(&self, context: ApplicationContext) -> Result<InterceptorChain, Error> {
        let interceptors = self
            .names
            .iter()
            .filter_map(|name| {
                self.registry
                    .create(name)
                    .map(|interceptor| (name.clone(), interceptor))
            })
            .collect();
        InterceptorChain::init(context, interceptors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_configured_key() {
        assert_eq!(
            PIPELINE_KEY,
            yarn_conf::keys::AMRM_PROXY_INTERCEPTOR_CLASS_PIPELINE.name
        );
    }
}
