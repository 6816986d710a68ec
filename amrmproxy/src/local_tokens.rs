//! Container and NM tokens the distributed scheduler signs itself, in exactly the form the
//! ResourceManager issues them, so a NodeManager cannot tell them apart.

use yarn_proto::ids::{ApplicationAttemptId, ContainerId, NodeId};
use yarn_proto::pb;
use yarn_security::{MasterKey, TokenSecretManager};

/// What goes into a locally signed container token.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ContainerTokenFields<'a> {
    /// The container.
    pub container_id: ContainerId,
    /// The node it runs on.
    pub node: &'a NodeId,
    /// The application's submitter.
    pub user: &'a str,
    /// Its (normalized) size.
    pub resource: pb::ResourceProto,
    /// Its priority.
    pub priority: i32,
    /// The ask's allocation request id.
    pub allocation_request_id: i64,
    /// The RM epoch the allocation counts under (`container_id_start >> 40`).
    pub rm_identifier: i64,
    /// When it was signed, ms since the Unix epoch.
    pub now_ms: i64,
    /// When the NodeManager stops accepting it, ms since the Unix epoch.
    pub expiry_ms: i64,
}

/// The container token of an OPPORTUNISTIC task container, signed with `key` (the RM's current
/// container-token key, as the node received it): the identifier fields, their values and the
/// service (the node id) are those the RM's own token issuer writes.
pub(crate) fn container_token(key: &MasterKey, fields: ContainerTokenFields<'_>) -> pb::TokenProto {
    let identifier = pb::ContainerTokenIdentifierProto {
        container_id: Some(fields.container_id.into()),
        nm_host_addr: fields.node.to_string(),
        app_submitter: fields.user.to_owned(),
        resource: Some(fields.resource),
        expiry_time_stamp: fields.expiry_ms,
        rm_identifier: fields.rm_identifier,
        priority: Some(pb::PriorityProto {
            priority: fields.priority,
        }),
        creation_time: fields.now_ms,
        container_type: pb::ContainerTypeProto::Task.into(),
        execution_type: pb::ExecutionTypeProto::Opportunistic.into(),
        allocation_request_id: fields.allocation_request_id,
        ..Default::default()
    };
    TokenSecretManager::<pb::ContainerTokenIdentifierProto>::new(key.clone())
        .sign(identifier, fields.node.to_string())
        .into()
}

/// The NM token that lets `attempt` of `user` talk to `node`, signed with `key` (the RM's
/// current NM-token key, as the node received it), as the RM issues it.
pub(crate) fn nm_token(
    key: &MasterKey,
    attempt: ApplicationAttemptId,
    node: &NodeId,
    user: &str,
) -> pb::NmTokenProto {
    let identifier = pb::NmTokenIdentifierProto {
        app_attempt_id: Some(attempt.into()),
        node_id: Some(node.into()),
        app_submitter: user.to_owned(),
        key_id: 0,
    };
    pb::NmTokenProto {
        node_id: Some(node.into()),
        token: Some(
            TokenSecretManager::<pb::NmTokenIdentifierProto>::new(key.clone())
                .sign(identifier, node.to_string())
                .into(),
        ),
    }
}
