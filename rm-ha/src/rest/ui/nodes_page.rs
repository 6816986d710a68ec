//! The nodes page (`/cluster/nodes`): Hadoop's table of NodeManagers with its opportunistic
//! columns, filtered by `states` as `/ws/v1/cluster/nodes` is.

use std::cmp::Ordering;

use axum::extract::{Query, State};
use maud::{Markup, html};
use yarn_web::Sorting;

use super::ui_refusal::UiRefusal;
use super::{render, split_query, timestamp};
use crate::rest::RestApi;
use crate::rest::node_info::NodeInfo;
use crate::rest::rest_api::{RestCaller, select_nodes};

/// The columns the table sorts by, with Hadoop's headings.
const COLUMNS: [(&str, &str); 14] = [
    ("rack", "Rack"),
    ("state", "Node State"),
    ("id", "Node Address"),
    ("http", "Node HTTP Address"),
    ("health", "Last health-update"),
    ("containers", "Containers"),
    ("memused", "Mem Used"),
    ("memavail", "Mem Avail"),
    ("vcoresused", "VCores Used"),
    ("vcoresavail", "VCores Avail"),
    ("containerso", "Running Containers (O)"),
    ("memusedo", "Mem Used (O)"),
    ("vcoresusedo", "VCores Used (O)"),
    ("queued", "Queued Containers"),
];

const DEFAULT_SORTING: Sorting = Sorting {
    column: "id",
    descending: false,
};

/// How `a` and `b` compare in `column` (ascending).
fn compare(column: &str, a: &NodeInfo, b: &NodeInfo) -> Ordering {
    match column {
        "rack" => a.rack.cmp(&b.rack),
        "state" => a.state.cmp(&b.state),
        "http" => a.node_http_address.cmp(&b.node_http_address),
        "health" => a.last_health_update.cmp(&b.last_health_update),
        "containers" => a.num_containers.cmp(&b.num_containers),
        "memused" => a.used_memory_mb.cmp(&b.used_memory_mb),
        "memavail" => a.avail_memory_mb.cmp(&b.avail_memory_mb),
        "vcoresused" => a.used_virtual_cores.cmp(&b.used_virtual_cores),
        "vcoresavail" => a.available_virtual_cores.cmp(&b.available_virtual_cores),
        "containerso" => a
            .num_running_opport_containers
            .cmp(&b.num_running_opport_containers),
        "memusedo" => a.used_memory_opport_gb.cmp(&b.used_memory_opport_gb),
        "vcoresusedo" => a
            .used_virtual_cores_opport
            .cmp(&b.used_virtual_cores_opport),
        "queued" => a.num_queued_containers.cmp(&b.num_queued_containers),
        _ => a.id.cmp(&b.id),
    }
}

/// `nodes` sorted by `sorting`; ties by node id.
fn sort(nodes: &mut [NodeInfo], sorting: &Sorting) {
    nodes.sort_by(|a, b| {
        sorting
            .apply(compare(sorting.column, a, b))
            .then_with(|| a.id.cmp(&b.id))
    });
}

pub(super) async fn nodes(
    State(api): State<RestApi>,
    RestCaller(caller): RestCaller,
    Query(query): Query<Vec<(String, String)>>,
) -> Result<Markup, UiRefusal> {
    let (sorting, filter) = split_query(&query, &COLUMNS, DEFAULT_SORTING)?;
    let mut nodes = select_nodes(&api, &filter).await?;
    sort(&mut nodes, &sorting);
    let keep: Vec<(&str, &str)> = filter
        .iter()
        .map(|(name, value)| (name.as_str(), value.as_str()))
        .collect();
    let scheme = if api.tls { "https" } else { "http" };
    let content = html! {
        p { (nodes.len()) " nodes" }
        table #nodes {
            tr {
                @for (key, heading) in COLUMNS {
                    th { (sorting.heading("/cluster/nodes", &keep, key, heading)) }
                }
                th { "Health-report" }
            }
            @for node in &nodes {
                tr data-node=(node.id) {
                    td { (node.rack) }
                    td { (node.state) }
                    td { (node.id) }
                    td { @if !node.node_http_address.is_empty() {
                        a href=(format!("{scheme}://{}/node", node.node_http_address)) {
                            (node.node_http_address)
                        }
                    } }
                    td { (timestamp(node.last_health_update)) }
                    td.num { (node.num_containers) }
                    td.num { (node.used_memory_mb) " MB" }
                    td.num { (node.avail_memory_mb) " MB" }
                    td.num { (node.used_virtual_cores) }
                    td.num { (node.available_virtual_cores) }
                    td.num.opportunistic-containers { (node.num_running_opport_containers) }
                    td.num.opportunistic-memory { (node.used_memory_opport_gb) " MB" }
                    td.num.opportunistic-vcores { (node.used_virtual_cores_opport) }
                    td.num.queued-containers { (node.num_queued_containers) }
                    td { (node.health_report) }
                }
            }
        }
    };
    Ok(render(&api, &caller, "Nodes of the cluster", &content))
}

#[cfg(test)]
mod tests {
    use yarn_proto::ids::NodeId;
    use yarn_proto::pb;

    use super::*;

    fn node(host: &str, queued: i32) -> NodeInfo {
        NodeInfo::describe(&pb::NodeReportProto {
            node_id: Some(NodeId::new(host, 8041).into()),
            num_queued_opportunistic_containers: queued,
            ..Default::default()
        })
    }

    #[test]
    fn nodes_sort_by_an_opportunistic_column_and_by_id_on_ties() {
        let mut nodes = vec![node("h3", 1), node("h1", 4), node("h2", 1)];
        sort(
            &mut nodes,
            &Sorting {
                column: "queued",
                descending: true,
            },
        );
        let ids: Vec<&str> = nodes.iter().map(|node| node.id.as_str()).collect();
        assert_eq!(ids, ["h1:8041", "h2:8041", "h3:8041"]);
        sort(&mut nodes, &DEFAULT_SORTING);
        let ids: Vec<&str> = nodes.iter().map(|node| node.id.as_str()).collect();
        assert_eq!(ids, ["h1:8041", "h2:8041", "h3:8041"]);
    }
}
