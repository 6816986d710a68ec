//! The NodeManager's REST routes and their handlers, which only fetch and hand over: the JSON
//! shapes are built by [`NodeInfo`] and [`ContainerInfo`].

use std::io;
use std::path::Path;
use std::sync::Arc;

use axum::extract::{Path as UrlPath, State};
use axum::http::Uri;
use axum::routing::get;
use axum::{Json, Router};
use yarn_proto::ids::ContainerId;
use yarn_web::FrameworkRefusals;

use super::{
    ContainerInfo, ContainerList, ContainerResponse, ContainersResponse, NodeDescription, NodeInfo,
    NodeInfoResponse, NodeMetrics, WebRefusal,
};
use crate::container_manager::{ContainerManager, ContainerReport};

/// What every handler reads.
#[derive(Clone)]
pub(super) struct NodeWeb {
    pub(super) manager: Arc<ContainerManager>,
    pub(super) node: Arc<NodeDescription>,
    metrics: Arc<NodeMetrics>,
}

/// The NodeManager's web routes over `manager`, for the node `node` describes:
///
/// - `GET /ws/v1/node` and `GET /ws/v1/node/info`: [`NodeInfoResponse`];
/// - `GET /ws/v1/node/containers`: [`ContainersResponse`], every container the node knows;
/// - `GET /ws/v1/node/containers/{containerid}`: [`ContainerResponse`], or 400 when the id does
///   not parse and 404 when the node does not know the container;
/// - `GET /metrics`: the node's Prometheus page ([`NodeMetrics`]);
/// - the web UI's pages under `/node` (see `node_pages`);
/// - anything else: 404. Refusals carry Hadoop's `RemoteException` body ([`WebRefusal`]).
///
/// Every route is read-only and open to any caller the web server names (see
/// [`WebServer`](yarn_web::WebServer) and its `WebAccess` for who that is: a certificate of the
/// cluster, `user.name` without TLS, and `dr.who` when anonymous reads are allowed).
pub fn router(manager: Arc<ContainerManager>, node: NodeDescription) -> Router {
    Router::new()
        .route("/ws/v1/node", get(node_info))
        .route("/ws/v1/node/info", get(node_info))
        .route("/ws/v1/node/containers", get(containers))
        .route("/ws/v1/node/containers/{containerid}", get(container))
        .route("/metrics", get(prometheus_metrics))
        .merge(super::node_pages::routes())
        .fallback(no_such_resource)
        .layer(axum::middleware::from_fn(FrameworkRefusals::layer))
        .with_state(NodeWeb {
            manager,
            node: Arc::new(node),
            metrics: Arc::default(),
        })
}

async fn node_info(State(web): State<NodeWeb>) -> Json<NodeInfoResponse> {
    Json(NodeInfoResponse {
        node_info: NodeInfo::describe(&web.node, &web.manager.opportunistic_status()),
    })
}

async fn prometheus_metrics(State(web): State<NodeWeb>) -> impl axum::response::IntoResponse {
    let page = web.metrics.render(
        &web.node,
        &web.manager.container_reports(),
        &web.manager.opportunistic_status(),
        web.manager.state_store_syncs().as_deref(),
    );
    (
        [(
            axum::http::header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        page,
    )
}

async fn containers(State(web): State<NodeWeb>) -> Json<ContainersResponse> {
    let mut container = Vec::new();
    for report in web.manager.container_reports() {
        container.push(describe(&web, &report).await);
    }
    Json(ContainersResponse {
        containers: ContainerList { container },
    })
}

async fn container(
    State(web): State<NodeWeb>,
    UrlPath(container_id): UrlPath<String>,
) -> Result<Json<ContainerResponse>, WebRefusal> {
    let report = find_container(&web, &container_id)?;
    Ok(Json(ContainerResponse {
        container: describe(&web, &report).await,
    }))
}

/// The report of the container named `container_id`: 400 when the id does not parse, 404 when
/// the node does not know it.
pub(super) fn find_container(
    web: &NodeWeb,
    container_id: &str,
) -> Result<ContainerReport, WebRefusal> {
    let container_id: ContainerId = container_id
        .parse()
        .map_err(|source| WebRefusal::InvalidContainerId { source })?;
    web.manager
        .container_reports()
        .into_iter()
        .find(|report| report.container_id == container_id)
        .ok_or_else(|| WebRefusal::ContainerNotFound {
            container_id,
            node_id: web.node.node_id.clone(),
        })
}

async fn no_such_resource(uri: Uri) -> WebRefusal {
    WebRefusal::NoSuchResource {
        path: uri.path().to_owned(),
    }
}

async fn describe(web: &NodeWeb, report: &ContainerReport) -> ContainerInfo {
    let log_files = log_files(&report.log_dir).await;
    ContainerInfo::describe(report, &web.node.node_id, log_files)
}

/// The names of the regular files in `dir`, sorted. A directory that cannot be read lists
/// nothing, as in Hadoop: it does not exist before the container's launch, and a listing is
/// no reason to fail the whole answer.
pub(super) async fn log_files(dir: &Path) -> Vec<String> {
    let mut names = Vec::new();
    if let Err(err) = read_file_names(dir, &mut names).await {
        if err.kind() != io::ErrorKind::NotFound {
            tracing::debug!(dir = %dir.display(), %err, "cannot list container log files");
        }
    }
    names.sort();
    names
}

async fn read_file_names(dir: &Path, names: &mut Vec<String>) -> io::Result<()> {
    let mut entries = tokio::fs::read_dir(dir).await?;
    while let Some(entry) = entries.next_entry().await? {
        if entry.file_type().await?.is_file() {
            names.push(entry.file_name().to_string_lossy().into_owned());
        }
    }
    Ok(())
}
