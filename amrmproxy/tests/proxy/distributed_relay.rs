//! DistributedScheduler in front of the default interceptor and a fake RM over gRPC: the new
//! registration a hidden RM failover brings is adopted (new container_id_start, epoch, sizes
//! and nodes), and containers the RM refuses are dropped and placed again instead of blocking
//! every later allocate.

use yarn_proto::pb;
use yarn_security::{Token, TokenSecretManager};

use crate::fake_rm::FakeRm;
use crate::support::{T0, ask, container_key, default_chain, remote_node};

const OPPORTUNISTIC: pb::ExecutionTypeProto = pb::ExecutionTypeProto::Opportunistic;

fn allocate(response_id: i32, asks: Vec<pb::ResourceRequestProto>) -> pb::AllocateRequestProto {
    pb::AllocateRequestProto {
        ask: asks,
        response_id,
        ..Default::default()
    }
}

fn raw_ids(containers: &[pb::ContainerProto]) -> Vec<i64> {
    containers.iter().map(|c| c.id.unwrap().id).collect()
}

/// The `rm_identifier` (RM epoch) in `container`'s token.
fn token_epoch(container: &pb::ContainerProto) -> i64 {
    let token = Token::try_from(container.container_token.clone().unwrap()).unwrap();
    TokenSecretManager::<pb::ContainerTokenIdentifierProto>::new(container_key())
        .verify(&token, T0)
        .expect("the node's key verifies a local token")
        .rm_identifier
}

#[tokio::test]
async fn after_a_hidden_failover_ids_come_from_the_new_start_with_the_new_epoch_sizes_and_nodes() {
    let rm = FakeRm::start().await;
    let mut chain = default_chain(&rm, true);
    chain
        .register(pb::RegisterApplicationMasterRequestProto::default())
        .await
        .unwrap();
    let old_start = 3 << 40;
    let response = chain
        .allocate(allocate(0, vec![ask(2, "*", 2, OPPORTUNISTIC)]))
        .await
        .unwrap();
    assert_eq!(
        raw_ids(&response.allocated_containers),
        [old_start - 1, old_start - 2]
    );
    assert!(
        response
            .allocated_containers
            .iter()
            .all(|c| token_epoch(c) == 3)
    );

    // A new leader, in epoch 4, with a larger minimum allocation and another node.
    rm.fail_over();
    let new_start = rm.state().container_id_start;
    assert_eq!(new_start, 4 << 40);
    {
        let mut state = rm.state();
        state.minimum_allocation.memory = 2048;
        state.nodes = vec![remote_node("n3")];
    }
    let response = chain.allocate(allocate(1, vec![])).await.unwrap();
    assert_eq!(response.response_id, 2, "the AM noticed nothing");
    assert_eq!(
        rm.state()
            .registrations
            .iter()
            .map(|(_, distributed)| *distributed)
            .collect::<Vec<_>>(),
        [true, true],
        "registered again for distributed scheduling"
    );

    let response = chain
        .allocate(allocate(2, vec![ask(3, "*", 2, OPPORTUNISTIC)]))
        .await
        .unwrap();
    let local = &response.allocated_containers;
    assert_eq!(
        raw_ids(local),
        [new_start - 1, new_start - 2],
        "counted down from the new leader's start"
    );
    for container in local {
        assert_eq!(token_epoch(container), 4, "signed with the new epoch");
        assert_eq!(
            container.resource.as_ref().unwrap().memory,
            2048,
            "1000 MB raised to the new minimum"
        );
        assert_eq!(container.node_id.as_ref().unwrap().host, "n3");
    }
    let reported = raw_ids(&rm.state().reported);
    assert_eq!(
        reported,
        [old_start - 1, old_start - 2, new_start - 1, new_start - 2],
        "each reported once"
    );
}

#[tokio::test]
async fn containers_the_rm_refuses_are_dropped_and_placed_again_without_blocking_the_attempt() {
    let rm = FakeRm::start().await;
    let mut chain = default_chain(&rm, true);
    chain
        .register(pb::RegisterApplicationMasterRequestProto::default())
        .await
        .unwrap();
    let start = 3 << 40;
    // The RM refuses the first container placed (its id is taken, say).
    rm.state().refuse_reported = vec![start - 1];
    let response = chain
        .allocate(allocate(0, vec![ask(2, "*", 2, OPPORTUNISTIC)]))
        .await
        .expect("the refusal is handled within the call");
    assert_eq!(
        raw_ids(&response.allocated_containers),
        [start - 2],
        "the refused container never reaches the AM"
    );
    assert_eq!(
        response.nm_tokens.len(),
        2,
        "NM tokens are harmless to keep"
    );
    assert_eq!(rm.state().report_refusals, 1);
    assert_eq!(raw_ids(&rm.state().reported), [start - 2]);

    // Its ask was given back: the next call places it again under a new id, and later calls
    // go through as usual.
    let response = chain.allocate(allocate(1, vec![])).await.unwrap();
    assert_eq!(raw_ids(&response.allocated_containers), [start - 3]);
    let response = chain.allocate(allocate(2, vec![])).await.unwrap();
    assert!(response.allocated_containers.is_empty());
    assert_eq!(response.response_id, 3);
    assert_eq!(raw_ids(&rm.state().reported), [start - 2, start - 3]);
}
