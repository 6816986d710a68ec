//! AmRmClient and AmRmHeartbeat against scheduler replicas: failover with resync, token
//! renewal, unregistration polling, and the heartbeat task's events.

use std::time::Duration;

use yarn_client::{AmRmClient, AmRmEvent, AmRmHeartbeat, Error};
use yarn_proto::pb;

use crate::fake_scheduler::Scheduler;
use crate::support::{
    ask, container, container_id, must_client_config, must_make_pki, must_wait_until, must_within,
    node_id, token,
};

const AMRM: &str = "YARN_AM_RM_TOKEN";

fn counts(asks: &[pb::ResourceRequestProto]) -> Vec<(String, i32)> {
    asks.iter()
        .map(|ask| (ask.resource_name.clone(), ask.num_containers))
        .collect()
}

fn ids(containers: &[pb::ContainerProto]) -> Vec<i64> {
    containers
        .iter()
        .map(|c| c.id.as_ref().unwrap().id)
        .collect()
}

/// Leadership may move again between registering anew and the allocate that follows: the AM
/// registers with each leader that lost it, within one allocate.
#[tokio::test]
async fn a_registration_lost_again_after_a_resync_is_made_again() {
    let pki = must_make_pki();
    let rm1 = Scheduler::start(&pki, "rm1", true).await;
    let config = must_client_config(&pki, &[("rm1", rm1.address.as_str())]);
    let mut am = AmRmClient::new(&config, token(AMRM, 1));
    am.register("am-host", 4321, "").await.unwrap();
    am.add_container_request(ask("*", 2));
    am.allocate(0.1).await.unwrap();
    {
        let mut rm1 = rm1.state();
        rm1.registered = false;
        rm1.lost_registrations = 2;
        rm1.to_allocate = vec![container(1, "h1")];
    }
    let outcome = am.allocate(0.2).await.unwrap();
    assert!(outcome.resynced);
    assert_eq!(ids(&outcome.allocated), [1]);
    let rm1 = rm1.state();
    assert_eq!(
        rm1.not_registered_refusals, 3,
        "refused after each lost registration"
    );
    assert_eq!(
        rm1.registrations.len(),
        4,
        "the first, then one per refusal"
    );
    assert_eq!(
        counts(&rm1.allocates[1].ask),
        [("*".to_owned(), 2)],
        "everything re-sent"
    );
}

#[tokio::test]
async fn after_a_failover_the_am_registers_again_and_resends_all_it_still_wants() {
    let pki = must_make_pki();
    let rm1 = Scheduler::start(&pki, "rm1", true).await;
    let rm2 = Scheduler::start(&pki, "rm2", false).await;
    let config = must_client_config(
        &pki,
        &[("rm1", rm1.address.as_str()), ("rm2", rm2.address.as_str())],
    );
    let mut am = AmRmClient::new(&config, token(AMRM, 1));

    tracing::info!("--- register on rm1, ask, and get one container");
    am.register("am-host", 4321, "http://am-host:8080")
        .await
        .unwrap();
    am.add_container_request(ask("*", 3));
    am.add_container_request(ask("h1", 1));
    am.release_assigned_container(container_id(100));
    am.update_blacklist(vec!["bad-node".to_owned()], vec![]);
    rm1.state().to_allocate = vec![container(1, "h1")];
    let outcome = am.allocate(0.1).await.unwrap();
    assert_eq!(ids(&outcome.allocated), [1]);
    assert!(!outcome.resynced);
    assert_eq!(counts(&am.outstanding()), [("*".to_owned(), 2)]);
    assert_eq!(am.headroom().map(|r| r.memory), Some(8192));

    tracing::info!("--- rm2 takes over without the registration; it repeats container 1");
    {
        let mut rm1 = rm1.state();
        rm1.leader = false;
        rm1.leader_hint = Some(format!("rm2={}", rm2.address));
    }
    {
        let mut rm2 = rm2.state();
        rm2.leader = true;
        rm2.to_allocate = vec![container(1, "h1"), container(2, "h2")];
    }
    let outcome = am.allocate(0.2).await.unwrap();
    assert!(outcome.resynced);
    assert_eq!(
        ids(&outcome.allocated),
        [2],
        "container 1 was delivered already"
    );
    assert_eq!(counts(&am.outstanding()), [("*".to_owned(), 1)]);

    let rm2 = rm2.state();
    assert_eq!(rm2.not_registered_refusals, 1);
    assert_eq!(
        rm2.registrations,
        [pb::RegisterApplicationMasterRequestProto {
            host: "am-host".to_owned(),
            rpc_port: 4321,
            tracking_url: "http://am-host:8080".to_owned(),
        }],
        "registered again with the same arguments"
    );
    let resent = &rm2.allocates[0];
    assert_eq!(resent.response_id, 0);
    assert_eq!(
        counts(&resent.ask),
        [("*".to_owned(), 2)],
        "everything still wanted, host ask satisfied"
    );
    assert_eq!(resent.release, [container_id(100)]);
    assert_eq!(
        resent
            .blacklist_request
            .as_ref()
            .unwrap()
            .blacklist_additions,
        ["bad-node".to_owned()]
    );
    assert_eq!(rm2.allocates.len(), 1);
}

#[tokio::test]
async fn a_renewed_amrm_token_is_presented_from_the_next_call_on() {
    let pki = must_make_pki();
    let rm1 = Scheduler::start(&pki, "rm1", true).await;
    let config = must_client_config(&pki, &[("rm1", rm1.address.as_str())]);
    let mut am = AmRmClient::new(&config, token(AMRM, 1));
    am.register("", 0, "").await.unwrap();
    {
        let mut rm1 = rm1.state();
        rm1.new_amrm_token = Some(token(AMRM, 2));
        rm1.nm_tokens = vec![pb::NmTokenProto {
            node_id: Some(node_id("h1", 8041)),
            token: Some(token("NMToken", 9)),
        }];
    }
    am.allocate(0.0).await.unwrap();
    am.allocate(0.0).await.unwrap();
    am.finish(pb::FinalApplicationStatusProto::AppSucceeded, "", "")
        .await
        .unwrap();

    let presented: Vec<u8> = rm1.state().tokens.iter().map(|t| t.password[0]).collect();
    assert_eq!(
        presented,
        [1, 1, 2, 2],
        "register, allocate, allocate, finish"
    );
    assert_eq!(am.amrm_token(), &token(AMRM, 2));
    assert_eq!(am.nm_token(&node_id("h1", 8041)), Some(token("NMToken", 9)));
}

#[tokio::test]
async fn finish_asks_until_the_unregistration_is_confirmed_and_reports_when_it_never_is() {
    let pki = must_make_pki();
    let rm1 = Scheduler::start(&pki, "rm1", true).await;
    let config = must_client_config(&pki, &[("rm1", rm1.address.as_str())]);
    let mut am = AmRmClient::new(&config, token(AMRM, 1)).with_finish_polling(5, Duration::ZERO);
    am.register("", 0, "").await.unwrap();

    rm1.state().unconfirmed_finishes = 2;
    am.finish(
        pb::FinalApplicationStatusProto::AppFailed,
        "boom",
        "http://t",
    )
    .await
    .unwrap();
    {
        let rm1 = rm1.state();
        assert_eq!(rm1.finishes.len(), 3);
        assert_eq!(
            rm1.finishes[0],
            pb::FinishApplicationMasterRequestProto {
                diagnostics: "boom".to_owned(),
                tracking_url: "http://t".to_owned(),
                final_application_status: pb::FinalApplicationStatusProto::AppFailed as i32,
            }
        );
    }

    rm1.state().unconfirmed_finishes = 100;
    let err = am
        .finish(pb::FinalApplicationStatusProto::AppFailed, "boom", "")
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::FinishNotConfirmed { attempts: 5, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("after 5 attempts"), "{err}");
}

#[tokio::test]
async fn finish_registers_again_when_the_leader_lost_the_registration() {
    let pki = must_make_pki();
    let rm1 = Scheduler::start(&pki, "rm1", true).await;
    let config = must_client_config(&pki, &[("rm1", rm1.address.as_str())]);
    let mut am = AmRmClient::new(&config, token(AMRM, 1));
    am.register("h", 1, "u").await.unwrap();
    rm1.state().registered = false;
    am.finish(pb::FinalApplicationStatusProto::AppSucceeded, "", "")
        .await
        .unwrap();
    let rm1 = rm1.state();
    assert_eq!(rm1.registrations.len(), 2);
    assert_eq!(rm1.finishes.len(), 1);
}

#[tokio::test]
async fn allocate_before_register_is_refused_without_a_call() {
    let pki = must_make_pki();
    let rm1 = Scheduler::start(&pki, "rm1", true).await;
    let config = must_client_config(&pki, &[("rm1", rm1.address.as_str())]);
    let mut am = AmRmClient::new(&config, token(AMRM, 1));
    let err = am.allocate(0.0).await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::AmNotRegistered {
                operation: "allocate"
            }
        ),
        "{err:?}"
    );
    assert!(rm1.state().tokens.is_empty());
}

#[tokio::test]
async fn the_heartbeat_task_delivers_allocations_and_completions_and_takes_new_asks() {
    let pki = must_make_pki();
    let rm1 = Scheduler::start(&pki, "rm1", true).await;
    let config = must_client_config(&pki, &[("rm1", rm1.address.as_str())]);
    let mut am = AmRmClient::new(&config, token(AMRM, 1));
    am.register("", 0, "").await.unwrap();
    {
        let mut rm1 = rm1.state();
        rm1.to_allocate = vec![container(1, "h1")];
        rm1.nm_tokens = vec![pb::NmTokenProto {
            node_id: Some(node_id("h1", 8041)),
            token: Some(token("NMToken", 3)),
        }];
    }
    let (heartbeat, mut events) = AmRmHeartbeat::start(am, Duration::from_millis(5));

    tracing::info!("--- the first heartbeat brings container 1 and its NM token");
    let event = must_within("an allocation event", events.recv()).await;
    match event {
        Some(AmRmEvent::ContainersAllocated(containers)) => assert_eq!(ids(&containers), [1]),
        other => panic!("expected container 1, got {other:?}"),
    }
    assert_eq!(
        heartbeat.nm_tokens().get(&node_id("h1", 8041)),
        Some(token("NMToken", 3))
    );

    tracing::info!("--- its completion arrives once");
    rm1.state().to_complete = vec![pb::ContainerStatusProto {
        container_id: Some(container_id(1)),
        state: pb::ContainerStateProto::CComplete as i32,
        exit_status: Some(0),
        ..Default::default()
    }];
    let event = must_within("a completion event", events.recv()).await;
    match event {
        Some(AmRmEvent::ContainersCompleted(statuses)) => {
            assert_eq!(statuses[0].container_id, Some(container_id(1)));
        }
        other => panic!("expected the completion of container 1, got {other:?}"),
    }

    tracing::info!("--- an ask and the progress go out with a following heartbeat");
    heartbeat.add_container_request(ask("*", 2)).await.unwrap();
    heartbeat.set_progress(0.5).await.unwrap();
    must_wait_until("the RM saw the ask", || {
        rm1.state()
            .allocates
            .iter()
            .any(|request| counts(&request.ask) == [("*".to_owned(), 2)])
    })
    .await;
    must_wait_until("the RM saw the progress", || {
        rm1.state()
            .allocates
            .last()
            .is_some_and(|request| request.progress == 0.5)
    })
    .await;

    tracing::info!("--- finish stops the heartbeats and unregisters");
    heartbeat
        .finish(pb::FinalApplicationStatusProto::AppSucceeded, "done", "")
        .await
        .unwrap();
    assert_eq!(rm1.state().finishes.len(), 1);
    assert_eq!(rm1.state().finishes[0].diagnostics, "done");
    assert!(
        must_within("the end of the event stream", events.recv())
            .await
            .is_none(),
        "the heartbeat task ended"
    );
}
