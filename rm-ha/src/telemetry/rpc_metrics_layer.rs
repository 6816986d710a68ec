//! [`RpcMetricsLayer`]: counts and times every gRPC call a replica answers.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use super::RmMetrics;

/// The layer the replica's gRPC servers are built with: each call is recorded in
/// [`RmMetrics`] under its protocol and method, the two parts of its gRPC path
/// (`/yarn.ApplicationClientProtocol/GetNewApplication`), once its answer is ready. A path no
/// service serves (answered UNIMPLEMENTED) counts as `unknown`/`unknown`, so a caller cannot
/// make up series.
#[derive(Debug, Clone)]
pub(crate) struct RpcMetricsLayer {
    pub(crate) metrics: Arc<RmMetrics>,
}

impl<S> tower::Layer<S> for RpcMetricsLayer {
    type Service = RpcMetricsService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        RpcMetricsService {
            inner,
            metrics: Arc::clone(&self.metrics),
        }
    }
}

/// A service whose calls are recorded; see [`RpcMetricsLayer`].
#[derive(Debug, Clone)]
pub(crate) struct RpcMetricsService<S> {
    inner: S,
    metrics: Arc<RmMetrics>,
}

/// The `grpc-status` of a call no service serves.
const UNIMPLEMENTED: &[u8] = b"12";

impl<S, B, RB> tower::Service<http::Request<B>> for RpcMetricsService<S>
where
    S: tower::Service<http::Request<B>, Response = http::Response<RB>>,
    S::Future: Send + 'static,
{
    type Response = http::Response<RB>;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let (protocol, method) = protocol_and_method(request.uri().path());
        let metrics = Arc::clone(&self.metrics);
        let started = Instant::now();
        let answer = self.inner.call(request);
        Box::pin(async move {
            let answered = answer.await;
            let served = answered.as_ref().is_ok_and(|response| {
                response
                    .headers()
                    .get("grpc-status")
                    .is_none_or(|status| status.as_bytes() != UNIMPLEMENTED)
            });
            if served {
                metrics.record_rpc(&protocol, &method, started.elapsed());
            } else {
                metrics.record_rpc(UNKNOWN, UNKNOWN, started.elapsed());
            }
            answered
        })
    }
}

/// The label of calls no service serves.
const UNKNOWN: &str = "unknown";

/// The service (without its package) and method of a gRPC path; a path of another shape is
/// `unknown`/`unknown`.
fn protocol_and_method(path: &str) -> (String, String) {
    let parts = path.strip_prefix('/').and_then(|rest| rest.split_once('/'));
    match parts {
        Some((service, method)) if !method.contains('/') => {
            let protocol = service.rsplit('.').next().unwrap_or(service);
            (protocol.to_owned(), method.to_owned())
        }
        _ => (UNKNOWN.to_owned(), UNKNOWN.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_grpc_path_names_protocol_and_method() {
        assert_eq!(
            protocol_and_method("/yarn.ApplicationClientProtocol/getNewApplication"),
            (
                "ApplicationClientProtocol".to_owned(),
                "getNewApplication".to_owned()
            )
        );
        assert_eq!(
            protocol_and_method("/oddity"),
            ("unknown".to_owned(), "unknown".to_owned())
        );
    }
}
