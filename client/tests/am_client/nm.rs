//! NmClient against a NodeManager test double over mutual TLS.

use std::time::Duration;

use tonic::Code;
use yarn_client::{Error, NmClient};
use yarn_proto::pb;
use yarn_test_support::pki::Pki;

use crate::fake_nm::{Nm, container_token};
use crate::support::{container_id, must_client_config, must_make_pki, token};

const NM_TOKEN: u8 = 7;

/// Container `n` on `nm`, with the container token the double accepts.
fn container_on(nm: &Nm, n: i64) -> pb::ContainerProto {
    pb::ContainerProto {
        id: Some(container_id(n)),
        node_id: Some(nm.node_id()),
        container_token: Some(container_token(&container_id(n))),
        ..Default::default()
    }
}

fn launch(command: &str) -> pb::ContainerLaunchContextProto {
    pb::ContainerLaunchContextProto {
        commands: vec![command.to_owned()],
        ..Default::default()
    }
}

async fn started_nm() -> (Pki, Nm, NmClient) {
    let pki = must_make_pki();
    let nm = Nm::start(&pki, token("NMToken", NM_TOKEN)).await;
    let config = must_client_config(&pki, &[("rm1", "127.0.0.1:1")]);
    let client = NmClient::new(&config.tls, Duration::from_secs(2));
    (pki, nm, client)
}

#[tokio::test]
async fn a_container_is_started_stopped_and_reported_with_the_nm_token() {
    let (_pki, nm, client) = started_nm().await;
    let nm_token = token("NMToken", NM_TOKEN);
    let container = container_on(&nm, 1);

    client
        .start_container(&container, &nm_token, launch("sleep 10"))
        .await
        .unwrap();
    assert_eq!(
        nm.state().running.get(&1),
        Some(&vec!["sleep 10".to_owned()])
    );
    let status = client
        .container_status(&container_id(1), &nm.node_id(), &nm_token)
        .await
        .unwrap();
    assert_eq!(status.state, pb::ContainerStateProto::CRunning as i32);

    client
        .stop_container(&container_id(1), &nm.node_id(), &nm_token)
        .await
        .unwrap();
    assert_eq!(nm.state().stopped, [1]);
    let status = client
        .container_status(&container_id(1), &nm.node_id(), &nm_token)
        .await
        .unwrap();
    assert_eq!(status.state, pb::ContainerStateProto::CComplete as i32);
}

#[tokio::test]
async fn the_nodes_refusal_of_a_container_carries_its_message_and_the_container() {
    let (_pki, nm, client) = started_nm().await;
    let nm_token = token("NMToken", NM_TOKEN);
    let container = container_on(&nm, 2);
    client
        .start_container(&container, &nm_token, launch("a"))
        .await
        .unwrap();

    let err = client
        .start_container(&container, &nm_token, launch("b"))
        .await
        .unwrap_err();
    match &err {
        Error::ContainerRefused {
            rpc,
            message,
            container_id,
            node,
            ..
        } => {
            assert_eq!(*rpc, "StartContainers");
            assert_eq!(message, "Container 2 already exists");
            assert_eq!(container_id, "container_1700000000000_0001_01_000002");
            assert_eq!(node, &nm.address);
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    assert_eq!(
        nm.state().running.get(&2),
        Some(&vec!["a".to_owned()]),
        "the running container is untouched"
    );

    let err = client
        .stop_container(&container_id(3), &nm.node_id(), &nm_token)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::ContainerRefused { message, .. } if message.contains("not handled")),
        "{err:?}"
    );
    let err = client
        .container_status(&container_id(3), &nm.node_id(), &nm_token)
        .await
        .unwrap_err();
    assert!(matches!(err, Error::ContainerRefused { .. }), "{err:?}");
}

#[tokio::test]
async fn a_node_not_ready_yet_is_asked_again_until_it_takes_the_start() {
    let (_pki, nm, client) = started_nm().await;
    let client = client.with_not_ready_retry(Duration::from_millis(10), Duration::from_secs(30));
    nm.state().not_ready_starts = 3;
    client
        .start_container(
            &container_on(&nm, 6),
            &token("NMToken", NM_TOKEN),
            launch("a"),
        )
        .await
        .unwrap();
    assert_eq!(nm.state().running.get(&6), Some(&vec!["a".to_owned()]));
    assert_eq!(nm.state().not_ready_starts, 0, "every refusal was retried");
}

#[tokio::test]
async fn a_node_not_ready_past_the_maximum_wait_fails_the_start_with_its_refusal() {
    let (_pki, nm, client) = started_nm().await;
    let client = client.with_not_ready_retry(Duration::from_millis(10), Duration::from_millis(35));
    nm.state().not_ready_starts = 1000;
    let err = client
        .start_container(
            &container_on(&nm, 7),
            &token("NMToken", NM_TOKEN),
            launch("a"),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::ContainerRefused { class_name, .. } if class_name.ends_with("NMNotYetReadyException")),
        "{err:?}"
    );
    let left = nm.state().not_ready_starts;
    assert!((996..1000).contains(&left), "asked {} times", 1000 - left);
    assert!(nm.state().running.is_empty());
}

#[tokio::test]
async fn a_start_whose_reply_was_lost_is_asked_again_and_counts_once_started() {
    let (_pki, nm, client) = started_nm().await;
    let client = client.with_not_ready_retry(Duration::from_millis(10), Duration::from_secs(30));
    nm.state().lost_start_replies = 1;
    client
        .start_container(
            &container_on(&nm, 9),
            &token("NMToken", NM_TOKEN),
            launch("a"),
        )
        .await
        .expect("the node holds the container the lost reply was for");
    assert_eq!(nm.state().lost_start_replies, 0, "the first reply was lost");
    assert_eq!(nm.state().running.get(&9), Some(&vec!["a".to_owned()]));
}

#[tokio::test]
async fn a_refusal_after_a_lost_reply_stands_when_the_node_does_not_hold_the_container() {
    let (_pki, nm, client) = started_nm().await;
    let client = client.with_not_ready_retry(Duration::from_millis(10), Duration::from_secs(30));
    {
        let mut state = nm.state();
        state.lost_start_replies = 1;
        state.lose_started_container = true;
    }
    let err = client
        .start_container(
            &container_on(&nm, 10),
            &token("NMToken", NM_TOKEN),
            launch("a"),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::ContainerRefused { message, .. } if message.contains("relaunch")),
        "the retry's refusal stands: {err:?}"
    );
    assert!(nm.state().running.is_empty());
}

#[tokio::test]
async fn a_node_that_is_not_listening_yet_is_dialed_again_until_it_takes_the_start() {
    let pki = must_make_pki();
    let config = must_client_config(&pki, &[("rm1", "127.0.0.1:1")]);
    let client = NmClient::new(&config.tls, Duration::from_secs(2))
        .with_not_ready_retry(Duration::from_millis(10), Duration::from_secs(30));
    // Bound but not listening: dials are refused, and the port stays this test's. A port
    // nobody holds could be taken by the client's own dial, which would connect to itself.
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let port = socket.local_addr().unwrap().port();
    let container = pb::ContainerProto {
        id: Some(container_id(8)),
        node_id: Some(pb::NodeIdProto {
            host: "127.0.0.1".to_owned(),
            port: i32::from(port),
        }),
        container_token: Some(container_token(&container_id(8))),
        ..Default::default()
    };
    let start = tokio::spawn(async move {
        client
            .start_container(&container, &token("NMToken", NM_TOKEN), launch("a"))
            .await
    });
    // The node restarts: nothing listens for a while, so the first dials are refused.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let nm = Nm::start_on(
        &pki,
        token("NMToken", NM_TOKEN),
        socket.listen(128).unwrap(),
    );
    start.await.unwrap().unwrap();
    assert_eq!(nm.state().running.get(&8), Some(&vec!["a".to_owned()]));
}

#[tokio::test]
async fn a_wrong_nm_token_fails_the_call_naming_node_and_container() {
    let (_pki, nm, client) = started_nm().await;
    let err = client
        .start_container(&container_on(&nm, 4), &token("NMToken", 99), launch("a"))
        .await
        .unwrap_err();
    assert_eq!(
        err.status().map(|status| status.code()),
        Some(Code::PermissionDenied),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(message.contains(&nm.address), "{message}");
    assert!(
        message.contains("container_1700000000000_0001_01_000004"),
        "{message}"
    );
    assert!(nm.state().running.is_empty());
}

#[tokio::test]
async fn a_container_without_a_container_token_is_refused_before_any_call() {
    let (_pki, nm, client) = started_nm().await;
    let mut container = container_on(&nm, 5);
    container.container_token = None;
    let err = client
        .start_container(&container, &token("NMToken", NM_TOKEN), launch("a"))
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::ContainerFieldMissing {
                field: "container_token",
                ..
            }
        ),
        "{err:?}"
    );
}

#[tokio::test]
async fn a_node_that_never_answers_fails_the_call_at_the_deadline() {
    let (_pki, nm, client) = started_nm().await;
    nm.state().hang = true;
    let err = client
        .container_status(&container_id(1), &nm.node_id(), &token("NMToken", NM_TOKEN))
        .await
        .unwrap_err();
    assert_eq!(
        err.status().map(|status| status.code()),
        Some(Code::DeadlineExceeded),
        "{err:?}"
    );
}
