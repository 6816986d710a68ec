//! The node observer: polls every NodeManager's container list, past the proxies, and keeps
//! each change.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use rustls::ClientConfig;
use serde::Deserialize;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use crate::https_get::https_get;
use crate::observations::{ContainerView, NodeSnapshot};
use crate::run_clock::RunClock;

/// How often every NodeManager is asked.
pub const NODE_POLL: Duration = Duration::from_millis(250);

/// How long one NodeManager may take to answer.
const CALL_DEADLINE: Duration = Duration::from_secs(1);

/// The NodeManager REST path listing every container the node knows.
const CONTAINERS_PATH: &str = "/ws/v1/node/containers";

/// `{"containers": {"container": [...]}}`, the fields the harness reads.
#[derive(Debug, Deserialize)]
struct ContainersDocument {
    containers: ContainerList,
}

#[derive(Debug, Deserialize)]
struct ContainerList {
    container: Vec<ContainerEntry>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ContainerEntry {
    id: String,
    state: String,
    exit_code: i32,
    execution_type: String,
    #[serde(rename = "totalMemoryNeededMB")]
    total_memory_needed_mb: u64,
    #[serde(rename = "totalVCoresNeeded")]
    total_vcores_needed: u64,
}

/// Parses a `/ws/v1/node/containers` document into container views, sorted by id.
///
/// # Errors
///
/// When the body is not such a document.
pub fn parse_containers(body: &[u8]) -> Result<Vec<ContainerView>, String> {
    let document: ContainersDocument =
        serde_json::from_slice(body).map_err(|err| format!("not a container list: {err}"))?;
    let mut containers: Vec<ContainerView> = document
        .containers
        .container
        .into_iter()
        .map(|entry| ContainerView {
            id: entry.id,
            state: entry.state,
            execution_type: entry.execution_type,
            memory_mb: entry.total_memory_needed_mb,
            vcores: entry.total_vcores_needed,
            exit_code: entry.exit_code,
        })
        .collect();
    containers.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(containers)
}

/// Asks every NodeManager (name to web address) for its containers every [`NODE_POLL`] until
/// `cancel` fires, with `client` (HTTP/1.1 over the harness user's TLS), and returns a
/// snapshot each time a node's list differs from its previous one. A node that does not answer
/// (killed, paused) yields nothing until it answers again.
pub async fn observe_nodes(
    nodes: BTreeMap<String, String>,
    client: Arc<ClientConfig>,
    clock: RunClock,
    cancel: CancellationToken,
) -> Vec<NodeSnapshot> {
    let mut snapshots = Vec::new();
    let mut last: BTreeMap<String, Vec<ContainerView>> = BTreeMap::new();
    let mut ticks = tokio::time::interval(NODE_POLL);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            () = cancel.cancelled() => return snapshots,
            _ = ticks.tick() => {}
        }
        let mut asking = JoinSet::new();
        for (node, address) in &nodes {
            let (node, address, client) = (node.clone(), address.clone(), Arc::clone(&client));
            asking.spawn(async move {
                let answer = https_get(&address, client, CONTAINERS_PATH, CALL_DEADLINE).await;
                (node, answer)
            });
        }
        let mut answers = Vec::new();
        while let Some(joined) = asking.join_next().await {
            if let Ok(answer) = joined {
                answers.push(answer);
            }
        }
        answers.sort_by(|a, b| a.0.cmp(&b.0));
        for (node, answer) in answers {
            let Ok((200, body)) = answer else { continue };
            let Ok(containers) = parse_containers(&body) else {
                continue;
            };
            if last.get(&node) == Some(&containers) {
                continue;
            }
            last.insert(node.clone(), containers.clone());
            snapshots.push(NodeSnapshot {
                at_ms: clock.now_ms(),
                node,
                containers,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nodemanager_container_list_becomes_sorted_views() {
        let body = br#"{"containers":{"container":[
            {"id":"container_1_0001_01_000002","state":"RUNNING","exitCode":-1000,
             "diagnostics":"","user":"u","totalMemoryNeededMB":256,"totalVCoresNeeded":1,
             "containerLogsLink":"","nodeId":"127.0.0.1:1","containerLogFiles":[],
             "executionType":"OPPORTUNISTIC"},
            {"id":"container_1_0001_01_000001","state":"COMPLETE","exitCode":0,
             "totalMemoryNeededMB":128,"totalVCoresNeeded":1,"executionType":"GUARANTEED"}
        ]}}"#;
        let views = parse_containers(body).unwrap();
        assert_eq!(views.len(), 2);
        assert_eq!(views[0].id, "container_1_0001_01_000001");
        assert_eq!(
            (views[0].state.as_str(), views[0].exit_code),
            ("COMPLETE", 0)
        );
        assert_eq!(
            (views[1].execution_type.as_str(), views[1].memory_mb),
            ("OPPORTUNISTIC", 256)
        );
        assert!(
            parse_containers(b"{}")
                .unwrap_err()
                .contains("not a container list")
        );
    }
}
