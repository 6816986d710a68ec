//! Tokens signed by real master keys, for the token-check tests.

use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, ContainerId, NodeId};
use yarn_proto::pb;
use yarn_security::{MasterKey, TokenIdentifier, TokenSecretManager};

use super::{NmKeyKind, NmTokenKeys};

/// The time the tests run at: 2023-11-14T22:13:20Z.
pub(super) const NOW_MS: i64 = 1_700_000_000_000;
/// The RM epoch this node follows.
pub(super) const EPOCH: i64 = 3;

/// A key with a recognisable secret.
pub(super) fn key(key_id: i32, byte: u8) -> MasterKey {
    MasterKey::new(key_id, [byte; MasterKey::LEN])
}

/// The node under test.
pub(super) fn this_node() -> NodeId {
    NodeId::new("h1", 8041)
}

pub(super) fn application() -> ApplicationId {
    ApplicationId::new(1_410_901_177_871, 1)
}

pub(super) fn attempt() -> ApplicationAttemptId {
    ApplicationAttemptId::new(application(), 1)
}

/// Container `sequence` of [`attempt`], allocated under [`EPOCH`].
pub(super) fn container(sequence: i64) -> ContainerId {
    ContainerId::new(attempt(), EPOCH, sequence).expect("valid container id")
}

/// A container token identifier for `container` on [`this_node`], issued under [`EPOCH`] and
/// expiring ten minutes after [`NOW_MS`].
pub(super) fn container_identifier(container: ContainerId) -> pb::ContainerTokenIdentifierProto {
    pb::ContainerTokenIdentifierProto {
        container_id: Some(container.into()),
        nm_host_addr: this_node().to_string(),
        app_submitter: "alice".to_owned(),
        expiry_time_stamp: NOW_MS + 600_000,
        rm_identifier: EPOCH,
        creation_time: NOW_MS,
        ..Default::default()
    }
}

/// An NM token identifier for [`attempt`] on [`this_node`].
pub(super) fn nm_identifier() -> pb::NmTokenIdentifierProto {
    pb::NmTokenIdentifierProto {
        app_attempt_id: Some(attempt().into()),
        node_id: Some(this_node().into()),
        app_submitter: "alice".to_owned(),
        ..Default::default()
    }
}

/// `identifier` signed under `key` as the RM would, in its wire form.
pub(super) fn sign<I: TokenIdentifier>(key: &MasterKey, identifier: I) -> pb::TokenProto {
    TokenSecretManager::<I>::new(key.clone())
        .sign(identifier, this_node().to_string())
        .into()
}

/// NM keys holding `key` as the only key of both kinds.
pub(super) fn keys_with(key: &MasterKey) -> NmTokenKeys {
    let mut keys = NmTokenKeys::new();
    for kind in NmKeyKind::ALL {
        keys.install(kind, key.into()).expect("valid key");
    }
    keys
}
