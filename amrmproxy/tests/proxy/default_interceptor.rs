//! DefaultRequestInterceptor against a fake RM over gRPC: RM failovers hidden from the AM, RM
//! token rolls kept from it.

use tonic::Status;
use yarn_amrmproxy::Error;
use yarn_proto::pb;
use yarn_proto::token_metadata::is_not_registered;

use crate::fake_rm::FakeRm;
use crate::support::{ask, attempt, default_chain, rm_container, rm_token};

const GUARANTEED: pb::ExecutionTypeProto = pb::ExecutionTypeProto::Guaranteed;

fn registration() -> pb::RegisterApplicationMasterRequestProto {
    pb::RegisterApplicationMasterRequestProto {
        host: "am-host".to_owned(),
        rpc_port: 7,
        tracking_url: "http://am-host:8080".to_owned(),
    }
}

fn allocate(response_id: i32, asks: Vec<pb::ResourceRequestProto>) -> pb::AllocateRequestProto {
    pb::AllocateRequestProto {
        ask: asks,
        response_id,
        ..Default::default()
    }
}

#[tokio::test]
async fn a_failover_is_hidden_by_registering_again_and_resending_what_is_outstanding() {
    let rm = FakeRm::start().await;
    let mut chain = default_chain(&rm, false);
    chain.register(registration()).await.unwrap();
    rm.state().to_allocate = vec![rm_container(attempt(1), 1, "h1")];
    let mut first = allocate(
        0,
        vec![ask(1, "*", 3, GUARANTEED), ask(1, "h1", 2, GUARANTEED)],
    );
    first.blacklist_request = Some(pb::ResourceBlacklistRequestProto {
        blacklist_additions: vec!["bad-host".to_owned()],
        blacklist_removals: Vec::new(),
    });
    let response = chain.allocate(first).await.unwrap();
    assert_eq!(response.response_id, 1);
    assert_eq!(response.allocated_containers.len(), 1);

    rm.fail_over();
    let response = chain.allocate(allocate(1, vec![])).await.unwrap();
    assert_eq!(response.response_id, 2, "the AM's response ids carry on");
    {
        let state = rm.state();
        assert_eq!(state.not_registered_refusals, 1);
        assert_eq!(
            state.registrations,
            [(registration(), false), (registration(), false)],
            "registered again with what the AM registered with"
        );
        let resent = state.allocates.last().unwrap();
        assert_eq!(resent.response_id, 0, "the new leader counts from 0");
        let asks: Vec<(&str, i32)> = resent
            .ask
            .iter()
            .map(|a| (a.resource_name.as_str(), a.num_containers))
            .collect();
        assert_eq!(
            asks,
            [("*", 2), ("h1", 1)],
            "everything outstanding, less the container already allocated"
        );
        assert_eq!(
            resent
                .blacklist_request
                .as_ref()
                .unwrap()
                .blacklist_additions,
            ["bad-host"]
        );
    }

    let response = chain.allocate(allocate(2, vec![])).await.unwrap();
    assert_eq!(response.response_id, 3);
    assert_eq!(rm.state().allocates.last().unwrap().response_id, 1);
    // A duplicate of the AM's last request gets the last answer again.
    let again = chain.allocate(allocate(2, vec![])).await.unwrap();
    assert_eq!(again.response_id, 3);

    assert!(
        rm.state()
            .tokens
            .iter()
            .all(|token| *token == rm_token(attempt(1), 1)),
        "every RM call carries the RM's token"
    );
}

#[tokio::test]
async fn containers_a_new_leader_hands_out_again_do_not_shrink_the_asks_resent_after_it() {
    let rm = FakeRm::start().await;
    let mut chain = default_chain(&rm, false);
    chain.register(registration()).await.unwrap();
    rm.state().to_allocate = vec![rm_container(attempt(1), 1, "h1")];
    chain
        .allocate(allocate(0, vec![ask(1, "*", 3, GUARANTEED)]))
        .await
        .unwrap();
    let resent_asks = |rm: &FakeRm| -> Vec<(String, i32)> {
        rm.state()
            .allocates
            .last()
            .unwrap()
            .ask
            .iter()
            .map(|a| (a.resource_name.clone(), a.num_containers))
            .collect()
    };
    // Two failovers in a row; after each the new leader hands out container 1 again.
    for (response_id, failover) in [(1, "first"), (2, "second")] {
        rm.fail_over();
        let response = chain.allocate(allocate(response_id, vec![])).await.unwrap();
        assert_eq!(
            resent_asks(&rm),
            [("*".to_owned(), 2)],
            "after the {failover} failover the proxy asks for the two containers still missing"
        );
        assert_eq!(response.allocated_containers.len(), 1, "container 1 again");
    }
}

#[tokio::test]
async fn a_rolled_rm_token_is_kept_for_the_rm_and_never_reaches_the_am() {
    let rm = FakeRm::start().await;
    let mut chain = default_chain(&rm, false);
    chain.register(registration()).await.unwrap();
    rm.state().new_amrm_token = Some(rm_token(attempt(1), 2));

    let response = chain.allocate(allocate(0, vec![])).await.unwrap();
    assert_eq!(response.am_rm_token, None, "stripped before the AM sees it");
    assert_eq!(chain.context().rm_token(), rm_token(attempt(1), 2));

    chain.allocate(allocate(1, vec![])).await.unwrap();
    assert_eq!(
        rm.state().tokens.last().unwrap(),
        &rm_token(attempt(1), 2),
        "later calls present the new RM token"
    );
}

#[tokio::test]
async fn finish_after_a_failover_registers_again_first() {
    let rm = FakeRm::start().await;
    let mut chain = default_chain(&rm, false);
    chain.register(registration()).await.unwrap();
    rm.fail_over();
    let response = chain
        .finish(pb::FinishApplicationMasterRequestProto::default())
        .await
        .unwrap();
    assert!(response.is_unregistered);
    let state = rm.state();
    assert_eq!(state.registrations.len(), 2);
    assert_eq!(state.finishes, 1);
}

#[tokio::test]
async fn without_a_registration_through_the_proxy_the_refusal_reaches_the_am() {
    let rm = FakeRm::start().await;
    let mut chain = default_chain(&rm, false);
    let err = chain.allocate(allocate(0, vec![])).await.unwrap_err();
    assert!(matches!(err, Error::Rm { .. }), "{err:?}");
    let status = Status::from(err);
    assert!(
        is_not_registered(&status),
        "the AM must see the not-registered marker to register itself: {status:?}"
    );
}
