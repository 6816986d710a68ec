//! Node labels on three replicas over mutual TLS: rmadmin's verbs commit the cluster's labels
//! and a NodeManager's label through Raft, every replica stores them, an ask for the label is
//! placed on the labelled NodeManager only, and what the scheduler cannot serve is refused by
//! name. With `yarn.node-labels.enabled` false, the verbs are refused.

use std::collections::BTreeMap;

use yarn_test_support::rm_cluster::{RmCluster, node_registration};

use crate::applications::{allocate_until, amrm_token, ask, register_am, submit, with_token};
use crate::support::{
    NM_HOST, USER, eventually, new_cluster, on_leader, register_node, register_node_with,
    set_queue_configuration,
};
use yarn_proto::pb;

/// The port of the second NodeManager on [`NM_HOST`], the one labelled `gpu`.
const GPU_PORT: i32 = 45455;

async fn add_gpu_label(cluster: &RmCluster) -> Result<(), tonic::Status> {
    let leader = cluster.serving_leader(None).await;
    cluster
        .admin(leader, USER)
        .await
        .add_to_cluster_node_labels(pb::AddToClusterNodeLabelsRequestProto {
            node_labels: vec![pb::NodeLabelProto {
                name: "gpu".to_owned(),
                is_exclusive: Some(true),
            }],
            ..Default::default()
        })
        .await
        .map(drop)
}

fn labelled_queues() -> BTreeMap<String, String> {
    [
        ("root.queues", "default"),
        ("root.default.capacity", "100"),
        ("root.default.accessible-node-labels", "gpu"),
        ("root.accessible-node-labels.gpu.capacity", "100"),
        ("root.default.accessible-node-labels.gpu.capacity", "100"),
    ]
    .into_iter()
    .map(|(key, value)| (format!("yarn.scheduler.capacity.{key}"), value.to_owned()))
    .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_labelled_ask_runs_on_the_labelled_node_only() {
    let mut cluster = new_cluster(3, 0, &[("yarn.node-labels.enabled", "true")]).await;
    cluster.start_members().await;
    label_a_node_and_ask_for_it(&cluster).await;
    for index in 0..3 {
        cluster.stop(index).await;
    }
}

async fn label_a_node_and_ask_for_it(cluster: &RmCluster) {
    register_node(cluster, 4096, 8).await;
    let mut gpu_node = node_registration(NM_HOST, 4096, 8);
    if let Some(id) = gpu_node.node_id.as_mut() {
        id.port = GPU_PORT;
    }
    register_node_with(cluster, gpu_node).await;

    on_leader(cluster, "AddToClusterNodeLabels", |_| {
        add_gpu_label(cluster)
    })
    .await;
    let mapping = pb::ReplaceLabelsOnNodeRequestProto {
        node_to_labels: vec![pb::NodeIdToLabelsProto {
            node_id: Some(pb::NodeIdProto {
                host: NM_HOST.to_owned(),
                port: GPU_PORT,
            }),
            node_labels: vec!["gpu".to_owned()],
        }],
        fail_on_unknown_nodes: true,
    };
    let mapping = &mapping;
    on_leader(cluster, "ReplaceLabelsOnNodes", |leader| async move {
        cluster
            .admin(leader, USER)
            .await
            .replace_labels_on_nodes(mapping.clone())
            .await
    })
    .await;
    // A node that never registered is refused with -failOnUnknownNodes.
    let leader = cluster.serving_leader(None).await;
    let unknown = cluster
        .admin(leader, USER)
        .await
        .replace_labels_on_nodes(pb::ReplaceLabelsOnNodeRequestProto {
            node_to_labels: vec![pb::NodeIdToLabelsProto {
                node_id: Some(pb::NodeIdProto {
                    host: "elsewhere".to_owned(),
                    port: 0,
                }),
                node_labels: vec!["gpu".to_owned()],
            }],
            fail_on_unknown_nodes: true,
        })
        .await
        .unwrap_err();
    assert!(
        unknown.message().contains("unknown nodes:[elsewhere]"),
        "{unknown}"
    );
    set_queue_configuration(cluster, labelled_queues()).await;

    // Every replica stores the label and the mapping.
    for index in 0..3 {
        let replica = cluster.replica(index);
        eventually("every replica to store the labels", || async {
            replica
                .state()
                .read(|state| {
                    state.node_labels.is_exclusive("gpu") == Some(true)
                        && state.node_labels.mappings().len() == 1
                })
                .then_some(())
        })
        .await;
    }
    let (_, labels) = on_leader(cluster, "GetClusterNodeLabels", |leader| async move {
        cluster
            .client(leader, USER)
            .await
            .get_cluster_node_labels(pb::GetClusterNodeLabelsRequestProto {})
            .await
    })
    .await;
    assert_eq!(labels.into_inner().deprecated_node_labels, ["gpu"]);
    let (_, nodes) = on_leader(cluster, "GetClusterNodes", |leader| async move {
        cluster
            .client(leader, USER)
            .await
            .get_cluster_nodes(pb::GetClusterNodesRequestProto::default())
            .await
    })
    .await;
    let labelled: Vec<(i32, Vec<String>)> = nodes
        .into_inner()
        .node_reports
        .into_iter()
        .map(|report| (report.node_id.unwrap_or_default().port, report.node_labels))
        .collect();
    assert!(
        labelled.contains(&(GPU_PORT, vec!["gpu".to_owned()])),
        "{labelled:?}"
    );

    // The AM goes to the default partition, the gpu tasks to the gpu node.
    let app = submit(cluster, "labelled").await;
    let token = amrm_token(cluster, app).await;
    let leader = register_am(cluster, &token).await;
    let gpu_ask = pb::ResourceRequestProto {
        node_label_expression: "gpu".to_owned(),
        ..ask(3)
    };
    let (got, _, response_id) = allocate_until(cluster, leader, &token, 0, vec![gpu_ask], 3).await;
    let ports: Vec<i32> = got
        .iter()
        .map(|container| container.node_id.clone().unwrap_or_default().port)
        .collect();
    assert_eq!(ports, [GPU_PORT; 3]);

    // An ask for a label the cluster lacks is refused, naming it.
    let refused = cluster
        .scheduler(leader, USER)
        .await
        .allocate(with_token(
            pb::AllocateRequestProto {
                ask: vec![pb::ResourceRequestProto {
                    node_label_expression: "fpga".to_owned(),
                    ..ask(1)
                }],
                response_id,
                ..Default::default()
            },
            &token,
        ))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), tonic::Code::InvalidArgument, "{refused}");
    assert!(refused.message().contains("fpga"), "{refused}");

    // The queue still names the label: it cannot be removed.
    let kept = cluster
        .admin(leader, USER)
        .await
        .remove_from_cluster_node_labels(pb::RemoveFromClusterNodeLabelsRequestProto {
            node_labels: vec!["gpu".to_owned()],
        })
        .await
        .unwrap_err();
    assert!(kept.message().contains("names it"), "{kept}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn label_verbs_are_refused_while_node_labels_are_disabled() {
    let mut cluster = new_cluster(3, 0, &[]).await;
    cluster.start_members().await;
    let refused = eventually("a leader to refuse the label", || async {
        match add_gpu_label(&cluster).await {
            Err(status) if status.code() == tonic::Code::FailedPrecondition => Some(status),
            _ => None,
        }
    })
    .await;
    assert!(
        refused.message().contains("yarn.node-labels.enabled"),
        "{refused}"
    );
    let stored = cluster
        .replica(0)
        .state()
        .read(|state| state.node_labels.is_empty());
    assert!(stored, "nothing was committed");
    for index in 0..3 {
        cluster.stop(index).await;
    }
}
