//! [`InterceptorChain`]: one application attempt's interceptors, in pipeline order.

use std::collections::BTreeMap;

use yarn_proto::ids::ApplicationAttemptId;
use yarn_proto::pb;

use crate::request_interceptor::Next;
use crate::{ApplicationContext, Error, RequestInterceptor};

/// The interceptors of one application attempt, first to last, built and initialized by
/// [`InterceptorPipeline::build`](crate::InterceptorPipeline::build).
///
/// An ApplicationMaster call enters at the first interceptor, which reaches the others through
/// its [`Next`] handle. The chain owns the lifecycle the [`RequestInterceptor`] contract
/// promises: every interceptor was initialized exactly once before the chain exists; calls take
/// `&mut self`, so one runs at a time; [`recover`](Self::recover) hands each interceptor its own
/// entries of [`state`](Self::state), whose keys are prefixed with the interceptor's name
/// (`<name>/<key>`).
pub struct InterceptorChain {
    context: ApplicationContext,
    names: Vec<String>,
    interceptors: Vec<Box<dyn RequestInterceptor>>,
}

impl InterceptorChain {
    /// Initializes each of `named` with `context`, first to last. When one fails, those already
    /// initialized are shut down and its error returned.
    pub(crate) fn init(
        context: ApplicationContext,
        named: Vec<(String, Box<dyn RequestInterceptor>)>,
    ) -> Result<Self, Error> {
        let (names, mut interceptors): (Vec<String>, Vec<Box<dyn RequestInterceptor>>) =
            named.into_iter().unzip();
        for index in 0..interceptors.len() {
            if let Err(err) = interceptors[index].init(context.clone()) {
                interceptors[..index]
                    .iter_mut()
                    .for_each(|interceptor| interceptor.shutdown());
                return Err(err);
            }
        }
        Ok(Self {
            context,
            names,
            interceptors,
        })
    }

    /// The application's context, shared with every interceptor.
    pub fn context(&self) -> &ApplicationContext {
        &self.context
    }

    /// The attempt this chain serves.
    pub fn attempt(&self) -> ApplicationAttemptId {
        self.context.attempt()
    }

    /// The interceptors' names, first to last.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Runs `registerApplicationMaster` through the chain.
    ///
    /// # Errors
    ///
    /// The first interceptor's error.
    pub async fn register(
        &mut self,
        request: pb::RegisterApplicationMasterRequestProto,
    ) -> Result<pb::RegisterApplicationMasterResponseProto, Error> {
        let attempt = self.attempt();
        Next::new(&mut self.interceptors, attempt)
            .register(request)
            .await
    }

    /// Runs `allocate` through the chain.
    ///
    /// # Errors
    ///
    /// The first interceptor's error.
    pub async fn allocate(
        &mut self,
        request: pb::AllocateRequestProto,
    ) -> Result<pb::AllocateResponseProto, Error> {
        let attempt = self.attempt();
        Next::new(&mut self.interceptors, attempt)
            .allocate(request)
            .await
    }

    /// Runs `finishApplicationMaster` through the chain.
    ///
    /// # Errors
    ///
    /// The first interceptor's error.
    pub async fn finish(
        &mut self,
        request: pb::FinishApplicationMasterRequestProto,
    ) -> Result<pb::FinishApplicationMasterResponseProto, Error> {
        let attempt = self.attempt();
        Next::new(&mut self.interceptors, attempt)
            .finish(request)
            .await
    }

    /// Every interceptor's state to persist, each key prefixed with `<name>/`.
    pub fn state(&self) -> BTreeMap<String, Vec<u8>> {
        let mut state = BTreeMap::new();
        for (name, interceptor) in self.names.iter().zip(&self.interceptors) {
            for (key, value) in interceptor.state() {
                state.insert(format!("{name}/{key}"), value);
            }
        }
        state
    }

    /// Hands each interceptor the entries of `state` under its name, with the prefix removed.
    /// Entries of interceptors no longer in the pipeline (it changed across the restart) are
    /// dropped with a warning.
    ///
    /// # Errors
    ///
    /// The first interceptor's `recover` failure.
    pub fn recover(&mut self, state: BTreeMap<String, Vec<u8>>) -> Result<(), Error> {
        let mut by_interceptor: Vec<BTreeMap<String, Vec<u8>>> =
            vec![BTreeMap::new(); self.interceptors.len()];
        for (key, value) in state {
            let position = key.split_once('/').and_then(|(name, own_key)| {
                self.names
                    .iter()
                    .position(|known| known == name)
                    .map(|index| (index, own_key.to_owned()))
            });
            match position {
                Some((index, own_key)) => {
                    by_interceptor[index].insert(own_key, value);
                }
                None => tracing::warn!(
                    attempt = %self.attempt(),
                    key,
                    "dropping recovered AMRMProxy state of an interceptor no longer in the \
                     pipeline"
                ),
            }
        }
        for (interceptor, own) in self.interceptors.iter_mut().zip(by_interceptor) {
            interceptor.recover(own)?;
        }
        Ok(())
    }

    /// Shuts every interceptor down, first to last.
    pub fn shutdown(&mut self) {
        for interceptor in &mut self.interceptors {
            interceptor.shutdown();
        }
    }
}
