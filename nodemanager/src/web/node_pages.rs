//! The NodeManager's web UI: Hadoop's pages under `/node`, drawn from the same objects as its
//! REST API, and the log pages of its containers.
//!
//! - `/node`, `/node/node`: the node's figures, opportunistic load included;
//! - `/node/allContainers`: every container the node knows, linked to its logs;
//! - `/node/containerlogs/{container}/{user}`: the container's log files;
//! - `/node/containerlogs/{container}/{user}/{file}`: one file's text (its last
//!   [`LOG_PAGE_BYTES`] when longer).
//!
//! Logs are shown to the application's owner only: the request's user (its certificate's name,
//! or without TLS Hadoop's `user.name`) must be the container's user.

use std::io::SeekFrom;

use axum::Extension;
use axum::Router;
use axum::extract::{Path as UrlPath, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use maud::{Markup, html};
use tokio::io::{AsyncReadExt, AsyncSeekExt};
use yarn_security::Caller;
use yarn_web::{NavLink, NavSection, Page, RemoteUser};

use super::node_web::{NodeWeb, find_container, log_files};
use super::{ContainerInfo, NodeInfo, WebRefusal};
use crate::container_manager::ContainerReport;

/// The most of one log file a page shows: its end, where a failure's reason is.
pub const LOG_PAGE_BYTES: u64 = 1024 * 1024;

const NAV: &[NavSection] = &[NavSection {
    heading: "NodeManager",
    links: &[
        NavLink {
            text: "Node Information",
            href: "/node",
        },
        NavLink {
            text: "List of Containers",
            href: "/node/allContainers",
        },
        NavLink {
            text: "Metrics",
            href: "/metrics",
        },
    ],
}];

/// The pages' routes, for the node's router.
pub(super) fn routes() -> Router<NodeWeb> {
    Router::new()
        .route("/node", get(node))
        .route("/node/node", get(node))
        .route("/node/allContainers", get(containers))
        .route("/node/containerlogs/{container_id}/{user}", get(log_list))
        .route(
            "/node/containerlogs/{container_id}/{user}/{file}",
            get(log_file),
        )
}

/// Who is asking, as the web server named the request's user: a certificate's name, Hadoop's
/// `user.name` without TLS, or `dr.who` for an anonymous read.
fn caller_name(user: &RemoteUser) -> String {
    match &user.0 {
        Caller::Peer(identity) => identity.name.clone(),
        Caller::Anonymous => "dr.who".to_owned(),
    }
}

fn render(web: &NodeWeb, caller: &str, title: &str, content: &Markup) -> Response {
    let daemon = format!("NodeManager {}", web.node.node_id);
    Page {
        daemon: &daemon,
        caller,
        nav: NAV,
    }
    .render(title, content)
    .into_response()
}

async fn node(State(web): State<NodeWeb>, Extension(user): Extension<RemoteUser>) -> Response {
    let info = NodeInfo::describe(&web.node, &web.manager.opportunistic_status());
    let content = html! {
        table #node-info {
            tr { th { "Node ID" } td { (info.id) } }
            tr { th { "Total Vmem allocated for Containers" }
                 td { (info.total_vmem_allocated_containers_mb) " MB" } }
            tr { th { "Total Pmem allocated for Containers" }
                 td { (info.total_pmem_allocated_containers_mb) " MB" } }
            tr { th { "Pmem enforcement enabled" } td { (info.pmem_check_enabled) } }
            tr { th { "Total VCores allocated for Containers" }
                 td { (info.total_vcores_allocated_containers) } }
            tr { th { "Running Containers (O)" } td { (info.num_running_opport_containers) } }
            tr { th { "Mem Used (O)" } td { (info.used_memory_opport_mb) " MB" } }
            tr { th { "VCores Used (O)" } td { (info.used_virtual_cores_opport) } }
            tr { th { "Queued Containers" } td { (info.num_queued_containers) } }
            tr { th { "NodeManager started on" } td { (info.nm_startup_time) } }
            tr { th { "NodeManager Version" } td { (info.node_manager_version) } }
        }
    };
    render(&web, &caller_name(&user), "Node Information", &content)
}

async fn containers(
    State(web): State<NodeWeb>,
    Extension(user): Extension<RemoteUser>,
) -> Response {
    let mut described = Vec::new();
    for report in web.manager.container_reports() {
        let files = log_files(&report.log_dir).await;
        described.push(ContainerInfo::describe(&report, &web.node.node_id, files));
    }
    let content = html! {
        table #containers {
            tr {
                th { "ContainerId" } th { "ContainerState" } th { "Execution Type" }
                th { "User" } th { "Memory" } th { "VCores" } th { "Exit Code" } th { "logs" }
            }
            @for container in &described {
                tr data-container=(container.id) {
                    td { (container.id) }
                    td { (container.state) }
                    td { (container.execution_type) }
                    td { (container.user) }
                    td.num { (container.total_memory_needed_mb) " MB" }
                    td.num { (container.total_vcores_needed) }
                    td.num { @if container.state == "COMPLETE" { (container.exit_code) } }
                    td { a href=(format!("/node/containerlogs/{}/{}", container.id, container.user)) {
                        "logs"
                    } }
                }
            }
        }
    };
    render(&web, &caller_name(&user), "List of Containers", &content)
}

/// The container's report, if `caller` may read its logs.
fn readable_container(
    web: &NodeWeb,
    caller: &str,
    container_id: &str,
) -> Result<ContainerReport, WebRefusal> {
    let report = find_container(web, container_id)?;
    if report.user != caller {
        return Err(WebRefusal::LogAccessDenied {
            caller: caller.to_owned(),
            container_id: report.container_id,
            owner: report.user,
        });
    }
    Ok(report)
}

async fn log_list(
    State(web): State<NodeWeb>,
    Extension(user): Extension<RemoteUser>,
    UrlPath((container_id, _user)): UrlPath<(String, String)>,
) -> Result<Response, WebRefusal> {
    let caller = caller_name(&user);
    let report = readable_container(&web, &caller, &container_id)?;
    let files = log_files(&report.log_dir).await;
    let content = html! {
        @if files.is_empty() {
            p { "No logs yet: the container has not been launched, or wrote none." }
        }
        ul #log-files {
            @for file in &files {
                li { a href=(format!("/node/containerlogs/{container_id}/{}/{file}", report.user)) {
                    (file)
                } }
            }
        }
    };
    Ok(render(
        &web,
        &caller,
        &format!("Logs of {container_id}"),
        &content,
    ))
}

async fn log_file(
    State(web): State<NodeWeb>,
    Extension(user): Extension<RemoteUser>,
    UrlPath((container_id, _user, file)): UrlPath<(String, String, String)>,
) -> Result<Response, WebRefusal> {
    let caller = caller_name(&user);
    let report = readable_container(&web, &caller, &container_id)?;
    // Only a name the directory lists: a path cannot lead out of the container's logs.
    if !log_files(&report.log_dir).await.contains(&file) {
        return Err(WebRefusal::LogFileNotFound {
            container_id: report.container_id,
            file,
        });
    }
    let unreadable = |err: std::io::Error| WebRefusal::LogFileUnreadable {
        container_id: report.container_id,
        file: file.clone(),
        reason: err.to_string(),
    };
    let mut opened = tokio::fs::File::open(report.log_dir.join(&file))
        .await
        .map_err(unreadable)?;
    let length = opened.metadata().await.map_err(unreadable)?.len();
    let skipped = length.saturating_sub(LOG_PAGE_BYTES);
    opened
        .seek(SeekFrom::Start(skipped))
        .await
        .map_err(unreadable)?;
    let mut text = Vec::new();
    opened
        .take(LOG_PAGE_BYTES)
        .read_to_end(&mut text)
        .await
        .map_err(unreadable)?;
    let mut body = String::new();
    if skipped > 0 {
        body.push_str(&format!(
            "[the first {skipped} of {length} bytes are not shown]\n"
        ));
    }
    body.push_str(&String::from_utf8_lossy(&text));
    Ok(([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], body).into_response())
}
