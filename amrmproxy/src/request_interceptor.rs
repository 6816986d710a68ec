//! [`RequestInterceptor`]: one link of an application's chain, and [`Next`], its handle on the
//! links after it.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;

use yarn_proto::ids::ApplicationAttemptId;
use yarn_proto::pb;

use crate::{ApplicationContext, Error};

/// A boxed, sendable future: what the interceptor methods return, so the trait stays usable as
/// `dyn RequestInterceptor` without an async-trait macro.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// One interceptor of an application's chain (Hadoop's `RequestInterceptor`): it sees every
/// ApplicationMaster call on its way to the ResourceManager and every answer on its way back.
///
/// Each method gets the request and a [`Next`] handle on the interceptors after it. An
/// interceptor may change the request, answer it itself, call `next` once or several times, or
/// ignore `next` and talk to one or more ResourceManagers itself; the last interceptor of a
/// chain always does the latter. Every AM call method has a default that passes the request to
/// `next` unchanged, so an interceptor overrides only what it handles.
///
/// Lifecycle, guaranteed by [`InterceptorChain`](crate::InterceptorChain): [`init`](Self::init)
/// exactly once before any call; then, when the NodeManager restarted, [`recover`](Self::recover)
/// once with what [`state`](Self::state) returned before; calls of one application one at a time
/// (never two at once, so `&mut self` is never contended); [`state`](Self::state) after each
/// call, to persist; [`shutdown`](Self::shutdown) once when the application finishes.
///
/// Errors end the call: the AMRMProxy service turns them into the gRPC status the AM receives.
pub trait RequestInterceptor: Send {
    /// Takes the application's context. Called exactly once, before any other method.
    ///
    /// # Errors
    ///
    /// Any [`Error`]; the application's start then fails and no chain is kept.
    fn init(&mut self, context: ApplicationContext) -> Result<(), Error>;

    /// `registerApplicationMaster`.
    fn register<'a>(
        &'a mut self,
        request: pb::RegisterApplicationMasterRequestProto,
        mut next: Next<'a>,
    ) -> BoxFuture<'a, Result<pb::RegisterApplicationMasterResponseProto, Error>> {
        Box::pin(async move { next.register(request).await })
    }

    /// `allocate`.
    fn allocate<'a>(
        &'a mut self,
        request: pb::AllocateRequestProto,
        mut next: Next<'a>,
    ) -> BoxFuture<'a, Result<pb::AllocateResponseProto, Error>> {
        Box::pin(async move { next.allocate(request).await })
    }

    /// `finishApplicationMaster`.
    fn finish<'a>(
        &'a mut self,
        request: pb::FinishApplicationMasterRequestProto,
        mut next: Next<'a>,
    ) -> BoxFuture<'a, Result<pb::FinishApplicationMasterResponseProto, Error>> {
        Box::pin(async move { next.finish(request).await })
    }

    /// `registerApplicationMasterForDistributedScheduling`: the registration the distributed
    /// scheduler makes on the AM's behalf, answered with the RM's scheduling parameters.
    fn register_for_distributed_scheduling<'a>(
        &'a mut self,
        request: pb::RegisterApplicationMasterRequestProto,
        mut next: Next<'a>,
    ) -> BoxFuture<'a, Result<pb::RegisterDistributedSchedulingAmResponseProto, Error>> {
        Box::pin(async move { next.register_for_distributed_scheduling(request).await })
    }

    /// `allocateForDistributedScheduling`: an allocate carrying only GUARANTEED asks and the
    /// OPPORTUNISTIC containers placed locally since the last one.
    fn allocate_for_distributed_scheduling<'a>(
        &'a mut self,
        request: pb::DistributedSchedulingAllocateRequestProto,
        mut next: Next<'a>,
    ) -> BoxFuture<'a, Result<pb::DistributedSchedulingAllocateResponseProto, Error>> {
        Box::pin(async move { next.allocate_for_distributed_scheduling(request).await })
    }

    /// Restores what [`state`](Self::state) returned before the NodeManager restarted. Called at
    /// most once, right after [`init`](Self::init). The default ignores it.
    ///
    /// # Errors
    ///
    /// Any [`Error`] (for example a corrupt entry); the application's recovery then fails.
    fn recover(&mut self, state: BTreeMap<String, Vec<u8>>) -> Result<(), Error> {
        let _ = state;
        Ok(())
    }

    /// What to persist so that [`recover`](Self::recover) can carry on after a restart; keys
    /// are private to this interceptor. The default persists nothing.
    fn state(&self) -> BTreeMap<String, Vec<u8>> {
        BTreeMap::new()
    }

    /// Releases what the interceptor holds; the application finished or was superseded.
    fn shutdown(&mut self) {}
}

/// The interceptors after the current one, and the way to call them.
///
/// Each method calls the first of them with the rest as its own `Next`. At the end of the chain
/// every method fails with [`Error::NoNextInterceptor`]; pipeline validation makes sure the last
/// interceptor never calls it.
pub struct Next<'a> {
    rest: &'a mut [Box<dyn RequestInterceptor>],
    attempt: ApplicationAttemptId,
}

impl<'a> Next<'a> {
    /// The handle on `rest`, the interceptors of `attempt`'s chain still to run.
    pub(crate) fn new(
        rest: &'a mut [Box<dyn RequestInterceptor>],
        attempt: ApplicationAttemptId,
    ) -> Self {
        Self { rest, attempt }
    }

    /// Whether no interceptor follows.
    pub fn is_end(&self) -> bool {
        self.rest.is_empty()
    }

    /// Passes `registerApplicationMaster` on.
    pub fn register(
        &mut self,
        request: pb::RegisterApplicationMasterRequestProto,
    ) -> BoxFuture<'_, Result<pb::RegisterApplicationMasterResponseProto, Error>> {
        let attempt = self.attempt;
        match self.rest.split_first_mut() {
            Some((first, rest)) => first.register(request, Next { rest, attempt }),
            None => end_of_chain("register", attempt),
        }
    }

    /// Passes `allocate` on.
    pub fn allocate(
        &mut self,
        request: pb::AllocateRequestProto,
    ) -> BoxFuture<'_, Result<pb::AllocateResponseProto, Error>> {
        let attempt = self.attempt;
        match self.rest.split_first_mut() {
            Some((first, rest)) => first.allocate(request, Next { rest, attempt }),
            None => end_of_chain("allocate", attempt),
        }
    }

    /// Passes `finishApplicationMaster` on.
    pub fn finish(
        &mut self,
        request: pb::FinishApplicationMasterRequestProto,
    ) -> BoxFuture<'_, Result<pb::FinishApplicationMasterResponseProto, Error>> {
        let attempt = self.attempt;
        match self.rest.split_first_mut() {
            Some((first, rest)) => first.finish(request, Next { rest, attempt }),
            None => end_of_chain("finish", attempt),
        }
    }

    /// Passes `registerApplicationMasterForDistributedScheduling` on.
    pub fn register_for_distributed_scheduling(
        &mut self,
        request: pb::RegisterApplicationMasterRequestProto,
    ) -> BoxFuture<'_, Result<pb::RegisterDistributedSchedulingAmResponseProto, Error>> {
        let attempt = self.attempt;
        match self.rest.split_first_mut() {
            Some((first, rest)) => {
                first.register_for_distributed_scheduling(request, Next { rest, attempt })
            }
            None => end_of_chain("register_for_distributed_scheduling", attempt),
        }
    }

    /// Passes `allocateForDistributedScheduling` on.
    pub fn allocate_for_distributed_scheduling(
        &mut self,
        request: pb::DistributedSchedulingAllocateRequestProto,
    ) -> BoxFuture<'_, Result<pb::DistributedSchedulingAllocateResponseProto, Error>> {
        let attempt = self.attempt;
        match self.rest.split_first_mut() {
            Some((first, rest)) => {
                first.allocate_for_distributed_scheduling(request, Next { rest, attempt })
            }
            None => end_of_chain("allocate_for_distributed_scheduling", attempt),
        }
    }
}

fn end_of_chain<'a, T: Send + 'a>(
    operation: &'static str,
    attempt: ApplicationAttemptId,
) -> BoxFuture<'a, Result<T, Error>> {
    Box::pin(std::future::ready(Err(Error::NoNextInterceptor {
        operation,
        attempt: attempt.to_string(),
    })))
}
