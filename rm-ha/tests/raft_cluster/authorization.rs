//! Who may speak Raft to a replica: only the resourcemanager whose certificate names the
//! sender it claims, with a payload this binary reads, addressed to this replica; and of those
//! only members of the group, each speaking for itself.

use std::time::Duration;

use openraft::error::RaftError;
use openraft::raft::{AppendEntriesRequest, InstallSnapshotRequest, VoteRequest, VoteResponse};
use openraft::{Entry, EntryPayload, LogId, SnapshotMeta, Vote};
use tonic::transport::Channel;
use tonic::{Code, Status};
use yarn_proto::pb::raft_service_client::RaftServiceClient;
use yarn_proto::pb::{RaftRequestProto, RaftResponseProto};
use yarn_rm_ha::RmTypeConfig;
use yarn_rm_ha::raft_network::{HoldElection, PAYLOAD_FORMAT_VERSION, PreVoteRequest};
use yarn_rm_ha::state_machine::{CommandV1, RmCommand, RmResponse};
use yarn_rm_ha::{RmNodeId, node_id_of};
use yarn_security::{ChannelOptions, Role, connect};
use yarn_test_support::pki::Pki;

use crate::support::{Replica, bind_all, make_pki, start_cluster};

/// A vote request from rm2 for term 1.
fn vote_payload() -> Vec<u8> {
    let request: VoteRequest<RmNodeId> = VoteRequest::new(Vote::new(1, node_id_of("rm2")), None);
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
    let mut rm3 = Replica::start(&pki, "rm3", listener).await;

    let client_as = |role, name: &'static str| {
        let tls = pki.tls(role, name);
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
    assert_eq!(
        answer.vote,
        Vote::new(1, node_id_of("rm2")),
        "rm3 granted term 1 to rm2"
    );

    rm3.stop().await;
}

/// A client of `to`'s Raft service holding the certificate of `resourcemanager/name`.
async fn raft_client(pki: &Pki, name: &str, to: &Replica) -> RaftServiceClient<Channel> {
    let tls = pki.tls(Role::ResourceManager, name);
    let channel = connect(&to.address, tls.client_config(), &ChannelOptions::default())
        .await
        .unwrap_or_else(|e| panic!("connect as {name} to {}: {e}", to.rm_id));
    RaftServiceClient::new(channel)
}

/// Sends `payload` as `rpc` from `sender` (whose certificate `client` holds) to `target`.
async fn send(
    client: &mut RaftServiceClient<Channel>,
    rpc: &str,
    sender: &str,
    target: &Replica,
    payload: &impl serde::Serialize,
) -> Result<RaftResponseProto, Status> {
    let message = request(
        sender,
        target.rm_id,
        PAYLOAD_FORMAT_VERSION,
        postcard::to_stdvec(payload).expect("encode the payload"),
    );
    let reply = match rpc {
        "AppendEntries" => client.append_entries(message).await,
        "Vote" => client.vote(message).await,
        "InstallSnapshot" => client.install_snapshot(message).await,
        "PreVote" => client.pre_vote(message).await,
        "TimeoutNow" => client.timeout_now(message).await,
        "HoldElection" => client.hold_election(message).await,
        other => panic!("no RPC {other}"),
    };
    reply.map(tonic::Response::into_inner)
}

/// Asserts that `reply` is a PERMISSION_DENIED refusal whose message contains each of `names`.
fn assert_refused(reply: Result<RaftResponseProto, Status>, what: &str, names: &[&str]) {
    let status = match reply {
        Ok(answer) => panic!("{what} was heard: {answer:?}"),
        Err(status) => status,
    };
    assert_eq!(status.code(), Code::PermissionDenied, "{what}: {status:?}");
    for name in names {
        assert!(
            status.message().contains(name),
            "{what}: the refusal names {name}: {}",
            status.message()
        );
    }
}

/// Twenty AllocateApplicationIds entries continuing `follower`'s log under `vote`.
fn forged_entries(follower: &Replica, vote: Vote<RmNodeId>) -> AppendEntriesRequest<RmTypeConfig> {
    let metrics = follower.raft.metrics().borrow().clone();
    let last = metrics.last_applied.expect("the follower applied entries");
    let entries = (1..=20)
        .map(|i| Entry::<RmTypeConfig> {
            log_id: LogId::new(*last.committed_leader_id(), last.index + i),
            payload: EntryPayload::Normal(RmCommand::V1(CommandV1::AllocateApplicationIds {
                count: 1,
            })),
        })
        .collect();
    AppendEntriesRequest {
        vote,
        prev_log_id: Some(last),
        entries,
        leader_commit: Some(LogId::new(*last.committed_leader_id(), last.index + 20)),
    }
}

/// The leader the group elects, by node id and replica.
async fn elected(replicas: &[Replica]) -> (RmNodeId, &Replica) {
    let leader_id = replicas[0].wait_for_leader(None).await;
    let leader = replicas
        .iter()
        .find(|r| r.node_id == leader_id)
        .expect("the leader is a replica");
    (leader_id, leader)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_certificate_is_not_a_membership_and_a_member_speaks_only_for_itself() {
    let pki = make_pki();
    let replicas = start_cluster(&pki).await;
    let (leader_id, leader) = elected(&replicas).await;
    let (_, index) = leader
        .write(RmCommand::V1(CommandV1::AllocateApplicationIds {
            count: 3,
        }))
        .await;
    let followers: Vec<&Replica> = replicas.iter().filter(|r| r.node_id != leader_id).collect();
    let (follower, other) = (followers[0], followers[1]);
    let _ = follower.state_after(index).await;
    let leader_vote = leader.raft.metrics().borrow().vote;
    let term = leader_vote.leader_id().get_term();
    let before = follower.raft.metrics().borrow().clone();

    // rm9 holds a valid resourcemanager certificate of this cluster's CA, but is no member.
    let mut as_rm9 = raft_client(&pki, "rm9", follower).await;
    let rm9 = node_id_of("rm9");
    let not_a_member = ["\"rm9\"", "not a voter or learner", "rm1", "rm2", "rm3"];
    let vote_at_zero: VoteRequest<RmNodeId> = VoteRequest::new(Vote::new(0, rm9), None);
    assert_refused(
        send(&mut as_rm9, "Vote", "rm9", follower, &vote_at_zero).await,
        "a non-member's Vote at term 0",
        &not_a_member,
    );
    assert_refused(
        send(
            &mut as_rm9,
            "AppendEntries",
            "rm9",
            follower,
            &forged_entries(follower, leader_vote),
        )
        .await,
        "a non-member's AppendEntries under the leader's vote",
        &not_a_member,
    );
    let snapshot_chunk = InstallSnapshotRequest::<RmTypeConfig> {
        vote: Vote::new_committed(term + 1, rm9),
        meta: SnapshotMeta::default(),
        offset: 0,
        data: Vec::new(),
        done: true,
    };
    assert_refused(
        send(
            &mut as_rm9,
            "InstallSnapshot",
            "rm9",
            follower,
            &snapshot_chunk,
        )
        .await,
        "a non-member's InstallSnapshot",
        &not_a_member,
    );
    let pre_vote = PreVoteRequest {
        term: term + 1,
        last_log_index: Some(u64::MAX),
    };
    assert_refused(
        send(&mut as_rm9, "PreVote", "rm9", follower, &pre_vote).await,
        "a non-member's PreVote",
        &not_a_member,
    );
    assert_refused(
        send(&mut as_rm9, "TimeoutNow", "rm9", follower, &()).await,
        "a non-member's TimeoutNow",
        &not_a_member,
    );
    let long_hold = HoldElection {
        term,
        duration: Duration::from_secs(90),
    };
    assert_refused(
        send(&mut as_rm9, "HoldElection", "rm9", follower, &long_hold).await,
        "a non-member's HoldElection",
        &not_a_member,
    );

    // A member replaying the leader's vote, or asking for another's election, is refused too.
    let other_name = other.rm_id;
    let mut as_other = raft_client(&pki, other_name, follower).await;
    let forged = ["speaks for", leader.rm_id];
    assert_refused(
        send(
            &mut as_other,
            "AppendEntries",
            other_name,
            follower,
            &forged_entries(follower, leader_vote),
        )
        .await,
        "a member's AppendEntries under another member's vote",
        &forged,
    );
    let replayed_vote: VoteRequest<RmNodeId> =
        VoteRequest::new(Vote::new(term + 1, leader_id), before.last_applied);
    assert_refused(
        send(&mut as_other, "Vote", other_name, follower, &replayed_vote).await,
        "a member's Vote for another candidate",
        &forged,
    );
    assert_refused(
        send(&mut as_other, "TimeoutNow", other_name, follower, &()).await,
        "a follower's TimeoutNow",
        &["only the leader", leader.rm_id],
    );
    assert_refused(
        send(
            &mut as_other,
            "HoldElection",
            other_name,
            follower,
            &long_hold,
        )
        .await,
        "a follower's HoldElection",
        &["only the leader", leader.rm_id],
    );

    // None of it changed anything: same term, same leader, same log, same state everywhere.
    let after = follower.raft.metrics().borrow().clone();
    assert_eq!(after.vote, before.vote, "the follower's vote is untouched");
    assert_eq!(
        after.last_log_index, before.last_log_index,
        "no forged entry landed"
    );
    assert_eq!(
        leader.raft.metrics().borrow().current_leader,
        Some(leader_id)
    );
    let (issued, index) = leader
        .write(RmCommand::V1(CommandV1::AllocateApplicationIds {
            count: 1,
        }))
        .await;
    assert_eq!(
        issued,
        RmResponse::ApplicationIdsAllocated { first: 4, count: 1 },
        "the next id follows the three issued before, on the leader"
    );
    let state = leader.state_after(index).await;
    for replica in &replicas {
        assert_eq!(
            replica.state_after(index).await,
            state,
            "{} holds the leader's state",
            replica.rm_id
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_leaders_hold_is_capped_by_the_receivers_timings() {
    let pki = make_pki();
    let replicas = start_cluster(&pki).await;
    let (leader_id, leader) = elected(&replicas).await;
    let follower = replicas
        .iter()
        .find(|r| r.node_id != leader_id)
        .expect("a follower");
    // Only a leader the follower already follows may ask it to hold.
    follower
        .raft
        .wait(Some(crate::support::DEADLINE))
        .current_leader(leader_id, "the follower to follow the leader")
        .await
        .expect("the follower follows the leader");
    let term = leader.raft.metrics().borrow().current_term;
    let mut as_leader = raft_client(&pki, leader.rm_id, follower).await;
    // u64::MAX seconds once panicked the handler adding it to the clock.
    let forever = HoldElection {
        term,
        duration: Duration::MAX,
    };
    send(
        &mut as_leader,
        "HoldElection",
        leader.rm_id,
        follower,
        &forever,
    )
    .await
    .expect("the leader's hold is heard");
    let held = follower
        .hold
        .held_until()
        .expect("the follower holds elections");
    let config = follower.raft.config();
    let bound = HoldElection::max_duration(
        Duration::from_millis(config.election_timeout_max),
        Duration::from_millis(config.heartbeat_interval),
    );
    assert!(
        held <= tokio::time::Instant::now() + bound,
        "the hold ends within {bound:?}"
    );
    // The service is still there to answer.
    let release = HoldElection {
        term,
        duration: Duration::ZERO,
    };
    send(
        &mut as_leader,
        "HoldElection",
        leader.rm_id,
        follower,
        &release,
    )
    .await
    .expect("the release is heard");
}
