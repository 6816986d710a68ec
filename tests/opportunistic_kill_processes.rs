//! GUARANTEED work takes a full node back from OPPORTUNISTIC work, end to end with real
//! processes: one NodeManager of 2 GB runs three OPPORTUNISTIC `sleep` containers of 512 MB
//! placed by its AMRMProxy's distributed scheduler; the scheduler, which does not count them,
//! then gives a second job two GUARANTEED containers of 768 MB on the same node, and the node
//! must kill OPPORTUNISTIC containers (`KILLED_BY_CONTAINER_SCHEDULER`, -108) to start them.

mod common;

use std::path::Path;

use tokio::runtime::Runtime;
use yarn_client::{Idempotency, RmClient, RmClientConfig, RmService};
use yarn_conf::{Configuration, keys};
use yarn_minicluster::LayoutOptions;
use yarn_proto::pb;
use yarn_proto::pb::application_client_protocol_client::ApplicationClientProtocolClient;

use common::process_cluster::{ProcessCluster, eventually, wait_exit};
use common::stdout;

/// What the single node offers: room for the two ApplicationMasters, the three OPPORTUNISTIC
/// containers and not much more.
const NODE_MEMORY_MB: &str = "2048";

/// The running OPPORTUNISTIC containers of the single node, from the leader's node report.
fn running_opportunistic(runtime: &Runtime, conf_dir: &Path) -> i32 {
    let conf = Configuration::load_dir(conf_dir).unwrap();
    let client = RmClient::new(
        &RmClientConfig::from_conf(&conf).unwrap(),
        RmService::Client,
    );
    let nodes = runtime
        .block_on(client.call(Idempotency::Idempotent, |channel| async move {
            ApplicationClientProtocolClient::new(channel)
                .get_cluster_nodes(pb::GetClusterNodesRequestProto::default())
                .await
        }))
        .expect("GetClusterNodes")
        .node_reports;
    let [node] = nodes.as_slice() else {
        panic!("one node expected, got {nodes:?}");
    };
    node.num_running_opportunistic_containers
}

/// Lines of a dshell's result for containers of `execution_type` that ended with `exit`.
fn results(out: &std::process::Output, execution_type: &str, exit: i32) -> usize {
    let wanted = format!(" {execution_type} exit {exit}");
    stdout(out)
        .lines()
        .filter(|line| line.contains(&wanted))
        .count()
}

#[test]
fn guaranteed_containers_kill_opportunistic_ones_on_a_full_node() {
    let _turn = common::process_cluster::one_cluster_at_a_time();
    let site = |key: &yarn_conf::Key, value: &str| (key.name.to_string(), value.to_owned());
    let options = LayoutOptions {
        site: vec![
            site(&keys::NM_PMEM_MB, NODE_MEMORY_MB),
            site(&keys::NM_VCORES, "8"),
            site(&keys::SCHEDULER_MINIMUM_ALLOCATION_MB, "128"),
        ],
        ..LayoutOptions::default()
    };
    let cluster = ProcessCluster::start_with(1, &options);

    let opportunistic = cluster.spawn_dshell(&[
        "--shell_command=sleep 25",
        "--num_containers=3",
        "--container_memory=512",
        "--container_type=OPPORTUNISTIC",
        "--master_memory=128",
    ]);
    eventually("three OPPORTUNISTIC containers running on the node", || {
        (running_opportunistic(cluster.runtime(), cluster.conf_dir()) == 3).then_some(())
    });

    let guaranteed = cluster.spawn_dshell(&[
        "--shell_command=sleep 3",
        "--num_containers=2",
        "--container_memory=768",
        "--container_type=GUARANTEED",
        "--master_memory=128",
    ]);
    let guaranteed = wait_exit(guaranteed, "the GUARANTEED job");
    assert_eq!(guaranteed.status.code(), Some(0), "{}", stdout(&guaranteed));
    assert_eq!(
        results(&guaranteed, "GUARANTEED", 0),
        2,
        "both GUARANTEED containers ran to success: {}",
        stdout(&guaranteed)
    );

    let opportunistic = wait_exit(opportunistic, "the OPPORTUNISTIC job");
    let killed = results(&opportunistic, "OPPORTUNISTIC", -108);
    assert!(
        killed >= 1,
        "the node made room by killing OPPORTUNISTIC containers: {}",
        stdout(&opportunistic)
    );
    assert_eq!(
        killed + results(&opportunistic, "OPPORTUNISTIC", 0),
        3,
        "every OPPORTUNISTIC container was either killed for room or ran to success: {}",
        stdout(&opportunistic)
    );
}
