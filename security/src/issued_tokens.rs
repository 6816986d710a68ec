//! Container tokens and NM tokens as the ResourceManager issues them.
//!
//! The RM signs them, and so does an AMRMProxy placing OPPORTUNISTIC containers itself with the
//! keys its NodeManager received: both build the identifiers here, so a NodeManager cannot tell
//! the two apart.

use yarn_proto::ids::{ApplicationAttemptId, ContainerId, NodeId};
use yarn_proto::pb;

use crate::TokenSecretManager;

/// What a container token says about its container: the fields of YARN's
/// `ContainerTokenIdentifier` that an issuer fills in. The master key id is left to the
/// secret manager, which sets it when it signs.
#[derive(Debug, Clone, PartialEq)]
pub struct ContainerTokenFields<'a> {
    /// The container.
    pub container_id: ContainerId,
    /// The node it runs on, as `host:port`; also the token's service.
    pub node: &'a str,
    /// The application's submitter.
    pub user: &'a str,
    /// Its (normalized) size.
    pub resource: pb::ResourceProto,
    /// Its priority.
    pub priority: i32,
    /// The allocation request id of the ask it was allocated against.
    pub allocation_request_id: i64,
    /// An ApplicationMaster's container or a task's.
    pub container_type: pb::ContainerTypeProto,
    /// GUARANTEED or OPPORTUNISTIC.
    pub execution_type: pb::ExecutionTypeProto,
    /// 0 until the container's first update (promotion or demotion), then one more per update.
    pub version: i32,
    /// The RM epoch the allocation counts under.
    pub rm_identifier: i64,
    /// When the token was signed, ms since the Unix epoch.
    pub now_ms: i64,
    /// When NodeManagers stop accepting it for a start, ms since the Unix epoch.
    pub expiry_ms: i64,
}

impl ContainerTokenFields<'_> {
    /// The identifier these fields make, with master key id 0 until signed.
    pub fn identifier(&self) -> pb::ContainerTokenIdentifierProto {
        pb::ContainerTokenIdentifierProto {
            container_id: Some(self.container_id.into()),
            nm_host_addr: self.node.to_owned(),
            app_submitter: self.user.to_owned(),
            resource: Some(self.resource.clone()),
            expiry_time_stamp: self.expiry_ms,
            rm_identifier: self.rm_identifier,
            priority: Some(pb::PriorityProto {
                priority: self.priority,
            }),
            creation_time: self.now_ms,
            container_type: self.container_type.into(),
            execution_type: self.execution_type.into(),
            version: self.version,
            allocation_request_id: self.allocation_request_id,
            ..Default::default()
        }
    }
}

impl TokenSecretManager<pb::ContainerTokenIdentifierProto> {
    /// The container token `fields` describe, signed with the current key, its service the
    /// container's node.
    pub fn sign_container_token(&self, fields: &ContainerTokenFields<'_>) -> pb::TokenProto {
        self.sign(fields.identifier(), fields.node).into()
    }
}

impl TokenSecretManager<pb::NmTokenIdentifierProto> {
    /// The NM token that lets `attempt` of `user` talk to `node`, signed with the current key,
    /// its service the node, wrapped with the node id as allocate responses carry it.
    pub fn sign_nm_token(
        &self,
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
            token: Some(self.sign(identifier, node.to_string()).into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use yarn_proto::ids::ApplicationId;

    use super::*;
    use crate::{MasterKey, Token};

    fn attempt() -> ApplicationAttemptId {
        ApplicationAttemptId::new(ApplicationId::new(1_700_000_000_000, 4), 1)
    }

    #[test]
    fn a_container_token_carries_every_field_and_verifies_until_its_expiry() {
        let manager = TokenSecretManager::new(MasterKey::new(7, [3; MasterKey::LEN]));
        let fields = ContainerTokenFields {
            container_id: ContainerId::new(attempt(), 2, 5).unwrap(),
            node: "n1:8041",
            user: "alice",
            resource: pb::ResourceProto {
                memory: 2048,
                virtual_cores: 2,
                ..Default::default()
            },
            priority: 3,
            allocation_request_id: 9,
            container_type: pb::ContainerTypeProto::Task,
            execution_type: pb::ExecutionTypeProto::Opportunistic,
            version: 1,
            rm_identifier: 2,
            now_ms: 100,
            expiry_ms: 700,
        };
        let token = manager.sign_container_token(&fields);
        assert_eq!(token.service, "n1:8041");
        let token = Token::try_from(token).unwrap();
        let identifier = manager.verify(&token, 700).unwrap();
        assert_eq!(
            identifier,
            pb::ContainerTokenIdentifierProto {
                master_key_id: 7,
                ..fields.identifier()
            }
        );
        assert_eq!(identifier.nm_host_addr, "n1:8041");
        assert_eq!(
            identifier.execution_type(),
            pb::ExecutionTypeProto::Opportunistic
        );
        assert_eq!(identifier.version, 1);
        assert!(manager.verify(&token, 701).is_err(), "expired");
    }

    #[test]
    fn an_nm_token_names_attempt_node_and_user_and_verifies() {
        let manager = TokenSecretManager::new(MasterKey::new(8, [4; MasterKey::LEN]));
        let node: NodeId = "n2:8041".parse().unwrap();
        let nm_token = manager.sign_nm_token(attempt(), &node, "bob");
        assert_eq!(nm_token.node_id, Some((&node).into()));
        let token = nm_token.token.unwrap();
        assert_eq!(token.service, "n2:8041");
        let identifier = manager.verify(&Token::try_from(token).unwrap(), 0).unwrap();
        assert_eq!(identifier.app_attempt_id, Some(attempt().into()));
        assert_eq!(identifier.node_id, Some((&node).into()));
        assert_eq!(identifier.app_submitter, "bob");
        assert_eq!(identifier.key_id, 8);
    }
}
