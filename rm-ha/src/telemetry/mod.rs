//! The replica's Prometheus metrics ([`RmMetrics`]), the leader's queue figures rendered in them
//! ([`QueueFigures`]), and the gRPC layer that records every call ([`RpcMetricsLayer`]).

mod queue_metrics;
mod rm_metrics;
mod rpc_metrics_layer;

pub(crate) use queue_metrics::QueueFigures;
pub(crate) use rm_metrics::{LeaderFigures, RaftFigures, RmMetrics};
pub(crate) use rpc_metrics_layer::RpcMetricsLayer;
