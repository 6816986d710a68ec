//! The token master keys as replicated: for each token kind the current key and, while a roll
//! is in progress, the next one.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use yarn_security::{MasterKey, MasterKeyRoller, NextMasterKey, TokenKind};

/// The kinds of token the ResourceManager signs, as stored: [`TokenKind`] without the serde
/// dependency in the security crate, and ordered so that stored keys encode in one order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum MasterKeyKind {
    /// Keys of the AMRMTokens application masters present to the scheduler.
    AmRm,
    /// Keys of the container tokens NodeManagers check before starting a container.
    Container,
    /// Keys of the NM tokens application masters present to NodeManagers.
    Nm,
}

impl MasterKeyKind {
    /// Every kind, in their stored order.
    pub const ALL: [MasterKeyKind; 3] = [Self::AmRm, Self::Container, Self::Nm];

    /// The security crate's name for this kind.
    pub fn token_kind(self) -> TokenKind {
        match self {
            Self::AmRm => TokenKind::AmRm,
            Self::Container => TokenKind::Container,
            Self::Nm => TokenKind::Nm,
        }
    }
}

/// One stored master key with the time it entered its role (activation for a current key,
/// creation for a next key), in milliseconds since the Unix epoch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredMasterKey {
    /// The key's id, carried in every token it signs.
    pub key_id: i32,
    /// The HMAC secret.
    pub secret: [u8; MasterKey::LEN],
    /// When the key entered its role, in the proposing leader's clock.
    pub since_ms: i64,
}

impl StoredMasterKey {
    /// The key as the security crate uses it.
    pub fn master_key(&self) -> MasterKey {
        MasterKey::new(self.key_id, self.secret)
    }
}

/// One kind's keys.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MasterKeyPair {
    /// The key new tokens are signed with.
    pub current: StoredMasterKey,
    /// The key that becomes current next; already accepted when verifying.
    pub next: Option<StoredMasterKey>,
}

impl MasterKeyPair {
    /// Both keys as a roller on `schedule`, to decide the next roll.
    ///
    /// # Errors
    ///
    /// The security crate's error if the next key's id is not the current id plus one, which
    /// [`MasterKeys::apply`] never stores.
    pub fn roller(
        &self,
        schedule: yarn_security::KeyRollingSchedule,
    ) -> Result<MasterKeyRoller, yarn_security::Error> {
        let next = self.next.as_ref().map(|next| NextMasterKey {
            key: next.master_key(),
            created_at_ms: next.since_ms,
        });
        MasterKeyRoller::restore(
            schedule,
            self.current.master_key(),
            self.current.since_ms,
            next,
        )
    }
}

/// A change to one kind's keys, proposed by the leader's key-rolling service.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum MasterKeyChange {
    /// Installs the first key of a kind that has none.
    Initialize {
        /// The first key.
        key: StoredMasterKey,
    },
    /// Stores the next key; its id must be the current id plus one (wrapping).
    CreateNext {
        /// The next key.
        key: StoredMasterKey,
    },
    /// Makes the next key current at `now_ms`.
    ActivateNext {
        /// The id of the next key, so a stale proposal cannot activate a different key.
        key_id: i32,
        /// The leader's clock.
        now_ms: i64,
    },
}

/// Why a [`MasterKeyChange`] was not applied. Every replica reaches the same verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum MasterKeyRejection {
    /// `Initialize` for a kind that already has a key.
    AlreadyInitialized,
    /// `CreateNext` or `ActivateNext` for a kind without keys.
    NotInitialized,
    /// `CreateNext` while a next key exists.
    NextExists {
        /// The id of the next key already stored.
        existing: i32,
    },
    /// `ActivateNext` while no next key exists.
    NoNext,
    /// The change names a key id other than the one expected.
    UnexpectedKeyId {
        /// The id the state expects.
        expected: i32,
        /// The id the change carried.
        found: i32,
    },
}

/// Every kind's keys. A kind is absent until the first leader initializes it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MasterKeys {
    keys: BTreeMap<MasterKeyKind, MasterKeyPair>,
}

impl MasterKeys {
    /// The keys of `kind`, if initialized.
    pub fn get(&self, kind: MasterKeyKind) -> Option<&MasterKeyPair> {
        self.keys.get(&kind)
    }

    /// Applies `change` to `kind`, or says why not and changes nothing.
    pub fn apply(
        &mut self,
        kind: MasterKeyKind,
        change: &MasterKeyChange,
    ) -> Result<(), MasterKeyRejection> {
        use MasterKeyRejection as R;
        match change {
            MasterKeyChange::Initialize { key } => {
                if self.keys.contains_key(&kind) {
                    return Err(R::AlreadyInitialized);
                }
                let pair = MasterKeyPair {
                    current: key.clone(),
                    next: None,
                };
                self.keys.insert(kind, pair);
            }
            MasterKeyChange::CreateNext { key } => {
                let pair = self.keys.get_mut(&kind).ok_or(R::NotInitialized)?;
                if let Some(existing) = &pair.next {
                    return Err(R::NextExists {
                        existing: existing.key_id,
                    });
                }
                let expected = pair.current.key_id.wrapping_add(1);
                if key.key_id != expected {
                    return Err(R::UnexpectedKeyId {
                        expected,
                        found: key.key_id,
                    });
                }
                pair.next = Some(key.clone());
            }
            MasterKeyChange::ActivateNext { key_id, now_ms } => {
                let pair = self.keys.get_mut(&kind).ok_or(R::NotInitialized)?;
                let next = pair.next.as_ref().ok_or(R::NoNext)?;
                if next.key_id != *key_id {
                    return Err(R::UnexpectedKeyId {
                        expected: next.key_id,
                        found: *key_id,
                    });
                }
                let mut current = pair.next.take().ok_or(R::NoNext)?;
                current.since_ms = *now_ms;
                pair.current = current;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(key_id: i32, since_ms: i64) -> StoredMasterKey {
        StoredMasterKey {
            key_id,
            secret: [key_id as u8; MasterKey::LEN],
            since_ms,
        }
    }

    #[test]
    fn a_roll_goes_initialize_create_next_activate() {
        let mut keys = MasterKeys::default();
        let kind = MasterKeyKind::Container;
        keys.apply(kind, &MasterKeyChange::Initialize { key: key(1, 10) })
            .unwrap();
        keys.apply(kind, &MasterKeyChange::CreateNext { key: key(2, 20) })
            .unwrap();
        assert_eq!(keys.get(kind).unwrap().next, Some(key(2, 20)));
        keys.apply(
            kind,
            &MasterKeyChange::ActivateNext {
                key_id: 2,
                now_ms: 30,
            },
        )
        .unwrap();
        let pair = keys.get(kind).unwrap();
        assert_eq!(pair.current, key(2, 30));
        assert_eq!(pair.next, None);
        assert_eq!(keys.get(MasterKeyKind::AmRm), None);
    }

    #[test]
    fn out_of_order_changes_are_rejected_without_effect() {
        let mut keys = MasterKeys::default();
        let kind = MasterKeyKind::AmRm;
        let create = |id| MasterKeyChange::CreateNext { key: key(id, 5) };
        assert_eq!(
            keys.apply(kind, &create(2)),
            Err(MasterKeyRejection::NotInitialized)
        );
        keys.apply(kind, &MasterKeyChange::Initialize { key: key(1, 0) })
            .unwrap();
        let before = keys.clone();
        assert_eq!(
            keys.apply(kind, &MasterKeyChange::Initialize { key: key(7, 0) }),
            Err(MasterKeyRejection::AlreadyInitialized)
        );
        assert_eq!(
            keys.apply(kind, &create(3)),
            Err(MasterKeyRejection::UnexpectedKeyId {
                expected: 2,
                found: 3
            })
        );
        let activate = |key_id| MasterKeyChange::ActivateNext { key_id, now_ms: 9 };
        assert_eq!(
            keys.apply(kind, &activate(2)),
            Err(MasterKeyRejection::NoNext)
        );
        assert_eq!(keys, before);
        keys.apply(kind, &create(2)).unwrap();
        assert_eq!(
            keys.apply(kind, &create(2)),
            Err(MasterKeyRejection::NextExists { existing: 2 })
        );
        assert_eq!(
            keys.apply(kind, &activate(5)),
            Err(MasterKeyRejection::UnexpectedKeyId {
                expected: 2,
                found: 5
            })
        );
    }

    #[test]
    fn key_ids_wrap_around() {
        let mut keys = MasterKeys::default();
        let kind = MasterKeyKind::Nm;
        keys.apply(
            kind,
            &MasterKeyChange::Initialize {
                key: key(i32::MAX, 0),
            },
        )
        .unwrap();
        keys.apply(
            kind,
            &MasterKeyChange::CreateNext {
                key: key(i32::MIN, 1),
            },
        )
        .unwrap();
    }
}
