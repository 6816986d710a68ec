//! The master keys a NodeManager checks container tokens and NM tokens with.

use yarn_proto::pb;
use yarn_security::{MasterKey, TokenIdentifier, TokenSecretManager};

use super::NmKeyKind;

/// The NodeManager's master keys, per [`NmKeyKind`]: the **current** key the RM last shipped and
/// the **previous** one, both of which verify tokens, as in YARN's NM. Keeping the previous key
/// lets tokens signed just before a roll still start containers.
///
/// Before the first registration the NM holds no key of either kind and every token is refused.
/// Pure: the caller persists the keys (see [`current`](Self::current) and
/// [`previous`](Self::previous)) whenever [`install`](Self::install) reports a change, and brings
/// them back with [`restore`](Self::restore) after a restart.
#[derive(Clone, Debug, Default)]
pub struct NmTokenKeys {
    container_tokens: Option<TokenSecretManager<pb::ContainerTokenIdentifierProto>>,
    nm_tokens: Option<TokenSecretManager<pb::NmTokenIdentifierProto>>,
}

impl NmTokenKeys {
    /// Holds no key yet: every token is refused until the first [`install`](Self::install).
    pub fn new() -> Self {
        NmTokenKeys::default()
    }

    /// Installs a key the ResourceManager shipped in a registration or heartbeat response.
    ///
    /// A key whose id differs from the current one becomes current, and the replaced current key
    /// stays valid as previous (the older previous key is dropped). A key with the current id
    /// changes nothing, so the RM may re-send keys freely. Returns whether the keys changed, which
    /// is when the caller must persist them.
    ///
    /// # Errors
    /// [`yarn_security::Error::InvalidMasterKey`] (naming the key id and its length) when the
    /// secret is not exactly [`MasterKey::LEN`] bytes; the keys are then left unchanged.
    pub fn install(
        &mut self,
        kind: NmKeyKind,
        key: pb::MasterKeyProto,
    ) -> Result<bool, yarn_security::Error> {
        let key = MasterKey::try_from(key)?;
        Ok(match kind {
            NmKeyKind::ContainerToken => install_into(&mut self.container_tokens, key),
            NmKeyKind::NmToken => install_into(&mut self.nm_tokens, key),
        })
    }

    /// Replaces the keys of `kind` with ones read back from the NM state store, as they were
    /// when last persisted.
    pub fn restore(&mut self, kind: NmKeyKind, current: MasterKey, previous: Option<MasterKey>) {
        match kind {
            NmKeyKind::ContainerToken => {
                self.container_tokens = Some(TokenSecretManager::with_previous(current, previous));
            }
            NmKeyKind::NmToken => {
                self.nm_tokens = Some(TokenSecretManager::with_previous(current, previous));
            }
        }
    }

    /// The current key of `kind`, as the NM reports it in `last_known_*_master_key` of each
    /// heartbeat so the RM ships a key only when it changed; `None` before the first install.
    pub fn last_known(&self, kind: NmKeyKind) -> Option<pb::MasterKeyProto> {
        self.current(kind).map(pb::MasterKeyProto::from)
    }

    /// The current key of `kind`, `None` before the first install.
    pub fn current(&self, kind: NmKeyKind) -> Option<&MasterKey> {
        match kind {
            NmKeyKind::ContainerToken => self.container_tokens.as_ref().map(|m| m.current()),
            NmKeyKind::NmToken => self.nm_tokens.as_ref().map(|m| m.current()),
        }
    }

    /// The previous key of `kind`, which still verifies tokens; `None` until a second key has
    /// been installed.
    pub fn previous(&self, kind: NmKeyKind) -> Option<&MasterKey> {
        match kind {
            NmKeyKind::ContainerToken => self.container_tokens.as_ref().and_then(|m| m.previous()),
            NmKeyKind::NmToken => self.nm_tokens.as_ref().and_then(|m| m.previous()),
        }
    }

    /// The verifier of container tokens, `None` before the first container-token key.
    pub(crate) fn container_tokens(
        &self,
    ) -> Option<&TokenSecretManager<pb::ContainerTokenIdentifierProto>> {
        self.container_tokens.as_ref()
    }

    /// The verifier of NM tokens, `None` before the first NM-token key.
    pub(crate) fn nm_tokens(&self) -> Option<&TokenSecretManager<pb::NmTokenIdentifierProto>> {
        self.nm_tokens.as_ref()
    }
}

fn install_into<I: TokenIdentifier>(
    slot: &mut Option<TokenSecretManager<I>>,
    key: MasterKey,
) -> bool {
    match slot {
        Some(manager) => manager.install_master_key(key),
        None => {
            *slot = Some(TokenSecretManager::new(key));
            true
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::token_check::test_tokens::key;

    fn ids(keys: &NmTokenKeys, kind: NmKeyKind) -> (Option<i32>, Option<i32>) {
        (
            keys.current(kind).map(MasterKey::key_id),
            keys.previous(kind).map(MasterKey::key_id),
        )
    }

    #[test]
    fn starts_empty() {
        let keys = NmTokenKeys::new();
        for kind in NmKeyKind::ALL {
            assert_eq!(ids(&keys, kind), (None, None));
            assert_eq!(keys.last_known(kind), None);
        }
    }

    #[test]
    fn install_keeps_the_replaced_current_key_as_previous() {
        let mut keys = NmTokenKeys::new();
        let kind = NmKeyKind::ContainerToken;
        assert!(keys.install(kind, key(1, 0x11).into()).unwrap());
        assert_eq!(ids(&keys, kind), (Some(1), None));

        assert!(keys.install(kind, key(2, 0x22).into()).unwrap());
        assert_eq!(ids(&keys, kind), (Some(2), Some(1)));
        assert_eq!(keys.previous(kind), Some(&key(1, 0x11)));

        assert!(keys.install(kind, key(3, 0x33).into()).unwrap());
        assert_eq!(ids(&keys, kind), (Some(3), Some(2)));
    }

    #[test]
    fn reinstalling_the_current_key_changes_nothing() {
        let mut keys = NmTokenKeys::new();
        let kind = NmKeyKind::NmToken;
        keys.install(kind, key(1, 0x11).into()).unwrap();
        keys.install(kind, key(2, 0x22).into()).unwrap();
        assert!(!keys.install(kind, key(2, 0x22).into()).unwrap());
        assert_eq!(ids(&keys, kind), (Some(2), Some(1)));
    }

    #[test]
    fn kinds_are_kept_apart() {
        let mut keys = NmTokenKeys::new();
        keys.install(NmKeyKind::ContainerToken, key(5, 0x55).into())
            .unwrap();
        assert_eq!(ids(&keys, NmKeyKind::NmToken), (None, None));
        keys.install(NmKeyKind::NmToken, key(9, 0x99).into())
            .unwrap();
        assert_eq!(ids(&keys, NmKeyKind::ContainerToken), (Some(5), None));
        assert_eq!(ids(&keys, NmKeyKind::NmToken), (Some(9), None));
    }

    #[test]
    fn last_known_reports_the_current_key_with_its_secret() {
        let mut keys = NmTokenKeys::new();
        keys.install(NmKeyKind::ContainerToken, key(1, 0x11).into())
            .unwrap();
        keys.install(NmKeyKind::ContainerToken, key(2, 0x22).into())
            .unwrap();
        assert_eq!(
            keys.last_known(NmKeyKind::ContainerToken),
            Some(pb::MasterKeyProto::from(key(2, 0x22)))
        );
    }

    #[test]
    fn a_key_of_the_wrong_length_is_refused_and_changes_nothing() {
        let mut keys = NmTokenKeys::new();
        keys.install(NmKeyKind::ContainerToken, key(1, 0x11).into())
            .unwrap();
        let short = pb::MasterKeyProto {
            key_id: 2,
            bytes: vec![7; 16],
        };
        let err = keys.install(NmKeyKind::ContainerToken, short).unwrap_err();
        assert!(
            matches!(
                err,
                yarn_security::Error::InvalidMasterKey {
                    key_id: 2,
                    length: 16,
                    ..
                }
            ),
            "{err:?}"
        );
        assert_eq!(ids(&keys, NmKeyKind::ContainerToken), (Some(1), None));
    }

    #[test]
    fn restore_brings_back_current_and_previous() {
        let mut keys = NmTokenKeys::new();
        keys.restore(NmKeyKind::NmToken, key(4, 0x44), Some(key(3, 0x33)));
        assert_eq!(ids(&keys, NmKeyKind::NmToken), (Some(4), Some(3)));
        assert!(
            keys.install(NmKeyKind::NmToken, key(5, 0x55).into())
                .unwrap()
        );
        assert_eq!(ids(&keys, NmKeyKind::NmToken), (Some(5), Some(4)));
    }
}
