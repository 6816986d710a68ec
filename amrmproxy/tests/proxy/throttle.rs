//! ThrottleInterceptor in a chain: calls over the rate that would wait longer than allowed are
//! refused with RESOURCE_EXHAUSTED, and the node's clock refills the bucket.

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

fn chain(node: std::sync::Arc<TestNode>) -> InterceptorChain {
    let config = proxy_config(
        "throttle,echo",
        false,
        &[
            (
                "yarn.nodemanager.amrmproxy.throttle.max-allocates-per-second",
                "1",
            ),
            ("yarn.nodemanager.amrmproxy.throttle.burst", "2"),
            ("yarn.nodemanager.amrmproxy.throttle.max-delay-ms", "0"),
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
    let mut chain = chain(node.clone());
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
