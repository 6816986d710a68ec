//! [`ThrottleInterceptor`]: limits the rate of one application's allocate calls.

use std::time::Duration;

use yarn_proto::pb;

use crate::request_interceptor::{BoxFuture, Next};
use crate::token_bucket::{Admission, TokenBucket};
use crate::{ApplicationContext, Error, RequestInterceptor, ThrottleConfig};

/// Keeps an ApplicationMaster that heartbeats too fast from flooding the ResourceManager: a
/// [`TokenBucket`] per application (`burst` calls back to back, then
/// `max-allocates-per-second`) on `allocate` and `allocateForDistributedScheduling`.
///
/// A call over the rate is held back until the bucket allows it, the way a busy RM would answer
/// later; the AM sees a slower heartbeat, not an error. Only a call that would wait longer than
/// `max-delay-ms` is refused, with [`Error::Throttled`] (RESOURCE_EXHAUSTED, naming the rate
/// and when to retry). Since the calls of one application run one at a time, with the defaults
/// (10 per second, 1000 ms) no call is ever refused. Registration and finish are never
/// throttled. The bucket is soft state: it starts full after a NodeManager restart.
#[derive(Debug)]
pub struct ThrottleInterceptor {
    config: ThrottleConfig,
    bucket: TokenBucket,
    context: Option<ApplicationContext>,
}

impl ThrottleInterceptor {
    /// An interceptor limiting calls as `config` says.
    pub fn new(config: ThrottleConfig) -> Self {
        Self {
            config,
            bucket: TokenBucket::new(config.max_allocates_per_second, config.burst),
            context: None,
        }
    }

    /// Takes a token or says how long to wait for one.
    fn admit(&mut self) -> Result<Option<Duration>, Error> {
        let context = self
            .context
            .as_ref()
            .expect("the chain initializes every interceptor before calling it");
        let max_delay_ms = u64::try_from(self.config.max_delay.as_millis()).unwrap_or(u64::MAX);
        match self.bucket.admit(context.node().now_ms(), max_delay_ms) {
            Admission::Now => Ok(None),
            Admission::After { delay_ms } => Ok(Some(Duration::from_millis(delay_ms))),
            Admission::Refused { retry_after_ms } => Err(Error::Throttled {
                attempt: context.attempt().to_string(),
                rate_per_second: self.config.max_allocates_per_second,
                burst: self.config.burst,
                retry_after_ms,
                max_delay_ms,
            }),
        }
    }
}

impl RequestInterceptor for ThrottleInterceptor {
    fn init(&mut self, context: ApplicationContext) -> Result<(), Error> {
        self.context = Some(context);
        Ok(())
    }

    fn allocate<'a>(
        &'a mut self,
        request: pb::AllocateRequestProto,
        mut next: Next<'a>,
    ) -> BoxFuture<'a, Result<pb::AllocateResponseProto, Error>> {
        Box::pin(async move {
            if let Some(delay) = self.admit()? {
                tokio::time::sleep(delay).await;
            }
            next.allocate(request).await
        })
    }

    fn allocate_for_distributed_scheduling<'a>(
        &'a mut self,
        request: pb::DistributedSchedulingAllocateRequestProto,
        mut next: Next<'a>,
    ) -> BoxFuture<'a, Result<pb::DistributedSchedulingAllocateResponseProto, Error>> {
        Box::pin(async move {
            if let Some(delay) = self.admit()? {
                tokio::time::sleep(delay).await;
            }
            next.allocate_for_distributed_scheduling(request).await
        })
    }
}
