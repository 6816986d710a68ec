//! The replica's Prometheus metrics ([`RmMetrics`]) and the gRPC layer that records every call
//! ([`RpcMetricsLayer`]).

mod rm_metrics;
mod rpc_metrics_layer;

pub(crate) use rm_metrics::{RaftFigures, RmMetrics};
pub(crate) use rpc_metrics_layer::RpcMetricsLayer;
