//! ThrottleInterceptor in a chain: calls over the rate that would wait longer than allowed are
//! refused with RESOURCE_EXHAUSTED, and the node's clock refills the bucket; calls that may
//! wait are held back for the bucket's delay, timed on tokio's paused clock.

use std::time::Duration;

use tonic::{Code, Status};
use yarn_amrmproxy::{
    ApplicationContext, BoxFuture, Error, InterceptorChain, InterceptorPipeline,
    InterceptorRegistry, InterceptorRole, Next, RequestInterceptor,
};
use yarn_proto::pb;

use crate::support::{T0, TestNode, USER, attempt, proxy_config, rm_client, rm_token};

/// Answers every registration, and every allocate with the next response id.
struct Echo;

impl RequestInterceptor for Echo {
    fn init(&mut self, _context: ApplicationContext) -> Result<(), Error> {
        Ok(())
    }

    fn register<'a>(
        &'a mut self,
        _request: pb::RegisterApplicationMasterRequestProto,
        _next: Next<'a>,
    ) -> BoxFuture<'a, Result<pb::RegisterApplicationMasterResponseProto, Error>> {
        Box::pin(async { Ok(pb::RegisterApplicationMasterResponseProto::default()) })
    }

    fn allocate<'a>(
        &'a mut self,
        request: pb::AllocateRequestProto,
        _next: Next<'a>,
    ) -> BoxFuture<'a, Result<pb::AllocateResponseProto, Error>> {
        Box::pin(async move {
            Ok(pb::AllocateResponseProto {
                response_id: request.response_id + 1,
                ..Default::default()
            })
        })
    }
}

/// A throttle of one call per second with a burst of two, holding a call back for at most
/// `max_delay_ms`, in front of [`Echo`].
fn chain(node: std::sync::Arc<TestNode>, max_delay_ms: &str) -> InterceptorChain {
    let config = proxy_config(
        "throttle,echo",
        false,
        &[
            (
                "yarn.nodemanager.amrmproxy.throttle.max-allocates-per-second",
                "1",
            ),
            ("yarn.nodemanager.amrmproxy.throttle.burst", "2"),
            (
                "yarn.nodemanager.amrmproxy.throttle.max-delay-ms",
                max_delay_ms,
            ),
        ],
    );
    let mut registry = InterceptorRegistry::with_builtins(&config, rm_client("127.0.0.1:1"));
    registry
        .register("echo", InterceptorRole::RmFacing, || Box::new(Echo))
        .unwrap();
    let pipeline = InterceptorPipeline::from_config(&config, registry).unwrap();
    let context = ApplicationContext::new(attempt(1), USER, rm_token(attempt(1), 1), node);
    pipeline.build(context).unwrap()
}

#[tokio::test]
async fn calls_over_the_rate_are_refused_with_resource_exhausted_until_the_bucket_refills() {
    let node = TestNode::with_keys();
    let mut chain = chain(node.clone(), "0");
    for response_id in 0..2 {
        chain
            .allocate(pb::AllocateRequestProto {
                response_id,
                ..Default::default()
            })
            .await
            .expect("within the burst");
    }
    let err = chain
        .allocate(pb::AllocateRequestProto {
            response_id: 2,
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::Throttled {
                retry_after_ms: 1000,
                max_delay_ms: 0,
                ..
            }
        ),
        "{err:?}"
    );
    let status = Status::from(err);
    assert_eq!(status.code(), Code::ResourceExhausted);
    assert!(status.message().contains("1000 ms"), "{status:?}");

    chain
        .register(Default::default())
        .await
        .expect("registration is never throttled");

    node.set_now(T0 + 1_000);
    let response = chain
        .allocate(pb::AllocateRequestProto {
            response_id: 2,
            ..Default::default()
        })
        .await
        .expect("a token refilled after a second");
    assert_eq!(response.response_id, 3);
}

/// The delay is waited out on tokio's clock while the node's clock stands still, so on a paused
/// clock the hold lasts exactly what the bucket says.
#[tokio::test(start_paused = true)]
async fn a_call_over_the_rate_within_the_longest_delay_is_held_back_for_the_buckets_delay() {
    let node = TestNode::with_keys();
    let mut chain = chain(node.clone(), "1500");
    let started = tokio::time::Instant::now();
    for response_id in 0..2 {
        chain
            .allocate(pb::AllocateRequestProto {
                response_id,
                ..Default::default()
            })
            .await
            .expect("within the burst");
    }
    assert_eq!(
        started.elapsed(),
        Duration::ZERO,
        "the burst goes through at once"
    );

    let response = chain
        .allocate(pb::AllocateRequestProto {
            response_id: 2,
            ..Default::default()
        })
        .await
        .expect("held back, not refused");
    assert_eq!(response.response_id, 3);
    assert_eq!(
        started.elapsed(),
        Duration::from_secs(1),
        "held back until the next token, a second at one call per second"
    );

    // The held call reserved that token: the next one would wait 2 s, beyond the longest delay.
    let err = chain
        .allocate(pb::AllocateRequestProto {
            response_id: 3,
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::Throttled {
                retry_after_ms: 2000,
                max_delay_ms: 1500,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(
        started.elapsed(),
        Duration::from_secs(1),
        "a refusal is answered at once"
    );
}
