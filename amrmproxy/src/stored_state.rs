//! The encoding of everything the AMRMProxy persists: one format version byte, then a protobuf
//! message. Protobuf rather than the NM store's postcard because the records are mostly YARN's
//! own protobuf messages (tokens, asks, containers).

use std::collections::BTreeMap;

use prost::Message;
use yarn_proto::ids::ApplicationAttemptId;
use yarn_proto::pb;
use yarn_security::{MasterKey, NextMasterKey};

use crate::{ApplicationProxyState, Error, ProxyMasterKeys};

/// The format version this binary writes and the only one it reads. A change to a record's
/// shape that old readers would misread bumps it.
pub const FORMAT_VERSION: u8 = 1;

/// `message` as `[FORMAT_VERSION, protobuf bytes...]`.
pub(crate) fn encode_record(message: &impl Message) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(1 + message.encoded_len());
    bytes.push(FORMAT_VERSION);
    message.encode_raw(&mut bytes);
    bytes
}

/// Reads a record written by [`encode_record`]; `record` names it in errors.
pub(crate) fn decode_record<M: Message + Default>(
    record: &'static str,
    bytes: &[u8],
) -> Result<M, Error> {
    let (&version, body) = bytes.split_first().ok_or_else(|| Error::CorruptState {
        record,
        reason: "the record is empty".to_owned(),
    })?;
    if version != FORMAT_VERSION {
        return Err(Error::UnsupportedStateVersion {
            record,
            found: version,
            expected: FORMAT_VERSION,
        });
    }
    M::decode(body).map_err(|err| Error::CorruptState {
        record,
        reason: err.to_string(),
    })
}

#[derive(Clone, PartialEq, Message)]
struct StoredApplication {
    #[prost(message, optional, tag = "1")]
    attempt: Option<pb::ApplicationAttemptIdProto>,
    #[prost(string, tag = "2")]
    user: String,
    #[prost(message, optional, tag = "3")]
    rm_token: Option<pb::TokenProto>,
    #[prost(btree_map = "string, bytes", tag = "4")]
    interceptor_state: BTreeMap<String, Vec<u8>>,
}

#[derive(Clone, PartialEq, Message)]
struct StoredMasterKeys {
    #[prost(message, optional, tag = "1")]
    current: Option<pb::MasterKeyProto>,
    #[prost(int64, tag = "2")]
    current_activated_at_ms: i64,
    #[prost(message, optional, tag = "3")]
    next: Option<pb::MasterKeyProto>,
    #[prost(int64, tag = "4")]
    next_created_at_ms: i64,
}

const APPLICATION_RECORD: &str = "application record";
const MASTER_KEYS_RECORD: &str = "master keys record";

impl ApplicationProxyState {
    /// The record [`ProxyStateStore::put_application`](crate::ProxyStateStore) stores.
    pub fn encode(&self) -> Vec<u8> {
        encode_record(&StoredApplication {
            attempt: Some(self.attempt.into()),
            user: self.user.clone(),
            rm_token: Some(self.rm_token.clone()),
            interceptor_state: self.interceptor_state.clone(),
        })
    }

    /// Reads a record written by [`encode`](Self::encode).
    ///
    /// # Errors
    ///
    /// [`Error::UnsupportedStateVersion`], or [`Error::CorruptState`] for bytes that do not
    /// decode or lack the attempt or the RM token.
    pub fn decode(bytes: &[u8]) -> Result<Self, Error> {
        let stored: StoredApplication = decode_record(APPLICATION_RECORD, bytes)?;
        let corrupt = |reason: String| Error::CorruptState {
            record: APPLICATION_RECORD,
            reason,
        };
        let attempt = stored
            .attempt
            .ok_or_else(|| corrupt("no application attempt".to_owned()))
            .and_then(|proto| {
                ApplicationAttemptId::try_from(proto).map_err(|err| corrupt(err.to_string()))
            })?;
        Ok(Self {
            attempt,
            user: stored.user,
            rm_token: stored
                .rm_token
                .ok_or_else(|| corrupt(format!("no RM AMRMToken for {attempt}")))?,
            interceptor_state: stored.interceptor_state,
        })
    }
}

impl ProxyMasterKeys {
    /// The record [`ProxyStateStore::put_master_keys`](crate::ProxyStateStore) stores.
    pub fn encode(&self) -> Vec<u8> {
        encode_record(&StoredMasterKeys {
            current: Some((&self.current).into()),
            current_activated_at_ms: self.current_activated_at_ms,
            next: self.next.as_ref().map(|next| (&next.key).into()),
            next_created_at_ms: self.next.as_ref().map_or(0, |next| next.created_at_ms),
        })
    }

    /// Reads a record written by [`encode`](Self::encode).
    ///
    /// # Errors
    ///
    /// [`Error::UnsupportedStateVersion`], or [`Error::CorruptState`] for bytes that do not
    /// decode, lack the current key, or hold a key of the wrong length.
    pub fn decode(bytes: &[u8]) -> Result<Self, Error> {
        let stored: StoredMasterKeys = decode_record(MASTER_KEYS_RECORD, bytes)?;
        let key = |proto: pb::MasterKeyProto| {
            MasterKey::try_from(proto).map_err(|err| Error::CorruptState {
                record: MASTER_KEYS_RECORD,
                reason: err.to_string(),
            })
        };
        let current = stored.current.ok_or_else(|| Error::CorruptState {
            record: MASTER_KEYS_RECORD,
            reason: "no current key".to_owned(),
        })?;
        Ok(Self {
            current: key(current)?,
            current_activated_at_ms: stored.current_activated_at_ms,
            next: stored
                .next
                .map(|next| {
                    key(next).map(|key| NextMasterKey {
                        key,
                        created_at_ms: stored.next_created_at_ms,
                    })
                })
                .transpose()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use yarn_proto::ids::ApplicationId;

    use super::*;

    fn application() -> ApplicationProxyState {
        ApplicationProxyState {
            attempt: ApplicationAttemptId::new(ApplicationId::new(17, 3), 2),
            user: "alice".to_owned(),
            rm_token: pb::TokenProto {
                identifier: vec![1, 2],
                password: vec![3; 32],
                kind: "YARN_AM_RM_TOKEN".to_owned(),
                service: "yarn-ha-scheduler".to_owned(),
            },
            interceptor_state: BTreeMap::from([("default/relay".to_owned(), vec![9, 9])]),
        }
    }

    #[test]
    fn application_and_keys_round_trip() {
        let state = application();
        assert_eq!(
            ApplicationProxyState::decode(&state.encode()).unwrap(),
            state
        );
        let keys = ProxyMasterKeys {
            current: MasterKey::new(4, [1; MasterKey::LEN]),
            current_activated_at_ms: 100,
            next: Some(NextMasterKey {
                key: MasterKey::new(5, [2; MasterKey::LEN]),
                created_at_ms: 200,
            }),
        };
        assert_eq!(ProxyMasterKeys::decode(&keys.encode()).unwrap(), keys);
        let without_next = ProxyMasterKeys { next: None, ..keys };
        assert_eq!(
            ProxyMasterKeys::decode(&without_next.encode()).unwrap(),
            without_next
        );
    }

    #[test]
    fn other_versions_empty_and_garbage_records_are_refused_by_name() {
        let mut bytes = application().encode();
        bytes[0] = FORMAT_VERSION + 1;
        let err = ApplicationProxyState::decode(&bytes).unwrap_err();
        assert!(
            matches!(
                err,
                Error::UnsupportedStateVersion { found, expected: FORMAT_VERSION, .. }
                    if found == FORMAT_VERSION + 1
            ),
            "{err:?}"
        );
        assert!(matches!(
            ProxyMasterKeys::decode(&[]),
            Err(Error::CorruptState { .. })
        ));
        let err = ApplicationProxyState::decode(&[FORMAT_VERSION, 0xFF, 0xFF]).unwrap_err();
        assert!(err.to_string().contains("application record"), "{err}");
        // A well-formed message without the attempt is refused too.
        let err = ApplicationProxyState::decode(&[FORMAT_VERSION]).unwrap_err();
        assert!(err.to_string().contains("no application attempt"), "{err}");
    }
}
