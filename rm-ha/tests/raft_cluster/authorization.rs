//! Who may speak Raft to a replica: only the resourcemanager whose certificate names the
//! sender it claims, with a payload this binary reads, addressed to this replica.

use openraft::Vote;
use openraft::error::RaftError;
use openraft::raft::{VoteRequest, VoteResponse};
use tonic::Code;
use yarn_proto::pb::RaftRequestProto;
use yarn_proto::pb::raft_service_client::RaftServiceClient;
use yarn_rm_ha::RmNodeId;
use yarn_rm_ha::raft_network::PAYLOAD_FORMAT_VERSION;
use yarn_security::{ChannelOptions, Role, connect};

use crate::support::{Replica, bind_all, make_pki, tls};

/// A vote request from rm2 (node 2) for term 1.
fn vote_payload() -> Vec<u8> {
    let request: VoteRequest<RmNodeId> = VoteRequest::new(Vote::new(1, 2), None);
    postcard::to_stdvec(&request).expect("encode a vote request")
}

fn request(sender: &str, target: &str, format_version: u32, payload: Vec<u8>) -> RaftRequestProto {
    RaftRequestProto {
        sender_rm_id: sender.to_owned(),
        target_rm_id: target.to_owned(),
        format_version,
        payload,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_resourcemanager_named_by_its_certificate_is_heard() {
    let pki = make_pki();
    let listener = bind_all().await.remove(0);
    let mut rm3 = Replica::start(pki.path(), "rm3", listener).await;

    let client_as = |role, name: &'static str| {
        let tls = tls(pki.path(), role, name);
        let address = rm3.address.clone();
        async move {
            let channel = connect(&address, tls.client_config(), &ChannelOptions::default())
                .await
                .unwrap_or_else(|e| panic!("connect as {role}/{name}: {e}"));
            RaftServiceClient::new(channel)
        }
    };
    let mut as_rm2 = client_as(Role::ResourceManager, "rm2").await;

    // rm2's certificate claiming to be rm3.
    let status = as_rm2
        .vote(request(
            "rm3",
            "rm3",
            PAYLOAD_FORMAT_VERSION,
            vote_payload(),
        ))
        .await
        .expect_err("an impersonation is refused");
    assert_eq!(status.code(), Code::PermissionDenied, "{status:?}");
    assert!(
        status.message().contains("\"rm2\"") && status.message().contains("\"rm3\""),
        "the refusal names the presented and the claimed id: {}",
        status.message()
    );

    // A user certificate, whatever it claims.
    let mut as_alice = client_as(Role::User, "alice").await;
    let status = as_alice
        .append_entries(request("alice", "rm3", PAYLOAD_FORMAT_VERSION, Vec::new()))
        .await
        .expect_err("a user certificate is refused");
    assert_eq!(status.code(), Code::PermissionDenied, "{status:?}");
    assert!(
        status.message().contains("user/alice"),
        "{}",
        status.message()
    );

    // rm2 as itself, but with a payload version this binary does not read.
    let status = as_rm2
        .vote(request("rm2", "rm3", 99, vote_payload()))
        .await
        .expect_err("an unknown format version is refused");
    assert_eq!(status.code(), Code::FailedPrecondition, "{status:?}");
    assert!(status.message().contains("99"), "{}", status.message());

    // rm2 as itself, addressing a replica this one is not.
    let status = as_rm2
        .vote(request(
            "rm2",
            "rm1",
            PAYLOAD_FORMAT_VERSION,
            vote_payload(),
        ))
        .await
        .expect_err("a message for another replica is refused");
    assert_eq!(status.code(), Code::FailedPrecondition, "{status:?}");
    assert!(status.message().contains("\"rm1\""), "{}", status.message());

    // rm2 as itself with a payload that is not a vote request.
    let status = as_rm2
        .vote(request("rm2", "rm3", PAYLOAD_FORMAT_VERSION, Vec::new()))
        .await
        .expect_err("an undecodable payload is refused");
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
    assert!(status.message().contains("Vote"), "{}", status.message());

    // rm2 as itself, well formed: openraft answers, and the answer travels typed.
    let reply = as_rm2
        .vote(request(
            "rm2",
            "rm3",
            PAYLOAD_FORMAT_VERSION,
            vote_payload(),
        ))
        .await
        .expect("a well-formed vote from rm2 is heard")
        .into_inner();
    assert_eq!(reply.sender_rm_id, "rm3");
    assert_eq!(reply.format_version, PAYLOAD_FORMAT_VERSION);
    let answer: Result<VoteResponse<RmNodeId>, RaftError<RmNodeId>> =
        postcard::from_bytes(&reply.payload).expect("decode the vote answer");
    let answer = answer.expect("openraft handled the vote");
    assert_eq!(answer.vote, Vote::new(1, 2), "rm3 granted term 1 to rm2");

    rm3.stop().await;
}
